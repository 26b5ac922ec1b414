"""A JSON `null` as Go's decoder stores it in a served kind's Go type.

sigs.k8s.io/json (internal/golang/encoding/json/decode.go `literalStore`, `case 'n'`) sets an interface, map,
pointer or slice given `null` to nil and leaves any other value as it was ("ignore null for primitives/string"):

* a field Go holds by value (a string, a number, a bool, a struct) keeps what it held: the value a repeated key
  gave it first (`{"name":"a","name":null}` is "a"), else its zero value, as if the key were absent (a Time's
  and a RawExtension's zero value Go writes `null`: kept);
* an item of a slice or a value of a map held by value is its type's zero value (`"labels":{"a":null}` is the
  label `a: ""`, `"containers":[null]` an empty Container), or, in a repeated slice, the first slice's item;
* a type with an `UnmarshalJSON` of its own is handed the `null` (`indirect` addresses a by-value field to find
  it): metav1.Time and MicroTime (apimachinery pkg/apis/meta/v1/time.go, micro_time.go) and resource.Quantity
  (pkg/api/resource/quantity.go) become their zero value; intstr.IntOrString (pkg/util/intstr/intstr.go) becomes
  an int, the int it held kept (`json.Unmarshal(null, &IntVal)` leaves it); runtime.RawExtension
  (pkg/runtime/extension.go) ignores it.

A nil pointer, slice or map is then written as Go's encoder writes it: not at all under `omitempty`, else
`null`. Which fields are held by value, and which nil ones are omitted: `_gobyvalue_table.py`, generated from
k8s.io/api's Go types (and, for a CRD and an APIService, apiextensions-apiserver's and kube-aggregator's) by
tools/goconvert/byvalue.py. A custom resource keeps its nulls (decoded into `interface{}`: a nil, kept).
"""
from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

from . import schema
from ._gobyvalue_table import BY_VALUE, DESCRIBED_BY_VALUE, ITEMS, NIL_OMITTED, VALUES

FIELD, ITEM, VALUE = "field", "item", "value"  # what of a field Go holds by value (`_gobyvalue_table`'s tables)
_CLEARED = frozenset({"meta.Time", "meta.MicroTime", "resource.Quantity"})  # their `UnmarshalJSON(null)`: zero
# by-value types whose zero value Go writes `null` (time.go, micro_time.go, extension.go `MarshalJSON`): kept
_NULL_WRITTEN = frozenset({"meta.Time", "meta.MicroTime", "runtime.RawExtension"})
_INT_SCALARS = frozenset({"i32", "i64", "u32", "u64", "f32", "f64"})


class Step(NamedTuple):
    """One JSON field of a message: what of it Go holds by value (`FIELD`, `ITEM`, `VALUE` or None), the message
    it holds (None: a scalar or a JSON-scalar message), its field-model type, the zero value of an item or a map
    value (None where Go's zero value is written `null`), whether it is a map, and whether a `null` leaves it
    absent (held by value: its zero value, unless Go writes that `null`, as a Time's; or a pointer, slice or map
    that Go omits when nil)."""

    held: str | None
    sub: str | None
    type: str
    zero: Any
    is_map: bool
    absent: bool


@cache
def steps(message: str | None) -> dict[str, Step]:
    """The JSON fields of `message` (inlined structs' fields included) as `Step`s; empty for an unknown message.
    Shared: callers must not change it."""
    if message is None or message not in schema.MESSAGES:
        return {}
    out = {}
    for name, f in schema.json_fields(message).items():
        held = FIELD if name in BY_VALUE.get(f.message, ()) else ITEM if name in ITEMS.get(f.message, ()) else \
            VALUE if name in VALUES.get(f.message, ()) else None
        sub = f.type if f.is_message and f.type not in schema.JSON_SCALAR_MESSAGES \
            and f.type not in schema.STRING_LIST_MESSAGES else None
        absent = held == FIELD and f.type not in _NULL_WRITTEN or name in NIL_OMITTED.get(f.message, ())
        out[name] = Step(held, sub, f.type, _zero(f.type, sub), f.map_key is not None, absent)
    return out


def _zero(typ: str, sub: str | None) -> Any:
    if sub is not None:
        return {}
    if typ == "s":
        return ""
    if typ == "b":
        return False
    if typ in _INT_SCALARS:
        return 0
    return {"resource.Quantity": "0", "intstr.IntOrString": 0}.get(typ)  # a Time, a RawExtension: `null`


INT_OR_STRING = "intstr.IntOrString"


def after_null(old: Any, step: Step, int_val: int | None = None) -> Any:
    """What a field Go holds by value holds once a repeated key gives it `null` after `old` (None: its zero
    value, which the server reads as absent). `int_val`: an IntOrString's `IntVal`, the last int it was given (a
    string since leaves it)."""
    if step.type in _CLEARED:
        return None
    if step.type == INT_OR_STRING:  # `Type = Int`, `IntVal` as it was
        return int_val
    return old


def settle(obj: dict[str, Any], message: str | None) -> None:
    """`obj` (a body of `message`'s Go type) as Go holds its nulls, in place: a by-value field's `null` dropped (its
    zero value: absent), and a nil pointer's, slice's or map's that Go omits (`omitempty`; one Go writes as
    `null` keeps it); a by-value item's or map value's made its zero value; nested structs likewise."""
    plan = steps(message)
    if not plan:
        return
    dropped = []
    for key, value in obj.items():
        step = plan.get(key)
        if step is None:
            continue
        if value is None:
            if step.absent:
                dropped.append(key)
        elif isinstance(value, dict):
            if step.is_map:
                _settle_items(value, step)
            elif step.sub is not None:
                settle(value, step.sub)
        elif isinstance(value, list):
            _settle_items(value, step)
    for key in dropped:
        del obj[key]


def _settle_items(items: dict[str, Any] | list[Any], step: Step) -> None:
    """A map's values or a slice's items: `null` made the zero value where held by value, structs walked."""
    pairs = items.items() if isinstance(items, dict) else enumerate(items)
    for k, item in pairs:
        if item is None:
            if step.held in (ITEM, VALUE) and step.zero is not None:
                items[k] = {} if step.sub is not None else step.zero  # (a fresh struct each)
        elif step.sub is not None and isinstance(item, dict):
            settle(item, step.sub)


# ---- kinds whose spec and status are Go type descriptors (wire/crdtypes.py's: a CRD's, an APIService's) ----
_GO_ZEROS = {"s": "", "b": False, "i32": 0, "i64": 0, "f64": 0}
_GO_NULL_KEPT = frozenset({"time"})  # a by-value metav1.Time: zero, which Go writes `null`


def described_by_value(kind: str, struct: str) -> frozenset[str]:
    """The JSON names of the fields Go holds by value in a Go struct of a CRD's or an APIService's package."""
    return DESCRIBED_BY_VALUE.get(f"{kind}.{struct}", frozenset())


def settle_go(value: Any, t: Any, structs: dict[str, dict[str, Any]]) -> None:
    """`settle` for a value of descriptor type `t`, in place. A struct field's `null` is dropped whether Go holds
    it by value or not (a by-value zero value and an `omitempty` nil both read as absent), but a Time's (`null` is
    how Go writes its zero value); a slice's item or a map's value is its zero value (a struct's `{}`, a string's
    `""`), a `JSON`'s or a custom unmarshaler's kept."""
    if isinstance(t, tuple):
        if t[0] == "slice" and isinstance(value, list):
            pairs: Any = enumerate(value)
        elif t[0] == "map" and isinstance(value, dict):
            pairs = value.items()
        else:
            return
        for k, item in pairs:
            if item is None:
                zero = _go_zero(t[1], structs)
                if zero is not None:
                    value[k] = zero
            else:
                settle_go(item, t[1], structs)
        return
    fields = structs.get(t) if isinstance(t, str) else None
    if fields is None or not isinstance(value, dict):
        return
    for key in [k for k, v in value.items() if v is None and k in fields and fields[k] not in _GO_NULL_KEPT]:
        del value[key]
    for key, item in value.items():
        if key in fields:
            settle_go(item, fields[key], structs)


def _go_zero(t: Any, structs: dict[str, dict[str, Any]]) -> Any:
    if isinstance(t, tuple):
        return "" if t[0] == "named" else None  # (a named string; a slice or a map item: nil)
    return {} if t in structs else _GO_ZEROS.get(t)
