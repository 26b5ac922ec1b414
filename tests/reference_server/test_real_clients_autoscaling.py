"""kubectl 1.33 and the official client meet HorizontalPodAutoscalers (registry/autoscaling.py) as on a kind
cluster: `kubectl autoscale` (it POSTs autoscaling/v2 in protobuf), `get hpa` (printers.go's columns and TARGETS
text), `describe hpa`, `get hpa -o yaml` in both versions; the typed AutoscalingV1Api and AutoscalingV2Api reading
and writing one object in both versions."""
from __future__ import annotations

import uuid
from typing import Any, Iterator

import pytest

from .test_real_clients import AGE, Kube, kube, serve_kube, table  # noqa: F401 - kube: a fixture


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "autoscaling", flavor="bare")


@pytest.fixture
def namespace(served: Kube) -> Iterator[str]:
    ns = f"hpa-{uuid.uuid4().hex[:6]}"
    assert served.http.post(f"{served.server.url}/api/v1/namespaces", json={"metadata": {"name": ns}},
                            timeout=10).status_code == 201
    yield ns
    served.http.delete(f"{served.server.url}/api/v1/namespaces/{ns}", timeout=10)


def test_kubectl_autoscale_get_describe_yaml(kube: Kube, namespace: str) -> None:
    ns = namespace
    kube.ok("create", "deployment", "web", "--image=nginx", "-n", ns)
    proc = kube.run("autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu-percent=80", "-n", ns, "-v=6")
    assert proc.returncode == 0 and proc.stdout == "horizontalpodautoscaler.autoscaling/web autoscaled\n", proc.stderr
    assert f"/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers?fieldManager=kubectl-autoscale" \
        in proc.stderr
    header, rows = table(kube.ok("get", "hpa", "-n", ns))
    assert header == ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]
    assert rows[0][:6] == ["web", "Deployment/web", "cpu: <unknown>/80%", "2", "5", "0"] and AGE.match(rows[0][6])
    described = kube.ok("describe", "hpa", "web", "-n", ns)
    assert "  resource cpu on pods  (as a percentage of request):  <unknown> / 80%\n" in described
    assert described.split("\n")[0].split() == ["Name:", "web"]
    assert "Min replicas:                                          2\n" in described
    v2 = kube.ok("get", "hpa", "web", "-n", ns, "-o", "yaml")
    assert v2.startswith("apiVersion: autoscaling/v2\n") and "    type: Resource\n  minReplicas: 2\n" in v2
    v1 = kube.ok("get", "horizontalpodautoscalers.v1.autoscaling", "web", "-n", ns, "-o", "yaml")
    assert v1.startswith("apiVersion: autoscaling/v1\n")
    assert "  targetCPUUtilizationPercentage: 80\nstatus:\n  currentReplicas: 0\n  desiredReplicas: 0\n" in v1
    kube.ok("delete", "hpa", "web", "-n", ns)
    assert kube.run("get", "hpa", "web", "-n", ns).returncode != 0


def test_official_client_v1_and_v2(served: Kube, namespace: str) -> None:
    from kubernetes import client as k, config
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        v1, v2 = k.AutoscalingV1Api(api_client), k.AutoscalingV2Api(api_client)
        ref = k.V1CrossVersionObjectReference(api_version="apps/v1", kind="Deployment", name="web")
        body = k.V1HorizontalPodAutoscaler(metadata=k.V1ObjectMeta(name="a"), spec=k.V1HorizontalPodAutoscalerSpec(
            scale_target_ref=ref, max_replicas=4, target_cpu_utilization_percentage=55))
        created: Any = v1.create_namespaced_horizontal_pod_autoscaler(namespace, body)
        assert (created.spec.min_replicas, created.status.current_replicas) == (1, 0)
        read: Any = v2.read_namespaced_horizontal_pod_autoscaler("a", namespace)
        assert read.spec.metrics[0].resource.target.average_utilization == 55
        read.spec.metrics.append(k.V2MetricSpec(type="Pods", pods=k.V2PodsMetricSource(
            metric=k.V2MetricIdentifier(name="qps"), target=k.V2MetricTarget(type="AverageValue", average_value="10"))))
        v2.replace_namespaced_horizontal_pod_autoscaler("a", namespace, read)
        again: Any = v1.read_namespaced_horizontal_pod_autoscaler("a", namespace)
        assert again.spec.target_cpu_utilization_percentage == 55
        assert again.metadata.annotations["autoscaling.alpha.kubernetes.io/metrics"] == \
            '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]'
        listed: Any = v2.list_namespaced_horizontal_pod_autoscaler(namespace)
        assert [i.metadata.name for i in listed.items] == ["a"]
        deleted: Any = v1.delete_namespaced_horizontal_pod_autoscaler("a", namespace)
        assert (deleted["kind"], deleted["status"]) == ("Status", "Success")  # no ReturnDeletedObject for HPAs
    finally:
        api_client.close()


def test_managed_fields_in_the_request_version(served: Kube, namespace: str) -> None:
    """managedFields as upstream's field manager records them (versionconverter.go, structured-merge-diff's
    `Updater`): a v1 create is a `autoscaling/v1` entry in v1 paths; a v2 applier conflicts with it where the v1
    object changes (the CPU target is `targetCPUUtilizationPercentage` there); forced, it takes those fields
    and the v1 entry keeps the rest; a v1 applier then conflicts with the v2 applier's `spec.metrics`."""
    import json

    from kubernetes import client as k, config
    from kubernetes.client.rest import ApiException
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    apply = {"_content_type": "application/apply-patch+yaml"}
    ref = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    try:
        v1, v2 = k.AutoscalingV1Api(api_client), k.AutoscalingV2Api(api_client)
        body = k.V1HorizontalPodAutoscaler(metadata=k.V1ObjectMeta(name="m"), spec=k.V1HorizontalPodAutoscalerSpec(
            scale_target_ref=k.V1CrossVersionObjectReference(**{"api_version": "apps/v1", "kind": "Deployment",
                                                                  "name": "web"}),
            max_replicas=4, target_cpu_utilization_percentage=55))
        created: Any = v1.create_namespaced_horizontal_pod_autoscaler(namespace, body, field_manager="v1-creator")
        [entry] = created.metadata.managed_fields
        target = {"f:apiVersion": {}, "f:kind": {}, "f:name": {}}  # a struct, never absent: no "." of its own
        assert (entry.manager, entry.operation, entry.api_version) == ("v1-creator", "Update", "autoscaling/v1")
        assert entry.fields_v1 == {"f:spec": {"f:maxReplicas": {}, "f:minReplicas": {}, "f:scaleTargetRef": target,
                                              "f:targetCPUUtilizationPercentage": {}}}

        config_v2 = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "m"},
                     "spec": {"scaleTargetRef": ref, "maxReplicas": 6, "metrics": [{"type": "Resource", "resource": {
                         "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}]}}
        with pytest.raises(ApiException) as refused:
            v2.patch_namespaced_horizontal_pod_autoscaler("m", namespace, config_v2, field_manager="v2-applier", **apply)
        assert refused.value.status == 409
        assert json.loads(refused.value.body)["message"] == (
            'Apply failed with 2 conflicts: conflicts with "v1-creator" using autoscaling/v1:\n'
            "- .spec.maxReplicas\n- .spec.targetCPUUtilizationPercentage")
        forced: Any = v2.patch_namespaced_horizontal_pod_autoscaler("m", namespace, config_v2,
                                                                    field_manager="v2-applier", force=True, **apply)
        entries = {e.manager: (e.operation, e.api_version, e.fields_v1) for e in forced.metadata.managed_fields}
        assert entries == {
            "v2-applier": ("Apply", "autoscaling/v2", {"f:spec": {"f:maxReplicas": {}, "f:metrics": {},
                                                                  "f:scaleTargetRef": target}}),
            "v1-creator": ("Update", "autoscaling/v1", {"f:spec": {"f:minReplicas": {}, "f:scaleTargetRef": target}})}

        config_v1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "m"},
                     "spec": {"scaleTargetRef": ref, "maxReplicas": 6, "targetCPUUtilizationPercentage": 90}}
        with pytest.raises(ApiException) as refused:
            v1.patch_namespaced_horizontal_pod_autoscaler("m", namespace, config_v1, field_manager="v1-applier", **apply)
        assert json.loads(refused.value.body)["message"] == (
            'Apply failed with 1 conflict: conflict with "v2-applier": .spec.metrics')
        applied: Any = v1.patch_namespaced_horizontal_pod_autoscaler("m", namespace, config_v1,
                                                                     field_manager="v1-applier", force=True, **apply)
        entries = {e.manager: (e.api_version, e.fields_v1) for e in applied.metadata.managed_fields}
        assert entries["v1-applier"] == ("autoscaling/v1", {"f:spec": {
            "f:maxReplicas": {}, "f:scaleTargetRef": target, "f:targetCPUUtilizationPercentage": {}}})
        assert entries["v2-applier"] == ("autoscaling/v2", {"f:spec": {"f:maxReplicas": {},
                                                                       "f:scaleTargetRef": target}})
        assert applied.spec.target_cpu_utilization_percentage == 90
    finally:
        api_client.close()
