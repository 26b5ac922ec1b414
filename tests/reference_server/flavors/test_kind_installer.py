"""flavors/installer.py and the kind flavour's data (flavors/data/kind/): what `kubeadm init` v1.33 and kind v0.29
leave on a cluster, as kubectl 1.33 shows it on a kind cluster without nodes; none of it in the other flavours."""
from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from conformance.reference_server.controller.apiserver_identity import apiserver_id
from conformance.reference_server.flavors import FLAVORS
from conformance.reference_server.flavors.installer import (
    cluster_info_kubeconfig,
    install,
    load,
)
from conformance.reference_server.server import build_context
from tests.reference_server.replicas import until
from tests.reference_server.test_real_clients import Kube, kubectl_tool, serve_kube

KIND = FLAVORS["kind"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "kind-installer", flavor="kind", authorization="rbac")


@pytest.fixture
def kube(served: Kube) -> Kube:
    if served.binary is None:
        pytest.skip(f"kubectl 1.33 unavailable: {kubectl_tool.LAST_ERROR}")
    return served


def _get(k: Kube, path: str) -> dict[str, Any]:
    r = k.get(path)
    assert r.status_code == 200, (path, r.text)
    return r.json()


def _managers(obj: dict[str, Any]) -> list[str]:
    return [m["manager"] for m in obj["metadata"].get("managedFields", [])]


def test_every_data_document_is_a_served_kind_with_a_name():
    docs = [d for m in KIND.installer_manifests for d in load(m.path)]
    assert len(docs) == 40
    registry = build_context(flavor="kind", authorization="rbac").registry
    kinds = {(getattr(s, "group", ""), s.info.kind) for s in (*registry.namespaced(), *registry.cluster_stores())}
    for d in docs:
        assert (str(d["apiVersion"]).rpartition("/")[0], d["kind"]) in kinds, d["kind"]
        assert d["metadata"]["name"]


def test_install_is_idempotent_and_writes_rbac_in_every_mode():
    registry = build_context(flavor="kind").registry  # always-allow serves RBAC too, as kube-apiserver
    first = install(registry, KIND.installer_manifests, "https://127.0.0.1:6443")
    assert first == 40  # the 23 RBAC objects included
    assert registry.group("rbac.authorization.k8s.io", "clusterrolebindings").get("", "kubeadm:cluster-admins")
    assert install(registry, KIND.installer_manifests, "https://127.0.0.1:6443") == 0


def test_cluster_info_is_a_kubeconfig_with_the_servers_url_and_ca():
    text = cluster_info_kubeconfig("https://127.0.0.1:6443", "PEM\n")
    assert yaml.safe_load(text) == {
        "apiVersion": "v1", "kind": "Config", "clusters": [{"name": "", "cluster": {
            "certificate-authority-data": base64.b64encode(b"PEM\n").decode(), "server": "https://127.0.0.1:6443"}}],
        "contexts": None, "current-context": "", "preferences": {}, "users": None}


def test_the_objects_carry_their_installers_managers(served: Kube):
    assert _managers(_get(served, "/api/v1/namespaces/kube-system/configmaps/kubeadm-config")) == ["kubeadm"]
    assert "kubectl-create" in _managers(_get(served, "/apis/apps/v1/namespaces/kube-system/daemonsets/kindnet"))
    local = _get(served, "/api/v1/namespaces/local-path-storage/configmaps/local-path-config")
    assert _managers(local) == ["kubectl-client-side-apply"]
    applied = json.loads(local["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])
    assert applied["metadata"] == {"name": "local-path-config", "namespace": "local-path-storage"}
    info = _get(served, "/api/v1/namespaces/kube-public/configmaps/cluster-info")
    config = yaml.safe_load(info["data"]["kubeconfig"])
    assert config["clusters"][0]["cluster"]["server"] == served.server.url
    with open(served.server.ca_file, "rb") as f:
        assert base64.b64decode(config["clusters"][0]["cluster"]["certificate-authority-data"]) == f.read()


def test_cluster_info_is_signed_with_kinds_bootstrap_token(served: Kube):
    from conformance.reference_server.controller.bootstrapsigner import (
        detached_signature,
    )
    secret = _get(served, "/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef")
    assert secret["type"] == "bootstrap.kubernetes.io/token"
    data = {k: base64.b64decode(v).decode() for k, v in secret["data"].items()}
    assert data["token-id"] == "abcdef" and data["token-secret"] == "0123456789abcdef"
    assert data["usage-bootstrap-signing"] == "true" and data["expiration"].endswith("Z")
    info = until(lambda: (_get(served, "/api/v1/namespaces/kube-public/configmaps/cluster-info")
                          if "jws-kubeconfig-abcdef" in _get(served, "/api/v1/namespaces/kube-public/configmaps/"
                                                                     "cluster-info")["data"] else None),
                 "the bootstrap signer's signature")
    assert info["data"]["jws-kubeconfig-abcdef"] == detached_signature(info["data"]["kubeconfig"], "abcdef",
                                                                       "0123456789abcdef")
    assert sorted(_managers(info)) == ["kube-controller-manager", "kubeadm"]


def test_anonymous_may_read_cluster_info_only(served: Kube):
    import requests
    plain = requests.Session()
    plain.trust_env, plain.verify = False, served.server.ca_file
    url = served.server.url + "/api/v1/namespaces/kube-public/configmaps/"
    assert plain.get(url + "cluster-info", timeout=10).status_code == 200
    assert plain.get(url + "kube-root-ca.crt", timeout=10).status_code == 403


def test_coredns_pods_pending_unschedulable_daemonsets_desire_none(served: Kube):
    def pods() -> list[dict[str, Any]]:
        items = _get(served, "/api/v1/namespaces/kube-system/pods?labelSelector=k8s-app%3Dkube-dns")["items"]
        return items if len(items) == 2 and all(p["status"].get("conditions") for p in items) else []
    for p in until(pods, "two coredns pods marked by the scheduler", timeout=30):
        assert p["status"]["phase"] == "Pending"
        assert p["status"]["conditions"][0]["reason"] == "Unschedulable"
        assert p["spec"]["priorityClassName"] == "system-cluster-critical" and p["spec"]["priority"] == 2000000000
    for name in ("kube-proxy", "kindnet"):
        path = f"/apis/apps/v1/namespaces/kube-system/daemonsets/{name}"
        ds = until(lambda path=path: _get(served, path).get("status", {}).get("observedGeneration"),
                   f"{name} observed")
        assert ds == 1
        status = _get(served, f"/apis/apps/v1/namespaces/kube-system/daemonsets/{name}")["status"]
        assert status["desiredNumberScheduled"] == 0 and status["numberReady"] == 0
    svc = _get(served, "/api/v1/namespaces/kube-system/services/kube-dns")["spec"]
    assert svc["clusterIP"] == "10.96.0.10"
    assert [p["name"] for p in svc["ports"]] == ["dns", "dns-tcp", "metrics"]


def test_the_scheduler_and_apiserver_leases(served: Kube):
    def leases() -> dict[str, Any]:
        items = _get(served, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases")["items"]
        return {i["metadata"]["name"]: i for i in items} if len(items) == 3 else {}
    leases = until(leases, "three leases")
    assert {"kube-controller-manager", "kube-scheduler"} <= set(leases)
    assert [n for n in leases if n.startswith("apiserver-")]
    assert _managers(leases["kube-scheduler"]) == ["kube-scheduler"]
    assert leases["kube-scheduler"]["spec"]["leaseDurationSeconds"] == 15
    # kind's control plane runs on hostNetwork in the `kind-control-plane` node container: every identity names it
    for name in ("kube-controller-manager", "kube-scheduler"):
        assert leases[name]["spec"]["holderIdentity"].startswith("kind-control-plane_"), leases[name]["spec"]
    own = leases[apiserver_id("kind-control-plane")]
    assert own["metadata"]["labels"]["kubernetes.io/hostname"] == "kind-control-plane"


def test_kubectl_get_cm_in_kube_system(kube: Kube):
    for name in ("kube-root-ca.crt", "kube-apiserver-legacy-service-account-token-tracking"):  # their controllers'
        until(lambda name=name: kube.get(f"/api/v1/namespaces/kube-system/configmaps/{name}").status_code == 200, name)
    out = kube.ok("get", "cm", "-n", "kube-system", "-o", "name")
    assert out.split() == ["configmap/coredns", "configmap/extension-apiserver-authentication",
                           "configmap/kube-apiserver-legacy-service-account-token-tracking",
                           "configmap/kube-proxy", "configmap/kube-root-ca.crt", "configmap/kubeadm-config",
                           "configmap/kubelet-config"]
    table = kube.ok("get", "cm", "-n", "kube-system").splitlines()
    assert table[0].split() == ["NAME", "DATA", "AGE"]
    assert table[1].split()[:2] == ["coredns", "1"]


def test_kubectl_get_all_in_kube_system(kube: Kube):
    until(lambda: len(_get(kube, "/api/v1/namespaces/kube-system/pods")["items"]) == 2, "the coredns pods")
    out = kube.ok("get", "all", "-n", "kube-system", "-o", "name").split()
    pods = [n for n in out if n.startswith("pod/coredns-")]
    assert len(pods) == 2
    assert [n for n in out if not n.startswith("pod/")] == [
        "service/kube-dns", "daemonset.apps/kindnet", "daemonset.apps/kube-proxy", "deployment.apps/coredns",
        next(n for n in out if n.startswith("replicaset.apps/coredns-"))]
    table = kube.ok("get", "deploy", "coredns", "-n", "kube-system").splitlines()
    assert table[1].split()[:4] == ["coredns", "0/2", "2", "0"]


def test_the_other_flavours_have_none_of_it():
    for name, flavor in FLAVORS.items():
        if name != "kind":
            assert not flavor.installer_manifests and not flavor.scheduler_lease, name


def test_installed_once_on_etcd_a_deleted_object_stays_deleted(etcd_process):
    """A restart on the same etcd finds a seeded store: the installer does not run again (kind's installer runs once,
    at `kind create cluster`); replicas and restarts leave the objects as the users left them."""
    from conformance.reference_server.embedded import start_embedded
    from conformance.reference_server.storage.backends import StorageConfig
    from tests.reference_server.backends import unique_prefix
    storage = StorageConfig("etcd", (etcd_process.url,), unique_prefix())
    first = start_embedded(flavor="kind", storage=storage)
    try:
        import requests
        url = f"{first.url}/api/v1/namespaces/kube-system/configmaps/kubeadm-config"
        assert requests.get(url, timeout=10).status_code == 200
        assert requests.delete(url, timeout=10).status_code == 200
    finally:
        first.stop()
    second = start_embedded(flavor="kind", storage=storage)
    try:
        assert requests.get(f"{second.url}/api/v1/namespaces/kube-system/configmaps/kubeadm-config",
                            timeout=10).status_code == 404
        assert requests.get(f"{second.url}/api/v1/namespaces/kube-system/configmaps/coredns",
                            timeout=10).status_code == 200
    finally:
        second.stop()
