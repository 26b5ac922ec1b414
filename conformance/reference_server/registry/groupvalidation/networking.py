"""`pkg/apis/networking/validation/validation.go` (1.33): `ValidateIngressCreate`/`ValidateIngressUpdate`
(`ValidateIngressSpec`: rules with wildcard or DNS hosts and never IPs, HTTP paths by pathType, backends,
TLS hosts and secret names, ingressClassName; the `kubernetes.io/ingress.class` annotation on create),
`ValidateIngressClass` (`validateIngressClassSpec`, `validateIngressClassParametersReference`) and
`ValidateNetworkPolicySpec` (ports, peers, ipBlock, policyTypes).

An update keeps what the stored object already had: an invalid TLS secret name, an invalid rule under a wildcard
host (`allowInvalidSecretName`, `allowInvalidWildcardHostRule`) and the CIDRs of a NetworkPolicy's old ipBlocks.
"""
from __future__ import annotations

from typing import Any

import re

from ...apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ...goport.gofmt import sharp_v_strings
from ..shapes import as_dict, as_list
from ..status_validation import parse_ip_sloppy
from ..validation import (is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_path_segment_name,
                          is_valid_port_name, is_valid_port_num)
from .formats import cidr_errors, domain_prefixed_path, is_wildcard_dns1123_subdomain, parse_cidr_sloppy

PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")
_INVALID_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
_INVALID_SUFFIXES = ("/..", "/.")
INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"
PARAMETER_SCOPES = ("Cluster", "Namespace")
PROTOCOLS = ("TCP", "UDP", "SCTP")
POLICY_TYPES = ("Ingress", "Egress")


# ---- Ingress --------------------------------------------------------------------------------------------
def _typed_reference(ref: dict[str, Any], path: str) -> list[FieldError]:
    """`validateIngressTypedLocalObjectReference` (a resource backend)."""
    errs: list[FieldError] = []
    group = ref.get("apiGroup")
    if isinstance(group, str):
        errs += [field_invalid(f"{path}.apiGroup", group, m) for m in is_dns1123_subdomain(group)]
    for key in ("kind", "name"):
        value = ref.get(key) or ""
        if not value:
            errs.append(field_required(f"{path}.{key}"))
        else:
            errs += [field_invalid(f"{path}.{key}", value, m) for m in is_path_segment_name(str(value))]
    return errs


def backend_errors(backend: dict[str, Any], path: str) -> list[FieldError]:
    """`validateIngressBackend`: exactly one of service/resource; a service has a DNS-1035 name and a port name
    or number."""
    service, resource = backend.get("service"), backend.get("resource")
    if service is not None and resource is not None:
        return [field_invalid(path, "", "cannot set both resource and service backends")]
    if resource is not None:
        return _typed_reference(as_dict(resource), f"{path}.resource")
    if service is None:
        return [field_invalid(path, "", "resource or service backend is required")]
    svc = as_dict(service)
    errs: list[FieldError] = []
    name = svc.get("name") or ""
    if not name:
        errs.append(field_required(f"{path}.service.name"))
    else:
        errs += [field_invalid(f"{path}.service.name", name, m) for m in is_dns1035_label(str(name))]
    port = as_dict(svc.get("port"))
    pname, pnum = port.get("name") or "", port.get("number") or 0
    if pname and pnum:
        errs.append(field_invalid(path, "", "cannot set both port name & port number"))
    elif pname:
        errs += [field_invalid(f"{path}.service.port.name", pname, m) for m in is_valid_port_name(str(pname))]
    elif pnum:
        errs += [field_invalid(f"{path}.service.port.number", pnum, m) for m in is_valid_port_num(pnum)]
    else:
        errs.append(field_required(path, "port name or number is required"))
    return errs


def http_path_errors(p: dict[str, Any], path: str) -> list[FieldError]:
    """`validateHTTPIngressPath`."""
    ptype = p.get("pathType")
    if ptype is None:
        return [field_required(f"{path}.pathType", "pathType must be specified")]
    value = str(p.get("path") or "")
    errs: list[FieldError] = []
    if ptype in ("Exact", "Prefix"):
        if not value.startswith("/"):
            errs.append(field_invalid(f"{path}.path", value, "must be an absolute path"))
        if value:
            errs += [field_invalid(f"{path}.path", value, f"must not contain '{seq}'")
                     for seq in _INVALID_SEQUENCES if seq in value]
            errs += [field_invalid(f"{path}.path", value, f"cannot end with '{suffix}'")
                     for suffix in _INVALID_SUFFIXES if value.endswith(suffix)]
    elif ptype == "ImplementationSpecific":
        if value and not value.startswith("/"):
            errs.append(field_invalid(f"{path}.path", value, "must be an absolute path"))
    else:
        errs.append(field_not_supported(f"{path}.pathType", ptype, PATH_TYPES))
    return errs + backend_errors(as_dict(p.get("backend")), f"{path}.backend")


def _rule_value_errors(rule: dict[str, Any], path: str) -> list[FieldError]:
    """`validateIngressRuleValue` → `validateHTTPIngressRuleValue`."""
    http = rule.get("http")
    if http is None:
        return []
    paths = as_list(as_dict(http).get("paths"))
    errs = [field_required(f"{path}.http.paths")] if not paths else []
    for j, p in enumerate(paths):
        errs += http_path_errors(as_dict(p), f"{path}.http.paths[{j}]")
    return errs


def _host_errors(host: str, path: str) -> list[FieldError]:
    """A wildcard host is a wildcard subdomain, any other a subdomain."""
    check = is_wildcard_dns1123_subdomain if "*" in host else is_dns1123_subdomain
    return [field_invalid(path, host, m) for m in check(host)]


def _rules_errors(rules: list[Any], allow_invalid_wildcard: bool) -> list[FieldError]:
    """`validateIngressRules`: a host is never an IP address."""
    errs: list[FieldError] = []
    for i, rule in enumerate(rules):
        rule, path = as_dict(rule), f"spec.rules[{i}]"
        host = str(rule.get("host") or "")
        if host:
            if parse_ip_sloppy(host) is not None:
                errs.append(field_invalid(f"{path}.host", host, "must be a DNS name, not an IP address"))
            errs += _host_errors(host, f"{path}.host")
        if "*" not in host or not allow_invalid_wildcard:
            errs += _rule_value_errors(rule, path)
    return errs


def _secret_name_errors(name: str) -> list[str]:
    """`validateTLSSecretName`: empty is fine, else `ValidateSecretName` (a subdomain)."""
    return is_dns1123_subdomain(name) if name else []


def _tls_errors(tls: list[Any], allow_invalid_secret: bool) -> list[FieldError]:
    """`validateIngressTLS`."""
    errs: list[FieldError] = []
    for t, entry in enumerate(tls):
        entry = as_dict(entry)
        for i, host in enumerate(as_list(entry.get("hosts"))):
            errs += _host_errors(str(host), f"spec.tls[{t}].hosts[{i}]")
        if not allow_invalid_secret:
            name = str(entry.get("secretName") or "")
            errs += [field_invalid(f"spec.tls[{t}].secretName", name, m) for m in _secret_name_errors(name)]
    return errs


def _allow_invalid_secret(old: dict[str, Any] | None) -> bool:
    tls = as_list(as_dict(old.get("spec")).get("tls")) if old else []
    return any(_secret_name_errors(str(as_dict(t).get("secretName") or "")) for t in tls)


def _allow_invalid_wildcard(old: dict[str, Any] | None) -> bool:
    rules = as_list(as_dict(old.get("spec")).get("rules")) if old else []
    return any("*" in str(as_dict(r).get("host") or "") and _rule_value_errors(as_dict(r), "")
               for r in rules)


def _rules_shown(rules: Any) -> str:
    """`%#v` of an empty `[]networking.IngressRule`."""
    return "[]networking.IngressRule{}" if isinstance(rules, list) else "[]networking.IngressRule(nil)"


def ingress_spec_errors(spec: dict[str, Any], old: dict[str, Any] | None = None) -> list[FieldError]:
    """`ValidateIngressSpec` with the options `ValidateIngressCreate` (old None) or `ValidateIngressUpdate` set."""
    errs: list[FieldError] = []
    rules, default = spec.get("rules"), spec.get("defaultBackend")
    if not rules and default is None:
        errs.append(FieldError("FieldValueInvalid", "spec", f"Invalid value: {_rules_shown(rules)}: "
                                                            "either `defaultBackend` or `rules` must be specified"))
    if default is not None:
        errs += backend_errors(as_dict(default), "spec.defaultBackend")
    if rules:
        errs += _rules_errors(as_list(rules), _allow_invalid_wildcard(old))
    if as_list(spec.get("tls")):
        errs += _tls_errors(as_list(spec.get("tls")), _allow_invalid_secret(old))
    cls = spec.get("ingressClassName")
    if isinstance(cls, str):
        errs += [field_invalid("spec.ingressClassName", cls, m) for m in is_dns1123_subdomain(cls)]
    return errs


def ingress_create_errors(obj: dict[str, Any]) -> list[FieldError]:
    """`ValidateIngressCreate` after the metadata: the spec, then the class annotation against the field."""
    spec = as_dict(obj.get("spec"))
    errs = ingress_spec_errors(spec)
    annotations = as_dict(as_dict(obj.get("metadata")).get("annotations"))
    cls = spec.get("ingressClassName")
    annotated = annotations.get(INGRESS_CLASS_ANNOTATION)
    if annotated is not None and isinstance(cls, str) and annotated != cls:
        errs.append(field_invalid(f"annotations.{INGRESS_CLASS_ANNOTATION}", annotated,
                                  "must match `ingressClassName` when both are specified"))
    return errs


# ---- IngressClass ----------------------------------------------------------------------------------------
def _parameters_errors(params: dict[str, Any], path: str) -> list[FieldError]:
    """`validateIngressClassParametersReference`."""
    errs = _typed_reference(params, path)
    scope = params.get("scope")
    if scope is None:
        return errs + [field_required(f"{path}.scope")]
    if scope not in PARAMETER_SCOPES:
        return errs + [field_not_supported(f"{path}.scope", scope, PARAMETER_SCOPES)]
    namespace = params.get("namespace")
    if scope == "Namespace":
        if namespace is None:
            errs.append(field_required(f"{path}.namespace", "`parameters.scope` is set to 'Namespace'"))
        else:
            errs += [field_invalid(f"{path}.namespace", namespace, m) for m in is_dns1123_label(str(namespace))]
    if scope == "Cluster" and namespace is not None:
        errs.append(field_forbidden(f"{path}.namespace", "`parameters.scope` is set to 'Cluster'"))
    return errs


def ingress_class_spec_errors(spec: dict[str, Any]) -> list[FieldError]:
    """`validateIngressClassSpec`: a domain-prefixed controller of at most 250 bytes, then the parameters."""
    errs: list[FieldError] = []
    controller = str(spec.get("controller") or "")
    if not controller:
        errs.append(field_required("spec.controller"))
    else:
        if len(controller.encode()) > 250:
            errs.append(FieldError("FieldValueTooLong", "spec.controller", "Too long: may not be more than 250 bytes"))
        errs += domain_prefixed_path("spec.controller", controller)
    if spec.get("parameters") is not None:
        errs += _parameters_errors(as_dict(spec["parameters"]), "spec.parameters")
    return errs


# ---- NetworkPolicy ---------------------------------------------------------------------------------------
def _port_errors(port: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateNetworkPolicyPort`."""
    errs: list[FieldError] = []
    protocol = port.get("protocol")
    if protocol is not None and protocol not in PROTOCOLS:
        errs.append(field_not_supported(f"{path}.protocol", protocol, PROTOCOLS))
    value, end = port.get("port"), port.get("endPort")
    if value is None:
        if end is not None:
            errs.append(field_invalid(f"{path}.endPort", end, "may not be specified when `port` is not specified"))
    elif isinstance(value, int):
        errs += [field_invalid(f"{path}.port", value, m) for m in is_valid_port_num(value)]
        if end is not None:
            if isinstance(end, int) and end < value:
                errs.append(field_invalid(f"{path}.endPort", end, "must be greater than or equal to `port`"))
            errs += [field_invalid(f"{path}.endPort", end, m) for m in is_valid_port_num(end)]
    else:
        if end is not None:
            errs.append(field_invalid(f"{path}.endPort", end, "may not be specified when `port` is non-numeric"))
        errs += [field_invalid(f"{path}.port", value, m) for m in is_valid_port_name(str(value))]
    return errs


def _ip_block_errors(block: dict[str, Any], path: str, old_cidrs: tuple[str, ...]) -> list[FieldError]:
    """`ValidateIPBlock`: a CIDR, and each `except` a strict subset of it."""
    cidr = str(block.get("cidr") or "")
    if not cidr:
        return [field_required(f"{path}.cidr")]
    errs = cidr_errors(f"{path}.cidr", cidr, old_cidrs)
    net = parse_cidr_sloppy(cidr)
    if net is None:
        return errs
    for i, text in enumerate(as_list(block.get("except"))):
        text = str(text)
        errs += cidr_errors(f"{path}.except[{i}]", text, old_cidrs)
        sub = parse_cidr_sloppy(text)
        if sub is None:
            continue
        inside = sub.version == net.version and sub.network_address in net
        if not inside or net.prefixlen >= sub.prefixlen:
            errs.append(field_invalid(f"{path}.except[{i}]", text, "must be a strict subset of `cidr`"))
    return errs


_SELECTOR_VALUE = re.compile(r"\.matchExpressions\[\d+\]\.values\[\d+\]$")


def selector_errors(selector: Any, path: str, allow_invalid_values: bool = False) -> list[FieldError]:
    """`ValidateLabelSelector` with `AllowInvalidLabelValueInSelector`: the requirement values go unchecked."""
    from ..admissionregistration import validate_label_selector  # it imports workloads, which imports this

    errs = validate_label_selector(selector, path)
    return [e for e in errs if not _SELECTOR_VALUE.search(e.field)] if allow_invalid_values else errs


def _peer_errors(peer: dict[str, Any], path: str, old_cidrs: tuple[str, ...], relaxed: bool) -> list[FieldError]:
    """`ValidateNetworkPolicyPeer`: at least one peer; an ipBlock alone."""
    errs: list[FieldError] = []
    count = 0
    for key in ("podSelector", "namespaceSelector"):
        if peer.get(key) is not None:
            count += 1
            errs += selector_errors(peer[key], f"{path}.{key}", relaxed)
    if peer.get("ipBlock") is not None:
        count += 1
        errs += _ip_block_errors(as_dict(peer["ipBlock"]), f"{path}.ipBlock", old_cidrs)
    if count == 0:
        errs.append(field_required(path, "must specify a peer"))
    elif count > 1 and peer.get("ipBlock") is not None:
        errs.append(field_forbidden(path, "may not specify both ipBlock and another peer"))
    return errs


def _old_cidrs(old: dict[str, Any] | None) -> tuple[str, ...]:
    """`ValidateNetworkPolicyUpdate`: every cidr and except of the stored policy's ipBlocks."""
    spec = as_dict(old.get("spec")) if old else {}
    found: list[str] = []
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for rule in as_list(spec.get(direction)):
            for peer in as_list(as_dict(rule).get(peers)):
                block = as_dict(peer).get("ipBlock")
                if isinstance(block, dict):
                    found += [str(block.get("cidr") or "")] + [str(e) for e in as_list(block.get("except"))]
    return tuple(found)


def _policy_types_shown(types: list[Any]) -> str:
    """`%#v` of the `&spec.PolicyTypes` pointer field.Invalid dereferences: `[]networking.PolicyType{...}`."""
    return sharp_v_strings(types, "[]networking.PolicyType")


def network_policy_spec_errors(spec: dict[str, Any], old: dict[str, Any] | None = None) -> list[FieldError]:
    """`ValidateNetworkPolicySpec`: podSelector, each rule's ports then peers, policyTypes."""
    old_cidrs = _old_cidrs(old)
    # `ValidationOptionsForNetworking`: a stored podSelector that is invalid lets every selector's values through
    relaxed = bool(old) and bool(selector_errors(as_dict(as_dict(old).get("spec")).get("podSelector"), ""))
    errs = selector_errors(spec.get("podSelector"), "spec.podSelector", relaxed)
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(as_list(spec.get(direction))):
            rule, path = as_dict(rule), f"spec.{direction}[{i}]"
            for j, port in enumerate(as_list(rule.get("ports"))):
                errs += _port_errors(as_dict(port), f"{path}.ports[{j}]")
            for j, peer in enumerate(as_list(rule.get(peers))):
                errs += _peer_errors(as_dict(peer), f"{path}.{peers}[{j}]", old_cidrs, relaxed)
    types = as_list(spec.get("policyTypes"))
    if len(types) > len(POLICY_TYPES):
        return errs + [FieldError("FieldValueInvalid", "spec.policyTypes",
                                  f"Invalid value: {_policy_types_shown(types)}: may not specify more than two "
                                  "policyTypes")]
    for i, ptype in enumerate(types):
        if ptype not in POLICY_TYPES:
            errs.append(field_not_supported(f"spec.policyTypes[{i}]", ptype, POLICY_TYPES))
    return errs


# ---- Ingress status --------------------------------------------------------------------------------------
def ingress_status_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`ValidateIngressLoadBalancerStatus` (after the metadata, as `ValidateIngressStatusUpdate`): each ingress
    point's IP (sloppy; the stored IPs pass unchecked) and hostname (a subdomain, not an IP)."""
    from ..status_validation import ip_errors

    def points(obj: dict[str, Any]) -> list[Any]:
        return as_list(as_dict(as_dict(obj.get("status")).get("loadBalancer")).get("ingress"))

    old_ips = {str(as_dict(p).get("ip")) for p in points(old) if as_dict(p).get("ip")}
    errs: list[FieldError] = []
    for i, point in enumerate(points(new)):
        point, path = as_dict(point), f"status.loadBalancer.ingress[{i}]"
        ip, host = point.get("ip") or "", point.get("hostname") or ""
        if ip and str(ip) not in old_ips:
            errs += ip_errors(f"{path}.ip", ip, strict=False)
        if host:
            errs += [field_invalid(f"{path}.hostname", host, m) for m in is_dns1123_subdomain(str(host))]
            if parse_ip_sloppy(str(host)) is not None:
                errs.append(field_invalid(f"{path}.hostname", host, "must be a DNS name, not an IP address"))
    return errs
