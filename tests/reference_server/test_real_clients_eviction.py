"""Real clients meet PodDisruptionBudgets and `pods/eviction` as on a kind cluster without nodes (the default
flavour: the disruption controller, controller/disruption.py, and the eviction subresource, registry/eviction.py):
the official Python client's `create_namespaced_pod_eviction` and PolicyV1Api, lightkube's `Pod.Eviction`, and
kubectl 1.33 (`get pdb`, `get --raw /api/v1`, `drain` of a Node object)."""
from __future__ import annotations

import json
import uuid
from typing import Any, Iterator

import pytest

from .test_real_clients import Kube, kube, serve_kube, table  # noqa: F401 - kube: a fixture
from .test_real_clients_workloads import watch_until

TOO_MANY = "Cannot evict pod as it would violate the pod's disruption budget."


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "eviction")  # the default flavour: every controller


@pytest.fixture
def client(served: Kube) -> Iterator[Any]:
    from kubernetes import config
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    yield api_client
    api_client.close()


@pytest.fixture
def ns(served: Kube, client: Any) -> Iterator[str]:
    """A namespace whose `default` ServiceAccount exists (ServiceAccount admission refuses pods before it)."""
    from kubernetes import client as k
    name = f"ev-{uuid.uuid4().hex[:8]}"
    served.create_ns(name)
    watch_until(k.CoreV1Api(client).list_namespaced_service_account, "the default ServiceAccount",
                lambda sas: any(sa.metadata.name == "default" for sa in sas), namespace=name)
    yield name
    served.http.delete(f"{served.server.url}/api/v1/namespaces/{name}", timeout=10)


def _pdb(k: Any, name: str, labels: dict[str, str], **spec: Any) -> Any:
    return k.V1PodDisruptionBudget(metadata=k.V1ObjectMeta(name=name), spec=k.V1PodDisruptionBudgetSpec(
        selector=k.V1LabelSelector(match_labels=labels), **spec))


def _pod(k: Any, name: str, labels: dict[str, str]) -> Any:
    return k.V1Pod(metadata=k.V1ObjectMeta(name=name, labels=labels),
                   spec=k.V1PodSpec(containers=[k.V1Container(name="c", image="nginx")]))


def _eviction(k: Any, name: str) -> Any:
    return k.V1Eviction(metadata=k.V1ObjectMeta(name=name))


def test_pdb_status_of_a_deployment_with_two_pending_replicas(kube: Kube, ns: str, client: Any) -> None:
    from kubernetes import client as k
    apps, policy = k.AppsV1Api(client), k.PolicyV1Api(client)
    labels = {"app": "web"}
    apps.create_namespaced_deployment(ns, k.V1Deployment(metadata=k.V1ObjectMeta(name="web"), spec=k.V1DeploymentSpec(
        replicas=2, selector=k.V1LabelSelector(match_labels=labels), template=k.V1PodTemplateSpec(
            metadata=k.V1ObjectMeta(labels=labels), spec=k.V1PodSpec(containers=[k.V1Container(name="c",
                                                                                                 image="nginx")])))))
    policy.create_namespaced_pod_disruption_budget(ns, _pdb(k, "web", labels, min_available=1))
    [pdb] = watch_until(policy.list_namespaced_pod_disruption_budget, "the budget's status for both pods",
                        lambda ps: bool(ps and ps[0].status and ps[0].status.expected_pods == 2), namespace=ns)
    status = pdb.status
    assert (status.observed_generation, status.disruptions_allowed, status.current_healthy, status.desired_healthy,
            status.expected_pods, status.disrupted_pods) == (1, 0, 0, 1, 2, None)
    [cond] = status.conditions
    assert (cond.type, cond.status, cond.reason, cond.message, cond.observed_generation) == \
        ("DisruptionAllowed", "False", "InsufficientPods", "", 1)
    header, rows = table(kube.ok("get", "pdb", "-n", ns))
    assert header == ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"]
    assert rows[0][:4] == ["web", "1", "N/A", "0"]


def test_evicting_a_pod_no_budget_covers(served: Kube, ns: str, client: Any) -> None:
    from kubernetes import client as k
    from kubernetes.client.rest import ApiException
    core = k.CoreV1Api(client)
    core.create_namespaced_pod(ns, _pod(k, "lone", {"app": "lone"}))
    data, code, _ = core.create_namespaced_pod_eviction_with_http_info("lone", ns, _eviction(k, "lone"))
    assert code == 201
    with pytest.raises(ApiException) as err:
        core.read_namespaced_pod("lone", ns)
    assert err.value.status == 404


def test_an_eviction_the_budget_refuses(served: Kube, ns: str, client: Any) -> None:
    """A Running pod that is not Ready (its status written by the client: no kubelet here) under
    `minAvailable: 1`: 429 with upstream's message and `DisruptionBudget` cause; a Pending pod is evicted even so."""
    from kubernetes import client as k
    from kubernetes.client.rest import ApiException
    core, policy = k.CoreV1Api(client), k.PolicyV1Api(client)
    labels = {"app": "db"}
    for name in ("running", "pending"):
        core.create_namespaced_pod(ns, _pod(k, name, labels))
    core.patch_namespaced_pod_status("running", ns, {"status": {"phase": "Running"}})
    policy.create_namespaced_pod_disruption_budget(ns, _pdb(k, "db", labels, min_available=1))
    watch_until(policy.list_namespaced_pod_disruption_budget, "the budget observed",
                lambda ps: bool(ps and ps[0].status and ps[0].status.observed_generation == 1
                                and ps[0].status.expected_pods == 2), namespace=ns)
    with pytest.raises(ApiException) as err:
        core.create_namespaced_pod_eviction("running", ns, _eviction(k, "running"))
    assert err.value.status == 429
    body = json.loads(err.value.body)
    assert (body["reason"], body["message"]) == ("TooManyRequests", TOO_MANY)
    assert body["details"] == {"causes": [{"reason": "DisruptionBudget", "message":
                                           "The disruption budget db needs 1 healthy pods and has 0 currently"}]}
    assert core.read_namespaced_pod("running", ns).metadata.name == "running"
    _, code, _ = core.create_namespaced_pod_eviction_with_http_info("pending", ns, _eviction(k, "pending"))
    assert code == 201  # canIgnorePDB: a Pending pod is not protected


def test_kubectl_lists_pods_eviction(kube: Kube) -> None:
    resources = json.loads(kube.ok("get", "--raw", "/api/v1"))["resources"]
    [entry] = [r for r in resources if r["name"] == "pods/eviction"]
    assert (entry["group"], entry["version"], entry["kind"], entry["verbs"]) == ("policy", "v1", "Eviction",
                                                                                 ["create"])


@pytest.fixture
def node(served: Kube) -> Iterator[str]:
    """A Node object (no kubelet behind it) for `kubectl drain` to cordon and empty."""
    name = f"n-{uuid.uuid4().hex[:8]}"
    r = served.http.post(f"{served.server.url}/api/v1/nodes", json={"metadata": {"name": name}}, timeout=10)
    assert r.status_code == 201, r.text
    yield name
    served.http.delete(f"{served.server.url}/api/v1/nodes/{name}", timeout=10)


def _bound_pod(served: Kube, ns: str, name: str, node: str, labels: dict[str, str]) -> None:
    r = served.http.post(f"{served.server.url}/api/v1/namespaces/{ns}/pods", json={
        "metadata": {"name": name, "labels": labels},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]}}, timeout=10)
    assert r.status_code == 201, r.text


def test_kubectl_drain_evicts(kube: Kube, ns: str, node: str) -> None:
    """kubectl finds `pods/eviction` in `/api/v1` and evicts (before: it fell back to DELETE)."""
    _bound_pod(kube, ns, "p", node, {"app": "lone"})
    proc = kube.run("drain", node, "--force", "--grace-period=0", "--timeout=20s")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [f"node/{node} cordoned", f"evicting pod {ns}/p", "pod/p evicted",
                                        f"node/{node} drained"]
    assert kube.get(f"/api/v1/namespaces/{ns}/pods/p").status_code == 404


def test_kubectl_drain_waits_for_the_budget(kube: Kube, ns: str, node: str, client: Any) -> None:
    from kubernetes import client as k
    labels = {"app": "guarded"}
    _bound_pod(kube, ns, "p", node, labels)
    k.CoreV1Api(client).patch_namespaced_pod_status("p", ns, {"status": {"phase": "Running"}})
    policy = k.PolicyV1Api(client)
    policy.create_namespaced_pod_disruption_budget(ns, _pdb(k, "guard", labels, min_available=1))
    watch_until(policy.list_namespaced_pod_disruption_budget, "the budget observed",
                lambda ps: bool(ps and ps[0].status and ps[0].status.observed_generation == 1), namespace=ns)
    proc = kube.run("drain", node, "--force", "--grace-period=0", "--timeout=2s")
    assert proc.returncode == 1
    assert f'error when evicting pods/"p" -n "{ns}" (will retry after 5s): {TOO_MANY}\n' in proc.stderr
    assert kube.get(f"/api/v1/namespaces/{ns}/pods/p").status_code == 200


def test_lightkube_evicts_and_reads_budget_status(served: Kube, ns: str) -> None:
    """lightkube's `Pod.Eviction` subresource create and its typed PodDisruptionBudget status model."""
    lightkube = pytest.importorskip("lightkube")
    from lightkube.config.kubeconfig import KubeConfig
    from lightkube.models.core_v1 import Container, PodSpec
    from lightkube.models.meta_v1 import LabelSelector, ObjectMeta
    from lightkube.models.policy_v1 import PodDisruptionBudgetSpec
    from lightkube.resources.core_v1 import Pod
    from lightkube.resources.policy_v1 import PodDisruptionBudget

    client = lightkube.Client(KubeConfig.from_file(str(served.kubeconfig)))
    labels = {"app": "lk"}
    client.create(Pod(metadata=ObjectMeta(name="p", labels=labels),
                      spec=PodSpec(containers=[Container(name="c", image="nginx")])), namespace=ns)
    client.create(PodDisruptionBudget(metadata=ObjectMeta(name="lk"), spec=PodDisruptionBudgetSpec(
        minAvailable=1, selector=LabelSelector(matchLabels=labels))), namespace=ns)
    for _, pdb in client.watch(PodDisruptionBudget, namespace=ns, server_timeout=30):
        if pdb.status is not None and pdb.status.observedGeneration == 1 and pdb.status.expectedPods == 1:
            break
    assert (pdb.status.disruptionsAllowed, pdb.status.desiredHealthy, pdb.status.conditions[0].reason) == (
        0, 1, "InsufficientPods")
    client.create(Pod.Eviction(metadata=ObjectMeta(name="p", namespace=ns)), name="p", namespace=ns)
    assert [p.metadata.name for p in client.list(Pod, namespace=ns)] == []  # Pending: canIgnorePDB
