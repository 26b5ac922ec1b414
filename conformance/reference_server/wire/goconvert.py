"""The unstructured converter (upstream `apimachinery/pkg/runtime/converter.go` `fromUnstructured`, with
structured-merge-diff's `value/reflectcache.go` `FromUnstructured` for the types with an `UnmarshalJSON` of their
own) over the shared field model (`wire.schema`).

kube-apiserver decodes two kinds of result with it rather than with `encoding/json`: a strategic-merge patch's
result (`handlers/patch.go` `applyPatchToObject`: `FromUnstructuredWithValidation`, refused as the 422 `patch`
Invalid) and a server-side apply's merged object (`managedfields/internal/structuredmerge.go` `toVersioned`
through `runtime.Scheme`'s `unstructuredToTyped`, refused as a 500: fieldmanager/toversioned.py). It does not
speak as the decoder does:
- a scalar of the wrong JSON kind is `unrecognized type: <Go kind>` (a string or a boolean for an int32, a number
  for a bool), except an integer for a string field, which Go can convert: `cannot convert int64 to <Go type>`;
- an integer out of its field's range wraps silently (`reflect.Value.Convert` keeps the low bits), a number with
  no fraction (`5.0`) is an integer, one with a fraction is `cannot convert float64 to <Go type>`;
- a map, a list or a struct given something else is `cannot restore map from <kind>`, `cannot restore slice
  from <kind>`, `cannot restore struct from: <kind>`;
- Time, MicroTime, Quantity and IntOrString get the JSON (`json.Marshal`) of the value to their `UnmarshalJSON`,
  whose error is bare (no struct field context): `json: cannot unmarshal number into Go value of type string`;
- a `[]byte` given a string that is not base64: `error decoding from json: illegal base64 data at input byte N`.
Go walks a struct's fields in declaration order (the field model's), a map in its random order (here: the
document's), and stops at the first error. Unknown fields and nulls are not its concern (null is the zero value).
"""
from __future__ import annotations

import json
import math
from typing import Any

from .. import quantity
from ..goport.gobase64 import canonical_std, corrupt_offset
from . import schema
from ._gonamed_table import NAMED
from ..goport.gojsonnum import remarshal, float_literal as _float_literal  # encoding/json's `floatEncoder`

_BITS = {"i32": (32, True), "i64": (64, True), "u8": (8, False), "u32": (32, False), "u64": (64, False)}
_GO_BASIC = {"s": "string", "b": "bool", "i32": "int32", "i64": "int64", "u8": "uint8", "u32": "uint32",
             "u64": "uint64", "f32": "float32", "f64": "float64"}
_UNMARSHALERS = {"meta.Time", "meta.MicroTime", "resource.Quantity", "intstr.IntOrString"}
_INT64 = 2 ** 63


class ConvertError(Exception):
    """`fromUnstructured`'s error text."""


def from_unstructured(obj: dict[str, Any], message: str) -> str | None:
    """Convert `obj` (a decoded JSON object: int for an integer that fits an int64, float for any other number)
    into the Go type of `message` (e.g. `apps.Deployment`) as upstream's converter does: None when it converts,
    with every integer field's value made the one Go holds (wrapped, `5.0` → 5) in place; else the error text."""
    try:
        _struct(obj, message)
    except ConvertError as exc:
        return str(exc)
    return None


def type_meta_error(obj: dict[str, Any]) -> str | None:
    """The converter's error for `kind` or `apiVersion` that is no string: every kind's inlined `TypeMeta`
    (`Kind`, then `APIVersion`), which `structFromUnstructured` meets before any other field; None: they convert."""
    try:
        for name in ("kind", "apiVersion"):
            if obj.get(name) is not None:
                _scalar(obj[name], "s", "string")
    except ConvertError as exc:
        return str(exc)
    return None


def yaml_numbers(value: Any) -> Any:
    """The numbers of a server-side apply's configuration as upstream decodes them (`util/yaml.Unmarshal`:
    sigs.k8s.io/yaml turns the YAML into JSON, `json.Marshal` writing a float64 with no fraction as an integer,
    then `UseNumber` and `ConvertMapNumbers`): an int64 where the number is an integer that fits one (`2.0` is
    2), else a float64 (an integer past the int64 range is rounded to one). In place where it can be. (A NaN
    or an infinity never gets here: wire/goyaml.py refuses it as sigs.k8s.io/yaml does.)"""
    if isinstance(value, dict):
        for k, v in value.items():
            value[k] = yaml_numbers(v)
    elif isinstance(value, list):
        value[:] = [yaml_numbers(v) for v in value]
    elif isinstance(value, bool):
        pass
    elif isinstance(value, int):
        return value if -_INT64 <= value < _INT64 else float(value)
    elif isinstance(value, float) and math.isfinite(value) and value == math.trunc(value) \
            and -_INT64 <= value < _INT64:
        return int(value)
    return value


def _kind(v: Any) -> str:
    """reflect's `Kind` of an unstructured value (`interface{}` holding map, slice, string, bool, int64, float64)."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int64" if -_INT64 <= v < _INT64 else "float64"  # util/json: past int64, a float64
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "string"
    return "slice" if isinstance(v, list) else "map"


def _go_name(f: schema.Field) -> str:
    """`reflect.Type.String()` of a scalar field's (element) type: its named type (`v1.Protocol`) or the basic."""
    return NAMED.get(f.qualified) or _GO_BASIC[f.type]


def _struct(obj: Any, message: str) -> None:
    if not isinstance(obj, dict):
        raise ConvertError(f"cannot restore struct from: {_kind(obj)}")
    for name, f in schema.json_fields(message).items():
        if obj.get(name) is not None:
            obj[name] = _field(f, obj[name])


def _field(f: schema.Field, v: Any) -> Any:
    if f.map_key is not None:
        if not isinstance(v, dict):
            raise ConvertError(f"cannot restore map from {_kind(v)}")
        for k in v:
            if v[k] is not None:
                v[k] = _one(f, v[k])
        return v
    if f.repeated:
        if not isinstance(v, list):
            raise ConvertError(f"cannot restore slice from {_kind(v)}")
        v[:] = [None if item is None else _one(f, item) for item in v]
        return v
    return _one(f, v)


def _one(f: schema.Field, v: Any) -> Any:
    if not f.is_message:
        return _bytes(v) if f.type == "y" else _scalar(v, f.type, _go_name(f))
    if f.type in _UNMARSHALERS:
        _unmarshal_json(f.type, v)
        if f.type == "intstr.IntOrString" and isinstance(v, float):
            return int(v)  # an IntVal: `5.0` is 5
        return v
    if f.type == "runtime.RawExtension":  # `json.Marshal` of the util/json value: numbers in Go's words again
        return remarshal(v)
    if f.type in schema.JSON_SCALAR_MESSAGES:  # FieldsV1 keeps any JSON
        return v
    if f.type in schema.STRING_LIST_MESSAGES:  # `type ExtraValue []string`
        if not isinstance(v, list):
            raise ConvertError(f"cannot restore slice from {_kind(v)}")
        return [None if s is None else _scalar(s, "s", "string") for s in v]
    _struct(v, f.type)
    return v


def _scalar(v: Any, typ: str, go_name: str) -> Any:
    """`fromUnstructured`'s simple types: assignable, or convertible within JSON's four groups."""
    kind = _kind(v)
    if typ == "s":
        if kind == "string":
            return v
        if kind == "int64":  # Go converts an integer to a string (a rune); JSON does not
            raise ConvertError(f"cannot convert int64 to {go_name}")
    elif typ == "b":
        if kind == "bool":
            return v
    elif typ in ("f32", "f64"):
        if kind in ("int64", "float64"):
            return v
    elif kind == "int64":
        return _wrap(v, typ)
    elif kind == "float64":
        if math.isfinite(v) and v == math.trunc(v):  # `sv.Float() == math.Trunc(sv.Float())`
            return _wrap(int(v) if -_INT64 <= v < _INT64 else -_INT64, typ)  # amd64's conversion past int64
        raise ConvertError(f"cannot convert float64 to {go_name}")
    raise ConvertError(f"unrecognized type: {_GO_BASIC[typ]}")


def _wrap(v: int, typ: str) -> int:
    """`reflect.Value.Convert` between integer types: the low bits, read as the target's sign."""
    bits, signed = _BITS[typ]
    v %= 2 ** bits
    return v - 2 ** bits if signed and v >= 2 ** (bits - 1) else v


def _bytes(v: Any) -> Any:
    """`sliceFromUnstructured` into a `[]byte`: a string is base64 (`json.Unmarshal` of its JSON), a list holds
    the bytes as numbers (each converted as a uint8)."""
    if isinstance(v, str):
        offset = corrupt_offset(v.encode("utf-8")) if v else None
        if offset is not None:
            raise ConvertError(f"error decoding from json: illegal base64 data at input byte {offset}")
        return canonical_std(v)  # what Go holds, encoded again: without line breaks
    if not isinstance(v, list):
        raise ConvertError(f"cannot restore slice from {_kind(v)}")
    import base64
    return base64.b64encode(bytes(0 if b is None else _scalar(b, "u8", "uint8") for b in v)).decode()


def _marshal(v: Any) -> str:
    """Go's `json.Marshal` of an unstructured value, as far as an `UnmarshalJSON` here reads it: a number's
    literal (a float64 in `strconv` 'f' form, 'e' below 1e-6 and from 1e21), a string's escapes (HTML characters
    and U+2028/9 too); a list or a map only needs to be neither."""
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, int) and -_INT64 <= v < _INT64:
        return str(v)
    if isinstance(v, (int, float)):
        return _float_literal(float(v))
    if isinstance(v, str):
        text = json.dumps(v, ensure_ascii=False)
        for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                        ("\u2029", "\\u2029")):
            text = text.replace(ch, esc)
        return text
    return "[]" if isinstance(v, list) else "{}"


def _unmarshal_json(message: str, v: Any) -> None:
    """`FromUnstructured` through the type's `UnmarshalJSON` (structured-merge-diff `reflectcache.go`), given
    `json.Marshal(v)`: `encoding/json`'s own errors there carry no struct field."""
    data = _marshal(v)
    if message in ("meta.Time", "meta.MicroTime"):  # `json.Unmarshal(b, &str)`, then `time.Parse(RFC3339)`
        if not isinstance(v, str):
            raise ConvertError(f"json: cannot unmarshal {_json_word(v)} into Go value of type string")
        from .gotypes import time_error
        err = time_error(v, micro=message == "meta.MicroTime")
    elif message == "resource.Quantity":  # quotes off, `ParseQuantity(strings.TrimSpace(...))`
        text = data[1:-1] if len(data) >= 2 and data[0] == data[-1] == '"' else data
        err = quantity.parse_error(text.strip(" \t\n\v\f\r\x85\xa0"))
    else:  # IntOrString: a string is StrVal, anything else `json.Unmarshal(value, &intstr.IntVal)`
        err = None
        if not isinstance(v, str) and (bool_or_other := _int32_error(v, data)) is not None:
            err = f"json: cannot unmarshal {bool_or_other} into Go value of type int32"
    if err:
        raise ConvertError(err)


def _json_word(v: Any) -> str:
    """`UnmarshalTypeError.Value` for a value that is not a string: a number's kind alone (a string target)."""
    return {"bool": "bool", "slice": "array", "map": "object"}.get(_kind(v), "number")


def _int32_error(v: Any, data: str) -> str | None:
    """What `json.Unmarshal(data, &int32)` complains of: the value's kind, or `number <literal>` when it does not
    fit (a fraction, an exponent, out of range)."""
    kind = _kind(v)
    if kind in ("bool", "slice", "map"):
        return {"bool": "bool", "slice": "array", "map": "object"}[kind]
    try:
        n = int(data)
    except ValueError:
        return f"number {data}"
    return None if -2 ** 31 <= n < 2 ** 31 else f"number {data}"


# the converter's steps, for the kinds outside the field model (wire/jsonkindconvert.py)
value_kind, scalar, byte_slice, unmarshal_json, GO_BASIC = _kind, _scalar, _bytes, _unmarshal_json, _GO_BASIC
