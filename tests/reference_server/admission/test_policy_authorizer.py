"""The `authorizer` variable of ValidatingAdmissionPolicies (`staging/src/k8s.io/apiserver/pkg/cel/library/authz.go`)
asks the server's authorizer as the requester: RBAC under `--authorization rbac`, AlwaysAllow otherwise."""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded

AR = "/apis/admissionregistration.k8s.io/v1"
RBAC = "/apis/rbac.authorization.k8s.io/v1"


def _policy(s: requests.Session, url: str, validations: list[dict[str, Any]], ns: str) -> None:
    name = f"p-{uuid.uuid4().hex[:8]}"
    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]
    r = s.post(f"{url}{AR}/validatingadmissionpolicies", json={"metadata": {"name": name}, "spec": {
        "matchConstraints": {"resourceRules": rules, "namespaceSelector": {"matchLabels": {"authz": ns}}},
        "validations": validations}})
    assert r.status_code == 201, r.text
    r = s.post(f"{url}{AR}/validatingadmissionpolicybindings", json={"metadata": {"name": name}, "spec": {
        "policyName": name, "validationActions": ["Deny"]}})
    assert r.status_code == 201, r.text


def _cm(s: requests.Session, url: str, ns: str, user: str | None = None) -> requests.Response:
    headers = {"Impersonate-User": user} if user else {}
    return s.post(f"{url}/api/v1/namespaces/{ns}/configmaps", headers=headers,
                  json={"metadata": {"name": f"c-{uuid.uuid4().hex[:6]}"}})


@pytest.fixture(scope="module")
def rbac() -> Iterator[tuple[RunningServer, requests.Session]]:
    srv = start_embedded(flavor="bare", authorization="rbac", token="admin-token")
    s = requests.Session()
    s.headers["Authorization"] = "Bearer admin-token"
    yield srv, s
    s.close()
    srv.stop()


def _namespace(s: requests.Session, url: str) -> str:
    ns = f"az-{uuid.uuid4().hex[:6]}"
    assert s.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": ns, "labels": {"authz": ns}}}).status_code \
        == 201
    return ns


def _bind(s: requests.Session, url: str, ns: str, user: str, role: str) -> None:
    rb = {"metadata": {"name": f"{user}-{role}"}, "subjects": [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role}}
    assert s.post(f"{url}{RBAC}/namespaces/{ns}/rolebindings", json=rb).status_code == 201


def test_authorizer_checks_answer_by_rbac(rbac: tuple[RunningServer, requests.Session]) -> None:
    """A resource check allows an `admin` of the namespace and denies an `edit` (which may not manage
    rolebindings); `requestResource` is the request's own, its reason RBAC's (none for system:masters, allowed
    before RBAC is asked); a service account's check is the account's (here bound to nothing)."""
    srv, s = rbac
    ns = _namespace(s, srv.url)
    _bind(s, srv.url, ns, "alice", "edit")
    _bind(s, srv.url, ns, "carol", "admin")
    _policy(s, srv.url, [
        {"expression": "authorizer.group('rbac.authorization.k8s.io').resource('rolebindings')"
                       ".namespace(object.metadata.namespace).check('create').allowed()",
         "message": "may not manage rolebindings"},
        {"expression": "authorizer.requestResource.check('create').reason().startsWith('RBAC: allowed by RoleBinding')",
         "message": "no RBAC reason"},
        {"expression": "!authorizer.serviceAccount(object.metadata.namespace, 'default').group('')"
                       ".resource('configmaps').namespace(object.metadata.namespace).check('create').allowed()",
         "message": "the default service account may create configmaps"}], ns)
    r = _cm(s, srv.url, ns, "alice")
    assert r.status_code == 422 and r.json()["message"].endswith(" denied request: may not manage rolebindings"), \
        r.text
    assert _cm(s, srv.url, ns, "carol").status_code == 201
    r = _cm(s, srv.url, ns)  # the admin token: system:masters
    assert r.status_code == 422 and r.json()["message"].endswith(" denied request: no RBAC reason"), r.text
    _bind(s, srv.url, ns, f"system:serviceaccount:{ns}:default", "edit")
    r = _cm(s, srv.url, ns, "carol")
    assert r.status_code == 422, r.text
    assert r.json()["message"].endswith(" denied request: the default service account may create configmaps")


def test_authorizer_without_rbac_allows_everything() -> None:
    """AlwaysAllow: every check is allowed, with no reason and no error (two checks an expression: each costs
    350,000 of the 1,000,000 per call, `library/cost.go`)."""
    srv = start_embedded()
    s = requests.Session()
    try:
        ns = _namespace(s, srv.url)
        _policy(s, srv.url, [
            {"expression": "authorizer.path('/healthz').check('get').allowed() && "
                           "authorizer.requestResource.check('delete').reason() == ''"},
            {"expression": "!authorizer.group('').resource('secrets').check('get').errored()"}], ns)
        assert _cm(s, srv.url, ns).status_code == 201
        _policy(s, srv.url, [{"expression": "!authorizer.group('x').resource('y').check('z').allowed()",
                              "message": "allowed"}], ns)
        r = _cm(s, srv.url, ns)
        assert r.status_code == 422 and r.json()["message"].endswith(" denied request: allowed"), r.text
    finally:
        s.close()
        srv.stop()
