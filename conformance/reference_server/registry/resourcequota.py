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
Scopes and scope selectors: groupvalidation/quotascopes.py (`validateResourceQuotaScopes`, `validateScopeSelector`),
after spec.hard as `ValidateResourceQuotaSpec` orders them.
"""
from __future__ import annotations

import json
from typing import Any

from ..apierrors import FieldError, field_invalid
from ..goport.gofmt import go_quote
from ..quantity import Quantity, QuantityError, go_string, int64_amount
from .groupvalidation.quotascopes import scope_selector_errors, scopes_errors, scopes_shown
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


def go_struct(raw: Any) -> str:
    """`%#v` of the parsed `resource.Quantity` (the inf.Dec form shows a pointer, whose address upstream's
    message carries and no one can reproduce)."""
    fast = int64_amount(_text(raw))
    if fast is None:
        return ('resource.Quantity{i:resource.int64Amount{value:0, scale:0}, '
                'd:resource.infDecAmount{Dec:(*inf.Dec)(0xc000000000)}, s:"", Format:"DecimalSI"}')
    value, scale, kept, fmt = fast
    return (f"resource.Quantity{{i:resource.int64Amount{{value:{value}, scale:{scale}}}, "
            f"d:resource.infDecAmount{{Dec:(*inf.Dec)(nil)}}, s:{go_quote(kept)}, Format:{go_quote(fmt)}}}")


def quantity_errors(name: str, raw: Any, path: str) -> list[FieldError]:
    """`ValidateResourceQuantityValue`. A value that does not parse was refused when decoding (400)."""
    try:
        q = Quantity.parse(_text(raw))
    except QuantityError:
        return []
    errs = []
    if q.value < 0:
        fast = int64_amount(_text(raw))
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


def spec_errors(spec: dict[str, Any]) -> list[FieldError]:
    """`ValidateResourceQuotaSpec`: spec.hard, then the scopes, then the scope selector."""
    return resource_list_errors(spec.get("hard"), "spec.hard") + scopes_errors(spec) + scope_selector_errors(spec)


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
                    hard[k] = go_string(v)
                except QuantityError:
                    pass

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """`ValidateResourceQuota`: metadata, the spec (the status, emptied, has nothing to refuse)."""
        return super().validate(obj) + spec_errors(as_dict(obj.get("spec")))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateResourceQuotaUpdate`: metadata, the spec, and scopes that may not change."""
        errs = super().validate_update(new, old) + spec_errors(as_dict(new.get("spec")))
        scopes, old_scopes = as_dict(new.get("spec")).get("scopes"), as_dict(old.get("spec")).get("scopes")
        as_set = lambda v: {str(s) for s in v} if isinstance(v, list) else set()  # noqa: E731
        if as_set(scopes) != as_set(old_scopes):
            errs.append(FieldError("FieldValueInvalid", "spec.scopes",
                                   f"Invalid value: {scopes_shown(scopes)}: {IMMUTABLE}"))
        return errs
