"""controller/rbac_bootstrap.py + auth/bootstrap_namespaced.py: the bootstrap policy's namespaced Roles and
RoleBindings (bootstrappolicy/namespace_policy.go, testdata/namespace-role*.yaml), created by kube-apiserver at
start when RBAC is served, with a missing namespace created first; an existing object kept."""
from __future__ import annotations

import secrets

import requests

from conformance.reference_server.admission.admitted import ControllerWrites
from conformance.reference_server.auth.bootstrap_namespaced import NAMESPACE_POLICY
from conformance.reference_server.controller import rbac_bootstrap
from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.registry.store import DeleteOptions
from conformance.reference_server.server import build_context

G = "rbac.authorization.k8s.io"
TOKEN = secrets.token_hex(16)  # a server's token is masked in every log of the process: never a short word
DIRECT = ControllerWrites(None, "")


def test_upstreams_names_and_subjects():
    names = {(o["kind"], o["metadata"]["namespace"], o["metadata"]["name"]) for o in NAMESPACE_POLICY}
    assert ("RoleBinding", "kube-system", "system::extension-apiserver-authentication-reader") in names
    assert len([n for n in names if n[0] == "Role"]) == 7 and len(names) == 14
    lock = next(o for o in NAMESPACE_POLICY if o["kind"] == "RoleBinding"
                and o["metadata"]["name"] == "system::leader-locking-kube-controller-manager")
    assert lock["subjects"] == [
        {"apiGroup": G, "kind": "User", "name": "system:kube-controller-manager"},
        {"kind": "ServiceAccount", "name": "kube-controller-manager", "namespace": "kube-system"},
        {"kind": "ServiceAccount", "name": "leader-election-controller", "namespace": "kube-system"}]
    for o in NAMESPACE_POLICY:
        assert o["metadata"]["labels"] == {"kubernetes.io/bootstrapping": "rbac-defaults"}
        assert o["metadata"]["annotations"] == {"rbac.authorization.kubernetes.io/autoupdate": "true"}


def test_ensure_creates_what_is_missing_and_the_namespace_first():
    registry = build_context(authorization="rbac", token=TOKEN).registry
    roles = registry.group(G, "roles")
    rbac_bootstrap.ensure(registry, DIRECT)
    stored = roles.get("kube-system", "system::leader-locking-kube-scheduler")
    assert [m["manager"] for m in stored["metadata"]["managedFields"]] == ["kube-apiserver"]
    roles.delete("kube-system", "system:controller:token-cleaner", DeleteOptions())
    rbac_bootstrap.ensure(registry, DIRECT)  # made again; the others untouched
    assert roles.get("kube-system", "system::leader-locking-kube-scheduler")["metadata"]["resourceVersion"] == \
        stored["metadata"]["resourceVersion"]
    assert roles.get("kube-system", "system:controller:token-cleaner")["rules"][1]["apiGroups"] == ["", "events.k8s.io"]


def test_a_missing_namespace_is_created_first():
    from conformance.reference_server.deviations import Deviations
    from conformance.reference_server.http.authz import rbac_setup
    from conformance.reference_server.registry import Registry
    from conformance.reference_server.storage import MemoryStore
    registry = Registry(MemoryStore())  # no bootstrap: neither kube-system nor kube-public exists
    rbac_setup(registry, Deviations(()), TOKEN, None)
    rbac_bootstrap.ensure(registry, DIRECT)
    for name in ("kube-system", "kube-public"):
        assert registry.namespaces.get("", name)["metadata"]["managedFields"][0]["manager"] == "kube-apiserver"
    assert registry.group(G, "rolebindings").get("kube-public", "system:controller:bootstrap-signer")


def test_without_rbac_nothing_is_written():
    registry = build_context().registry
    rbac_bootstrap.ensure(registry, DIRECT)  # RBAC is not served: no store, no write
    assert registry.group(G, "roles") is None


def test_the_server_has_them_under_rbac():
    srv = start_embedded(flavor="bare", authorization="rbac", token=TOKEN)
    try:
        r = requests.get(f"{srv.url}/apis/{G}/v1/namespaces/kube-public/rolebindings/system:controller:bootstrap-signer",
                         headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
        assert r.status_code == 200 and r.json()["subjects"][0]["name"] == "bootstrap-signer"
    finally:
        srv.stop()
