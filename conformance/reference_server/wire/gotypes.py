"""The type errors Go's `encoding/json` reports when a JSON value meets the Go struct of a served kind.

kube-apiserver decodes every body into its Go types, so `"labels": [1]` never reaches a handler: the
decoder answers `json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type
map[string]string` (a 400 for create/update, a 422 `patch` cause for patches). `type_error` finds the
first such error (in document order, as Go's decoder keeps only the first) using the shared field model
(`wire.schema`), so no malformed value is stored and later trips the server.

A type with an `UnmarshalJSON` of its own (Time, IntOrString) decodes its scalar with `encoding/json` again;
the `UnmarshalTypeError` that inner decode returns gets the outer decoder's context (sigs.k8s.io/json
`decodeState.unmarshal` → `addErrorContext`), so it reads as a struct field's (`json: cannot unmarshal number
99999999999 into Go struct field NetworkPolicyPort.spec.ingress.ports.port of type int32`), while the
unstructured converter, which calls the `UnmarshalJSON` alone, says `... into Go value of type int32`:
`FieldTypeError.bare` (for the kinds outside the field model; wire/goconvert.py is the converter of the others).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from .. import quantity
from ..goport.gobase64 import canonical_std, corrupt_offset
from ..goport.gojsonnum import GoFloat, float32_value, keep_literals
from ..goport.gotime import (
    TimeError,
    format_rfc3339_micro_utc,
    format_rfc3339_utc,
    is_zero,
    parse_rfc3339,
    parse_rfc3339_micro,
)
from . import schema
from ._gonamed_table import NAMED

_INT_RANGES = {"i32": (-2 ** 31, 2 ** 31 - 1), "i64": (-2 ** 63, 2 ** 63 - 1),
               "u32": (0, 2 ** 32 - 1), "u64": (0, 2 ** 64 - 1)}
_GO_SCALARS = {"s": "string", "b": "bool", "y": "[]uint8", "i32": "int32", "i64": "int64", "u32": "uint32",
               "u64": "uint64", "f32": "float32", "f64": "float64"}
# Named Go types, whose name (`reflect.Type.String()`: `types.UID`, `v1.Protocol`) an UnmarshalTypeError shows:
# every scalar field of the field model that has one (tools/goconvert/namedtypes.py's table)
_NAMED = NAMED


def base64_error(got: str) -> str:
    """`base64.CorruptInputError`'s text for `_scalar_error`'s `base64 <offset>`."""
    return f"illegal base64 data at input byte {got.split()[1]}"


def json_type(v: Any) -> str:
    """Go's name for a JSON value's kind in an UnmarshalTypeError."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, GoFloat):  # Go words the literal as written (`number 1e2`, `number 1e400`)
        return f"number {v.literal}"
    if isinstance(v, (int, float)):
        return f"number {v}"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if v is None:
        return "null"
    return "object"


def kind_word(v: Any) -> str:
    """`number` without its literal (what Go prints when the Go type is not numeric); shared by every
    place that words a Go `UnmarshalTypeError` (http/decode.py, wire/openapi.py)."""
    return "number" if isinstance(v, (int, float)) and not isinstance(v, bool) else json_type(v)


def _go_type(f: schema.Field, element: bool = False) -> str:
    base = _NAMED.get(f.qualified) or (_GO_SCALARS.get(f.type) if not f.is_message
                                        else "v1." + f.type.split(".", 1)[1])
    if element:
        return base
    if f.map_key is not None:
        return f"map[string]{base}"
    if f.repeated:
        return f"[]{base}"
    return base


def _scalar_error(v: Any, typ: str) -> str | None:
    """The Go-side complaint about one JSON value for a scalar type, or None when it decodes."""
    if typ == "s":
        return None if isinstance(v, str) else kind_word(v)
    if typ == "b":
        return None if isinstance(v, bool) else kind_word(v)
    if typ == "y":
        if not isinstance(v, str):
            return kind_word(v)
        offset = corrupt_offset(v.encode("utf-8"))  # Go ignores line breaks
        return None if offset is None else f"base64 {offset}"
    if typ in _INT_RANGES:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return kind_word(v)
        lo, hi = _INT_RANGES[typ]
        if isinstance(v, float) or not lo <= v <= hi:
            return json_type(v)
        return None
    if typ in ("f32", "f64"):  # `strconv.ParseFloat(s, bits)` refuses what the float cannot hold
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return kind_word(v)
        if isinstance(v, GoFloat) and v.overflow or typ == "f32" and float32_value(float(v)) is None:
            return json_type(v)
        return None
    return None


scalar_error = _scalar_error  # for the kinds outside the field model (wire/crdtypes.py)


class FieldTypeError(str):
    """A struct field's `UnmarshalTypeError` text that an `UnmarshalJSON` returned: `bare` is the same error
    without the decoder's context (what the unstructured converter, calling that `UnmarshalJSON` alone, says)."""

    bare: str = ""

    def __reduce__(self) -> tuple[Any, ...]:
        return _field_type_error, (str(self), self.bare)


def _field_type_error(text: str, bare: str) -> FieldTypeError:
    out = FieldTypeError(text)
    out.bare = bare
    return out


def _unmarshaler_error(got: str, go_type: str, struct: str, path: str) -> FieldTypeError:
    return _field_type_error(_mismatch(got, struct, path, go_type),
                             f"json: cannot unmarshal {got} into Go value of type {go_type}")


def time_error(v: str, micro: bool = False) -> str | None:
    """`time.Parse(time.RFC3339, v)`'s complaint (a MicroTime's: `metav1.RFC3339Micro`, six fraction digits),
    from gotime.py, or None; "" too (only a query parameter reads "" as zero)."""
    try:
        (parse_rfc3339_micro if micro else parse_rfc3339)(v)
    except TimeError as e:
        return str(e)
    return None


def _special_error(message: str, v: Any, struct: str = "", path: str = "") -> str | None:
    """JSON-scalar messages (`UnmarshalJSON` of Time, Quantity, IntOrString, FieldsV1); `struct` and `path` are
    the field's, for the errors the decoder gives its context (`FieldTypeError`)."""
    if message in ("meta.Time", "meta.MicroTime"):
        if not isinstance(v, str):
            return _unmarshaler_error(kind_word(v), "string", struct, path)
        return time_error(v, micro=message == "meta.MicroTime")
    if message == "resource.Quantity":
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        return quantity.parse_error(v.strip()) if isinstance(v, str) else None  # UnmarshalJSON → ParseQuantity
    if message == "intstr.IntOrString":  # a string is StrVal; anything else IntVal, an int32
        got = None if isinstance(v, str) else _scalar_error(v, "i32")  # json.Unmarshal(value, &intstr.IntVal)
        return _unmarshaler_error(got, "int32", struct, path) if got else None
    return None  # meta.FieldsV1 keeps any raw JSON


def type_error(obj: dict[str, Any], message: str) -> str | None:
    """The first Go decode error of `obj` as the Go type of `message` (e.g. `core.ConfigMap`), or None; on the
    way, each `[]byte` field's base64 is made canonical in place (what Go's decode-then-encode answers)."""
    return _message(obj, message, "", _HELD_AS_SENT if message in QUANTITIES_AS_SENT else _HELD)


def keep_raw_literals(obj: dict[str, Any]) -> dict[str, Any]:
    """An object a mutating webhook's JSON patch changed (Go decodes the patched bytes again): the numbers of its
    kind's raw-JSON fields kept as written (`gojsonnum.keep_literals`). In place."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return obj
    for name in _raw_fields(api_version, kind):
        if obj.get(name) is not None:
            obj[name] = keep_literals(obj[name])
    return obj


def raw_fields(api_version: str, kind: str) -> tuple[str, ...]:
    """The top-level `RawExtension` fields of a served kind (memoised; none for most kinds)."""
    return _raw_fields(api_version, kind)


@lru_cache(maxsize=256)
def _raw_fields(api_version: str, kind: str) -> tuple[str, ...]:
    """The top-level `RawExtension` fields of a served kind of the field model (ControllerRevision `data`)."""
    group = schema.GROUP_KINDS.get(api_version)
    message = schema.KIND_MESSAGES.get(kind) if api_version == "v1" else \
        f"{group[0]}.{kind}" if group is not None and kind in group[1] else None
    if message is None:
        return ()
    return tuple(name for name, f in schema.json_fields(message).items() if f.type == "runtime.RawExtension")


def object_meta_error(obj: dict[str, Any], struct: str) -> str | None:
    """The first Go decode error of `obj["metadata"]` (ObjectMeta) for a kind outside the field model."""
    meta = obj.get("metadata")
    if meta is None:
        return None
    return _field(schema.Field(f"x.{struct}", "metadata", 1, "meta.ObjectMeta"), meta, struct, "metadata")


def _message(obj: dict[str, Any], message: str, path: str, held_by: dict[str, Any] | None = None) -> str | None:
    try:
        fields = schema.json_fields(message)
    except KeyError:
        return None
    struct = message.split(".", 1)[1]
    for key, value in obj.items():
        f = fields.get(key)
        if f is None or value is None:  # unknown fields are dropped; null leaves the Go zero value
            continue
        err = _field(f, value, struct, f"{path}{key}", held_by)
        if err:
            return err
        held = (_HELD if held_by is None else held_by).get(f.type)
        if held is not None:  # what Go holds of the value differs from the JSON sent
            obj[key] = held(value)
    return None


def _float32(value: Any) -> Any:
    if isinstance(value, list):
        return [_float32(v) for v in value]
    if isinstance(value, dict):
        return {k: _float32(v) for k, v in value.items()}
    return value if isinstance(value, int) and -2 ** 24 <= value <= 2 ** 24 else float32_value(float(value))


def _canonical(value: Any) -> Any:
    if isinstance(value, str):
        return canonical_std(value)
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    return value


def _quantity(value: Any) -> Any:
    """A quantity (or a `ResourceList`'s) as Go holds it: `UnmarshalJSON` reads a string's text or a number's bytes
    (`1.5` as `"1.5"`), `ParseQuantity(strings.TrimSpace(...))`, written back by `MarshalJSON` as its `String()`
    (`1000m` is `1`, `1024Mi` is `1Gi`, `1.5` is `1500m`, `1.500` kept: quantity.go, `quantity.go_string`)."""
    if isinstance(value, dict):
        return {k: _quantity(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_quantity(v) for v in value]
    if isinstance(value, float):
        value = getattr(value, "literal", None) or repr(value)  # a plain float: its literal was Python's repr
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return value
    try:
        return quantity.go_string(value)
    except quantity.QuantityError:
        return value


def _time(value: Any) -> Any:
    """A `metav1.Time` as Go holds it: `UnmarshalJSON` parses RFC 3339 (any offset, any fraction), `MarshalJSON`
    writes `t.UTC().Format(time.RFC3339)` (to the second, `Z`), and `null` for the zero time (time.go)."""
    return _held_time(value, parse_rfc3339, lambda unix, _nsec: format_rfc3339_utc(unix))


def _micro_time(value: Any) -> Any:
    """A `metav1.MicroTime` as Go holds it: six fraction digits in any offset, written back in UTC
    (`t.UTC().Format(RFC3339Micro)`), `null` for zero (micro_time.go)."""
    return _held_time(value, parse_rfc3339_micro, format_rfc3339_micro_utc)


def _held_time(value: Any, parse: Any, write: Any) -> Any:
    if isinstance(value, list):
        return [_held_time(v, parse, write) for v in value]
    if not isinstance(value, str):
        return value
    try:
        unix, nsec = parse(value)
    except TimeError:
        return value
    return None if is_zero(unix, nsec) else write(unix, nsec)


_HELD = {
    "resource.Quantity": _quantity,
    "meta.Time": _time,
    "meta.MicroTime": _micro_time,
    "y": _canonical,  # a []byte: Go stores what it decoded, answered re-encoded without line breaks
    "runtime.RawExtension": keep_literals,  # the bytes sent, kept: its numbers are answered as written
    "f32": _float32,  # what a float32 holds, written back as Go writes a float32 (`0.1`)
}
# Kinds whose validation prints a Quantity's Go struct, parsed from the text sent (`%#v`: `int64Amount{value:5,
# scale:-1}` for "0.5"): their quantities are kept as sent here and made canonical by their strategy once valid.
QUANTITIES_AS_SENT = frozenset({"core.LimitRange"})  # (its defaulting writes them canonical: limitrange.py)
_HELD_AS_SENT = {k: v for k, v in _HELD.items() if k != "resource.Quantity"}


def _mismatch(got: str, struct: str, path: str, go_type: str) -> str:
    if got.startswith("base64 "):
        return base64_error(got)
    return f"json: cannot unmarshal {got} into Go struct field {struct}.{path} of type {go_type}"


def _field(f: schema.Field, value: Any, struct: str, path: str, held_by: dict[str, Any] | None = None
           ) -> str | None:
    if f.map_key is not None:
        if not isinstance(value, dict):
            return _mismatch(kind_word(value), struct, path, _go_type(f))
        items = value.values()
    elif f.repeated:
        if not isinstance(value, list):
            return _mismatch(kind_word(value), struct, path, _go_type(f))
        items = value
    else:
        items = (value,)
    for item in items:
        err = _one(f, item, struct, path, held_by)
        if err:
            return err
    return None


def _one(f: schema.Field, v: Any, struct: str, path: str, held_by: dict[str, Any] | None = None) -> str | None:
    if v is None:
        return None
    if not f.is_message:
        got = _scalar_error(v, f.type)
        return _mismatch(got, struct, path, _go_type(f, element=True)) if got else None
    if f.type in schema.JSON_SCALAR_MESSAGES:
        return _special_error(f.type, v, struct, path)
    if f.type in schema.STRING_LIST_MESSAGES:  # `type ExtraValue []string`: an array in JSON
        if not isinstance(v, list):
            return _mismatch(kind_word(v), struct, path, _go_type(f, element=True))
        bad = next((item for item in v if item is not None and not isinstance(item, str)), None)
        return _mismatch(kind_word(bad), struct, path, "string") if bad is not None else None
    if not isinstance(v, dict):
        return _mismatch(kind_word(v), struct, path, _go_type(f, element=True))
    return _message(v, f.type, path + ".", held_by)
