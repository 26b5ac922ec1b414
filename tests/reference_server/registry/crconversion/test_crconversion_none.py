"""A two-version CRD with `conversion.strategy: None` (registry/crconversion/ `Converter`, nop_converter.go):
defaulted when absent, and one object served in both versions, only `apiVersion` differing, to kubectl 1.33 and
the official client's DynamicClient (discovery, get, list, watch, create in the other version, server-side
apply in each version with managedFields recorded per version)."""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from tests.reference_server.test_real_clients import Kube, serve_kube
from tests.tools import kubectl as kubectl_tool
from tests.reference_server.crds import create_crd

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
GROUP = "nop.example.com"
SCHEMA = {"openAPIV3Schema": {"type": "object", "properties": {
    "spec": {"type": "object", "properties": {"size": {"type": "integer"}, "color": {"type": "string"}}}}}}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "crconversion-none", flavor="bare")


def make_crd(served: Kube, kind: str, versions: list[tuple[str, bool, dict[str, Any]]]) -> Iterator[str]:
    """A namespaced CRD of `kind` without `conversion`, its `versions` (name, storage, schema) all served; yields
    its plural (also its singular), deletes it after."""
    plural = f"{kind[0].lower()}{uuid.uuid4().hex[:8]}"
    body = {"metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced", "names": {"plural": plural, "kind": kind,
                                                                       "singular": plural},
                     "versions": [{"name": name, "served": True, "storage": storage, "schema": schema}
                                  for name, storage, schema in versions]}}
    r = create_crd(served.http, served.server.url, body, timeout=10)
    assert r.status_code == 201, r.text
    yield plural
    served.http.delete(f"{served.server.url}{CRDS}/{plural}.{GROUP}", timeout=10)


@pytest.fixture(scope="module")
def crd(served: Kube) -> Iterator[str]:
    """The CRD (no `conversion`: v1 defaults it): `v2` stored, `v1` served too."""
    yield from make_crd(served, "Gadget", [("v1", False, SCHEMA), ("v2", True, SCHEMA)])


def test_conversion_defaults_to_none(served: Kube, crd: str) -> None:
    got = served.get(f"{CRDS}/{crd}.{GROUP}").json()
    assert got["spec"]["conversion"] == {"strategy": "None"}
    assert got["status"]["storedVersions"] == ["v2"]
    # a new storage version joins storedVersions (strategy.go PrepareForUpdate)
    versions = [{**v, "storage": v["name"] == "v1"} for v in got["spec"]["versions"]]
    r = served.http.patch(f"{served.server.url}{CRDS}/{crd}.{GROUP}", timeout=10,
                          data=json.dumps({"spec": {"versions": versions}}),
                          headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text
    assert r.json()["status"]["storedVersions"] == ["v2", "v1"]
    versions = [{**v, "storage": v["name"] == "v2"} for v in got["spec"]["versions"]]
    r = served.http.patch(f"{served.server.url}{CRDS}/{crd}.{GROUP}", timeout=10,
                          data=json.dumps({"spec": {"versions": versions}}),
                          headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["status"]["storedVersions"] == ["v2", "v1"], r.text


def test_dynamic_client_reads_both_versions(served: Kube, crd: str, tmp_path: Path) -> None:
    from kubernetes import config, dynamic
    from kubernetes.dynamic.exceptions import ConflictError

    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        dc = dynamic.DynamicClient(api_client, cache_file=str(tmp_path / "discovery.json"))
        v1 = dc.resources.get(api_version=f"{GROUP}/v1", kind="Gadget")
        v2 = dc.resources.get(api_version=f"{GROUP}/v2", kind="Gadget")
        created = v1.create(body={"apiVersion": f"{GROUP}/v1", "kind": "Gadget", "metadata": {"name": "dyn"},
                                  "spec": {"size": 3}}, namespace="default")
        assert (created.apiVersion, created.spec.size) == (f"{GROUP}/v1", 3)
        for res, version in ((v1, "v1"), (v2, "v2")):
            got = res.get(name="dyn", namespace="default")
            assert (got.apiVersion, got.spec.size, got.metadata.uid) == (f"{GROUP}/{version}", 3,
                                                                         created.metadata.uid)
            listed = res.get(namespace="default")
            assert listed.apiVersion == f"{GROUP}/{version}"
            assert [(i.apiVersion, i.metadata.name) for i in listed.items] == [(f"{GROUP}/{version}", "dyn")]
            events = [(e["type"], e["object"].apiVersion) for e in res.watch(namespace="default", timeout=1)]
            assert events == [("ADDED", f"{GROUP}/{version}")]
        # server-side apply in each version: each manager's entry records the version it applied in
        applied = v1.server_side_apply(body={"apiVersion": f"{GROUP}/v1", "kind": "Gadget",
                                             "metadata": {"name": "dyn"}, "spec": {"color": "red"}},
                                       namespace="default", field_manager="one")
        assert applied.spec.to_dict() == {"size": 3, "color": "red"}
        size = {"apiVersion": f"{GROUP}/v2", "kind": "Gadget", "metadata": {"name": "dyn"}, "spec": {"size": 4}}
        with pytest.raises(ConflictError) as conflict:  # the creator's entry, recorded in v1, compared in v2
            v2.server_side_apply(body=size, namespace="default", field_manager="two")
        assert f"using {GROUP}/v1:" in json.loads(conflict.value.body)["message"]
        v2.server_side_apply(body=size, namespace="default", field_manager="two", force_conflicts=True)
        got = v2.get(name="dyn", namespace="default")
        managers = {m.manager: (m.operation, m.apiVersion) for m in got.metadata.managedFields}
        assert managers["one"] == ("Apply", f"{GROUP}/v1") and managers["two"] == ("Apply", f"{GROUP}/v2")
        assert got.spec.to_dict() == {"size": 4, "color": "red"}
        v2.delete(name="dyn", namespace="default")
    finally:
        api_client.close()


def test_kubectl_reads_both_versions(served: Kube, crd: str, tmp_path: Path) -> None:
    if served.binary is None:
        pytest.skip(f"kubectl 1.33 unavailable: {kubectl_tool.LAST_ERROR}")
    manifest = tmp_path / "gadget.yaml"
    manifest.write_text(yaml.safe_dump({"apiVersion": f"{GROUP}/v1", "kind": "Gadget",
                                        "metadata": {"name": "kc", "namespace": "default"}, "spec": {"size": 1}}))
    assert served.ok("create", "-f", str(manifest)) == f"gadget.{GROUP}/kc created\n"
    for version in ("v1", "v2"):
        out = json.loads(served.ok("get", f"{crd}.{version}.{GROUP}", "kc", "-n", "default", "-o", "json"))
        assert (out["apiVersion"], out["spec"]) == (f"{GROUP}/{version}", {"size": 1})
    header, *rows = served.ok("get", f"{crd}.v1.{GROUP}", "-n", "default").splitlines()  # the server's table
    assert header.split() == ["NAME", "AGE"] and rows[0].split()[0] == "kc"
    # the preferred version (v2: kube-aware version order) is kubectl's default
    out = json.loads(served.ok("get", crd, "kc", "-n", "default", "-o", "json"))
    assert out["apiVersion"] == f"{GROUP}/v2"
    assert served.ok("delete", f"{crd}.v1.{GROUP}", "kc", "-n", "default") == f"gadget.{GROUP} \"kc\" deleted\n"
    assert served.get(f"/apis/{GROUP}/v2/namespaces/default/{crd}/kc").status_code == 404


V1 = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "size": {"type": "integer"}, "color": {"type": "string"}}}}}}
V1BETA1 = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "size": {"type": "integer", "maximum": 10}, "legacy": {"type": "string", "default": "old"}}}}}}


@pytest.fixture
def schemas(served: Kube) -> Iterator[str]:
    """A CRD whose versions' schemas differ: `v1` stored (`color`), `v1beta1` (`legacy`, `size` at most 10)."""
    yield from make_crd(served, "Shaped", [("v1", True, V1), ("v1beta1", False, V1BETA1)])


def test_each_version_its_own_schema(served: Kube, schemas: str) -> None:
    """customresource_handler.go: a request is decoded, defaulted and validated in its version's schema; the
    object is pruned by the storage version's on its way to storage, and by the reader's version's after the
    conversion on the way out (`schemaCoercingConverter`)."""
    def url(version: str, name: str = "") -> str:
        return f"{served.server.url}/apis/{GROUP}/{version}/namespaces/default/{schemas}" + (f"/{name}" if name else "")

    def post(version: str, name: str, spec: dict[str, Any]) -> Any:
        return served.http.post(url(version), timeout=10, json={"apiVersion": f"{GROUP}/{version}", "kind": "Shaped",
                                                                "metadata": {"name": name}, "spec": spec})
    r = post("v1beta1", "big", {"size": 20})
    assert r.status_code == 422, r.text
    assert r.json()["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.size",
                                              "message": "Invalid value: 20: spec.size in body should be less than "
                                                         "or equal to 10"}]
    assert post("v1", "big", {"size": 20, "color": "red"}).status_code == 201  # v1 has no maximum
    got = served.http.get(url("v1beta1", "big"), timeout=10).json()
    assert got["spec"] == {"size": 20}  # `color` is not v1beta1's
    r = post("v1beta1", "small", {"size": 1, "color": "red"})
    assert r.status_code == 201 and r.json()["spec"] == {"size": 1}, r.text  # the answer: what was stored, read
    stored = served.http.get(url("v1", "small"), timeout=10).json()
    assert stored["spec"] == {"size": 1}  # `color` pruned by v1beta1, `legacy` (its default) by v1
