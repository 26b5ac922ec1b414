"""Each message that prints a string or a string slice the way Go's fmt does (gofmt.py): a control character or a
non-ASCII letter in the value comes out as upstream's `strconv.Quote` writes it (`\\t`, `\\x01`, `é`), where the
server used to print it raw or with JSON's `\\u00e9`. One case per call site whose bytes changed (the others
already quoted, or their values cannot hold such a character: IPs, CIDRs, constants); the upstream verb of each is
named."""
from __future__ import annotations

import uuid
from typing import Any

import pytest

from conformance.reference_server.apierrors import StatusError, field_not_supported, invalid, method_not_supported
from conformance.reference_server.auth.escalation import compact_string
from conformance.reference_server.auth.rbac import Attributes, UserInfo, forbidden_message
from conformance.reference_server.auth.requestheader import RequestHeaderConfig
from conformance.reference_server.registry.job_status import indexes_format_error
from conformance.reference_server.registry.podvalidation.podspec import toleration_struct
from conformance.reference_server.registry.validation import validate_object_meta_update
from conformance.reference_server.server import build_context

from ..conftest import status_of


@pytest.fixture(scope="module")
def registry() -> Any:
    return build_context(flavor="bare").registry


def _messages(registry: Any, group: str, plural: str, obj: dict[str, Any]) -> list[str]:
    """The causes' `field: message` texts of the 422 a create answers."""
    store = registry.group(group, plural) if group else registry.content(plural)
    with pytest.raises(StatusError) as err:
        store.create(obj)
    assert err.value.code == 422
    return [f"{c['field']}: {c['message']}" for c in err.value.status["details"]["causes"]]


def _pod(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i"}], **spec}}


def test_new_finalizers_while_deleting() -> None:
    """`ValidateNoNewFinalizers`: `found new finalizers %#v` of a `[]string`."""
    old = {"name": "a", "deletionTimestamp": "2026-01-01T00:00:00Z", "finalizers": ["x.io/a"]}
    errs = validate_object_meta_update({**old, "finalizers": ["x.io/a", "x.io/a\tb"]}, old)
    assert [e.body for e in errs] == ['Forbidden: no new finalizers can be added if the object is being deleted, '
                                      'found new finalizers []string{"x.io/a\\tb"}']


def test_pod_dns_nameservers_and_fc_target_wwns(registry: Any) -> None:
    """`validateDNSConfig` and `validateFCVolumeSource`: `field.Invalid` of a `[]string` (`%#v`)."""
    msgs = _messages(registry, "", "pods", _pod(dnsPolicy="None", dnsConfig={
        "nameservers": ["1.1.1.1", "1.1.1.2", "1.1.1.3", "1.1.1.4\x01"]}))
    assert ('spec.dnsConfig.nameservers: Invalid value: []string{"1.1.1.1", "1.1.1.2", "1.1.1.3", "1.1.1.4\\x01"}: '
            'must not have more than 3 nameservers') in msgs
    msgs = _messages(registry, "", "pods", _pod(volumes=[{"name": "v", "fc": {
        "targetWWNs": ["é\x01"], "wwids": ["w"], "lun": 0}}]))
    assert ('spec.volumes[0].fc.targetWWNs: Invalid value: []string{"é\\x01"}: targetWWNs and wwids can not be '
            'specified simultaneously') in msgs


def test_workload_template_labels(registry: Any) -> None:
    """`ValidateDeploymentSpec`: the template's labels, a `map[string]string`, with `%#v` (keys sorted)."""
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default"},
              "spec": {"selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "é", "b": "\x01"}},
                                    "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    assert ('spec.template.metadata.labels: Invalid value: map[string]string{"app":"é", "b":"\\x01"}: `selector` '
            'does not match template `labels`') in _messages(registry, "apps", "deployments", deploy)


def test_flow_schema_verbs(registry: Any) -> None:
    """`ValidateFlowSchemaResourcePolicyRule`: `field.NotSupported` of the `[]string` of verbs."""
    schema = {"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": {"name": "f"},
              "spec": {"priorityLevelConfiguration": {"name": "global-default"}, "rules": [{
                  "subjects": [{"kind": "Group", "group": {"name": "g"}}],
                  "resourceRules": [{"verbs": ["é"], "apiGroups": ["*"], "resources": ["*"],
                                     "clusterScope": True}]}]}}
    msgs = _messages(registry, "flowcontrol.apiserver.k8s.io", "flowschemas", schema)
    assert any(m.startswith('spec.rules[0].resourceRules[0].verbs: Unsupported value: []string{"é"}: supported '
                            'values: "create"') for m in msgs), msgs


def test_role_non_resource_urls(registry: Any) -> None:
    """`validatePolicyRule`: `field.Invalid(..., rule.NonResourceURLs, ...)`, a `[]string` with `%#v`."""
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "r", "namespace": "default"},
            "rules": [{"verbs": ["get"], "nonResourceURLs": ["/a\tb", '/"q"']}]}
    assert ('rules[0].nonResourceURLs: Invalid value: []string{"/a\\tb", "/\\"q\\""}: namespaced rules cannot '
            'apply to non-resource URLs') in _messages(registry, "rbac.authorization.k8s.io", "roles", role)


def test_network_policy_types(registry: Any) -> None:
    """`ValidateNetworkPolicySpec`: `field.Invalid(..., &spec.PolicyTypes, ...)`: `[]networking.PolicyType{...}`."""
    policy = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
              "metadata": {"name": "n", "namespace": "default"},
              "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress", "é"]}}
    assert ('spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "é"}: may not specify '
            'more than two policyTypes') in _messages(registry, "networking.k8s.io", "networkpolicies", policy)


def test_resource_quota_scopes(registry: Any) -> None:
    """`validateResourceQuotaScopes`: `field.Invalid(fldPath, resourceQuotaSpec.Scopes, ...)` with `%#v`."""
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
             "spec": {"hard": {"pods": "1"}, "scopes": ["é"]}}
    assert 'spec.scopes: Invalid value: []core.ResourceQuotaScope{"é"}: unsupported scope' in \
        _messages(registry, "", "resourcequotas", quota)


def test_pod_apparmor_annotation(registry: Any) -> None:
    """`ValidateAppArmorProfileFormat`: `invalid AppArmor profile name: %q`."""
    pod = _pod()
    pod["metadata"]["annotations"] = {"container.apparmor.security.beta.kubernetes.io/c": "é"}
    assert any(m.endswith('invalid AppArmor profile name: "é"') for m in _messages(registry, "", "pods", pod))


def _header_refusal() -> str:
    try:
        RequestHeaderConfig("ca.crt", username_headers=("\t",)).trimmed()
    except ValueError as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize("render, shown", [
    # `parseIndexInterval`: `the fragment %q violates ...`
    (lambda: indexes_format_error("é-1-2", 5),
     "the fragment \"é-1-2\" violates the requirement that an index interval can have at most two parts "
     "separated by '-'"),
    # `CompactString`: `Resources:%q` of a []string
    (lambda: compact_string({"resources": ["pods\x01"], "verbs": ["get"]}), r'{Resources:["pods\x01"], Verbs:["get"]}'),
    # `forbiddenMessage`: `User %q cannot %s path %q`
    (lambda: forbidden_message(Attributes(UserInfo("ü"), "get", resource_request=False, path="/a\x7f")),
     r'User "ü" cannot get path "/a\x7f"'),
    # `trimHeaders`: `empty header %q`
    (_header_refusal, r'empty header "\t"'),
    # a `core.Toleration` with `%#v`: its strings quoted
    (lambda: toleration_struct({"key": "é", "operator": "Exists", "value": "\x01"}),
     'core.Toleration{Key:"é", Operator:"Exists", Value:"\\x01", Effect:"", TolerationSeconds:(*int64)(nil)}'),
    # `field.NotSupported`: `strconv.Quote(fmt.Sprint(v))` of each valid value
    (lambda: field_not_supported("f", "x", ["é"]).body, 'Unsupported value: "x": supported values: "é"'),
], ids=["parseIndexInterval", "CompactString", "forbiddenMessage", "trimHeaders", "Toleration", "NotSupported"])
def test_sites_reached_without_a_store(render: Any, shown: str) -> None:
    assert render() == shown


def test_label_selector_errors_over_http(http: Any, url: str) -> None:
    """`validateLabelKey`: `field.Invalid(path, k, strings.Join(errs, "; "))`: the key quoted, every rule."""
    st = status_of(http.get(f"{url}/api/v1/namespaces", params={"labelSelector": "a\x01"}))
    assert st["code"] == 400
    assert st["message"] == ('unable to parse requirement: <nil>: Invalid value: "a\\x01": name part must consist '
                             "of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                             "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
    long_bad = "a" * 64 + "$"
    st = status_of(http.get(f"{url}/api/v1/namespaces", params={"labelSelector": long_bad}))
    assert st["message"].startswith(f'unable to parse requirement: <nil>: Invalid value: "{long_bad}": name part '
                                    "must be no more than 63 characters; name part must consist of")


def test_not_found_quotes_the_name(http: Any, url: str) -> None:
    """apimachinery's `NewNotFound` (`%s %q not found`): the name as strconv.Quote writes it."""
    st = status_of(http.get(f"{url}/api/v1/namespaces/default/configmaps/a%01%C3%A9"))
    assert (st["code"], st["message"]) == (404, 'configmaps "a\\x01é" not found')


def test_status_error_texts() -> None:
    """errors.go's `NewInvalid` (`%s %q is invalid`, without `: ` and causes when there are none) and
    `NewMethodNotSupported` (`kind %q`)."""
    assert invalid("Pod", "a\x01", []).status["message"] == 'Pod "a\\x01" is invalid'
    assert method_not_supported("pods/é", "create").status["message"] == \
        'create is not supported on resources of kind "pods/é"'


def test_label_selector_set_values(http: Any, url: str) -> None:
    """`parseValues` reads a set (`()` and an empty piece are the empty string) and `NewRequirement` validates it
    sorted (`values[i][key]`), every bad value aggregated."""
    st = status_of(http.get(f"{url}/api/v1/namespaces", params={"labelSelector": "a in (zz$,b)"}))
    assert st["message"].startswith('unable to parse requirement: values[1][a]: Invalid value: "zz$": a valid label ')
    st = status_of(http.get(f"{url}/api/v1/namespaces", params={"labelSelector": "a notin (y$,x\x01)"}))
    assert st["message"].startswith('unable to parse requirement: [values[0][a]: Invalid value: "x\\x01": ')
    assert ', values[1][a]: Invalid value: "y$": ' in st["message"]
    name = f"sel-{uuid.uuid4().hex[:8]}"
    made = http.post(f"{url}/api/v1/namespaces/default/configmaps",
                     json={"metadata": {"name": name, "labels": {"sel-empty": ""}}})
    assert made.status_code == 201, made.text
    try:
        for selector in ("sel-empty in ()", "sel-empty in (,zz)", "sel-empty in (zz,)"):
            r = http.get(f"{url}/api/v1/namespaces/default/configmaps", params={"labelSelector": selector})
            assert [i["metadata"]["name"] for i in r.json()["items"]] == [name], selector
    finally:
        http.delete(f"{url}/api/v1/namespaces/default/configmaps/{name}")
