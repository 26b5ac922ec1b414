"""registry/groupvalidation/: the storage-only group kinds and a ResourceQuota's scopes refused as kube-apiserver 1.33
refuses them (422 `Invalid`, upstream's field paths, values and messages, in upstream's order): Ingress hosts
(wildcards, never IPs), paths, backends, TLS and the class annotation; IngressClass controllers and parameters;
NetworkPolicy ports, peers, ipBlocks and policyTypes; EndpointSlice addresses, ports and hints; Lease durations;
StorageClass provisioners, parameters and topologies; CSIDriver names; quota scopes and scope selectors."""
from __future__ import annotations

import copy
from typing import Any, Callable

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.registry import Registry
from conformance.reference_server.registry.groupvalidation.networking import ingress_spec_errors
from conformance.reference_server.registry.validation import regex_error
from conformance.reference_server.storage import MemoryStore
from tests.reference_server.conftest import status_of
from tests.reference_server.registry.test_podwarnings import _header, _warnings

NS = "gv"
SUBDOMAIN = regex_error("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                        "'.', and must start and end with an alphanumeric character",
                        r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", "example.com")
WILDCARD = regex_error("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which "
                       "must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric "
                       "character", r"\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
                       "*.example.com")
NAME_PART = ("name part " + regex_error("must consist of alphanumeric characters, '-', '_' or '.', and must start "
                                        "and end with an alphanumeric character", "([A-Za-z0-9][-A-Za-z0-9_.]*)?"
                                        "[A-Za-z0-9]", "MyName", "my.name", "123-abc"))
BACKEND = {"service": {"name": "web", "port": {"number": 80}}}
CIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


@pytest.fixture
def reg() -> Registry:
    registry = Registry(MemoryStore())
    registry.namespaces.create({"metadata": {"name": NS}})
    return registry


def refused(call: Callable[[], Any]) -> list[str]:
    """The causes of the 422 `call` raises, as `field: message`."""
    with pytest.raises(StatusError) as exc:
        call()
    assert exc.value.code == 422 and exc.value.status["reason"] == "Invalid", exc.value.status
    return [f'{c["field"]}: {c["message"]}' for c in exc.value.status["details"]["causes"]]


def create(reg: Registry, group: str, plural: str, body: dict[str, Any], name: str = "x") -> dict[str, Any]:
    store = reg.group(group, plural)
    assert store is not None
    meta = {"name": name, **({"namespace": NS} if store.info.namespaced else {})}
    obj = {**body, "metadata": {**meta, **body.get("metadata", {})}}
    store.strategy.default(obj)
    return store.create(obj)


def ingress(reg: Registry, spec: dict[str, Any], **meta: Any) -> dict[str, Any]:
    return create(reg, "networking.k8s.io", "ingresses", {"spec": spec, "metadata": meta})


def rule(host: str = "", path: str = "/", path_type: str = "Prefix", backend: Any = None) -> dict[str, Any]:
    value = {"http": {"paths": [{"path": path, "pathType": path_type, "backend": backend or BACKEND}]}}
    return {**value, **({"host": host} if host else {})}


# ---- Ingress ---------------------------------------------------------------------------------------------
def test_ingress_wildcard_hosts_pass_and_bad_ones_fail(reg):
    assert ingress(reg, {"rules": [rule("*.example.com")], "tls": [{"hosts": ["*.example.com"]}]})
    assert refused(lambda: ingress(reg, {"rules": [rule("*")], "tls": [{"hosts": ["a*.example.com"]}]})) == [
        f'spec.rules[0].host: Invalid value: "*": {WILDCARD}',
        f'spec.tls[0].hosts[0]: Invalid value: "a*.example.com": {WILDCARD}']


@pytest.mark.parametrize("host, messages", [
    ("10.1.2.3", ['spec.rules[0].host: Invalid value: "10.1.2.3": must be a DNS name, not an IP address']),
    ("::1", ['spec.rules[0].host: Invalid value: "::1": must be a DNS name, not an IP address',
             f'spec.rules[0].host: Invalid value: "::1": {SUBDOMAIN}']),
])
def test_ingress_ip_hosts_are_refused(reg, host, messages):
    assert refused(lambda: ingress(reg, {"rules": [rule(host)]})) == messages


@pytest.mark.parametrize("path, path_type, messages", [
    ("/a//b", "Exact", ["must not contain '//'"]),
    ("/a/..", "Prefix", ["cannot end with '/..'"]),
    ("/a/%2F/./b", "Prefix", ["must not contain '/./'", "must not contain '%2F'"]),
    ("a", "ImplementationSpecific", ["must be an absolute path"]),
])
def test_ingress_path_rules(reg, path, path_type, messages):
    body = {"rules": [rule(path=path, path_type=path_type)]}
    assert refused(lambda: ingress(reg, body)) == [
        f'spec.rules[0].http.paths[0].path: Invalid value: "{path}": {m}' for m in messages]


def test_ingress_implementation_specific_path_may_be_empty_and_wildcard_rule_values_are_checked(reg):
    assert ingress(reg, {"rules": [rule(path="", path_type="ImplementationSpecific")]})
    assert refused(lambda: ingress(reg, {"rules": [rule("*.a.com", path="x", path_type="Exact")]})) == [
        'spec.rules[0].http.paths[0].path: Invalid value: "x": must be an absolute path']


def test_ingress_backends(reg):
    resource = {"resource": {"apiGroup": "Example.com", "kind": "a/b", "name": ".."}}
    assert refused(lambda: ingress(reg, {"defaultBackend": resource})) == [
        f'spec.defaultBackend.resource.apiGroup: Invalid value: "Example.com": {SUBDOMAIN}',
        "spec.defaultBackend.resource.kind: Invalid value: \"a/b\": may not contain '/'",
        "spec.defaultBackend.resource.name: Invalid value: \"..\": may not be '..'"]
    named = {"service": {"name": "web", "port": {"name": "HTTP--"}}}
    assert refused(lambda: ingress(reg, {"defaultBackend": named})) == [
        f'spec.defaultBackend.service.port.name: Invalid value: "HTTP--": {m}' for m in (
            "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
            "must contain at least one letter (a-z)", "must not contain consecutive hyphens",
            "must not begin or end with a hyphen")]
    both = {**BACKEND, **resource}
    assert refused(lambda: ingress(reg, {"defaultBackend": both})) == [
        'spec.defaultBackend: Invalid value: "": cannot set both resource and service backends']


def test_ingress_tls_secret_and_class_annotation(reg):
    spec = {"defaultBackend": BACKEND, "tls": [{"secretName": "Bad_Name"}], "ingressClassName": "nginx"}
    assert refused(lambda: ingress(reg, spec, annotations={"kubernetes.io/ingress.class": "other"})) == [
        f'spec.tls[0].secretName: Invalid value: "Bad_Name": {SUBDOMAIN}',
        'annotations.kubernetes.io/ingress.class: Invalid value: "other": must match `ingressClassName` when both '
        "are specified"]


def test_ingress_update_keeps_what_the_stored_object_had():
    """`allowInvalidSecretName` / `allowInvalidWildcardHostRule`: an object stored before the rules keeps them."""
    spec = {"rules": [rule("*.a.com", path="x", path_type="Exact")], "tls": [{"secretName": "Bad_Name"}]}
    assert [e.field for e in ingress_spec_errors(spec)] == ["spec.rules[0].http.paths[0].path",
                                                            "spec.tls[0].secretName"]
    assert ingress_spec_errors(spec, {"spec": spec}) == []


# ---- IngressClass ----------------------------------------------------------------------------------------
def ingress_class(reg: Registry, spec: dict[str, Any]) -> dict[str, Any]:
    return create(reg, "networking.k8s.io", "ingressclasses", {"spec": spec})


def test_ingress_class_controller_is_a_domain_prefixed_path(reg):
    assert refused(lambda: ingress_class(reg, {"controller": "nginx"})) == [
        'spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']
    assert refused(lambda: ingress_class(reg, {"controller": "Example.com/a b"})) == [
        f'spec.controller: Invalid value: "Example.com": {SUBDOMAIN}',
        'spec.controller: Invalid value: "a b": Invalid path (regex used for validation is '
        "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"]


def test_ingress_class_parameters(reg):
    params = {"apiGroup": "k8s.example.com", "kind": "a%b", "name": "p", "scope": "Namespace", "namespace": "Bad_ns"}
    causes = refused(lambda: ingress_class(reg, {"controller": "example.com/c", "parameters": params}))
    assert causes[0] == "spec.parameters.kind: Invalid value: \"a%b\": may not contain '%'"
    assert causes[1].startswith('spec.parameters.namespace: Invalid value: "Bad_ns": a lowercase RFC 1123 label')


# ---- NetworkPolicy ---------------------------------------------------------------------------------------
def policy(reg: Registry, spec: dict[str, Any]) -> dict[str, Any]:
    return create(reg, "networking.k8s.io", "networkpolicies", {"spec": spec})


def test_network_policy_ports(reg):
    ports = [{"port": 80, "endPort": 70}, {"port": "http", "endPort": 90}, {"endPort": 5},
             {"protocol": "ICMP", "port": 0}, {"port": "Web_"}]
    assert refused(lambda: policy(reg, {"podSelector": {}, "ingress": [{"ports": ports}]})) == [
        "spec.ingress[0].ports[0].endPort: Invalid value: 70: must be greater than or equal to `port`",
        "spec.ingress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` is non-numeric",
        "spec.ingress[0].ports[2].endPort: Invalid value: 5: may not be specified when `port` is not specified",
        'spec.ingress[0].ports[3].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
        "spec.ingress[0].ports[3].port: Invalid value: 0: must be between 1 and 65535, inclusive",
        'spec.ingress[0].ports[4].port: Invalid value: "Web_": must contain only alpha-numeric characters '
        "(a-z, 0-9), and hyphens (-)"]


def test_network_policy_peers_and_ip_blocks(reg):
    peers = [{}, {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["11.0.0.0/16", "10.0.0.0/8", "x"]},
                  "podSelector": {}}, {"ipBlock": {"cidr": "300.0.0.0/8"}}, {"ipBlock": {"cidr": ""}}]
    assert refused(lambda: policy(reg, {"podSelector": {}, "egress": [{"to": peers}]})) == [
        "spec.egress[0].to[0]: Required value: must specify a peer",
        'spec.egress[0].to[1].ipBlock.except[0]: Invalid value: "11.0.0.0/16": must be a strict subset of `cidr`',
        'spec.egress[0].to[1].ipBlock.except[1]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`',
        f'spec.egress[0].to[1].ipBlock.except[2]: Invalid value: "x": {CIDR}',
        "spec.egress[0].to[1]: Forbidden: may not specify both ipBlock and another peer",
        f'spec.egress[0].to[2].ipBlock.cidr: Invalid value: "300.0.0.0/8": {CIDR}',
        "spec.egress[0].to[3].ipBlock.cidr: Required value"]
    # a sloppy CIDR (host bits set) is accepted, as ParseCIDRSloppy does
    assert policy(reg, {"podSelector": {}, "egress": [{"to": [{"ipBlock": {"cidr": "10.1.2.3/8",
                                                                             "except": ["10.1.0.0/16"]}}]}]})


def test_network_policy_types_and_selector(reg):
    assert refused(lambda: policy(reg, {"podSelector": {}, "policyTypes": ["Ingress", "Egress", "Ingress"]})) == [
        'spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not '
        "specify more than two policyTypes"]
    assert refused(lambda: policy(reg, {"podSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]},
                                        "policyTypes": ["Bogus"]})) == [
        "spec.podSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' "
        "or 'NotIn'",
        'spec.policyTypes[0]: Unsupported value: "Bogus": supported values: "Ingress", "Egress"']


# ---- EndpointSlice ---------------------------------------------------------------------------------------
def slice_(reg: Registry, body: dict[str, Any]) -> dict[str, Any]:
    return create(reg, "discovery.k8s.io", "endpointslices", body)


def test_endpoint_slice_addresses_by_type(reg):
    eps = [{"addresses": ["10.0.0.1", "::1", "127.0.0.1", "x"]}]
    assert refused(lambda: slice_(reg, {"addressType": "IPv4", "endpoints": eps})) == [
        'endpoints[0].addresses[1]: Invalid value: "::1": must be an IPv4 address',
        'endpoints[0].addresses[1]: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
        'endpoints[0].addresses[2]: Invalid value: "127.0.0.1": may not be in the loopback range '
        "(127.0.0.0/8, ::1/128)",
        'endpoints[0].addresses[3]: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or '
        "2001:db8::ffff)"]
    assert refused(lambda: slice_(reg, {"addressType": "FQDN", "endpoints": [{"addresses": ["a.example.com.",
                                                                                            "foo"]}]})) == [
        'endpoints[0].addresses[1]: Invalid value: "foo": should be a domain with at least two segments separated '
        "by dots"]
    assert refused(lambda: slice_(reg, {})) == ["addressType: Required value"]


def test_endpoint_slice_endpoint_fields_and_ports(reg):
    eps = [{"addresses": ["10.0.0.1"], "nodeName": "Node_1", "hostname": "a.b",
            "hints": {"forZones": [{"name": "z"}, {"name": "z"}]}}]
    ports = [{"name": "http", "protocol": "TCP"}, {"name": "http", "protocol": "ICMP", "appProtocol": "a/b/c"}]
    causes = refused(lambda: slice_(reg, {"addressType": "IPv4", "endpoints": eps, "ports": ports}))
    assert causes[0] == f'endpoints[0].nodeName: Invalid value: "Node_1": {SUBDOMAIN}'
    assert causes[1:5] == [
        'endpoints[0].hostname: Invalid value: "a.b": must not contain dots',
        'endpoints[0].hints.forZones[1].name: Duplicate value: "z"',
        'ports[1].name: Duplicate value: "http"',
        'ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"']
    assert causes[5].startswith('ports[1].appProtocol: Invalid value: "a/b/c": a qualified name must consist')


def test_endpoint_slice_limits_and_defaults(reg):
    many = [{"addresses": ["10.0.0.1"]}] * 1001
    assert refused(lambda: slice_(reg, {"addressType": "IPv4", "endpoints": many})) == [
        "endpoints: Too many: 1001: must have at most 1000 items"]
    created = slice_(reg, {"addressType": "IPv4", "ports": [{"port": 80}]})
    assert created["ports"] == [{"port": 80, "name": "", "protocol": "TCP"}]


def test_endpoint_slice_address_type_immutable(reg):
    store = reg.group("discovery.k8s.io", "endpointslices")
    created = slice_(reg, {"addressType": "IPv4"})
    created["addressType"] = "IPv6"
    assert refused(lambda: store.update(NS, "x", created)) == [
        'addressType: Invalid value: "IPv6": field is immutable']


# ---- Lease -----------------------------------------------------------------------------------------------
def test_lease_spec(reg):
    lease = lambda spec: create(reg, "coordination.k8s.io", "leases", {"spec": spec})  # noqa: E731
    assert refused(lambda: lease({"leaseDurationSeconds": 0, "leaseTransitions": -1})) == [
        "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
        "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"]
    # the CoordinatedLeaderElection fields are dropped (gate off in 1.33), so never judged
    created = lease({"holderIdentity": "me", "preferredHolder": "you", "strategy": "Bogus"})
    assert created["spec"] == {"holderIdentity": "me"}


# ---- storage.k8s.io --------------------------------------------------------------------------------------
def test_storage_class_provisioner_parameters_and_topologies(reg):
    sc = lambda **body: create(reg, "storage.k8s.io", "storageclasses", body)  # noqa: E731
    assert refused(lambda: sc(provisioner="Example.com/Disk!")) == [
        f'provisioner: Invalid value: "example.com/disk!": {NAME_PART}']
    assert refused(lambda: sc(provisioner="example.com/disk", parameters={"": "x", "a": "b" * 262144})) == [
        'parameters: Invalid value: "": field can not be empty.',
        "parameters: Too long: may not be more than 262144 bytes"]
    terms = [{"matchLabelExpressions": [{"key": "zone", "values": ["a", "a"]}, {"key": "zone", "values": []}]},
             {"matchLabelExpressions": [{"key": "zone", "values": ["b"]}]},
             {"matchLabelExpressions": [{"key": "zone", "values": ["b"]}]}]
    assert refused(lambda: sc(provisioner="example.com/disk", allowedTopologies=terms)) == [
        'allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: "a"',
        "allowedTopologies[0].matchLabelExpressions[1].values: Required value",
        'allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: "zone"',
        'allowedTopologies[2].matchLabelExpressions: Duplicate value: ""']


def test_csi_driver_name(reg):
    driver = lambda name: create(reg, "storage.k8s.io", "csidrivers", {"spec": {}}, name=name)  # noqa: E731
    assert refused(lambda: driver("a" * 64 + ".example.com")) == ["name: Too long: may not be more than 63 bytes"]
    # a subdomain once lower-cased: upper case passes (the common metadata check wants path segments only)
    assert driver("CSI.Example.com")["metadata"]["name"] == "CSI.Example.com"



def test_csi_driver_update_keeps_attach_required_and_lifecycle_modes(reg):
    """`ValidateCSIDriverUpdate`: attachRequired (at upstream's `spec.attachedRequired`) and volumeLifecycleModes
    are immutable, judged after the spec's own checks; the other fields may change."""
    store = reg.group("storage.k8s.io", "csidrivers")
    driver = create(reg, "storage.k8s.io", "csidrivers", {"spec": {}}, name="d.example.com")
    driver["spec"]["podInfoOnMount"] = True
    driver = store.update("", "d.example.com", driver)
    assert driver["spec"]["podInfoOnMount"] is True
    driver["spec"].update(attachRequired=False, volumeLifecycleModes=["Persistent", "Ephemeral"], fsGroupPolicy="X")
    assert refused(lambda: store.update("", "d.example.com", driver)) == [
        'spec.fsGroupPolicy: Unsupported value: "X": supported values: "File", "None", "ReadWriteOnceWithFSType"',
        "spec.attachedRequired: Invalid value: false: field is immutable",
        'spec.volumeLifecycleModes: Invalid value: []storage.VolumeLifecycleMode{"Persistent", "Ephemeral"}: '
        "field is immutable"]

# ---- ResourceQuota scopes --------------------------------------------------------------------------------
def quota(reg: Registry, spec: dict[str, Any], name: str = "rq") -> dict[str, Any]:
    return reg.content("resourcequotas").create({"metadata": {"name": name, "namespace": NS}, "spec": spec})


def test_quota_scopes(reg):
    assert quota(reg, {"hard": {"pods": "1", "cpu": "1"}, "scopes": ["NotTerminating", "NotBestEffort"]})
    shown = '[]core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Bogus"}'
    assert refused(lambda: quota(reg, {"hard": {"pods": "1", "cpu": "1"},
                                       "scopes": ["BestEffort", "NotBestEffort", "Bogus"]}, "b")) == [
        f"spec.scopes: Invalid value: {shown}: unsupported scope applied to resource",
        f"spec.scopes: Invalid value: {shown}: unsupported scope",
        f"spec.scopes: Invalid value: {shown}: conflicting scopes"]
    assert refused(lambda: quota(reg, {"hard": {"secrets": "1"}, "scopes": ["Terminating"]}, "c")) == [
        'spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating"}: unsupported scope applied to '
        "resource"]


def test_quota_scope_selector(reg):
    exprs = [{"scopeName": "PriorityClass", "operator": "In"},
             {"scopeName": "BestEffort", "operator": "In", "values": ["x"]},
             {"scopeName": "Bogus", "operator": "Equals"}]
    shown = ("core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{"
             'core.ScopedResourceSelectorRequirement{ScopeName:"PriorityClass", Operator:"In", Values:[]string(nil)}, '
             'core.ScopedResourceSelectorRequirement{ScopeName:"BestEffort", Operator:"In", Values:[]string{"x"}}, '
             'core.ScopedResourceSelectorRequirement{ScopeName:"Bogus", Operator:"Equals", Values:[]string(nil)}}}')
    path = "spec.scopeSelector.matchExpressions"
    assert refused(lambda: quota(reg, {"hard": {"secrets": "1"}, "scopeSelector": {"matchExpressions": exprs}})) == [
        f"{path}: Invalid value: {shown}: unsupported scope applied to resource",
        f"{path}.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope "
        "selector",
        f"{path}: Invalid value: {shown}: unsupported scope applied to resource",
        f'{path}.operator: Invalid value: "In": must be \'Exist\' only operator when scope is any of '
        "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort and "
        "ResourceQuotaScopeNotBestEffort",
        f'{path}.scopeName: Invalid value: "Bogus": unsupported scope',
        f'{path}.operator: Invalid value: "Equals": not a valid selector operator']
    both = [{"scopeName": "Terminating", "operator": "Exists"}, {"scopeName": "NotTerminating", "operator": "Exists",
                                                                   "values": ["a"]}]
    assert refused(lambda: quota(reg, {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": both}}, "d")) == [
        f'{path}.values: Invalid value: []string{{"a"}}: must be no value when `operator` is \'Exist\' or '
        "'DoesNotExist' for scope selector",
        f"{path}: Invalid value: []core.ResourceQuotaScope(nil): conflicting scopes"]


# ---- through the API ----------------------------------------------------------------------------------------
def test_ingress_status_update_validation(http, url, namespaces):
    """`ValidateIngressStatusUpdate` on `/status`: a sloppy IP passes, a bad one and an IP hostname do not."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses"
    created = http.post(base, json={"metadata": {"name": "i"}, "spec": {"defaultBackend": BACKEND}}).json()
    created["status"] = {"loadBalancer": {"ingress": [{"ip": "010.0.0.9"}, {"ip": "x", "hostname": "10.0.0.1"}]}}
    r = http.put(f"{base}/i/status", json=created)
    assert r.status_code == 422, r.text
    assert [f'{c["field"]}: {c["message"]}' for c in status_of(r)["details"]["causes"]] == [
        'status.loadBalancer.ingress[1].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or '
        "2001:db8::ffff)",
        'status.loadBalancer.ingress[1].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address']


def test_ingress_class_annotation_is_warned_on_create_only(http, url, namespaces):
    """`ingressStrategy.WarningsOnCreate`: the class annotation (any value) without `spec.ingressClassName`;
    `WarningsOnUpdate` warns of nothing."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses"
    annotated = {"name": "a", "annotations": {"kubernetes.io/ingress.class": ""}}
    r = http.post(base, json={"metadata": annotated, "spec": {"defaultBackend": BACKEND}})
    assert r.status_code == 201, r.text
    assert _warnings(r) == [_header("annotation \"kubernetes.io/ingress.class\" is deprecated, please use "
                                    "'spec.ingressClassName' instead")]
    r = http.patch(f"{base}/a", json={"metadata": {"labels": {"x": "y"}}},
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and _warnings(r) == [], r.text
    named = {"name": "b", "annotations": {"kubernetes.io/ingress.class": "nginx"}}
    r = http.post(base, json={"metadata": named, "spec": {"defaultBackend": BACKEND, "ingressClassName": "nginx"}})
    assert r.status_code == 201 and _warnings(r) == [], r.text


def test_network_policy_over_http(http, url, namespaces):
    """Validation is wired to the served kind: a create with a bad port answers 422 `Invalid`."""
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(f"{url}/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies",
                  json={"metadata": {"name": "np"}, "spec": {"podSelector": {}, "ingress": [{"ports": [{"port": 0}]}]}})
    assert r.status_code == 422, r.text
    assert status_of(r)["message"] == ('NetworkPolicy.networking.k8s.io "np" is invalid: '
                                       "spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and "
                                       "65535, inclusive")


def test_runtime_class_overhead_and_node_selector(reg):
    body = {"handler": "runc", "overhead": {"podFixed": {"cpu": "-1", "pods": "1", "hugepages-2Mi": "2Mi"}},
            "scheduling": {"nodeSelector": {"a b": "c"}}}
    assert refused(lambda: create(reg, "node.k8s.io", "runtimeclasses", body)) == [
        'overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
        'overhead.limits[pods]: Invalid value: "pods": must be a standard resource for containers',
        f'scheduling.nodeSelector: Invalid value: "a b": {NAME_PART}']
    only_huge = {"handler": "runc", "overhead": {"podFixed": {"hugepages-2Mi": "2Mi"}}}
    assert refused(lambda: create(reg, "node.k8s.io", "runtimeclasses", only_huge, name="y")) == [
        "overhead: Forbidden: HugePages require cpu or memory"]


def test_csinode_drivers(reg):
    drivers = [{"name": "csi.example.com", "nodeID": "n"},
               {"name": "csi.example.com", "nodeID": "", "allocatable": {"count": -1}, "topologyKeys": ["z", "z"]},
               {"name": "", "nodeID": "x" * 193}]
    causes = refused(lambda: create(reg, "storage.k8s.io", "csinodes", {"spec": {"drivers": drivers}}))
    assert causes[:5] == [
        "spec.drivers[1].nodeID: Required value",
        "spec.drivers[1].allocatable.count: Invalid value: -1: must be greater than or equal to 0",
        'spec.drivers[1].name: Duplicate value: "csi.example.com"',
        'spec.drivers[1]: Duplicate value: "z"',
        "spec.drivers[2].name: Required value"]
    assert causes[5].startswith('spec.drivers[2].name: Invalid value: "": a lowercase RFC 1123 subdomain')
    assert causes[6] == f'spec.drivers[2].nodeID: Invalid value: "{"x" * 193}": must be 192 characters or less'


def test_volume_attachment_spec(reg):
    both = {"spec": {"attacher": "csi.example.com", "nodeName": "Node_1",
                     "source": {"persistentVolumeName": "pv", "inlineVolumeSpec": {}}}}
    assert refused(lambda: create(reg, "storage.k8s.io", "volumeattachments", both)) == [
        "spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName",
        f'spec.nodeName: Invalid value: "Node_1": {SUBDOMAIN}']
    bad_names = {"spec": {"attacher": "a" * 64, "nodeName": "n1", "source": {"persistentVolumeName": "PV"}}}
    assert refused(lambda: create(reg, "storage.k8s.io", "volumeattachments", bad_names, name="y")) == [
        "spec.attacher: Too long: may not be more than 63 bytes",
        f'spec.source.persistentVolumeName: Invalid value: "PV": {SUBDOMAIN}']


def test_csi_storage_capacity_node_topology(reg):
    body = {"storageClassName": "standard", "nodeTopology": {"matchExpressions": [{"key": "k", "operator": "Is"}]}}
    assert refused(lambda: create(reg, "storage.k8s.io", "csistoragecapacities", body)) == [
        'nodeTopology.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator']


def test_network_policy_update_keeps_an_invalid_stored_selector():
    """`ValidationOptionsForNetworking`: values an old invalid podSelector had are allowed in every selector."""
    from conformance.reference_server.registry.groupvalidation.networking import network_policy_spec_errors

    bad = {"matchExpressions": [{"key": "a", "operator": "In", "values": ["bad value"]}]}
    spec = {"podSelector": bad, "ingress": [{"from": [{"namespaceSelector": bad}]}]}
    assert [e.field for e in network_policy_spec_errors(spec)] == [
        "spec.podSelector.matchExpressions[0].values[0]",
        "spec.ingress[0].from[0].namespaceSelector.matchExpressions[0].values[0]"]
    assert network_policy_spec_errors(spec, {"spec": {"podSelector": bad}}) == []


def test_pdb_update_keeps_an_invalid_stored_selector(reg):
    """`hasInvalidLabelValueInLabelSelector`: checked on create; let through on update when the stored one was."""
    store = reg.group("policy", "poddisruptionbudgets")
    bad = {"matchExpressions": [{"key": "a", "operator": "In", "values": ["bad value"]}]}
    assert [c.split(":")[0] for c in refused(lambda: create(reg, "policy", "poddisruptionbudgets",
                                                            {"spec": {"selector": bad}}))] == [
        "spec.selector.matchExpressions[0].values[0]"]
    strategy = store.strategy
    assert strategy.validate_update({"metadata": {"name": "x", "namespace": NS, "resourceVersion": "1"},
                                     "spec": {"selector": bad}},
                                    {"metadata": {"name": "x", "namespace": NS, "resourceVersion": "1"},
                                     "spec": {"selector": bad}}) == []


def test_runtime_class_tolerations(reg):
    """`validateScheduling`'s `validateTolerations`: core's rules, then no repeated {key, operator, value, effect}
    (printed as Go's `%#v` of the `core.Toleration`)."""
    tolerations = [{"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoSchedule"},
                   {"operator": "Equal", "value": "x"},
                   {"key": "gpu", "operator": "Equal", "value": "yes", "effect": "NoSchedule"}]
    body = {"handler": "runc", "scheduling": {"tolerations": tolerations}}
    assert refused(lambda: create(reg, "node.k8s.io", "runtimeclasses", body)) == [
        'scheduling.tolerations[1].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, '
        'which means "match all values and all keys"',
        'scheduling.tolerations[2]: Duplicate value: core.Toleration{Key:"gpu", Operator:"Equal", Value:"yes", '
        'Effect:"NoSchedule", TolerationSeconds:(*int64)(nil)}']


def test_csinode_driver_may_not_change_on_update(reg):
    """`ValidateCSINodeUpdate`: a driver already listed is immutable (1.33 without MutableCSINodeAllocatableCount);
    drivers may be added."""
    store = reg.group("storage.k8s.io", "csinodes")
    created = create(reg, "storage.k8s.io", "csinodes",
                     {"spec": {"drivers": [{"name": "csi.example.com", "nodeID": "n1"}]}}, name="node-1")
    added = copy.deepcopy(created)
    added["spec"]["drivers"].append({"name": "other.example.com", "nodeID": "n1"})
    added = store.update("", "node-1", added)
    changed = copy.deepcopy(added)
    changed["spec"]["drivers"][0].update(nodeID="n2", allocatable={"count": 3})
    assert refused(lambda: store.update("", "node-1", changed)) == [
        'spec.drivers: Invalid value: storage.CSINodeDriver{Name:"csi.example.com", NodeID:"n2", '
        "TopologyKeys:[]string(nil), Allocatable:(*storage.VolumeNodeResources)(0xc000000000)}: field is immutable"]


def test_volume_attachment_inline_volume_spec(reg):
    """`ValidatePersistentVolumeSpec` in the context of inline volumes (`validateVolumeAttachmentSource`)."""
    inline = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOncePod", "ReadWriteOnce"],
              "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "standard", "volumeMode": "Block",
              "hostPath": {"path": "/data"},
              "csi": {"driver": "csi.example.com", "nodePublishSecretRef": {"name": "s"}}}
    body = {"spec": {"attacher": "csi.example.com", "nodeName": "n1", "source": {"inlineVolumeSpec": inline}}}
    assert refused(lambda: create(reg, "storage.k8s.io", "volumeattachments", body)) == [
        "spec.source.inlineVolumeSpec.capacity: Forbidden: may not be specified in the context of inline volumes",
        "spec.source.inlineVolumeSpec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
        "spec.source.inlineVolumeSpec.persistentVolumeReclaimPolicy: Forbidden: may only be Retain in the context of "
        "inline volumes",
        "spec.source.inlineVolumeSpec.csi: Forbidden: may not specify more than 1 volume type",
        "spec.source.inlineVolumeSpec.storageClassName: Forbidden: may not be specified in the context of inline "
        "volumes",
        "spec.source.inlineVolumeSpec.volumeMode: Forbidden: may not specify volumeMode other than Filesystem in the "
        "context of inline volumes"]
    only_csi = {"accessModes": ["ReadWriteOnce"], "csi": {"driver": "csi.example.com",
                                                          "nodePublishSecretRef": {"name": "s"}}}
    body = {"spec": {"attacher": "csi.example.com", "nodeName": "n1", "source": {"inlineVolumeSpec": only_csi}}}
    assert refused(lambda: create(reg, "storage.k8s.io", "volumeattachments", body, name="y")) == [
        "spec.source.inlineVolumeSpec.csi.volumeHandle: Required value",
        "spec.source.inlineVolumeSpec.csi.nodePublishSecretRef.namespace: Required value"]
    only_csi["csi"].update(volumeHandle="vol-1", nodePublishSecretRef={"name": "s", "namespace": "n"})
    assert create(reg, "storage.k8s.io", "volumeattachments", body, name="z")["spec"]["source"]["inlineVolumeSpec"]


@pytest.mark.parametrize("source, expected", [
    ({"iscsi": {"targetPortal": "p" * 64, "iqn": "xyz", "lun": -1, "chapAuthDiscovery": True,
                "initiatorName": "bad"}},
     ['iscsi.targetportal: Invalid value: "' + "p" * 64 + '": Total length of <volume name>:<iscsi.targetPortal> '
      "must be under 64 characters if iscsi.initiatorName is specified.",
      'iscsi.iqn: Invalid value: "xyz": must be valid format',
      "iscsi.lun: Invalid value: -1: must be between 0 and 255, inclusive",
      "iscsi.secretRef: Required value",
      'iscsi.initiatorname: Invalid value: "bad": must be valid format']),
    ({"glusterfs": {"endpoints": "e", "path": "p", "endpointsNamespace": ""}},
     ['glusterfs.endpointsNamespace: Invalid value: "": if the endpointnamespace is set, it must be a valid '
      "namespace name"]),
    ({"cinder": {"volumeID": "v", "secretRef": {"name": "s"}}}, ["cinder.secretRef.namespace: Required value"]),
    ({"azureFile": {"secretName": "s", "shareName": "x", "secretNamespace": ""}},
     ["azureFile.secretNamespace: Required value"]),
    ({"storageos": {"volumeName": "v", "secretRef": {}}},
     ["storageos.secretRef.name: Required value", "storageos.secretRef.namespace: Required value"]),
    ({"local": {"path": "/a/../b"}},
     ["local.path: Invalid value: \"/a/../b\": must not contain '..'",
      "nodeAffinity: Required value: Local volume requires node affinity"]),
    ({"gcePersistentDisk": {"pdName": "", "partition": 300}},
     ["persistentDisk.pdName: Required value",
      "persistentDisk.partition: Invalid value: 300: must be between 1 and 255, inclusive"]),
    ({"nfs": {"server": "s", "path": "p"}, "flexVolume": {"driver": "", "options": {"x.k8s.io/y": "1"}}},
     ['nfs.path: Invalid value: "p": must be an absolute path', "flexVolume.driver: Required value",
      'flexVolume.options[x.k8s.io/y]: Invalid value: "x.k8s.io/y": kubernetes.io and k8s.io namespaces are '
      "reserved"]),
])
def test_volume_attachment_inline_non_csi_sources(reg, source, expected):
    """`ValidatePersistentVolumeSpec`'s first source gets its `validate<Source>PersistentVolumeSource` rules (the
    CSI source an inline volume requires is then missing; flexVolume is validated wherever it stands)."""
    inline = {"accessModes": ["ReadWriteOnce"], **source}
    body = {"spec": {"attacher": "csi.example.com", "nodeName": "n1", "source": {"inlineVolumeSpec": inline}}}
    path = "spec.source.inlineVolumeSpec"
    assert refused(lambda: create(reg, "storage.k8s.io", "volumeattachments", body)) == [
        f"{path}.csi: Required value: has to be specified in the context of inline volumes",
        *(f"{path}.{e}" for e in expected)]
