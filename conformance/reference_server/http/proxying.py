"""Dialling where a connect subresource leads: kube-apiserver's `UpgradeAwareHandler` and what wraps its transport.

Follows `staging/src/k8s.io/apimachinery/pkg/util/proxy/upgradeaware.go` (`ServeHTTP`: an upgrade request is
dialled directly and, once the backend answers 101 or an error status, the two connections are joined byte for
byte; a plain request refused with `Upgrade request required` where the REST says so; an empty path answered 301 to
itself with a slash; else `httputil.ReverseProxy`), `transport.go` (`Transport`: `X-Forwarded-Uri`, a failed round
trip answered 503 `error trying to reach service: <Go's dial error>`, a redirect's `Location` and an HTML answer's
links rewritten below the proxy path: htmlrewrite.py), `corsRemovingTransport`, `dial.go` (`DialURL`: https without verification, ALPN http/1.1), Go's
`net/http/httputil` `ReverseProxy` (hop-by-hop headers dropped both ways, `X-Forwarded-For` appended, no default
`User-Agent`) and `net/http`'s transport (`Accept-Encoding: gzip` asked for and undone when the client asked for no
encoding), and `staging/src/k8s.io/apiserver/pkg/registry/generic/rest/streamer.go` `LocationStreamer` with
`GenericHttpResponseChecker` (pods/log). The proxy transport's dialer is `http.DefaultTransport`'s (`CreateProxyTransport`
over `SetTransportDefaults`): 30 s to connect. Everything is asyncio (aiohttp's client, `asyncio.open_connection`):
a dial never blocks the loop. What the HTTP layer's caller (http/connect.py) decided is a `podconnect.Location`.
"""
from __future__ import annotations

import asyncio
import base64
import errno
import ssl
import zlib
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from aiohttp import web
from multidict import CIMultiDict
from yarl import URL

from .. import apierrors as E
from ..goport.gonet.strconv import quote
from ..registry.podconnect import Location, escaped_path, global_unicast, go_path_join
from .goquery import raw_query
from .htmlrewrite import rewrite_body

DIAL_TIMEOUT = 30.0  # http.DefaultTransport's net.Dialer
HOP_BY_HOP = frozenset(h.lower() for h in ("Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
                                           "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"))
CORS = frozenset(h.lower() for h in ("Access-Control-Allow-Credentials", "Access-Control-Allow-Headers",
                                     "Access-Control-Allow-Methods", "Access-Control-Allow-Origin"))
# the authentication and impersonation filters take these off the request before any handler sees it
_CONSUMED = ("authorization", "impersonate-")
_MAX_HEAD = 1 << 20
_GO_ERRNO = {errno.ECONNREFUSED: "connection refused", errno.EHOSTUNREACH: "no route to host",
             errno.ENETUNREACH: "network is unreachable", errno.ETIMEDOUT: "connection timed out",
             errno.ECONNRESET: "connection reset by peer", errno.EADDRNOTAVAIL: "cannot assign requested address"}


def plain_error(message: str) -> E.StatusError:
    """A Go error that is no `APIStatus`: `ErrorToAPIStatus` answers 500 without a reason."""
    return E.StatusError(E.status_dict(500, None, message))


def is_upgrade_request(headers: Any) -> bool:
    """`httpstream.IsUpgradeRequest`: a `Connection` header containing "upgrade" in any case."""
    return any("upgrade" in v.lower() for v in headers.getall("Connection", ()))


_TLS: ssl.SSLContext | None = None


def _tls_context() -> ssl.SSLContext:
    """One client context for every dial (no CA store loaded: nothing is verified, as the kubelet transport
    without a CA and the proxy transport's InsecureSkipVerify)."""
    global _TLS
    if _TLS is None:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.set_alpn_protocols(["http/1.1"])
        _TLS = ctx
    return _TLS


def go_dial_error(exc: BaseException, loc: Location) -> str:
    """Go's `*net.OpError` text for a failed dial of `loc` (or the error after it), as `%v` prints it."""
    if isinstance(exc, DialError):
        return str(exc)
    if isinstance(exc, (asyncio.TimeoutError, aiohttp.ServerTimeoutError)):
        return f"dial tcp {loc.hostport}: i/o timeout"
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return f"dial tcp: lookup {loc.host}: no such host"
    if isinstance(exc, (aiohttp.ClientSSLError, ssl.SSLError)):
        inner = getattr(exc, "os_error", exc)
        if "WRONG_VERSION_NUMBER" in str(inner) or "record layer failure" in str(inner):
            return "tls: first record does not look like a TLS handshake"
        return "remote error: tls: handshake failure"
    if isinstance(exc, (aiohttp.ServerDisconnectedError, asyncio.IncompleteReadError)):
        return "EOF"
    inner = getattr(exc, "os_error", None) or exc
    code = getattr(inner, "errno", None)
    if isinstance(exc, (aiohttp.ClientConnectorError, OSError)) and code is not None:
        text = _GO_ERRNO.get(code) or str(getattr(inner, "strerror", "") or inner)
        text = text[:1].lower() + text[1:]  # Go's errno strings are lower case
        if code == errno.ECONNRESET:  # after connecting: the read of the answer
            return f"read tcp {loc.hostport}: read: {text}"
        return f"dial tcp {loc.hostport}: connect: {text}"
    return str(exc) or type(exc).__name__


async def check_hostname(host: str) -> None:
    """`isProxyableHostname` (nodes/proxy): every address the name resolves to must be global unicast."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=1)
    except (OSError, UnicodeError, ValueError):
        raise E.bad_request(f"lookup {host}: no such host") from None
    if not infos:
        raise E.bad_request("no addresses for hostname")
    if not all(global_unicast(str(info[4][0])) for info in infos):
        raise E.bad_request("address not allowed")


def _forward_headers(request: web.Request) -> CIMultiDict[str]:
    """The request's headers as the backend receives them: hop-by-hop ones (and those `Connection` names) and
    the credentials the filters consumed left out, `X-Forwarded-For` gaining the client's address."""
    named = {t.strip().lower() for v in request.headers.getall("Connection", ()) for t in v.split(",")}
    out: CIMultiDict[str] = CIMultiDict()
    prior: list[str] = []
    for k, v in request.headers.items():
        low = k.lower()
        if low in HOP_BY_HOP or low in named or low.startswith(_CONSUMED):
            continue
        if low == "x-forwarded-for":
            prior.append(v)
            continue
        out.add(k, v)
    client = (request.remote or "").strip("[]")
    out["X-Forwarded-For"] = ", ".join(prior + [client]) if prior else client
    return out


def _rewrite_location(value: str, loc: Location, request: web.Request, prepend: str) -> str:
    """`Transport.rewriteURL`: a redirect to the backend itself (or to the Host the client used) is moved below
    the proxy's path; one elsewhere, or relative, is left alone."""
    try:
        target = URL(value, encoded=True)
    except ValueError:
        return value
    host = target.raw_authority if target.absolute else ""
    backend = loc.hostport if loc.port else loc.hostport.rsplit(":", 1)[0]
    if (host and host != backend and host != request.host) or not target.raw_path.startswith("/"):
        return value
    path = target.path
    if not path.startswith(prepend):
        path = go_path_join(prepend, path) + ("/" if target.path.endswith("/") else "")
    keep = host == request.host
    head = f"{target.scheme}://{host}" if keep and host else ""
    query = f"?{target.raw_query_string}" if target.raw_query_string else ""
    frag = f"#{target.raw_fragment}" if target.raw_fragment else ""
    return f"{head}{escaped_path(path)}{query}{frag}"


async def serve(request: web.Request, loc: Location, *, wrap: bool, upgrade_required: bool) -> web.StreamResponse:
    """`UpgradeAwareHandler.ServeHTTP` for a location the REST's Connect returned."""
    if loc.resolve:
        await check_hostname(loc.host)
    if is_upgrade_request(request.headers):
        return await upgrade(request, loc)
    if upgrade_required:
        raise E.bad_request("Upgrade request required")
    path = loc.path
    if not path.endswith("/") and request.path.endswith("/"):
        path += "/"
    if not path and request.method in ("GET", "HEAD"):  # proxyRedirectsforRootPath (issue 4958)
        query = raw_query(request.raw_path)  # `req.URL.RawQuery`: as sent, not decoded
        location = f"{request.path}/{'?' + query if query else ''}"  # `req.URL.Path`: the decoded path
        return web.Response(status=301, headers={"Location": location})
    suffix = loc.path + ("/" if request.path.endswith("/") and not loc.path.endswith("/") else "")
    prepend = request.path[:-len(suffix)] if suffix and request.path.endswith(suffix) else request.path
    target = Location(loc.scheme, loc.host, loc.port, path, raw_query(request.raw_path), loc.kubelet)
    return await _round_trip(request, target, prepend if wrap else None)


async def _round_trip(request: web.Request, loc: Location, prepend: str | None) -> web.StreamResponse:
    """`ReverseProxy.ServeHTTP` over the (wrapped) transport: the request forwarded, the answer streamed back."""
    headers = _forward_headers(request)
    if prepend is not None:  # Transport.RoundTrip's X-Forwarded-Uri
        uri = go_path_join(prepend, escaped_path(loc.path))
        headers["X-Forwarded-Uri"] = uri + "/" if loc.path.endswith("/") else uri
    headers["Host"] = request.host
    gzip = "Accept-Encoding" not in headers and "Range" not in headers and request.method != "HEAD"
    if gzip:
        headers["Accept-Encoding"] = "gzip"
    data: Any = None
    if request.body_exists:  # streamed, never held whole: its Content-Length (when sent) goes with it
        data = request.content.iter_chunked(1 << 16)
        if request.content_length is not None:
            headers["Content-Length"] = str(request.content_length)
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(ssl=_tls_context() if loc.scheme == "https" else False, force_close=True),
        timeout=aiohttp.ClientTimeout(total=None, sock_connect=DIAL_TIMEOUT), auto_decompress=False,
        skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"), cookie_jar=aiohttp.DummyCookieJar())
    try:
        try:
            problem = port_problem(loc)
            if problem is not None:
                raise DialError(problem)
            resp = await session.request(request.method, URL(loc.url(), encoded=True), headers=headers, data=data,
                                         allow_redirects=False, compress=None)
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError, DialError, ValueError) as exc:
            if prepend is None:
                raise plain_error(go_dial_error(exc, loc)) from None
            raise E.StatusError(E.status_dict(503, "ServiceUnavailable",
                                              f"error trying to reach service: {go_dial_error(exc, loc)}")) from None
        return await _relay(request, resp, loc, prepend, gzip)
    finally:
        await session.close()


class _Proxied(web.StreamResponse):
    """The backend's answer: its own `Server` header too (the chain's prepare hook drops the one aiohttp adds)."""

    backend_server: str | None = None

    async def _write_headers(self) -> None:
        if self.backend_server is not None:
            self.headers["Server"] = self.backend_server
        await super()._write_headers()


async def _relay(request: web.Request, resp: aiohttp.ClientResponse, loc: Location, prepend: str | None,
                 asked_gzip: bool) -> web.StreamResponse:
    """`ReverseProxy`'s copy of the answer: hop-by-hop headers (and those `Connection` names) dropped, CORS ones
    by the wrapping transport; headers added to `WithCacheControl`'s own (two `Cache-Control`s when the backend
    sends one); a gzip answer to the transport's own `Accept-Encoding` undone, as Go's transport does."""
    named = {t.strip().lower() for v in resp.headers.getall("Connection", ()) for t in v.split(",")}
    out = _Proxied(status=resp.status, reason=resp.reason)
    gzipped = asked_gzip and resp.headers.get("Content-Encoding", "").lower() == "gzip"
    if "Cache-Control" in resp.headers:
        out.headers.add("Cache-Control", "no-cache, private")
    for k, v in resp.headers.items():
        low = k.lower()
        if low in HOP_BY_HOP or low in named or (prepend is not None and low in CORS):
            continue
        if gzipped and low in ("content-encoding", "content-length"):
            continue
        if low == "location" and prepend is not None:
            v = _rewrite_location(v, loc, request, prepend)
        if low == "server":
            out.backend_server = v
            continue
        out.headers.add(k, v)
    unzip = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzipped else None
    ctype = resp.headers.get("Content-Type", "").split(";", 1)[0].strip()
    if prepend is not None and ctype == "text/html":  # Transport.rewriteResponse
        body = await resp.read()
        if unzip is not None:
            try:
                body = unzip.decompress(body) + unzip.flush()
            except zlib.error:
                raise plain_error("gzip: invalid header") from None
        encoding = "" if gzipped else resp.headers.get("Content-Encoding", "")
        try:
            rewritten = rewrite_body(body, encoding,
                                     lambda v: _rewrite_location(v, loc, request, prepend))  # type: ignore[arg-type]
        except zlib.error:  # the round trip's error, through the responder
            raise plain_error("errorf making gzip reader: gzip: invalid header" if encoding.strip().lower() == "gzip"
                              else "flate: corrupt input") from None
        if rewritten is not None:
            out.headers.popall("Content-Length", None)
            out.content_length = len(rewritten)
            body = rewritten
        await out.prepare(request)
        await out.write(body)
        await out.write_eof()
        return out
    await out.prepare(request)
    try:
        async for chunk in resp.content.iter_any():
            await out.write(unzip.decompress(chunk) if unzip is not None else chunk)
        await out.write_eof()
    except (aiohttp.ClientError, OSError, zlib.error):
        pass  # the backend or the client went away mid-answer, or its gzip broke: the answer just ends
    return out


class DialError(Exception):
    """A dial that fails before connecting, with Go's words (`dial tcp: ...`)."""


def port_problem(loc: Location) -> str | None:
    """Go's resolver on the location's port: a name it cannot look up, a number out of range."""
    port = loc.port
    if not port or port.isdigit() and int(port) <= 0xFFFF:
        return None
    if port.isdigit() or port.startswith("-") and port[1:].isdigit():
        return f"dial tcp: address {port}: invalid port"
    return f"dial tcp: lookup tcp/{port}: unknown port"


async def dial(loc: Location) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """`DialURL`: TCP, and TLS (unverified, ALPN http/1.1) for https, within the dialer's 30 s."""
    problem = port_problem(loc)
    if problem is not None:
        raise DialError(problem)
    port = int(loc.port or (443 if loc.scheme == "https" else 80))
    tls = _tls_context() if loc.scheme == "https" else None
    return await asyncio.wait_for(asyncio.open_connection(loc.host, port, ssl=tls,
                                                          server_hostname="" if tls else None), DIAL_TIMEOUT)


def _request_head(request: web.Request, loc: Location, body: bytes, method: str | None = None,
                  headers_in: Any = None) -> bytes:
    """Go's `Request.Write` of the cloned request: the location's request URI, the client's Host, `User-Agent`
    (Go's own when none), `Content-Length` (a POST, PUT or PATCH states even none), then the other headers sorted
    by name, `X-Forwarded-For` appended; then the body. (`method`, `headers_in`: a rewritten clone's.)"""
    method = method or request.method
    uri = escaped_path(loc.path) or "/"
    if not uri.startswith("/"):
        uri = "/" + uri
    if loc.query:
        uri += "?" + loc.query
    headers: dict[str, list[str]] = {}
    for k, v in (request.headers if headers_in is None else headers_in).items():
        low = k.lower()
        if low in ("host", "user-agent", "content-length", "transfer-encoding", "trailer") or low.startswith(_CONSUMED):
            continue
        headers.setdefault("-".join(p.capitalize() for p in k.split("-")), []).append(v)
    client = (request.remote or "").strip("[]")
    prior = headers.pop("X-Forwarded-For", [])
    headers["X-Forwarded-For"] = [", ".join(prior + [client])]
    lines = [f"{method} {uri} HTTP/1.1", f"Host: {request.host}",
             f"User-Agent: {request.headers.get('User-Agent', 'Go-http-client/1.1')}"]
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body)}")
    lines += [f"{k}: {v}" for k in sorted(headers) for v in headers[k]]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace") + body


Switched = Callable[[asyncio.StreamReader, asyncio.StreamWriter, bytes], Awaitable[web.StreamResponse]]


async def upgrade(request: web.Request, loc: Location, *, method: str | None = None, headers: Any = None,
                   switched: Switched | None = None) -> web.StreamResponse:
    """`tryUpgrade`: dial, send the request (or the rewritten clone `method`/`headers` describe), read the answer's
    head; a 101 or an error status is relayed on the hijacked connection and, for a 101, the two joined until
    either side ends (or the 101 handed to `switched`, with the backend's connection and head); anything else is
    refused."""
    try:
        reader, writer = await dial(loc)
    except (OSError, asyncio.TimeoutError, ssl.SSLError, DialError, UnicodeError, ValueError) as exc:
        raise plain_error(f"error dialing backend: {go_dial_error(exc, loc)}") from None
    try:
        body = b"" if method is not None or not request.body_exists else await request.read()
        writer.write(_request_head(request, loc, body, method, headers))
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            head = await reader.read(_MAX_HEAD)
        parts = head.split(b"\r\n", 1)[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit():
            raise plain_error("malformed HTTP response " + repr(head.split(b"\r\n", 1)[0].decode("latin-1")))
        code = int(parts[1])
        if code != 101 and code < 400:
            raise plain_error(f"invalid upgrade response: status code {code}")
        if code == 101 and switched is not None:
            return await switched(reader, writer, head)
        transport = request.transport
        protocol = request.protocol
        if transport is None or not hasattr(protocol, "set_parser"):
            raise plain_error(f"request connection cannot be hijacked: {type(protocol).__name__}")
        tunnel = _Tunnel(writer)
        protocol.set_parser(tunnel)  # the client's further bytes go to the backend, not to the HTTP parser
        transport.write(head)
        if code == 101:
            await _pipe(reader, transport, tunnel)
        else:  # the backend's refusal, echoed as it was sent (its body: what it sends within 10 s)
            try:
                transport.write(await asyncio.wait_for(reader.read(_MAX_HEAD), 10))
            except asyncio.TimeoutError:
                pass
    except (asyncio.IncompleteReadError, ConnectionError, OSError) as exc:
        raise plain_error(go_dial_error(exc, loc)) from None
    finally:
        writer.close()
    return _hijacked()




class _Tunnel:
    """A payload parser (aiohttp's `set_parser` slot) that hands the client's bytes to the backend."""

    def __init__(self, writer: asyncio.StreamWriter):
        self.writer = writer
        self.closed = asyncio.get_running_loop().create_future()

    def feed_data(self, data: bytes) -> tuple[bool, bytes]:
        if not self.writer.is_closing():
            self.writer.write(data)
        return False, b""

    def feed_eof(self) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


async def _pipe(reader: asyncio.StreamReader, transport: Any, tunnel: _Tunnel) -> None:
    """Backend to client until either side ends (`io.Copy` both ways, the first to finish ends both)."""
    async def backend_to_client() -> None:
        while not transport.is_closing():
            chunk = await reader.read(1 << 16)
            if not chunk:
                return
            transport.write(chunk)

    copy = asyncio.ensure_future(backend_to_client())
    try:
        await asyncio.wait({copy, tunnel.closed}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        copy.cancel()


def _hijacked() -> web.StreamResponse:
    """What the handler returns for a connection it took over: nothing more is written, the connection closes
    (http/connection.py's `wire` answers)."""
    from .chain_headers import BareResponse
    resp = BareResponse(status=101)
    resp.wire = b""  # type: ignore[attr-defined]
    return resp


async def stream_log(request: web.Request, loc: Location, name: str) -> web.StreamResponse:
    """`LocationStreamer.InputStream` + `StreamObject` (pods/log with a kubelet): a GET of the location, its
    failure a plain error naming the URL as `*url.Error` does; a kubelet answer outside 2xx checked by
    `GenericHttpResponseChecker`; else the body as `text/plain`, flushed as it comes."""
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=_tls_context(), force_close=True),
                                    timeout=aiohttp.ClientTimeout(total=None, sock_connect=DIAL_TIMEOUT),
                                    skip_auto_headers=("User-Agent",))
    try:
        try:
            problem = port_problem(loc)
            if problem is not None:
                raise DialError(problem)
            resp = await session.get(URL(loc.url(), encoded=True), allow_redirects=False,
                                     headers={"User-Agent": "Go-http-client/1.1", "Accept-Encoding": "gzip"})
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError, DialError, ValueError) as exc:
            raise plain_error(f'Get "{loc.url()}": {go_dial_error(exc, loc)}') from None
        target = resp.headers.get("Location")
        if resp.status in (301, 302, 303, 307, 308) and target:  # PreventRedirects, named by the redirect's URL
            try:
                target = str(URL(loc.url(), encoded=True).join(URL(target, encoded=True)))
            except ValueError:
                pass
            raise plain_error(f'Get "{target}": redirects forbidden')
        if not 200 <= resp.status <= 206:
            body = (await resp.content.read(_CHECK_READ)).decode("utf-8", "replace")
            raise _checked(resp.status, body, name)
        if request.headers.get("Upgrade", "").lower() == "websocket" and is_upgrade_request(request.headers):
            return await _log_over_websocket(request, resp)
        out = web.StreamResponse(status=200, headers={"Content-Type": "text/plain"})
        out.enable_chunked_encoding()
        await out.prepare(request)
        try:
            async for chunk in resp.content.iter_any():
                await out.write(chunk)
        except (aiohttp.ClientError, OSError):
            pass
        await out.write_eof()
        return out
    finally:
        await session.close()


async def _log_over_websocket(request: web.Request, resp: aiohttp.ClientResponse) -> web.StreamResponse:
    """`StreamObject` for a WebSocket client (`wsstream.Reader`, default protocols: none or `binary.k8s.io` binary
    messages, `base64.binary.k8s.io` base64 text ones): an empty message first (the ping), then what the kubelet
    sends in messages of at most 2048 bytes, then the close."""
    ws = web.WebSocketResponse(protocols=("binary.k8s.io", "base64.binary.k8s.io"))
    await ws.prepare(request)
    text = ws.ws_protocol == "base64.binary.k8s.io"
    try:
        await (ws.send_str("") if text else ws.send_bytes(b""))
        async for chunk in resp.content.iter_chunked(2048):
            await (ws.send_str(base64.b64encode(chunk).decode()) if text else ws.send_bytes(chunk))
    except (aiohttp.ClientError, ConnectionError, RuntimeError):
        pass  # either side went away
    await ws.close()
    return ws


_CHECK_READ = 50000  # response_checker.go's maxReadLength
_GENERIC = {404: ("NotFound", "the server could not find the requested resource"),
            401: ("Unauthorized", "the server has asked for the client to provide credentials"),
            405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
            409: ("Conflict", "the server reported a conflict"),
            422: ("Invalid", "the server rejected our request due to an error in our request"),
            429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
            503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
            504: ("Timeout", ("the server was unable to return a response in the time allotted, but may still be "
                              "processing the request"))}


def _checked(code: int, body: str, name: str) -> E.StatusError:
    """`GenericHttpResponseChecker.Check`: 500 an internal error of the body, 400 a BadRequest of it, others
    `NewGenericServerResponse(code, "", pods/log, name, body)`."""
    if code == 500:
        return E.internal(body)
    if code == 400:
        return E.bad_request(body)
    if code in (403, 415):
        reason, message = ("Forbidden" if code == 403 else "UnsupportedMediaType"), body
    elif code == 406:
        reason, message = "NotAcceptable", (body if body and body != "unknown" else
                                            "the server was unable to respond with a content type that the client "
                                            "supports")
    elif code in _GENERIC:
        reason, message = _GENERIC[code]
    elif code >= 500:
        reason, message = "InternalError", (f"an error on the server ({quote(body)}) has prevented the request "
                                            "from succeeding")
    else:
        reason, message = None, f"the server responded with the status code {code} but did not return more information"
    return E.StatusError(E.status_dict(code, reason, f"{message} ( pods/log {name})",
                                       {"name": name, "kind": "pods/log"}))


__all__ = ["DialError", "Switched", "check_hostname", "dial", "go_dial_error", "is_upgrade_request", "plain_error", "serve", "stream_log", "upgrade"]
