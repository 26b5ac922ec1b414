"""What a write through `/status` may put in `status`: each kind's `Validate<Kind>StatusUpdate`, with upstream's
field paths and messages (a 422 Invalid, as for any update).

Upstream (1.33): `pkg/apis/apps/validation/validation.go` (`ValidateDeploymentStatusUpdate`,
`ValidateReplicaSetStatusUpdate`, `ValidateStatefulSetStatusUpdate`, `ValidateDaemonSetStatusUpdate`: counts not
negative, ready/available/updated not above `status.replicas`, `collisionCount` never decremented),
`pkg/apis/batch/validation/validation.go` (`validateJobStatus`, `ValidateJobStatusUpdate`: in `job_status.py`,
with the condition, time and index rules 1.33's `JobStatusValidationOptions` switch on), `pkg/apis/policy/validation`
(`ValidatePodDisruptionBudgetStatusUpdate`, policy/v1: counts not negative), `pkg/apis/core/validation/
validation.go` (`ValidatePodStatusUpdate`: custom condition types, `nominatedNodeName`, `qosClass` immutable, no
way back from a terminated container that will not restart, `podIPs`/`hostIPs`; `ValidateServiceStatusUpdate` →
`ValidateLoadBalancerStatus`; `ValidateResourceQuotaStatusUpdate`: in `resourcequota.py`). The v1 → internal conversions and defaults these rules see are applied first
(`status_defaults`): `Convert_v1_PodStatus_To_core_PodStatus` (`podIP`/`hostIP` authoritative over the lists)
and `SetDefaults_Service` (`ipMode: VIP` for a LoadBalancer's ingress IPs).
"""
from __future__ import annotations

import ipaddress
import re
from typing import Any, Callable

from ..apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..goport.gonet.strconv import quote
from .job_status import validate_job_status
from .resourcequota import status_errors as resourcequota_status
from .validation import is_dns1123_subdomain, is_qualified_name
from .shapes import as_dict, as_list

NEGATIVE = "must be greater than or equal to 0"  # apimachinery validation.IsNegativeErrorMsg
IMMUTABLE = "field is immutable"
ABOVE_REPLICAS = "cannot be greater than status.replicas"
INVALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
LB_IP_MODES = ("Proxy", "VIP")

StatusCheck = Callable[[dict[str, Any], dict[str, Any]], list[FieldError]]


def _int(value: Any) -> int | None:
    """A JSON integer (Go decodes nothing else into an int32 field); None when absent or not one."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _nonnegative(status: dict[str, Any], names: tuple[str, ...], path: str = "status") -> list[FieldError]:
    """`ValidateNonnegativeField` on each present count, in `names`' order."""
    errs = []
    for name in names:
        value = _int(status.get(name))
        if value is not None and value < 0:
            errs.append(field_invalid(f"{path}.{name}", value, NEGATIVE))
    return errs


def _not_above(status: dict[str, Any], pairs: tuple[tuple[str, str, str], ...]) -> list[FieldError]:
    """`field.Invalid(status.<a>, a, msg)` when a > b (absent counts are Go's zero)."""
    errs = []
    for a, b, msg in pairs:
        va, vb = _int(status.get(a)) or 0, _int(status.get(b)) or 0
        if va > vb:
            errs.append(field_invalid(f"status.{a}", va, msg))
    return errs


def _collision_decremented(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`IsDecremented(new.collisionCount, old.collisionCount)`: unset after set, or lower."""
    nv, ov = _int(new.get("collisionCount")), _int(old.get("collisionCount"))
    if ov is not None and (nv is None or nv < ov):
        return [field_invalid("status.collisionCount", nv or 0, "cannot be decremented")]
    return []


def _status(obj: dict[str, Any]) -> dict[str, Any]:
    return as_dict(obj.get("status"))


# ---- apps/v1 ------------------------------------------------------------------------------------
def deployment_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    s = _status(new)
    errs = _nonnegative(s, ("observedGeneration", "replicas", "updatedReplicas", "readyReplicas",
                            "availableReplicas", "unavailableReplicas", "collisionCount"))
    errs += _not_above(s, (("updatedReplicas", "replicas", ABOVE_REPLICAS), ("readyReplicas", "replicas", ABOVE_REPLICAS),
                           ("availableReplicas", "replicas", ABOVE_REPLICAS),
                           ("availableReplicas", "readyReplicas", "cannot be greater than readyReplicas")))
    return errs + _collision_decremented(s, _status(old))


def replicaset_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    s = _status(new)
    errs = _nonnegative(s, ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas",
                            "observedGeneration"))
    return errs + _not_above(s, (("fullyLabeledReplicas", "replicas", ABOVE_REPLICAS),
                                 ("readyReplicas", "replicas", ABOVE_REPLICAS),
                                 ("availableReplicas", "replicas", ABOVE_REPLICAS),
                                 ("availableReplicas", "readyReplicas", "cannot be greater than readyReplicas")))


def statefulset_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    s = _status(new)
    errs = _nonnegative(s, ("replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas",
                            "observedGeneration", "collisionCount"))
    errs += _not_above(s, (("readyReplicas", "replicas", ABOVE_REPLICAS), ("currentReplicas", "replicas", ABOVE_REPLICAS),
                           ("updatedReplicas", "replicas", ABOVE_REPLICAS),
                           ("availableReplicas", "replicas", ABOVE_REPLICAS),
                           ("availableReplicas", "readyReplicas", "cannot be greater than status.readyReplicas")))
    return errs + _collision_decremented(s, _status(old))


def daemonset_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    s = _status(new)
    errs = _nonnegative(s, ("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady",
                            "observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable",
                            "collisionCount"))
    return errs + _collision_decremented(s, _status(old))


# ---- batch/v1, policy/v1 ----------------------------------------------------------------------------
def pdb_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    return _nonnegative(_status(new), ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"))


# ---- core/v1: IP addresses ----------------------------------------------------------------------------
_IPV4_SLOPPY = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+")


def parse_ip_sloppy(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """`netutils.ParseIPSloppy` (Go's `net.ParseIP` before 1.17): IPv4 parts may have leading zeros (decimal);
    IPv6 without a zone."""
    if _IPV4_SLOPPY.fullmatch(value):
        parts = [int(p) for p in value.split(".")]
        return ipaddress.IPv4Address(".".join(map(str, parts))) if max(parts) <= 255 else None
    if ":" not in value or "%" in value:
        return None
    try:
        return ipaddress.IPv6Address(value)
    except ValueError:
        return None


def ip_errors(path: str, value: Any, *, strict: bool) -> list[FieldError]:
    """`validation.IsValidIP` (strict) / `IsValidIPForLegacyField` (sloppy) of apimachinery util/validation/ip.go."""
    text = value if isinstance(value, str) else ""
    addr = parse_ip_sloppy(text)
    if addr is None:
        return [field_invalid(path, value, INVALID_IP)]
    errs = []
    if strict:
        if isinstance(addr, ipaddress.IPv4Address) and "." in text and ":" not in text and \
                any(len(p) > 1 and p.startswith("0") for p in text.split(".")):
            errs.append(field_invalid(path, value, "must not have leading 0s"))
        if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
            errs.append(field_invalid(path, value, "must not be an IPv4-mapped IPv6 address"))
    return errs


def _ip_list_errors(path: str, entries: list[Any], kind: str) -> list[FieldError]:
    """`validatePodIPs` / `validateHostIPs`: each a valid IP, at most one per family, no duplicates (the values
    shown as Go's `%#v` of the internal structs). Each IP is
    `IsValidIPForLegacyField` with the StrictIPCIDRValidation gate, off in 1.33 (KEP-4858 alpha): a legacy form (a
    leading zero, an IPv4-mapped address) is accepted, and warned of (registry/ipfieldwarnings.py)."""
    ips = [str(as_dict(e).get("ip", "")) for e in entries]
    errs: list[FieldError] = []
    for i, ip in enumerate(ips):
        errs += ip_errors(f"{path}[{i}]", ip, strict=False)
    if len(ips) > 1:
        families = {4 if isinstance(parse_ip_sloppy(ip), ipaddress.IPv4Address) else 6 for ip in ips}
        dual = len(ips) == 2 and len(families) == 2 and all(parse_ip_sloppy(ip) is not None for ip in ips)
        # upstream passes the internal structs (`core.PodIP` / `core.HostIP`, and the slice of them), which
        # `field.Error.ErrorBody` prints with `%#v` (no String method, not a simple type)
        struct = "core.PodIP" if kind == "pod" else "core.HostIP"
        shown = [f"{struct}{{IP:{quote(ip)}}}" for ip in ips]
        dup_errs: list[FieldError] = []
        seen: set[str] = set()
        for i, ip in enumerate(ips):
            if ip in seen:
                dup_errs.append(FieldError("FieldValueDuplicate", f"{path}[{i}]", f"Duplicate value: {shown[i]}"))
            seen.add(ip)
        listed = f"[]{struct}{{" + ", ".join(shown) + "}"
        invalid = [] if dual else [FieldError("FieldValueInvalid", path, f"Invalid value: {listed}: may specify no "
                                              "more than one IP for each IP family")]
        errs += invalid + dup_errs if kind == "pod" else dup_errs + invalid
    return errs


# ---- core/v1: Pod ---------------------------------------------------------------------------------------
_SYSTEM_CONDITIONS = frozenset({"PodScheduled", "Ready", "Initialized"})


def _state_transitions(new: list[Any], old: list[Any], path: str, restart_policy: str,
                       restartable: frozenset[str] = frozenset()) -> list[FieldError]:
    """`ValidateContainerStateTransition` / `ValidateInitContainerStateTransition`."""
    if restart_policy == "Always":
        return []
    errs = []
    for i, o in enumerate(old):
        o = as_dict(o)
        terminated = as_dict(o.get("state")).get("terminated")
        if terminated is None:
            continue
        if (_int(as_dict(terminated).get("exitCode")) or 0) != 0 and restart_policy == "OnFailure":
            continue
        if o.get("name") in restartable:
            continue
        for n in new:
            n = as_dict(n)
            if n.get("name") == o.get("name") and as_dict(n.get("state")).get("terminated") is None:
                errs.append(field_forbidden(f"{path}[{i}].state", "may not be transitioned to non-terminated state"))
    return errs


def pod_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    s, os_ = _status(new), _status(old)
    ospec = as_dict(old.get("spec"))
    errs: list[FieldError] = []
    for i, cond in enumerate(as_list(s.get("conditions"))):
        ctype = as_dict(cond).get("type")
        if ctype in _SYSTEM_CONDITIONS:
            continue
        # upstream passes the `metadata` path here (validation.go: `fldPath.Child("conditions")` before it
        # moves on to `status`), so a client reads `metadata.conditions[i].Type`
        errs += [field_invalid(f"metadata.conditions[{i}].Type", ctype, m)
                 for m in is_qualified_name(ctype if isinstance(ctype, str) else "")]
    nominated = s.get("nominatedNodeName") or ""
    if nominated and nominated != (os_.get("nominatedNodeName") or "") and isinstance(nominated, str):
        errs += [field_invalid("status.nominatedNodeName", nominated, m) for m in is_dns1123_subdomain(nominated)]
    if (s.get("qosClass") or "") != (os_.get("qosClass") or ""):
        errs.append(field_invalid("status.qosClass", s.get("qosClass") or "", IMMUTABLE))
    policy = str(ospec.get("restartPolicy") or "")
    restartable = frozenset(str(as_dict(c).get("name")) for c in as_list(ospec.get("initContainers"))
                            if as_dict(c).get("restartPolicy") == "Always")
    errs += _state_transitions(as_list(s.get("containerStatuses")), as_list(os_.get("containerStatuses")),
                               "status.containerStatuses", policy)
    errs += _state_transitions(as_list(s.get("initContainerStatuses")), as_list(os_.get("initContainerStatuses")),
                               "status.initContainerStatuses", policy, restartable)
    errs += _state_transitions(as_list(s.get("ephemeralContainerStatuses")),
                               as_list(os_.get("ephemeralContainerStatuses")), "status.ephemeralContainerStatuses",
                               "Never")
    errs += _ip_list_errors("status.podIPs", as_list(s.get("podIPs")), "pod")
    host_ips = as_list(s.get("hostIPs"))
    if host_ips:
        first = str(as_dict(host_ips[0]).get("ip", ""))
        if (s.get("hostIP") or "") != first:
            errs.append(field_invalid("status.hostIPs[0].ip", first, "must be equal to `hostIP`"))
        errs += _ip_list_errors("status.hostIPs", host_ips, "host")
    return errs


def _pod_status_conversion(obj: dict[str, Any]) -> None:
    """`Convert_v1_PodStatus_To_core_PodStatus` and back: `podIP` (`hostIP`) wins over a list that disagrees or
    is empty; the list's first entry is the single field on the way out."""
    s = obj.get("status")
    if not isinstance(s, dict):
        return
    for single, plural in (("podIP", "podIPs"), ("hostIP", "hostIPs")):
        ip, ips = s.get(single) or "", as_list(s.get(plural))
        if isinstance(ip, str) and ip and (not ips or as_dict(ips[0]).get("ip") != ip):
            s[plural] = [{"ip": ip}]
        ips = as_list(s.get(plural))
        if ips and single == "podIP":  # core.PodStatus has no podIP: it is rebuilt from the list
            s[single] = as_dict(ips[0]).get("ip", "")


# ---- core/v1: Service ------------------------------------------------------------------------------------
def service_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`ValidateLoadBalancerStatus(status.loadBalancer)` (AllowServiceLBStatusOnNonLB off, LoadBalancerIPMode on)."""
    ingress = as_list(as_dict(_status(new).get("loadBalancer")).get("ingress"))
    path = "status.loadBalancer.ingress"
    if as_dict(new.get("spec")).get("type") != "LoadBalancer" and ingress:
        return [field_forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")]
    old_ips = {as_dict(i).get("ip") for i in as_list(as_dict(_status(old).get("loadBalancer")).get("ingress"))} - {None, ""}
    errs: list[FieldError] = []
    for i, entry in enumerate(ingress):
        entry, p = as_dict(entry), f"{path}[{i}]"
        ip, mode, host = entry.get("ip") or "", entry.get("ipMode"), entry.get("hostname") or ""
        if ip and ip not in old_ips:
            errs += ip_errors(f"{p}.ip", ip, strict=False)
        if mode is None:
            if ip:
                errs.append(field_required(f"{p}.ipMode", "must be specified when `ip` is set"))
        elif not ip:
            errs.append(field_forbidden(f"{p}.ipMode", "may not be specified when `ip` is not set"))
        elif mode not in LB_IP_MODES:
            errs.append(field_not_supported(f"{p}.ipMode", mode, LB_IP_MODES))
        if host and isinstance(host, str):
            errs += [field_invalid(f"{p}.hostname", host, m) for m in is_dns1123_subdomain(host)]
            if parse_ip_sloppy(host) is not None:
                errs.append(field_invalid(f"{p}.hostname", host, "must be a DNS name, not an IP address"))
    return errs


def _service_status_defaults(obj: dict[str, Any]) -> None:
    """`SetDefaults_Service`: a LoadBalancer's ingress IP without `ipMode` gets `VIP`."""
    if as_dict(obj.get("spec")).get("type") != "LoadBalancer":
        return
    for entry in as_list(as_dict(_status(obj).get("loadBalancer")).get("ingress")):
        if isinstance(entry, dict) and entry.get("ip") and entry.get("ipMode") is None:
            entry["ipMode"] = "VIP"


# kind → (its Validate<Kind>StatusUpdate's status rules, whether they come before the metadata errors)
def flowcontrol_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    from .flowcontrol import status_update_errors  # registry/flowcontrol.py
    return status_update_errors(new, old)


STATUS_CHECKS: dict[str, tuple[StatusCheck, bool]] = {
    "Deployment": (deployment_status, False), "ReplicaSet": (replicaset_status, False),
    "StatefulSet": (statefulset_status, True), "DaemonSet": (daemonset_status, False),
    "Job": (validate_job_status, False), "PodDisruptionBudget": (pdb_status, False),
    "Pod": (pod_status, False), "Service": (service_status, False),
    "ResourceQuota": (resourcequota_status, False)}
STATUS_CHECKS.update({k: (flowcontrol_status, False) for k in ("FlowSchema", "PriorityLevelConfiguration")})


def ingress_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    from .groupvalidation.networking import ingress_status_errors  # imports this module
    return ingress_status_errors(new, old)


STATUS_CHECKS["Ingress"] = (ingress_status, False)


def node_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    from .nodevalidation import node_update_errors  # `ValidateNodeUpdate` (registry/nodevalidation.py)
    return node_update_errors(new, old)


STATUS_CHECKS["Node"] = (node_status, False)

STATUS_DEFAULTS: dict[str, Callable[[dict[str, Any]], None]] = {
    "Pod": _pod_status_conversion, "Service": _service_status_defaults}


def status_defaults(kind: str, obj: dict[str, Any]) -> None:
    """The decode-time conversions and defaults of `kind`'s status (before validation)."""
    fn = STATUS_DEFAULTS.get(kind)
    if fn is not None:
        fn(obj)


def validate_status_update(kind: str, new: dict[str, Any], old: dict[str, Any],
                           meta_errs: list[FieldError]) -> list[FieldError]:
    """`meta_errs` (ValidateObjectMetaUpdate) and the kind's status rules, in upstream's order."""
    entry = STATUS_CHECKS.get(kind)
    if entry is None:
        return meta_errs
    check, status_first = entry
    errs = check(new, old)
    return errs + meta_errs if status_first else meta_errs + errs
