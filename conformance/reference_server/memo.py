"""The bounded memo every hot path of the server keeps: a dict that is emptied when full (the entries still in use
come back on their next miss), so what a client varies (paths, headers, tokens) cannot grow it."""
from __future__ import annotations

from typing import Any, TypeVar

V = TypeVar("V")


def remember(table: dict[Any, Any], key: Any, value: V, limit: int) -> V:
    """`table[key] = value`, `table` emptied first when it holds `limit` entries; the value back."""
    if len(table) >= limit:
        table.clear()
    table[key] = value
    return value
