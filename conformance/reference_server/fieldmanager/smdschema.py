"""The types structured-merge-diff checks an applied configuration against, read from OpenAPI v3 as kube-openapi's
`pkg/schemaconv` (`openapi.go` `ToSchemaFromOpenAPI`, `smd.go` `convertPrimitive` and the common types) reads it.

A built-in kind's types come from the v3 definitions this server publishes for it (`wire.openapi.kind_schema_v3`,
upstream's `getOpenAPIModels` → `managedfields.NewTypeConverter(spec, false)`); a custom resource's from its
version's structural schema with `apiVersion`, `kind` and `metadata` added as apiextensions' `builder.go`
(`buildKubeNative`, `addTypeMetaProperties`, `addEmbeddedProperties`) adds them. Converted lazily, one node at
a time, memoised on the `Types` of the kind (each FieldManager keeps one).

The rules: `type: object` is a map whose declared properties are its fields and whose other keys are typed by
`additionalProperties` (a schema, or untyped when `true`); without `additionalProperties` a map with no
properties, or under `x-kubernetes-preserve-unknown-fields: true`, takes any key, else none (smd's "field not
declared in schema"); `type: array` a list (`x-kubernetes-list-type`, or a `merge` patch strategy, makes it
associative, keyed by its map keys); `integer`/`number` numeric, `string` a string except formats other than
`byte` (untyped), `boolean` a boolean; no type at all is any of the three (an int-or-string). `Quantity` is
an untyped scalar and `RawExtension` anything (both hard-coded upstream).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NUMERIC, STRING, BOOLEAN, UNTYPED = "numeric", "string", "boolean", "untyped"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_PREFIX = "#/components/schemas/"


@dataclass
class ListAtom:
    associative: bool
    keys: tuple[str, ...]
    element: "Ref"


@dataclass
class MapAtom:
    fields: dict[str, tuple["Ref", Any]]   # name → (type, the property's default)
    element: "Ref | None"                  # None: no key but the fields ("field not declared in schema")


@dataclass
class Atom:
    scalar: str | None = None
    list: ListAtom | None = None
    map: MapAtom | None = None


class Ref:
    """A `TypeRef`: resolved on first use (a named definition once per `Types`, an inline schema once per ref)."""

    __slots__ = ("_types", "_name", "_node", "_preserve", "_atom")

    def __init__(self, types: "Types", name: str | None = None, node: dict[str, Any] | None = None,
                 preserve: bool = False, atom: Atom | None = None):
        self._types, self._name, self._node, self._preserve, self._atom = types, name, node, preserve, atom

    def resolve(self) -> Atom:
        if self._atom is None:
            if self._name is not None:
                self._atom = self._types.named(self._name)
            else:
                self._atom = self._types.parse(self._node or {}, self._preserve)
        return self._atom


def _untyped_atomic() -> Atom:
    """`__untyped_atomic_`: any scalar, a list or a map of itself (atomic)."""
    atom = Atom(UNTYPED)
    ref = Ref(None, atom=atom)  # type: ignore[arg-type]
    atom.list, atom.map = ListAtom(False, (), ref), MapAtom({}, ref)
    return atom


UNTYPED_ATOMIC = _untyped_atomic()


def _deduced() -> Atom:
    """`__untyped_deduced_`: any scalar, an atomic list of anything, a map of itself."""
    atom = Atom(UNTYPED, ListAtom(False, (), Ref(None, atom=UNTYPED_ATOMIC)))  # type: ignore[arg-type]
    atom.map = MapAtom({}, Ref(None, atom=atom))  # type: ignore[arg-type]
    return atom


DEDUCED = _deduced()


class Types:
    """The smd schema of one kind: `defs` (v3 definitions by name) and its `root` schema node."""

    def __init__(self, defs: dict[str, Any], root: dict[str, Any]):
        self.defs = defs
        self._named: dict[str, Atom] = {}
        self.root = self.ref(root, False)

    def named(self, name: str) -> Atom:
        atom = self._named.get(name)
        if atom is None:
            if name == QUANTITY:
                atom = Atom(UNTYPED)
            elif name == RAW_EXTENSION:
                atom = UNTYPED_ATOMIC
            elif name not in self.defs:
                atom = DEDUCED  # (upstream: "schema error: no type found matching"; never met with our defs)
            else:
                atom = Atom()
                self._named[name] = atom  # a recursive definition (JSONSchemaProps) meets itself
                parsed = self.parse(self.defs[name], False)
                atom.scalar, atom.list, atom.map = parsed.scalar, parsed.list, parsed.map
            self._named[name] = atom
        return atom

    def ref(self, node: Any, preserve: bool) -> Ref:
        """`makeOpenAPIRef`: a `$ref` (or a single-`allOf` one) names a definition; anything else is inline."""
        node = node if isinstance(node, dict) else {}
        target = node.get("$ref")
        if not target and isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
            target = (node["allOf"][0] or {}).get("$ref")
        if isinstance(target, str) and target.rsplit("/", 1)[-1]:
            return Ref(self, name=target.rsplit("/", 1)[-1])
        return Ref(self, node=node, preserve=preserve)

    def parse(self, node: dict[str, Any], preserve: bool) -> Atom:
        """`visitSpec` + `parseSchema`."""
        if node.get("x-kubernetes-preserve-unknown-fields") is True:
            preserve = True
        typ = node.get("type")
        if isinstance(typ, list):
            typ = typ[0] if typ else ""
        typ = typ or ""
        if typ == "":
            return Atom(UNTYPED, self._list(node, preserve), self._map(node, preserve))
        if typ == "object":
            return Atom(map=self._map(node, preserve))
        if typ == "array":
            return Atom(list=self._list(node, preserve))
        return Atom(_primitive(typ, node.get("format") or ""))

    def _map(self, node: dict[str, Any], preserve: bool) -> MapAtom:
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        fields = {name: (self.ref(sub, preserve), (sub or {}).get("default") if isinstance(sub, dict) else None)
                  for name, sub in props.items()}
        extra = node.get("additionalProperties")
        element: Ref | None
        if extra is None:
            element = Ref(self, atom=DEDUCED) if preserve or not props else None
        elif isinstance(extra, dict):
            element = self.ref(extra, preserve)
        else:
            element = Ref(self, atom=DEDUCED) if extra is True else None
        return MapAtom(fields, element)

    def _list(self, node: dict[str, Any], preserve: bool) -> ListAtom:
        associative, keys = _list_relationship(node)
        items = node.get("items")
        element = self.ref(items, preserve) if isinstance(items, dict) else Ref(self, atom=UNTYPED_ATOMIC)
        return ListAtom(associative, keys, element)


def _primitive(typ: str, fmt: str) -> str:
    """`convertPrimitive`."""
    if typ in ("integer", "number"):
        return NUMERIC
    if typ == "string":
        return STRING if fmt in ("", "byte") else UNTYPED
    return BOOLEAN if typ == "boolean" else UNTYPED


def _list_relationship(node: dict[str, Any]) -> tuple[bool, tuple[str, ...]]:
    """`getListElementRelationship`: (associative, keys)."""
    kind = node.get("x-kubernetes-list-type")
    if kind is not None:
        if kind == "map":
            keys = node.get("x-kubernetes-list-map-keys") or []
            return True, tuple(k for k in keys if isinstance(k, str))
        return kind == "set", ()
    strategy = node.get("x-kubernetes-patch-strategy")
    if strategy in ("merge", "merge,retainKeys"):
        key = node.get("x-kubernetes-patch-merge-key")
        return True, (key,) if isinstance(key, str) else ()
    return False, ()


@dataclass
class CustomResourceTypes:
    """A custom resource version's schema with what `buildKubeNative` adds (`metadata` from the built-in
    definitions, `apiVersion`/`kind` strings; the same three in every `x-kubernetes-embedded-resource`)."""

    schema: dict[str, Any] | None
    meta_defs: dict[str, Any] = field(default_factory=dict)

    def types(self) -> Types:
        if not isinstance(self.schema, dict):  # no schema: an object of anything, not even its type meta added
            return Types(self.meta_defs, {"type": "object"})
        root = _kube_native(self.schema)
        return Types(self.meta_defs, root)


_TYPE_META = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}}
_META_REF = {"$ref": _PREFIX + OBJECT_META}


def _kube_native(schema: dict[str, Any]) -> dict[str, Any]:
    out = _embedded(schema)
    props = dict(out.get("properties") or {})
    props["metadata"] = _META_REF
    props.update(_TYPE_META)
    return {**out, "properties": props}


def _embedded(node: Any) -> Any:
    """`addEmbeddedProperties`: a copy of the schema where each embedded resource declares its type meta."""
    if not isinstance(node, dict):
        return node
    out = dict(node)
    if isinstance(node.get("properties"), dict):
        out["properties"] = {k: _embedded(v) for k, v in node["properties"].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            out[key] = _embedded(node[key])
    if node.get("x-kubernetes-embedded-resource") is True:
        out["properties"] = {**(out.get("properties") or {}), **_TYPE_META, "metadata": _META_REF}
    return out
