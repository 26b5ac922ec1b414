"""kubectl 1.33 meets the networking/scheduling/storage/node kinds (registry/groupkinds.py) as on a kind cluster:
`apply -f` of each, `get ing,sc,pc,runtimeclass` with printers.go's columns and kubectl's kind-qualified names,
`delete ns --wait` of a namespace holding an Ingress and a CSIStorageCapacity."""
from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from .test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture

MANIFEST = """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: web, namespace: {ns}}}
spec:
  ingressClassName: nginx
  tls: [{{hosts: [a.example.com], secretName: tls}}]
  rules:
  - host: a.example.com
    http:
      paths: [{{path: /, pathType: Prefix, backend: {{service: {{name: web, port: {{number: 80}}}}}}}}]
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {{name: cap, namespace: {ns}}}
storageClassName: {u}
capacity: 1Gi
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: {u}
  annotations: {{storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {{name: {u}}}
value: 1000
description: test
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {{name: {u}}}
handler: runc
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "groupkinds", flavor="bare")


def blocks(stdout: str) -> list[list[list[str]]]:
    """kubectl's output for several kinds: one table per kind, separated by a blank line; cells split on 2+ spaces."""
    return [[re.split(r" {2,}", ln.rstrip()) for ln in block.split("\n") if ln]
            for block in stdout.strip("\n").split("\n\n")]


def test_kubectl_apply_get_and_delete_namespace(kube: Kube, tmp_path: Path) -> None:
    u, ns = f"gk-{uuid.uuid4().hex[:6]}", f"gkns-{uuid.uuid4().hex[:6]}"
    kube.ok("create", "namespace", ns)
    manifest = tmp_path / "m.yaml"
    manifest.write_text(MANIFEST.format(ns=ns, u=u))
    try:
        assert kube.ok("apply", "-f", str(manifest)) == (
            f"ingress.networking.k8s.io/web created\ncsistoragecapacity.storage.k8s.io/cap created\n"
            f"storageclass.storage.k8s.io/{u} created\npriorityclass.scheduling.k8s.io/{u} created\n"
            f"runtimeclass.node.k8s.io/{u} created\n")
        out = blocks(kube.ok("get", "ing,sc,pc,runtimeclass", "-n", ns))
        ing, sc, pc, rc = out
        assert ing[0] == ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]
        # the ADDRESS cell is blank: the row splits into five cells
        assert ing[1][:4] == ["ingress.networking.k8s.io/web", "nginx", "a.example.com", "80, 443"]
        assert sc[0] == ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"]
        assert [r[:5] for r in sc[1:] if u in r[0]] == [[f"storageclass.storage.k8s.io/{u} (default)",
                                                        "rancher.io/local-path", "Delete", "WaitForFirstConsumer",
                                                        "false"]]
        assert pc[0] == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
        rows = {r[0]: r for r in pc[1:]}
        assert rows["priorityclass.scheduling.k8s.io/system-node-critical"][1:3] == ["2000001000", "false"]
        assert rows[f"priorityclass.scheduling.k8s.io/{u}"][-1] == "PreemptLowerPriority"
        assert rc[0] == ["NAME", "HANDLER", "AGE"]
        assert [r[:2] for r in rc[1:]] == [[f"runtimeclass.node.k8s.io/{u}", "runc"]]
        assert kube.ok("get", "csistoragecapacities", "-n", ns).split("\n")[:2] == [
            "NAME   STORAGECLASSNAME   CAPACITY", f"cap    {u:<18} 1Gi"]
        err = kube.fails("delete", "priorityclass", "system-cluster-critical")
        assert err == ('Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-cluster-critical" '
                       "is forbidden: this is a system priority class and cannot be deleted\n")
        assert kube.ok("delete", "ns", ns, "--wait") == f'namespace "{ns}" deleted\n'
        assert kube.run("get", "ing", "web", "-n", ns).returncode == 1
    finally:
        for kind in ("sc", "pc", "runtimeclass"):
            kube.run("delete", kind, u, "--ignore-not-found")
