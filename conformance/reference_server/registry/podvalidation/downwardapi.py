"""The downward API's selectors as `pkg/apis/core/validation/validation.go` (1.33) judges them, shared by env
vars (containers.py) and downwardAPI volume files (volumes.py): `validateObjectFieldSelector` (after
`pkg/apis/core/pods/helpers.go`'s `ConvertDownwardAPIFieldLabel`, whose error is reported as upstream wraps it),
`validateContainerResourceFieldSelector` and `validateContainerResourceDivisor` (a divisor compared by its
`Quantity.String()`, the value printed being the resource's name, as upstream prints it)."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_invalid, field_not_supported, field_required
from ...quantity import Quantity, QuantityError
from ..validation import is_qualified_name

# ConvertDownwardAPIFieldLabel's v1 labels (1.33)
_CONVERTIBLE = frozenset({
    "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
    "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName", "status.phase",
    "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"})
ENV_FIELD_PATHS = ("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
                   "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")
VOLUME_FIELD_PATHS = ("metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
                      "metadata.uid")
# validContainerResourceFieldPathExpressions, sorted as sets.List prints them
RESOURCE_FIELD_PATHS = ("limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu",
                        "requests.ephemeral-storage", "requests.memory")
_HUGEPAGES_PREFIXES = ("limits.hugepages-", "requests.hugepages-")
_CPU_DIVISORS = frozenset({"1m", "1"})
_BYTE_DIVISORS = frozenset({"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"})
_BYTE_DIVISORS_TEXT = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"


def split_subscripted(path: str) -> tuple[str, str, bool]:
    """`fieldpath.SplitMaybeSubscriptedPath`: `metadata.labels['key']` → (`metadata.labels`, `key`, True)."""
    if not path.endswith("']"):
        return path, "", False
    head, sep, subscript = path[:-2].partition("['")
    if not sep or not head:
        return path, "", False
    return head, subscript, True


def _convert(label: str) -> tuple[str, str | None]:
    """`ConvertDownwardAPIFieldLabel("v1", label)`: the internal label, or the error's text."""
    head, _, subscripted = split_subscripted(label)
    if subscripted:
        if head in ("metadata.annotations", "metadata.labels"):
            return label, None
        return "", f"field label does not support subscript: {label}"
    if label == "spec.host":
        return "spec.nodeName", None
    if label in _CONVERTIBLE:
        return label, None
    return "", f"field label not supported: {label}"


def object_field_selector(ref: dict[str, Any], expressions: tuple[str, ...], path: str) -> list[FieldError]:
    """`validateObjectFieldSelector`."""
    if not ref.get("apiVersion"):
        return [field_required(f"{path}.apiVersion")]
    fpath = ref.get("fieldPath") or ""
    if not fpath:
        return [field_required(f"{path}.fieldPath")]
    if ref["apiVersion"] != "v1":
        return [field_invalid(f"{path}.fieldPath", fpath,
                              f"error converting fieldPath: unsupported pod version: {ref['apiVersion']}")]
    internal, err = _convert(str(fpath))
    if err:
        return [field_invalid(f"{path}.fieldPath", fpath, f"error converting fieldPath: {err}")]
    head, subscript, subscripted = split_subscripted(internal)
    if subscripted:
        key = subscript.lower() if head == "metadata.annotations" else subscript
        return [field_invalid(path, key, m) for m in is_qualified_name(key)]
    if head not in expressions:
        return [field_not_supported(f"{path}.fieldPath", head, expressions)]
    return []


def _divisor_string(raw: Any) -> str | None:
    """`Quantity.String()` of the divisor, None when it is unset or zero (upstream skips those)."""
    from ...quantity import go_string

    try:
        if Quantity.parse(raw.strip() if isinstance(raw, str) else raw).value == 0:
            return None
        return go_string(raw)
    except QuantityError:
        return None


def _divisor_errors(resource: str, divisor: Any, path: str) -> list[FieldError]:
    """`validateContainerResourceDivisor`."""
    if divisor is None:
        return []
    text = _divisor_string(divisor)
    if text is None:
        return []
    here = f"{path}.divisor"
    errs: list[FieldError] = []
    if resource in ("limits.cpu", "requests.cpu") and text not in _CPU_DIVISORS:
        errs.append(field_invalid(here, resource, "only divisor's values 1m and 1 are supported with the cpu resource"))
    elif resource in ("limits.memory", "requests.memory") and text not in _BYTE_DIVISORS:
        errs.append(field_invalid(here, resource, f"only divisor's values {_BYTE_DIVISORS_TEXT} are supported with "
                                                  "the memory resource"))
    elif resource in ("limits.ephemeral-storage", "requests.ephemeral-storage") and text not in _BYTE_DIVISORS:
        errs.append(field_invalid(here, resource, f"only divisor's values {_BYTE_DIVISORS_TEXT} are supported with "
                                                  "the local ephemeral storage resource"))
    if resource.startswith(_HUGEPAGES_PREFIXES) and text not in _BYTE_DIVISORS:
        errs.append(field_invalid(here, resource, f"only divisor's values {_BYTE_DIVISORS_TEXT} are supported with "
                                                  "the hugepages resource"))
    return errs


def resource_field_selector(ref: dict[str, Any], path: str, *, volume: bool) -> list[FieldError]:
    """`validateContainerResourceFieldSelector` (huge pages prefixes allowed: 1.33's downward API)."""
    errs: list[FieldError] = []
    resource = str(ref.get("resource") or "")
    if volume and not ref.get("containerName"):
        errs.append(field_required(f"{path}.containerName"))
    elif not resource:
        errs.append(field_required(f"{path}.resource"))
    elif resource not in RESOURCE_FIELD_PATHS and not resource.startswith(_HUGEPAGES_PREFIXES):
        errs.append(field_not_supported(f"{path}.resource", resource, RESOURCE_FIELD_PATHS))
    return errs + _divisor_errors(resource, ref.get("divisor"), path)
