"""fixtures/extensions.py: CRDs and APIServices a test creates are labelled and removed, even when a custom
resource still has a finalizer; `sweep_cluster_objects` finds what a killed run left, by label only."""
from __future__ import annotations

from typing import Iterator

import pytest
import requests

from conformance.client.api import KubeClient
from conformance.fixtures.extensions import APISERVICES, CRDS, ClusterObjects, sweep_cluster_objects
from conformance.reference_server.embedded import RunningServer, start_embedded


@pytest.fixture
def kube() -> Iterator[KubeClient]:
    srv: RunningServer = start_embedded()
    client = KubeClient(srv.url)
    yield client
    client.close()
    srv.stop()


def _names(client: KubeClient, path: str) -> list[str]:
    return [i["metadata"]["name"] for i in client.get(path).json()["items"]]


OURS = APISERVICES + "?labelSelector=app.kubernetes.io/managed-by=nsconform"  # (the server's own Local ones stay)


def test_teardown_releases_resources_and_removes_everything(kube):
    objs = ClusterObjects(kube, run_id="r1", nodeid="t::a")
    cr = objs.crd()
    assert kube.post("/api/v1/namespaces", {"metadata": {"name": "n1"}}).status_code == 201
    assert kube.post(cr.collection("n1"), cr.body("held", "n1", finalizers=["example.com/hold"])).status_code == 201
    svc = objs.apiservice("n1", "missing")
    crd = kube.get(f"{CRDS}/{cr.crd_name}").json()
    assert crd["metadata"]["labels"]["nsconform.io/run"] == "r1"
    assert svc["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "nsconform"
    assert objs.teardown() == []
    assert cr.crd_name not in _names(kube, CRDS) and _names(kube, OURS) == []
    assert "v1.apps" in _names(kube, APISERVICES)


def test_sweep_finds_only_the_run_by_label(kube):
    mine, other = ClusterObjects(kube, run_id="r1", nodeid="t::a"), ClusterObjects(kube, run_id="r2", nodeid="t::b")
    a, b = mine.crd(), other.crd()
    mine.apiservice("default", "missing")
    assert set(sweep_cluster_objects(kube, run_id="r1", dry_run=True)) == {
        f"customresourcedefinition/{a.crd_name}", f"apiservice/{mine.apiservices[0]}"}
    result = sweep_cluster_objects(kube, run_id="r1", timeout=10)
    assert set(result.values()) == {"deleted"}
    assert _names(kube, CRDS) == [b.crd_name] and _names(kube, OURS) == []
    other.teardown()


def test_sweep_also_finds_kep33_configurations_and_cluster_roles():
    """The KEP-33 suite's cluster objects (fixtures/cluster_objects.py) go in the same sweep, before namespaces."""
    from conformance.fixtures.cluster_objects import CLUSTER_COLLECTIONS

    configs, _, roles = CLUSTER_COLLECTIONS
    srv = start_embedded(authorization="rbac", feature_gates=["NamespaceInitializers"])
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {srv.token}"
    kube = KubeClient(srv.url, session)
    try:
        def labels(run: str) -> dict[str, str]:
            return {"app.kubernetes.io/managed-by": "nsconform", "nsconform.io/run": run}
        assert kube.post(configs, {"apiVersion": "admissionregistration.k8s.io/v1alpha1",
                                   "kind": "NamespaceInitializerConfiguration",
                                   "metadata": {"name": "nsc-c1", "labels": labels("r1")},
                                   "initializers": [{"name": "a.init.nsconform.io"}]}).status_code == 201
        for name, run in (("nsc-r1", "r1"), ("nsc-r2", "r2")):
            assert kube.post(roles, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                                     "metadata": {"name": name, "labels": labels(run)}, "rules": []}).status_code == 201
        assert set(sweep_cluster_objects(kube, run_id="r1", dry_run=True)) == {
            "namespaceinitializerconfiguration/nsc-c1", "clusterrole/nsc-r1"}
        assert set(sweep_cluster_objects(kube, run_id="r1", timeout=10).values()) == {"deleted"}
        assert _names(kube, configs) == []
        left = _names(kube, roles)
        assert "nsc-r2" in left and "nsc-r1" not in left
    finally:
        kube.close()
        srv.stop()
