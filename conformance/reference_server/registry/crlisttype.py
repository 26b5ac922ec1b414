"""The uniqueness of a custom resource's `x-kubernetes-list-type: set` items and `map` item keys.

Follows apiextensions-apiserver's `apiserver/schema/listtype/validation.go` (`ValidateListSetsAndMaps`): the first
repeat of an item (set) or of an item's keys (map) is `Duplicate value`, printed as apimachinery's
`field.ErrorBody` prints it (`%q` of a string, `%v` of a number or bool, Go's `%#v` of the keys of a map item:
`map[string]interface {}{"name":"a"}`); a map list's item that is not an object is `must be an object for an array
of list-type map`. On update (`customresource/strategy.go`), the new object is checked only when the old one
passes, upstream's ratcheting of these errors.
"""
from __future__ import annotations

import json
from typing import Any

from ..apierrors import FieldError, field_invalid, unstructured_value
from .crkeywords import go_v
from ..goport.gonet.strconv import quote

_UNSPECIFIED = object()  # a map item without the key (or a null item)


def go_sharp_v(value: Any) -> str:
    """Go's `%#v` of a JSON value held in an `interface{}`."""
    if value is None:
        return "interface {}(nil)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return go_v(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(go_sharp_v(v) for v in value) + "}"
    return "map[string]interface {}{" + ", ".join(f"{quote(k)}:{go_sharp_v(value[k])}"
                                                  for k in sorted(value)) + "}"


def _duplicate(path: str, value: Any) -> FieldError:
    shown = "null" if value is None else go_sharp_v(value)  # a string's %q is its %#v
    return FieldError("FieldValueDuplicate", path, f"Duplicate value: {shown}")


def _repeats(items: list[Any]) -> list[int]:
    """`validateListSet`: the index of each value's second appearance."""
    seen: dict[Any, int] = {}
    out: list[int] = []
    for i, x in enumerate(items):
        key = x if x is _UNSPECIFIED else json.dumps(x, sort_keys=True) + type(x).__name__
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 2:
            out.append(i)
    return out


def _list(path: str, schema: dict[str, Any], items: list[Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    kind = schema.get("x-kubernetes-list-type")
    if kind == "set":
        errs += [_duplicate(f"{path}[{i}]", items[i]) for i in _repeats(items)]
    elif kind == "map":
        bad = next((i for i, x in enumerate(items) if x is not None and not isinstance(x, dict)), None)
        if bad is not None:
            errs.append(field_invalid(f"{path}[{bad}]", unstructured_value(items[bad]),
                                       "must be an object for an array of list-type map"))
        elif len(items) > 1:
            names = [str(k) for k in schema.get("x-kubernetes-list-map-keys") or []]
            if len(names) == 1:
                keys = [x[names[0]] if isinstance(x, dict) and names[0] in x else _UNSPECIFIED for x in items]
                errs += [_duplicate(f"{path}[{i}]", {} if keys[i] is _UNSPECIFIED else {names[0]: keys[i]})
                         for i in _repeats(keys)]
            else:
                keyed = [{n: x[n] for n in names if n in x} if isinstance(x, dict) else {} for x in items]
                errs += [_duplicate(f"{path}[{i}]", keyed[i]) for i in _repeats(keyed)]
    if isinstance(schema.get("items"), dict):
        for i, item in enumerate(items):
            errs += _value(f"{path}[{i}]", schema["items"], item)
    return errs


def _value(path: str, schema: dict[str, Any], value: Any) -> list[FieldError]:
    if isinstance(value, list):
        return _list(path, schema, value)
    if isinstance(value, dict):
        return validate(value, schema, path)
    return []


def validate(obj: dict[str, Any], schema: dict[str, Any] | None, path: str = "") -> list[FieldError]:
    """`ValidateListSetsAndMaps` of an object (a custom resource: its root, metadata left out)."""
    if not isinstance(schema, dict):
        return []
    errs: list[FieldError] = []
    extra = schema.get("additionalProperties")
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    for key, value in obj.items():
        if not path and key in ("apiVersion", "kind", "metadata"):
            continue
        if key in props and isinstance(props[key], dict):
            errs += _value(f"{path}.{key}" if path else key, props[key], value)
        elif isinstance(extra, dict):
            errs += _value(f"{path}[{key}]", extra, value)
    return errs
