"""kubectl 1.33 creating a custom resource whose embedded resource (`x-kubernetes-embedded-resource`) has an unknown
field in its `metadata`: under its default `--validate=strict` the server's 400 names it (apiextensions-apiserver's
objectmeta/coerce.go `CoerceWithOptions`, after the pruned fields), under `--validate=warn` it is a warning and the
field is dropped from what is stored."""
from __future__ import annotations

import json
import uuid

import pytest

from .test_http_strict_cr_paths import EMB_SCHEMA
from .test_real_clients import Kube, kube, served  # noqa: F401 - fixtures
from tests.reference_server.crds import CRDS, create_crd, schemaless_crd


def _wrappers(kube: Kube) -> tuple[str, str]:  # noqa: F811
    """A cluster-scoped CRD of embedded resources (EMB_SCHEMA) in a group of its own: (group, server URL)."""
    if kube.binary is None:
        pytest.skip("no kubectl")
    group = f"e{uuid.uuid4().hex[:8]}.example.com"
    crd = schemaless_crd(group, "wrappers", "Wrapper", scope="Cluster")
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = EMB_SCHEMA
    assert create_crd(kube.http, kube.server.url, crd).status_code == 201
    return group, kube.server.url


def test_kubectl_create_names_and_drops_embedded_metadata_fields(kube: Kube, tmp_path) -> None:  # noqa: F811
    group, base = _wrappers(kube)
    body = {"apiVersion": f"{group}/v1", "kind": "Wrapper", "metadata": {"name": "w1"},
            "spec": {"z": 1, "t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "bogus": 1}}}}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(body))
    err = kube.fails("create", "-f", str(path))
    assert err.strip() == (f'Error from server (BadRequest): error when creating "{path}": Wrapper in version "v1" '
                           'cannot be handled as a Wrapper: strict decoding error: unknown field "spec.z", '
                           'unknown field "spec.t.metadata.bogus"'), err
    proc = kube.run("create", "--validate=warn", "-f", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == ['Warning: unknown field "spec.z"',
                                        'Warning: unknown field "spec.t.metadata.bogus"'], proc.stderr
    stored = json.loads(kube.ok("get", f"wrappers.{group}", "w1", "-o", "json"))
    assert stored["spec"] == {"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}}
    kube.http.delete(f"{base}{CRDS}/wrappers.{group}")


def test_kubectl_sees_embedded_metadata_as_upstream_writes_it(kube: Kube, tmp_path) -> None:  # noqa: F811
    """The embedded `metadata` decoded into a metav1.ObjectMeta and written back (objectmeta/coerce.go
    `SetObjectMeta`): a time in UTC with second precision, `generation: 1.0` an integer, a null label value ""."""
    group, base = _wrappers(kube)
    path = tmp_path / "w.json"
    path.write_text(f'{{"apiVersion": "{group}/v1", "kind": "Wrapper", "metadata": {{"name": "w2"}}, "spec": {{"t": '
                    '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "generation": 1.0, '
                    '"creationTimestamp": "2024-03-01T01:30:00.25+02:00", "labels": {"a": null}}}}}')
    kube.ok("create", "-f", str(path))
    stored = json.loads(kube.ok("get", f"wrappers.{group}", "w2", "-o", "json"))
    assert stored["spec"]["t"]["metadata"] == {"creationTimestamp": "2024-02-29T23:30:00Z", "generation": 1,
                                                "labels": {"a": ""}, "name": "p"}
    kube.http.delete(f"{base}{CRDS}/wrappers.{group}")
