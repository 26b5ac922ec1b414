"""A lean HTTP/1.1 path for plain requests to a server on this machine (the embedded reference server,
`nsconform serve`, the xdist controller's server).

Why: requests and urllib3 cost ~0.7 ms of client CPU per request (pooling, adapters, header parsing through
`email.feedparser`); http.client on a kept-alive connection still parses every answer's headers through
`email.feedparser` (a third of its cost). Here a request is one `sendall` and an answer is read from the
socket into one buffer and split by hand: ~0.1 ms. Against the embedded server, which
shares the process and its GIL, that difference is as much as the server's own work on a GET, over the ~1,500
requests of a suite run. Against a remote cluster the network dominates, so only loopback plain HTTP takes this
path: there is no TLS, proxy, redirect policy or cookie to get right.

It answers with a `requests.Response` (status, headers with repeated ones joined as urllib3 joins them, decoded
body, encoding), so callers cannot tell the paths apart. Whatever it does not handle answers None and goes
through requests as before: a session with proxies, environment trust, cookies or response hooks, a streamed
request, a redirect of a GET, a connection that cannot be opened (requests then words the error).
"""

from __future__ import annotations

import datetime
import ipaddress
import select
import socket
import threading
import time
import zlib
from functools import lru_cache
from typing import Mapping
from urllib.parse import urlsplit

import requests
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers

__all__ = ["LeanTransport", "is_local_plain_http", "url_prefix"]

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_EXPECTING_BODY = frozenset({"PATCH", "POST", "PUT"})  # http.client sends Content-Length: 0 without one
_MAX_HEAD = 256 * 1024  # a longer status line and header block is not an answer from a sane server


class _BadAnswer(Exception):
    """The bytes on the connection are not an HTTP/1.x answer (http.client's HTTPException)."""


@lru_cache(maxsize=64)
def _local_netloc(url_prefix: str) -> tuple[str, int] | None:
    parts = urlsplit(url_prefix)
    if parts.scheme != "http" or not parts.hostname or parts.username or parts.password:
        return None
    host = parts.hostname
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    return (host, parts.port or 80) if loopback else None


def is_local_plain_http(url: str) -> bool:
    """Is `url` plain HTTP to a loopback address (the only target the lean path serves)?"""
    return _local_netloc(url_prefix(url)) is not None


def url_prefix(url: str) -> str:
    """`scheme://netloc` of `url`, cut without parsing the whole URL (the cache key)."""
    cut = url.find("/", url.find("://") + 3) if "://" in url else -1
    return url if cut < 0 else url[:cut]


class _Connection:
    """One kept-alive socket and the bytes read from it but not yet consumed."""

    __slots__ = ("sock", "buf", "host")

    def __init__(self, sock: socket.socket, host: str) -> None:
        self.sock = sock
        self.buf = bytearray()
        self.host = host

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def fill(self) -> None:
        chunk = self.sock.recv(262144)
        if not chunk:
            raise ConnectionResetError("Remote end closed connection without response")
        self.buf += chunk

    def line(self) -> bytes:
        """One CRLF-terminated line (without it) of a chunked body."""
        while True:
            end = self.buf.find(b"\r\n")
            if end >= 0:
                out = bytes(self.buf[:end])
                del self.buf[:end + 2]
                return out
            if len(self.buf) > _MAX_HEAD:
                raise _BadAnswer("line too long")
            self.fill()

    def take(self, n: int) -> bytes:
        while len(self.buf) < n:
            self.fill()
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def rest(self) -> bytes:
        """Everything up to the server's close (an answer with neither a length nor chunks)."""
        while True:
            try:
                chunk = self.sock.recv(262144)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                out = bytes(self.buf)
                self.buf.clear()
                return out
            self.buf += chunk


class _Answer:
    __slots__ = ("status", "reason", "headers", "body", "will_close")

    def __init__(self, status: int, reason: str, headers: list[tuple[str, str]], body: bytes,
                 will_close: bool) -> None:
        self.status, self.reason, self.headers, self.body, self.will_close = status, reason, headers, body, will_close


class LeanTransport:
    """Per-thread kept-alive connections to loopback servers, spoken to in plain HTTP/1.1."""

    def __init__(self) -> None:
        self._local = threading.local()

    def send(self, session: requests.Session, prep: requests.PreparedRequest,
             timeout: float | tuple[float, float]) -> requests.Response | None:
        """The response, or None when this request must go through requests instead."""
        url = prep.url or ""
        prefix = url_prefix(url)
        where = _local_netloc(prefix)
        if where is None or session.trust_env or len(session.cookies) or (prep.hooks or {}).get("response") \
                or any(session.proxies.values()):
            return None
        connect_s, read_s = timeout if isinstance(timeout, tuple) else (timeout, timeout)
        target = url[len(prefix):] or "/"
        method = prep.method or "GET"
        started = time.monotonic()
        conn = self._connection(where, connect_s)
        if conn is None:
            return None
        try:
            conn.sock.settimeout(read_s)
            conn.sock.sendall(_request_bytes(method, target, prep.headers, prep.body, conn.host))
            answer = _read_answer(conn, method)
        except socket.timeout as exc:
            self._drop(where)
            raise requests.exceptions.ReadTimeout(exc) from None
        except (OSError, _BadAnswer, ValueError) as exc:
            self._drop(where)
            raise requests.exceptions.ConnectionError(exc) from None
        if answer.will_close:
            self._drop(where)
        if answer.status in _REDIRECTS and method in ("GET", "HEAD"):
            return None  # requests follows redirects; a GET may be sent again
        return _response(prep, answer, time.monotonic() - started)

    def close(self) -> None:
        """Close this thread's connections (others close with their threads' garbage)."""
        for conn in getattr(self._local, "conns", {}).values():
            conn.close()
        self._local.conns = {}

    def _connection(self, where: tuple[str, int], connect_s: float) -> _Connection | None:
        conns = getattr(self._local, "conns", None)
        if conns is None:
            conns = self._local.conns = {}
        conn = conns.get(where)
        if conn is not None and (conn.buf or _dropped(conn.sock)):
            conn.close()
            conn = None
        if conn is None:
            try:
                sock = socket.create_connection(where, timeout=connect_s)
            except OSError:
                return None  # requests says why, in the words the rest of the client expects
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            host = where[0] if ":" not in where[0] else f"[{where[0]}]"
            conn = conns[where] = _Connection(sock, host if where[1] == 80 else f"{host}:{where[1]}")
        return conn

    def _drop(self, where: tuple[str, int]) -> None:
        conn = getattr(self._local, "conns", {}).pop(where, None)
        if conn is not None:
            conn.close()


def _request_bytes(method: str, target: str, headers: Mapping[str, str], body: bytes | str | None,
                   host: str) -> bytes:
    """The request as http.client would write it: Host unless given, Content-Length for a body (and 0 for a
    bodiless PATCH/POST/PUT), header values in Latin-1."""
    if isinstance(body, str):
        body = body.encode("utf-8")
    if not isinstance(body, (bytes, bytearray, type(None))):
        raise ValueError(f"a lean request's body must be bytes, not {type(body).__name__}")
    lines = [f"{method} {target} HTTP/1.1"]
    names = set()
    for name, value in headers.items():
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        if "\n" in name or "\r" in name or "\n" in str(value) or "\r" in str(value):
            raise ValueError(f"Invalid header {name!r}")
        names.add(name.lower())
        lines.append(f"{name}: {value}")
    if "host" not in names:
        lines.insert(1, f"Host: {host}")
    if "accept-encoding" not in names:
        lines.append("Accept-Encoding: identity")
    if "content-length" not in names and "transfer-encoding" not in names:
        if body is not None:
            lines.append(f"Content-Length: {len(body)}")
        elif method in _EXPECTING_BODY:
            lines.append("Content-Length: 0")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head + bytes(body) if body else head


def _read_answer(conn: _Connection, method: str) -> _Answer:
    """Status line, headers and body of one answer (interim 1xx answers skipped)."""
    while True:
        buf = conn.buf
        end = buf.find(b"\r\n\r\n")
        while end < 0:
            if len(buf) > _MAX_HEAD:
                raise _BadAnswer("status line and headers too long")
            conn.fill()
            end = buf.find(b"\r\n\r\n")
        lines = bytes(buf[:end]).decode("latin-1").split("\r\n")
        del buf[:end + 4]
        version, _, rest = lines[0].partition(" ")
        code, _, reason = rest.partition(" ")
        if not version.startswith("HTTP/") or len(code) != 3 or not code.isdigit():
            raise _BadAnswer(f"bad status line: {lines[0][:80]!r}")
        status = int(code)
        if status >= 200 or status == 101:
            break
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        if line[:1] in (" ", "\t") and headers:  # an obsolete folded continuation
            name, value = headers[-1]
            headers[-1] = (name, f"{value} {line.strip()}")
            continue
        name, colon, value = line.partition(":")
        if not colon:
            raise _BadAnswer(f"bad header line: {line[:80]!r}")
        headers.append((name, value.lstrip(" \t")))
    lowered = {name.lower(): value for name, value in headers}
    connection = lowered.get("connection", "").lower()
    will_close = "close" in connection or (version == "HTTP/1.0" and "keep-alive" not in connection)
    if method == "HEAD" or status in (204, 304) or status < 200:
        return _Answer(status, reason, headers, b"", will_close)
    if "chunked" in lowered.get("transfer-encoding", "").lower():
        parts = []
        while True:
            size_line = conn.line().split(b";", 1)[0].strip()
            try:
                size = int(size_line, 16)
            except ValueError:
                raise _BadAnswer(f"bad chunk size: {size_line[:20]!r}") from None
            if size == 0:
                while conn.line():  # trailers, up to the blank line
                    pass
                break
            parts.append(conn.take(size))
            if conn.take(2) != b"\r\n":
                raise _BadAnswer("chunk not followed by CRLF")
        return _Answer(status, reason, headers, b"".join(parts), will_close)
    length = lowered.get("content-length")
    if length is not None:
        try:
            n = int(length.split(",")[0])
        except ValueError:
            raise _BadAnswer(f"bad Content-Length: {length!r}") from None
        return _Answer(status, reason, headers, conn.take(n), will_close)
    return _Answer(status, reason, headers, conn.rest(), True)


def _dropped(sock: socket.socket) -> bool:
    """Has the server closed (or written unasked to) an idle kept-alive connection? urllib3 asks the same
    before reusing a pooled connection: a request sent on it would fail half-way."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _response(prep: requests.PreparedRequest, answer: _Answer, elapsed_s: float) -> requests.Response:
    headers: CaseInsensitiveDict[str] = CaseInsensitiveDict()
    for name, value in answer.headers:
        headers[name] = f"{headers[name]}, {value}" if name in headers else value  # as urllib3's HTTPHeaderDict
    body = answer.body
    coding = (headers.get("Content-Encoding") or "").strip().lower()
    if body and coding in ("gzip", "x-gzip"):
        body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
    elif body and coding == "deflate":
        try:
            body = zlib.decompress(body)
        except zlib.error:
            body = zlib.decompress(body, -zlib.MAX_WBITS)
    resp = requests.Response()
    resp.status_code = answer.status
    resp.reason = answer.reason
    resp.headers = headers
    resp._content = body
    resp._content_consumed = True
    resp.encoding = get_encoding_from_headers(headers)
    resp.url = prep.url or ""
    resp.request = prep
    resp.elapsed = datetime.timedelta(seconds=elapsed_s)
    return resp
