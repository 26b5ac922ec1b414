"""KubeClient: thin HTTP verbs over a `requests.Session` that record every exchange.

It never raises on an HTTP status, because the status *is* what a conformance test checks; it raises
`TargetUnreachable` only when no response arrived at all.
"""

from __future__ import annotations

import json as _json
import threading
import time
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Mapping
from urllib.parse import urlencode, urlsplit

import requests
from requests.cookies import RequestsCookieJar
from requests.hooks import default_hooks
from requests.structures import CaseInsensitiveDict

from .. import endpoints
from . import TargetUnreachable
from .exchange import RECORDER, Exchange, Recorder, mask_headers, mask_secret_data, mask_text
from .config import server_name_of, use_server_name
from .transport import LeanTransport, url_prefix

if TYPE_CHECKING:
    from .config import Connection
    from .watch import WatchStream

__all__ = ["KubeClient", "PATCH_TYPES", "MAX_BODY_CHARS"]

PATCH_TYPES = {
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",
}
MAX_BODY_CHARS = 20_000
MAX_RETRIES = 10
"""client-go's `rest.Request` default: a 429 or 5xx that carries Retry-After is retried at most ten times."""
MAX_RETRY_AFTER_S = 30.0
"""The longest single Retry-After pause honoured (seconds, before --timeout-scale)."""
_PAUSE = threading.Event()  # never set: wait() is an interruptible pause


def retry_after(resp: requests.Response) -> float | None:
    """Seconds to wait before resending, as client-go's `checkWait`: only for 429 and 5xx, and only when the
    server said when (an integer Retry-After); None means "answer as is"."""
    if resp.status_code != 429 and resp.status_code < 500:
        return None
    value = (resp.headers.get("Retry-After") or "").strip()
    if not value.isdigit():
        return None
    return float(value)


def _decode_body(raw: bytes | str | None, content_type: str | None, secrets: tuple[str, ...]) -> Any:
    """Parsed JSON when possible (secrets' data masked), else masked text truncated for reports."""
    if raw is None or raw == b"" or raw == "":
        return None
    text = raw.decode("utf-8", "replace") if isinstance(raw, (bytes, bytearray)) else str(raw)
    ct = (content_type or "").lower()
    if "json" in ct or text[:1] in ("{", "["):
        try:
            return mask_secret_data(_json.loads(text))
        except ValueError:
            pass
    text = mask_text(text, secrets)
    if len(text) > MAX_BODY_CHARS:
        text = text[:MAX_BODY_CHARS] + f"... [{len(text) - MAX_BODY_CHARS} more characters]"
    return text


def _mask_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.username or parts.password:
        netloc = parts.hostname or ""
        if parts.port:
            netloc += f":{parts.port}"
        parts = parts._replace(netloc=netloc)
    return parts.geturl()


def describe_connection_error(base_url: str, exc: BaseException) -> str:
    """One line naming the target and the root cause, without urllib3's nested reprs."""
    root: BaseException = exc
    seen = set()
    while True:
        nxt = getattr(root, "reason", None) or root.__cause__ or root.__context__
        if nxt is None or id(nxt) in seen or not isinstance(nxt, BaseException):
            break
        seen.add(id(nxt))
        root = nxt
    text = str(root)
    for marker in ("Connection refused", "Name or service not known", "nodename nor servname",
                   "No route to host", "timed out", "CERTIFICATE_VERIFY_FAILED", "certificate verify failed",
                   "Temporary failure in name resolution", "Connection reset", "Remote end closed"):
        if marker.lower() in text.lower() or marker.lower() in str(exc).lower():
            text = marker
            break
    if isinstance(exc, requests.exceptions.SSLError) and "certificate" not in text.lower():
        text = f"TLS error: {text}"
    if "certificate verify failed" in text.lower() or "certificate_verify_failed" in text.lower():
        text = (f"{text} (the server's TLS certificate is not trusted: pass the CA that signed it "
                "(kubeconfig certificate-authority / certificate-authority-data, or `--certificate-authority "
                "FILE` with --server), or --insecure-skip-tls-verify to skip the check)")
    if isinstance(exc, requests.exceptions.Timeout):
        text = "timed out"
    if base_url.startswith("http://") and not isinstance(exc, requests.exceptions.Timeout) \
            and speaks_tls(base_url):
        text = f"{text} (this port speaks TLS: use https:// instead of http://)"
    return " ".join(f"cannot reach {base_url}: {text}".split())


def speaks_tls(url: str, timeout: float = 3.0) -> bool:
    """Does the host:port of `url` complete a TLS handshake? (A plain-HTTP request to a TLS port fails
    with a reset or an empty reply that says nothing about the cause.)"""
    import socket
    import ssl
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if not parts.hostname:
        return False
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    try:
        with socket.create_connection((parts.hostname, parts.port or 80), timeout=timeout) as sock:
            with ctx.wrap_socket(sock, server_hostname=parts.hostname):
                return True
    except (OSError, ValueError):
        return False


def prepare(session: requests.Session, method: str, url: str, headers: dict[str, str], body: bytes | None,
            params: dict[str, Any]) -> requests.PreparedRequest:
    """`session.prepare_request(Request(...))`, without its merging where there is nothing to merge.

    requests' merging costs ~0.3 ms of client CPU per request (on Python 3.11 each of its `isinstance` checks
    against a runtime-checkable Protocol walks the class), as much as the embedded server's work on a GET.
    Our sessions trust no environment (`config._new_session`), hold no cookies and no hooks unless a server
    sets them; any session that does takes requests' own path. Same request on the wire (tested)."""
    if session.trust_env or len(session.cookies) or session.params or any((session.hooks or {}).values()):
        return session.prepare_request(requests.Request(method, url, headers=headers, data=body, params=params))
    merged = CaseInsensitiveDict(session.headers)
    merged.update(headers)
    for key in [k for k, v in merged.items() if v is None]:
        del merged[key]
    prep = requests.PreparedRequest()
    fast_url = _canonical_url(url, params)
    if fast_url is None:
        prep.prepare(method=method, url=url, headers=merged, data=body, params=params or None, auth=session.auth,
                     cookies=RequestsCookieJar(), hooks=default_hooks())
        return prep
    # PreparedRequest.prepare's steps, with the URL already in the form prepare_url gives it
    prep.method = method.upper()
    prep.url = fast_url
    prep.prepare_headers(merged)
    prep._cookies = RequestsCookieJar()
    if body:
        prep.body = body
        prep.headers["Content-Length"] = str(len(body))
    elif prep.method not in ("GET", "HEAD") and prep.headers.get("Content-Length") is None:
        prep.headers["Content-Length"] = "0"
    if session.auth is not None:
        prep.prepare_auth(session.auth, fast_url)
    return prep


_URL_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/:?&=!$'()*+,;@")


@lru_cache(maxsize=64)
def _canonical_prefix(prefix: str) -> bool:
    """Is `scheme://host[:port]` already in the form requests' `prepare_url` writes (lower case, no credentials,
    nothing to encode)?"""
    probe = requests.PreparedRequest()
    try:
        probe.prepare_url(prefix + "/", None)
    except requests.RequestException:
        return False
    return probe.url == prefix + "/" and "@" not in prefix


def _canonical_url(url: str, params: Mapping[str, Any]) -> str | None:
    """The URL requests' `prepare_url` would make of `url` and `params`, computed directly when nothing in it
    needs requests' work (~0.2 ms a request: urllib3's parse, IDNA, re-quoting): a canonical prefix, then a
    path and query of characters `requote_uri` keeps, no `%` (it would re-decide escapes), no dot segment
    (urllib3 removes them), no fragment. Anything else answers None: requests prepares it."""
    prefix = url_prefix(url)
    rest = url[len(prefix):]
    if not rest or not _URL_SAFE.issuperset(rest) or "/." in rest or rest.endswith("?") \
            or not _canonical_prefix(prefix):
        return None
    if any(not isinstance(v, (str, int)) for v in params.values()):
        return None
    encoded = urlencode(params, doseq=True) if params else ""
    if not encoded:
        return url
    return f"{url}{'&' if '?' in rest else '?'}{encoded}"


def send_settings(session: requests.Session, url: str, stream: bool) -> dict[str, Any]:
    """`session.merge_environment_settings(url, {}, stream, None, None)`, computed directly when the session
    trusts no environment (then it is only the session's own proxies, verify and cert)."""
    if session.trust_env:
        return session.merge_environment_settings(url, {}, stream, None, None)
    proxies = {k: v for k, v in (session.proxies or {}).items() if v is not None}
    return {"proxies": proxies, "stream": stream, "verify": session.verify, "cert": session.cert}


class KubeClient:
    """HTTP verbs against one target. Paths are relative to the target's base URL (`/api/v1/...`)."""

    def __init__(self, base_url: str, session: requests.Session | None = None, *, profile: str = "kubernetes",
                 secrets: tuple[str, ...] = (), timeout: float = 30.0, recorder: Recorder = RECORDER) -> None:
        self.base_url = base_url.rstrip("/")
        self.session = session or requests.Session()
        self.profile = profile
        self._secrets = tuple(s for s in secrets if s)
        self.timeout = timeout
        self.recorder = recorder
        self.refusal_handlers: list[Callable[[str, str, requests.Response], bool]] = []
        self._lean = LeanTransport()  # loopback plain HTTP without requests' per-request cost (transport.py)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The configured secrets plus every token an exec/auth-provider plugin has handed out since."""
        seen = getattr(self.session.auth, "seen", ())
        return self._secrets + tuple(t for t in seen if t and t not in self._secrets)

    def add_refusal_handler(self, handler: Callable[[str, str, requests.Response], bool]) -> None:
        """`handler(method, path, response) -> bool`: True means "the refusal was transient and the handler has
        waited it out: send the request once more" (e.g. pods refused until the `default` ServiceAccount
        exists). Handlers see every response and must answer False quickly for all others."""
        self.refusal_handlers.append(handler)

    @classmethod
    def from_connection(cls, conn: "Connection", *, profile: str = "kubernetes", timeout: float = 30.0) -> "KubeClient":
        return cls(conn.base_url, conn.session, profile=profile, secrets=conn.secrets, timeout=timeout)

    def __repr__(self) -> str:
        return f"KubeClient({self.base_url!r}, profile={self.profile!r})"

    # ----------------------------------------------------------------- plumbing
    def url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        return self.base_url + ("" if path.startswith("/") else "/") + path

    def _prepare(self, method: str, path: str, *, json: Any = None, data: Any = None,
                 headers: Mapping[str, str] | None = None, params: Mapping[str, Any] | None = None,
                 content_type: str | None = None) -> requests.PreparedRequest:
        hdrs = dict(headers or {})
        body = data
        if json is not None:
            body = _json.dumps(json)
            hdrs.setdefault("Content-Type", content_type or "application/json")
        elif content_type is not None:
            hdrs["Content-Type"] = content_type
        if isinstance(body, str):
            body = body.encode("utf-8")
        query = {k: v for k, v in (params or {}).items() if v is not None}
        return prepare(self.session, method.upper(), self.url(path), hdrs, body, query)

    def _exchange(self, prep: requests.PreparedRequest) -> Exchange:
        parts = urlsplit(prep.url or "")
        sent = parts.path + (f"?{parts.query}" if parts.query else "")
        return Exchange(
            method=prep.method or "",
            url=_mask_url(prep.url or ""),
            path=sent,
            endpoint=endpoints.match(prep.method or "", sent, self.profile),
            status=None,
            duration_s=0.0,
            request_headers=mask_headers(dict(prep.headers)),
            request_body=_decode_body(prep.body, prep.headers.get("Content-Type"), self.secrets),
        )

    def send(self, prep: requests.PreparedRequest, *, timeout: float | tuple[float, float] | None = None,
             stream: bool = False) -> tuple[requests.Response, Exchange]:
        """Send a prepared request and record it; the response body is recorded unless streaming."""
        if timeout is None:
            from ..wait import scaled

            timeout = scaled(self.timeout)
        for attempt in range(MAX_RETRIES + 1):
            resp, ex = self._send_once(prep, timeout=timeout, stream=stream)
            wait = retry_after(resp)
            if wait is None or attempt == MAX_RETRIES:
                return resp, ex
            resp.close()
            _PAUSE.wait(min(wait, MAX_RETRY_AFTER_S))
        raise AssertionError("unreachable")  # pragma: no cover

    def _send_once(self, prep: requests.PreparedRequest, *, timeout: float | tuple[float, float],
                   stream: bool) -> tuple[requests.Response, Exchange]:
        ex = self._exchange(prep)
        started = time.monotonic()
        # A stream gets a connection of its own: requests' pool is not thread-safe, and a watch read by a
        # background thread must never hand its socket back to the pool ordinary requests draw from.
        session = self._stream_session() if stream else self.session
        try:
            resp = None if stream else self._lean.send(session, prep, timeout)
            if resp is None:
                resp = session.send(prep, timeout=timeout, **send_settings(session, prep.url or "", stream))
        except requests.RequestException as exc:
            if session is not self.session:
                session.close()
            ex.duration_s = round(time.monotonic() - started, 6)
            msg = describe_connection_error(self.base_url, exc)
            ex.error = mask_text(msg, self.secrets)
            self.recorder.record(ex)
            raise TargetUnreachable(msg) from None
        if session is not self.session:
            resp._nsconform_session = session  # type: ignore[attr-defined]  # closed with the stream
        ex.status = resp.status_code
        ex.response_headers = mask_headers(dict(resp.headers))
        if not stream:
            ex.response_body = _decode_body(resp.content, resp.headers.get("Content-Type"), self.secrets)
        ex.duration_s = round(time.monotonic() - started, 6)
        self.recorder.record(ex)
        return resp, ex

    def new_session(self) -> requests.Session:
        """A fresh session with the client's credentials and TLS settings, unrecorded: for bulk traffic
        (the scale suite's thousands of creates) and timings that must not include the recorder."""
        return self._stream_session()

    def _stream_session(self) -> requests.Session:
        """A session with the same credentials and TLS settings as the client's, and its own pool."""
        clone = requests.Session()
        for attr in ("headers", "auth", "cert", "verify", "proxies", "trust_env", "hooks", "params"):
            setattr(clone, attr, getattr(self.session, attr))
        use_server_name(clone, server_name_of(self.session))
        return clone

    # ----------------------------------------------------------------- verbs
    def request(self, method: str, path: str, *, json: Any = None, data: Any = None,
                headers: Mapping[str, str] | None = None, params: Mapping[str, Any] | None = None,
                content_type: str | None = None, timeout: float | None = None) -> requests.Response:
        """Send one request; never raises on an HTTP status."""
        prep = self._prepare(method, path, json=json, data=data, headers=headers, params=params,
                             content_type=content_type)
        resp, _ = self.send(prep, timeout=timeout)
        if any(handler(prep.method or method, path, resp) for handler in self.refusal_handlers):
            resp, _ = self.send(prep.copy(), timeout=timeout)
        return resp

    def get(self, path: str, **kw: Any) -> requests.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> requests.Response:
        return self.request("POST", path, json=body, **kw)

    def put(self, path: str, body: Any = None, **kw: Any) -> requests.Response:
        return self.request("PUT", path, json=body, **kw)

    def patch(self, path: str, body: Any = None, patch_type: str = "merge", **kw: Any) -> requests.Response:
        """`patch_type` is merge|json|strategic|apply or a full content type."""
        content_type = PATCH_TYPES.get(patch_type, patch_type)
        if content_type == PATCH_TYPES["apply"] and not isinstance(body, (str, bytes)):
            kw.setdefault("data", _json.dumps(body))  # JSON is valid YAML
            return self.request("PATCH", path, content_type=content_type, **kw)
        return self.request("PATCH", path, json=body, content_type=content_type, **kw)

    def delete(self, path: str, body: Any = None, **kw: Any) -> requests.Response:
        return self.request("DELETE", path, json=body, **kw)

    def verb(self, method: str, path: str, body: Any = None, **kw: Any) -> requests.Response:
        """For profile-dependent verbs such as `paths.finalize_method`."""
        return self.request(method, path, json=body, **kw)

    def watch(self, path: str, params: Mapping[str, Any] | None = None, timeout_s: float | None = None,
              *, resume: bool = True, headers: Mapping[str, str] | None = None) -> "WatchStream":
        """Open a watch stream; see `WatchStream`. `timeout_s` bounds how long the socket may stay silent;
        `headers` go with every (re-)open (e.g. impersonation)."""
        from .watch import WatchStream

        return WatchStream(self, path, params=params, read_timeout=timeout_s, resume=resume, headers=headers)

    def close(self) -> None:
        self._lean.close()
        self.session.close()


def query_string(params: Mapping[str, Any]) -> str:
    return urlencode({k: v for k, v in params.items() if v is not None})
