"""kubectl 1.33 and the official client on the kind flavour's storage: a claim applied without a class gets kind's
`standard` class (DefaultStorageClass) and waits for its first consumer (the PV controller's Event, shown by
`describe pvc`); a pod is bound through `pods/binding` and the legacy `bindings` by the official client."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from .test_real_clients import AGE, Kube, kube, names, serve_kube, table  # noqa: F401 - kube, names: fixtures


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "storage", flavor="kind")


def test_kubectl_claim_gets_the_standard_class_and_waits(kube: Kube, names: Any, tmp_path: Path) -> None:
    ns = names("pvc")
    kube.ok("create", "namespace", ns)
    manifest = tmp_path / "pvc.yaml"
    manifest.write_text(yaml.safe_dump(
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": ns},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}))
    assert kube.ok("apply", "-f", str(manifest)) == "persistentvolumeclaim/data created\n"
    header, rows = table(kube.ok("get", "pvc", "-n", ns))
    assert header == ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS",
                      "VOLUMEATTRIBUTESCLASS", "AGE"]
    assert rows[0][:4] == ["data", "Pending", "standard", "<unset>"] and AGE.match(rows[0][4])  # blanks collapse
    header, rows = table(kube.ok("get", "sc"))
    assert header == ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"]
    assert rows[0][:5] == ["standard (default)", "rancher.io/local-path", "Delete", "WaitForFirstConsumer", "false"]
    deadline = time.monotonic() + 30
    while True:  # the Event is written right after the claim (polling: a few describes)
        out = kube.ok("describe", "pvc", "data", "-n", ns)
        if "WaitForFirstConsumer" in out or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert "StorageClass:  standard\n" in out and "Status:        Pending\n" in out
    event = [ln.split() for ln in out.split("\n") if "WaitForFirstConsumer" in ln]
    assert event and event[0][:2] == ["Normal", "WaitForFirstConsumer"], out
    assert " ".join(event[0][3:]) == ("persistentvolume-controller waiting for first consumer to be created before "
                                      "binding"), out
    kube.ok("delete", "ns", ns, "--wait=false")


def test_official_client_binds_pods(served: Kube, names: Any) -> None:
    from kubernetes import client, config

    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        core = client.CoreV1Api(api_client)
        ns = names("bind")
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
        spec = client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")])
        for name in ("a", "b"):
            core.create_namespaced_pod(ns, client.V1Pod(metadata=client.V1ObjectMeta(name=name), spec=spec))
        target = client.V1ObjectReference(kind="Node", name="kind-control-plane")
        # the answer is a Status, not a Binding: the generated client cannot read it (upstream's answer too)
        r = core.create_namespaced_pod_binding("a", ns, client.V1Binding(
            metadata=client.V1ObjectMeta(name="a"), target=target), _preload_content=False)
        assert r.status == 201
        r = core.create_namespaced_binding(ns, client.V1Binding(metadata=client.V1ObjectMeta(name="b"),
                                                                target=target), _preload_content=False)
        assert r.status == 201
        for name in ("a", "b"):
            pod = core.read_namespaced_pod(name, ns)
            assert pod.spec.node_name == "kind-control-plane"
            assert [(c.type, c.status) for c in pod.status.conditions if c.type == "PodScheduled"] == [
                ("PodScheduled", "True")]
        with pytest.raises(client.ApiException) as err:
            core.create_namespaced_pod_binding("a", ns, client.V1Binding(metadata=client.V1ObjectMeta(name="a"),
                                                                          target=target))
        assert err.value.status == 409
        core.delete_namespace(ns)
    finally:
        api_client.close()
