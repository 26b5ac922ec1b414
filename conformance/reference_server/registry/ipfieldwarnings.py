"""The IP and CIDR format warnings (kubernetes#128786, merged for 1.33) of the strategies that have no warnings
module of their own, each value through apimachinery's `GetWarningsForIP`/`GetWarningsForCIDR`
(registry/ipwarnings.py), in upstream's order and field paths:

- `pkg/registry/networking/networkpolicy/strategy.go` `networkPolicyWarnings` (WarningsOnCreate and
  WarningsOnUpdate): each ingress rule's `from` peers, then each egress rule's `to` peers, an `ipBlock`'s `cidr`
  then its `except` entries; the status strategy warns of nothing;
- `pkg/registry/core/pod/strategy.go` `podStatusStrategy.WarningsOnUpdate` (`pods/status` only; a pod's own
  update warns of nothing): `status.podIPs[i].ip`, then `status.hostIPs[i].ip`;
- `pkg/registry/core/service/strategy.go` `serviceStatusStrategy.WarningsOnUpdate` (`services/status`): each
  `status.loadBalancer.ingress[i]` that has an `ip`, the path naming the entry, not its `ip`;
- `pkg/registry/networking/ingress/strategy.go` `ingressStatusStrategy.WarningsOnUpdate` (`ingresses/status`):
  the same loop over an Ingress's `status.loadBalancer.ingress` (KEP-4858's alpha, 1.33, warns of
  `ingress.status.loadBalancer.ingress[].ip`; the lines as a later upstream has them, strategy.go 175-188);
  `ingressStrategy.WarningsOnUpdate` warns of nothing.

A Node's `spec.podCIDRs` are warned of by its own strategy (registry/node.py)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .ipwarnings import cidr_warnings, entry_ip_warnings, ip_warnings
from .shapes import as_dict, as_list


def _ip_block(path: str, block: dict[str, Any]) -> list[str]:
    out = []
    cidr = block.get("cidr")
    if isinstance(cidr, str):
        out += cidr_warnings(f"{path}.cidr", cidr)
    for k, value in enumerate(as_list(block.get("except"))):
        if isinstance(value, str):
            out += cidr_warnings(f"{path}.except[{k}]", value)
    return out


def network_policy_warnings(policy: dict[str, Any]) -> list[str]:
    """`networkPolicyWarnings(networkPolicy)`: the ipBlocks of the ingress rules' peers, then the egress rules'."""
    spec = as_dict(policy.get("spec"))
    out: list[str] = []
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(as_list(spec.get(direction))):
            for j, peer in enumerate(as_list(as_dict(rule).get(peers))):
                block = as_dict(peer).get("ipBlock")
                if isinstance(block, dict):
                    out += _ip_block(f"spec.{direction}[{i}].{peers}[{j}].ipBlock", block)
    return out


def pod_status_warnings(pod: dict[str, Any]) -> list[str]:
    """`podStatusStrategy.WarningsOnUpdate`: the pod IPs, then the host IPs (the singular fields are not read)."""
    status = as_dict(pod.get("status"))
    return (entry_ip_warnings("status.podIPs", status.get("podIPs"))
            + entry_ip_warnings("status.hostIPs", status.get("hostIPs")))


def load_balancer_warnings(obj: dict[str, Any]) -> list[str]:
    """`serviceStatusStrategy.WarningsOnUpdate` and `ingressStatusStrategy.WarningsOnUpdate`: each
    load-balancer ingress entry with an IP (a Service's `LoadBalancerIngress`, an Ingress's
    `IngressLoadBalancerIngress`: both an `ip` per entry)."""
    out = []
    ingress = as_dict(as_dict(obj.get("status")).get("loadBalancer")).get("ingress")
    for i, entry in enumerate(as_list(ingress)):
        ip = as_dict(entry).get("ip")
        if isinstance(ip, str) and ip:
            out += ip_warnings(f"status.loadBalancer.ingress[{i}]", ip)
    return out


service_status_warnings = ingress_status_warnings = load_balancer_warnings

# kind → its `<kind>StatusStrategy.WarningsOnUpdate`, for the `/status` subresources that warn in 1.33
STATUS_WARNINGS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "Pod": pod_status_warnings, "Service": service_status_warnings, "Ingress": ingress_status_warnings}


__all__ = ["STATUS_WARNINGS", "ingress_status_warnings", "load_balancer_warnings", "network_policy_warnings",
           "pod_status_warnings", "service_status_warnings"]
