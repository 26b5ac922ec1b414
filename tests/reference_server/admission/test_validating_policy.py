"""ValidatingAdmissionPolicy (admission/policy/) and compile-on-write (registry/admissionregistration.py) over HTTP:
expressions that do not compile are refused with upstream's field paths and `compilation failed:` prefix; a Deny
binding refuses a ConfigMap with upstream's message, reason, code and cause; Warn adds a Warning header; params come
from a ConfigMap (by name, by selector, missing with `Deny`); matchConditions, variables, `request`,
`namespaceObject`, DELETE's `oldObject` and the failure policy behave as `validating/dispatcher.go` says."""
from __future__ import annotations

import uuid
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from tests.reference_server.ownserver import own_server

AR = "/apis/admissionregistration.k8s.io/v1"


server = own_server("A server of its own: its bindings must not reach other modules' requests.")


@pytest.fixture
def ns(server: RunningServer) -> Iterator[str]:
    name = f"vap-{uuid.uuid4().hex[:8]}"
    r = requests.post(f"{server.url}/api/v1/namespaces", json={"metadata": {"name": name, "labels": {"vap": name}}})
    assert r.status_code == 201, r.text
    yield name
    requests.delete(f"{server.url}/api/v1/namespaces/{name}")


class Policies:
    def __init__(self, server: RunningServer, ns: str):
        self.server, self.ns, self.created = server, ns, []

    def post(self, plural: str, body: dict[str, Any]) -> requests.Response:
        r = requests.post(f"{self.server.url}{AR}/{plural}", json=body)
        if r.status_code == 201:
            self.created.append((plural, body["metadata"]["name"]))
        return r

    def policy(self, operations: tuple[str, ...] = ("CREATE", "UPDATE"), **spec: Any) -> str:
        """A policy on configmaps in this test's namespace, bound with `actions`; returns its name."""
        name = f"p-{uuid.uuid4().hex[:8]}"
        rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": list(operations),
                  "resources": ["configmaps"]}]
        body = {"metadata": {"name": name}, "spec": {
            "matchConstraints": {"resourceRules": rules, "namespaceSelector": {"matchLabels": {"vap": self.ns}}},
            **spec}}
        r = self.post("validatingadmissionpolicies", body)
        assert r.status_code == 201, r.text
        return name

    def bind(self, policy: str, actions: tuple[str, ...] = ("Deny",), **spec: Any) -> str:
        name = f"b-{uuid.uuid4().hex[:8]}"
        r = self.post("validatingadmissionpolicybindings", {"metadata": {"name": name}, "spec": {
            "policyName": policy, "validationActions": list(actions), **spec}})
        assert r.status_code == 201, r.text
        return name

    def cm(self, name: str, data: dict[str, str] | None = None, labels: dict[str, str] | None = None,
           ns: str | None = None) -> requests.Response:
        return requests.post(f"{self.server.url}/api/v1/namespaces/{ns or self.ns}/configmaps",
                             json={"metadata": {"name": name, "labels": labels or {}}, "data": data or {}})

    def cleanup(self) -> None:
        for plural, name in reversed(self.created):
            requests.delete(f"{self.server.url}{AR}/{plural}/{name}")


@pytest.fixture
def vap(server: RunningServer, ns: str) -> Iterator[Policies]:
    p = Policies(server, ns)
    yield p
    p.cleanup()


def _causes(r: requests.Response) -> list[tuple[str, str]]:
    return [(c.get("field", ""), c["message"]) for c in r.json()["details"]["causes"]]


def test_expressions_that_do_not_compile_are_refused(vap: Policies) -> None:
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]
    r = vap.post("validatingadmissionpolicies", {"metadata": {"name": f"p-{uuid.uuid4().hex[:8]}"}, "spec": {
        "matchConstraints": {"resourceRules": rules},
        "matchConditions": [{"name": "c", "expression": "params.x"}],
        "variables": [{"name": "v", "expression": "object.("}],
        "validations": [{"expression": "variables.v && foo", "messageExpression": "authorizer.x"}],
        "auditAnnotations": [{"key": "k", "valueExpression": "'a' +"}]}})
    assert r.status_code == 422, r.text
    causes = _causes(r)
    assert [f for f, _ in causes] == ["spec.matchConditions[0].expression", "spec.variables[0].expression",
                                      "spec.validations[0].expression", "spec.validations[0].messageExpression",
                                      "spec.auditAnnotations[0].valueExpression"]
    assert all(m.startswith(f'Invalid value: "{e}": compilation failed: ERROR: <input>:')
               for (_, m), e in zip(causes, ["params.x", "object.(", "variables.v && foo", "authorizer.x", "'a' +"]))
    assert "undeclared reference to 'params' (in container '')" in causes[0][1]
    assert "undeclared reference to 'foo' (in container '')" in causes[2][1]
    assert "undeclared reference to 'authorizer'" in causes[3][1]  # messageExpression: no authorizer
    hook = {"name": "w.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "clientConfig": {"url": "https://hooks.example.com/"},
            "matchConditions": [{"name": "ok", "expression": "request.name != ''"},
                                {"name": "bad", "expression": "object.metadata.name =="}]}
    r = vap.post("validatingwebhookconfigurations", {"metadata": {"name": f"w-{uuid.uuid4().hex[:8]}"},
                                                     "webhooks": [hook]})
    assert r.status_code == 422, r.text
    assert [f for f, _ in _causes(r)] == ["webhooks[0].matchConditions[1].expression"]
    assert "compilation failed: ERROR: <input>:1:24: Syntax error:" in r.json()["message"]


def test_syntax_errors_are_refused_in_cel_gos_words(vap: Policies) -> None:
    """cel-go's parser judges syntax (cel/syntax.py): macro argument errors cel-rust let through, and its own
    words and positions where cel-rust's differed, in the Status's message after the field path."""
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]
    name = f"p-{uuid.uuid4().hex[:8]}"
    r = vap.post("validatingadmissionpolicies", {"metadata": {"name": name}, "spec": {
        "matchConstraints": {"resourceRules": rules},
        "validations": [{"expression": "object.all(k, k, true)"}, {"expression": "[1].map(1, 2) == []"}]}})
    assert r.status_code == 422, r.text
    assert r.json()["message"] == (
        f'ValidatingAdmissionPolicy.admissionregistration.k8s.io "{name}" is invalid: ['
        'spec.validations[0].expression: Invalid value: "object.all(k, k, true)": compilation failed: '
        "ERROR: <input>:1:15: duplicate variable name: k\n | object.all(k, k, true)\n | ..............^, "
        'spec.validations[1].expression: Invalid value: "[1].map(1, 2) == []": compilation failed: '
        "ERROR: <input>:1:9: argument is not an identifier\n | [1].map(1, 2) == []\n | ........^]")
    hook = {"name": "w.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "clientConfig": {"url": "https://hooks.example.com/"},
            "matchConditions": [{"name": "bad", "expression": "has(object.?spec)"}]}
    name = f"w-{uuid.uuid4().hex[:8]}"
    r = vap.post("validatingwebhookconfigurations", {"metadata": {"name": name}, "webhooks": [hook]})
    assert r.status_code == 422, r.text
    assert r.json()["message"] == (
        f'ValidatingWebhookConfiguration.admissionregistration.k8s.io "{name}" is invalid: '
        'webhooks[0].matchConditions[0].expression: Invalid value: "has(object.?spec)": compilation failed: '
        "ERROR: <input>:1:11: invalid argument to has() macro\n | has(object.?spec)\n | ..........^")


def test_expressions_that_do_not_type_check_are_refused(vap: Policies) -> None:
    """`CompileCELExpression`'s return-type check (`must evaluate to ...`) and the checker's overload and field
    errors, each a `field.Invalid` of the expression; `object` is dyn (no schema), so what only a schema could
    refuse is accepted."""
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]
    r = vap.post("validatingadmissionpolicies", {"metadata": {"name": f"p-{uuid.uuid4().hex[:8]}"}, "spec": {
        "matchConstraints": {"resourceRules": rules},
        "matchConditions": [{"name": "c", "expression": "'a'"}],
        "variables": [{"name": "n", "expression": "'a'"}, {"name": "m", "expression": "object.x"}],
        "validations": [{"expression": "1", "messageExpression": "object.metadata.name.size()"},
                        {"expression": "object.spec.paused"},
                        {"expression": "variables.n > 1"},
                        {"expression": "1 + 'a' == 2 || request.operation == 1"},
                        {"expression": "request.nope == '' && variables.m && variables.z"},
                        {"expression": "quantity('1').isGreaterThan(1)"},
                        {"expression": "semver('1.0.0').major() == 1"},
                        {"expression": "image('a') != null || type(1) == int"},
                        {"expression": "['a', object.metadata.name].exists(x, x == '%s %d'.format(['a', 1]))"}],
        "auditAnnotations": [{"key": "k", "valueExpression": "1"}]}})
    assert r.status_code == 422, r.text
    assert _causes(r) == [
        ("spec.matchConditions[0].expression", 'Invalid value: "\'a\'": must evaluate to bool but got string'),
        ("spec.validations[0].expression", 'Invalid value: "1": must evaluate to bool but got int'),
        ("spec.validations[0].messageExpression",
         'Invalid value: "object.metadata.name.size()": must evaluate to string but got int'),
        ("spec.validations[1].expression", 'Invalid value: "object.spec.paused": must evaluate to bool but got dyn'),
        ("spec.validations[2].expression", ('Invalid value: "variables.n > 1": compilation failed: '
                                            'ERROR: <input>:1:13: '
         "found no matching overload for '_>_' applied to '(string, int)'\n | variables.n > 1\n | ............^")),
        ("spec.validations[3].expression", ("Invalid value: \"1 + 'a' == 2 || request.operation == 1\": compilation "
         "failed: ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n"
         " | 1 + 'a' == 2 || request.operation == 1\n | ..^\n"
         "ERROR: <input>:1:35: found no matching overload for '_==_' applied to '(string, int)'\n"
         " | 1 + 'a' == 2 || request.operation == 1\n | ..................................^")),
        ("spec.validations[4].expression", ("Invalid value: \"request.nope == '' && variables.m && variables.z\": "
         "compilation failed: ERROR: <input>:1:8: undefined field 'nope'\n"
         " | request.nope == '' && variables.m && variables.z\n | .......^\n"
         "ERROR: <input>:1:47: undefined field 'z'\n"
         " | request.nope == '' && variables.m && variables.z\n | ..............................................^")),
        ("spec.validations[5].expression", ("Invalid value: \"quantity('1').isGreaterThan(1)\": compilation failed: "
         "ERROR: <input>:1:28: found no matching overload for 'isGreaterThan' applied to 'kubernetes.Quantity.(int)'"
         "\n | quantity('1').isGreaterThan(1)\n | ...........................^")),
        ("spec.validations[6].expression", "Invalid value: \"semver('1.0.0').major() == 1\": compilation failed: "
         "ERROR: <input>:1:7: undeclared reference to 'semver' (in container '')\n"
         " | semver('1.0.0').major() == 1\n | ......^\n"
         "ERROR: <input>:1:22: undeclared reference to 'major' (in container '')\n"
         " | semver('1.0.0').major() == 1\n | .....................^"),
        ("spec.validations[7].expression", "Invalid value: \"image('a') != null || type(1) == int\": "
         "compilation failed: ERROR: <input>:1:6: undeclared reference to 'image' (in container '')\n"
         " | image('a') != null || type(1) == int\n | .....^"),
        ("spec.validations[8].expression", "Invalid value: \"['a', object.metadata.name].exists(x, x == '%s %d'."
         "format(['a', 1]))\": compilation failed: ERROR: <input>:1:22: expected type 'string' but found 'dyn'\n"
         " | ['a', object.metadata.name].exists(x, x == '%s %d'.format(['a', 1]))\n | .....................^"),
        ("spec.auditAnnotations[0].valueExpression",
         'Invalid value: "1": must evaluate to one of [string null_type] but got int')]
    policy = vap.policy(variables=[{"name": "n", "expression": "object.data.size()"}],
                        validations=[{"expression": "object.data.x == 'y' || variables.n > 1 || object.a + 1 > 2",
                                      "messageExpression": "'x: ' + string(variables.n)"},
                                     {"expression": "has(object.a) ? object.a.all(x, x > 1) : true"},
                                     {"expression": "type(object.a) == string || type(object.a) == list"}],
                        auditAnnotations=[{"key": "k", "valueExpression": "object.x == 1 ? 'a' : 'b'"}])
    assert policy


def test_expressions_cel_gos_checker_refuses_are_refused(vap: Policies) -> None:
    """What kube-apiserver's checker (cel-go v0.23.2) refuses at write time though every name is declared:
    ternary branches of different types, equality across types, an undeclared member function, a global function
    called as a member (quantity's `sign` is declared global), a wrong argument count, selection on a string."""
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]
    expressions = ["object.data.size() > 1 ? 'many' : 1", "request.dryRun == 'true'", "'a'.foo()",
                   "quantity('1').sign() == 1", "request.name.startsWith('a', 'b')", "request.name.x == 'y'"]
    r = vap.post("validatingadmissionpolicies", {"metadata": {"name": f"p-{uuid.uuid4().hex[:8]}"}, "spec": {
        "matchConstraints": {"resourceRules": rules},
        "validations": [{"expression": e} for e in expressions]}})
    assert r.status_code == 422, r.text
    errors = [("1:24", "found no matching overload for '_?_:_' applied to '(bool, string, int)'"),
              ("1:16", "found no matching overload for '_==_' applied to '(bool, string)'"),
              ("1:8", "undeclared reference to 'foo' (in container '')"),
              ("1:19", "found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'"),
              ("1:24", "found no matching overload for 'startsWith' applied to 'string.(string, string)'"),
              ("1:13", "type 'string' does not support field selection")]
    expected = []
    for i, (e, (at, message)) in enumerate(zip(expressions, errors)):
        col = int(at.split(":")[1])
        expected.append((f"spec.validations[{i}].expression", f'Invalid value: "{e}": compilation failed: '
                         f"ERROR: <input>:{at}: {message}\n | {e}\n | {'.' * (col - 1)}^"))
    assert _causes(r) == expected


def test_deny_refuses_with_upstreams_message(vap: Policies) -> None:
    policy = vap.policy(validations=[{"expression": "object.data.size() < 2"},
                                     {"expression": "!('secret' in object.data)", "reason": "Forbidden",
                                      "messageExpression": "'no secret in ' + object.metadata.name"}])
    binding = vap.bind(policy)
    r = vap.cm("c1", {"a": "1", "b": "2"})
    message = (f"ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: "
               "failed expression: object.data.size() < 2")
    assert r.status_code == 422, r.text
    assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                        "message": f'configmaps "c1" is forbidden: {message}', "reason": "Invalid",
                        "details": {"name": "c1", "kind": "configmaps", "causes": [{"message": message}]},
                        "code": 422}
    r = vap.cm("c2", {"secret": "x"})
    assert (r.status_code, r.json()["reason"]) == (403, "Forbidden")
    assert r.json()["message"].endswith("denied request: no secret in c2")
    assert vap.cm("c3", {"a": "1"}).status_code == 201


def test_warn_adds_a_warning_header(vap: Policies) -> None:
    policy = vap.policy(validations=[{"expression": "object.data.size() < 1", "message": "keep it empty"}])
    binding = vap.bind(policy, ("Warn", "Audit"))
    r = vap.cm("w1", {"a": "1"})
    assert r.status_code == 201, r.text
    assert r.headers["Warning"] == (f'299 - "Validation failed for ValidatingAdmissionPolicy \'{policy}\' with '
                                    f'binding \'{binding}\': keep it empty"')


def test_params_from_a_configmap(vap: Policies, ns: str) -> None:
    assert vap.cm("limits", {"max": "2"}).status_code == 201
    policy = vap.policy(paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
                        validations=[{"expression": "object.data.size() <= int(params.data.max)",
                                      "messageExpression": "'at most ' + params.data.max + ' keys'"}])
    binding = vap.bind(policy, paramRef={"name": "limits", "namespace": ns, "parameterNotFoundAction": "Deny"})
    r = vap.cm("p1", {"a": "1", "b": "2", "c": "3"})
    assert r.status_code == 422 and r.json()["message"].endswith(
        f"ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: at most 2 keys"), r.text
    assert vap.cm("p2", {"a": "1"}).status_code == 201
    missing = vap.bind(policy, paramRef={"name": "absent", "parameterNotFoundAction": "Deny"})
    r = vap.cm("p3", {"a": "1"})
    assert r.status_code == 422 and r.json()["message"].endswith(
        f"with binding '{missing}' denied request: failed to configure binding: no params found for policy "
        "binding with `Deny` parameterNotFoundAction"), r.text


def test_selector_params_allow_when_none_found(vap: Policies) -> None:
    policy = vap.policy(paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
                        validations=[{"expression": "object.metadata.name != params.data.banned"}])
    vap.bind(policy, paramRef={"selector": {"matchLabels": {"role": "ban"}}, "parameterNotFoundAction": "Allow"})
    assert vap.cm("free", {"a": "1"}).status_code == 201  # no params: nothing evaluated
    assert vap.cm("ban1", {"banned": "evil"}, labels={"role": "ban"}).status_code == 201
    assert vap.cm("evil").status_code == 422


def test_conditions_variables_and_request(vap: Policies, ns: str) -> None:
    policy = vap.policy(
        matchConditions=[{"name": "labelled", "expression": "has(object.metadata.labels) && "
                                                            "'checked' in object.metadata.labels"}],
        variables=[{"name": "owner", "expression": "object.metadata.labels.checked"}],
        validations=[{"expression": "variables.owner == request.userInfo.username || "
                                    "variables.owner == namespaceObject.metadata.name",
                      "messageExpression": "request.operation + ' by ' + variables.owner"}])
    vap.bind(policy)
    assert vap.cm("skipped").status_code == 201  # the condition is false: not evaluated
    assert vap.cm("mine", labels={"checked": ns}).status_code == 201
    r = vap.cm("theirs", labels={"checked": "someone"})
    assert r.status_code == 422 and r.json()["message"].endswith("denied request: CREATE by someone"), r.text


def test_evaluation_errors_follow_the_failure_policy(vap: Policies) -> None:
    strict = vap.policy(validations=[{"expression": "object.data.missing == 'x'"}])
    binding = vap.bind(strict)
    r = vap.cm("e1", {"a": "1"})
    assert r.status_code == 422 and r.json()["message"].endswith(
        f"ValidatingAdmissionPolicy '{strict}' with binding '{binding}' denied request: expression "
        "'object.data.missing == 'x'' resulted in error: no such key: missing"), r.text
    requests.delete(f"{vap.server.url}{AR}/validatingadmissionpolicybindings/{binding}")
    lenient = vap.policy(failurePolicy="Ignore", validations=[{"expression": "object.data.missing == 'x'"}])
    vap.bind(lenient)
    assert vap.cm("e2", {"a": "1"}).status_code == 201


def test_evaluation_errors_are_in_cel_gos_words(vap: Policies) -> None:
    """cel-go's `modulus by zero` and `integer overflow` (`common/types/err.go`) and its conversion error
    (`string.go`) reach the denial (cel-rust said `division by zero`, `Arithmetic overflow in 'add' on ...` and
    read `0x10` with its own parser's words)."""
    policy = vap.policy(validations=[{"expression": "int(object.data.n) % int(object.data.d) == 0"},
                                     {"expression": "int(object.data.n) + 9223372036854775807 > 0"}])
    binding = vap.bind(policy)
    denied = f"ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: expression "
    r = vap.cm("m1", {"n": "1", "d": "0"})
    assert r.status_code == 422 and r.json()["message"].endswith(
        denied + "'int(object.data.n) % int(object.data.d) == 0' resulted in error: modulus by zero"), r.text
    r = vap.cm("m2", {"n": "1", "d": "1"})
    assert r.status_code == 422 and r.json()["message"].endswith(
        denied + "'int(object.data.n) + 9223372036854775807 > 0' resulted in error: integer overflow"), r.text
    r = vap.cm("m3", {"n": "0x10", "d": "1"})
    assert r.status_code == 422 and "resulted in error: type conversion error from 'string' to 'int'" in \
        r.json()["message"], r.text
    assert vap.cm("m4", {"n": "-4", "d": "2"}).status_code == 201


def test_delete_sees_the_old_object(vap: Policies, ns: str) -> None:
    assert vap.cm("keep", labels={"protected": "yes"}).status_code == 201
    assert vap.cm("drop").status_code == 201
    policy = vap.policy(("DELETE",), validations=[{
        "expression": "object == null && !(has(oldObject.metadata.labels) && "
                      "'protected' in oldObject.metadata.labels)", "message": "protected"}])
    vap.bind(policy)
    url = f"{vap.server.url}/api/v1/namespaces/{ns}/configmaps"
    r = requests.delete(f"{url}/keep")
    assert r.status_code == 422 and r.json()["message"].endswith("denied request: protected"), r.text
    assert requests.delete(f"{url}/drop").status_code == 200


def test_unknown_param_kind_is_a_policy_configuration_error(vap: Policies) -> None:
    policy = vap.policy(paramKind={"apiVersion": "example.com/v1", "kind": "Limits"},
                        validations=[{"expression": "true"}])
    vap.bind(policy, paramRef={"name": "x", "parameterNotFoundAction": "Allow"})
    r = vap.cm("u1")
    assert r.status_code == 422 and r.json()["message"] == (
        f'configmaps "u1" is forbidden: ValidatingAdmissionPolicy \'{policy}\' denied request: failed to configure '
        "policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limits'"), r.text


def test_kubernetes_libraries_in_a_policy(vap: Policies) -> None:
    """quantity, cidr/ip, url and format (cel/libs/) as a policy author uses them; a library's evaluation error is
    the failure policy's, worded as cel-go's."""
    policy = vap.policy(validations=[
        {"expression": "!has(object.data.mem) || quantity(object.data.mem).isLessThan(quantity('1Gi'))"},
        {"expression": "!has(object.data.ip) || cidr('10.0.0.0/8').containsIP(object.data.ip)"},
        {"expression": "!has(object.data.url) || url(object.data.url).getScheme() == 'https'"},
        {"expression": "!has(object.data.host) || !format.dns1123Subdomain().validate(object.data.host).hasValue()",
         "messageExpression": "format.dns1123Subdomain().validate(object.data.host).value()[0]"}])
    vap.bind(policy)
    assert vap.cm("ok", {"mem": "512Mi", "ip": "10.1.2.3", "url": "https://x/y", "host": "a.b"}).status_code == 201
    assert vap.cm("big", {"mem": "2Gi"}).json()["message"].endswith(
        "failed expression: !has(object.data.mem) || quantity(object.data.mem).isLessThan(quantity('1Gi'))")
    assert vap.cm("far", {"ip": "192.168.0.1"}).status_code == 422
    assert vap.cm("http", {"url": "http://x/"}).status_code == 422
    assert vap.cm("host", {"host": "A_B"}).json()["message"].endswith(
        "denied request: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
        "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation "
        "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
    r = vap.cm("bad", {"mem": "2Go"})
    assert r.status_code == 422 and "quantities must match the regular expression" in r.json()["message"], r.text


def test_optional_syntax_in_a_policy(vap: Policies) -> None:
    """`.?` and `orValue` (cel.OptionalTypes, 1.28+) compile on write and run on admission."""
    vap.bind(vap.policy(validations=[{"expression": "object.?data.mode.orValue('safe') == 'safe'",
                                      "messageExpression": "'mode ' + object.data[?'mode'].orValue('')"}]))
    assert vap.cm("plain").status_code == 201
    r = vap.cm("unsafe", {"mode": "fast"})
    assert r.status_code == 422 and r.json()["message"].endswith("denied request: mode fast"), r.text
