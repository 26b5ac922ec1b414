"""LimitRange validation: `ValidateLimitRange` of `pkg/apis/core/validation/validation.go` (1.33), which
`pkg/registry/core/limitrange/strategy.go` runs on create and on update: each item's type (a standard limit type or
a qualified name, not repeated), its resource names (`validateContainerResourceName` for Pod and Container items,
`validateResourceName` for the others), no default/defaultRequest on a Pod item, a PersistentVolumeClaim item with
a storage min or max, and per resource: min ≤ defaultRequest ≤ default ≤ max, min ≤ max, a maxLimitRequestRatio of
at least 1 and at most max/min, and default = defaultRequest for resources that may not be overcommitted.

Values print as upstream's `field.Invalid` prints a `resource.Quantity` (`%#v` of the struct, rebuilt by
`resourcequota.go_struct` from the text as sent) and messages use `Quantity.String()` (canonical). The object judged
is the one sent with `SetDefaults_LimitRangeItem` applied (`defaulted_as_sent`: the stored one is canonical, the
texts upstream's structs show are not). Resources are visited in sorted order (upstream ranges over a Go map: its
order of several messages is not stable).
"""
from __future__ import annotations

import copy
from typing import Any

from ..apierrors import FieldError, field_forbidden, field_invalid, field_required
from ..quantity import MAX_MILLI_VALUE, Quantity, QuantityError
from .groupvalidation.discovery import duplicate
from .resourcequota import STANDARD_RESOURCES, _huge_pages, _native, go_struct
from .shapes import as_dict, as_list
from .validation import is_qualified_name

LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")
_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_FIELDS = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")


def _resource_name_errors(name: str, path: str) -> list[FieldError]:
    """`validateResourceName`."""
    errs = [field_invalid(path, name, m) for m in is_qualified_name(name)]
    if not errs and "/" not in name and name not in STANDARD_RESOURCES and not _huge_pages(name):
        errs.append(field_invalid(path, name, "must be a standard resource type or fully qualified"))
    return errs


def _extended(name: str) -> bool:
    """`IsExtendedResourceName`."""
    return not _native(name) and not name.startswith("requests.") and not is_qualified_name("requests." + name)


def container_resource_name_errors(name: str, path: str) -> list[FieldError]:
    """`validateContainerResourceName`."""
    errs = _resource_name_errors(name, path)
    if "/" not in name:
        if name not in _CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            errs.append(field_invalid(path, name, "must be a standard resource for containers"))
    elif not _native(name) and not _extended(name):
        errs.append(field_invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def _type_errors(value: str, path: str) -> list[FieldError]:
    """`validateLimitRangeTypeName`."""
    errs = [field_invalid(path, value, m) for m in is_qualified_name(value)]
    if not errs and "/" not in value and value not in LIMIT_TYPES:
        errs.append(field_invalid(path, value, "must be a standard limit type or fully qualified"))
    return errs


def _quantities(raw: Any) -> dict[str, tuple[Quantity, Any]]:
    """name → (parsed, raw text) of a ResourceList; values that do not parse were refused when decoding."""
    found = {}
    for k, v in as_dict(raw).items():
        try:
            found[str(k)] = (Quantity.parse(v), v)
        except QuantityError:
            pass
    return found


def _shown(q: tuple[Quantity, Any]) -> str:
    return go_struct(q[1])


def _invalid(path: str, q: tuple[Quantity, Any], detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {_shown(q)}: {detail}")


def _ratio_limit_errors(k: str, path: str, mn: tuple[Quantity, Any], mx: tuple[Quantity, Any],
                        ratio: tuple[Quantity, Any]) -> list[FieldError]:
    """The max/min bound of maxLimitRequestRatio, in milli units when all three fit (as upstream)."""
    ratio_value: float = float(ratio[0].int_value())
    lo, hi = mn[0].int_value(), mx[0].int_value()
    if ratio[0].int_value() < MAX_MILLI_VALUE and lo < MAX_MILLI_VALUE and hi < MAX_MILLI_VALUE:
        ratio_value = ratio[0].milli_value() / 1000
        lo, hi = mn[0].milli_value(), mx[0].milli_value()
    limit = hi / lo if lo else (float("inf") if hi > 0 else float("-inf") if hi < 0 else float("nan"))  # Go floats
    if ratio_value > limit:
        return [_invalid(f"{path}.maxLimitRequestRatio[{k}]", ratio,
                         f"ratio {ratio[0]} is greater than max/min = {_go_f(limit)}")]
    return []


def _go_f(value: float) -> str:
    """Go's `%f`."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    return f"{value:f}"


def _resource_errors(k: str, path: str, lists: dict[str, dict[str, tuple[Quantity, Any]]]) -> list[FieldError]:
    """The per-resource comparisons of one item."""
    mn, mx = lists["min"].get(k), lists["max"].get(k)
    default, request, ratio = lists["default"].get(k), lists["defaultRequest"].get(k), \
        lists["maxLimitRequestRatio"].get(k)
    # (a, b, field, value shown, message): refused when a > b, in upstream's order
    ordered = ((mn, mx, "min", mn, "min value {a} is greater than max value {b}"),
               (mn, request, "defaultRequest", request, "min value {a} is greater than default request value {b}"),
               (request, mx, "defaultRequest", request, "default request value {a} is greater than max value {b}"),
               (request, default, "defaultRequest", request,
                "default request value {a} is greater than default limit value {b}"),
               (mn, default, "default", mn, "min value {a} is greater than default value {b}"),
               (default, mx, "default", mx, "default value {a} is greater than max value {b}"))
    errs = [_invalid(f"{path}.{field}[{k}]", shown, text.format(a=a[0], b=b[0]))
            for a, b, field, shown, text in ordered if a and b and shown and a[0].cmp(b[0]) > 0]
    if ratio and ratio[0].cmp(Quantity.from_int(1)) < 0:
        errs.append(_invalid(f"{path}.maxLimitRequestRatio[{k}]", ratio, f"ratio {ratio[0]} is less than 1"))
    if ratio and mn and mx:
        errs += _ratio_limit_errors(k, path, mn, mx, ratio)
    overcommit = _native(k) and not k.startswith("hugepages-")
    if not overcommit and default and request and default[0].cmp(request[0]) != 0:
        errs.append(_invalid(f"{path}.defaultRequest[{k}]", request,
                             f"default value {default[0]} must equal to defaultRequest value {request[0]} in {k}"))
    return errs


def _item_errors(item: dict[str, Any], path: str) -> list[FieldError]:
    kind = str(item.get("type") or "")
    check = container_resource_name_errors if kind in ("Pod", "Container") else _resource_name_errors
    lists = {f: _quantities(item.get(f)) for f in _FIELDS}
    errs: list[FieldError] = []
    for f in ("max", "min"):
        errs += [e for k in as_dict(item.get(f)) for e in check(str(k), f"{path}.{f}[{k}]")]
    if kind == "Pod":
        errs += [field_forbidden(f"{path}.{f}", "may not be specified when `type` is 'Pod'")
                 for f in ("default", "defaultRequest") if as_dict(item.get(f))]
        lists["default"], lists["defaultRequest"] = {}, {}
    else:
        for f in ("default", "defaultRequest"):
            errs += [e for k in as_dict(item.get(f)) for e in check(str(k), f"{path}.{f}[{k}]")]
    if kind == "PersistentVolumeClaim" and "storage" not in lists["min"] and "storage" not in lists["max"]:
        errs.append(field_required(f"{path}.limits", "either minimum or maximum storage value is required, but "
                                                     "neither was provided"))
    ratio = as_dict(item.get("maxLimitRequestRatio"))
    errs += [e for k in ratio for e in check(str(k), f"{path}.maxLimitRequestRatio[{k}]")]
    for k in sorted({k for f in _FIELDS for k in lists[f]}):
        errs += _resource_errors(k, path, lists)
    return errs


def defaulted_as_sent(obj: dict[str, Any]) -> dict[str, Any]:
    """A copy with `SetDefaults_LimitRangeItem` on the quantities as sent (Container items: default ← max,
    defaultRequest ← default, then ← min), for validation to print upstream's Quantity structs."""
    obj = copy.deepcopy(obj)
    for item in as_list(as_dict(obj.get("spec")).get("limits")):
        if not isinstance(item, dict) or item.get("type") != "Container":
            continue
        default = {**as_dict(item.get("max")), **as_dict(item.get("default"))}
        request = {**as_dict(item.get("min")), **default, **as_dict(item.get("defaultRequest"))}
        if default:
            item["default"] = default
        if request:
            item["defaultRequest"] = request
    return obj


def limit_range_errors(obj: dict[str, Any]) -> list[FieldError]:
    """`ValidateLimitRange` after the metadata."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, item in enumerate(as_list(as_dict(obj.get("spec")).get("limits"))):
        item, path = as_dict(item), f"spec.limits[{i}]"
        kind = str(item.get("type") or "")
        errs += _type_errors(kind, f"{path}.type")
        if kind in seen:
            errs.append(duplicate(f"{path}.type", kind))
        seen.add(kind)
        errs += _item_errors(item, path)
    return errs
