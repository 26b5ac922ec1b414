"""cel-go's `ext.Sets` (`github.com/google/cel-go/ext/sets.go`, enabled since 1.29): `sets.contains`,
`sets.equivalent`, `sets.intersects` over lists, with CEL's equality (numbers equal across int, uint and double; a
bool never equals a number)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .values import LibraryError


def cel_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(cel_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(cel_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b if not _number(a) or not _number(b) else a == b


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _lists(a: Any, b: Any, function: str) -> tuple[list[Any], list[Any]]:
    if not isinstance(a, (list, tuple)) or not isinstance(b, (list, tuple)):
        raise LibraryError(f"no such overload: {function}")
    return list(a), list(b)


def contains(a: Any, b: Any) -> bool:
    big, small = _lists(a, b, "sets.contains")
    return all(any(cel_equal(x, y) for y in big) for x in small)


def intersects(a: Any, b: Any) -> bool:
    left, right = _lists(a, b, "sets.intersects")
    return any(any(cel_equal(x, y) for y in right) for x in left)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sets.contains": contains,
    "sets.equivalent": lambda a, b: contains(a, b) and contains(b, a),
    "sets.intersects": intersects,
}
