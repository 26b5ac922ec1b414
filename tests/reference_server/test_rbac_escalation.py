"""Issue 13, item 6: RBAC privilege escalation is refused as kube-apiserver's policy-based RBAC storage
refuses it (`ConfirmNoEscalation`; `bind` / `escalate` verbs; system:masters exempt)."""
from __future__ import annotations

from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded

G = "rbac.authorization.k8s.io"
NS = "esc"


@pytest.fixture(scope="module")
def rbac(tmp_path_factory) -> Iterator[RunningServer]:
    users = tmp_path_factory.mktemp("esc") / "users.csv"
    users.write_text('alice-token,alice,1,"dev"\n')
    srv = start_embedded(authorization="rbac", users_file=str(users))
    admin = _as(srv, srv.token)
    assert admin("POST", "/api/v1/namespaces", {"metadata": {"name": NS}}).status_code == 201
    assert admin("POST", f"/apis/{G}/v1/namespaces/{NS}/roles", role("rb-writer", [
        {"apiGroups": [G], "resources": ["rolebindings", "roles"], "verbs": ["create", "update", "get"]},
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}])).status_code == 201
    assert admin("POST", f"/apis/{G}/v1/namespaces/{NS}/rolebindings",
                 binding("alice-rb-writer", "Role", "rb-writer")).status_code == 201
    yield srv
    srv.stop()


def _as(srv: RunningServer, token: str):
    def call(method: str, path: str, body: Any = None) -> requests.Response:
        return requests.request(method, srv.url + path, json=body, timeout=10,
                                headers={"Authorization": f"Bearer {token}"})
    return call


def role(name: str, rules: list[dict], kind: str = "Role") -> dict:
    return {"apiVersion": f"{G}/v1", "kind": kind, "metadata": {"name": name}, "rules": rules}


def binding(name: str, ref_kind: str, ref_name: str, user: str = "alice", kind: str = "RoleBinding") -> dict:
    return {"apiVersion": f"{G}/v1", "kind": kind, "metadata": {"name": name},
            "roleRef": {"apiGroup": G, "kind": ref_kind, "name": ref_name},
            "subjects": [{"apiGroup": G, "kind": "User", "name": user}]}


def test_binding_cluster_admin_without_its_rights_is_forbidden(rbac):
    alice = _as(rbac, "alice-token")
    r = alice("POST", f"/apis/{G}/v1/namespaces/{NS}/rolebindings", binding("evil", "ClusterRole", "cluster-admin"))
    assert r.status_code == 403, r.text
    st = r.json()
    assert st["reason"] == "Forbidden" and st["details"] == {"name": "evil", "group": G, "kind": "rolebindings"}
    assert st["message"] == (
        f'rolebindings.{G} "evil" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting '
        'to grant RBAC permissions not currently held:\n'
        '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}')
    assert alice("GET", f"/api/v1/namespaces/{NS}/secrets").status_code == 403
    assert alice("GET", f"/apis/{G}/v1/namespaces/{NS}/rolebindings/evil").status_code == 404


def test_binding_a_role_whose_rules_are_held_is_allowed(rbac):
    admin, alice = _as(rbac, rbac.token), _as(rbac, "alice-token")
    assert admin("POST", f"/apis/{G}/v1/namespaces/{NS}/roles", role("cm-reader", [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}])).status_code == 201
    r = alice("POST", f"/apis/{G}/v1/namespaces/{NS}/rolebindings", binding("ok", "Role", "cm-reader", "bob"))
    assert r.status_code == 201, r.text


def test_missing_role_reference_is_not_found(rbac):
    alice = _as(rbac, "alice-token")
    r = alice("POST", f"/apis/{G}/v1/namespaces/{NS}/rolebindings", binding("dangling", "ClusterRole", "nope"))
    assert r.status_code == 404 and r.json()["message"] == f'clusterrole.{G} "nope" not found'


def test_roles_may_only_hold_rules_the_writer_holds(rbac):
    alice = _as(rbac, "alice-token")
    held = alice("POST", f"/apis/{G}/v1/namespaces/{NS}/roles", role("mine", [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]))
    assert held.status_code == 201, held.text
    r = alice("POST", f"/apis/{G}/v1/namespaces/{NS}/roles", role("grab", [
        {"apiGroups": [""], "resources": ["secrets", "configmaps"], "verbs": ["get", "list"]}]))
    assert r.status_code == 403
    assert r.json()["message"] == (
        f'roles.{G} "grab" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting '
        'to grant RBAC permissions not currently held:\n'
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}\n'
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}')
    mine = alice("GET", f"/apis/{G}/v1/namespaces/{NS}/roles/mine").json()
    mine["rules"].append({"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]})
    assert alice("PUT", f"/apis/{G}/v1/namespaces/{NS}/roles/mine", mine).status_code == 403


def test_bind_and_escalate_verbs_allow_it(rbac):
    admin, alice = _as(rbac, rbac.token), _as(rbac, "alice-token")
    assert admin("POST", f"/apis/{G}/v1/namespaces/{NS}/roles", role("binder", [
        {"apiGroups": [G], "resources": ["clusterroles"], "verbs": ["bind"], "resourceNames": ["view"]},
        {"apiGroups": [G], "resources": ["roles"], "verbs": ["escalate"]}])).status_code == 201
    assert admin("POST", f"/apis/{G}/v1/namespaces/{NS}/rolebindings",
                 binding("alice-binder", "Role", "binder")).status_code == 201
    if admin("GET", f"/apis/{G}/v1/clusterroles/view").status_code == 404:
        admin("POST", f"/apis/{G}/v1/clusterroles", role("view", [
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}], kind="ClusterRole"))
    r = alice("POST", f"/apis/{G}/v1/namespaces/{NS}/rolebindings", binding("viewers", "ClusterRole", "view"))
    assert r.status_code == 201, r.text
    r = alice("POST", f"/apis/{G}/v1/namespaces/{NS}/rolebindings", binding("admins", "ClusterRole", "cluster-admin"))
    assert r.status_code == 403
    r = alice("POST", f"/apis/{G}/v1/namespaces/{NS}/roles", role("escalated", [
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]))
    assert r.status_code == 201, r.text


def test_system_masters_may_grant_anything(rbac):
    admin = _as(rbac, rbac.token)
    r = admin("POST", f"/apis/{G}/v1/clusterrolebindings",
              binding("root-for-carol", "ClusterRole", "cluster-admin", "carol", kind="ClusterRoleBinding"))
    assert r.status_code == 201, r.text
