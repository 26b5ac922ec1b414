"""`library.Quantity` (`staging/src/k8s.io/apiserver/pkg/cel/library/quantity.go`, enabled since 1.28):
`quantity`, `isQuantity`, `sign`, `isGreaterThan`, `isLessThan`, `compareTo`, `asApproximateFloat`, `asInteger`,
`isInteger`, `add`, `sub` over `resource.Quantity` (the server's `quantity.py`).

A Quantity travels as its exact value (`n/d`), so equal quantities compare equal whatever their suffixes, as
upstream's `Quantity.Equal`."""
from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ...quantity import Quantity, QuantityError
from .values import QUANTITY, LibraryError, unwrap, wrap

_INT64 = range(-2 ** 63, 2 ** 63)


def _make(value: Fraction) -> dict[str, Any]:
    return wrap(QUANTITY, value=f"{value.numerator}/{value.denominator}")


def _value(q: Any, function: str) -> Fraction:
    return Fraction(unwrap(q, QUANTITY, function)["value"])


def _operand(other: Any, function: str) -> Fraction:
    if isinstance(other, int) and not isinstance(other, bool):
        return Fraction(other)
    return _value(other, function)


def quantity(text: Any) -> dict[str, Any]:
    if not isinstance(text, str):
        raise LibraryError("no such overload: quantity")
    try:
        return _make(Quantity.parse(text).value)
    except QuantityError as exc:
        raise LibraryError(str(exc)) from None


def is_quantity(text: Any) -> bool:
    if not isinstance(text, str):
        raise LibraryError("no such overload: isQuantity")
    try:
        Quantity.parse(text)
    except QuantityError:
        return False
    return True


def _as_integer(q: Any) -> int | None:
    v = _value(q, "asInteger")
    return int(v) if v.denominator == 1 and int(v) in _INT64 else None


def as_integer(q: Any) -> int:
    n = _as_integer(q)
    if n is None:
        raise LibraryError("cannot convert value to integer")
    return n


def as_approximate_float(q: Any) -> float:
    v = _value(q, "asApproximateFloat")
    try:
        return float(v)
    except OverflowError:  # AsApproximateFloat64: +Inf/-Inf outside float64's range
        return float("inf") if v > 0 else float("-inf")


def _cmp(a: Any, b: Any, function: str) -> int:
    x, y = _value(a, function), _value(b, function)
    return (x > y) - (x < y)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "quantity": quantity,
    "isQuantity": is_quantity,
    "sign": lambda q: (_value(q, "sign") > 0) - (_value(q, "sign") < 0),
    "isGreaterThan": lambda a, b: _cmp(a, b, "isGreaterThan") == 1,
    "isLessThan": lambda a, b: _cmp(a, b, "isLessThan") == -1,
    "compareTo": lambda a, b: _cmp(a, b, "compareTo"),
    "asApproximateFloat": as_approximate_float,
    "asInteger": as_integer,
    "isInteger": lambda q: _as_integer(q) is not None,
    "add": lambda q, other: _make(_value(q, "add") + _operand(other, "add")),
    "sub": lambda q, other: _make(_value(q, "sub") - _operand(other, "sub")),
}
