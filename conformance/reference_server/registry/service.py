"""Services: defaults, ClusterIP allocation and the required fields, as kube-apiserver on a single-stack IPv4
cluster (kind's default service CIDR 10.96.0.0/12; 10.96.0.1 is the `default/kubernetes` Service).

Follows `pkg/apis/core/v1/defaults.go` (`SetDefaults_Service`: type ClusterIP, sessionAffinity None, port
protocol TCP, targetPort = port, internalTrafficPolicy Cluster, externalTrafficPolicy Cluster for
NodePort/LoadBalancer), `pkg/registry/core/service/storage/alloc.go` (ipFamilies/ipFamilyPolicy, cluster IP and
node port allocation), `pkg/registry/core/service/strategy.go` (status is `{loadBalancer: {}}` on create and
kept on update; allocated values kept when an update omits them) and `ValidateService`'s required fields.
"""
from __future__ import annotations

import ipaddress
import random
from typing import Any, Callable

from ..apierrors import FieldError, field_invalid, field_required
from .strategy import Strategy

SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
KUBERNETES_SERVICE_IP = "10.96.0.1"
NODE_PORTS = (30000, 32767)
_ALLOCATED = ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "healthCheckNodePort")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _invalid_ips(ip: str, why: str) -> FieldError:
    """The allocator's error: the value prints as Go's `%#v` of `[]string`."""
    return FieldError("FieldValueInvalid", "spec.clusterIPs",
                      f'Invalid value: []string{{"{ip}"}}: failed to allocate IP {ip}: {why}')


class ServiceStrategy(Strategy):
    """`service.Strategy` + the allocator; `services()` lists every stored Service (to find free IPs/ports)."""

    def __init__(self, info: Any, services: Callable[[], list[dict[str, Any]]]):
        super().__init__(info)
        self._services = services
        self._rng = random.Random()

    def _used(self) -> tuple[set[str], set[int]]:
        ips, ports = set(), set()
        for s in self._services():
            spec = s.get("spec") if isinstance(s.get("spec"), dict) else {}
            ips.update(ip for ip in _list(spec.get("clusterIPs")) if isinstance(ip, str) and ip != "None")
            ports.update(p.get("nodePort") for p in _list(spec.get("ports")) if isinstance(p, dict))
        return ips, ports

    def _allocate_ip(self, used: set[str]) -> str:
        size = SERVICE_CIDR.num_addresses
        while True:
            ip = str(SERVICE_CIDR.network_address + self._rng.randrange(2, size - 1))
            if ip not in used:
                return ip

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        typ = spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        for port in _list(spec.get("ports")):
            if isinstance(port, dict):
                port.setdefault("protocol", "TCP")
                if port.get("targetPort") in (None, "", 0) and port.get("port"):
                    port["targetPort"] = port["port"]
        obj["status"] = {"loadBalancer": {}}
        if typ == "ExternalName":
            return
        spec.setdefault("internalTrafficPolicy", "Cluster")
        if typ in ("NodePort", "LoadBalancer"):
            spec.setdefault("externalTrafficPolicy", "Cluster")
        if typ == "LoadBalancer":
            spec.setdefault("allocateLoadBalancerNodePorts", True)
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + self._validate_spec(obj.get("spec")) + self._check_requested_ip(obj)

    def _validate_spec(self, spec: Any) -> list[FieldError]:
        """`ValidateService`'s required fields and port ranges."""
        spec = spec if isinstance(spec, dict) else {}
        errs: list[FieldError] = []
        ports = spec.get("ports") if isinstance(spec.get("ports"), list) else []
        headless = spec.get("clusterIP") == "None"
        if not ports and not headless and spec.get("type") != "ExternalName":
            errs.append(field_required("spec.ports"))
        for i, p in enumerate(ports):
            p = p if isinstance(p, dict) else {}
            if len(ports) > 1 and not p.get("name"):
                errs.append(field_required(f"spec.ports[{i}].name"))
            port = p.get("port")
            if not isinstance(port, int) or not 1 <= port <= 65535:
                errs.append(field_invalid(f"spec.ports[{i}].port", port if port is not None else 0,
                                          "must be between 1 and 65535, inclusive"))
        if spec.get("type") == "ExternalName" and not spec.get("externalName"):
            errs.append(field_required("spec.externalName"))
        return errs

    def canonicalize(self, obj: dict[str, Any]) -> None:
        """Allocation runs after validation (the storage's `alloc.go` step), so a refused object takes nothing."""
        spec = obj.get("spec")
        if not isinstance(spec, dict) or spec.get("type") == "ExternalName":
            return
        ips = spec.get("clusterIPs")
        if isinstance(ips, list) and ips and all(isinstance(ip, str) for ip in ips):
            return
        used_ips, used_ports = self._used()
        ip = spec.get("clusterIP") if isinstance(spec.get("clusterIP"), str) else ""
        ip = ip or self._allocate_ip(used_ips)
        spec["clusterIP"], spec["clusterIPs"] = ip, [ip]
        if spec.get("type") in ("NodePort", "LoadBalancer"):
            for p in _list(spec.get("ports")):
                if isinstance(p, dict) and not p.get("nodePort"):
                    free = [n for n in range(NODE_PORTS[0], NODE_PORTS[1] + 1) if n not in used_ports]
                    p["nodePort"] = self._rng.choice(free)
                    used_ports.add(p["nodePort"])

    def _check_requested_ip(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        ip = spec.get("clusterIP")
        if not ip or ip == "None":
            return []
        if not isinstance(ip, str):
            return [field_invalid("spec.clusterIPs[0]", ip, "must be a valid IP address, (e.g. 10.9.8.7 or "
                                  "2001:db8::ffff)")]
        try:
            addr = ipaddress.ip_address(ip)
        except ValueError:
            return [field_invalid("spec.clusterIPs[0]", ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
        if addr not in SERVICE_CIDR:
            return [_invalid_ips(ip, f"the provided IP ({ip}) is not in the valid range. The range of valid IPs "
                                 f"is {SERVICE_CIDR}")]
        if ip in self._used()[0]:
            return [_invalid_ips(ip, "provided IP is already allocated")]
        return []

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        ospec, nspec = old.get("spec") or {}, new.get("spec")
        if isinstance(nspec, dict):
            for key in _ALLOCATED:  # `patchAllocatedValues`: an update that omits them keeps them
                if key in ospec and not nspec.get(key):
                    nspec[key] = ospec[key]
            for key, value in (("type", "ClusterIP"), ("sessionAffinity", "None")):
                nspec.setdefault(key, ospec.get(key, value))
        new["status"] = old.get("status", {"loadBalancer": {}})

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + self._validate_spec(new.get("spec"))
