"""How structured-merge-diff sees the served kinds: which lists merge by key (`x-kubernetes-list-type: map`
with `x-kubernetes-list-map-keys`), which are sets, which are atomic, and which maps are atomic.

Built-in kinds follow the `+listType`/`+listMapKey`/`+patchStrategy`/`+structType`/`+mapType` markers of
upstream's types that their OpenAPI publishes: the v3 schema this server publishes (`wire.openapi.kind_schema_v3`,
markers in `wire.openapi_schemas.PATCH_META` and `wire.markers`), read as `schemaconv` reads it. Custom
resources follow their CRD's structural schema as structured-merge-diff reads it (`schemaconv` of
`kube-openapi`, `apiextensions-apiserver`'s type converter): `x-kubernetes-list-type` (`atomic`, `set`, `map`
with `x-kubernetes-list-map-keys`; a key's `default` fills an item that omits it), `x-kubernetes-map-type:
atomic`; a list without a list type is atomic, a map granular; a custom resource's `metadata` is ObjectMeta.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..wire.patchmeta import resolve as _deref
from ..memo import remember
from .jsonkinds import described, go_types, with_types

if TYPE_CHECKING:
    from .smdschema import Types

ATOMIC, SET, MAP = "atomic", "set", "map"


@dataclass(frozen=True)
class ListType:
    kind: str                               # atomic | set | map
    keys: tuple[str, ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()   # key fields with an OpenAPI default (ports' protocol)


_ATOMIC = ListType(ATOMIC)
_SET = ListType(SET)
_MEMO_LIMIT = 4096
_TYPES = ("\x00types",)  # the memo's key of the smd types (no field name holds a NUL)


@dataclass(frozen=True)
class Schema:
    """The merge rules of one kind (names: the field names from the root, list items skipped).

    A built-in kind's rules come from the v3 schema this server publishes for it (`wire.openapi.kind_schema_v3`,
    generated from the field model with upstream's markers, `wire.markers`): the one source strategic-merge
    patch reads too. `crd_schema` is a custom resource's `openAPIV3Schema` (None: every list atomic, every map
    granular)."""

    kind: str
    builtin: bool = True
    crd_schema: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    api_version: str = "v1"
    _memo: dict[tuple[str, ...], tuple[ListType, bool]] = field(default_factory=dict, compare=False, hash=False,
                                                                 repr=False)

    def types(self) -> "Types":
        """The kind's smd types (`smdschema.py`), what an applied configuration is checked against; built on the
        first apply and kept (a changed CRD gets a new store, hence a new schema)."""
        hit = self._memo.get(_TYPES)
        if hit is None:
            from ..wire.openapi import kind_schema_v3  # the OpenAPI model loads on the first apply
            from .smdschema import CustomResourceTypes, Types
            if self.builtin and (go := go_types(self.api_version, self.kind)) is not None:
                hit = Types(*go)  # a CRD, an APIService: from their Go types (jsonkinds.py)
            elif self.builtin:
                group, _, version = self.api_version.rpartition("/")
                hit = Types(*kind_schema_v3(group, version, self.kind))
            else:
                hit = CustomResourceTypes(self.crd_schema, kind_schema_v3("", "v1", "ConfigMap")[0]).types()
            self._memo[_TYPES] = hit  # type: ignore[assignment]
        return hit  # type: ignore[return-value]

    def list_type(self, names: tuple[str, ...]) -> ListType:
        if not names:
            return _ATOMIC
        return self._at(names)[0]

    def atomic_map(self, names: tuple[str, ...]) -> bool:
        """`+structType=atomic` / `+mapType=atomic` (LabelSelector, a Service's selector, a pod's nodeSelector)."""
        return bool(names) and self._at(names)[1]

    def _at(self, names: tuple[str, ...]) -> tuple[ListType, bool]:
        """(list type, atomic map) at `names`, memoised: the schema never changes under a store (a changed CRD
        gets a new store)."""
        hit = self._memo.get(names)
        if hit is None:
            if self.builtin or names[0] == "metadata":  # a custom resource's metadata is ObjectMeta
                hit = _builtin_at(self.kind if self.builtin else "ConfigMap",
                                  self.api_version if self.builtin else "v1", names)
            else:
                node = _crd_node(self.crd_schema, names)
                hit = (_crd_list_type(node), node.get("x-kubernetes-map-type") == "atomic")
            remember(self._memo, names, hit, _MEMO_LIMIT)  # names include map keys: bound what arbitrary data can add
        return hit


def _builtin_at(kind: str, api_version: str, names: tuple[str, ...]) -> tuple[ListType, bool]:
    """The list type and map atomicity at `names` of a built-in kind's published v3 schema: upstream's field
    manager types objects with the v3 definitions (`getOpenAPIModels`: `builder3.BuildOpenAPIDefinitionsForResources`),
    whose `default`s name a list-map key an item may omit (ports' `protocol`); the v2 document has none."""
    from ..wire.openapi import kind_schema_v3  # the OpenAPI model loads on the first apply, not at start-up
    if names[0] == "metadata" and described(api_version, kind):  # ObjectMeta (their published definitions lack it)
        kind, api_version = "ConfigMap", "v1"
    group, _, version = api_version.rpartition("/")
    defs, node = kind_schema_v3(group, version, kind)
    node = with_types(api_version, kind, node)  # CRDs and APIServices: their types' list markers (jsonkinds.py)
    own: dict[str, Any] = node
    for name in names:
        own = _deref(defs, own)
        while own.get("type") == "array":
            own = _deref(defs, own.get("items"))
        props = own.get("properties") or {}
        if name in props:
            node = props[name]
        elif isinstance(own.get("additionalProperties"), dict):
            node = own["additionalProperties"]
        else:
            return _ATOMIC, False
        own = node
    resolved = _deref(defs, node)
    element = _deref(defs, resolved.get("items")) if resolved.get("type") == "array" else resolved
    atomic = "atomic" in (node.get("x-kubernetes-map-type"), element.get("x-kubernetes-map-type"))
    return _list_type_of(resolved, defs), atomic


def _list_type_of(node: dict[str, Any], defs: dict[str, Any]) -> ListType:
    """kube-openapi's `schemaconv` (`getListElementRelationship`): `x-kubernetes-list-type` first, else a
    `merge` patch strategy (keyed by its merge key, a set without one), else atomic."""
    if node.get("type") != "array":
        return _ATOMIC
    if "x-kubernetes-list-type" not in node and "merge" in (node.get("x-kubernetes-patch-strategy") or "").split(","):
        key = node.get("x-kubernetes-patch-merge-key")
        node = {**node, "x-kubernetes-list-type": "map" if key else "set",
                "x-kubernetes-list-map-keys": [key] if key else []}
    return _crd_list_type({**node, "items": _deref(defs, node.get("items"))})


def _crd_node(schema: dict[str, Any] | None, names: tuple[str, ...]) -> dict[str, Any]:
    """The schema at `names` (list items are stepped through; a map's key takes its value schema)."""
    node: Any = schema if isinstance(schema, dict) else {}
    for name in names:
        while isinstance(node.get("items"), dict):
            node = node["items"]
        props = node.get("properties") or {}
        if isinstance(props, dict) and isinstance(props.get(name), dict):
            node = props[name]
        elif isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
        else:
            return {}
    return node


def _crd_list_type(node: dict[str, Any]) -> ListType:
    kind = node.get("x-kubernetes-list-type")
    if kind == SET:
        return _SET
    if kind != MAP:
        return _ATOMIC
    keys = tuple(k for k in node.get("x-kubernetes-list-map-keys") or () if isinstance(k, str))
    item_props = (node.get("items") or {}).get("properties") or {}
    defaults = tuple((k, item_props[k]["default"]) for k in keys
                     if isinstance(item_props.get(k), dict) and "default" in item_props[k])
    return ListType(MAP, keys, defaults) if keys else _ATOMIC
