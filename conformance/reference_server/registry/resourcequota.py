"""ResourceQuota validation: `pkg/apis/core/validation/validation.go` `ValidateResourceQuota`,
`ValidateResourceQuotaUpdate` and `ValidateResourceQuotaStatusUpdate` (resource names through
`ValidateResourceQuotaResourceName`, values through `ValidateResourceQuantityValue`: not negative, whole numbers
for the integer resources), with the name sets of `pkg/apis/core/helper/helpers.go`; and
`pkg/registry/core/resourcequota/strategy.go` (`PrepareForCreate` drops the status a client sent, a spec update
keeps the stored one; values re-encoded canonical).

Messages print values as `field.ErrorBody` does: a negative one is `value.String()` (the parsed string itself
when `ParseQuantity` kept it as canonical, else the canonical form), a non-integer one the `%#v` of the
`resource.Quantity` struct (a value, so its pointer-receiver `String()` is not used), which this module rebuilds
from `ParseQuantity`'s int64 fast path (`staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go`).
Scopes and scope selectors are not validated here (only their immutability on update).
"""
from __future__ import annotations

import json
from typing import Any

from ..apierrors import FieldError, field_invalid
from ..quantity import Quantity, QuantityError
from .strategy import Strategy
from .validation import is_qualified_name
from .shapes import as_dict

NEGATIVE = "must be greater than or equal to 0"
NOT_INTEGER = "must be an integer"
NOT_QUOTA_RESOURCE = "must be a standard resource for quota"
IMMUTABLE = "field is immutable"

# pkg/apis/core/helper/helpers.go
STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
    "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
    "services.nodeports", "services.loadbalancers"})
STANDARD_QUOTA_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
    "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps",
    "services.nodeports", "services.loadbalancers"})
INTEGER_RESOURCES = frozenset({
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"})
_DEC_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_INT64 = 2**63 - 1


def _huge_pages(name: str) -> bool:
    """`IsQuotaHugePageResourceName`."""
    return name.startswith("hugepages-") or name.startswith("requests.hugepages-")


def _native(name: str) -> bool:
    """`IsNativeResource`: unqualified, or in the kubernetes.io/ namespace."""
    return "/" not in name or "kubernetes.io/" in name


def is_integer_resource(name: str) -> bool:
    """`IsIntegerResourceName`: the object counts, and extended resources (`count/…`, `example.com/gpu`)."""
    if name in INTEGER_RESOURCES:
        return True
    return not _native(name) and not name.startswith("requests.") and not is_qualified_name("requests." + name)


def resource_name_errors(name: str, path: str) -> list[FieldError]:
    """`ValidateResourceQuotaResourceName` (→ `validateResourceName`)."""
    errs = [field_invalid(path, name, m) for m in is_qualified_name(name)]
    if not errs and "/" not in name and name not in STANDARD_RESOURCES and not _huge_pages(name):
        errs.append(field_invalid(path, name, "must be a standard resource type or fully qualified"))
    if "/" not in name and name not in STANDARD_QUOTA_RESOURCES and not _huge_pages(name):
        errs.append(field_invalid(path, name, NOT_QUOTA_RESOURCE))
    return errs


def _text(raw: Any) -> str:
    """What `Quantity.UnmarshalJSON` parses: a string's contents (trimmed), or a number's JSON text."""
    if isinstance(raw, str):
        return raw.strip()
    return json.dumps(raw)


def _fast_path(text: str) -> tuple[int, int, str, str] | None:
    """`ParseQuantity`'s int64 path: (value, scale, the kept string or "", format), or None for the inf.Dec one."""
    if text == "0":
        return 0, 0, "0", "DecimalSI"
    i, positive = 0, True
    if text[:1] in "+-":
        positive, i = text[0] == "+", 1
    while i < len(text) and text[i] == "0":
        i += 1
    j = i
    while j < len(text) and text[j].isdigit() and text[j].isascii():
        j += 1
    num, denom = text[i:j] or "0", ""
    if j < len(text) and text[j] == ".":
        k = j + 1
        while k < len(text) and text[k].isdigit() and text[k].isascii():
            k += 1
        denom, j = text[j + 1:k], k
    suffix = text[j:]
    if suffix in _DEC_SUFFIXES:
        fmt, exponent = "DecimalSI", _DEC_SUFFIXES[suffix]
    elif suffix in _BIN_SUFFIXES:
        fmt, exponent = "BinarySI", _BIN_SUFFIXES[suffix]
    elif suffix[:1] in ("e", "E") and suffix[1:].lstrip("+-").isdigit():
        fmt, exponent = "DecimalExponent", int(suffix[1:])
    else:
        return None
    mantissa = 1
    if fmt == "BinarySI":
        if denom:
            return None
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        scale = 0
    else:
        precision = 18 - (len(num) + len(denom))
        scale = exponent
    if precision < 0:
        return None
    scale -= len(denom)
    if scale < -9:
        return None
    shifted = num + denom
    value = int(shifted) * mantissa
    if value > _INT64:
        return None
    result = value if positive else -value
    if fmt == "BinarySI":
        keep = exponent % 10 == 0 and int(shifted) & 0x07 != 0
    else:
        keep = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
    return result, scale, text if keep else "", fmt


def go_struct(raw: Any) -> str:
    """`%#v` of the parsed `resource.Quantity` (the inf.Dec form shows a pointer, whose address upstream's
    message carries and no one can reproduce)."""
    fast = _fast_path(_text(raw))
    if fast is None:
        return ('resource.Quantity{i:resource.int64Amount{value:0, scale:0}, '
                'd:resource.infDecAmount{Dec:(*inf.Dec)(0xc000000000)}, s:"", Format:"DecimalSI"}')
    value, scale, kept, fmt = fast
    return (f"resource.Quantity{{i:resource.int64Amount{{value:{value}, scale:{scale}}}, "
            f"d:resource.infDecAmount{{Dec:(*inf.Dec)(nil)}}, s:{json.dumps(kept)}, Format:{json.dumps(fmt)}}}")


def quantity_errors(name: str, raw: Any, path: str) -> list[FieldError]:
    """`ValidateResourceQuantityValue`. A value that does not parse was refused when decoding (400)."""
    try:
        q = Quantity.parse(_text(raw))
    except QuantityError:
        return []
    errs = []
    if q.value < 0:
        fast = _fast_path(_text(raw))
        errs.append(field_invalid(path, fast[2] if fast and fast[2] else q.canonical(), NEGATIVE))
    if is_integer_resource(name) and q.milli_value() % 1000 != 0:
        errs.append(FieldError("FieldValueInvalid", path, f"Invalid value: {go_struct(raw)}: {NOT_INTEGER}"))
    return errs


def resource_list_errors(raw: Any, path: str) -> list[FieldError]:
    """Each `name: quantity` of a ResourceList (upstream ranges over a Go map: any order; here the sent order)."""
    errs: list[FieldError] = []
    for name, value in (raw.items() if isinstance(raw, dict) else ()):
        key = f"{path}[{name}]"
        errs += resource_name_errors(str(name), key) + quantity_errors(str(name), value, key)
    return errs


def status_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`ValidateResourceQuotaStatusUpdate` after the metadata: status.hard, then status.used. (Its
    `resourceVersion: Required value` cannot happen through the API: an update without one is made
    unconditional with the stored one.)"""
    status = as_dict(new.get("status"))
    return resource_list_errors(status.get("hard"), "status.hard") + \
        resource_list_errors(status.get("used"), "status.used")


def _scopes_shown(scopes: Any) -> str:
    items = scopes if isinstance(scopes, list) else []
    if not items:
        return "[]core.ResourceQuotaScope(nil)" if scopes is None else "[]core.ResourceQuotaScope{}"
    return "[]core.ResourceQuotaScope{" + ", ".join(json.dumps(str(s)) for s in items) + "}"


class ResourceQuotaStrategy(Strategy):
    """`resourcequotaStrategy`."""

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj.pop("status", None)  # `resourcequota.Status = api.ResourceQuotaStatus{}`

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """The status is the quota controller's (through `/status`): a spec update keeps the stored one."""
        if old.get("status") is not None:
            new["status"] = old["status"]
        else:
            new.pop("status", None)

    def canonicalize(self, obj: dict[str, Any]) -> None:
        """`spec.hard` values in canonical form (the Go struct re-encoded)."""
        hard = as_dict(obj.get("spec")).get("hard")
        if isinstance(hard, dict):
            for k, v in list(hard.items()):
                try:
                    hard[k] = Quantity.parse(_text(v)).canonical()
                except QuantityError:
                    pass

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """`ValidateResourceQuota`: metadata, spec.hard (the status, emptied, has nothing to refuse)."""
        return super().validate(obj) + resource_list_errors(as_dict(obj.get("spec")).get("hard"), "spec.hard")

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateResourceQuotaUpdate`: metadata, spec.hard, and scopes that may not change."""
        errs = super().validate_update(new, old) + \
            resource_list_errors(as_dict(new.get("spec")).get("hard"), "spec.hard")
        scopes, old_scopes = as_dict(new.get("spec")).get("scopes"), as_dict(old.get("spec")).get("scopes")
        as_set = lambda v: {str(s) for s in v} if isinstance(v, list) else set()  # noqa: E731
        if as_set(scopes) != as_set(old_scopes):
            errs.append(FieldError("FieldValueInvalid", "spec.scopes",
                                   f"Invalid value: {_scopes_shown(scopes)}: {IMMUTABLE}"))
        return errs
