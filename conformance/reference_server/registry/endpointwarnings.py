"""The IP-format warnings (kubernetes#128786, 1.33) of an Endpoints' or an EndpointSlice's write:
`pkg/registry/core/endpoint/strategy.go` `endpointsWarnings` (each subset's addresses, then its not-ready ones)
and `pkg/registry/discovery/endpointslice/strategy.go` (`warnOnDeprecatedAddressType`, on create only, then
`warnOnBadIPs`), each address through apimachinery's `GetWarningsForIP` (registry/ipwarnings.py). What the
controllers wrote (their managed-by label) is not looked at, as upstream's strategies skip it."""
from __future__ import annotations

from typing import Any

from .ipwarnings import ip_warnings
from .shapes import as_dict, as_list

ENDPOINTS_MANAGED_BY = ("endpoints.kubernetes.io/managed-by", ("endpoint-controller",))
SLICE_MANAGED_BY = ("endpointslice.kubernetes.io/managed-by",
                    ("endpointslice-controller.k8s.io", "endpointslicemirroring-controller.k8s.io"))


def _controllers(obj: dict[str, Any], managed_by: tuple[str, tuple[str, ...]]) -> bool:
    return as_dict(as_dict(obj.get("metadata")).get("labels")).get(managed_by[0]) in managed_by[1]


def _ips(items: Any, path: str, key: str | None = None) -> list[str]:
    out = []
    for j, item in enumerate(as_list(items)):
        ip = as_dict(item).get(key) if key else item
        if isinstance(ip, str):
            out += ip_warnings(f"{path}[{j}]" + (f".{key}" if key else ""), ip)
    return out


def endpoints_warnings(obj: dict[str, Any]) -> list[str]:
    """`endpointsWarnings`, for `WarningsOnCreate` and `WarningsOnUpdate` alike."""
    if _controllers(obj, ENDPOINTS_MANAGED_BY):
        return []
    out = []
    for i, subset in enumerate(as_list(obj.get("subsets"))):
        subset = as_dict(subset)
        out += _ips(subset.get("addresses"), f"subsets[{i}].addresses", "ip")
        out += _ips(subset.get("notReadyAddresses"), f"subsets[{i}].notReadyAddresses", "ip")
    return out


def endpoint_slice_warnings(obj: dict[str, Any], *, create: bool) -> list[str]:
    """`WarningsOnCreate` (the FQDN deprecation, then the addresses) or `WarningsOnUpdate` (the addresses)."""
    out = ["spec.addressType: FQDN endpoints are deprecated"] if create and obj.get("addressType") == "FQDN" else []
    if _controllers(obj, SLICE_MANAGED_BY):
        return out
    for i, endpoint in enumerate(as_list(obj.get("endpoints"))):
        out += _ips(as_dict(endpoint).get("addresses"), f"endpoints[{i}].addresses")
    return out


__all__ = ["endpoint_slice_warnings", "endpoints_warnings"]
