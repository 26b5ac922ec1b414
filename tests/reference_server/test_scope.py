"""The namespace as a scope, wired into the server: authentication/impersonation/RBAC authorization (opt-in),
ResourceQuota and LimitRange admission and the quota controller (always on)."""
from __future__ import annotations

import pytest
import requests

from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.serve import build_parser

from .replicas import until
from .scope_client import GROUP, RBAC, ScopeClient


@pytest.fixture(scope="module")
def rbac_server(tmp_path_factory):
    users = tmp_path_factory.mktemp("scope") / "users.csv"
    users.write_text('alice-token,alice,1,"dev,qa"\nbob-token,bob,2\n')
    srv = start_embedded(authorization="rbac", users_file=str(users), flavor="bare")
    yield srv
    srv.stop()


@pytest.fixture
def c(rbac_server):
    return ScopeClient(rbac_server)


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


# ---- default: AlwaysAllow (the RBAC API served, not enforced) ----------------------------------------
def test_default_server_serves_rbac_without_enforcing_it(url, http):
    groups = http.get(f"{url}/apis").json()["groups"]
    assert "rbac.authorization.k8s.io" in [g["name"] for g in groups]
    assert http.get(f"{url}{RBAC}/clusterroles/cluster-admin").status_code == 200
    assert http.get(f"{url}/api/v1/namespaces", headers={"Impersonate-User": "x"}).status_code == 200


def test_rbac_generates_an_admin_token(rbac_server):
    assert rbac_server.token
    assert requests.get(f"{rbac_server.url}/api/v1/namespaces", headers=bearer(rbac_server.token)).status_code == 200


def test_bad_users_file_is_a_start_error(tmp_path):
    bad = tmp_path / "users.csv"
    bad.write_text("only,two\n")
    with pytest.raises(ValueError, match="at least 3 columns"):
        start_embedded(authorization="rbac", users_file=str(bad))
    with pytest.raises(ValueError, match="authorization mode"):
        start_embedded(authorization="webhook")


def test_serve_options():
    args = build_parser().parse_args(["--authorization", "rbac", "--users", "u.csv"])
    assert (args.authorization, args.users) == ("rbac", "u.csv")
    assert build_parser().parse_args([]).authorization == "always-allow"


# ---- authentication and authorization ------------------------------------------------------------
def test_anonymous_and_public_paths(rbac_server):
    u = rbac_server.url
    r = requests.get(f"{u}/api/v1/namespaces")
    assert r.status_code == 403
    assert r.json()["message"] == ('namespaces is forbidden: User "system:anonymous" cannot list resource '
                                   '"namespaces" in API group "" at the cluster scope')
    assert requests.get(f"{u}/healthz").status_code == 200
    assert requests.get(f"{u}/version").status_code == 200
    assert requests.get(f"{u}/api").status_code == 403  # discovery is for authenticated users only


def test_unknown_token_is_401(rbac_server):
    r = requests.get(f"{rbac_server.url}/api/v1/namespaces", headers=bearer("nope"))
    assert r.status_code == 401 and r.json()["reason"] == "Unauthorized"


def test_users_file_tokens(rbac_server, c):
    u = rbac_server.url
    assert requests.get(f"{u}/api", headers=bearer("alice-token")).status_code == 200
    ns = c.ns()
    r = requests.get(f"{u}/api/v1/namespaces/{ns}/configmaps", headers=bearer("bob-token"))
    assert r.status_code == 403 and 'User "bob"' in r.json()["message"]
    c.post(f"{RBAC}/namespaces/{ns}/rolebindings", {
        "metadata": {"name": "qa"}, "roleRef": {"apiGroup": GROUP, "kind": "Role", "name": "reader"},
        "subjects": [{"kind": "Group", "name": "qa", "apiGroup": GROUP}]})
    c.post(f"{RBAC}/namespaces/{ns}/roles", {"metadata": {"name": "reader"}, "rules": [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}]})
    assert requests.get(f"{u}/api/v1/namespaces/{ns}/configmaps", headers=bearer("alice-token")).status_code == 200


def test_impersonation_needs_permission(rbac_server):
    r = requests.get(f"{rbac_server.url}/api/v1/namespaces",
                     headers={**bearer("bob-token"), "Impersonate-User": "alice"})
    assert r.status_code == 403
    assert r.json()["message"] == ('users "alice" is forbidden: User "bob" cannot impersonate resource "users" '
                                   'in API group "" at the cluster scope')


def test_forbidden_before_not_found(c):
    r = c.get("/api/v1/namespaces/x/nosuchthings", "u")
    assert r.status_code == 403


def test_role_scope(c):
    a, b = c.ns("a"), c.ns("b")
    c.grant(a, "u", ["get", "list"])
    assert c.get(f"/api/v1/namespaces/{a}/configmaps", "u").status_code == 200
    r = c.get(f"/api/v1/namespaces/{b}/configmaps/x", "u")
    assert r.status_code == 403
    assert r.json()["message"] == ('configmaps "x" is forbidden: User "u" cannot get resource "configmaps" in '
                                   f'API group "" in the namespace "{b}"')
    assert r.json()["details"] == {"name": "x", "kind": "configmaps"}
    assert c.get("/api/v1/configmaps", "u").status_code == 403
    assert c.cm(a, "x", "u").status_code == 403


# ---- the RBAC API -----------------------------------------------------------------------------------
def test_rbac_discovery(c):
    groups = c.get("/apis").json()["groups"]
    names = [g["name"] for g in groups]
    assert names.index("authorization.k8s.io") < names.index(GROUP) < names.index("apiextensions.k8s.io")
    assert c.get(f"/apis/{GROUP}").json()["kind"] == "APIGroup"
    res = c.get(RBAC).json()
    assert res["groupVersion"] == f"{GROUP}/v1"
    assert {r["name"]: r["namespaced"] for r in res["resources"]} == {
        "clusterrolebindings": False, "clusterroles": False, "rolebindings": True, "roles": True}


def test_bootstrap_policy_is_stored(c):
    cr = c.get(f"{RBAC}/clusterroles/cluster-admin").json()
    assert cr["kind"] == "ClusterRole" and cr["apiVersion"] == f"{GROUP}/v1" and cr["metadata"]["uid"]
    names = [i["metadata"]["name"] for i in c.get(f"{RBAC}/clusterrolebindings").json()["items"]]
    assert "system:discovery" in names


def test_rbac_objects(c):
    ns = c.ns()
    r = c.post(f"{RBAC}/namespaces/{ns}/rolebindings", {"metadata": {"name": "rb"},
                                                          "roleRef": {"kind": "Role", "name": "r"},
                                                          "subjects": [{"kind": "User", "name": "u"}]})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["roleRef"]["apiGroup"] == GROUP and body["subjects"][0]["apiGroup"] == GROUP
    assert body["metadata"]["uid"] and body["metadata"]["creationTimestamp"]
    r = c.post(f"{RBAC}/namespaces/{ns}/rolebindings", {"metadata": {"name": "bad"}, "roleRef": {"kind": "Nope"}})
    assert r.status_code == 422 and r.json()["message"].startswith(f'RoleBinding.{GROUP} "bad" is invalid: ')
    r = c.get(f"{RBAC}/namespaces/{ns}/roles/none")
    assert r.status_code == 404 and r.json()["message"] == f'roles.{GROUP} "none" not found'
    r = c.post(f"{RBAC}/namespaces/{ns}/roles", {"apiVersion": "v1", "kind": "Role", "metadata": {"name": "x"}})
    assert r.status_code == 400
    listed = c.get(f"{RBAC}/roles").json()
    assert listed["kind"] == "RoleList" and listed["apiVersion"] == f"{GROUP}/v1"


def test_rbac_objects_go_with_their_namespace(c):
    ns = c.ns()
    c.grant(ns, "u", ["list"])
    assert c.delete(f"/api/v1/namespaces/{ns}").status_code == 200
    c.until(lambda: c.get(f"/api/v1/namespaces/{ns}").status_code == 404, "namespace gone")
    assert c.get(f"{RBAC}/namespaces/{ns}/roles").json()["items"] == []


# ---- quota and limits (always on) --------------------------------------------------------------------
def test_quota_status_owned_by_the_server(server):
    c = ScopeClient(server)
    ns = c.ns()
    r = c.post(f"/api/v1/namespaces/{ns}/resourcequotas", {
        "metadata": {"name": "q"}, "spec": {"hard": {"count/configmaps": "2", "requests.cpu": "0.5"}},
        "status": {"used": {"count/configmaps": "9"}}})
    assert r.status_code == 201 and r.json()["status"] == {}  # (dropped; a by-value struct is written)
    assert r.json()["spec"]["hard"]["requests.cpu"] == "500m"
    q = c.until_used(ns, "q", {"count/configmaps": "0"})
    assert q["status"]["hard"] == {"count/configmaps": "2", "requests.cpu": "500m"}
    q["spec"]["hard"]["count/configmaps"] = "3"
    q["status"] = {"used": {"count/configmaps": "7"}}
    r = c.req("PUT", f"/api/v1/namespaces/{ns}/resourcequotas/q", json=q)
    assert r.status_code == 200 and r.json()["status"]["used"]["count/configmaps"] == "0"
    c.until(lambda: c.get(f"/api/v1/namespaces/{ns}/resourcequotas/q").json()["status"]["hard"]
            .get("count/configmaps") == "3", "status.hard follows spec.hard")


def test_quota_counts_enforces_and_replenishes(server):
    c = ScopeClient(server)
    ns = c.ns()
    c.quota(ns, {"count/configmaps": "1"})
    assert c.cm(ns, "a").status_code == 201
    assert c.used(ns) == {"count/configmaps": "1"}  # charged by admission, with the create
    r = c.cm(ns, "b")
    assert r.status_code == 403 and r.json()["message"] == (
        'configmaps "b" is forbidden: exceeded quota: q, requested: count/configmaps=1, '
        'used: count/configmaps=1, limited: count/configmaps=1')
    assert c.post(f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "d"}},
                  params={"dryRun": "All"}).status_code == 403
    assert c.delete(f"/api/v1/namespaces/{ns}/configmaps/a").status_code == 200
    c.until_used(ns, "q", {"count/configmaps": "0"})
    assert c.cm(ns, "b").status_code == 201


def test_limit_range_defaults_and_bounds(server):
    c = ScopeClient(server)
    ns = c.ns()
    c.limit_range(ns, {"type": "Container", "max": {"cpu": "1"}})
    lr = c.get(f"/api/v1/namespaces/{ns}/limitranges/l").json()
    assert lr["spec"]["limits"][0]["default"] == {"cpu": "1"}  # SetDefaults_LimitRangeItem, visible on GET
    r = c.pod(ns, "p")
    assert r.status_code == 201
    assert r.json()["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}
    r = c.pod(ns, "big", {"limits": {"cpu": "2"}})
    assert r.status_code == 403 and r.json()["message"] == (
        'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2')


def _claim(name: str, storage: str, cls: str = "") -> dict:
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": storage}}}
    if cls:
        spec["storageClassName"] = cls
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name}, "spec": spec}


def _resize(c: ScopeClient, ns: str, name: str, storage: str):
    return c.req("PATCH", f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{name}",
                 data='{"spec":{"resources":{"requests":{"storage":"%s"}}}}' % storage,
                 headers={"Content-Type": "application/merge-patch+json"})


def _bound_claim(c: ScopeClient, ns: str, cls: str, expandable: bool) -> str:
    """A claim the PV controller has bound to a volume of class `cls` (a StorageClass allowing expansion or not)."""
    assert c.post("/apis/storage.k8s.io/v1/storageclasses", {"metadata": {"name": cls}, "provisioner": "example.com/x",
                                                             "allowVolumeExpansion": expandable}).status_code == 201
    assert c.post("/api/v1/persistentvolumes", {"metadata": {"name": cls}, "spec": {
        "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": f"/tmp/{cls}"},
        "storageClassName": cls}}).status_code == 201
    assert c.post(f"/api/v1/namespaces/{ns}/persistentvolumeclaims", _claim("data", "1Gi", cls)).status_code == 201
    until(lambda: (c.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/data").json().get("status") or {})
          .get("phase") == "Bound", "the claim bound by the PV controller")
    return "data"


def test_limit_range_bounds_claims_on_create_and_resize(server):
    """LimitRanger handles PersistentVolumeClaims on create and update (`SupportsAttributes`), before
    PersistentVolumeClaimResize."""
    c = ScopeClient(server)
    ns = c.ns()
    c.limit_range(ns, {"type": "PersistentVolumeClaim", "max": {"storage": "2Gi"}})
    r = c.post(f"/api/v1/namespaces/{ns}/persistentvolumeclaims", _claim("big", "5Gi"))
    assert r.status_code == 403 and r.json()["message"] == (
        'persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, '
        'but request is 5Gi')
    name = _bound_claim(c, ns, f"lr-{ns}", expandable=True)
    r = _resize(c, ns, name, "3Gi")
    assert r.status_code == 403 and r.json()["message"] == (
        f'persistentvolumeclaims "{name}" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, '
        'but request is 3Gi')
    r = _resize(c, ns, name, "2Gi")
    assert r.status_code == 200 and r.json()["spec"]["resources"]["requests"]["storage"] == "2Gi"


def test_a_claim_grows_only_when_its_class_allows_expansion(server):
    """PersistentVolumeClaimResize (resize/admission.go): a bound claim of a class without
    `allowVolumeExpansion` may not grow; shrinking or keeping its size is the strategy's business."""
    c = ScopeClient(server)
    ns = c.ns()
    name = _bound_claim(c, ns, f"fixed-{ns}", expandable=False)
    r = _resize(c, ns, name, "2Gi")
    assert r.status_code == 403 and r.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f'persistentvolumeclaims "{name}" is forbidden: only dynamically provisioned pvc can be resized '
                   'and the storageclass that provisions the pvc must support resize',
        "reason": "Forbidden", "details": {"name": name, "kind": "persistentvolumeclaims"}, "code": 403}
    assert _resize(c, ns, name, "1Gi").status_code == 200  # no growth: nothing to judge


def test_quota_charges_a_claims_growth_and_a_services_new_node_ports(server):
    """ResourceQuota on update (services.go and persistent_volume_claims.go `Handles` updates): the growth of
    the object's usage is checked and charged; an update that adds nothing is not."""
    c = ScopeClient(server)
    ns = c.ns()
    c.quota(ns, {"requests.storage": "3Gi", "services.nodeports": "1"})
    c.until_used(ns, "q", {"requests.storage": "0", "services.nodeports": "0"})
    name = _bound_claim(c, ns, f"q-{ns}", expandable=True)
    c.until_used(ns, "q", {"requests.storage": "1Gi", "services.nodeports": "0"})
    r = _resize(c, ns, name, "4Gi")
    assert r.status_code == 403 and r.json()["message"] == (
        f'persistentvolumeclaims "{name}" is forbidden: exceeded quota: q, requested: requests.storage=3Gi, '
        'used: requests.storage=1Gi, limited: requests.storage=3Gi')
    assert _resize(c, ns, name, "3Gi").status_code == 200
    assert c.get(f"/api/v1/namespaces/{ns}/resourcequotas/q").json()["status"]["used"]["requests.storage"] == "3Gi"

    svc = {"metadata": {"name": "web"}, "spec": {"ports": [{"name": "a", "port": 80}, {"name": "b", "port": 81}]}}
    assert c.post(f"/api/v1/namespaces/{ns}/services", svc).status_code == 201
    r = c.req("PATCH", f"/api/v1/namespaces/{ns}/services/web", data='{"spec":{"type":"NodePort"}}',
              headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 403 and r.json()["message"] == (
        'services "web" is forbidden: exceeded quota: q, requested: services.nodeports=2, '
        'used: services.nodeports=0, limited: services.nodeports=1')
