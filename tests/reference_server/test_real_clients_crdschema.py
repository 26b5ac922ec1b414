"""kubectl 1.33 against CRD schemas: `kubectl apply` of a CRD whose schema is not structural is refused with
apiextensions-apiserver's words and field paths, and real-world CRDs (Gateway API, cert-manager) apply."""
from __future__ import annotations

import json
import uuid
from pathlib import Path

from .crdschema.test_structural import DATA
from .test_real_clients import Kube, kube, served  # noqa: F401 - fixtures

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def test_kubectl_apply_of_a_non_structural_crd_shows_upstreams_error(kube: Kube, tmp_path: Path) -> None:
    group = f"k{uuid.uuid4().hex[:8]}.example.com"
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"size": {}},
                                                        "anyOf": [{"type": "object"}]}}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": f"gadgets.{group}"},
           "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                    "versions": [{"name": "v1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": schema}}]}}
    path = tmp_path / "crd.json"
    path.write_text(json.dumps(crd))
    err = kube.fails("apply", "-f", str(path))
    assert err == (f'The CustomResourceDefinition "gadgets.{group}" is invalid: \n'
                   "* spec.validation.openAPIV3Schema.properties[spec].anyOf[0].type: Forbidden: must be empty to be "
                   "structural\n"
                   "* spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Required value: must not "
                   "be empty for specified object fields\n"), err
    assert kube.http.get(f"{kube.server.url}{CRDS}/gadgets.{group}").status_code == 404


def test_kubectl_applies_real_world_crds(kube: Kube) -> None:
    for path in sorted(DATA.glob("*.yaml")):
        out = kube.ok("apply", "-f", str(path))
        assert out.endswith(" created\n"), out
    for path in sorted(DATA.glob("*.yaml")):
        kube.ok("delete", "-f", str(path), "--wait=false")


def _crd(group: str, schema: dict, **version: object) -> dict:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema}, **version}]}}


def test_kubectl_apply_of_a_crd_with_a_bad_default_shows_upstreams_error(kube: Kube, tmp_path: Path) -> None:
    group = f"k{uuid.uuid4().hex[:8]}.example.com"
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "mode": {"type": "string", "enum": ["fast", "slow"], "default": "medium"}}}}}
    path = tmp_path / "crd.json"
    path.write_text(json.dumps(_crd(group, schema)))
    err = kube.fails("apply", "-f", str(path))
    assert err == (f'The CustomResourceDefinition "gadgets.{group}" is invalid: spec.validation.openAPIV3Schema'
                   '.properties[spec].properties[mode].default: Unsupported value: "medium": supported values: '
                   '"fast", "slow"\n'), err
    assert kube.http.get(f"{kube.server.url}{CRDS}/gadgets.{group}").status_code == 404


def test_kubectl_apply_of_a_crd_with_a_wrongly_typed_schema_value(kube: Kube, tmp_path: Path) -> None:
    group = f"k{uuid.uuid4().hex[:8]}.example.com"
    path = tmp_path / "crd.json"
    path.write_text(json.dumps(_crd(group, {"type": "object", "properties": {"spec": "object"}})))
    err = kube.fails("apply", "-f", str(path))
    assert err == ('Error from server (BadRequest): error when creating "' + str(path) + '": CustomResourceDefinition '
                   'in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal string '
                   "into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties of type "
                   "v1.JSONSchemaProps\n"), err
