"""Upstream's unstructured converter (`apimachinery/pkg/runtime/converter.go` `fromUnstructured`, with
structured-merge-diff's `value/reflectcache.go` `FromUnstructured` for a type with an `UnmarshalJSON` of its own)
over the two built-in kinds outside the field model: CustomResourceDefinition
(`apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go`, `types_jsonschema.go`, `marshal.go`) and APIService
(`kube-aggregator/pkg/apis/apiregistration/v1/types.go`), described by `wire.crdtypes.STRUCTS` and
`wire.apiservicetypes.STRUCTS` in their declaration order.

kube-apiserver converts a strategic-merge patch's result (`handlers/patch.go` `applyPatchToObject`: the 422
`patch` Invalid) and a server-side apply's merged object (`toVersioned`: the 500 `failed to convert new object`)
with it, not with the JSON decoder, so these kinds speak as wire/goconvert.py speaks for the others: `unrecognized
type: int32` for a string `groupPriorityMinimum`, `cannot convert int64 to v1.ResourceScope`, `cannot restore
slice from string`, an integer out of an int32's range wrapped, `2.0` an integer; `metadata` is ObjectMeta, as
wire/goconvert.py converts it.

The custom unmarshalers get `json.Marshal` of their value (map keys sorted, numbers in Go's words) and decode it
with util/json alone, so their errors carry their own decoding's context, not the object's:
`JSONSchemaPropsOrBool` (`additionalProperties`, `additionalItems`) says `boolean or JSON schema expected` for
anything but an object or a bool and `json: cannot unmarshal number into Go struct field JSONSchemaProps.type of
type string` for a bad schema inside; `JSONSchemaPropsOrArray` (`items`) and `JSONSchemaPropsOrStringArray`
(`dependencies`) decode an object or an array and ignore the rest; `JSON` (`default`, `example`, `enum`) takes
anything; `metav1.Time` is wire/goconvert.py's."""
from __future__ import annotations

import math
import re
from typing import Any

from ..goport.gojsonnum import float_literal, go_float
from . import apiservicetypes, crdtypes, goconvert
from .goconvert import ConvertError

TABLES: dict[str, dict[str, dict[str, Any]]] = {"CustomResourceDefinition": crdtypes.STRUCTS,
                                                apiservicetypes.KIND: apiservicetypes.STRUCTS}
_CUSTOM = ("or-bool", "or-array", "or-string-array")
_INTEGER = re.compile(r"-?[0-9]+")
_INT64 = 2 ** 63


def from_unstructured(obj: dict[str, Any], kind: str) -> str | None:
    """Convert `obj` into the Go type of `kind` (a key of `TABLES`) as upstream's converter does: None when it
    converts, with each integer field's value made the one Go holds (wrapped, `2.0` → 2) in place; else the
    converter's error text. Its fields in the struct's order: TypeMeta's (set by the handler), metadata, spec,
    status."""
    structs = TABLES[kind]
    if obj.get("metadata") is not None:
        err = goconvert.from_unstructured(obj["metadata"], "meta.ObjectMeta")
        if err is not None:
            return err
    try:
        for key in ("spec", "status"):
            if obj.get(key) is not None:
                obj[key] = _value(obj[key], f"{kind}{key.capitalize()}", structs)
    except ConvertError as exc:
        return str(exc)
    return None


def _value(v: Any, t: Any, structs: dict[str, dict[str, Any]]) -> Any:
    """`fromUnstructured` of one non-null value into the Go type `t` (a `wire.crdtypes` type code)."""
    if t == "json":  # `JSON.UnmarshalJSON` keeps any value
        return v
    if t == "time":
        goconvert.unmarshal_json("meta.Time", v)
        return v
    if t in _CUSTOM:
        _unmarshal(v, t)
        return v
    if isinstance(t, tuple) and t[0] == "named":
        return goconvert.scalar(v, "s", t[1])
    if isinstance(t, tuple):
        if t[0] == "slice":
            if not isinstance(v, list):
                raise ConvertError(f"cannot restore slice from {goconvert.value_kind(v)}")
            v[:] = [None if item is None else _value(item, t[1], structs) for item in v]
            return v
        if not isinstance(v, dict):
            raise ConvertError(f"cannot restore map from {goconvert.value_kind(v)}")
        for k in v:  # Go's random order; here the document's
            if v[k] is not None:
                v[k] = _value(v[k], t[1], structs)
        return v
    if t == "y":
        return goconvert.byte_slice(v)
    if t in goconvert.GO_BASIC:
        return goconvert.scalar(v, t, goconvert.GO_BASIC[t])
    if not isinstance(v, dict):
        raise ConvertError(f"cannot restore struct from: {goconvert.value_kind(v)}")
    for name, ft in structs[t].items():  # declaration order
        if v.get(name) is not None:
            v[name] = _value(v[name], ft, structs)
    return v


def _unmarshal(v: Any, t: str) -> None:
    """marshal.go's `UnmarshalJSON` given `json.Marshal(v)`: util/json decodes the schema (or list) alone."""
    if t == "or-bool" and not isinstance(v, (bool, dict)):
        raise ConvertError("boolean or JSON schema expected")
    if isinstance(v, dict):
        target: Any = "JSONSchemaProps"
    elif isinstance(v, list) and t != "or-bool":
        target = ("slice", "JSONSchemaProps") if t == "or-array" else ("slice", "s")
    else:
        return
    err = crdtypes.decode_text(_marshalled(v), target)
    if err is not None:
        raise ConvertError(err)


def _marshalled(v: Any) -> Any:
    """`v` as util/json reads `json.Marshal(v)` again: map keys sorted (the order its decoder meets them), a float64
    written as Go writes it (`2.0` is `2`, an integer again; `1e+21` keeps its literal for the error's words)."""
    if isinstance(v, dict):
        return {k: _marshalled(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [_marshalled(item) for item in v]
    if v is None or isinstance(v, (bool, str)) or isinstance(v, int) and -_INT64 <= v < _INT64:
        return v
    if not math.isfinite(v):
        return None
    literal = float_literal(float(v))
    return int(literal) if _INTEGER.fullmatch(literal) else go_float(literal)
