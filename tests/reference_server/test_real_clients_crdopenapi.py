"""A CRD's schema published in OpenAPI as apiextensions-apiserver's builder publishes it
(`pkg/controller/openapi/builder/builder.go`): `kubectl explain` shows its fields, the v3 document of its
group-version has upstream's definition names, paths, operation ids and group-version-kinds, and v2 merges it."""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from tests.reference_server.crds import CRDS, create_crd, wait_crd

from .test_real_clients import Kube, kube, served  # noqa: F401 - fixtures

SPEC = {"type": "object", "description": "CronTabSpec is the desired state of a CronTab.", "properties": {
    "cronSpec": {"type": "string", "description": "The cron expression the job runs on.", "example": "* * *"},
    "port": {"x-kubernetes-int-or-string": True, "description": "A port, by number or name."},
    "replicas": {"type": "integer", "format": "int32", "minimum": 0, "default": 1}},
    "required": ["cronSpec"]}
SCHEMA = {"type": "object", "properties": {
    "spec": SPEC,
    "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
    "template": {"type": "object", "x-kubernetes-embedded-resource": True,
                 "x-kubernetes-preserve-unknown-fields": True}}}


def _crd(group: str, scope: str = "Namespaced", plural: str = "crontabs", kind: str = "CronTab") -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{group}"},
            "spec": {"group": group, "scope": scope,
                     "names": {"plural": plural, "kind": kind, "listKind": f"{kind}Roster"},
                     "versions": [
                         {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": SCHEMA},
                          "selectableFields": [{"jsonPath": ".spec.cronSpec"}],
                          "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                                   "statusReplicasPath": ".status.replicas"}}},
                         {"name": "v2", "served": False, "storage": False,
                          "schema": {"openAPIV3Schema": {"type": "object"}}}]}}


def _group(kube: Kube, scope: str = "Namespaced") -> str:
    group = f"k{uuid.uuid4().hex[:8]}.example.com"
    assert create_crd(kube.http, kube.server.url, _crd(group, scope)).status_code == 201
    return group


def _v3(kube: Kube, group: str, version: str = "v1") -> dict[str, Any]:
    r = kube.http.get(f"{kube.server.url}/openapi/v3/apis/{group}/{version}")
    assert r.status_code == 200, r.text
    return r.json()


def test_kubectl_explain_shows_the_crds_field_descriptions(kube: Kube) -> None:
    group = _group(kube)
    out = kube.ok("explain", f"crontabs.{group}.spec")
    assert f"GROUP:      {group}" in out and "KIND:       CronTab" in out and "VERSION:    v1" in out, out
    assert "FIELD: spec <Object>" in out, out
    assert "CronTabSpec is the desired state of a CronTab." in out, out
    assert "cronSpec\t<string> -required-" in out and "The cron expression the job runs on." in out, out
    assert "A port, by number or name." in out, out
    top = kube.ok("explain", f"crontabs.{group}")
    assert "metadata\t<ObjectMeta>" in top and "Standard object's metadata." in top, top


def test_the_v3_document_has_upstreams_names_paths_and_kinds(kube: Kube) -> None:
    group = _group(kube)
    doc = _v3(kube, group)
    rev = ".".join(reversed(group.split(".")))
    assert doc["info"] == {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"}
    schemas = doc["components"]["schemas"]
    obj, lst = schemas[f"{rev}.v1.CronTab"], schemas[f"{rev}.v1.CronTabRoster"]
    assert obj["x-kubernetes-group-version-kind"] == [{"group": group, "kind": "CronTab", "version": "v1"}]
    assert lst["x-kubernetes-group-version-kind"] == [{"group": group, "kind": "CronTabRoster", "version": "v1"}]
    assert lst["properties"]["items"]["items"] == {"$ref": f"#/components/schemas/{rev}.v1.CronTab"}
    assert obj["properties"]["metadata"] == {  # builder3's WrapRefs: a $ref with siblings goes into an allOf
        "description": "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/"
                       "sig-architecture/api-conventions.md#metadata",
        "allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]}
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" in schemas and "io.k8s.api.autoscaling.v1.Scale" in schemas
    spec = obj["properties"]["spec"]
    assert spec["required"] == ["cronSpec"] and "example" not in spec["properties"]["cronSpec"]
    assert spec["properties"]["port"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]  # Unfold
    assert spec["properties"]["replicas"]["minimum"] == 0 and spec["properties"]["replicas"]["default"] == 1
    assert obj["x-kubernetes-selectable-fields"] == [{"fieldPath": "spec.cronSpec"}]
    template = obj["properties"]["template"]  # an embedded resource gets TypeMeta and ObjectMeta
    assert set(template["properties"]) == {"apiVersion", "kind", "metadata"}
    assert template["required"] == ["kind", "apiVersion"]
    base = f"/apis/{group}/v1"
    ns = f"{base}/namespaces/{{namespace}}/crontabs"
    assert sorted(doc["paths"]) == sorted([f"{base}/crontabs", ns, f"{ns}/{{name}}", f"{ns}/{{name}}/status",
                                           f"{ns}/{{name}}/scale"])  # no watch paths
    gv = "".join(w.capitalize() for w in group.split(".")) + "V1"
    ops = {(p, m): op["operationId"] for p, item in doc["paths"].items() for m, op in item.items()
           if m != "parameters"}
    assert ops[(f"{base}/crontabs", "get")] == f"list{gv}CronTabForAllNamespaces"
    assert ops[(ns, "delete")] == f"delete{gv}CollectionNamespacedCronTab"
    assert ops[(f"{ns}/{{name}}/status", "patch")] == f"patch{gv}NamespacedCronTabStatus"
    assert ops[(f"{ns}/{{name}}/scale", "put")] == f"replace{gv}NamespacedCronTabScale"
    patch = doc["paths"][f"{ns}/{{name}}"]["patch"]
    assert patch["description"] == "partially update the specified CronTab"
    assert patch["requestBody"] == {"content": {t: {"schema": {
        "$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}} for t in (
        "application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml")},
        "required": True}  # go-restful's Reads: a required body
    assert [p["name"] for p in patch["parameters"]] == ["dryRun", "fieldManager", "fieldValidation", "force"]
    assert patch["parameters"][3]["description"].startswith('Force is going to "force" Apply requests.')
    assert "required" not in doc["paths"][f"{ns}/{{name}}"]["delete"]["requestBody"]  # DeleteOptions' is not
    read = doc["paths"][f"{ns}/{{name}}"]["get"]["parameters"]  # GetOptions' SwaggerDoc
    assert [(p["name"], p["description"][:40]) for p in read] == [
        ("resourceVersion", "resourceVersion sets a constraint on wha")]
    assert [p["name"] for p in doc["paths"][f"{ns}/{{name}}"]["parameters"]] == ["name", "namespace", "pretty"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": group, "kind": "CronTab", "version": "v1"}
    scale = doc["paths"][f"{ns}/{{name}}/scale"]["get"]["responses"]["200"]["content"]["application/json"]
    assert scale["schema"] == {"$ref": "#/components/schemas/io.k8s.api.autoscaling.v1.Scale"}
    post = doc["paths"][ns]["post"]
    assert post["description"] == "create a CronTab" and sorted(post["responses"]) == ["200", "201", "202", "401"]
    index = kube.http.get(f"{kube.server.url}/openapi/v3").json()["paths"]
    assert f"apis/{group}/v1" in index and f"apis/{group}/v2" not in index  # served versions only


def test_a_cluster_scoped_crd_has_no_namespaced_paths(kube: Kube) -> None:
    group = _group(kube, "Cluster")
    doc = _v3(kube, group)
    base = f"/apis/{group}/v1/crontabs"
    assert sorted(doc["paths"]) == [base, f"{base}/{{name}}", f"{base}/{{name}}/scale", f"{base}/{{name}}/status"]
    gv = "".join(w.capitalize() for w in group.split(".")) + "V1"
    assert doc["paths"][base]["get"]["operationId"] == f"list{gv}CronTab"
    assert [p["name"] for p in doc["paths"][base]["parameters"]] == ["pretty"]
    assert [p["name"] for p in doc["paths"][f"{base}/{{name}}"]["parameters"]] == ["name", "pretty"]


def test_v2_merges_the_crd_with_v2s_conversion(kube: Kube) -> None:
    group = _group(kube)
    rev = ".".join(reversed(group.split(".")))
    doc = kube.http.get(f"{kube.server.url}/openapi/v2", headers={"Accept": "application/json"}).json()
    obj = doc["definitions"][f"{rev}.v1.CronTab"]
    assert obj["properties"]["metadata"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    assert "anyOf" not in obj["properties"]["spec"]["properties"]["port"]  # ToStructuralOpenAPIV2
    assert obj["properties"]["spec"]["properties"]["replicas"] == {"type": "integer", "format": "int32",
                                                                   "minimum": 0}  # PruneDefaults
    assert obj["x-kubernetes-selectable-fields"] == [{"fieldPath": "spec.cronSpec"}]
    assert obj["properties"]["template"] == {"x-kubernetes-embedded-resource": True,
                                             "x-kubernetes-preserve-unknown-fields": True}
    item = doc["paths"][f"/apis/{group}/v1/namespaces/{{namespace}}/crontabs/{{name}}"]
    # deduplicateParameters: what is not the kind's own (its body, its name) nor dryRun/fieldValidation is shared
    assert [p.get("name") or p["$ref"] for p in item["put"]["parameters"]] == [
        "body", "dryRun", "#/parameters/fieldManager-Qy4HdaTW", "fieldValidation"]
    assert item["delete"]["parameters"][0] == {"$ref": "#/parameters/body-2Y1dVQaQ"}
    assert doc["parameters"]["body-2Y1dVQaQ"] == {"name": "body", "in": "body", "schema": {
        "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"}}  # not required
    assert item["parameters"][1] == {"$ref": "#/parameters/namespace-vgWSWtn3"}
    assert item["patch"]["consumes"] == ["application/json-patch+json", "application/merge-patch+json",
                                         "application/apply-patch+yaml"]
    assert item["get"]["responses"]["401"] == {"description": "Unauthorized"}
    assert item["get"]["schemes"] == ["https"] and item["get"]["produces"] == ["application/json", "application/yaml"]
    assert not any(p.startswith(f"/apis/{group}/v1/watch") for p in doc["paths"])
    assert "io.k8s.api.core.v1.Namespace" in doc["definitions"]


def test_the_documents_follow_a_schema_change(kube: Kube, tmp_path: Path) -> None:
    group = _group(kube)
    rev = ".".join(reversed(group.split(".")))
    before = _v3(kube, group)["components"]["schemas"][f"{rev}.v1.CronTab"]
    assert "suspend" not in before["properties"]["spec"]["properties"]
    crd = kube.http.get(f"{kube.server.url}{CRDS}/crontabs.{group}").json()
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["suspend"] = {
        "type": "boolean", "description": "Whether to pause."}
    r = kube.http.put(f"{kube.server.url}{CRDS}/crontabs.{group}", json=crd)
    assert r.status_code == 200, r.text
    wait_crd(kube.http, kube.server.url, f"crontabs.{group}")
    after = _v3(kube, group)["components"]["schemas"][f"{rev}.v1.CronTab"]
    assert after["properties"]["spec"]["properties"]["suspend"]["description"] == "Whether to pause."
    v2 = kube.http.get(f"{kube.server.url}/openapi/v2", headers={"Accept": "application/json"}).json()
    assert "suspend" in v2["definitions"][f"{rev}.v1.CronTab"]["properties"]["spec"]["properties"]
    # kubectl still validates and server-side applies a custom resource against it
    ns = kube.create_ns(f"crd-openapi-{uuid.uuid4().hex[:6]}")["metadata"]["name"]
    path = tmp_path / "cr.json"
    path.write_text(json.dumps({"apiVersion": f"{group}/v1", "kind": "CronTab",
                                "metadata": {"name": "nightly", "namespace": ns},
                                "spec": {"cronSpec": "0 0 * * *", "suspend": True}}))
    assert kube.ok("apply", "--server-side", "-f", str(path)).endswith("serverside-applied\n")
    got = kube.http.get(f"{kube.server.url}/apis/{group}/v1/namespaces/{ns}/crontabs/nightly").json()
    assert got["spec"] == {"cronSpec": "0 0 * * *", "suspend": True, "replicas": 1}  # defaulted
    assert [m["manager"] for m in got["metadata"]["managedFields"]] == ["kubectl"]
