"""HTTP/2 over TLS (http/h2/protocol.py): the same handlers answer every stream, watches end with the stream, the
peer's window holds a watch back, shutdown says GOAWAY."""
from __future__ import annotations

import json
import secrets
import ssl
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import h2.events
import httpx
import pytest

from conformance.reference_server.embedded import RunningServer, start_embedded
from conformance.reference_server.http.h2 import counts
from tests.reference_server.ownserver import own_server

from .rawh2 import RawH2

TOKEN = secrets.token_urlsafe(16)


srv = own_server(tls=True, token=TOKEN)


@pytest.fixture
def client(srv: RunningServer) -> Iterator[httpx.Client]:
    with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=srv.ca_file), headers={"Authorization": f"Bearer {TOKEN}"},
                      timeout=20) as c:
        yield c


def _name(base: str) -> str:
    return f"{base}-{uuid.uuid4().hex[:8]}"


def _longrunning(client: httpx.Client, srv: RunningServer) -> float:
    """`apiserver_longrunning_requests` summed over the namespace watches (metrics/apiserver.py)."""
    text = client.get(srv.url + "/metrics").text
    return sum(float(ln.rsplit(" ", 1)[1]) for ln in text.splitlines()
               if ln.startswith("apiserver_longrunning_requests{") and 'resource="namespaces"' in ln)


def test_get_and_post_over_h2_carry_the_chain_headers(srv: RunningServer, client: httpx.Client) -> None:
    before = counts["streams"]
    r = client.get(srv.url + "/api/v1/namespaces/default")
    assert r.http_version == "HTTP/2" and r.status_code == 200
    assert r.json()["metadata"]["name"] == "default"
    assert r.headers["cache-control"] == "no-cache, private" and len(r.headers["audit-id"]) == 36
    assert "server" not in r.headers and "connection" not in r.headers and "transfer-encoding" not in r.headers
    name = _name("h2post")
    r = client.post(srv.url + "/api/v1/namespaces", json={"metadata": {"name": name}})
    assert r.status_code == 201 and r.json()["metadata"]["name"] == name
    r = client.post(srv.url + "/api/v1/namespaces", json={"metadata": {"name": name}})
    assert r.status_code == 409 and r.json()["reason"] == "AlreadyExists"
    assert counts["streams"] - before == 3
    client.delete(f"{srv.url}/api/v1/namespaces/{name}")


def test_unauthenticated_stream_gets_the_same_401(srv: RunningServer) -> None:
    with httpx.Client(http2=True, verify=ssl.create_default_context(cafile=srv.ca_file)) as c:
        r = c.get(srv.url + "/api/v1/namespaces")
    assert r.http_version == "HTTP/2" and r.status_code == 401 and r.json()["reason"] == "Unauthorized"


def test_large_body_is_read_whole(srv: RunningServer, client: httpx.Client) -> None:
    """A ConfigMap of nearly 1 MiB (`ValidateConfigMap`'s limit): several times the stream window (256 KiB) and
    frame size, reopened as it is read."""
    ns = _name("h2big")
    client.post(srv.url + "/api/v1/namespaces", json={"metadata": {"name": ns}})
    value = "x" * ((1 << 20) - 64)
    r = client.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps",
                    json={"metadata": {"name": "big"}, "data": {"v": value}})
    assert r.status_code == 201, r.text[:300]
    r = client.get(f"{srv.url}/api/v1/namespaces/{ns}/configmaps/big")
    assert r.status_code == 200 and r.json()["data"]["v"] == value
    client.delete(f"{srv.url}/api/v1/namespaces/{ns}")


def test_a_panicking_handler_resets_its_stream_only(srv: RunningServer, client: httpx.Client) -> None:
    """Where kube-apiserver's handler panics (a JSON patch evanphx/json-patch v4.12.0 dereferences a nil node in),
    x/net/http2's `runHandler` resets the stream with INTERNAL_ERROR (`handlerPanicRST`); the connection serves on."""
    ns = _name("h2panic")
    client.post(srv.url + "/api/v1/namespaces", json={"metadata": {"name": ns}})
    client.post(f"{srv.url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "c"}})
    raw = RawH2(srv.url, srv.ca_file)
    try:
        raw.settled()
        sid = raw.request("PATCH", f"/api/v1/namespaces/{ns}/configmaps/c",
                          [("content-type", "application/json-patch+json")],
                          b'[{"op":"add","path":"/data","value":null},{"op":"add","path":"/data/x/y","value":"1"}]',
                          token=TOKEN)
        assert raw.reset_code(sid) == 2  # INTERNAL_ERROR
        headers, _ = raw.response(raw.request("GET", f"/api/v1/namespaces/{ns}/configmaps/c", token=TOKEN))
        assert headers[":status"] == "200"
    finally:
        raw.close()
        client.delete(f"{srv.url}/api/v1/namespaces/{ns}")


def test_many_concurrent_streams_on_one_connection(srv: RunningServer) -> None:
    raw = RawH2(srv.url, srv.ca_file)
    try:
        raw.settled()
        sids = [raw.request("GET", "/api/v1/namespaces/default", token=TOKEN) for _ in range(50)]
        for sid in sids:
            headers, body = raw.response(sid)
            assert headers[":status"] == "200" and json.loads(body)["metadata"]["name"] == "default"
    finally:
        raw.close()


def test_settings_are_kube_apiservers(srv: RunningServer) -> None:
    raw = RawH2(srv.url, srv.ca_file)
    try:
        assert raw.alpn == "h2"
        raw.settled()
        first = next(e for e in raw.events if isinstance(e, h2.events.RemoteSettingsChanged))
        assert list(first.changed_settings) == [5, 3, 6, 1, 4]  # Go's five, in its order (no ENABLE_PUSH)
        settings = raw.conn.remote_settings
        assert settings.max_concurrent_streams == 100
        assert settings.max_frame_size == 256 * 1024 and settings.initial_window_size == 256 * 1024
        assert settings.max_header_list_size == (1 << 20) + 320
        raw.until(lambda evs: any(isinstance(e, h2.events.WindowUpdated) and e.stream_id == 0 for e in evs))
        assert raw.conn.outbound_flow_control_window == 256 * 1024 * 100
    finally:
        raw.close()


def test_streams_beyond_the_limit_are_reset(srv: RunningServer) -> None:
    """Go's processHeaders: over MaxConcurrentStreams after our SETTINGS were acknowledged: PROTOCOL_ERROR."""
    raw = RawH2(srv.url, srv.ca_file)
    try:
        raw.settled()
        raw.pump(0.3)
        # 100 watches hold their streams open; the 101st is one too many
        watches = [raw.request("GET", "/api/v1/namespaces?watch=1&timeoutSeconds=30", token=TOKEN)
                   for _ in range(100)]
        raw.conn.remote_settings.max_concurrent_streams = 1000  # (so our client sends one more)
        raw.conn.remote_settings.acknowledge()
        extra = raw.request("GET", "/api/v1/namespaces/default", token=TOKEN)
        assert raw.reset_code(extra) == 1  # PROTOCOL_ERROR
        for sid in watches:
            raw.conn.reset_stream(sid)
        raw.flush()
        after = raw.request("GET", "/api/v1/namespaces/default", token=TOKEN)  # the limit frees up again
        headers, _ = raw.response(after)
        assert headers[":status"] == "200"
    finally:
        raw.close()


def test_watch_event_then_client_reset_ends_the_watch(srv: RunningServer, client: httpx.Client) -> None:
    base = _longrunning(client, srv)
    raw = RawH2(srv.url, srv.ca_file)
    try:
        sid = raw.request("GET", "/api/v1/namespaces?watch=1&resourceVersion=0", token=TOKEN)
        raw.until(lambda evs: any(isinstance(e, h2.events.ResponseReceived) for e in evs))
        name = _name("h2watch")
        client.post(srv.url + "/api/v1/namespaces", json={"metadata": {"name": name}})
        raw.until(lambda evs: name.encode() in raw.data())
        assert _longrunning(client, srv) == base + 1
        raw.conn.reset_stream(sid, error_code=8)  # CANCEL, as Go's client does for a stopped watch
        raw.flush()
        _eventually(lambda: _longrunning(client, srv) == base)
        client.delete(f"{srv.url}/api/v1/namespaces/{name}")
    finally:
        raw.close()


def test_closed_connection_ends_its_watch(srv: RunningServer, client: httpx.Client) -> None:
    base = _longrunning(client, srv)
    raw = RawH2(srv.url, srv.ca_file)
    raw.request("GET", "/api/v1/namespaces?watch=1", token=TOKEN)
    raw.until(lambda evs: any(isinstance(e, h2.events.ResponseReceived) for e in evs))
    assert _longrunning(client, srv) == base + 1
    raw.close()
    _eventually(lambda: _longrunning(client, srv) == base)


def test_slow_reader_holds_the_watch_back(srv: RunningServer, client: httpx.Client) -> None:
    """A client that never reopens its 1 KiB window gets no more than 1 KiB of DATA; once it does, the rest."""
    raw = RawH2(srv.url, srv.ca_file, window=1024, auto_ack=False)
    ns: list[str] = []
    try:
        sid = raw.request("GET", "/api/v1/namespaces?watch=1&resourceVersion=0", token=TOKEN)
        raw.until(lambda evs: any(isinstance(e, h2.events.ResponseReceived) for e in evs))
        for _ in range(20):  # about 20 × 400 bytes of events
            ns.append(_name("h2slow"))
            assert client.post(srv.url + "/api/v1/namespaces", json={"metadata": {"name": ns[-1]}}).status_code == 201
        raw.until(lambda evs: len(raw.data()) == 1024)
        raw.pump(0.5)
        assert len(raw.data()) == 1024  # the server waits on the shut window
        raw.conn.acknowledge_received_data(1024, sid)
        raw.conn.increment_flow_control_window(1 << 20, stream_id=sid)
        raw.flush()
        raw.until(lambda evs: ns[-1].encode() in raw.data())
    finally:
        raw.close()
        for name in ns:
            client.delete(f"{srv.url}/api/v1/namespaces/{name}")


def test_connection_specific_request_header_is_a_400_from_the_server(srv: RunningServer) -> None:
    """checkValidHTTP2RequestHeaders: Go's own 400, outside the handler chain (no Audit-Id)."""
    raw = RawH2(srv.url, srv.ca_file)
    try:
        sid = raw.request("GET", "/api/v1/namespaces/default", [("connection", "keep-alive")], token=TOKEN)
        headers, body = raw.response(sid)
        assert headers[":status"] == "400" and "audit-id" not in headers
        assert headers["content-type"] == "text/plain; charset=utf-8"
        assert body == b'request header "Connection" is not valid in HTTP/2\n'
        sid = raw.request("GET", "/api/v1/namespaces/default", [("te", "gzip")], token=TOKEN)
        headers, body = raw.response(sid)
        assert headers[":status"] == "400" and body == b'request header "TE" may only be "trailers" in HTTP/2\n'
        sid = raw.request("GET", "/api/v1/namespaces/default", [("te", "trailers")], token=TOKEN)
        assert raw.response(sid)[0][":status"] == "200"
    finally:
        raw.close()


def test_bad_header_names_reset_the_stream_not_the_connection(srv: RunningServer) -> None:
    raw = RawH2(srv.url, srv.ca_file)
    try:
        bad = raw.request("GET", "/api/v1/namespaces/default", [("X-Upper", "1")], token=TOKEN)
        assert raw.reset_code(bad) == 1  # PROTOCOL_ERROR
        no_path = raw.request("GET", "", token=TOKEN)
        assert raw.reset_code(no_path) == 1
        ok = raw.request("GET", "/api/v1/namespaces/default", token=TOKEN)
        assert raw.response(ok)[0][":status"] == "200"
    finally:
        raw.close()


def test_oversized_header_list_is_a_431(srv: RunningServer) -> None:
    """handleHeaderListTooLong; HPACK state survives (the next stream on the connection is answered)."""
    raw = RawH2(srv.url, srv.ca_file)
    try:
        raw.settled()
        big = [(f"x-big-{i}", "v" * 8000) for i in range(140)]  # > 1 MiB + 320 bytes
        sid = raw.request("GET", "/api/v1/namespaces/default", big, token=TOKEN)
        headers, body = raw.response(sid)
        assert headers[":status"] == "431" and body == b"<h1>HTTP Error 431</h1><p>Request Header Field(s) Too Large</p>"
        assert headers["content-type"] == "text/html; charset=utf-8" and "audit-id" not in headers
        ok = raw.request("GET", "/api/v1/namespaces/default", token=TOKEN)
        assert raw.response(ok)[0][":status"] == "200"
    finally:
        raw.close()


def test_shutdown_sends_goaway_and_lets_open_streams_finish() -> None:
    """Go's graceful shutdown: GOAWAY NO_ERROR naming the last stream, whose answer may still be written (here a
    watch held back by its shut window until after the GOAWAY) and ends with END_STREAM, not a reset."""
    s = start_embedded(tls=True, token=TOKEN)
    raw = RawH2(s.url, s.ca_file, window=1024, auto_ack=False)
    try:
        sid = raw.request("GET", "/api/v1/namespaces?watch=1&resourceVersion=0", token=TOKEN)
        raw.until(lambda evs: len(raw.data()) == 1024)  # the initial ADDED events fill the window
        stopper = threading.Thread(target=s.stop)
        stopper.start()
        events = raw.until(lambda evs: any(isinstance(e, h2.events.ConnectionTerminated) for e in evs))
        goaway = next(e for e in events if isinstance(e, h2.events.ConnectionTerminated))
        assert goaway.error_code == 0 and goaway.last_stream_id == sid
        raw.conn.increment_flow_control_window(1 << 20, stream_id=sid)
        raw.flush()
        raw.until(lambda evs: any(isinstance(e, h2.events.StreamEnded) and e.stream_id == sid for e in evs))
        stopper.join(20)
        assert not any(isinstance(e, h2.events.StreamReset) for e in raw.events)
        assert b'"name":"kube-system"' in raw.data()
    finally:
        raw.close()


def test_expect_100_continue_is_an_informational_headers_frame(srv: RunningServer,
                                                                client: httpx.Client) -> None:
    raw = RawH2(srv.url, srv.ca_file)
    name = _name("h2expect")
    try:
        sid = raw.request("POST", "/api/v1/namespaces", [("content-type", "application/json"),
                                                         ("expect", "100-continue")], token=TOKEN, end=False)
        events = raw.until(lambda evs: any(isinstance(e, h2.events.InformationalResponseReceived) for e in evs))
        info = next(e for e in events if isinstance(e, h2.events.InformationalResponseReceived))
        assert info.stream_id == sid and dict(info.headers) == {":status": "100"}
        raw.send_body(sid, json.dumps({"metadata": {"name": name}}).encode())
        assert raw.response(sid)[0][":status"] == "201"
    finally:
        raw.close()
        client.delete(f"{srv.url}/api/v1/namespaces/{name}")


def test_idle_connection_gets_goaway_and_is_closed() -> None:
    """Go's IdleTimeout over HTTP/2 (`onIdleTimer`): no stream open for that long, GOAWAY NO_ERROR, then close;
    an open watch keeps a connection from being idle."""
    s = start_embedded(tls=True, token=TOKEN, idle_timeout=0.5)
    try:
        raw = RawH2(s.url, s.ca_file)
        busy = RawH2(s.url, s.ca_file)
        try:
            sid = raw.request("GET", "/api/v1/namespaces/default", token=TOKEN)
            assert raw.response(sid)[0][":status"] == "200"
            busy.request("GET", "/api/v1/namespaces?watch=1", token=TOKEN)
            events = raw.until(lambda evs: raw.closed, timeout=10)
            goaway = next(e for e in events if isinstance(e, h2.events.ConnectionTerminated))
            assert goaway.error_code == 0 and goaway.last_stream_id == sid
            busy.pump(0.3)
            assert not busy.closed and not any(isinstance(e, h2.events.ConnectionTerminated) for e in busy.events)
        finally:
            raw.close()
            busy.close()
    finally:
        s.stop()


def test_client_goaway_lets_its_open_stream_finish(srv: RunningServer, client: httpx.Client) -> None:
    """A client's GOAWAY (RFC 9113 §6.8): the stream it began is still served, then the connection closes."""
    from hyperframe.frame import GoAwayFrame
    raw = RawH2(srv.url, srv.ca_file)
    name = _name("h2goaway")
    try:
        raw.settled()
        sid = raw.request("POST", "/api/v1/namespaces", [("content-type", "application/json")], token=TOKEN, end=False)
        raw.sock.sendall(GoAwayFrame(0, last_stream_id=0, error_code=0).serialize())
        raw.send_body(sid, json.dumps({"metadata": {"name": name}}).encode())
        headers, _ = raw.response(sid)
        assert headers[":status"] == "201"
        raw.until(lambda evs: raw.closed)
    finally:
        raw.close()
        client.delete(f"{srv.url}/api/v1/namespaces/{name}")


def test_alpn_http11_clients_are_unchanged(srv: RunningServer) -> None:
    import requests
    before = counts["streams"]
    with httpx.Client(http2=False, verify=ssl.create_default_context(cafile=srv.ca_file), headers={"Authorization": f"Bearer {TOKEN}"}) as c:
        r = c.get(srv.url + "/api/v1/namespaces/default")
    assert r.http_version == "HTTP/1.1" and r.status_code == 200
    s = requests.Session()
    s.trust_env = False
    r = s.get(srv.url + "/api/v1/namespaces/default", verify=srv.ca_file,
              headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert r.status_code == 200 and r.raw.version == 11 and r.headers["Audit-Id"]
    raw = RawH2(srv.url, srv.ca_file, alpn=("http/1.1",))
    assert raw.alpn == "http/1.1"
    raw.close()
    assert counts["streams"] == before


def test_plain_http_stays_http11() -> None:
    """kube-apiserver serves HTTP/2 only over TLS; the plain listener is HTTP/1.1 (no h2c by prior knowledge)."""
    s = start_embedded(token=TOKEN)
    before = counts["connections"]
    try:
        with httpx.Client(http2=True, headers={"Authorization": f"Bearer {TOKEN}"}) as c:
            r = c.get(s.url + "/api/v1/namespaces/default")
        assert r.http_version == "HTTP/1.1" and r.status_code == 200
        with httpx.Client(http1=False, http2=True) as c, pytest.raises(httpx.HTTPError):
            c.get(s.url + "/api/v1/namespaces/default")
    finally:
        s.stop()
    assert counts["connections"] == before


def test_official_client_speaks_http11(srv: RunningServer, tmp_path: Any) -> None:
    from kubernetes import client, config
    before = counts["streams"]
    path = tmp_path / "kubeconfig"
    srv.write_kubeconfig(str(path))
    api = config.new_client_from_config(config_file=str(path))
    try:
        assert client.CoreV1Api(api).read_namespace("default").metadata.name == "default"
    finally:
        api.close()
    assert counts["streams"] == before


def _eventually(check: Any, timeout: float = 10.0) -> None:
    import time
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def test_streams_beyond_the_limit_before_our_settings_are_acknowledged_are_refused(srv: RunningServer) -> None:
    """processHeaders' race case: the client cannot know the limit yet, so REFUSED_STREAM (retry elsewhere)."""
    raw = RawH2(srv.url, srv.ca_file)
    try:
        sids = [raw.request("GET", "/api/v1/namespaces?watch=1&timeoutSeconds=30", token=TOKEN) for _ in range(101)]
        assert raw.reset_code(sids[-1]) == 7  # REFUSED_STREAM
        assert not any(isinstance(e, h2.events.StreamReset) and e.stream_id != sids[-1] for e in raw.events)
    finally:
        raw.close()


def test_body_over_the_limit_is_a_413_and_the_rest_is_not_read(srv: RunningServer) -> None:
    """read_body's 413 as over HTTP/1.1; the stream the client left open is then reset with NO_ERROR (RFC 9113
    §8.1, as Go's server does)."""
    raw = RawH2(srv.url, srv.ca_file)
    try:
        sid = raw.request("POST", "/api/v1/namespaces", [("content-type", "application/json"),
                                                         ("content-length", str(4 << 20))], token=TOKEN, end=False)
        assert raw.reset_code(sid) == 0
        headers, body = raw.response(sid)
        assert headers[":status"] == "413"
        assert json.loads(body)["message"] == "Request entity too large: limit is 3145728"
        assert json.loads(body)["reason"] == "RequestEntityTooLarge"
    finally:
        raw.close()


def test_body_against_its_content_length(srv: RunningServer) -> None:
    """Go's processData/endStream: more than declared resets the stream; less fails the handler's body read
    (kube-apiserver's fallback Status: 500, no reason, the error's text); the connection serves on."""
    raw = RawH2(srv.url, srv.ca_file)
    body = b'{"metadata":{"name":"h2-length"}}'
    try:
        over = raw.request("POST", "/api/v1/namespaces", [("content-type", "application/json"),
                                                          ("content-length", str(len(body) - 5))], body, token=TOKEN)
        assert raw.reset_code(over) == 1
        short = raw.request("POST", "/api/v1/namespaces", [("content-type", "application/json"),
                                                           ("content-length", str(len(body) + 5))], body, token=TOKEN)
        headers, answer = raw.response(short)
        assert headers[":status"] == "500" and json.loads(answer) == {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "code": 500,
            "message": f"request declared a Content-Length of {len(body) + 5} but only wrote {len(body)} bytes"}
        ok = raw.request("GET", "/api/v1/namespaces/default", token=TOKEN)
        assert raw.response(ok)[0][":status"] == "200"
    finally:
        raw.close()


def test_repeated_headers_are_read_as_go_reads_them(srv: RunningServer) -> None:
    """x/net/http2 `processHeaders`: every value kept, the first read (`Header.Get`; `req.ContentLength` from the
    first Content-Length, 0 when not a number); no Host count as over HTTP/1.1. `h2` would end the connection on
    two differing Content-Length values."""
    raw = RawH2(srv.url, srv.ca_file)
    body = b'{"metadata":{"name":"h2-repeated"}}'
    try:
        created = raw.request("POST", "/api/v1/namespaces", [
            ("content-type", "application/json"), ("content-type", "application/yaml"), ("user-agent", "a"),
            ("user-agent", "b"), ("content-length", str(len(body))), ("content-length", "3")], body, token=TOKEN)
        headers, answer = raw.response(created)
        assert headers[":status"] == "201" and json.loads(answer)["metadata"]["name"] == "h2-repeated"
        over = raw.request("POST", "/api/v1/namespaces", [("content-type", "application/json"),
                                                          ("content-length", "3"), ("content-length", "99")],
                           body, token=TOKEN)
        assert raw.reset_code(over) == 1  # more than the first declares
        nan = raw.request("POST", "/api/v1/namespaces", [("content-type", "application/json"),
                                                         ("content-length", "x")], body, token=TOKEN)
        assert raw.reset_code(nan) == 1  # declares 0
        hosts = raw.request("GET", "/api/v1/namespaces/default", [("host", "a"), ("host", "b"),
                                                                  ("accept", "application/yaml"),
                                                                  ("accept", "application/json")], token=TOKEN)
        headers, answer = raw.response(hosts)
        assert headers[":status"] == "200" and answer.startswith(b"apiVersion: v1\nkind: Namespace\n")  # (go-yaml sorts keys)
        wrong_second = raw.request("GET", "/api/v1/namespaces/default", [("authorization", "Bearer wrong")],
                                   token=TOKEN)
        assert raw.response(wrong_second)[0][":status"] == "200"
    finally:
        raw.close()


@pytest.mark.parametrize("alpn", [("http/1.1",), ()])
def test_preface_without_h2_is_an_http1_request(srv: RunningServer, alpn: tuple[str, ...]) -> None:
    """Go reads `PRI * HTTP/2.0` on a connection that did not negotiate h2 as an HTTP/1 request: the handler chain
    answers it (here: no credentials, 401), then the connection closes."""
    import socket
    import ssl as _ssl
    from urllib.parse import urlparse
    u = urlparse(srv.url)
    ctx = _ssl.create_default_context(cafile=srv.ca_file)
    if alpn:
        ctx.set_alpn_protocols(list(alpn))
    with ctx.wrap_socket(socket.create_connection((u.hostname, u.port), timeout=10), server_hostname=u.hostname) as s:
        assert s.selected_alpn_protocol() == (alpn[0] if alpn else None)
        s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 401 Unauthorized\r\n") and b"\r\nConnection: close" in head
    assert json.loads(body)["reason"] == "Unauthorized"


def test_a_bad_escape_in_the_path_resets_the_stream(srv: RunningServer) -> None:
    """Go's newWriterAndRequestNoBody: `url.ParseRequestURI(rp.path)` fails (`invalid URL escape "%zz"`), a
    PROTOCOL_ERROR stream error; a byte that is not UTF-8 is read into `URL.Path` (http/gopath.py): not found."""
    raw = RawH2(srv.url, srv.ca_file)
    try:
        bad = raw.request("GET", "/api/v1/namespaces/a%zz", token=TOKEN)
        assert raw.reset_code(bad) == 1  # PROTOCOL_ERROR
        headers, body = raw.response(raw.request("GET", "/api/v1/namespaces/a%FF?limit=%zz", token=TOKEN))
        assert headers[":status"] == "404" and json.loads(body)["message"] == 'namespaces "a\\xff" not found'
    finally:
        raw.close()
