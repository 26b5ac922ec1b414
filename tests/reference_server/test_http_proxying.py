"""The connect subresources really dialling (http/proxying.py): `pods/proxy` and `services/proxy` forward to a
small HTTP server on this machine's non-loopback address (a pod's `status.podIP`, a pod-backed Endpoints
address), `nodes/proxy`, `pods/log` and exec dial a Node's kubelet address, each failed dial answered as
kube-apiserver 1.33 answers it (`upgradeaware.go`, `transport.go`, `streamer.go`), through raw HTTP and kubectl."""
from __future__ import annotations

import asyncio
import base64
import gzip
import json
import shutil
import socket
import threading
from collections.abc import Iterator
from http.client import HTTPConnection
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
import requests

from .conftest import status_of
from .kubectl_run import run_kubectl as _kubectl, without_klog


def _local_address() -> str | None:
    """This machine's address on its default route (a global unicast one, as pods/proxy requires)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))  # no packet is sent: a UDP connect only picks the route
        ip = s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()
    return None if ip.startswith("127.") else ip


PAGE = ('<!DOCTYPE html><HTML><Head><LINK REL=stylesheet HREF="/css/a.css"></Head><body>'
        '<a href="/x?y=1&amp;z=2" class=\'c\'>x</a> <a href="rel/y">y</a> <img src=//else.where/i.png alt="a<b">'
        '<script src="/s.js">if (a<b) { document.write("<a href=/no>") }</script><!-- <a href="/c"> --></body></HTML>')


class _Backend(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        if self.path.startswith("/ws") and self.headers.get("Upgrade"):
            self.wfile.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
            self.wfile.flush()
            data = self.rfile.read(5)  # echo five bytes back, upper-cased, then close
            self.wfile.write(data.upper())
            self.wfile.flush()
            self.close_connection = True
            return
        if self.path.startswith("/slow"):  # answers after the test server's request timeout has passed
            threading.Event().wait(1.5)
        if self.path.startswith("/page"):
            page = PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        if self.path.startswith("/redirect"):
            self.send_response(302)
            self.send_header("Location", "/elsewhere/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        doc = json.dumps({"method": self.command, "path": self.path, "body": body,
                          "headers": {k.lower(): v for k, v in self.headers.items()}}).encode()
        zipped = self.path.startswith("/zipped") and "gzip" in self.headers.get("Accept-Encoding", "")
        if zipped:
            doc = gzip.compress(doc)
        self.send_response(299 if self.path.startswith("/odd") else 200)
        self.send_header("Content-Type", "application/json")
        if zipped:
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Cache-Control", "max-age=60")
        self.send_header("Content-Length", str(len(doc)))
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("X-Backend", "yes")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(doc)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _answer


@pytest.fixture(scope="module")
def backend() -> Iterator[tuple[str, int]]:
    ip = _local_address()
    if ip is None:
        pytest.skip("no non-loopback address to serve a backend on")
    srv = ThreadingHTTPServer((ip, 0), _Backend)
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield ip, srv.server_address[1]
    srv.shutdown()
    srv.server_close()


def _closed_port(ip: str) -> int:
    """A port on `ip` nothing listens on (bound, then released)."""
    s = socket.socket()
    s.bind((ip, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _error(r: requests.Response, code: int, reason: str | None, message: str) -> None:
    assert r.status_code == code, r.text
    body = status_of(r)
    assert (body.get("reason"), body["message"]) == (reason, message)


@pytest.fixture
def ns(http: requests.Session, url: str, namespaces: Any, backend: tuple[str, int]) -> str:
    """A namespace with pod `p` (IP: the backend's address, its container declaring the backend's port), and
    Service `s` whose Endpoints name that pod."""
    ip, port = backend
    name = namespaces.create("proxying")["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{name}"
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "x",
                                                               "ports": [{"containerPort": port}]}]}}
    assert http.post(f"{base}/pods", json=pod).status_code == 201
    r = http.patch(f"{base}/pods/p/status", data=json.dumps({"status": {"podIP": ip, "podIPs": [{"ip": ip}]}}),
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text
    svc = {"metadata": {"name": "s"}, "spec": {"ports": [{"name": "web", "port": 80}]}}
    assert http.post(f"{base}/services", json=svc).status_code == 201
    eps = {"metadata": {"name": "s"}, "subsets": [{
        "addresses": [{"ip": ip, "targetRef": {"kind": "Pod", "name": "p", "namespace": name}}],
        "ports": [{"name": "web", "port": port}]}]}
    assert http.post(f"{base}/endpoints", json=eps).status_code == 201
    return name


def test_pod_proxy_forwards_the_request_and_its_answer(http: requests.Session, url: str, ns: str) -> None:
    base = f"{url}/api/v1/namespaces/{ns}/pods/p/proxy"
    r = http.post(f"{base}/echo/a%20b/", params={"x": "1", "path": "ignored"}, data=b"hello",
                  headers={"Authorization": "Bearer secret", "X-Custom": "v", "Connection": "X-Custom"})
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["method"] == "POST" and got["body"] == "hello"
    assert got["path"] == "/echo/a%20b/?x=1&path=ignored"  # the client's query as sent, the path escaped again
    h = got["headers"]
    assert "authorization" not in h and "x-custom" not in h  # consumed by authentication; named by Connection
    assert h["x-forwarded-uri"] == f"/api/v1/namespaces/{ns}/pods/p/proxy/echo/a%20b/"
    assert h["x-forwarded-for"] == "127.0.0.1" and h["accept-encoding"] == "gzip, deflate"  # the client's
    assert h["user-agent"].startswith("python-requests/")
    assert h["host"] == url.split("://", 1)[1]  # the client's Host goes through (UseLocationHost off)
    assert r.headers["X-Backend"] == "yes" and "Access-Control-Allow-Origin" not in r.headers  # CORS removed
    assert http.head(f"{base}/x").status_code == 200
    big = b"x" * (3 << 20)  # past any request-body limit of the API's own: a proxied body is streamed
    r = http.put(f"{base}/big", data=big)
    assert r.status_code == 200 and len(r.json()["body"]) == len(big), r.text[:300]
    r = http.put(f"{base}/chunked", data=iter([b"ab", b"cd"]))  # chunked on the way in, chunked on the way on
    h = r.json()["headers"]
    assert h.get("transfer-encoding") == "chunked" and "content-length" not in h, r.text
    # no Accept-Encoding of the client's: Go's transport asks for gzip and undoes it
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    conn = HTTPConnection(host, int(port), timeout=10)
    conn.request("GET", f"/api/v1/namespaces/{ns}/pods/p/proxy/zipped", headers={"Accept-Encoding": "identity"})
    raw = conn.getresponse()
    assert (raw.status, raw.getheader("Content-Encoding")) == (200, None)  # identity: the backend sent it plain
    raw.read()
    conn.putrequest("GET", f"/api/v1/namespaces/{ns}/pods/p/proxy/zipped", skip_accept_encoding=True)
    conn.endheaders()
    raw = conn.getresponse()
    assert raw.getheader("Content-Encoding") is None and json.loads(raw.read())["headers"]["accept-encoding"] == "gzip"
    assert raw.headers.get_all("Cache-Control") == ["no-cache, private", "max-age=60"]  # WithCacheControl's first
    assert raw.getheader("Server", "").startswith("BaseHTTP/")  # the backend's
    conn.close()
    assert http.get(f"{url}/api/v1/namespaces/{ns}/pods/p/proxy/odd").status_code == 299


def test_an_empty_path_redirects_and_a_redirect_stays_below_the_proxy(http: requests.Session, url: str,
                                                                       ns: str) -> None:
    base = f"{url}/api/v1/namespaces/{ns}/services/s:80/proxy"
    r = http.get(base, params={"q": "1"}, allow_redirects=False)
    assert (r.status_code, r.headers["Location"]) == (301, f"/api/v1/namespaces/{ns}/services/s:80/proxy/?q=1")
    r = http.get(base, allow_redirects=True)  # followed: the backend's root
    assert r.status_code == 200 and r.json()["path"] == "/"
    r = http.get(f"{base}/redirect", allow_redirects=False)
    assert (r.status_code, r.headers["Location"]) == (302, f"/api/v1/namespaces/{ns}/services/s:80/proxy/elsewhere/page")


def test_the_query_goes_on_as_the_client_sent_it(url: str, ns: str) -> None:
    """upgradeaware.go `loc.RawQuery = req.URL.RawQuery` and `proxyRedirectsforRootPath`'s `req.URL.RawQuery`:
    the bytes after `?`, escapes and all (not the query decoded, nor the pairs Go's `Query()` would drop)."""
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    query = "a=%26b&c=d%20e+f;g&h=%zz&i=%FF"
    conn = HTTPConnection(host, int(port), timeout=10)
    conn.request("GET", f"/api/v1/namespaces/{ns}/pods/p/proxy/echo?{query}")
    got = conn.getresponse()
    assert got.status == 200 and json.loads(got.read())["path"] == f"/echo?{query}"
    conn.request("GET", f"/api/v1/namespaces/{ns}/services/s:80/proxy?{query}")
    got = conn.getresponse()
    assert (got.status, got.getheader("Location")) == (301, f"/api/v1/namespaces/{ns}/services/s:80/proxy/?{query}")
    got.read()
    conn.close()


def test_an_html_answer_has_its_links_below_the_proxy(http: requests.Session, url: str, ns: str) -> None:
    """transport.go's rewriteHTML over x/net/html's tokens: start tags re-serialised (names lowercased, values
    double-quoted and escaped), absolute paths moved below the proxy path, relative and other hosts' links kept,
    end tags, script text and comments untouched."""
    r = http.get(f"{url}/api/v1/namespaces/{ns}/services/s:web/proxy/page")
    assert r.status_code == 200, r.text
    p = f"/api/v1/namespaces/{ns}/services/s:web/proxy"
    assert r.text == (
        f'<!DOCTYPE html><html><head><link rel="stylesheet" href="{p}/css/a.css"></Head><body>'
        f'<a href="{p}/x?y=1&amp;z=2" class="c">x</a> <a href="rel/y">y</a> '
        '<img src="//else.where/i.png" alt="a&lt;b">'
        f'<script src="{p}/s.js">if (a<b) {{ document.write("<a href=/no>") }}</script><!-- <a href="/c"> -->'
        '</body></HTML>')
    assert r.headers["Content-Length"] == str(len(r.content))


def test_the_kubernetes_client(url: str, ns: str) -> None:
    from kubernetes import client

    cfg = client.Configuration()
    cfg.host = url
    api = client.CoreV1Api(client.ApiClient(cfg))
    got = api.connect_get_namespaced_service_proxy_with_path("s:web", ns, "a/b", path2="q", _preload_content=False)
    assert json.loads(got.data)["path"] == "/a/b?path=q"
    got = api.connect_post_namespaced_pod_proxy_with_path("p", ns, "c", _preload_content=False)
    assert (got.status, json.loads(got.data)["method"]) == (200, "POST")


def test_service_proxy_through_kubectl(url: str, ns: str, tmp_path: Path) -> None:
    proc = _kubectl(url, tmp_path, "get", "--raw", f"/api/v1/namespaces/{ns}/services/http:s:web/proxy/hi?a=b")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["path"] == "/hi?a=b"


def test_a_refused_dial_is_upstreams_503(http: requests.Session, url: str, ns: str, backend: tuple[str, int],
                                         tmp_path: Path) -> None:
    ip, _ = backend
    closed = _closed_port(ip)
    message = f"error trying to reach service: dial tcp {ip}:{closed}: connect: connection refused"
    _error(http.get(f"{url}/api/v1/namespaces/{ns}/pods/p:{closed}/proxy/"), 503, "ServiceUnavailable", message)
    base = f"{url}/api/v1/namespaces/{ns}/pods"
    _error(http.get(f"{base}/p:web/proxy/"), 503, "ServiceUnavailable",  # a port name Go's resolver cannot look up
           "error trying to reach service: dial tcp: lookup tcp/web: unknown port")
    _error(http.get(f"{base}/p:70000/proxy/"), 503, "ServiceUnavailable",
           "error trying to reach service: dial tcp: address 70000: invalid port")
    _error(http.get(f"{base}/p:web/proxy/", headers={"Connection": "Upgrade", "Upgrade": "websocket"}), 500, None,
           "error dialing backend: dial tcp: lookup tcp/web: unknown port")
    proc = _kubectl(url, tmp_path, "get", "--raw", f"/api/v1/namespaces/{ns}/pods/http:p:{closed}/proxy/")
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"Error from server (ServiceUnavailable): {message}"


def test_an_upgrade_is_joined_to_the_backend(url: str, ns: str) -> None:
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(f"GET /api/v1/namespaces/{ns}/services/s:web/proxy/ws HTTP/1.1\r\nHost: {host}:{port}\r\n"
                  "Connection: Upgrade\r\nUpgrade: echo\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(4096)
        assert head.startswith(b"HTTP/1.1 101 Switching Protocols\r\n"), head
        s.sendall(b"hello")
        rest = head.split(b"\r\n\r\n", 1)[1]
        while len(rest) < 5:
            chunk = s.recv(4096)
            if not chunk:
                break
            rest += chunk
        assert rest == b"HELLO"


def _node(http: requests.Session, url: str, name: str, status: dict[str, Any]) -> None:
    r = http.post(f"{url}/api/v1/nodes", json={"metadata": {"name": name}})
    assert r.status_code == 201, r.text
    r = http.patch(f"{url}/api/v1/nodes/{name}/status", data=json.dumps({"status": status}),
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text


def test_the_kubelet_dials(http: requests.Session, url: str, ns: str, backend: tuple[str, int],
                           tmp_path: Path) -> None:
    ip, _ = backend
    closed = _closed_port(ip)
    node, dns_only, local = f"k-{ns}", f"d-{ns}", f"l-{ns}"
    try:
        # InternalIP preferred over Hostname (kubeadm's --kubelet-preferred-address-types), the kubelet's port
        _node(http, url, node, {"addresses": [{"type": "Hostname", "address": "nowhere.invalid"},
                                              {"type": "InternalIP", "address": ip}],
                                "daemonEndpoints": {"kubeletEndpoint": {"Port": closed}}})
        _node(http, url, dns_only, {"addresses": [{"type": "InternalDNS", "address": "n.example"}]})
        _node(http, url, local, {"addresses": [{"type": "Hostname", "address": "localhost"}]})
        refused = f"dial tcp {ip}:{closed}: connect: connection refused"
        _error(http.get(f"{url}/api/v1/nodes/{node}/proxy/stats"), 503, "ServiceUnavailable",
               f"error trying to reach service: {refused}")
        _error(http.get(f"{url}/api/v1/nodes/{dns_only}/proxy/"), 500, None,
               "no preferred addresses found; known addresses: [{InternalDNS n.example}]")
        _error(http.get(f"{url}/api/v1/nodes/{local}/proxy/"), 400, "BadRequest", "address not allowed")
        base = f"{url}/api/v1/namespaces/{ns}/pods"
        r = http.post(f"{base}/p/binding", json={"metadata": {"name": "p"}, "target": {"kind": "Node", "name": node}})
        assert r.status_code == 201, r.text
        _error(http.post(f"{base}/p/exec", params={"command": "ls", "stdout": "1"}), 400, "BadRequest",
               "Upgrade request required")
        spdy = {"Connection": "Upgrade", "Upgrade": "SPDY/3.1", "X-Stream-Protocol-Version": "v4.channel.k8s.io"}
        _error(http.post(f"{base}/p/exec", params={"command": "ls", "stdout": "1"}, headers=spdy), 500, None,
               f"error dialing backend: {refused}")
        _error(http.post(f"{base}/p/portforward", params={"ports": "80"}, headers=spdy), 500, None,
               f"error dialing backend: {refused}")
        logs = f"https://{ip}:{closed}/containerLogs/{ns}/p/c?follow=true&tailLines=2"
        _error(http.get(f"{base}/p/log", params={"follow": "1", "tailLines": "2"}), 500, None,
               f'Get "{logs}": {refused}')
        # WebSocket v5 (kubectl exec's first choice): the stream translator accepts it, then its SPDY dial fails
        proc = _kubectl(url, tmp_path, "exec", "-n", ns, "p", "--", "ls")
        assert proc.returncode == 1
        assert without_klog(proc.stderr).strip() == (
            f'error: Internal error occurred: error sending request: Post "https://{ip}:{closed}/exec/{ns}/p/c?'
            f'command=ls&error=1&output=1": {refused}')
        r = http.patch(f"{base}/p/status", data='{"status":{"phase":"Running"}}', headers={  # kubectl checks it
            "Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200, r.text
        proc = _kubectl(url, tmp_path, "port-forward", "-n", ns, "pod/p", "0:80")  # WebSocket, then SPDY
        assert proc.returncode == 1
        assert proc.stderr.strip().endswith(f"error: error upgrading connection: error dialing backend: {refused}")
        proc = _kubectl(url, tmp_path, "logs", "-n", ns, "p")
        assert proc.returncode == 1
        assert proc.stderr.strip() == (f'Error from server: Get "https://{ip}:{closed}/containerLogs/{ns}/p/c": '
                                       f"{refused}")
    finally:
        for n in (node, dns_only, local):
            http.delete(f"{url}/api/v1/nodes/{n}")


def test_the_proxies_are_long_running(backend: tuple[str, int]) -> None:
    """`longRunningRequestCheck` (subresources attach, exec, proxy, log, portforward): no --request-timeout for
    them, so an answer slower than it still comes through."""
    from conformance.reference_server.embedded import start_embedded

    ip, port = backend
    srv = start_embedded(request_timeout=0.5)
    try:
        base = f"{srv.url}/api/v1/namespaces/default/pods"
        pod = {"metadata": {"name": "slow"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
        assert requests.post(base, json=pod).status_code == 201
        r = requests.patch(f"{base}/slow/status", data=json.dumps({"status": {"podIP": ip, "podIPs": [{"ip": ip}]}}),
                           headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200, r.text
        r = requests.get(f"{base}/slow:{port}/proxy/slow", timeout=30)
        assert r.status_code == 200 and r.json()["path"] == "/slow", r.text
    finally:
        srv.stop()


class _Kubelet(BaseHTTPRequestHandler):
    """A kubelet's read side: container logs (404 for a previous instance) and a stats page."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    seen: ClassVar[list[tuple[str, str, dict[str, str]]]] = []

    def do_POST(self) -> None:
        """portForward's SPDY upgrade, answered 101; then each read echoed upper-cased (no SPDY framing: the
        tunnel carries bytes as they are)."""
        _Kubelet.seen.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
        self.wfile.write(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
                         b"X-Stream-Protocol-Version: portforward.k8s.io\r\n\r\n")
        self.wfile.flush()
        data = self.rfile.read(5)
        self.wfile.write(data.upper())
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        if self.path.startswith("/containerLogs/") and "previous=true" in self.path:
            code, ctype, body = 404, "text/plain", b"previous terminated container not found"
        elif self.path.startswith("/containerLogs/"):
            code, ctype, body = 200, "text/plain; charset=utf-8", f"line1 {self.path}\nline2\n".encode()
        else:
            code, ctype, body = 200, "application/json", json.dumps({"path": self.path}).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def kubelet(backend: tuple[str, int]) -> Iterator[int]:
    """An https server on the backend's address with a certificate of its own CA (the kubelet transport does not
    verify it: kind's kube-apiserver has no --kubelet-certificate-authority)."""
    import ssl

    from conformance.reference_server.tls import generate

    ip, _ = backend
    tls = generate(hosts=(ip,))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tls.cert_file, tls.key_file)
    srv = ThreadingHTTPServer((ip, 0), _Kubelet)
    srv.daemon_threads = True
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()
    shutil.rmtree(tls.directory, ignore_errors=True)


async def _log_messages(target: str, protocol: str) -> list[Any]:
    """pods/log over WebSocket (StreamObject's wsstream.Reader): every message until the close."""
    import aiohttp

    async with aiohttp.ClientSession() as session, session.ws_connect(
            target.replace("http", "ws", 1), protocols=(protocol,)) as ws:
        got = []
        while (msg := await ws.receive(timeout=10)).type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
            got.append(msg.data)
        return got


async def _tunnel(target: str) -> tuple[str | None, bytes]:
    import aiohttp

    async with aiohttp.ClientSession() as session, session.ws_connect(
            target.replace("http", "ws", 1), protocols=("SPDY/3.1+portforward.k8s.io",),
            timeout=aiohttp.ClientWSTimeout(ws_close=10)) as ws:
        await ws.send_bytes(b"hello")
        got = b""
        while len(got) < 5:
            msg = await ws.receive(timeout=10)
            if msg.type != aiohttp.WSMsgType.BINARY:
                break
            got += msg.data
        return ws.protocol, got


def test_a_kubelet_that_answers(http: requests.Session, url: str, ns: str, backend: tuple[str, int], kubelet: int,
                                tmp_path: Path) -> None:
    ip, _ = backend
    node = f"kl-{ns}"
    try:
        _node(http, url, node, {"addresses": [{"type": "InternalIP", "address": ip}],
                                "daemonEndpoints": {"kubeletEndpoint": {"Port": kubelet}}})
        r = http.get(f"{url}/api/v1/nodes/{node}/proxy/stats/summary")
        assert r.status_code == 200 and r.json() == {"path": "/stats/summary"}, r.text
        base = f"{url}/api/v1/namespaces/{ns}/pods"
        r = http.post(f"{base}/p/binding", json={"metadata": {"name": "p"}, "target": {"kind": "Node", "name": node}})
        assert r.status_code == 201, r.text
        r = http.get(f"{base}/p/log", params={"tailLines": "5", "timestamps": "1"})
        assert r.status_code == 200 and r.headers["Content-Type"] == "text/plain", r.text
        assert r.text == f"line1 /containerLogs/{ns}/p/c?tailLines=5&timestamps=true\nline2\n"
        r = http.get(f"{base}/p/log", params={"previous": "true"})  # GenericHttpResponseChecker
        assert r.status_code == 404, r.text
        assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": "the server could not find the requested resource ( pods/log p)",
                            "reason": "NotFound", "details": {"name": "p", "kind": "pods/log"}, "code": 404}
        proc = _kubectl(url, tmp_path, "logs", "-n", ns, "p")
        assert (proc.returncode, proc.stdout) == (0, f"line1 /containerLogs/{ns}/p/c\nline2\n"), proc.stderr
        assert asyncio.run(_log_messages(f"{base}/p/log", "base64.binary.k8s.io")) == [
            "", base64.b64encode(f"line1 /containerLogs/{ns}/p/c\nline2\n".encode()).decode()]
        # portforward over WebSocket: the stream tunnel's SPDY POST to the kubelet, its bytes in binary messages
        assert asyncio.run(_tunnel(f"{base}/p/portforward?ports=80")) == ("SPDY/3.1+portforward.k8s.io", b"HELLO")
        method, path, headers = _Kubelet.seen[-1]
        assert (method, path) == ("POST", f"/portForward/{ns}/p?port=80")
        assert (headers["upgrade"], headers["x-stream-protocol-version"], headers["content-length"]) == (
            "SPDY/3.1", "portforward.k8s.io", "0")
        assert "sec-websocket-key" not in headers and "sec-websocket-protocol" not in headers
    finally:
        http.delete(f"{url}/api/v1/nodes/{node}")
