"""Map keys in the order Go's `encoding/json` writes a map: sorted (`encode.go` `mapEncoder.encode` sorts the
keys as strings, byte order; a Python `str` sorts by code point, the same order for UTF-8).

kube-apiserver decodes every object into its Go type before it stores and answers it, so the keys of each
`map[...]` field of a built-in kind (labels, annotations, a ConfigMap's `data`, a ResourceList, `nodeSelector`,
`matchLabels`, ...) come back sorted whatever order the client sent them in, while a struct's fields keep the
struct's order. A custom resource is an `unstructured.Unstructured` (a `map[string]interface{}`), written by
`unstructuredJSONScheme.doEncode` (apimachinery `pkg/apis/meta/v1/unstructured/helpers.go`) through
`json.NewEncoder(w).Encode(t.Object)`: every object at every level, the root included, is sorted by key.

The registry sorts once, when it stores an object (registry/store.py), so GET, LIST and watch answer the
stored order and the read path pays nothing. Which fields are maps comes from the field model (wire/schema.py,
upstream's generated.proto: `map<string, ...>` fields are Go maps); a `RawExtension` or `FieldsV1` is bytes
there, and kept as it is.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from . import crdtypes, schema

_Plan = tuple[tuple[str, str, "tuple[Any, ...]"], ...]
"""(JSON name, how: `map` (sort; values by the sub-plan), `one` (a struct), `list` (a list of structs)),
sub-plan): only the fields through which a map can be reached."""


def _is_sorted(d: dict[str, Any]) -> bool:
    prev = None
    for k in d:
        if prev is not None and k < prev:
            return False
        prev = k
    return True


def sorted_map(d: dict[str, Any]) -> dict[str, Any]:
    """`d` itself when its keys are in Go's order, else a new dict in that order (`d` is never changed: it may
    be shared with a stored object)."""
    return d if _is_sorted(d) else {k: d[k] for k in sorted(d)}


@lru_cache(maxsize=None)
def _plan(message: str) -> _Plan:
    return _build(message, frozenset())


def _build(message: str, seen: frozenset[str]) -> _Plan:
    if message in seen or message not in schema.MESSAGES:
        return ()
    seen = seen | {message}
    out: list[tuple[str, str, Any]] = []
    for name, f in schema.json_fields(message).items():
        sub = _build(f.type, seen) if f.is_message else ()
        if f.map_key is not None:
            out.append((name, "map", sub))
        elif sub:
            out.append((name, "list" if f.repeated else "one", sub))
    return tuple(out)


def _set(out: dict[str, Any], orig: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    """`out` with `name` set to `value`, `orig` copied first while `out` is still it (copy on write)."""
    if out is orig:
        out = dict(orig)
    out[name] = value
    return out


def _walk(obj: dict[str, Any], plan: _Plan) -> dict[str, Any]:
    """`obj` with the maps `plan` reaches sorted: `obj` itself when all are, else a copy (copied along the path
    to each map out of order, so nothing shared with a stored object is changed)."""
    out = obj
    for name, how, sub in plan:
        v = obj.get(name)
        if how == "map":
            w = sorted_map(v) if isinstance(v, dict) else v
            if sub and isinstance(w, dict):
                values = {k: _walk(x, sub) if isinstance(x, dict) else x for k, x in w.items()}
                if any(values[k] is not w[k] for k in w):
                    w = values
        elif how == "one":
            w = _walk(v, sub) if isinstance(v, dict) else v
        elif isinstance(v, list):
            items = [_walk(x, sub) if isinstance(x, dict) else x for x in v]
            w = items if any(a is not b for a, b in zip(items, v)) else v
        else:
            continue
        if w is not v:
            out = _set(out, obj, name, w)
    return out


def _crd_reaches_map(t: Any, seen: frozenset[str] = frozenset()) -> bool:
    if isinstance(t, tuple):
        return t[0] == "map" or (t[0] == "slice" and _crd_reaches_map(t[1], seen))
    if t in ("or-array", "or-bool"):
        return True  # a JSONSchemaProps
    if t not in crdtypes.STRUCTS or t in seen:
        return False
    return any(_crd_reaches_map(f, seen | {t}) for f in crdtypes.STRUCTS[t].values())


@lru_cache(maxsize=None)
def _crd_fields(struct: str) -> tuple[tuple[str, Any], ...]:
    """The fields of a CRD Go struct (wire/crdtypes.py) through which a map can be reached."""
    return tuple((k, t) for k, t in crdtypes.STRUCTS[struct].items() if _crd_reaches_map(t))


def _crd_value(v: Any, t: Any) -> Any:
    """`v` of the CRD Go type `t` with its maps sorted (a copy when anything changes)."""
    if isinstance(t, tuple):
        if t[0] == "slice" and isinstance(v, list):
            items = [_crd_value(x, t[1]) for x in v]
            return items if any(a is not b for a, b in zip(items, v)) else v
        if t[0] == "map" and isinstance(v, dict):
            m = sorted_map(v)
            values = {k: _crd_value(x, t[1]) for k, x in m.items()}
            return values if any(values[k] is not m[k] for k in m) else m
        return v
    if t == "or-array" and isinstance(v, list):  # JSONSchemaPropsOrArray: a schema or a list of them
        return _crd_value(v, ("slice", "JSONSchemaProps"))
    if t in ("or-array", "or-bool", "or-string-array"):  # a schema, or a bool / a list of strings
        t = "JSONSchemaProps"
    if not isinstance(v, dict) or t not in crdtypes.STRUCTS:
        return v  # a scalar, or `JSON` (default, example, enum: sorted by wire/gowritten_described.py)
    out = v
    for name, ft in _crd_fields(t):
        x = v.get(name)
        y = _crd_value(x, ft)
        if y is not x:
            out = _set(out, v, name, y)
    return out


def _sort_crd(obj: dict[str, Any]) -> dict[str, Any]:
    """A CustomResourceDefinition (apiextensions `types.go`, `types_jsonschema.go`: `properties`,
    `patternProperties`, `definitions`, `dependencies` are maps) and its metadata's maps."""
    out = _walk(obj, _plan("meta.PartialObjectMetadata"))
    for name, struct in (("spec", "CustomResourceDefinitionSpec"), ("status", "CustomResourceDefinitionStatus")):
        v = out.get(name)
        w = _crd_value(v, struct)
        if w is not v:
            out = _set(out, obj, name, w)
    return out


def message_of(api_version: str, kind: str) -> str | None:
    """The field model's message of a built-in kind (None: a kind outside it)."""
    return schema.OUTPUT_MESSAGES.get((api_version, kind))


@lru_cache(maxsize=None)
def sorter(api_version: str, kind: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """How a stored object of a built-in kind gets its Go maps sorted: through the field model's message, a
    CRD's Go types (wire/crdtypes.py), else (an APIService, whose only maps are its metadata's) ObjectMeta's."""
    if api_version.startswith("apiextensions.k8s.io/") and kind == "CustomResourceDefinition":
        return _sort_crd
    plan = _plan(message_of(api_version, kind) or "meta.PartialObjectMetadata")
    return lambda obj: _walk(obj, plan)


def sort_unstructured(value: Any) -> Any:
    """`value` as `encoding/json` writes a `map[string]interface{}`: every object's keys sorted, at every
    level; what is already in order is returned as it is (no copy)."""
    if isinstance(value, dict):
        changed = not _is_sorted(value)
        out = {}
        for k in (sorted(value) if changed else value):
            v = value[k]
            w = sort_unstructured(v) if isinstance(v, (dict, list)) else v
            changed = changed or w is not v
            out[k] = w
        return out if changed else value
    if isinstance(value, list):
        items = [sort_unstructured(v) if isinstance(v, (dict, list)) else v for v in value]
        return items if any(a is not b for a, b in zip(items, value)) else value
    return value


def ordered_like(value: Any, template: Any) -> Any:
    """`value` with each object's keys in `template`'s order, then its own: a patched document (evanphx writes
    the objects it read sorted) given back the member order this server holds, a new member last."""
    if isinstance(value, dict) and isinstance(template, dict):
        out = {k: ordered_like(value[k], template[k]) for k in template if k in value}
        out.update((k, v) for k, v in value.items() if k not in out)
        return out
    if isinstance(value, list) and isinstance(template, list) and len(value) == len(template):
        return [ordered_like(v, t) for v, t in zip(value, template)]
    return value
