"""`ValidatePodSpec` and `ValidatePodTemplateSpec` of `pkg/apis/core/validation/validation.go` (1.33), in their
order: terminationGracePeriodSeconds, volumes, containers, init containers, ephemeral containers' names, the
hostNetwork ports, restartPolicy, dnsPolicy, nodeSelector, the pod security context's IDs, affinity
(affinity.py), dnsConfig for
`dnsPolicy: None`, serviceAccountName, nodeName, activeDeadlineSeconds, hostname, subdomain, tolerations,
priorityClassName, runtimeClassName, preemptionPolicy. A pod (`validatePodMetadataAndSpec`) adds
`validateContainersOnlyForPod`; a template checks its own labels and annotations first and refuses ephemeral
containers.

Left out (accepted here, judged upstream): topologySpreadConstraints, resourceClaims, readiness and
scheduling gates, hostAliases, sysctls, seccomp/AppArmor fields and annotations, OS-specific fields, overhead.
"""
from __future__ import annotations

import json
from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name, validate_labels
from . import containers as ctr
from .affinity import validate_affinity
from .fields import integer
from .volumes import validate_volumes

RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
MAX_INT32 = 2147483647


def _name_errors(value: Any, path: str, rule: Any) -> list[FieldError]:
    return [field_invalid(path, value, m) for m in rule(str(value))] if value else []


def _toleration_struct(t: dict[str, Any]) -> str:
    """Go's `%#v` of a `core.Toleration` (a set tolerationSeconds is a pointer: its address is unknowable)."""
    seconds = "(*int64)(nil)" if t.get("tolerationSeconds") is None else "(*int64)(0xc000000000)"
    return (f"core.Toleration{{Key:{json.dumps(t.get('key') or '')}, Operator:{json.dumps(t.get('operator') or '')}, "
            f"Value:{json.dumps(t.get('value') or '')}, Effect:{json.dumps(t.get('effect') or '')}, "
            f"TolerationSeconds:{seconds}}}")


def validate_tolerations(tolerations: Any, path: str) -> list[FieldError]:
    """`ValidateTolerations`."""
    errs: list[FieldError] = []
    for i, t in enumerate(as_dict(t) for t in as_list(tolerations)):
        here = f"{path}[{i}]"
        key, op, value, effect = (str(t.get(k) or "") for k in ("key", "operator", "value", "effect"))
        if key:
            errs += [field_invalid(f"{here}.key", key, m) for m in is_qualified_name(key)]
        if not key and op != "Exists":
            errs.append(field_invalid(f"{here}.operator", op, "operator must be Exists when `key` is empty, which "
                                                              "means \"match all values and all keys\""))
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(field_invalid(f"{here}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` "
                                                                "is set"))
        if op in ("Equal", ""):
            msgs = is_label_value(value)
            if msgs:
                errs.append(field_invalid(f"{here}.operator", value, ";".join(msgs)))
        elif op == "Exists":
            if value:
                errs.append(FieldError("FieldValueInvalid", f"{here}.operator",
                                       f"Invalid value: {_toleration_struct(t)}: value must be empty when "
                                       "`operator` is 'Exists'"))
        else:
            errs.append(field_not_supported(f"{here}.operator", op, ("Equal", "Exists")))
        if effect and effect not in TAINT_EFFECTS:
            errs.append(field_not_supported(f"{here}.effect", effect, TAINT_EFFECTS))
    return errs


def _enum(value: Any, path: str, valid: tuple[str, ...]) -> list[FieldError]:
    if not value:
        return [field_required(path)]
    return [] if value in valid else [field_not_supported(path, value, valid)]


def _host_network_ports(spec: dict[str, Any], path: str, *, is_pod: bool) -> list[FieldError]:
    """`validatePodHostNetworkDeps`."""
    if spec.get("hostNetwork") is not True:
        return []
    errs: list[FieldError] = []
    for i, c in enumerate(as_dict(c) for c in as_list(spec.get("containers"))):
        for j, port in enumerate(as_dict(p) for p in as_list(c.get("ports"))):
            hp, cp = integer(port.get("hostPort")) or 0, integer(port.get("containerPort")) or 0
            if (is_pod or hp != 0) and hp != cp:
                errs.append(field_invalid(f"{path}.containers[{i}].ports[{j}].hostPort", hp,
                                          "must match `containerPort` when `hostNetwork` is true"))
    return errs


def _security_context(sc: Any, path: str) -> list[FieldError]:
    """`validatePodSpecSecurityContext`'s ID ranges."""
    errs: list[FieldError] = []
    sc = as_dict(sc)
    for key in ("fsGroup", "runAsUser", "runAsGroup"):
        n = integer(sc.get(key))
        if n is not None and not 0 <= n <= MAX_INT32:
            errs.append(field_invalid(f"{path}.{key}", n, f"must be between 0 and {MAX_INT32}, inclusive"))
    for i, g in enumerate(as_list(sc.get("supplementalGroups"))):
        n = integer(g)
        if n is not None and not 0 <= n <= MAX_INT32:
            errs.append(field_invalid(f"{path}.supplementalGroups[{i}]", n,
                                      f"must be between 0 and {MAX_INT32}, inclusive"))
    return errs


def validate_pod_spec(spec: Any, path: str, *, is_pod: bool = False) -> list[FieldError]:
    """`ValidatePodSpec`."""
    spec = as_dict(spec)
    errs: list[FieldError] = []
    if integer(spec.get("terminationGracePeriodSeconds")) is None:
        errs.append(field_required(f"{path}.terminationGracePeriodSeconds"))
    volumes, verrs = validate_volumes(spec.get("volumes"), f"{path}.volumes")
    errs += verrs
    errs += ctr.validate_containers(spec.get("containers"), volumes, f"{path}.containers")
    errs += ctr.validate_init_containers(spec.get("initContainers"), spec.get("containers"), volumes,
                                         f"{path}.initContainers")
    errs += ctr.validate_ephemeral_names(spec.get("ephemeralContainers"), spec.get("containers"),
                                         spec.get("initContainers"), f"{path}.ephemeralContainers")
    errs += _host_network_ports(spec, path, is_pod=is_pod)
    errs += _enum(spec.get("restartPolicy"), f"{path}.restartPolicy", RESTART_POLICIES)
    errs += _enum(spec.get("dnsPolicy"), f"{path}.dnsPolicy", DNS_POLICIES)
    errs += validate_labels(as_dict(spec.get("nodeSelector")), f"{path}.nodeSelector")
    errs += _security_context(spec.get("securityContext"), f"{path}.securityContext")
    errs += validate_affinity(spec.get("affinity"), f"{path}.affinity")
    if spec.get("dnsPolicy") == "None":
        dns = spec.get("dnsConfig")
        if not isinstance(dns, dict):
            errs.append(field_required(f"{path}.dnsConfig", "must provide `dnsConfig` when `dnsPolicy` is None"))
        elif not as_list(dns.get("nameservers")):
            errs.append(field_required(f"{path}.dnsConfig.nameservers",
                                       "must provide at least one DNS nameserver when `dnsPolicy` is None"))
    errs += _name_errors(spec.get("serviceAccountName"), f"{path}.serviceAccountName", is_dns1123_subdomain)
    errs += _name_errors(spec.get("nodeName"), f"{path}.nodeName", is_dns1123_subdomain)
    deadline = integer(spec.get("activeDeadlineSeconds"))
    if deadline is not None and not 1 <= deadline <= MAX_INT32:
        errs.append(field_invalid(f"{path}.activeDeadlineSeconds", deadline,
                                  f"must be between 1 and {MAX_INT32}, inclusive"))
    errs += _name_errors(spec.get("hostname"), f"{path}.hostname", is_dns1123_label)
    errs += _name_errors(spec.get("subdomain"), f"{path}.subdomain", is_dns1123_label)
    errs += validate_tolerations(spec.get("tolerations"), f"{path}.tolerations")
    errs += _name_errors(spec.get("priorityClassName"), f"{path}.priorityClassName", is_dns1123_subdomain)
    if isinstance(spec.get("runtimeClassName"), str):
        errs += [field_invalid(f"{path}.runtimeClassName", spec["runtimeClassName"], m)
                 for m in is_dns1123_subdomain(spec["runtimeClassName"])]
    if spec.get("preemptionPolicy") is not None:
        errs += _enum(spec.get("preemptionPolicy"), f"{path}.preemptionPolicy", PREEMPTION_POLICIES)
    return errs


def validate_pod(spec: Any, path: str = "spec") -> list[FieldError]:
    """`validatePodMetadataAndSpec`'s spec part: `ValidatePodSpec` for a pod, then `validateContainersOnlyForPod`."""
    spec = as_dict(spec)
    return (validate_pod_spec(spec, path, is_pod=True)
            + ctr.containers_only_for_pod(spec.get("containers"), f"{path}.containers")
            + ctr.containers_only_for_pod(spec.get("initContainers"), f"{path}.initContainers"))


def validate_pod_template_spec(template: Any, path: str) -> list[FieldError]:
    """`ValidatePodTemplateSpec`: the template's labels and annotations (upstream's paths lack `metadata`),
    its spec, and no ephemeral containers."""
    template = as_dict(template)
    meta = as_dict(template.get("metadata"))
    errs = validate_labels(as_dict(meta.get("labels")), f"{path}.labels")
    for key in as_dict(meta.get("annotations")):
        errs += [field_invalid(f"{path}.annotations", key, m) for m in is_qualified_name(str(key).lower())]
    spec = as_dict(template.get("spec"))
    errs += validate_pod_spec(spec, f"{path}.spec")
    if as_list(spec.get("ephemeralContainers")):
        errs.append(field_forbidden(f"{path}.spec.ephemeralContainers",
                                    "ephemeral containers not allowed in pod template"))
    return errs
