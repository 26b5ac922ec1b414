"""The warnings a Service's write earns (`WarningsOnCreate`/`WarningsOnUpdate` of
`pkg/registry/core/service/strategy.go`, both `GetWarningsForService(svc, old)`): `pkg/api/service/warnings.go` as
1.33 has it (kubernetes#128786 moved its IP checks to apimachinery's `GetWarningsForIP`/`GetWarningsForCIDR`,
registry/ipwarnings.py), in its order and words: the deprecated topology-aware-hints annotation, the cluster IPs
(when one is set), the external IPs, the load balancer IP and source ranges, then an ExternalName Service's external
IPs and another type's externalName (kubernetes#119310, 1.28).

Later releases' additions are not 1.33's and are left out: the headless Service's ignored loadBalancerIP,
externalIPs and sessionAffinity (kubernetes#132214, 1.34), `PreferClose`'s deprecation (1.34) and the externalIPs
deprecation warning."""
from __future__ import annotations

from typing import Any

from .ipwarnings import cidr_warnings, ip_warnings
from .shapes import as_dict, as_list

TOPOLOGY_AWARE_HINTS = "service.kubernetes.io/topology-aware-hints"  # api.DeprecatedAnnotationTopologyAwareHints
TOPOLOGY_MODE = "service.kubernetes.io/topology-mode"  # api.AnnotationTopologyMode


def _strings(values: Any) -> list[tuple[int, str]]:
    return [(i, v) for i, v in enumerate(as_list(values)) if isinstance(v, str)]


def service_warnings(svc: dict[str, Any]) -> list[str]:
    """`GetWarningsForService(svc, old)` (the old Service is not read, upstream's neither). `clusterIPs` is read
    as `normalizeClusterIPs` left it before the strategy ran: a create that sets `clusterIP` alone has it as its
    first entry."""
    meta, spec = as_dict(svc.get("metadata")), as_dict(svc.get("spec"))
    out = []
    if TOPOLOGY_AWARE_HINTS in as_dict(meta.get("annotations")):
        out.append(f"annotation {TOPOLOGY_AWARE_HINTS} is deprecated, please use {TOPOLOGY_MODE} instead")
    cluster_ip = spec.get("clusterIP")
    if isinstance(cluster_ip, str) and cluster_ip and cluster_ip != "None":  # helper.IsServiceIPSet
        ips = spec.get("clusterIPs") if isinstance(spec.get("clusterIPs"), list) else [cluster_ip]
        for i, ip in _strings(ips):
            out += ip_warnings(f"spec.clusterIPs[{i}]", ip)
    for i, ip in _strings(spec.get("externalIPs")):
        out += ip_warnings(f"spec.externalIPs[{i}]", ip)
    lb_ip = spec.get("loadBalancerIP")
    if isinstance(lb_ip, str) and lb_ip:
        out += ip_warnings("spec.loadBalancerIP", lb_ip)
    for i, cidr in _strings(spec.get("loadBalancerSourceRanges")):
        out += cidr_warnings(f"spec.loadBalancerSourceRanges[{i}]", cidr)
    external_name = spec.get("type") == "ExternalName"
    if external_name and as_list(spec.get("externalIPs")):
        out.append('spec.externalIPs is ignored when spec.type is "ExternalName"')
    if not external_name and spec.get("externalName"):
        out.append('spec.externalName is ignored when spec.type is not "ExternalName"')
    return out


__all__ = ["service_warnings"]
