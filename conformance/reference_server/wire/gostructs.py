"""Struct fields in the order Go's `encoding/json` writes a typed object: each struct's fields in the Go struct's
order, an embedded `json:",inline"` struct's fields flattened at the embedding point (`encode.go` `typeFields`).

kube-apiserver decodes every built-in object into its Go type before it stores and answers it, so a Pod sent as
`{"spec":{"restartPolicy":..,"containers":..}}` comes back with `containers` first (PodSpec's order, k8s.io/api
`core/v1/types.go`), and a defaulted container's `imagePullPolicy` before `terminationMessagePath`. The order
comes from the field model (wire/schema.py): upstream's generated.proto lists each message's fields in the Go
struct's order (go-to-protobuf writes them so), and `schema.json_fields` flattens the inlined ones (Volume's
VolumeSource, Probe's ProbeHandler, PersistentVolumeSpec's PersistentVolumeSource, ...) in place; checked
against k8s.io/api v0.33.9's types.go for every served message. A CustomResourceDefinition follows
apiextensions-apiserver `pkg/apis/apiextensions/v1/types.go` and `types_jsonschema.go` (wire/crdtypes.py's
`STRUCTS`, declared in that order), an APIService kube-aggregator's `pkg/apis/apiregistration/v1/types.go`
(wire/apiservicetypes.py). A key the Go type does not have (none after pruning) goes last, in the order
sent. Done once, when an object is stored (registry/store.py), copy on write as wire/gomaps.py: GET, LIST and
watch answer the stored order and the read path pays nothing.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from . import apiservicetypes, crdtypes, gomaps, schema

_TYPE_META = {"kind": -2, "apiVersion": -1}  # metav1.TypeMeta, inlined first in every top-level kind
_LAST = 1 << 30

_Field = tuple[int, str, str | None]
"""(rank in the struct, how: `one` / `list` / `map` / `-` (a scalar), the struct message of the value or None)."""


def _struct(message: str) -> str | None:
    """`message` when its JSON is an object with fields (not a Time, Quantity, RawExtension, ...)."""
    if message in schema.JSON_SCALAR_MESSAGES or message in schema.STRING_LIST_MESSAGES:
        return None
    return message if message in schema.MESSAGES else None


@lru_cache(maxsize=None)
def _fields(message: str, root: bool) -> dict[str, _Field]:
    out: dict[str, _Field] = {}
    if root:
        out.update({k: (r, "-", None) for k, r in _TYPE_META.items()})
    for rank, (name, f) in enumerate(schema.json_fields(message).items()):
        sub = _struct(f.type) if f.is_message else None
        how = "-" if sub is None else "map" if f.map_key is not None else "list" if f.repeated else "one"
        out[name] = (rank, how, sub)
    return out


def _ordered(obj: dict[str, Any], values: dict[str, Any], rank: Callable[[str], int]) -> dict[str, Any]:
    """`obj` when its keys are in rank order and no value changed, else a new dict in that order."""
    prev = -(1 << 31)
    in_order = True
    for k in obj:
        r = rank(k)
        if r < prev:
            in_order = False
            break
        prev = r
    if in_order and all(values[k] is obj[k] for k in obj):
        return obj
    return {k: values[k] for k in (obj if in_order else sorted(obj, key=rank))}


def _map(v: Any, f: Callable[[Any], Any]) -> Any:
    """A list's or a map's values through `f`: the same list or map when none changed."""
    if isinstance(v, list):
        items = [f(x) for x in v]
        return items if any(a is not b for a, b in zip(items, v)) else v
    if isinstance(v, dict):
        values = {k: f(x) for k, x in v.items()}
        return values if any(values[k] is not v[k] for k in v) else v
    return v


def order_typed(obj: dict[str, Any], message: str, root: bool = False) -> dict[str, Any]:
    """`obj` (of the Go type `message`; `root`: a top-level kind, TypeMeta first) with every struct's fields in Go's
    order: `obj` itself when they all are, else a copy along the paths that change (`obj` is never changed)."""
    info = _fields(message, root)
    values: dict[str, Any] = {}
    for k, v in obj.items():
        f = info.get(k)
        if f is None or f[2] is None or v is None:
            values[k] = v
            continue
        sub = f[2]
        if f[1] == "one":
            values[k] = order_typed(v, sub) if isinstance(v, dict) else v
        else:
            values[k] = _map(v, lambda x, sub=sub: order_typed(x, sub) if isinstance(x, dict) else x)
    return _ordered(obj, values, lambda k: info[k][0] if k in info else _LAST)


_TABLES: dict[str, dict[str, dict[str, Any]]] = {"crd": crdtypes.STRUCTS, "apiservice": apiservicetypes.STRUCTS}
"""Go structs outside the field model (wire/crdtypes.py's notation, in Go's declaration order)."""


@lru_cache(maxsize=None)
def _rank(table: str, struct: str) -> dict[str, int]:
    return {k: i for i, k in enumerate(_TABLES[table][struct])}


def _go_value(v: Any, t: Any, table: str) -> Any:
    """`v` of the Go type `t` of `table` (a CRD's: wire/crdtypes.py, or an APIService's) with its structs' fields
    in Go's order."""
    structs = _TABLES[table]
    if isinstance(t, tuple):
        if t[0] in ("slice", "map") and isinstance(v, (list, dict)) and (t[0] == "slice") == isinstance(v, list):
            return _map(v, lambda x: _go_value(x, t[1], table))
        return v
    if t == "or-array" and isinstance(v, list):  # JSONSchemaPropsOrArray: a schema or a list of them
        return _map(v, lambda x: _go_value(x, "JSONSchemaProps", table))
    if t in ("or-array", "or-bool", "or-string-array"):  # a schema, or a bool / a list of strings
        t = "JSONSchemaProps"
    if not isinstance(v, dict) or t not in structs:
        return v  # a scalar, or `JSON` (default, example, enum: no struct; its maps sorted by wire/gomaps.py)
    fields = structs[t]
    values = {k: _go_value(x, fields[k], table) if k in fields else x for k, x in v.items()}
    rank = _rank(table, t)
    return _ordered(v, values, lambda k: rank.get(k, _LAST))


def _top_level(table: str, spec: str, status: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A top-level kind outside the field model: TypeMeta, metadata (ObjectMeta), spec, status (the Go types
    of `table`)."""
    top = {"kind": 0, "apiVersion": 1, "metadata": 2, "spec": 3, "status": 4}

    def order(obj: dict[str, Any]) -> dict[str, Any]:
        values = dict(obj)
        for name, struct in (("spec", spec), ("status", status)):
            if name in obj:
                values[name] = _go_value(obj[name], struct, table)
        if isinstance(obj.get("metadata"), dict):
            values["metadata"] = order_typed(obj["metadata"], "meta.ObjectMeta")
        return _ordered(obj, values, lambda k: top.get(k, _LAST))
    return order


@lru_cache(maxsize=None)
def orderer(api_version: str, kind: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """How a stored object of a built-in kind gets its struct fields in Go's order: through the field model's
    message, a CRD's or an APIService's Go types; another kind is left as it is."""
    if api_version.startswith("apiextensions.k8s.io/") and kind == "CustomResourceDefinition":
        return _top_level("crd", "CustomResourceDefinitionSpec", "CustomResourceDefinitionStatus")
    if api_version.startswith("apiregistration.k8s.io/") and kind == "APIService":
        return _top_level("apiservice", "APIServiceSpec", "APIServiceStatus")
    message = schema.OUTPUT_MESSAGES.get((api_version, kind))
    if message is None:
        return lambda obj: obj
    return lambda obj: order_typed(obj, message, root=True)


@lru_cache(maxsize=None)
def typed_form(api_version: str, kind: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """An object of a built-in kind as its Go type writes it: struct fields in Go's order, then each Go map's keys
    sorted (wire/gomaps.py). For whatever stores an object (registry/store.py, and a writer that changes a stored
    one in place: a pod's binding); `obj` is never changed."""
    order, sort = orderer(api_version, kind), gomaps.sorter(api_version, kind)
    return lambda obj: sort(order(obj))
