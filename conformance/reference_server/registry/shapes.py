"""Lenient readers of a decoded JSON body's fields: a field of the wrong shape reads as empty, because the
strategies' validation reports it (with upstream's field path and message) and the code reading it beforehand
(defaulting, comparisons with the stored object) must not raise a TypeError on it."""
from __future__ import annotations

from typing import Any

__all__ = ["as_dict", "as_list", "as_int"]


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_int(value: Any) -> int:
    """A JSON integer (Go decodes nothing else into an int field; a bool is not one), else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
