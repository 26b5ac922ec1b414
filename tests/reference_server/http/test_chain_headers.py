"""`http/chain_headers.py`: every answer of the handler chain carries `Audit-Id` (`WithAuditInit`) and
`Cache-Control: no-cache, private` unless its handler set one (`WithCacheControl`), and no `Server` header (Go's
net/http names none); a request the HTTP parser refused is answered outside the chain, without them."""
from __future__ import annotations

import re
import socket

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.http.chain_headers import new_audit_id
from tests.reference_server.ownserver import own_server

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
TOKEN = "chain-headers-token"


server = own_server(flavor="bare", token=TOKEN)


def get(server: RunningServer, path: str, token: str | None = TOKEN, **headers: str) -> requests.Response:
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return requests.get(server.url + path, headers=headers, timeout=30)


@pytest.mark.parametrize("path, token, code", [
    ("/api/v1/namespaces/default", TOKEN, 200),      # an object
    ("/api/v1/namespaces", TOKEN, 200),              # a list
    ("/api/v1/namespaces/absent-ns", TOKEN, 404),    # a Status error
    ("/api/v1/namespaces/default", "wrong", 401),    # refused by authentication
    ("/version", TOKEN, 200),
    ("/healthz", None, 200),
    ("/no/such/path", TOKEN, 404),                   # the mux's plain 404
    ("/metrics", TOKEN, 200),
])
def test_every_answer_of_the_chain_has_an_audit_id_and_no_cache(server, path, token, code):
    resp = get(server, path, token)
    assert resp.status_code == code
    assert UUID4.match(resp.headers["Audit-Id"]), resp.headers
    assert resp.headers["Cache-Control"] == "no-cache, private"
    assert "Server" not in resp.headers


def test_audit_ids_differ_per_request(server):
    ids = {get(server, "/version").headers["Audit-Id"] for _ in range(5)}
    assert len(ids) == 5


def test_a_callers_audit_id_is_echoed_as_sent(server):
    assert get(server, "/version", **{"Audit-ID": "my-trace 42"}).headers["Audit-Id"] == "my-trace 42"


def test_a_handlers_own_cache_control_is_kept(server):
    """Aggregated discovery's `ServeHTTPWithETag` sets `Cache-Control: public` (Set, after the filter's)."""
    resp = get(server, "/api", Accept="application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "public"
    assert UUID4.match(resp.headers["Audit-Id"])


def test_a_watch_has_them_too(server):
    with requests.get(server.url + "/api/v1/namespaces?watch=1&timeoutSeconds=1", stream=True, timeout=30,
                      headers={"Authorization": f"Bearer {TOKEN}"}) as resp:
        assert resp.status_code == 200
        assert UUID4.match(resp.headers["Audit-Id"]) and "Server" not in resp.headers
        assert resp.headers["Cache-Control"] == "no-cache, private"


def _raw(server: RunningServer, data: bytes) -> bytes:
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(data)
        out = b""
        while chunk := conn.recv(65536):
            out += chunk
    return out


def test_a_malformed_request_is_answered_outside_the_chain(server):
    answer = _raw(server, b"GET /version HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n")
    head = answer.split(b"\r\n\r\n", 1)[0].lower()
    assert b" 400 " in head.split(b"\r\n", 1)[0]
    assert b"audit-id" not in head and b"cache-control" not in head and b"server:" not in head


def test_header_names_are_gos_canonical_form_on_the_wire(server):
    auth = f"Authorization: Bearer {TOKEN}\r\n".encode()
    answer = _raw(server, b"GET /api/v1/namespaces/default HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + auth
                  + b"\r\n")
    head = answer.split(b"\r\n\r\n", 1)[0]
    assert b"\r\nAudit-Id: " in head and b"\r\nCache-Control: no-cache, private\r\n" in head
    assert b"\r\nX-Kubernetes-Pf-Flowschema-Uid: " in head and b"\r\nX-Kubernetes-Pf-Prioritylevel-Uid: " in head


def test_new_audit_ids_are_random_version_4_uuids():
    ids = [new_audit_id() for _ in range(1000)]
    assert len(set(ids)) == 1000 and all(UUID4.match(i) for i in ids)


def _names(answer: bytes) -> list[bytes]:
    head = answer.split(b"\r\n\r\n", 1)[0]
    return [line.split(b":", 1)[0] for line in head.split(b"\r\n")[1:]]


def _auth() -> bytes:
    return f"Authorization: Bearer {TOKEN}\r\n".encode()


@pytest.mark.parametrize("path", ["/api/v1/namespaces/default", "/api/v1/namespaces/absent-ns", "/version",
                                  "/api/v1/endpoints"])  # a deprecated kind: its Warning sorts in too
def test_headers_are_written_in_gos_order(server, path):
    """net/http writes the handler's headers sorted by name (`Header.WriteSubset`), then `Date` and
    `Content-Length` (`extraHeader.Write`)."""
    names = _names(_raw(server, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n".encode() + _auth()
                        + b"\r\n"))
    own = [n for n in names if n not in (b"Date", b"Content-Length", b"Connection")]
    assert own == sorted(own) and names[len(own):len(own) + 2] == [b"Date", b"Content-Length"], names


def test_a_watch_writes_its_headers_in_gos_order_too(server):
    """A streamed answer (aiohttp's own writer): sorted, then `Date`, then `Transfer-Encoding`."""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(b"GET /api/v1/namespaces?watch=1&timeoutSeconds=1 HTTP/1.1\r\nHost: x\r\n" + _auth() + b"\r\n")
        out = b""
        while b"\r\n\r\n" not in out:
            out += conn.recv(65536)
    names = _names(out)
    assert names[-2:] == [b"Date", b"Transfer-Encoding"] and names[:-2] == sorted(names[:-2]), names
