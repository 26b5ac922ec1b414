"""Token auth, TLS and the official kubernetes Python client against a generated kubeconfig."""
from __future__ import annotations

import os

import pytest
import requests

from conformance.reference_server.embedded import start_embedded
from tests.reference_server.ownserver import own_server


secure = own_server(tls=True, token="s3cret")


def test_token_required(secure):
    assert secure.url.startswith("https://127.0.0.1:") and secure.token == "s3cret"
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic s3cret"}):
        r = requests.get(f"{secure.url}/api/v1/namespaces", headers=headers, verify=secure.ca_file)
        assert r.status_code == 401
        assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": "Unauthorized", "reason": "Unauthorized", "code": 401}
    ok = requests.get(f"{secure.url}/api/v1/namespaces", headers={"Authorization": "Bearer s3cret"},
                      verify=secure.ca_file)
    assert ok.status_code == 200
    assert requests.get(f"{secure.url}/healthz", verify=secure.ca_file).text == "ok"


def test_tls_rejects_unknown_ca(secure):
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(f"{secure.url}/version", timeout=5)


def test_localhost_name_in_certificate(secure):
    port = secure.url.rsplit(":", 1)[1]
    r = requests.get(f"https://localhost:{port}/version", headers={"Authorization": "Bearer s3cret"},
                     verify=secure.ca_file)
    assert r.status_code == 200


def test_official_client(secure, tmp_path):
    from kubernetes import client, config, watch

    path = str(tmp_path / "kubeconfig")
    secure.write_kubeconfig(path)
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    api_client = config.new_client_from_config(config_file=path, context="nsconform")
    try:
        v1 = client.CoreV1Api(api_client)
        ns = v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="kc-test")))
        assert ns.spec.finalizers == ["kubernetes"] and ns.status.phase == "Active"
        assert v1.read_namespace("kc-test").metadata.labels["kubernetes.io/metadata.name"] == "kc-test"
        assert "kc-test" in [n.metadata.name for n in v1.list_namespace().items]
        v1.create_namespaced_config_map("kc-test", client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cm"),
                                                                      data={"a": "b"}))
        assert v1.read_namespaced_config_map("cm", "kc-test").data == {"a": "b"}
        all_cms = v1.list_config_map_for_all_namespaces()
        assert ("kc-test", "cm") in [(c.metadata.namespace, c.metadata.name) for c in all_cms.items]
        rv = v1.read_namespaced_config_map("cm", "kc-test").metadata.resource_version
        v1.delete_namespaced_config_map("cm", "kc-test")
        w = watch.Watch()
        seen = []
        for ev in w.stream(v1.list_namespaced_config_map, "kc-test", resource_version=rv, timeout_seconds=5):
            seen.append((ev["type"], ev["object"].metadata.name))
            if ev["type"] == "DELETED":
                w.stop()
        assert seen == [("DELETED", "cm")]
        deleted = v1.delete_namespace("kc-test")  # the client types this V1Status; the server sends the Namespace
        phase = deleted["status"]["phase"] if isinstance(deleted, dict) else deleted.status.phase
        assert phase == "Terminating"
        rv = deleted["metadata"]["resourceVersion"] if isinstance(deleted, dict) else None
        w = watch.Watch()
        for ev in w.stream(v1.list_namespace, field_selector="metadata.name=kc-test", resource_version=rv,
                           timeout_seconds=10):
            if ev["type"] == "DELETED":
                w.stop()
        with pytest.raises(client.exceptions.ApiException) as e:
            v1.read_namespace("kc-test")
        assert e.value.status == 404
    finally:
        api_client.close()


def test_plain_http_token_server():
    srv = start_embedded(token="t")
    try:
        assert requests.get(f"{srv.url}/version").status_code == 401
        assert requests.get(f"{srv.url}/version", headers={"Authorization": "Bearer t"}).status_code == 200
        assert srv.ca_file is None
    finally:
        srv.stop()
