"""Small field rules the pod-spec validation shares, with apimachinery's words
(`staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go`: `IsValidPortNum`, `IsValidPortName`,
`IsRelaxedEnvVarName`, `IsConfigMapKey`; `field.NotFound`, `field.Duplicate`; core's `ValidateNonnegativeField`)."""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from ...apierrors import FieldError, field_duplicate, field_forbidden, field_invalid
from ...goport.gonet.strconv import to_bytes
from ..validation import PORT_RANGE, is_valid_port_name as port_name_errors, is_valid_port_num as port_num_errors
from ..validation import max_len_error, regex_error

NEGATIVE = "must be greater than or equal to 0"
_CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+"
_CONFIG_KEY = re.compile("^" + _CONFIG_KEY_FMT + "$")
RELAXED_ENV_MSG = "a valid environment variable name must consist only of printable ASCII characters other than '='"

__all__ = ["NEGATIVE", "PORT_RANGE", "integer", "nonnegative", "port_num_errors", "port_name_errors",
           "relaxed_env_name_errors", "config_map_key_errors", "not_found", "field_duplicate", "one_of"]


def integer(value: Any) -> int | None:
    """A JSON integer (Go decodes nothing else into an int field), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def nonnegative(value: Any, path: str) -> list[FieldError]:
    """`ValidateNonnegativeField` of a set integer."""
    n = integer(value)
    return [field_invalid(path, n, NEGATIVE)] if n is not None and n < 0 else []


def relaxed_env_name_errors(name: str) -> list[str]:
    """`IsRelaxedEnvVarName` (1.33: the RelaxedEnvironmentVariableValidation gate is on by default)."""
    if not name:
        return ["environment variable name must be non-empty"]
    if any(ord(c) > 126 or ord(c) < 32 or c == "=" for c in name):
        return [RELAXED_ENV_MSG]
    return []


def config_map_key_errors(key: str) -> list[str]:
    """`IsConfigMapKey`."""
    errs: list[str] = []
    if len(to_bytes(key)) > 253:  # (bytes, as Go's len)
        errs.append(max_len_error(253))
    if not _CONFIG_KEY.match(key):
        errs.append(regex_error("a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
                                _CONFIG_KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    if key == ".":
        errs.append("must not be '.'")
    elif key == "..":
        errs.append("must not be '..'")
    elif key.startswith(".."):
        errs.append("must not start with '..'")
    return errs


def not_found(path: str, value: Any) -> FieldError:
    """`field.NotFound`."""
    return FieldError("FieldValueNotFound", path, field_invalid(path, value, "").body.replace("Invalid value", "Not found", 1))


def one_of(obj: dict[str, Any], members: Iterable[tuple[str, str]], path: str, what: str,
           check: Callable[[str, dict[str, Any]], list[FieldError]],
           every: Callable[[str, dict[str, Any]], list[FieldError]] | None = None) -> tuple[int, list[FieldError]]:
    """Upstream's union walk (`validateHandler`, `validateVolumeSource`): in Go field order, the first member set
    is checked, each later one refused `may not specify more than 1 <what>` at its (upstream-spelled) path;
    `every` adds the checks upstream makes of a member whether it is the first or not.
    Returns how many were set (0 or more) and the errors."""
    errs: list[FieldError] = []
    count = 0
    for key, shown in members:
        value = obj.get(key)
        if not isinstance(value, dict):
            continue
        if count:
            errs.append(field_forbidden(f"{path}.{shown}", f"may not specify more than 1 {what}"))
        else:
            count += 1
            errs += check(key, value)
        if every is not None:
            errs += every(key, value)
    return count, errs
