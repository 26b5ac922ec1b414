"""The lean loopback transport answers what requests would answer, and leaves to requests what it does not handle."""

from __future__ import annotations

import gzip
import http.server
import threading
from typing import Iterator

import pytest
import requests

from conformance.client.api import KubeClient
from conformance.client.config import from_server
from conformance.client.exchange import Recorder
from conformance.client.transport import LeanTransport, is_local_plain_http


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    requests_seen: list[str] = []
    headers_seen: list[list[tuple[str, str]]] = []

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body_in = self.rfile.read(length) if length else b""
        type(self).requests_seen.append(f"{self.command} {self.path} {body_in.decode()}")
        type(self).headers_seen.append(sorted((k, v) for k, v in self.headers.items() if k != "User-Agent"))
        if self.path == "/gzip":
            payload = gzip.compress(b'{"kind": "Status", "code": 200}')
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        elif self.path == "/warnings":
            self.send_response(201)
            self.send_header("Warning", '299 - "first"')
            self.send_header("Warning", '299 - "second"')
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
        elif self.path == "/redirect":
            self.send_response(301)
            self.send_header("Location", "/gzip")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/close":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.send_header("Content-Length", "5")
            self.end_headers()
            self.wfile.write(b"bye!!")
            self.close_connection = True
        elif self.path == "/eof":  # neither a length nor chunks: the body ends when the server closes
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"until the end")
            self.close_connection = True
        elif self.path == "/nocontent":
            self.send_response(204)
            self.end_headers()
        elif self.path == "/interim":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\nX-Early: 1\r\n\r\n")
            self.send_response(200)
            self.send_header("X-Folded", "one")
            self.send_header("Content-Length", "3")
            self.end_headers()
            self.wfile.write(b"yes")
        elif self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (b"ab", b"cde"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        else:
            payload = f"{self.command} {body_in.decode()}".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _answer


@pytest.fixture
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Handler.requests_seen = []
    _Handler.headers_seen = []
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _both(url: str, path: str, method: str = "GET", body: bytes | None = None) -> tuple[requests.Response, ...]:
    session = requests.Session()
    session.trust_env = False
    prep = session.prepare_request(requests.Request(method, url + path, data=body))
    lean = LeanTransport().send(session, prep, 5.0)
    plain = session.send(prep.copy(), timeout=5.0)
    return lean, plain


@pytest.mark.parametrize("path, method, body", [
    ("/gzip", "GET", None), ("/warnings", "POST", b'{"a": 1}'), ("/close", "GET", None),
    ("/chunked", "GET", None), ("/x?y=1", "PATCH", b"{}"), ("/x", "DELETE", None), ("/eof", "GET", None),
    ("/nocontent", "DELETE", None), ("/interim", "PUT", b"{}"), ("/x", "HEAD", None), ("/x", "POST", None)])
def test_answers_as_requests_does(server, path, method, body):
    lean, plain = _both(server, path, method, body)
    assert lean is not None
    assert (lean.status_code, lean.reason, lean.content, lean.text, lean.encoding, lean.url) == \
        (plain.status_code, plain.reason, plain.content, plain.text, plain.encoding, plain.url)
    drop = {"Date", "Server"}
    assert {k: v for k, v in lean.headers.items() if k not in drop} == \
        {k: v for k, v in plain.headers.items() if k not in drop}
    if path == "/warnings":
        assert lean.headers["Warning"] == '299 - "first", 299 - "second"'
    lean_sent, plain_sent = _Handler.headers_seen  # the same request on the wire (Host, lengths, encodings)
    assert lean_sent == plain_sent


def test_keeps_the_connection_and_reopens_a_closed_one(server):
    client = KubeClient(server, from_server(server).session, recorder=Recorder(), timeout=5.0)
    first = client.get("/a")
    conn = client._lean._local.conns[conn_key(server)]
    assert client.get("/b").text == "GET " and client._lean._local.conns.get(conn_key(server)) is conn
    assert client.get("/close").text == "bye!!"  # the server closes: the next request opens a new connection
    assert client.post("/c", {"n": 1}).text == 'POST {"n": 1}'
    assert first.status_code == 200
    assert [line.split(" ", 2)[:2] for line in _Handler.requests_seen] == \
        [["GET", "/a"], ["GET", "/b"], ["GET", "/close"], ["POST", "/c"]]  # each request sent once
    client.close()


def conn_key(url: str) -> tuple[str, int]:
    return ("127.0.0.1", int(url.rsplit(":", 1)[1]))


def test_leaves_to_requests_what_it_does_not_handle(server):
    session = requests.Session()
    session.trust_env = False
    lean = LeanTransport()
    get = lambda path: session.prepare_request(requests.Request("GET", server + path))  # noqa: E731
    assert lean.send(session, get("/redirect"), 5.0) is None  # requests follows the redirect
    session.cookies.set("sticky", "1")
    assert lean.send(session, get("/x"), 5.0) is None
    session.cookies.clear()
    session.proxies = {"http": "http://proxy:3128"}
    assert lean.send(session, get("/x"), 5.0) is None
    session.proxies = {}
    hooked = get("/x")
    hooked.register_hook("response", lambda r, **kw: r)
    assert lean.send(session, hooked, 5.0) is None
    assert lean.send(session, get("/x"), 5.0) is not None
    refused = session.prepare_request(requests.Request("GET", "http://127.0.0.1:1/x"))
    assert lean.send(session, refused, 5.0) is None  # requests words the connection error


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:8080/api", True), ("http://localhost/api", True), ("http://[::1]:6443/", True),
    ("https://127.0.0.1:6443/api", False), ("http://10.0.0.1:8080/api", False), ("http://example.com/", False),
    ("http://user:pw@127.0.0.1:1/", False)])
def test_only_loopback_plain_http(url, local):
    assert is_local_plain_http(url) is local
