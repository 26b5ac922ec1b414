"""Upstream's descriptions and enums: the data file, its loader (`wire/descriptions.py`) and the tool that
regenerates it (`tools/openapi_descriptions.py`)."""
from __future__ import annotations

import gzip
import importlib.util
import io
import json
import pathlib
import subprocess
import sys
import tarfile
from typing import Any

from conformance.reference_server.wire import descriptions
from conformance.reference_server.wire.descriptions import Descriptions, describe, load, upstream_name

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location("openapi_descriptions_tool", ROOT / "tools/openapi_descriptions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_data_file_covers_every_served_group_and_names_its_version() -> None:
    data = load()
    assert data.version == "v1.33.0" and "kubernetes-validate" in data.source
    for name in ("io.k8s.api.core.v1.PodSpec", "io.k8s.api.apps.v1.DeploymentStrategy", "io.k8s.api.rbac.v1.Role",
                 "io.k8s.api.batch.v1.CronJobSpec", "io.k8s.api.networking.v1.NetworkPolicy",
                 "io.k8s.api.policy.v1.PodDisruptionBudget", "io.k8s.api.coordination.v1.Lease",
                 "io.k8s.api.discovery.v1.EndpointSlice", "io.k8s.api.authentication.v1.TokenReview",
                 "io.k8s.api.authorization.v1.SubjectAccessReview", "io.k8s.api.autoscaling.v1.Scale",
                 "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
                 "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
                 "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService",
                 "io.k8s.api.apps.v1.ControllerRevision"):  # a kind not served yet: its words wait in the file
        assert data.of(name).get(""), name
    assert data.of("io.k8s.api.core.v1.PodSpec")["restartPolicy"].startswith("Restart policy for all containers")
    assert data.enums_of("io.k8s.api.core.v1.ServiceSpec")["type"] == ["ClusterIP", "ExternalName", "LoadBalancer",
                                                                       "NodePort"]
    assert descriptions.DATA.stat().st_size < 200_000  # compact: gzip JSON


def test_describe_fills_only_what_is_missing_and_leaves_its_input_alone() -> None:
    data = Descriptions("v", "s", {"io.k8s.api.core.v1.T": {"": "T is.", "a": "A is.", "b": "B is.", "l": "L."}},
                        {"io.k8s.api.core.v1.T": {"a": ["X", "Y"], "l": ["P", "Q"]}})
    props = {"a": {"type": "string"}, "b": {"description": "ours", "type": "string"},
             "l": {"type": "array", "items": {"type": "string"}}, "c": {"type": "string"}}
    schema = {"type": "object", "properties": props}
    before = json.dumps(schema)
    out = describe({"io.k8s.api.core.v1.T": schema, "io.k8s.api.core.v1.U": {"type": "object"}}, v3=True, data=data)
    assert json.dumps(schema) == before  # shared (memoised) schemas are never changed
    t = out["io.k8s.api.core.v1.T"]
    assert t["description"] == "T is." and t["properties"]["a"] == {"description": "A is.", "type": "string",
                                                                    "enum": ["X", "Y"]}
    assert t["properties"]["b"]["description"] == "ours" and "description" not in t["properties"]["c"]
    assert t["properties"]["l"]["items"] == {"type": "string", "enum": ["P", "Q"]}
    assert out["io.k8s.api.core.v1.U"] == {"type": "object"}
    v2 = describe({"io.k8s.api.core.v1.T": schema}, v3=False, data=data)["io.k8s.api.core.v1.T"]
    assert "enum" not in v2["properties"]["a"] and v2["properties"]["a"]["description"] == "A is."


def test_a_kind_gets_its_words_by_definition_name_alone() -> None:
    """ControllerRevision (another branch adds the kind): its schema is described with no edit here."""
    out = describe({"io.k8s.api.apps.v1.ControllerRevision": {"type": "object", "properties": {
        "revision": {"type": "integer", "format": "int64"}, "data": {"type": "object"}}}}, v3=True)
    cr = out["io.k8s.api.apps.v1.ControllerRevision"]
    assert cr["description"].startswith("ControllerRevision implements an immutable snapshot of state data.")
    assert cr["properties"]["revision"]["description"] == "Revision indicates the revision of the state represented by Data."
    assert upstream_name("io.k8s.api.apiextensions.v1.CustomResourceDefinition") == \
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"


def test_missing_or_broken_data_file_gives_no_descriptions(tmp_path: pathlib.Path) -> None:
    assert load.__wrapped__(tmp_path / "absent.json.gz") == Descriptions()
    (tmp_path / "broken.json.gz").write_bytes(b"not gzip")
    assert load.__wrapped__(tmp_path / "broken.json.gz") == Descriptions()


def test_importing_the_server_loads_no_descriptions() -> None:
    """Lazy: the file is read when the first OpenAPI document is built, never at start-up."""
    code = ("import sys, conformance.reference_server.embedded, conformance.reference_server.wire.openapi\n"
            "assert 'conformance.reference_server.wire.descriptions' not in sys.modules\n"
            "assert 'gzip' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_tool_reads_v3_swagger_and_bundle_shapes_and_completes_enum_paragraphs(tmp_path: pathlib.Path) -> None:
    tool = _tool()
    prop = {"description": "Restart policy.", "type": "string", "enum": ["Always", "Never"]}
    v3 = {"components": {"schemas": {"io.k8s.api.core.v1.PodSpec": {"description": "PodSpec is.", "properties": {
        "restartPolicy": prop}}, "io.k8s.api.resource.v1beta1.ResourceClaim": {"description": "not served"}}}}
    descs, enums = tool.extract(tool.schemas_of(v3))
    assert descs == {"io.k8s.api.core.v1.PodSpec": {"": "PodSpec is.", "restartPolicy": "Restart policy."}}
    assert enums == {"io.k8s.api.core.v1.PodSpec": {"restartPolicy": ["Always", "Never"]}}
    assert tool.schemas_of({"definitions": {"x": {}}}) == tool.schemas_of({"$defs": {"x": {}}}) == {"x": {}}
    dts = ('export interface IPodSpec {\n    /**\n     * Restart policy.\n     *\n     * Possible enum values:\n'
           '     *  - `"Always"` means \\*always\\*\n     *  - `"Never"`\n     */\n'
           '    "restartPolicy"?: "Always" | "Never";\n    "name"?: string;\n}\n')
    tarball = tmp_path / "kubernetes-models.tgz"
    with tarfile.open(tarball, "w:gz") as tar:
        info = tarfile.TarInfo("package/v1/PodSpec.d.ts")
        info.size = len(dts.encode())
        tar.addfile(info, io.BytesIO(dts.encode()))
    npm = tool.npm_enums(tarball)
    assert npm == {"io.k8s.api.core.v1.PodSpec": {"restartPolicy": (
        ["Always", "Never"], 'Restart policy.\n\nPossible enum values:\n - `"Always"` means *always*\n - `"Never"`')}}
    descs, enums = {"io.k8s.api.core.v1.PodSpec": {"restartPolicy": "Restart policy."}}, {}
    assert tool.add_enums(descs, enums, npm) == (1, 1)
    assert descs["io.k8s.api.core.v1.PodSpec"]["restartPolicy"].endswith('\n - `"Never"`')
    descs = {"io.k8s.api.core.v1.PodSpec": {"restartPolicy": "Other words."}}
    assert tool.add_enums(descs, {}, npm) == (1, 0)  # a comment that is not our text plus the paragraph: kept ours
    out = tmp_path / "out.json.gz"
    source = tmp_path / "v3.json"
    source.write_text(json.dumps(v3))
    assert tool.main([str(source), "--out", str(out)]) == 0
    written = json.loads(gzip.decompress(out.read_bytes()))
    assert written["version"] == "v1.33.0" and written["enums"] == enums_of(v3)


def enums_of(doc: dict[str, Any]) -> dict[str, Any]:
    return {"io.k8s.api.core.v1.PodSpec": {"restartPolicy": ["Always", "Never"]}}
