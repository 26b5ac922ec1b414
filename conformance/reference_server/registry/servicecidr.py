"""`networking.k8s.io/v1` ServiceCIDR (with `/status`) and IPAddress, GA and served by default in 1.33
(MultiCIDRServiceAllocator): the Service IP ranges and one object per allocated ClusterIP.

Upstream: `pkg/registry/networking/servicecidr/strategy.go` (status reset on create and kept on update, spec kept
on a status write), `pkg/registry/networking/ipaddress/strategy.go`, and `pkg/apis/networking/validation/
validation.go` (`ValidateServiceCIDR`, `ValidateServiceCIDRUpdate`, `ValidateServiceCIDRStatusUpdate`: metadata only,
so a condition without a reason is accepted; `ValidateIPAddress`, `ValidateIPAddressName`,
`validateIPAddressParentReference`, `ValidateIPAddressUpdate`), with apimachinery's `IsValidIP` / `IsValidCIDR`
(`pkg/util/validation/ip.go`: `status_validation.ip_errors`, `groupvalidation/formats.strict_cidr_errors`).
Who writes them: controller/servicecidr.py.
"""
from __future__ import annotations

import copy
import ipaddress
from typing import Any

from ..apierrors import FieldError, field_invalid, field_required
from ..goport.gofmt import sharp_v_strings
from .groupvalidation.formats import strict_cidr_errors
from .kinds import ResourceInfo
from .status_validation import ip_errors
from .strategy import Strategy
from .validation import is_dns1123_subdomain, is_path_segment_name, validate_object_meta, validate_object_meta_update
from .workloads import GroupKind

GROUP, VERSION = "networking.k8s.io", "v1"
DEFAULT_NAME = "kubernetes"  # DefaultServiceCIDRName
FINALIZER = "networking.k8s.io/service-cidr-finalizer"
LABEL_FAMILY = "ipaddress.kubernetes.io/ip-family"
LABEL_MANAGED_BY = "ipaddress.kubernetes.io/managed-by"
ALLOCATOR = "ipallocator.k8s.io"  # ipallocator.ControllerName


def _spec_value(spec: dict[str, Any]) -> str:
    """`field.Invalid(fieldPath, cidrConfig.Spec, ...)` in `ValidateServiceCIDR`: the internal
    `networking.ServiceCIDRSpec` is no `fmt.Stringer`, so `ErrorBody` prints it with `%#v`."""
    return "networking.ServiceCIDRSpec{CIDRs:" + sharp_v_strings(spec.get("cidrs")) + "}"


class ServiceCIDRStrategy(Strategy):
    """`servicecidr.Strategy`: the status is dropped on create and kept on update."""

    kube_finalizers = True

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj.pop("status", None)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["status"] = copy.deepcopy(old.get("status"))
        if new["status"] is None:
            new.pop("status")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errs = validate_object_meta(obj.get("metadata") or {}, namespaced=False, name_rule="subdomain")
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        cidrs = [c for c in spec.get("cidrs") or [] if isinstance(c, str)]
        path = "spec.cidrs"
        if not cidrs:
            return errs + [field_required(path, "at least one CIDR required")]
        if len(cidrs) > 2:
            return errs + [FieldError("FieldValueInvalid", path,
                                      f"Invalid value: {_spec_value(spec)}: may only hold up to 2 values")]
        if len(cidrs) == 2 and not _dual_stack(cidrs):
            return errs + [FieldError("FieldValueInvalid", path, f"Invalid value: {_spec_value(spec)}: may specify no "
                                      "more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64")]
        for i, cidr in enumerate(cidrs):
            errs += strict_cidr_errors(f"{path}[{i}]", cidr)
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
        cidrs, old_cidrs = (new.get("spec") or {}).get("cidrs"), (old.get("spec") or {}).get("cidrs")
        if cidrs != old_cidrs:
            shown = sharp_v_strings(cidrs)  # `ValidateImmutableField(update.Spec.CIDRs, ...)`
            errs.append(FieldError("FieldValueInvalid", "spec.cidrs", f"Invalid value: {shown}: field is immutable"))
        return errs


class ServiceCIDRStatusStrategy(ServiceCIDRStrategy):
    """`servicecidr.StatusStrategy`: only the status changes; `ValidateServiceCIDRStatusUpdate` checks metadata."""

    subresource = "status"

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["spec"] = copy.deepcopy(old.get("spec"))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})


def _dual_stack(cidrs: list[str]) -> bool:
    try:
        versions = {ipaddress.ip_network(c, strict=False).version for c in cidrs}
    except ValueError:
        return False
    return versions == {4, 6}


class IPAddressStrategy(Strategy):
    """`ipaddress.Strategy`: the name is the address, the parent reference required and immutable."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        meta = obj.get("metadata") or {}
        errs = ip_errors("metadata.name", meta["name"], strict=True) if meta.get("name") else []
        errs += validate_object_meta(meta, namespaced=False, name_rule="subdomain", check_name=False)
        return errs + _parent_ref_errors((obj.get("spec") or {}).get("parentRef"))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
        ref, old_ref = (new.get("spec") or {}).get("parentRef"), (old.get("spec") or {}).get("parentRef")
        if ref != old_ref:
            errs.append(FieldError("FieldValueInvalid", "spec.parentRef",
                                   f"Invalid value: {_go_parent_ref(ref)}: field is immutable"))
        return errs


def _go_parent_ref(ref: Any) -> str:
    """`%#v` of a `*networking.ParentReference` is a pointer; field.Invalid prints its `%v`: `&{g r ns n}`."""
    if not isinstance(ref, dict):
        return "<nil>"
    return "&{" + " ".join(str(ref.get(k) or "") for k in ("group", "resource", "namespace", "name")) + "}"


def _parent_ref_errors(ref: Any) -> list[FieldError]:
    """`validateIPAddressParentReference`."""
    path = "spec.parentRef"
    if not isinstance(ref, dict):
        return [field_required(path, "")]
    errs: list[FieldError] = []
    group = ref.get("group") or ""
    if group:
        errs += [field_invalid(f"{path}.group", group, m) for m in is_dns1123_subdomain(group)]
    for key, required in (("resource", True), ("name", True), ("namespace", False)):
        value = ref.get(key) or ""
        if not value:
            if required:
                errs.append(field_required(f"{path}.{key}", ""))
            continue
        errs += [field_invalid(f"{path}.{key}", value, m) for m in is_path_segment_name(value)]
    return errs


def _info(kind: str, plural: str, fields: frozenset[str]) -> ResourceInfo:
    return ResourceInfo(kind, plural, kind.lower(), (), namespaced=False, fields=fields)


SERVICE_CIDR_INFO = _info("ServiceCIDR", "servicecidrs", frozenset({"spec", "status"}))
IPADDRESS_INFO = _info("IPAddress", "ipaddresses", frozenset({"spec"}))
SERVICE_CIDR_KINDS: tuple[GroupKind, ...] = (
    GroupKind(GROUP, VERSION, SERVICE_CIDR_INFO, ServiceCIDRStrategy),
    GroupKind(GROUP, VERSION, IPADDRESS_INFO, IPAddressStrategy),
)


def default_service_cidr(cidr: str) -> dict[str, Any]:
    """The `kubernetes` ServiceCIDR as the default-ServiceCIDR controller creates it (`--service-cluster-ip-range`)."""
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "ServiceCIDR", "metadata": {"name": DEFAULT_NAME},
            "spec": {"cidrs": [cidr]}}


def ip_address(ip: str, service: dict[str, Any]) -> dict[str, Any]:
    """The IPAddress the allocator creates for a Service's ClusterIP (`createIPAddress`, `serviceToRef`)."""
    meta = service.get("metadata") or {}
    family = "IPv6" if ":" in ip else "IPv4"
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "IPAddress",
            "metadata": {"name": ip, "labels": {LABEL_FAMILY: family, LABEL_MANAGED_BY: ALLOCATOR}},
            "spec": {"parentRef": {"resource": "services", "namespace": meta.get("namespace", ""),
                                   "name": meta.get("name", "")}}}  # (group "" is omitted: omitempty)
