"""kubectl 1.33 and the official Python client on the `status` and `scale` subresources and on immutable pod fields
(registry/subresources.py): `kubectl scale`, `kubectl get --subresource=status|scale`,
`read_namespaced_deployment_scale` / `patch_namespaced_deployment_scale`, `replace_namespaced_pod_status`."""
from __future__ import annotations

import json
from typing import Any

from .test_real_clients import Kube, kube, names, served, table  # noqa: F401 - fixtures

DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
    "selector": {"matchLabels": {"app": "web"}},
    "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def _deployment(kube: Kube, ns: str) -> str:
    kube.create_ns(ns)
    path = f"/apis/apps/v1/namespaces/{ns}/deployments"
    r = kube.http.post(kube.server.url + path, json=DEPLOYMENT, timeout=10)
    assert r.status_code == 201, r.text
    return f"{path}/web"


def test_kubectl_scale_and_get_subresources(kube: Kube, names: Any) -> None:
    ns = names("scale")
    path = _deployment(kube, ns)
    assert kube.ok("scale", "deployment", "web", "--replicas=3", "-n", ns) == "deployment.apps/web scaled\n"
    dep = kube.get(path).json()
    assert (dep["spec"]["replicas"], dep["metadata"]["generation"]) == (3, 2)
    assert kube.ok("scale", "deployment", "web", "--replicas=2", "--current-replicas=3", "-n", ns) == \
        "deployment.apps/web scaled\n"
    assert kube.get(path).json()["spec"]["replicas"] == 2
    header, rows = table(kube.ok("get", "deployment", "web", "-n", ns, "--subresource=scale"))
    assert header == ["NAME", "DESIRED", "AVAILABLE", "AGE"] and rows[0][:3] == ["web", "2", "0"]
    scale = json.loads(kube.ok("get", "deployment", "web", "-n", ns, "--subresource=scale", "-o", "json"))
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert (scale["spec"], scale["status"]) == ({"replicas": 2}, {"replicas": 0, "selector": "app=web"})
    status = json.loads(kube.ok("get", "deployment", "web", "-n", ns, "--subresource=status", "-o", "json"))
    assert status["kind"] == "Deployment" and status["spec"]["replicas"] == 2
    header, rows = table(kube.ok("get", "deployment", "web", "-n", ns, "--subresource=status"))
    assert header[:2] == ["NAME", "READY"] and rows[0][0] == "web"
    stderr = kube.fails("scale", "deployment", "web", "--replicas=5", "--current-replicas=4", "-n", ns)
    assert "Expected replicas to be 4, was 2" in stderr, stderr


def test_official_client_scale_and_status(served: Kube, names: Any) -> None:
    from kubernetes import client, config

    ns = names("pyscale")
    path = _deployment(served, ns)
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        apps, core = client.AppsV1Api(api_client), client.CoreV1Api(api_client)
        scale = apps.read_namespaced_deployment_scale("web", ns)
        assert (scale.spec.replicas, scale.status.replicas, scale.status.selector) == (1, 0, "app=web")
        scale = apps.patch_namespaced_deployment_scale("web", ns, {"spec": {"replicas": 4}})
        assert scale.spec.replicas == 4 and served.get(path).json()["spec"]["replicas"] == 4
        scale.spec.replicas = 0
        scale = apps.replace_namespaced_deployment_scale("web", ns, scale)
        assert scale.spec.replicas in (0, None)  # autoscaling/v1 omits a zero spec.replicas
        assert served.get(path).json()["spec"]["replicas"] == 0
        dep = apps.read_namespaced_deployment_status("web", ns)
        dep.status.replicas, dep.spec.replicas = 7, 9
        out = apps.replace_namespaced_deployment_status("web", ns, dep)
        assert (out.status.replicas, out.spec.replicas) == (7, 0)  # status changed, spec kept
        pod = core.create_namespaced_pod(ns, client.V1Pod(metadata=client.V1ObjectMeta(name="p"), spec=client.V1PodSpec(
            containers=[client.V1Container(name="c", image="nginx")])))
        out = core.patch_namespaced_pod_status("p", ns, {"status": {"phase": "Running"}})
        assert (out.status.phase, out.status.qos_class) == ("Running", "BestEffort")
        assert out.spec.containers[0].image == pod.spec.containers[0].image
    finally:
        api_client.close()


def test_kubectl_apply_of_an_immutable_pod_field_is_refused(kube: Kube, names: Any, tmp_path: Any) -> None:
    """`kubectl apply` changing a pod's restartPolicy: upstream's 422 (kubectl prints the Status message)."""
    ns = names("immut")
    kube.create_ns(ns)
    manifest = tmp_path / "pod.yaml"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": ns},
           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    manifest.write_text(json.dumps(pod))
    assert kube.ok("apply", "-f", str(manifest)) == "pod/p created\n"
    pod["spec"]["containers"][0]["image"] = "nginx:2"
    manifest.write_text(json.dumps(pod))
    assert kube.ok("apply", "-f", str(manifest)) == "pod/p configured\n"
    pod["spec"]["restartPolicy"] = "Never"
    manifest.write_text(json.dumps(pod))
    stderr = kube.fails("apply", "-f", str(manifest))
    assert 'The Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than ' \
           "`spec.containers[*].image`" in stderr, stderr
