"""`pkg/apis/node/validation/validation.go` (1.33) `ValidateRuntimeClass` beyond the handler: `validateOverhead`
(core's `ValidateResourceRequirements` of `{Limits: overhead.podFixed}` at `overhead`: container resource names,
quantities not negative and whole for integer resources, hugepages only with cpu or memory) and
`validateScheduling`: nodeSelector labels, and `validateTolerations` (core's `ValidateTolerations`, then each
toleration's key/operator/value/effect once, a repeated one printed as Go's `%#v` of the `core.Toleration`)."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_forbidden
from ..limitrange import container_resource_name_errors
from ..resourcequota import quantity_errors
from ..podvalidation.podspec import toleration_struct, validate_tolerations
from ..shapes import as_dict, as_list
from ..validation import validate_labels


def overhead_errors(overhead: dict[str, Any]) -> list[FieldError]:
    """`validateOverhead` → `ValidateResourceRequirements` (limits only)."""
    errs: list[FieldError] = []
    limits = as_dict(overhead.get("podFixed"))
    for name, value in limits.items():
        path = f"overhead.limits[{name}]"
        errs += container_resource_name_errors(str(name), path) + quantity_errors(str(name), value, path)
    names = {str(n) for n in limits}
    if any(n.startswith("hugepages-") for n in names) and not names & {"cpu", "memory"}:
        errs.append(field_forbidden("overhead", "HugePages require cpu or memory"))
    return errs


def runtime_class_errors(obj: dict[str, Any]) -> list[FieldError]:
    """The overhead and scheduling parts of `ValidateRuntimeClass` (after the handler)."""
    errs: list[FieldError] = []
    if isinstance(obj.get("overhead"), dict):
        errs += overhead_errors(obj["overhead"])
    scheduling = obj.get("scheduling")
    if isinstance(scheduling, dict):
        if isinstance(scheduling.get("nodeSelector"), dict):
            errs += validate_labels(scheduling["nodeSelector"], "scheduling.nodeSelector")
        errs += _tolerations(scheduling.get("tolerations"), "scheduling.tolerations")
    return errs


def _tolerations(tolerations: Any, path: str) -> list[FieldError]:
    """`validateTolerations`: core's rules, then no repeated {key, operator, value, effect}."""
    errs = validate_tolerations(tolerations, path)
    seen: set[tuple[str, ...]] = set()
    for i, t in enumerate(as_dict(t) for t in as_list(tolerations)):
        key = tuple(str(t.get(k) or "") for k in ("key", "operator", "value", "effect"))
        if key in seen:
            errs.append(FieldError("FieldValueDuplicate", f"{path}[{i}]", f"Duplicate value: {toleration_struct(t)}"))
        seen.add(key)
    return errs
