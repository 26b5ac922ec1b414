"""`ValidatePodSpec` and `ValidatePodTemplateSpec` of `pkg/apis/core/validation/validation.go` (1.33), in their
order: terminationGracePeriodSeconds, volumes (volumes.py), containers, init containers, ephemeral containers
(containers.py), the hostNetwork ports, restartPolicy, dnsPolicy, nodeSelector, the pod security context
(security.py), affinity (affinity.py), `validatePodDNSConfig`, readiness and scheduling gates, topology spread
constraints (affinity.py), Windows hostProcess containers, hostUsers, serviceAccountName, nodeName,
activeDeadlineSeconds, hostname, subdomain, tolerations, `ValidateHostAliases`, priorityClassName,
runtimeClassName, preemptionPolicy, overhead, and `validateOS` with the Linux/Windows rules. A pod
(`validatePodMetadataAndSpec`) adds `validateContainersOnlyForPod`; a template checks its own labels and
annotations first and refuses ephemeral containers.

The pod's annotations and `ValidatePodCreate`'s own rules are podmeta.py's; `resourceClaims`, which 1.33's
strategies drop (DynamicResourceAllocation being off), are gone before validation (registry/podprepare.py).
"""
from __future__ import annotations

import re
from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ...goport.gofmt import go_quote, sharp_v_strings
from ...goport.gonet.strconv import to_bytes
from ..shapes import as_dict, as_list
from ..status_validation import ip_errors
from ..validation import (is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name,
                          max_len_error, regex_error, validate_annotations, validate_labels)
from . import containers as ctr
from . import security
from .affinity import has_invalid_required_values, validate_affinity, validate_topology_spread_constraints
from .fields import field_duplicate, integer
from .volumes import validate_volumes

RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
MAX_INT32 = 2147483647
_LABEL_UNDERSCORE = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_UNDERSCORE_FMT = _LABEL_UNDERSCORE + "(\\." + _LABEL_UNDERSCORE + ")*"
_SUBDOMAIN_UNDERSCORE = re.compile("^" + _SUBDOMAIN_UNDERSCORE_FMT + "$")


def _name_errors(value: Any, path: str, rule: Any) -> list[FieldError]:
    return [field_invalid(path, value, m) for m in rule(str(value))] if value else []


def toleration_struct(t: dict[str, Any]) -> str:
    """Go's `%#v` of a `core.Toleration` (a set tolerationSeconds is a pointer: its address is unknowable)."""
    seconds = "(*int64)(nil)" if t.get("tolerationSeconds") is None else "(*int64)(0xc000000000)"
    key, op, value, effect = (go_quote(str(t.get(k) or "")) for k in ("key", "operator", "value", "effect"))
    return (f"core.Toleration{{Key:{key}, Operator:{op}, Value:{value}, Effect:{effect}, "
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
                                       f"Invalid value: {toleration_struct(t)}: value must be empty when "
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


def _subdomain_with_underscore(value: str) -> list[str]:
    """apimachinery's `IsDNS1123SubdomainWithUnderscore`."""
    errs = [max_len_error(253)] if len(to_bytes(value)) > 253 else []  # (bytes, as Go's len)
    if not _SUBDOMAIN_UNDERSCORE.match(value):
        errs.append(regex_error("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                                "'_', '-' or '.', and must start and end with an alphanumeric character",
                                _SUBDOMAIN_UNDERSCORE_FMT, "example.com"))
    return errs


def _dns_config(spec: dict[str, Any], path: str) -> list[FieldError]:
    """`validatePodDNSConfig`."""
    dns = spec.get("dnsConfig")
    if spec.get("dnsPolicy") == "None":
        if not isinstance(dns, dict):
            return [field_required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not as_list(dns.get("nameservers")):
            return [field_required(f"{path}.nameservers", "must provide at least one DNS nameserver when `dnsPolicy` "
                                                         "is None")]
    if not isinstance(dns, dict):
        return []
    errs: list[FieldError] = []
    servers, searches = [str(n) for n in as_list(dns.get("nameservers"))], [str(n) for n in as_list(dns.get("searches"))]
    if len(servers) > 3:
        errs.append(FieldError("FieldValueInvalid", f"{path}.nameservers", f"Invalid value: "
                               f"{sharp_v_strings(servers)}: must not have more than 3 nameservers"))
    for i, server in enumerate(servers):
        errs += ip_errors(f"{path}.nameservers[{i}]", server, strict=False)
    if len(searches) > 32:
        errs.append(FieldError("FieldValueInvalid", f"{path}.searches", f"Invalid value: "
                               f"{sharp_v_strings(searches)}: must not have more than 32 search paths"))
    if len(to_bytes(" ".join(searches))) > 2048:  # Go's len: bytes
        errs.append(FieldError("FieldValueInvalid", f"{path}.searches", f"Invalid value: "
                               f"{sharp_v_strings(searches)}: must not have more than 2048 characters (including "
                               "spaces) in the search list"))
    for i, search in enumerate(searches):
        if search != ".":  # 1.33's RelaxedDNSSearchValidation: underscores, a lone "."
            errs += [field_invalid(f"{path}.searches[{i}]", search.removesuffix("."), m)
                     for m in _subdomain_with_underscore(search.removesuffix("."))]
    for i, option in enumerate(as_dict(o) for o in as_list(dns.get("options"))):
        if not option.get("name"):
            errs.append(field_required(f"{path}.options[{i}]", "must not be empty"))
    return errs


def _gates(spec: dict[str, Any], path: str) -> list[FieldError]:
    """`validateReadinessGates` and `validateSchedulingGates`."""
    errs: list[FieldError] = []
    if not spec.get("readinessGates") and not spec.get("schedulingGates"):
        return errs
    for i, gate in enumerate(as_dict(g) for g in as_list(spec.get("readinessGates"))):
        kind = str(gate.get("conditionType") or "")
        errs += [field_invalid(f"{path}.readinessGates[{i}].conditionType", kind, m) for m in is_qualified_name(kind)]
    seen: set[str] = set()
    for i, gate in enumerate(as_dict(g) for g in as_list(spec.get("schedulingGates"))):
        name = str(gate.get("name") or "")
        errs += [field_invalid(f"{path}.schedulingGates[{i}]", name, m) for m in is_qualified_name(name)]
        if name in seen:
            errs.append(field_duplicate(f"{path}.schedulingGates[{i}]", name))
        seen.add(name)
    return errs


def _host_aliases(aliases: Any, path: str) -> list[FieldError]:
    """`ValidateHostAliases`."""
    errs: list[FieldError] = []
    for i, alias in enumerate(as_dict(a) for a in as_list(aliases)):
        errs += ip_errors(f"{path}[{i}].ip", str(alias.get("ip") or ""), strict=False)
        for j, name in enumerate(as_list(alias.get("hostnames"))):
            errs += [field_invalid(f"{path}[{i}].hostnames[{j}]", name, m) for m in is_dns1123_subdomain(str(name))]
    return errs


def validate_pod_spec(spec: Any, path: str, *, is_pod: bool = False, pod_name: str = "",
                      old_spec: Any = None) -> list[FieldError]:
    """`ValidatePodSpec`; `pod_name` is a pod's own name (upstream's `podMeta`, nil for a template), which the
    ephemeral volumes' claim names are made of; `old_spec` an update's old spec (the options it relaxes)."""
    spec = as_dict(spec)
    errs: list[FieldError] = []
    if integer(spec.get("terminationGracePeriodSeconds")) is None:
        errs.append(field_required(f"{path}.terminationGracePeriodSeconds"))
    volumes, verrs = validate_volumes(spec.get("volumes"), f"{path}.volumes", pod_name)
    errs += verrs
    pod = ctr.PodContext.of(spec)
    errs += ctr.validate_containers(spec.get("containers"), volumes, pod, f"{path}.containers")
    errs += ctr.validate_init_containers(spec.get("initContainers"), spec.get("containers"), volumes, pod,
                                         f"{path}.initContainers")
    errs += ctr.validate_ephemeral_containers(spec.get("ephemeralContainers"), spec.get("containers"),
                                              spec.get("initContainers"), volumes, pod, f"{path}.ephemeralContainers")
    errs += _host_network_ports(spec, path, is_pod=is_pod)
    errs += _enum(spec.get("restartPolicy"), f"{path}.restartPolicy", RESTART_POLICIES)
    errs += _enum(spec.get("dnsPolicy"), f"{path}.dnsPolicy", DNS_POLICIES)
    errs += validate_labels(as_dict(spec.get("nodeSelector")), f"{path}.nodeSelector")
    errs += security.pod_security_context(spec, path)
    errs += validate_affinity(spec.get("affinity"), f"{path}.affinity",
                              allow_invalid_required_values=has_invalid_required_values(old_spec))
    errs += _dns_config(spec, f"{path}.dnsConfig")
    errs += _gates(spec, path)
    errs += validate_topology_spread_constraints(spec.get("topologySpreadConstraints"),
                                                 f"{path}.topologySpreadConstraints")
    errs += security.windows_host_process(spec, path)
    errs += security.host_users(spec, path)
    errs += _name_errors(spec.get("serviceAccountName"), f"{path}.serviceAccountName", is_dns1123_subdomain)
    errs += _name_errors(spec.get("nodeName"), f"{path}.nodeName", is_dns1123_subdomain)
    deadline = integer(spec.get("activeDeadlineSeconds"))
    if deadline is not None and not 1 <= deadline <= MAX_INT32:
        errs.append(field_invalid(f"{path}.activeDeadlineSeconds", deadline,
                                  f"must be between 1 and {MAX_INT32}, inclusive"))
    errs += _name_errors(spec.get("hostname"), f"{path}.hostname", is_dns1123_label)
    errs += _name_errors(spec.get("subdomain"), f"{path}.subdomain", is_dns1123_label)
    errs += validate_tolerations(spec.get("tolerations"), f"{path}.tolerations")
    errs += _host_aliases(spec.get("hostAliases"), f"{path}.hostAliases")
    errs += _name_errors(spec.get("priorityClassName"), f"{path}.priorityClassName", is_dns1123_subdomain)
    if isinstance(spec.get("runtimeClassName"), str):
        errs += [field_invalid(f"{path}.runtimeClassName", spec["runtimeClassName"], m)
                 for m in is_dns1123_subdomain(spec["runtimeClassName"])]
    if spec.get("preemptionPolicy") is not None:
        errs += _enum(spec.get("preemptionPolicy"), f"{path}.preemptionPolicy", PREEMPTION_POLICIES)
    if isinstance(spec.get("overhead"), dict):  # `validateOverhead`
        errs += ctr.validate_resources({"limits": spec["overhead"]}, f"{path}.overhead")
    return errs + security.validate_os(spec, path)


def validate_pod(spec: Any, path: str = "spec", pod_name: str = "", old_spec: Any = None) -> list[FieldError]:
    """`validatePodMetadataAndSpec`'s spec part: `ValidatePodSpec` for a pod, then `validateContainersOnlyForPod`."""
    spec = as_dict(spec)
    return (validate_pod_spec(spec, path, is_pod=True, pod_name=pod_name, old_spec=old_spec)
            + ctr.containers_only_for_pod(spec.get("containers"), f"{path}.containers")
            + ctr.containers_only_for_pod(spec.get("initContainers"), f"{path}.initContainers"))


def validate_pod_template_spec(template: Any, path: str, old_template: Any = None) -> list[FieldError]:
    """`ValidatePodTemplateSpec`: the template's labels and annotations (upstream's paths lack `metadata`),
    its spec, and no ephemeral containers; `old_template` is an update's stored template, whose spec relaxes the
    options as every pod-template strategy's `GetValidationOptionsFromPodTemplate(new, old)` does."""
    template = as_dict(template)
    meta = as_dict(template.get("metadata"))
    errs = validate_labels(as_dict(meta.get("labels")), f"{path}.labels")
    errs += validate_annotations(as_dict(meta.get("annotations")), f"{path}.annotations")
    spec = as_dict(template.get("spec"))
    errs += validate_pod_spec(spec, f"{path}.spec", old_spec=as_dict(old_template).get("spec"))
    if as_list(spec.get("ephemeralContainers")):
        errs.append(field_forbidden(f"{path}.spec.ephemeralContainers",
                                    "ephemeral containers not allowed in pod template"))
    return errs
