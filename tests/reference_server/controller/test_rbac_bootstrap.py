"""controller/rbac_bootstrap.py: the `rbac/bootstrap-roles` post-start hook (pkg/registry/rbac/rest/storage_rbac.go
`EnsureRBACPolicy`) reconciles kube-apiserver 1.33's whole bootstrap policy at every start: missing objects created
(a Role's namespace first), lost rules and subjects added back, an `autoupdate: "false"` object left alone; kubectl
sees the ~70 ClusterRoles of a kind cluster and answers `auth can-i` for the controllers' service accounts as
there."""
from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from conformance.reference_server.admission.admitted import ControllerWrites
from conformance.reference_server.auth.bootstrap_policy import namespace_policy, policy
from conformance.reference_server.controller import rbac_bootstrap
from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.registry.store import DeleteOptions
from conformance.reference_server.server import build_context
from tests.reference_server.replicas import until
from tests.reference_server.test_real_clients import Kube, serve_kube

G = "rbac.authorization.k8s.io"
TOKEN = secrets.token_hex(16)  # a server's token is masked in every log of the process: never a short word
DIRECT = ControllerWrites(None, "")
PROTECT = {"rbac.authorization.kubernetes.io/autoupdate": "false"}


def _store(registry: Any, plural: str) -> Any:
    return registry.group(G, plural)


def test_ensure_creates_what_is_missing_and_keeps_what_is_there():
    registry = build_context(authorization="rbac", token=TOKEN).registry
    assert rbac_bootstrap.ensure(registry, DIRECT) == []
    roles, clusterroles = _store(registry, "roles"), _store(registry, "clusterroles")
    stored = roles.get("kube-system", "system::leader-locking-kube-scheduler")
    assert [m["manager"] for m in stored["metadata"]["managedFields"]] == ["kube-apiserver"]
    assert clusterroles.get("", "system:controller:namespace-controller")
    assert _store(registry, "clusterrolebindings").get("", "system:node-proxier")["subjects"][0]["name"] == \
        "system:kube-proxy"
    roles.delete("kube-system", "system:controller:token-cleaner", DeleteOptions())
    assert rbac_bootstrap.ensure(registry, DIRECT) == []  # made again; the others untouched
    assert roles.get("kube-system", "system::leader-locking-kube-scheduler")["metadata"]["resourceVersion"] == \
        stored["metadata"]["resourceVersion"]
    assert roles.get("kube-system", "system:controller:token-cleaner")["rules"][1]["apiGroups"] == ["", "events.k8s.io"]
    for obj in policy():  # every object of the policy is stored
        meta = obj["metadata"]
        plural = {"Role": "roles", "RoleBinding": "rolebindings", "ClusterRole": "clusterroles",
                  "ClusterRoleBinding": "clusterrolebindings"}[obj["kind"]]
        assert _store(registry, plural).get(meta.get("namespace", ""), meta["name"])


def test_lost_rules_and_subjects_come_back_unless_protected():
    registry = build_context(authorization="rbac", token=TOKEN).registry
    rbac_bootstrap.ensure(registry, DIRECT)
    clusterroles, bindings = _store(registry, "clusterroles"), _store(registry, "rolebindings")
    proxier = clusterroles.get("", "system:node-proxier")
    proxier["rules"] = proxier["rules"][:1]
    proxier["metadata"]["labels"]["mine"] = "kept"
    clusterroles.update("", "system:node-proxier", proxier)
    dns = clusterroles.get("", "system:kube-dns")
    dns["rules"], dns["metadata"]["annotations"] = [], PROTECT
    clusterroles.update("", "system:kube-dns", dns)
    lock = bindings.get("kube-system", "system::leader-locking-kube-scheduler")
    lock["subjects"] = [{"kind": "ServiceAccount", "name": "mine", "namespace": "kube-system"}]
    bindings.update("kube-system", "system::leader-locking-kube-scheduler", lock)
    assert rbac_bootstrap.ensure(registry, DIRECT) == []
    got = clusterroles.get("", "system:node-proxier")
    assert got["rules"][0] == {"apiGroups": [""], "resources": ["endpoints", "services"], "verbs": ["list", "watch"]}
    assert {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["watch"]} in got["rules"]
    assert len(got["rules"]) == 1 + 3 + 6 + 2  # the lost rules broken down: one verb, group and resource each
    assert got["metadata"]["labels"]["mine"] == "kept"
    assert clusterroles.get("", "system:kube-dns")["rules"] is None  # protected: left alone (empty: `null`)
    assert [s["name"] for s in bindings.get("kube-system", "system::leader-locking-kube-scheduler")["subjects"]] == \
        ["mine", "system:kube-scheduler", "kube-scheduler"]


def test_a_binding_to_another_role_is_recreated():
    registry = build_context(authorization="rbac", token=TOKEN).registry
    rbac_bootstrap.ensure(registry, DIRECT)
    crbs = _store(registry, "clusterrolebindings")
    crbs.delete("", "system:discovery", DeleteOptions())
    crbs.create({"apiVersion": f"{G}/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "system:discovery"},
                 "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": "view"}, "subjects": []})
    rbac_bootstrap.reconcile_one(registry, DIRECT, next(o for o in policy() if o["kind"] == "ClusterRoleBinding"
                                                        and o["metadata"]["name"] == "system:discovery"))
    got = crbs.get("", "system:discovery")
    assert got["roleRef"]["name"] == "system:discovery" and got["subjects"][0]["name"] == "system:authenticated"


def test_a_missing_namespace_is_created_first():
    from conformance.reference_server.deviations import Deviations
    from conformance.reference_server.http.authz import rbac_setup
    from conformance.reference_server.registry import Registry
    from conformance.reference_server.storage import MemoryStore
    registry = Registry(MemoryStore())  # no bootstrap: neither kube-system nor kube-public exists
    rbac_setup(registry, Deviations(()), TOKEN, None)
    rbac_bootstrap.ensure(registry, DIRECT, namespace_policy())
    for name in ("kube-system", "kube-public"):
        assert registry.namespaces.get("", name)["metadata"]["managedFields"][0]["manager"] == "kube-apiserver"
    assert _store(registry, "rolebindings").get("kube-public", "system:controller:bootstrap-signer")


def test_always_allow_holds_the_whole_policy_and_the_hook_has_nothing_left():
    """AlwaysAllow serves the RBAC API and its bootstrap policy as kube-apiserver does: a fresh store gets every
    object, created by `kube-apiserver` now, and the hook's round then writes nothing."""
    registry = build_context().registry
    for obj in policy():
        meta = obj["metadata"]
        got = _store(registry, obj["kind"].lower() + "s").get(meta.get("namespace", ""), meta["name"])
        assert [(m["manager"], m["operation"]) for m in got["metadata"]["managedFields"]] == \
            [("kube-apiserver", "Update")]
        assert got["metadata"]["resourceVersion"] and got["metadata"]["uid"]
    rv = registry.store.current_rv()
    assert rbac_bootstrap.ensure(registry, DIRECT) == []
    assert registry.store.current_rv() == rv  # every object already as the policy has it


def test_seeded_objects_are_each_servers_own():
    """Each server's copy of the policy has its own uid and time; one server's edit leaves the next one's alone."""
    first, second = build_context().registry, build_context().registry
    a = _store(first, "clusterroles").get("", "view")
    b = _store(second, "clusterroles").get("", "view")
    assert a["metadata"]["uid"] != b["metadata"]["uid"]
    a["metadata"]["labels"]["x"] = "y"
    _store(first, "clusterroles").update("", "view", a)
    assert "x" not in build_context().registry.group(G, "clusterroles").get("", "view")["metadata"]["labels"]


def test_restart_on_etcd_reconciles(etcd_process):
    """What a user removed from a bootstrap role comes back at the next start; a role they protected does not."""
    from conformance.reference_server.storage.backends import StorageConfig
    from tests.reference_server.backends import unique_prefix
    storage = StorageConfig("etcd", (etcd_process.url,), unique_prefix())
    auth = {"Authorization": f"Bearer {TOKEN}"}
    crs = f"/apis/{G}/v1/clusterroles"
    first = start_embedded(flavor="bare", authorization="rbac", token=TOKEN, storage=storage)
    try:
        for name, annotations in (("system:node-proxier", None), ("system:heapster", PROTECT)):
            role = requests.get(f"{first.url}{crs}/{name}", headers=auth, timeout=10).json()
            role["rules"] = role["rules"][:1]
            if annotations:
                role["metadata"]["annotations"] = annotations
            r = requests.put(f"{first.url}{crs}/{name}", json=role, headers=auth, timeout=10)
            assert r.status_code == 200, r.text
    finally:
        first.stop()
    second = start_embedded(flavor="bare", authorization="rbac", token=TOKEN, storage=storage)
    try:
        until(lambda: requests.get(f"{second.url}/readyz/poststarthook/rbac/bootstrap-roles", headers=auth,
                                   timeout=10).text == "ok", "the hook finished")
        proxier = requests.get(f"{second.url}{crs}/system:node-proxier", headers=auth, timeout=10).json()
        assert {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["list"]} in \
            proxier["rules"]
        assert [m["manager"] for m in proxier["metadata"]["managedFields"]][-1] == "kube-apiserver"
        heapster = requests.get(f"{second.url}{crs}/system:heapster", headers=auth, timeout=10).json()
        assert len(heapster["rules"]) == 1
    finally:
        second.stop()


@pytest.fixture(scope="module")
def kube(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    for k in serve_kube(tmp_path_factory, "rbac-bootstrap", authorization="rbac", flavor="kind"):
        if k.binary is None:
            pytest.skip("kubectl 1.33 unavailable")
        yield k


def test_kubectl_sees_a_kind_clusters_roles(kube: Kube):
    names = kube.ok("get", "clusterroles", "-o", "name").split()
    assert len(names) >= 70  # kind v0.29 with 1.33: the 66 of the bootstrap policy and the installers' roles
    assert "clusterrole.rbac.authorization.k8s.io/system:controller:namespace-controller" in names
    # every binding kubeadm and kind install names a ClusterRole that exists
    for line in kube.ok("get", "clusterrolebindings,rolebindings", "-A", "-o",
                        "jsonpath={range .items[*]}{.roleRef.kind}/{.roleRef.name}{'\\n'}{end}").split():
        kind, _, name = line.partition("/")
        if kind == "ClusterRole":
            assert f"clusterrole.rbac.authorization.k8s.io/{name}" in names, name


def test_kubectl_auth_can_i_as_a_controller(kube: Kube):
    sa = "--as=system:serviceaccount:kube-system:namespace-controller"
    assert kube.ok("auth", "can-i", "list", "statefulsets.apps", "-n", "default", sa) == "yes\n"
    assert kube.ok("auth", "can-i", "watch", "roles.rbac.authorization.k8s.io", "-n", "kube-system", sa) == "yes\n"
    proc = kube.run("auth", "can-i", "update", "namespaces", "--subresource=finalize", sa)
    assert (proc.returncode, proc.stdout) == (0, "yes\n")  # (stderr: kubectl's "not namespace scoped" warning)
    proc = kube.run("auth", "can-i", "create", "pods", "-n", "default", sa)
    assert (proc.returncode, proc.stdout) == (1, "no\n")
    proxier = "--as=system:kube-proxy"
    assert kube.ok("auth", "can-i", "watch", "endpointslices.discovery.k8s.io", "-A", proxier) == "yes\n"


def test_the_hooks_state_is_readyzs(etcd_process):
    """While a policy refuses the hook's writes, `poststarthook/rbac/bootstrap-roles` fails and the hook keeps
    polling; once the policy is unbound its next round succeeds and the check passes."""
    from conformance.reference_server.storage.backends import StorageConfig
    from tests.reference_server.backends import unique_prefix
    from tests.reference_server.test_admission_component_writes import APISERVER
    storage = StorageConfig("etcd", (etcd_process.url,), unique_prefix())
    auth = {"Authorization": f"Bearer {TOKEN}"}
    ar = "/apis/admissionregistration.k8s.io/v1"
    first = start_embedded(flavor="bare", authorization="rbac", token=TOKEN, storage=storage)
    try:
        r = requests.post(f"{first.url}{ar}/validatingadmissionpolicies", headers=auth, timeout=10, json={
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "deny-bootstrap"},
            "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [{
                "apiGroups": [G], "apiVersions": ["*"], "operations": ["CREATE"], "resources": ["clusterroles"]}]},
                "validations": [{"expression": f"!({APISERVER})", "message": "refused by the test"}]}})
        assert r.status_code == 201, r.text
        r = requests.post(f"{first.url}{ar}/validatingadmissionpolicybindings", headers=auth, timeout=10, json={
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "deny-bootstrap"},
            "spec": {"policyName": "deny-bootstrap", "validationActions": ["Deny"]}})
        assert r.status_code == 201, r.text
        r = requests.delete(f"{first.url}/apis/{G}/v1/clusterroles/system:heapster", headers=auth, timeout=10)
        assert r.status_code == 200, r.text
    finally:
        first.stop()
    second = start_embedded(flavor="bare", authorization="rbac", token=TOKEN, storage=storage)
    try:
        def verbose() -> str:
            return requests.get(f"{second.url}/readyz?verbose", headers=auth, timeout=10).text
        assert "[-]poststarthook/rbac/bootstrap-roles failed: reason withheld" in verbose()
        r = requests.delete(f"{second.url}{ar}/validatingadmissionpolicybindings/deny-bootstrap", headers=auth,
                            timeout=10)
        assert r.status_code == 200, r.text
        until(lambda: "[+]poststarthook/rbac/bootstrap-roles ok" in verbose(), "the hook finished")
        r = requests.get(f"{second.url}/apis/{G}/v1/clusterroles/system:heapster", headers=auth, timeout=10)
        assert r.status_code == 200 and r.json()["metadata"]["managedFields"][0]["manager"] == "kube-apiserver"
    finally:
        second.stop()
