"""KubeClient: recording (with masking), patch content types, connection errors as one line."""

from __future__ import annotations

import json
import socket

import pytest

from conformance.client import TargetUnreachable
from conformance.client.api import KubeClient
from conformance.client.config import from_server


def test_records_every_exchange_with_endpoint(client, recorder, fake):
    recorder.start_test("t1")
    r = client.post("/api/v1/namespaces", {"metadata": {"name": "a"}})
    assert r.status_code == 201
    client.get("/api/v1/namespaces/a")
    client.get("/api/v1/namespaces/zzz")
    got = recorder.take("t1")
    assert [(e.method, e.endpoint, e.status) for e in got] == [
        ("POST", "ns-create", 201), ("GET", "ns-get", 200), ("GET", "ns-get", 404)]
    assert got[0].request_body == {"metadata": {"name": "a"}}
    assert got[0].response_body["metadata"]["name"] == "a"
    assert got[0].request_headers["Content-Type"] == "application/json"
    assert got[0].url == fake.url + "/api/v1/namespaces"
    json.dumps([e.to_dict() for e in got])  # survives xdist serialisation


def test_tokens_and_secret_data_are_masked(fake, recorder):
    fake.token = "super-secret-token"
    conn = from_server(fake.url, token="super-secret-token")
    client = KubeClient.from_connection(conn)
    client.recorder = recorder
    recorder.start_test("t")
    client.post("/api/v1/namespaces", {"metadata": {"name": "s"}})
    r = client.post("/api/v1/namespaces/s/secrets",
                    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}, "data": {"k": "c2VjcmV0"}})
    assert r.status_code == 201
    client.request("POST", "/api/v1/namespaces", data="token super-secret-token in text", content_type="text/plain")
    dumped = json.dumps([e.to_dict() for e in recorder.take("t")])
    assert "super-secret-token" not in dumped
    assert "c2VjcmV0" not in dumped
    assert '"Authorization": "***"' in dumped


@pytest.mark.parametrize("patch_type, content_type", [
    ("merge", "application/merge-patch+json"),
    ("json", "application/json-patch+json"),
    ("strategic", "application/strategic-merge-patch+json"),
    ("apply", "application/apply-patch+yaml"),
    ("application/x-custom", "application/x-custom"),
])
def test_patch_content_types(client, fake, patch_type, content_type):
    client.patch("/api/v1/namespaces/x", {"metadata": {"labels": {"a": "b"}}}, patch_type=patch_type)
    method, path, headers = fake.requests[-1]
    assert method == "PATCH" and headers["Content-Type"] == content_type


def test_never_raises_on_status(client):
    assert client.delete("/api/v1/namespaces").status_code == 405
    assert client.get("/nowhere").status_code == 404


def test_unreachable_is_one_line(recorder):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = KubeClient(f"http://127.0.0.1:{port}", recorder=recorder, timeout=2)
    recorder.start_test("t")
    with pytest.raises(TargetUnreachable) as exc:
        client.get("/version")
    msg = str(exc.value)
    assert "\n" not in msg and f"cannot reach http://127.0.0.1:{port}" in msg and "refused" in msg.lower()
    [ex] = recorder.take("t")
    assert ex.status is None and ex.error


def _wire(prep):
    return prep.method, prep.url, dict(prep.headers), prep.body


@pytest.mark.parametrize("method, headers, body, params", [
    ("GET", {}, None, {}),
    ("GET", {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}, None, {"labelSelector": "a=b,c in (d)",
                                                                            "limit": 2, "watch": True}),
    ("POST", {"Content-Type": "application/json"}, b'{"metadata": {"name": "x"}}', {"dryRun": "All"}),
    ("PUT", {"Impersonate-User": "u", "Impersonate-Group": "g"}, b"{}", {}),
    ("DELETE", {}, None, {"gracePeriodSeconds": 0}),
    ("PATCH", {"Content-Type": "application/merge-patch+json", "User-Agent": None}, b'{"a": 1}', {}),
    ("GET", {}, None, {"fieldSelector": ["metadata.name=x", "status.phase=Active"]}),
])
@pytest.mark.parametrize("session_kind", ["token", "none", "cookie", "trust-env", "params", "hook"])
def test_prepare_sends_what_requests_would(method, headers, body, params, session_kind):
    """The fast path of `prepare` (no merging) puts on the wire exactly what `Session.prepare_request` does;
    a session with cookies, params, hooks or trust_env takes requests' own path."""
    import requests

    from conformance.client.api import prepare, send_settings

    conn = from_server("http://127.0.0.1:1", token="tok" if session_kind == "token" else None)
    session = conn.session
    if session_kind == "cookie":
        session.cookies.set("sticky", "1")
    elif session_kind == "trust-env":
        session.trust_env = True
    elif session_kind == "params":
        session.params = {"pretty": "true"}
    elif session_kind == "hook":
        session.hooks["response"].append(lambda r, **kw: r)
    url = "http://127.0.0.1:1/api/v1/namespaces"
    want = session.prepare_request(requests.Request(method, url, headers=headers, data=body, params=params))
    got = prepare(session, method, url, headers, body, params)
    assert _wire(got) == _wire(want)
    assert send_settings(session, url, False) == session.merge_environment_settings(url, {}, False, None, None)
    session.proxies = {"http": "http://proxy:3128", "https": None}
    assert send_settings(session, url, True) == session.merge_environment_settings(url, {}, True, None, None)


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:1/api/v1/namespaces", "http://127.0.0.1:1/api/v1/namespaces/a b",
    "http://127.0.0.1:1/api/v1/namespaces/%41%2F", "http://127.0.0.1:1/api/v1/namespaces/../x",
    "http://127.0.0.1:1/api/v1/namespaces/./x", "http://127.0.0.1:1/api/v1/namespaces/ü",
    "http://127.0.0.1:1/api/v1/namespaces?watch=1", "http://127.0.0.1:1/x?", "http://127.0.0.1:1/x#frag",
    "http://LOCALHOST:1/api", "http://localhost:80/api", "http://127.0.0.1:1", "http://127.0.0.1:1/a[0]",
    "http://127.0.0.1:1/api/v1/namespaces/x:y@z!$'()*+,;=~"])
@pytest.mark.parametrize("params", [
    {}, {"limit": 5}, {"watch": True}, {"labelSelector": "a in (x, y),b!=ü", "fieldSelector": "metadata.name=n"},
    {"fieldSelector": ["metadata.name=x", "status.phase=Active"]}, {"continue": "abc%3D=="}])
def test_prepare_url_is_requests_url(url, params):
    """The URL computed without requests' prepare_url is the one it would compute, or requests computes it."""
    import requests

    from conformance.client.api import prepare

    session = from_server("http://127.0.0.1:1").session
    want = session.prepare_request(requests.Request("GET", url, params=params))
    assert prepare(session, "GET", url, {}, None, params).url == want.url
