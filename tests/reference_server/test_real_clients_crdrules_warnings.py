"""kubectl 1.33 and a ratcheted CRD rule (registry/crdrules/validator.py, warning.py): a patch that leaves a value
alone which a rule added later refuses succeeds, and kubectl prints the error the server sends as a warning."""
from __future__ import annotations

import uuid
from pathlib import Path

from .test_real_clients import Kube, kube, served  # noqa: F401 - fixtures
from .test_real_clients_crdrules import _file


def test_kubectl_prints_a_ratcheted_rules_warning(kube: Kube, tmp_path: Path) -> None:
    """A rule added after the object was stored: a patch that leaves the violating field alone succeeds, and
    kubectl prints the ratcheted error the server sends as a warning."""
    group = f"w{uuid.uuid4().hex[:8]}.example.com"
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "a": {"type": "integer"}, "b": {"type": "integer"}}}}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": f"gadgets.{group}"},
           "spec": {"group": group, "scope": "Cluster", "names": {"plural": "gadgets", "kind": "Gadget"},
                    "versions": [{"name": "v1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": schema}}]}}
    kube.ok("apply", "-f", _file(tmp_path, "crd.json", crd))
    kube.ok("wait", "--for", "condition=established", f"crd/gadgets.{group}", "--timeout=30s")
    body = {"apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {"a": 10, "b": 1}}
    r = kube.http.post(f"{kube.server.url}/apis/{group}/v1/gadgets", json=body)
    assert r.status_code == 201, r.text
    crd_url = f"{kube.server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.{group}"
    current = kube.http.get(crd_url).json()
    current["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["a"][
        "x-kubernetes-validations"] = [{"rule": "self < 5"}]
    assert kube.http.put(crd_url, json=current).status_code == 200
    proc = kube.run("patch", f"gadgets.{group}", "g1", "--type", "merge", "-p", '{"spec":{"b":2}}')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"gadget.{group}/g1 patched\n"
    assert proc.stderr == 'Warning: spec.a: Invalid value: "integer": failed rule: self < 5\n'
    kube.http.delete(crd_url)
