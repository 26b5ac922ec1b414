"""A lean HTTP/1.1 path for plain requests to a server on this machine (the embedded reference server,
`nsconform serve`, the xdist controller's server).

Why: requests and urllib3 cost ~0.7 ms of client CPU per request (pooling, adapters, header parsing through
`email.feedparser`); http.client on a kept-alive connection costs ~0.25 ms. Against the embedded server, which
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
import http.client
import ipaddress
import select
import socket
import threading
import time
import zlib
from functools import lru_cache
from urllib.parse import urlsplit

import requests
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers

__all__ = ["LeanTransport", "is_local_plain_http"]

_REDIRECTS = frozenset({301, 302, 303, 307, 308})


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
    return _local_netloc(_prefix(url)) is not None


def _prefix(url: str) -> str:
    """`scheme://netloc` of `url`, cut without parsing the whole URL (the cache key)."""
    cut = url.find("/", url.find("://") + 3) if "://" in url else -1
    return url if cut < 0 else url[:cut]


class LeanTransport:
    """Per-thread kept-alive http.client connections to loopback servers."""

    def __init__(self) -> None:
        self._local = threading.local()

    def send(self, session: requests.Session, prep: requests.PreparedRequest,
             timeout: float | tuple[float, float]) -> requests.Response | None:
        """The response, or None when this request must go through requests instead."""
        url = prep.url or ""
        prefix = _prefix(url)
        where = _local_netloc(prefix)
        if where is None or session.trust_env or len(session.cookies) or (prep.hooks or {}).get("response") \
                or any(session.proxies.values()):
            return None
        connect_s, read_s = timeout if isinstance(timeout, tuple) else (timeout, timeout)
        target = url[len(prefix):] or "/"
        started = time.monotonic()
        conn = self._connection(where, connect_s)
        if conn is None:
            return None
        try:
            if conn.sock is not None:
                conn.sock.settimeout(read_s)
            conn.request(prep.method or "GET", target, body=prep.body, headers=prep.headers)
            answer = conn.getresponse()
            body = answer.read()
        except socket.timeout as exc:
            self._drop(where)
            raise requests.exceptions.ReadTimeout(exc) from None
        except (OSError, http.client.HTTPException) as exc:
            self._drop(where)
            raise requests.exceptions.ConnectionError(exc) from None
        if answer.will_close:
            self._drop(where)
        if answer.status in _REDIRECTS and prep.method in ("GET", "HEAD"):
            return None  # requests follows redirects; a GET may be sent again
        return _response(prep, answer, body, time.monotonic() - started)

    def close(self) -> None:
        """Close this thread's connections (others close with their threads' garbage)."""
        for conn in getattr(self._local, "conns", {}).values():
            conn.close()
        self._local.conns = {}

    def _connection(self, where: tuple[str, int], connect_s: float) -> http.client.HTTPConnection | None:
        conns = getattr(self._local, "conns", None)
        if conns is None:
            conns = self._local.conns = {}
        conn = conns.get(where)
        if conn is not None and (conn.sock is None or _dropped(conn.sock)):
            conn.close()
            conn = None
        if conn is None:
            conn = http.client.HTTPConnection(where[0], where[1], timeout=connect_s)
            try:
                conn.connect()
            except OSError:
                return None  # requests says why, in the words the rest of the client expects
            conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conns[where] = conn
        return conn

    def _drop(self, where: tuple[str, int]) -> None:
        conn = getattr(self._local, "conns", {}).pop(where, None)
        if conn is not None:
            conn.close()


def _dropped(sock: socket.socket) -> bool:
    """Has the server closed (or written unasked to) an idle kept-alive connection? urllib3 asks the same
    before reusing a pooled connection: a request sent on it would fail half-way."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _response(prep: requests.PreparedRequest, answer: http.client.HTTPResponse, body: bytes,
              elapsed_s: float) -> requests.Response:
    headers: CaseInsensitiveDict[str] = CaseInsensitiveDict()
    for name, value in answer.getheaders():
        headers[name] = f"{headers[name]}, {value}" if name in headers else value  # as urllib3's HTTPHeaderDict
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
