"""`apiequality.Semantic.DeepEqual` of a mutating webhook's object before and after its patch (k8s.io/apiserver
v0.33 `mutating/dispatcher.go` `callAttrMutatingHook`: `changed = !apiequality.Semantic.DeepEqual(
attr.VersionedObject, newVersionedObject)`, which decides reinvocation), on the two as Go writes them.

`Semantic` (apimachinery `pkg/api/equality/semantic.go`) is `conversion.EqualitiesOrDie` with a function for
`resource.Quantity` (`a.Cmp(b) == 0`: `1000m` is `1`, `1024` is `1Ki`) and for `metav1.Time` and `MicroTime`
(`a.UTC() == b.UTC()`: one instant in any zone); everything else is `third_party/forked/golang/reflect`
`Equalities.DeepEqual`, which is `reflect.DeepEqual` but for a nil and an empty slice or map, which are equal
(`equateNilAndEmpty`). A built-in kind is its Go struct, walked here by the field model (wire/schema.py) and the
Go kinds of its fields (wire/_gokinds_table.py): a slice's or map's `null` is its empty value, a `[]byte`'s `""`
too; a `RawExtension` (a ControllerRevision's `data`) is its `Raw` bytes, compared byte for byte (gojsonraw
`exact`). A custom resource is an `*unstructured.Unstructured`: its map's values are interfaces, whose dynamic
types must match (`deepValueEqual`'s `Type()` check), so an int64 and a float64 of one value differ (util/json
reads `1` as int64, `1.0` as float64) and a `null` is no empty map.
"""
from __future__ import annotations

import re
from typing import Any

from ...goport import gojsonnum, gojsonraw
from ...goport.gotime import TimeError, parse_rfc3339
from ...quantity import Quantity, QuantityError
from ...wire import schema
from ...wire._gokinds_table import GO_KINDS


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values (Python's `False == 0` is not)."""
    try:
        return gojsonnum.encode(a) == gojsonnum.encode(b)
    except (TypeError, ValueError):
        return a == b


def _empty(value: Any) -> bool:
    """A nil or empty slice or map (a `[]byte` is written as a base64 string)."""
    return value is None or (isinstance(value, (list, dict, str)) and not value)


_EXPONENT = re.compile(r"[eE][-+]?([0-9]+)$")


def _quantity(a: Any, b: Any) -> bool:
    """`a.Cmp(b) == 0`: a written Quantity (`null` none: the field is never nil) by its value (an exponent past any
    float64's compared as written: quantity.py would take its power exactly)."""
    if any(isinstance(q, str) and (m := _EXPONENT.search(q)) and int(m.group(1)[:6]) > 400 for q in (a, b)):
        return _same(a, b)
    try:
        return Quantity.parse(a).value == Quantity.parse(b).value
    except (QuantityError, ValueError, ArithmeticError):  # (the decoder refused what does not parse)
        return _same(a, b)


def _instant(a: Any, b: Any) -> bool:
    """`a.UTC() == b.UTC()`: a written Time or MicroTime (`null`: the zero time) by its instant."""
    if a is None or b is None or not isinstance(a, str) or not isinstance(b, str):
        return _same(a, b)
    try:
        return parse_rfc3339(a) == parse_rfc3339(b)
    except (TimeError, ValueError):
        return a == b


def _raw(a: Any, b: Any) -> bool:
    """A `RawExtension`'s `Raw` (nil for `null`), byte for byte."""
    if a is None or b is None:
        return a is None and b is None
    return gojsonraw.exact(a) == gojsonraw.exact(b)


def _element(a: Any, b: Any, type_: str) -> bool:
    """One value of Go type `type_` (a field model message or scalar code)."""
    if type_ == "resource.Quantity":
        return _quantity(a, b)
    if type_ in ("meta.Time", "meta.MicroTime"):
        return _instant(a, b)
    if type_ == "runtime.RawExtension":
        return _raw(a, b)
    if type_ in schema.STRING_LIST_MESSAGES:  # (a `[]string` named type: nil and empty alike)
        return (_empty(a) and _empty(b)) or _same(a, b)
    if type_ in schema.MESSAGES and type_ not in schema.JSON_SCALAR_MESSAGES \
            and isinstance(a, dict) and isinstance(b, dict):
        return _struct(a, b, type_)
    return _same(a, b)


def _field(a: Any, b: Any, f: schema.Field) -> bool:
    kind = GO_KINDS.get(f.message, {}).get(f.name, "").partition(",")[0]
    if kind in ("slice", "map") or f.repeated or f.map_key is not None:
        if _empty(a) or _empty(b):
            return _empty(a) and _empty(b)
        if f.map_key is not None and isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(_element(a[k], b[k], f.type) for k in a)
        if f.repeated and isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(_element(x, y, f.type) for x, y in zip(a, b))
        return _same(a, b)
    return _element(a, b, f.type)


def _struct(a: dict[str, Any], b: dict[str, Any], message: str) -> bool:
    fields = schema.json_fields(message)
    for key in a.keys() | b.keys():
        x, y = a.get(key), b.get(key)
        f = fields.get(key)
        if f is None:
            if key not in a or key not in b or not _same(x, y):
                return False
        elif not _field(x, y, f):
            return False
    return True


def _lists_as_nil(value: Any) -> Any:
    """A Go-written value of a kind outside the field model, a nil and an empty slice alike."""
    if isinstance(value, dict):
        return {k: _lists_as_nil(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_lists_as_nil(v) for v in value] if value else None
    return value


def typed_equal(a: Any, b: Any) -> bool:
    """`Semantic.DeepEqual` of two built-in objects as Go writes them (review.py `encoded`)."""
    if isinstance(a, dict) and isinstance(b, dict):
        message = schema.OUTPUT_MESSAGES.get((a.get("apiVersion"), a.get("kind")))  # type: ignore[arg-type]
        if message is not None and (b.get("apiVersion"), b.get("kind")) == (a.get("apiVersion"), a.get("kind")):
            return _struct(a, b, message)
    return _same(_lists_as_nil(a), _lists_as_nil(b))


def unstructured_equal(a: Any, b: Any) -> bool:
    """`Semantic.DeepEqual` of two unstructured maps (a custom resource): each value's Go type as util/json reads
    it (int64 for an integer literal, float64 for any other number: gojsonnum's `GoFloat` and floats) and its
    value."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(unstructured_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(unstructured_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, float) != isinstance(b, float) and not isinstance(a, bool) and not isinstance(b, bool) \
            and isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return False  # (an int64 and a float64: interface values of two types)
    return _same(a, b)


__all__ = ["typed_equal", "unstructured_equal"]
