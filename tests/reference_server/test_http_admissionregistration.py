"""admissionregistration.k8s.io/v1 (registry/admissionregistration.py): the four cluster-scoped kinds with upstream's
v1 defaults, validation messages (in upstream's order), generation and status rules, printers.go tables,
protobuf answers, etcd keys, and the group's two versions when the KEP-33 extension adds v1alpha1."""
from __future__ import annotations

import copy

import pytest
import requests

from conformance.reference_server.storage.keys import object_key
from conformance.reference_server.wire.protobuf import decode_response
from tests.reference_server.ownserver import own_server

from .conftest import status_of, unique
from .test_http_aggregated_discovery import assert_views_agree

GV = "admissionregistration.k8s.io/v1"
TABLE = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
MERGE = {"Content-Type": "application/merge-patch+json"}
RULE = {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}
HOOK = {"name": "pods.example.com", "clientConfig": {"url": "https://hooks.example.com/validate"},
        "rules": [RULE], "sideEffects": "None", "admissionReviewVersions": ["v1"]}
POLICY_SPEC = {"matchConstraints": {"resourceRules": [{**RULE, "apiGroups": ["apps"], "resources": ["deployments"]}]},
               "validations": [{"expression": "object.spec.replicas <= 5"}]}


def base(url: str, plural: str) -> str:
    return f"{url}/apis/{GV}/{plural}"


def create(http: requests.Session, url: str, plural: str, body: dict) -> dict:
    r = http.post(base(url, plural), json=body)
    assert r.status_code == 201, r.text
    return r.json()


def test_discovery(http, url):
    group = http.get(f"{url}/apis/admissionregistration.k8s.io").json()
    assert [v["version"] for v in group["versions"]] == ["v1"] and group["preferredVersion"]["version"] == "v1"
    resources = {r["name"]: r for r in http.get(f"{url}/apis/{GV}").json()["resources"]}
    assert sorted(resources) == ["mutatingwebhookconfigurations", "validatingadmissionpolicies",
                                 "validatingadmissionpolicies/status", "validatingadmissionpolicybindings",
                                 "validatingwebhookconfigurations"]
    hooks = resources["validatingwebhookconfigurations"]
    assert (hooks["namespaced"], hooks.get("shortNames"), hooks["categories"]) == (False, None, ["api-extensions"])
    assert resources["mutatingwebhookconfigurations"]["storageVersionHash"] == "Sqi0GUgDaX0="  # upstream's
    assert resources["validatingadmissionpolicies/status"]["verbs"] == ["get", "patch", "update"]
    assert object_key("/registry", "validatingwebhookconfigurations", "", "x") == \
        "/registry/validatingwebhookconfigurations/x"


def test_webhook_defaults_and_generation(http, url):
    name = unique("vwc")
    hook = {**copy.deepcopy(HOOK), "clientConfig": {"service": {"namespace": "default", "name": "hooks"}}}
    created = create(http, url, "validatingwebhookconfigurations", {"metadata": {"name": name}, "webhooks": [hook]})
    got = created["webhooks"][0]
    assert {k: got[k] for k in ("failurePolicy", "matchPolicy", "namespaceSelector", "objectSelector",
                                "timeoutSeconds")} == {"failurePolicy": "Fail", "matchPolicy": "Equivalent",
                                                       "namespaceSelector": {}, "objectSelector": {},
                                                       "timeoutSeconds": 10}
    assert got["rules"][0]["scope"] == "*" and got["clientConfig"]["service"]["port"] == 443
    assert "reinvocationPolicy" not in got and created["metadata"]["generation"] == 1
    item = f"{base(url, 'validatingwebhookconfigurations')}/{name}"
    r = http.patch(item, json={"metadata": {"labels": {"a": "b"}}}, headers=MERGE)
    assert r.json()["metadata"]["generation"] == 1
    r = http.patch(item, json={"webhooks": [{**got, "timeoutSeconds": 5}]}, headers=MERGE)
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["generation"] == 2
    mutating = create(http, url, "mutatingwebhookconfigurations",
                      {"metadata": {"name": name}, "webhooks": [copy.deepcopy(HOOK)]})
    assert mutating["webhooks"][0]["reinvocationPolicy"] == "Never"
    for plural in ("validatingwebhookconfigurations", "mutatingwebhookconfigurations"):
        assert http.delete(f"{base(url, plural)}/{name}").status_code == 200


def _hook(**changes) -> dict:
    hook = copy.deepcopy(HOOK)
    for key, value in changes.items():
        if value is None:
            hook.pop(key)
        else:
            hook[key] = value
    return hook


@pytest.mark.parametrize("webhooks, message", [
    ([_hook(name="pods", sideEffects=None)],
     '[webhooks[0].name: Invalid value: "pods": should be a domain with at least three segments separated by dots, '
     "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun]"),
    ([_hook(admissionReviewVersions=None, timeoutSeconds=31, failurePolicy="Never")],
     '[webhooks[0].failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore", '
     "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds, "
     "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1]"),
    ([_hook(clientConfig={"url": "http://hooks.example.com/x?a=1"}), _hook(clientConfig={})],
     '[webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired '
     'format: https://host[/path], webhooks[0].clientConfig.url: Invalid value: "a=1": query parameters are not '
     "permitted in the URL, webhooks[1].clientConfig: Required value: exactly one of url or service is required, "
     'webhooks[1].name: Duplicate value: "pods.example.com"]'),
    ([_hook(clientConfig={"service": {"name": "s", "port": 0, "path": "a//"}})],
     "[webhooks[0].clientConfig.service.namespace: Required value: service namespace is required, "
     "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, "
     'inclusive, webhooks[0].clientConfig.service.path: Invalid value: "a//": must start with a \'/\', '
     'webhooks[0].clientConfig.service.path: Invalid value: "a//": segment[0] may not be empty, '
     'webhooks[0].clientConfig.service.path: Invalid value: "a//": segment[1] may not be empty]'),
    ([_hook(rules=[{"operations": ["*", "PATCH"], "apiGroups": [], "apiVersions": ["v1"],
                    "resources": ["*/*", "pods"], "scope": "Global"}])],
     "[webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{\"*\", \"PATCH\"}: "
     "if '*' is present, must not specify other operations, "
     'webhooks[0].rules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", '
     '"CREATE", "DELETE", "UPDATE", webhooks[0].rules[0].apiGroups: Required value, '
     "webhooks[0].rules[0].resources: Invalid value: []string{\"*/*\", \"pods\"}: if '*/*' is present, must not "
     'specify other resources, webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", '
     '"Cluster", "Namespaced"]'),
    ([_hook(namespaceSelector={"matchExpressions": [{"key": "a", "operator": "In"}]},
            matchConditions=[{"name": "c", "expression": " "}])],
     "[webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` "
     "is 'In' or 'NotIn', webhooks[0].matchConditions[0].expression: Required value]"),
    # URLs Go's url.Parse refuses (Python's urlsplit takes them)
    ([_hook(clientConfig={"url": "https://hooks example.com/x"})],
     'webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://hooks example.com/x": '
     'invalid character " " in host name; desired format: https://host[/path]'),
    ([_hook(clientConfig={"url": "https://hooks.example.com:https/x"}),
      _hook(name="b.example.com", clientConfig={"url": "https://hooks.example.com/100%"})],
     '[webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse '
     '"https://hooks.example.com:https/x": invalid port ":https" after host; desired format: https://host[/path], '
     'webhooks[1].clientConfig.url: Required value: url must be a valid URL: parse "https://hooks.example.com/100%": '
     'invalid URL escape "%"; desired format: https://host[/path]]'),
    # Python's urlsplit refuses it too, in its own words ("Invalid IPv6 URL")
    ([_hook(clientConfig={"url": "https://[::1/x"})],
     'webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://[::1/x": missing \']\' '
     "in host; desired format: https://host[/path]"),
    # a fragment decoding to bytes that are not UTF-8: written as Go's JSON writes them (U+FFFD), never a 500
    ([_hook(clientConfig={"url": "https://hooks.example.com/x#%ff"})],
     'webhooks[0].clientConfig.url: Invalid value: "\ufffd": fragments are not permitted in the URL'),
    ([_hook(clientConfig={"url": "https://a%20b@hooks.example.com/x?#f"})],
     '[webhooks[0].clientConfig.url: Invalid value: "a%20b": user information is not permitted in the URL, '
     'webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL]'),
])
def test_webhook_validation(http, url, webhooks, message):
    name = unique("bad")
    r = http.post(base(url, "validatingwebhookconfigurations"), json={"metadata": {"name": name},
                                                                     "webhooks": webhooks})
    assert r.status_code == 422, r.text
    body = status_of(r)
    assert body["message"] == f'ValidatingWebhookConfiguration.admissionregistration.k8s.io "{name}" is invalid: ' \
                              f"{message}"
    assert body["details"]["group"] == "admissionregistration.k8s.io"


def test_mutating_reinvocation_policy_validated(http, url):
    name = unique("mwc")
    r = http.post(base(url, "mutatingwebhookconfigurations"),
                  json={"metadata": {"name": name}, "webhooks": [_hook(reinvocationPolicy="Always")]})
    assert status_of(r)["message"] == (
        f'MutatingWebhookConfiguration.admissionregistration.k8s.io "{name}" is invalid: webhooks[0].'
        'reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"')


def _observed(generation: int):
    return lambda ev: (ev["object"].get("status") or {}).get("observedGeneration") == generation


def test_policy_defaults_status_and_generation(http, url, watch):
    """Defaults, status reset on create, `/status` changing only status, generation on spec change, and the
    status controller's `observedGeneration` + `typeChecking` (controller/policystatus.py)."""
    name = unique("vap")
    plural = base(url, "validatingadmissionpolicies")
    created = create(http, url, "validatingadmissionpolicies",
                     {"metadata": {"name": name}, "spec": POLICY_SPEC, "status": {"observedGeneration": 7}})
    spec = created["spec"]
    assert spec["failurePolicy"] == "Fail" and created["status"] == {} and created["metadata"]["generation"] == 1
    match = spec["matchConstraints"]
    assert (match["matchPolicy"], match["namespaceSelector"], match["objectSelector"],
            match["resourceRules"][0]["scope"]) == ("Equivalent", {}, {}, "*")
    params = {"fieldSelector": f"metadata.name={name}", "resourceVersion": created["metadata"]["resourceVersion"]}
    with watch(plural, params) as w:
        seen = w.until(_observed(1), what="observedGeneration 1")[-1]["object"]
    assert seen["status"] == {"observedGeneration": 1, "typeChecking": {}}
    assert [m["manager"] for m in seen["metadata"]["managedFields"] if m.get("subresource") == "status"] == [
        "validatingadmissionpolicy-status-controller"]
    condition = {"type": "Ready", "status": "True", "reason": "Checked", "message": "",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"}
    r = http.put(f"{plural}/{name}/status", json={**seen, "spec": {}, "status": {**seen["status"],
                                                                                "conditions": [condition]}})
    assert r.status_code == 200, r.text
    assert r.json()["status"]["conditions"] == [condition] and r.json()["spec"] == spec
    r = http.patch(f"{plural}/{name}", json={"spec": {"failurePolicy": "Ignore"}, "status": None}, headers=MERGE)
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["generation"] == 2 and r.json()["status"]["observedGeneration"] == 1
    params["resourceVersion"] = r.json()["metadata"]["resourceVersion"]
    with watch(plural, params) as w:
        seen = w.until(_observed(2), what="observedGeneration 2")[-1]["object"]
    assert seen["status"]["conditions"] == [condition]  # the controller applies only its own fields
    assert http.delete(f"{plural}/{name}").status_code == 200


@pytest.mark.parametrize("spec, message", [
    ({}, "[spec.matchConstraints: Required value, spec.validations: Required value: validations or "
         "auditAnnotations must contain at least one item, spec.auditAnnotations: Required value: validations or "
         "auditAnnotations must contain at least one item]"),
    ({"failurePolicy": "Sometimes", "paramKind": {"apiVersion": "v1"},
      "matchConstraints": {"matchPolicy": "Fuzzy"}, "validations": [{"expression": "", "reason": "Conflict"}]},
     '[spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore", '
     'spec.paramKind.kind: Required value, spec.matchConstraints.matchPolicy: Unsupported value: "Fuzzy": '
     'supported values: "Equivalent", "Exact", spec.matchConstraints.resourceRules: Required value, '
     "spec.validations[0].expression: Required value: expression is not specified, "
     'spec.validations[0].reason: Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", '
     '"RequestEntityTooLarge"]'),
    ({**POLICY_SPEC, "variables": [{"name": "in", "expression": "1"}],
      "auditAnnotations": [{"key": "k", "valueExpression": "'a'"}, {"key": "k", "valueExpression": ""}]},
     '[spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier, '
     "spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified, "
     'spec.auditAnnotations[1].key: Duplicate value: "k"]'),
])
def test_policy_validation(http, url, spec, message):
    name = unique("vap")
    r = http.post(base(url, "validatingadmissionpolicies"), json={"metadata": {"name": name}, "spec": spec})
    assert r.status_code == 422, r.text
    assert status_of(r)["message"] == \
        f'ValidatingAdmissionPolicy.admissionregistration.k8s.io "{name}" is invalid: {message}'


@pytest.mark.parametrize("spec, message", [
    ({}, "[spec.policyName: Required value, spec.validationActions: Required value: at least one validation action "
         "is required]"),
    ({"policyName": "p", "validationActions": ["Deny", "Warn", "Deny"],
      "paramRef": {"name": "a", "selector": {}}, "matchResources": {"matchPolicy": "Fuzzy"}},
     "[spec.paramRef.name: Forbidden: name and selector are mutually exclusive, spec.paramRef.selector: Forbidden: "
     "name and selector are mutually exclusive, spec.paramRef.parameterNotFoundAction: Required value, "
     'spec.matchResouces.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact", '
     'spec.validationActions[2]: Duplicate value: "Deny", spec.validationActions: Invalid value: '
     '[]admissionregistration.ValidationAction{"Deny", "Warn", "Deny"}: must not contain both Deny and Warn '
     "(repeating the same validation failure information in the API response and headers serves no purpose)]"),
])
def test_binding_validation(http, url, spec, message):
    name = unique("vapb")
    r = http.post(base(url, "validatingadmissionpolicybindings"), json={"metadata": {"name": name}, "spec": spec})
    assert r.status_code == 422, r.text
    assert status_of(r)["message"] == \
        f'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "{name}" is invalid: {message}'


def test_tables_and_protobuf(http, url):
    name = unique("tbl")
    create(http, url, "validatingwebhookconfigurations",
           {"metadata": {"name": name}, "webhooks": [HOOK, {**HOOK, "name": "two.example.com"}]})
    create(http, url, "validatingadmissionpolicies", {"metadata": {"name": name}, "spec": {
        **POLICY_SPEC, "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}})
    create(http, url, "validatingadmissionpolicybindings", {"metadata": {"name": name}, "spec": {
        "policyName": name, "validationActions": ["Deny"],
        "paramRef": {"name": "limits", "namespace": "default", "parameterNotFoundAction": "Deny"}}})
    want = {"validatingwebhookconfigurations": (["Name", "Webhooks", "Age"], [name, 2]),
            "validatingadmissionpolicies": (["Name", "Validations", "ParamKind", "Age"], [name, 1, "v1/ConfigMap"]),
            "validatingadmissionpolicybindings": (["Name", "PolicyName", "ParamRef", "Age"],
                                                  [name, name, "default/limits"])}
    for plural, (columns, cells) in want.items():
        table = http.get(f"{base(url, plural)}/{name}", headers=TABLE).json()
        assert [c["name"] for c in table["columnDefinitions"]] == columns
        assert table["rows"][0]["cells"][:-1] == cells
        raw = http.get(f"{base(url, plural)}/{name}", headers={"Accept": "application/vnd.kubernetes.protobuf"})
        assert raw.headers["Content-Type"] == "application/vnd.kubernetes.protobuf"
        assert decode_response(raw.content) == http.get(f"{base(url, plural)}/{name}").json()
        assert http.delete(f"{base(url, plural)}/{name}").status_code == 200


kep33 = own_server(feature_gates=["NamespaceInitializers"])


def test_two_versions_with_the_kep33_extension(kep33, http):
    """v1 (preferred) next to the extension's v1alpha1: each version serves only its own kinds, both views of
    discovery list both."""
    url = kep33.url
    group = http.get(f"{url}/apis/admissionregistration.k8s.io").json()
    assert [v["version"] for v in group["versions"]] == ["v1", "v1alpha1"]
    assert group["preferredVersion"] == {"groupVersion": GV, "version": "v1"}
    assert http.get(f"{url}/apis/admissionregistration.k8s.io/v1alpha1/validatingwebhookconfigurations"
                    ).status_code == 404
    assert http.get(f"{url}/apis/{GV}/namespaceinitializerconfigurations").status_code == 404
    assert http.get(f"{url}/apis/admissionregistration.k8s.io/v1alpha1/namespaceinitializerconfigurations"
                    ).status_code == 200
    assert http.get(base(url, "validatingwebhookconfigurations")).status_code == 200
    assert {GV, "admissionregistration.k8s.io/v1alpha1"} <= assert_views_agree(url, {})
    assert [p for p in http.get(f"{url}/openapi/v3").json()["paths"] if "admissionregistration" in p] == [
        f"apis/{GV}", "apis/admissionregistration.k8s.io/v1alpha1"]


def test_policy_status_type_checking_warnings(http, url, watch):
    """The status controller type-checks each validation against the schemas of the matched kinds
    (`validating/typechecking.go`): `object` typed, a warning per expression and kind that does not type-check,
    none for what type-checks, for wildcard rules or for kinds without a schema here."""
    name = unique("vap")
    plural = base(url, "validatingadmissionpolicies")
    rules = [{**RULE, "apiGroups": [""], "resources": ["configmaps", "secrets", "pods/status"]},
             {**RULE, "apiGroups": ["*"], "resources": ["deployments"]}]
    spec = {"matchConstraints": {"resourceRules": rules},
            "variables": [{"name": "size", "expression": "object.data.size()"}],
            "validations": [
                {"expression": "object.foo == 'x'"},
                {"expression": "object.data.size() > 0 && variables.size < 3 && object.metadata.name != ''",
                 "messageExpression": "'n: ' + object.metadata.generation"},
                {"expression": "has(object.data.x) && sign(quantity('1')) == 1"}]}
    created = create(http, url, "validatingadmissionpolicies", {"metadata": {"name": name}, "spec": spec})
    params = {"fieldSelector": f"metadata.name={name}", "resourceVersion": created["metadata"]["resourceVersion"]}
    with watch(plural, params) as w:
        seen = w.until(_observed(1), what="observedGeneration 1")[-1]["object"]
    undefined = "ERROR: <input>:1:7: undefined field 'foo'\n | object.foo == 'x'\n | ......^\n"
    assert seen["status"]["typeChecking"] == {"expressionWarnings": [
        {"fieldRef": "spec.validations[0].expression",
         "warning": f"/v1, Kind=ConfigMap: {undefined}\n/v1, Kind=Secret: {undefined}"},
        {"fieldRef": "spec.validations[1].messageExpression",
         "warning": "\n".join(f"/v1, Kind={kind}: ERROR: <input>:1:7: found no matching overload for '_+_' applied to "
                              "'(string, int)'\n | 'n: ' + object.metadata.generation\n | ......^\n"
                              for kind in ("ConfigMap", "Secret"))}]}
