"""The RBAC API under the default `--authorization always-allow`: kube-apiserver installs its RBAC REST storage and runs
the `rbac/bootstrap-roles` hook whatever the authorization mode (`pkg/registry/rbac/rest/storage_rbac.go`), and under
AlwaysAllow the policy-based storages' escalation checks pass (`pkg/registry/rbac/escalation_check.go`: the
authorizer grants `escalate`/`bind`). So discovery lists the group, kubectl sees the bootstrap policy, any client
writes Roles and RoleBindings, and the namespace controller deletes them with their namespace."""
from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import requests

from tests.reference_server.replicas import until
from tests.reference_server.test_real_clients import Kube, serve_kube

G = "rbac.authorization.k8s.io"
RBAC = f"/apis/{G}/v1"


def test_discovery_lists_the_rbac_group(url: str, http: requests.Session):
    v1 = {"groupVersion": f"{G}/v1", "version": "v1"}
    groups = {g["name"]: g for g in http.get(f"{url}/apis").json()["groups"]}
    assert groups[G] == {"name": G, "versions": [v1], "preferredVersion": v1}
    resources = {r["name"]: r for r in http.get(url + RBAC).json()["resources"]}
    assert sorted(resources) == ["clusterrolebindings", "clusterroles", "rolebindings", "roles"]
    assert (resources["roles"]["namespaced"], resources["clusterroles"]["namespaced"]) == (True, False)


def test_the_bootstrap_policy_is_served_and_its_hook_passed(url: str, http: requests.Session):
    names = [r["metadata"]["name"] for r in http.get(f"{url}{RBAC}/clusterroles").json()["items"]]
    assert {"cluster-admin", "admin", "edit", "view", "system:discovery",
            "system:controller:namespace-controller"} <= set(names)
    role = http.get(f"{url}{RBAC}/namespaces/kube-system/roles/system::leader-locking-kube-scheduler").json()
    assert role["metadata"]["managedFields"][0]["manager"] == "kube-apiserver"
    assert http.get(f"{url}/readyz/poststarthook/rbac/bootstrap-roles").text == "ok"


def test_any_client_writes_roles_and_bindings_and_they_go_with_their_namespace(url: str, http: requests.Session):
    """An anonymous client grants what it does not hold (no escalation check under AlwaysAllow); deleting the
    namespace deletes its Roles and RoleBindings (the namespace controller finds them through discovery)."""
    ns = f"rbac-aa-{uuid.uuid4().hex[:8]}"
    assert http.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    role = {"apiVersion": f"{G}/v1", "kind": "Role", "metadata": {"name": "all"},
            "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]}
    r = http.post(f"{url}{RBAC}/namespaces/{ns}/roles", json=role)
    assert r.status_code == 201, r.text
    binding = {"apiVersion": f"{G}/v1", "kind": "RoleBinding", "metadata": {"name": "admins"},
               "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": "cluster-admin"},
               "subjects": [{"kind": "User", "name": "alice"}]}
    r = http.post(f"{url}{RBAC}/namespaces/{ns}/rolebindings", json=binding)
    assert r.status_code == 201, r.text
    assert r.json()["subjects"] == [{"kind": "User", "apiGroup": G, "name": "alice"}]  # defaulted as upstream
    assert http.delete(f"{url}/api/v1/namespaces/{ns}").status_code == 200
    until(lambda: http.get(f"{url}/api/v1/namespaces/{ns}").status_code == 404, "the namespace is gone")
    for plural in ("roles", "rolebindings"):
        assert http.get(f"{url}{RBAC}/namespaces/{ns}/{plural}").json()["items"] == []


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "rbac-always-allow", flavor="bare")  # the default authorization


@pytest.fixture
def kube(served: Kube) -> Kube:
    if served.binary is None:
        pytest.skip("kubectl 1.33 unavailable")
    return served


def test_kubectl_gets_clusterroles_and_writes_roles(kube: Kube):
    names = kube.ok("get", "clusterroles", "-o", "name").split()
    assert len(names) == 66  # the bootstrap policy's 31 + 35 `system:controller:*` (aggregated ones included)
    assert "clusterrole.rbac.authorization.k8s.io/cluster-admin" in names
    ns = f"rbac-kc-{uuid.uuid4().hex[:8]}"
    kube.ok("create", "namespace", ns)
    assert kube.ok("create", "role", "reader", "--verb=get,list", "--resource=pods", "-n", ns) == \
        "role.rbac.authorization.k8s.io/reader created\n"
    assert kube.ok("create", "rolebinding", "readers", "--role=reader", "--user=bob", "-n", ns) == \
        "rolebinding.rbac.authorization.k8s.io/readers created\n"
    kube.ok("delete", "namespace", ns, "--wait", "--timeout=60s")
    assert kube.get(f"{RBAC}/namespaces/{ns}/rolebindings/readers").status_code == 404


def test_official_client_reads_the_policy_and_writes_roles(served: Kube):
    from kubernetes import client, config

    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        rbac, core = client.RbacAuthorizationV1Api(api_client), client.CoreV1Api(api_client)
        admin = rbac.read_cluster_role("cluster-admin")
        assert admin.rules[0].verbs == ["*"] and admin.metadata.labels["kubernetes.io/bootstrapping"] == "rbac-defaults"
        assert "system:public-info-viewer" in [b.metadata.name for b in rbac.list_cluster_role_binding().items]
        ns = f"rbac-oc-{uuid.uuid4().hex[:8]}"
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
        rbac.create_namespaced_role(ns, client.V1Role(metadata=client.V1ObjectMeta(name="r"), rules=[
            client.V1PolicyRule(api_groups=[""], resources=["configmaps"], verbs=["get"])]))
        made = rbac.create_namespaced_role_binding(ns, client.V1RoleBinding(
            metadata=client.V1ObjectMeta(name="rb"), role_ref=client.V1RoleRef(api_group=G, kind="Role", name="r"),
            subjects=[client.RbacV1Subject(kind="User", name="carol")]))
        assert made.subjects[0].api_group == G
        assert [r.metadata.name for r in rbac.list_role_for_all_namespaces(field_selector=f"metadata.namespace={ns}")
                .items] == ["r"]
        core.delete_namespace(ns)
    finally:
        api_client.close()
