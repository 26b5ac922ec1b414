"""kubectl 1.33 against CRDs' `x-kubernetes-validations`: `kubectl apply` of a CRD whose rule does not compile is
refused with apiextensions-apiserver's field path and `compilation failed`, and `kubectl apply` of a custom resource
that breaks a rule prints the rule's message under `The <Kind> "<name>" is invalid`."""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from .test_real_clients import Kube, kube, served  # noqa: F401 - fixtures


def _crd(group: str, rule: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"replicas": {
        "type": "integer", "x-kubernetes-validations": [{"rule": rule, "message": "replicas must be at most 10"}]}}}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{group}"},
            "spec": {"group": group, "scope": "Cluster", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}}]}}


def _file(tmp_path: Path, name: str, body: dict[str, Any]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(body))
    return str(path)


def test_kubectl_apply_meets_the_rules(kube: Kube, tmp_path: Path) -> None:
    group = f"k{uuid.uuid4().hex[:8]}.example.com"
    err = kube.fails("apply", "-f", _file(tmp_path, "bad.json", _crd(group, "self.replicas <= 10")))
    assert err.startswith(f'The CustomResourceDefinition "gadgets.{group}" is invalid: spec.validation.openAPIV3Schema'
                          ".properties[spec].properties[replicas].x-kubernetes-validations[0].rule: Invalid value: "
                          'apiextensions.ValidationRule{Rule:"self.replicas <= 10"'), err
    assert "compilation failed: ERROR: <input>:1:5: type 'int' does not support field selection" in err
    kube.ok("apply", "-f", _file(tmp_path, "crd.json", _crd(group, "self <= 10")))
    kube.ok("wait", "--for", "condition=established", f"crd/gadgets.{group}", "--timeout=30s")  # as a client of a real cluster
    gadget = {"apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {"replicas": 11}}
    err = kube.fails("apply", "-f", _file(tmp_path, "g1.json", gadget))
    assert err == ('The Gadget "g1" is invalid: spec.replicas: Invalid value: "integer": replicas must be at most '
                   "10\n"), err
    gadget["spec"]["replicas"] = 3
    assert kube.ok("apply", "-f", _file(tmp_path, "g1.json", gadget)) == f"gadget.{group}/g1 created\n"
    kube.http.delete(f"{kube.server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.{group}")


def test_kubectl_apply_of_a_crd_over_the_cost_budget(kube: Kube, tmp_path: Path) -> None:
    """An unbounded list of unbounded strings compared pairwise: refused at write with the estimate's words; the
    same rule with maxItems and maxLength is applied."""
    group = f"k{uuid.uuid4().hex[:8]}.example.com"
    body = _crd(group, "true")
    spec = body["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"] = {"names": {"type": "array", "items": {"type": "string"}, "x-kubernetes-validations": [
        {"rule": "self.all(x, self.exists_one(y, x == y))", "message": "names must be unique"}]}}
    err = kube.fails("apply", "-f", _file(tmp_path, "costly.json", body))
    rule = "spec.validation.openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0].rule"
    assert err.startswith(f'The CustomResourceDefinition "gadgets.{group}" is invalid: \n* {rule}: Forbidden: '
                          "estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, "
                          "or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are "
                          "declared)\n"), err
    spec["properties"]["names"].update(maxItems=20)
    spec["properties"]["names"]["items"].update(maxLength=63)
    assert kube.ok("apply", "-f", _file(tmp_path, "costly.json", body)) == \
        f"customresourcedefinition.apiextensions.k8s.io/gadgets.{group} created\n"
    kube.http.delete(f"{kube.server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.{group}")


def test_kubectl_apply_of_times_500ns_apart(kube: Kube, tmp_path: Path) -> None:
    """A rule ordering two `date-time` fields sees the nanoseconds cel-go's `strfmt.ParseDateTime` keeps
    (apiserver `pkg/cel/common/values.go`): 500 ns apart they are ordered, not equal."""
    group = f"k{uuid.uuid4().hex[:8]}.example.com"
    body = _crd(group, "true")
    spec = body["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"] = {"t1": {"type": "string", "format": "date-time"},
                          "t2": {"type": "string", "format": "date-time"}}
    spec["x-kubernetes-validations"] = [{"rule": "self.t2 > self.t1", "message": "t2 must be after t1"}]
    kube.ok("apply", "-f", _file(tmp_path, "crd.json", body))
    gadget = {"apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "g1"},
              "spec": {"t1": "2024-01-01T00:00:00.000000600Z", "t2": "2024-01-01T00:00:00.000000100Z"}}
    err = kube.fails("apply", "-f", _file(tmp_path, "g1.json", gadget))
    assert err == 'The Gadget "g1" is invalid: spec: Invalid value: "object": t2 must be after t1\n', err
    gadget["spec"] = {"t1": "2024-01-01T00:00:00.000000100Z", "t2": "2024-01-01T00:00:00.000000600Z"}
    assert kube.ok("apply", "-f", _file(tmp_path, "g1.json", gadget)) == f"gadget.{group}/g1 created\n"
    kube.http.delete(f"{kube.server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.{group}")
