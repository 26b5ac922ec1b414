"""Services: defaults, ClusterIP allocation and the required fields, as kube-apiserver on a single-stack IPv4
cluster (the flavour's `--service-cluster-ip-range`, `ServiceStrategy.cidr`: kubeadm's 10.96.0.0/12, kind's
10.96.0.0/16; 10.96.0.1 is the `default/kubernetes` Service) and every ServiceCIDR a client adds: the allocator is
registry/serviceip.py's MetaAllocator, and registry/servicestore.py writes each ClusterIP's IPAddress before the
Service is stored.

Follows `pkg/apis/core/v1/defaults.go` (`SetDefaults_Service`: type ClusterIP, sessionAffinity None, port
protocol TCP, targetPort = port, internalTrafficPolicy Cluster, externalTrafficPolicy Cluster for
NodePort/LoadBalancer), `pkg/registry/core/service/storage/alloc.go` (ipFamilies/ipFamilyPolicy, cluster IP and
node port allocation: registry/nodeports.py), `pkg/registry/core/service/strategy.go` (status is
`{loadBalancer: {}}` on create and kept on update; allocated values kept when an update omits them),
`ValidateService`'s required fields and trafficDistribution, and `ValidateServiceUpdate`'s immutable cluster IPs
and IP families; a write's warnings are registry/servicewarnings.py's (`GetWarningsForService`).
A create's ClusterIP is allocated in `validate` before the fields are checked (`store.go` `create`: `BeginCreate`
before `BeforeCreate`), and noted (registry/draws.py `note_allocated`) so the store writes and reverts its
IPAddress when the create then fails. A requested ClusterIP is parsed as `allocIPs` parses it
(`netutils.ParseIPSloppy`): `10.96.0.010` or `::ffff:10.96.0.10` allocates 10.96.0.10 (its IPAddress's name,
registry/serviceip.py `canonical_ip`), the Service keeping the text as sent, and warned of.
"""
from __future__ import annotations

import ipaddress
import random
from typing import Any, Callable

from .. import apierrors as E
from ..apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..goport.gofmt import sharp_v_strings
from .draws import current as current_draws
from .draws import draw, dry_allocation, note_allocated, note_collided, note_walk, reserved
from . import nodeports
from .serviceip import ERR_ALLOCATED, ERR_FULL, MetaAllocator, canonical_ip
from .status_validation import parse_ip_sloppy
from .servicewarnings import service_warnings
from .strategy import PerThread, Strategy
from .shapes import as_list
from .validation import is_valid_port_num

SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
KUBERNETES_SERVICE_IP = "10.96.0.1"
TRAFFIC_DISTRIBUTIONS = ("PreferClose",)  # v1.ServiceTrafficDistributionPreferClose; PreferSameZone/-Node are gated
_ALLOCATED = ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "healthCheckNodePort")


def _invalid_ips(ip: str, why: str) -> FieldError:
    """The allocator's error: the value (`service.Spec.ClusterIPs`) prints as Go's `%#v` of `[]string`."""
    return FieldError("FieldValueInvalid", "spec.clusterIPs",
                      f"Invalid value: {sharp_v_strings([ip])}: failed to allocate IP {ip}: {why}")


def _defaults(spec: dict[str, Any]) -> None:
    """`SetDefaults_Service` / `SetDefaults_ServicePort` (run on create and update bodies alike)."""
    spec.setdefault("sessionAffinity", "None")
    for port in as_list(spec.get("ports")):
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
            if port.get("targetPort") in (None, "", 0) and port.get("port"):
                port["targetPort"] = port["port"]
    typ = spec.get("type")
    if typ == "ExternalName":
        return
    spec.setdefault("internalTrafficPolicy", "Cluster")
    if typ in ("NodePort", "LoadBalancer"):
        spec.setdefault("externalTrafficPolicy", "Cluster")
    if typ == "LoadBalancer":
        spec.setdefault("allocateLoadBalancerNodePorts", True)


class ServiceStrategy(Strategy):
    """`service.Strategy` + the allocator; `services()` lists every stored Service (to find free IPs/ports).
    `allocator` is the MetaAllocator (registry/serviceip.py) once the registry wires it to the ServiceCIDR and
    IPAddress stores; alone, the strategy allocates from `cidr` and the stored Services."""

    _planned = PerThread()  # a create's NodePorts and healthCheckNodePort, planned by `validate`, set by
    # `canonicalize`
    _planned_ip = PerThread()  # a create's dynamic ClusterIP, allocated by `validate`, set by `canonicalize`

    def __init__(self, info: Any, services: Callable[[], list[dict[str, Any]]]):
        super().__init__(info)
        self._services = services
        self._rng = random.Random()
        self.cidr = SERVICE_CIDR
        self.allocator = MetaAllocator(lambda: [], lambda ip: False, lambda: self.cidr)

    def _used(self) -> tuple[set[str], set[int]]:
        ips, ports = set(), set()
        for s in self._services():
            spec = s.get("spec") if isinstance(s.get("spec"), dict) else {}
            ips.update(canonical_ip(ip) for ip in as_list(spec.get("clusterIPs"))
                       if isinstance(ip, str) and ip != "None")
            ports.update(p.get("nodePort") for p in as_list(spec.get("ports")) if isinstance(p, dict))
            ports.add(spec.get("healthCheckNodePort"))  # (the same port allocator's)
        return ips, ports

    def _allocate_ip(self, used: set[str]) -> str:
        """`AllocateNextService` over every ready ServiceCIDR (a Service's IP without its IPAddress counts as
        taken too: a store written before the IPAddresses were); for a dry run the dry-run allocator's answer,
        the network address of one range (`allocIPs`: `allocator.DryRun().AllocateNext()`). Drawn once per
        request (registry/draws.py); within one, from a walk the request keeps, so an address whose IPAddress
        admission refused is followed by the next one (`allocateFromRange`, admission/serviceips.py); the walk is
        noted with the address, for the store to go on with when its IPAddress create fails
        (registry/servicestore.py)."""
        family = f"IPv{self.cidr.version}"
        if dry_allocation():
            try:
                return draw("cluster-ip", family, lambda: self.allocator.dry_next(self._dry_allocator(family)))
            except ValueError as exc:
                raise E.internal(f"failed to allocate a serviceIP: {exc}") from None
        if current_draws() is None:
            walk = self.allocator.walk(used)
            ip = next(walk, None)
        else:
            walk = draw("cluster-ip-walk", family, lambda: self.allocator.walk(used))
            ip = draw("cluster-ip", family, lambda: next(walk, None))
        if ip is None:
            raise E.internal(f"failed to allocate a serviceIP: {ERR_FULL}")
        note_walk(ip, walk)  # (registry/servicestore.py goes on with it when the IPAddress cannot be written)
        return ip

    def _dry_allocator(self, family: str) -> Any:
        """The allocator `DryRun()` picks (one draw per request, shared by the preview and the write)."""
        return draw("dry-allocator", family, self.allocator.dry_run)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        self._planned = self._planned_ip = None
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        spec.setdefault("type", "ClusterIP")
        _defaults(spec)
        obj["status"] = {"loadBalancer": {}}
        if spec["type"] == "ExternalName":
            return
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        refused = self._check_requested_ip(obj)
        if refused:  # `beginCreate` allocates (alloc.go) before `BeforeCreate` validates: its error comes alone
            return refused
        self._begin_cluster_ip(obj)  # so does a ClusterIP allocated, whatever the validation says next
        spec = obj.get("spec")
        if isinstance(spec, dict) and spec.get("type") in ("NodePort", "LoadBalancer"):
            op = nodeports.Operation(self._used()[1], dry_allocation(), self._rng)  # `txnAllocNodePorts`
            refused, planned = nodeports.plan(spec, op)
            if refused:
                return refused
            self._planned = planned, nodeports.health_check(spec, op)
        return super().validate(obj) + self._validate_spec(obj.get("spec"))

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return service_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return service_warnings(new)

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
            errs += [field_invalid(f"spec.ports[{i}].port", port if port is not None else 0, m)
                     for m in is_valid_port_num(port)]
        if spec.get("type") == "ExternalName" and not spec.get("externalName"):
            errs.append(field_required("spec.externalName"))
        if spec.get("type", "ClusterIP") == "ClusterIP":
            for i, p in enumerate(ports):
                if isinstance(p, dict) and p.get("nodePort"):
                    errs.append(field_forbidden(f"spec.ports[{i}].nodePort", "may not be used when `type` is 'ClusterIP'"))
        return errs + _traffic_distribution(spec)

    def _begin_cluster_ip(self, obj: dict[str, Any]) -> None:
        """`txnAllocClusterIPs` in `beginCreate`, before `BeforeCreate`'s validation: the requested ClusterIP
        (checked already) or a dynamic one, noted as allocated (registry/draws.py: the store writes its
        IPAddress, and reverts it when the create fails afterwards, even for a Service validation refuses)."""
        spec = obj.get("spec")
        if not isinstance(spec, dict) or spec.get("type") == "ExternalName":
            return
        ips = spec.get("clusterIPs")
        if isinstance(ips, list) and ips and all(isinstance(ip, str) for ip in ips):
            ip = ips[0]
        else:
            ip = spec.get("clusterIP") if isinstance(spec.get("clusterIP"), str) else ""
            if not ip:
                ip = self._planned_ip = self._allocate_ip(self._used()[0])
        if ip and ip != "None":
            note_allocated(canonical_ip(ip), obj)

    def canonicalize(self, obj: dict[str, Any]) -> None:
        """Sets what was allocated: a create's ClusterIP by `validate` (`beginCreate`), an update's here."""
        self._canonicalize(obj, None)

    def canonicalize_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """An update's allocations (`beginUpdate`'s), which the old Service's ports decide (`updateNodePorts`)."""
        self._canonicalize(new, old.get("spec") if isinstance(old.get("spec"), dict) else {})

    def _canonicalize(self, obj: dict[str, Any], old_spec: dict[str, Any] | None) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict) or spec.get("type") == "ExternalName":
            return
        ips = spec.get("clusterIPs")
        used_ips, used_ports = self._used()
        if not (isinstance(ips, list) and ips and all(isinstance(ip, str) for ip in ips)):
            ip = spec.get("clusterIP") if isinstance(spec.get("clusterIP"), str) else ""
            planned, self._planned_ip = self._planned_ip, None
            ip = ip or planned or self._allocate_ip(used_ips)
            spec["clusterIP"], spec["clusterIPs"] = ip, [ip]
            spec.setdefault("ipFamilies", ["IPv4"])
            spec.setdefault("ipFamilyPolicy", "SingleStack")
        if spec.get("type") in ("NodePort", "LoadBalancer"):
            planned, self._planned = self._planned, None  # a create's, made by `validate`
            if planned is None:  # an update's: each port it adds gets one (its own are not checked again)
                op = nodeports.Operation(used_ports, dry_allocation(), self._rng, check=False)
                draws = nodeports.update_draws(spec, old_spec or {}, op)
                planned = draws, nodeports.health_check(spec, op)
            ports, health = planned
            for i, node_port in ports.items():
                spec["ports"][i]["nodePort"] = node_port
            if health is not None:
                spec["healthCheckNodePort"] = health

    def _check_requested_ip(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        ip = spec.get("clusterIP")
        if not ip or ip == "None":
            return []
        if not isinstance(ip, str):
            return [field_invalid("spec.clusterIPs[0]", ip, "must be a valid IP address, (e.g. 10.9.8.7 or "
                                  "2001:db8::ffff)")]
        addr = parse_ip_sloppy(canonical_ip(ip))  # `allocIPs`: `ParseIPSloppy`, a leading zero or IPv4-mapped too
        if addr is None:
            return [field_invalid("spec.clusterIPs[0]", ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
        if addr.version != self.cidr.version:  # `initIPFamilyFields`: the family inferred from the IP
            family = f"IPv{addr.version}"
            return [FieldError("FieldValueInvalid", "spec.clusterIPs[0]", f"Invalid value: {sharp_v_strings([ip])}: "
                               f"{family} is not configured on this cluster")]
        if dry_allocation():  # the dry-run allocator: its range only, an address taken already passes
            why = self.allocator.dry_check(self._dry_allocator(f"IPv{addr.version}"), str(addr))
            return [_invalid_ips(ip, why)] if why else []
        mine = reserved()
        why = self.allocator.check(str(addr), mine)
        if why is None and str(addr) not in mine and str(addr) in self._used()[0]:
            why = ERR_ALLOCATED
        if why == ERR_ALLOCATED:
            note_collided(str(addr), obj)
        return [_invalid_ips(ip, why)] if why else []

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        self._planned = self._planned_ip = None
        ospec, nspec = old.get("spec") or {}, new.get("spec")
        if isinstance(nspec, dict):
            for key, value in (("type", "ClusterIP"), ("sessionAffinity", "None")):
                nspec.setdefault(key, ospec.get(key, value))
            _defaults(nspec)  # decode-time defaults apply to an update's body too
            _normalize_cluster_ips(nspec, ospec)
            _drop_type_dependent_fields(nspec, ospec)
            both_need_ip = _needs_cluster_ip(ospec) and _needs_cluster_ip(nspec)
            both_need_hc = nodeports.needs_health_check(ospec) and nodeports.needs_health_check(nspec)
            for key in _ALLOCATED:  # `patchAllocatedValues`: an update that omits them keeps them
                if key in ospec and not nspec.get(key) and (both_need_hc if key == "healthCheckNodePort"
                                                             else both_need_ip):
                    nspec[key] = ospec[key]
        new["status"] = old.get("status", {"loadBalancer": {}})

    def begin_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`beginUpdate` (storage.go) before `BeforeUpdate`: `allocIPs` refuses a requested IP held by another, then
        `updateNodePorts` a requested nodePort another Service holds (or outside the range), its error alone (no
        metadata cause before it)."""
        nspec = new.get("spec") if isinstance(new.get("spec"), dict) else {}
        ospec = old.get("spec") if isinstance(old.get("spec"), dict) else {}
        if not _needs_cluster_ip(ospec) and _needs_cluster_ip(nspec):
            refused = self._check_requested_ip(new)
            if refused:
                return refused
            self._begin_cluster_ip(new)
        op = nodeports.Operation(self._used()[1], dry_allocation(), self._rng)  # `txnUpdateNodePorts`, after IPs
        if nspec.get("type") in ("NodePort", "LoadBalancer"):
            refused = nodeports.update_refusal(nspec, ospec, op)
            if refused:
                return refused
        if not nodeports.needs_health_check(ospec) and nspec.get("healthCheckNodePort"):
            nodeports.health_check_requested(nspec, op)  # `updateHealthCheckNodePort`'s case 1: its 500
        return []

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateServiceUpdate`'s own checks, between its `ValidateObjectMetaUpdate` and `ValidateService`."""
        nspec = new.get("spec") if isinstance(new.get("spec"), dict) else {}
        ospec = old.get("spec") if isinstance(old.get("spec"), dict) else {}
        return _cluster_ip_updates(nspec, ospec) + _ip_family_updates(nspec, ospec)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + self.update_checks(new, old) + self._validate_spec(new.get("spec"))


def _traffic_distribution(spec: dict[str, Any]) -> list[FieldError]:
    """`validateServiceTrafficDistribution` (1.33, its PreferSameTrafficDistribution gate off): a value set, the
    empty string too, must be `PreferClose`."""
    value = spec.get("trafficDistribution")
    if value is None or value == TRAFFIC_DISTRIBUTIONS[0]:
        return []
    return [field_not_supported("spec.trafficDistribution", value, TRAFFIC_DISTRIBUTIONS)]


# ---- updates: `ValidateServiceUpdate` (pkg/apis/core/validation) and the REST update's normalisation
# (pkg/registry/core/service/storage/storage.go `normalizeClusterIPs`, strategy.go `dropTypeDependentFields`)
def _needs_cluster_ip(spec: dict[str, Any]) -> bool:
    return spec.get("type", "ClusterIP") != "ExternalName"


def _ips(spec: dict[str, Any]) -> list[Any]:
    return as_list(spec.get("clusterIPs"))


def _invalid_list(field: str, values: list[Any], detail: str, type_name: str = "string") -> FieldError:
    shown = sharp_v_strings(values, f"[]{type_name}")
    return FieldError("FieldValueInvalid", field, f"Invalid value: {shown}: {detail}")


def _normalize_cluster_ips(new: dict[str, Any], old: dict[str, Any]) -> None:
    """`normalizeClusterIPs` on update: a changed singular `clusterIP` with unchanged `clusterIPs` moves
    into `clusterIPs[0]`; a cleared singular with unchanged plural clears both."""
    same = _ips(new) == _ips(old)
    ip = new.get("clusterIP") or ""
    if not ip and same and "clusterIPs" in new:
        new.pop("clusterIPs", None)
        return
    if ip and ip != old.get("clusterIP") and same and _ips(new):
        new["clusterIPs"] = [ip] + _ips(new)[1:]


def _drop_type_dependent_fields(new: dict[str, Any], old: dict[str, Any]) -> None:
    """`dropTypeDependentFields`: a Service becoming ExternalName loses the cluster IP fields it kept as they
    were (the user did not change them)."""
    external = ("NodePort", "LoadBalancer")
    if nodeports.needs_health_check(old) and not nodeports.needs_health_check(new):
        if new.get("healthCheckNodePort") == old.get("healthCheckNodePort"):
            new.pop("healthCheckNodePort", None)  # unchanged: it goes with the policy that needed it
    if old.get("type") in external and new.get("type") not in external:
        old_ports = {p.get("port"): p.get("nodePort") for p in as_list(old.get("ports")) if isinstance(p, dict)}
        for p in as_list(new.get("ports")):
            if isinstance(p, dict) and p.get("nodePort") and p["nodePort"] == old_ports.get(p.get("port")):
                del p["nodePort"]  # unchanged node ports go with the type that needed them
        if new.get("externalTrafficPolicy") == old.get("externalTrafficPolicy"):
            new.pop("externalTrafficPolicy", None)
    if _needs_cluster_ip(old) and not _needs_cluster_ip(new):
        if _ips(new) == _ips(old) and new.get("clusterIP") == old.get("clusterIP"):
            for key in ("clusterIP", "clusterIPs"):
                new.pop(key, None)
        if new.get("ipFamilies") == old.get("ipFamilies"):
            new.pop("ipFamilies", None)
        if new.get("ipFamilyPolicy") == old.get("ipFamilyPolicy"):
            new.pop("ipFamilyPolicy", None)


def _cluster_ip_updates(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`validateUpgradeDowngradeClusterIPs`."""
    if not _needs_cluster_ip(new) or not _needs_cluster_ip(old):
        return []
    if old.get("clusterIP") == "None" and new.get("clusterIP") == "None":
        return []
    nips, oips = _ips(new), _ips(old)
    errs: list[FieldError] = []
    if len(oips) == len(nips):
        for i, ip in enumerate(oips):
            if ip != nips[i]:
                errs.append(_invalid_list(f"spec.clusterIPs[{i}]", nips, "may not change once set"))
    elif len(oips) > len(nips):
        if not nips:
            errs.append(_invalid_list("spec.clusterIPs[0]", nips, "primary clusterIP can not be unset"))
        elif oips[0] != nips[0]:
            errs.append(_invalid_list("spec.clusterIPs[0]", nips, "may not change once set"))
        if len(nips) == 1 and new.get("ipFamilyPolicy") != "SingleStack":
            errs.append(_invalid_list("spec.clusterIPs[0]", nips, "`ipFamilyPolicy` must be set to 'SingleStack' "
                                      "when releasing the secondary clusterIP"))
    elif oips and nips[0] != oips[0]:
        errs.append(_invalid_list("spec.clusterIPs[0]", nips, "may not change once set"))
    return errs


def _ip_family_updates(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`validateUpgradeDowngradeIPFamilies` (its errors name index 0 whichever family changed, as upstream)."""
    if not _needs_cluster_ip(new) or not _needs_cluster_ip(old):
        return []
    nf, of = as_list(new.get("ipFamilies")), as_list(old.get("ipFamilies"))
    errs: list[FieldError] = []
    if len(of) == len(nf):
        for i, fam in enumerate(of):
            if fam != nf[i]:
                errs.append(_invalid_list("spec.ipFamilies[0]", nf, "may not change once set", "core.IPFamily"))
    elif len(of) > len(nf):
        if not nf:
            errs.append(_invalid_list("spec.ipFamilies[0]", nf, "primary ipFamily can not be unset", "core.IPFamily"))
        elif of[0] != nf[0]:
            errs.append(_invalid_list("spec.ipFamilies[0]", nf, "may not change once set", "core.IPFamily"))
    elif of and nf[0] != of[0]:
        errs.append(_invalid_list("spec.ipFamilies[0]", nf, "may not change once set", "core.IPFamily"))
    return errs
