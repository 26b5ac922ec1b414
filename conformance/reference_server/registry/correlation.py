"""Old values correlated with new ones, for ratcheting (`apiserver/schema/cel/common/correlatedobject.go`,
`CorrelatedObject`): a property with the old object's same property, an item of a `x-kubernetes-list-type: map`
list with the old item of the same keys; the items of set and atomic lists do not correlate. Shared by the
schema validation's ratcheting (`crschema`) and the validation rules' (`crdrules/validator.py`).
"""
from __future__ import annotations

from typing import Any


def deep_equal(a: Any, b: Any) -> bool:
    """reflect.DeepEqual over JSON values (a bool is not a number, an int not a float)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _map_key(item: Any, keys: list[str]) -> tuple[Any, ...] | None:
    if not isinstance(item, dict):
        return None
    return tuple(repr(item.get(k)) for k in keys)


def old_item(schema: dict[str, Any], item: Any, old: Any) -> Any:
    """`makeMapList(...).Get`: the old item of a map list with the same keys; None for other lists."""
    if schema.get("x-kubernetes-list-type") != "map" or not isinstance(old, list):
        return None
    keys = [str(k) for k in schema.get("x-kubernetes-list-map-keys") or []]
    key = _map_key(item, keys)
    return next((o for o in old if key is not None and _map_key(o, keys) == key), None)
