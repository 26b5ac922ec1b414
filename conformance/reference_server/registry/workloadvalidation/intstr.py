"""The IntOrString rules of `pkg/apis/apps/validation/validation.go`: `ValidatePositiveIntOrPercent`,
`IsNotMoreThan100Percent`, `getIntOrPercentValue` (Deployments, DaemonSets, StatefulSets, PodDisruptionBudgets)."""
from __future__ import annotations

import re
from typing import Any

from ...apierrors import FieldError, field_invalid
from .gofmt import int_or_string

_PERCENT = re.compile(r"[0-9]+%")
PERCENT_MESSAGE = ("a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
                   "regex used for validation is '[0-9]+%')")


def intstr_invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {int_or_string(value)}: {detail}")


def percent(value: Any) -> int | None:
    """`getPercentValue`: the number of a valid percent string, else None."""
    if isinstance(value, str) and _PERCENT.fullmatch(value):
        return int(value[:-1])
    return None


def int_or_percent_value(value: Any) -> int:
    """`getIntOrPercentValue`: a percent's number, an int, or `IntValue()` of another string (Atoi, 0 on error)."""
    p = percent(value)
    if p is not None:
        return p
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    try:
        return int(value) if isinstance(value, str) and value.strip() == value else 0
    except ValueError:
        return 0


def positive_int_or_percent_only(value: Any, path: str) -> list[FieldError]:
    """`ValidatePositiveIntOrPercent`."""
    if isinstance(value, str):
        return [] if _PERCENT.fullmatch(value) else [intstr_invalid(path, value, PERCENT_MESSAGE)]
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return [field_invalid(path, value, "must be greater than or equal to 0")]
    return []


def not_more_than_100_percent(value: Any, path: str) -> list[FieldError]:
    """`IsNotMoreThan100Percent`."""
    p = percent(value)
    return [intstr_invalid(path, value, "must not be greater than 100%")] if p is not None and p > 100 else []


def positive_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """`ValidatePositiveIntOrPercent` then `IsNotMoreThan100Percent` (PodDisruptionBudget's pair)."""
    return positive_int_or_percent_only(value, path) + not_more_than_100_percent(value, path)
