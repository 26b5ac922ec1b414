"""Hostile input (issue 13): every request below once lost its reply, stored a poisoned object, stalled the
event loop or answered a 500 with a Python exception name. Each must now be answered as kube-apiserver
would: a Status with the right code, the stored objects unchanged, /readyz answering throughout."""
from __future__ import annotations

import base64
import json
import re
import time
from typing import Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded
from tests.reference_server.ownserver import own_server

from .loopwatch import LoopWatch

PY_NAMES = re.compile(r"Traceback|RecursionError|MemoryError|OSError|OverflowError|TypeError|AttributeError|"
                      r"KeyError|ValueError|IndexError|UnicodeEncodeError|UnicodeDecodeError|NoneType|"
                      r"'dict' object|'list' object|'str' object|'int' object")


srv = own_server()


@pytest.fixture
def ns(srv: RunningServer) -> Iterator[str]:
    name = f"hostile-{time.monotonic_ns() % 10**9}"
    r = requests.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": name}})
    assert r.status_code == 201, r.text
    yield name
    requests.delete(f"{srv.url}/api/v1/namespaces/{name}")


def assert_clean(r: requests.Response, *codes: int) -> dict:
    """A Status (or object) body with an expected code, no Python name anywhere in it."""
    assert r.status_code in codes, (r.status_code, r.text[:500])
    assert not PY_NAMES.search(r.text), r.text[:500]
    return r.json()


def assert_lists_work(url: str, ns: str) -> None:
    for path in (f"/api/v1/namespaces/{ns}/configmaps", "/api/v1/configmaps", "/api/v1/namespaces"):
        r = requests.get(url + path, timeout=10)
        assert r.status_code == 200, (path, r.text[:300])
        r = requests.get(url + path, headers={"Accept": "application/yaml"}, timeout=10)
        assert r.status_code == 200, (path, r.text[:300])


# ---- 1. a Warning header that cannot be sent must not lose a stored write --------------------------
@pytest.mark.parametrize("field", ["\u001f", "a\r\nb", "\n", "x\u0000y", "\u007f", "\u0085"])
def test_unknown_field_with_control_character_is_answered(srv, ns, field):
    body = json.dumps({"metadata": {"name": "ctl"}, field: 1})
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps", data=body,
                      headers={"Content-Type": "application/json"}, timeout=10)
    assert_clean(r, 201)
    for w in r.raw.headers.getlist("Warning"):  # Go quotes the path: strconv.Quote escapes control characters
        assert w.startswith('299 - "unknown field ') and not any(ord(c) < 32 or ord(c) == 127 for c in w), w
    strict = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps?fieldValidation=Strict",
                           data=json.dumps({"metadata": {"name": "ctl2"}, field: 1}),
                           headers={"Content-Type": "application/json"}, timeout=10)
    body = assert_clean(strict, 400)
    assert body["message"].startswith('ConfigMap in version "v1" cannot be handled as a ConfigMap: '
                                      'strict decoding error: unknown field "')
    assert requests.get(f"{srv.url}/api/v1/namespaces/{ns}/configmaps/ctl2").status_code == 404


def test_unknown_field_warning_quotes_like_go(srv, ns):
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps",
                      data=json.dumps({"metadata": {"name": "q"}, "\u001fz\"": 1}),
                      headers={"Content-Type": "application/json"}, timeout=10)
    assert r.status_code == 201
    # strconv.Quote("\x1fz\"") = "\x1fz\"" ; then NewWarningHeader escapes the quotes and backslashes
    assert r.headers["Warning"] == '299 - "unknown field \\"\\\\x1fz\\\\\\"\\""'


# ---- 2. a lone surrogate becomes U+FFFD, as Go's decoder does --------------------------------------
def test_lone_surrogate_is_replaced_not_stored_raw(srv, ns):
    body = '{"metadata":{"name":"sur","annotations":{"a":"x\\ud800y"}},"data":{"k":"\\ud83d"}}'
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps", data=body,
                      headers={"Content-Type": "application/json"}, timeout=10)
    obj = assert_clean(r, 201)
    assert obj["metadata"]["annotations"]["a"] == "x\ufffdy"
    assert obj["data"] == {"k": "\ufffd"}
    # in a key, the replacement is what `IsConfigMapKey` judges (and refuses)
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps", data='{"metadata":{"name":"k"},'
                      '"data":{"k\\udc00":""}}', headers={"Content-Type": "application/json"}, timeout=10)
    assert [c["field"] for c in assert_clean(r, 422)["details"]["causes"]] == ["data[k\ufffd]"]
    assert_lists_work(srv.url, ns)
    # a valid pair stays one character
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps",
                      data='{"metadata":{"name":"pair"},"data":{"k":"\\ud83d\\ude00"}}',
                      headers={"Content-Type": "application/json"}, timeout=10)
    assert assert_clean(r, 201)["data"]["k"] == "\U0001F600"


def test_lone_surrogate_in_patch_and_yaml(srv, ns):
    requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "p"}})
    r = requests.patch(f"{srv.url}/api/v1/namespaces/{ns}/configmaps/p",
                       data='{"metadata":{"labels":{"a":"b"},"annotations":{"z":"\\udfff"}}}',
                       headers={"Content-Type": "application/merge-patch+json"}, timeout=10)
    assert assert_clean(r, 200)["metadata"]["annotations"]["z"] == "\ufffd"
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps",
                      data=b'metadata:\n  name: y\ndata:\n  k: "\\ud800"\n',
                      headers={"Content-Type": "application/yaml"}, timeout=10)
    assert_clean(r, 201, 400)
    assert_lists_work(srv.url, ns)


# ---- 3. YAML aliases cannot expand without bound --------------------------------------------------
def _billion_laughs(levels: int = 9) -> bytes:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return ("metadata:\n  name: lol\n" + "\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("dry", ["", "?dryRun=All"])
def test_yaml_alias_bomb_is_refused_fast(srv, ns, dry):
    with LoopWatch(srv) as probe:
        t0 = time.perf_counter()
        r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps{dry}", data=_billion_laughs(),
                          headers={"Content-Type": "application/yaml"}, timeout=30)
        took = time.perf_counter() - t0
    body = assert_clean(r, 400)
    assert "excessive aliasing" in body["message"]
    assert took < 10 and len(r.content) < 10_000  # refused, not expanded (9**9 nodes would take minutes)
    probe.check()
    assert requests.get(f"{srv.url}/api/v1/namespaces/{ns}/configmaps/lol").status_code == 404


def test_small_yaml_aliases_still_work(srv, ns):
    doc = b"metadata:\n  name: ok\n  labels: &l {a: b}\n  annotations: *l\n"
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps", data=doc,
                      headers={"Content-Type": "application/yaml"}, timeout=10)
    obj = assert_clean(r, 201)
    assert obj["metadata"]["annotations"] == {"a": "b"}


# ---- 4. type errors, depth and overflow are 400s with Go's words, never Python's -----------------
TYPE_BODIES = [
    ({"metadata": None, "data": {}}, 422),  # null metadata: Go leaves it empty; then name is required
    ({"metadata": {"name": "m", "managedFields": 5}}, 400),
    ({"metadata": {"name": "m", "managedFields": [5]}}, 400),
    ({"metadata": {"name": "m", "managedFields": [{"fieldsV1": 5}]}}, 201),  # FieldsV1 keeps raw JSON
    ({"metadata": {"name": "m", "ownerReferences": {"a": 1}}}, 400),
    ({"metadata": {"name": "m", "ownerReferences": ["x"]}}, 400),
    ({"metadata": {"name": "m", "creationTimestamp": 5}}, 400),
    ({"metadata": {"name": "m", "creationTimestamp": "yesterday"}}, 400),
    ({"metadata": {"name": "m", "deletionGracePeriodSeconds": "x"}}, 400),
    ({"metadata": {"name": "m", "generation": 1.5}}, 400),
    ({"metadata": {"name": "m", "generation": 2 ** 70}}, 400),
    ({"metadata": {"name": "m", "labels": [1]}}, 400),
    ({"metadata": {"name": "m"}, "binaryData": {"a": 5}}, 400),
    ({"metadata": {"name": "m"}, "binaryData": {"a": "%%%"}}, 400),
    ({"metadata": {"name": "m"}, "immutable": "yes"}, 400),
]


@pytest.mark.parametrize("body,code", TYPE_BODIES, ids=[json.dumps(b)[:60] for b, _ in TYPE_BODIES])
def test_type_errors_are_bad_requests(srv, ns, body, code):
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps", json=body, timeout=10)
    if code != 400:
        assert_clean(r, code)
    else:
        msg = assert_clean(r, 400)["message"]
        assert "cannot unmarshal" in msg or "cannot parse" in msg or "illegal base64" in msg, msg
    assert_lists_work(srv.url, ns)


PATCHES = [
    ("application/merge-patch+json", {"metadata": None}),
    ("application/merge-patch+json", {"metadata": []}),
    ("application/merge-patch+json", {"metadata": {"labels": []}}),
    ("application/merge-patch+json", {"metadata": {"labels": {"a": 1}}}),
    ("application/merge-patch+json", {"metadata": {"managedFields": 5}}),
    ("application/merge-patch+json", {"data": []}),
    ("application/merge-patch+json", {"metadata": {"name": 5}}),
    ("application/strategic-merge-patch+json", {"metadata": None}),
    ("application/strategic-merge-patch+json", {"metadata": {"labels": []}}),
    ("application/strategic-merge-patch+json", {"metadata": {"finalizers": {"a": 1}}}),
    ("application/json-patch+json", [{"op": "replace", "path": "/metadata", "value": None}]),
    ("application/json-patch+json", [{"op": "replace", "path": "/metadata", "value": []}]),
    ("application/json-patch+json", [{"op": "add", "path": "/metadata/labels", "value": [1]}]),
    ("application/json-patch+json", [{"op": "add", "path": "/metadata/creationTimestamp", "value": 7}]),
]


@pytest.mark.parametrize("ctype,patch", PATCHES,
                         ids=[f"{c.split('/')[1][:6]}-{json.dumps(p)[:50]}" for c, p in PATCHES])
def test_patches_breaking_types_are_client_errors(srv, ns, ctype, patch):
    requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "pt"}, "data": {"a": "b"}})
    before = requests.get(f"{srv.url}/api/v1/namespaces/{ns}/configmaps/pt").json()
    r = requests.patch(f"{srv.url}/api/v1/namespaces/{ns}/configmaps/pt", data=json.dumps(patch),
                       headers={"Content-Type": ctype}, timeout=10)
    assert_clean(r, 400, 422)
    after = requests.get(f"{srv.url}/api/v1/namespaces/{ns}/configmaps/pt").json()
    assert after == before
    assert_lists_work(srv.url, ns)


def test_json_patch_replacing_the_document_by_a_scalar_changes_nothing(srv, ns):
    """evanphx/json-patch v4.12.0's `replace` of path "" by a value that reads as neither an object nor an array
    returns `errors.Wrapf(err, ...)` of a nil `err`, which is nil: no error, nothing replaced; the object is written
    back unchanged (200, no new resourceVersion)."""
    requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "pt"}, "data": {"a": "b"}})
    before = requests.get(f"{srv.url}/api/v1/namespaces/{ns}/configmaps/pt").json()
    r = requests.patch(f"{srv.url}/api/v1/namespaces/{ns}/configmaps/pt", data='[{"op":"replace","path":"","value":5}]',
                       headers={"Content-Type": "application/json-patch+json"}, timeout=10)
    assert r.status_code == 200 and r.json() == before, r.text
    assert requests.get(f"{srv.url}/api/v1/namespaces/{ns}/configmaps/pt").json() == before


def _nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


@pytest.mark.parametrize("depth", [150, 480, 1000, 20000])
def test_deep_nesting_is_refused_with_json_words(srv, ns, depth):
    with LoopWatch(srv) as probe:
        r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps",
                          data='{"metadata":{"name":"deep"},"x":' + _nested(depth) + "}",
                          headers={"Content-Type": "application/json"}, timeout=30)
        y = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps",
                          data=b"metadata: {name: deepy}\nx: " + ("[" * depth + "]" * depth).encode(),
                          headers={"Content-Type": "application/yaml"}, timeout=30)
        mf = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps",
                           data='{"metadata":{"name":"deepm","managedFields":[{"manager":"m","operation":"Apply",'
                                '"fieldsType":"FieldsV1","fieldsV1":' + _nested(depth) + "}]}}",
                           headers={"Content-Type": "application/json"}, timeout=30)
        requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "deepp"}})
        p = requests.patch(f"{srv.url}/api/v1/namespaces/{ns}/configmaps/deepp",
                           data='[{"op":"add","path":"/metadata/annotations","value":' + _nested(depth) + "}]",
                           headers={"Content-Type": "application/json-patch+json"}, timeout=30)
    for resp in (r, y, mf, p):
        assert_clean(resp, 201, 200, 400, 422)
    assert mf.status_code in (201, 400) and p.status_code in (400, 422)
    probe.check()
    assert_lists_work(srv.url, ns)


def test_deep_continue_token_is_a_bad_request(srv):
    token = base64.b64encode(b'{"v":"meta.k8s.io/v1","rv":1,"start":' + b"[" * 5000 + b"}").decode()
    r = requests.get(f"{srv.url}/api/v1/namespaces", params={"limit": "1", "continue": token}, timeout=10)
    assert_clean(r, 400)


def test_protobuf_timestamp_overflow_is_a_bad_request(srv, ns):
    from google.protobuf.internal.encoder import _VarintBytes

    def field(num: int, payload: bytes) -> bytes:
        return _VarintBytes(num << 3 | 2) + _VarintBytes(len(payload)) + payload

    ts = _VarintBytes(1 << 3) + _VarintBytes(2 ** 62)  # Time{seconds: 2^62}
    meta = field(1, b"pbts") + field(8, ts)  # ObjectMeta{name, creationTimestamp}
    cm = field(1, meta)
    unknown = b"k8s\x00" + field(1, field(1, b"v1") + field(2, b"ConfigMap")) + field(2, cm)
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps", data=unknown,
                      headers={"Content-Type": "application/vnd.kubernetes.protobuf"}, timeout=10)
    assert_clean(r, 201, 400)
    assert_lists_work(srv.url, ns)


# ---- 7. connections are bounded: header read, idle, request ---------------------------------------
quick = own_server(read_header_timeout=0.5, idle_timeout=0.5, request_timeout=0.5)


def _connect(url: str):
    import socket
    host, port = url.split("//", 1)[1].rsplit(":", 1)
    c = socket.create_connection((host, int(port)), timeout=10)
    return c


def _closed_within(c, seconds: float) -> bytes:
    """Read until the server closes; fail when it keeps the connection longer than `seconds`."""
    t0, got = time.monotonic(), b""
    c.settimeout(seconds)
    while True:
        chunk = c.recv(65536)
        if not chunk:
            return got
        got += chunk
        assert time.monotonic() - t0 < seconds, "connection kept open"


def test_partial_headers_are_cut_off(quick):
    c = _connect(quick.url)
    c.sendall(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    _closed_within(c, 5)


def test_idle_connection_is_closed(quick):
    c = _connect(quick.url)
    _closed_within(c, 5)


def test_slow_body_ends_in_a_timeout_status(quick):
    c = _connect(quick.url)
    c.sendall(b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: 100\r\n\r\n{\"metadata\":")
    got = _closed_within(c, 5)
    assert got.startswith(b"HTTP/1.1 504"), got[:200]
    body = json.loads(got.split(b"\r\n\r\n", 1)[1])
    assert body["reason"] == "Timeout" and body["message"] == (
        "Timeout: request did not complete within requested timeout - context deadline exceeded")


def test_watch_is_not_cut_by_the_request_timeout(quick):
    t0 = time.monotonic()
    r = requests.get(f"{quick.url}/api/v1/namespaces", params={"watch": "1", "timeoutSeconds": "2"}, timeout=10)
    assert r.status_code == 200 and time.monotonic() - t0 >= 1.5


def test_default_limits_are_upstreams():
    from conformance.reference_server.http import connection
    assert (connection.READ_HEADER_TIMEOUT, connection.IDLE_TIMEOUT, connection.REQUEST_TIMEOUT) == (32, 90, 60)


# ---- 5. a refused request never echoes or logs its headers ----------------------------------------
def test_malformed_header_is_neither_echoed_nor_logged(srv, caplog):
    import logging
    caplog.set_level(logging.DEBUG)
    c = _connect(srv.url)
    c.sendall(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer topsecret\x01abc\r\n\r\n")
    got = _closed_within(c, 5)
    assert got.startswith(b"HTTP/1.1 400") or got.startswith(b"HTTP/1.0 400"), got[:100]
    assert b"topsecret" not in got and b"b'" not in got
    assert not any("topsecret" in r.getMessage() or "topsecret" in (r.exc_text or "") for r in caplog.records)
    for r in caplog.records:
        if r.exc_info:
            import traceback
            assert "topsecret" not in "".join(traceback.format_exception(*r.exc_info))


def test_deep_named_group_bodies_are_bad_requests(tmp_path):
    srv = start_embedded(authorization="rbac")
    try:
        h = {"Authorization": f"Bearer {srv.token}", "Content-Type": "application/json"}
        body = '{"metadata":{"name":"r"},"rules":' + "[" * 5000 + "]" * 5000 + "}"
        r = requests.post(f"{srv.url}/apis/rbac.authorization.k8s.io/v1/clusterroles", data=body, headers=h,
                          timeout=10)
        assert_clean(r, 400)
        r = requests.post(f"{srv.url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", data=body,
                          headers=h, timeout=10)
        assert_clean(r, 400)
        r = requests.post(f"{srv.url}/apis/rbac.authorization.k8s.io/v1/clusterroles", headers=h, timeout=10,
                          data=json.dumps({"metadata": {"name": "r", "labels": [1]}}))
        assert "Go struct field ObjectMeta.metadata.labels of type map[string]string" in assert_clean(r, 400)["message"]
    finally:
        srv.stop()


# ---- Expect headers, answered before any middleware (as aiohttp's Application did) --------------------
def test_expect_100_continue_is_answered_then_the_request(srv):
    c = _connect(srv.url)
    c.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
    got = _closed_within(c, 5)
    assert got.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK"), got[:120]


def test_an_unknown_expectation_is_refused_417(srv):
    c = _connect(srv.url)
    c.sendall(b"GET /version HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n")
    got = _closed_within(c, 5)
    assert got.startswith(b"HTTP/1.1 417"), got[:120]
