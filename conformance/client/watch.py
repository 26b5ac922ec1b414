"""WatchStream: read a Kubernetes watch (chunked, newline-separated JSON events) without blocking forever.

A background thread reads the socket and queues events, so the consumer can ask "the next event
within N seconds" cleanly. If the connection *drops* (reset, premature end of the chunked body, socket
silent longer than the read timeout) the stream re-opens from the last resourceVersion it saw, as
client-go's reflector does; a *clean* end of the stream (timeoutSeconds, an ERROR event) ends it,
because the end itself may be what a test checks.
"""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

import requests

from . import TargetUnreachable
from .exchange import mask_secret_data

if TYPE_CHECKING:
    from .api import KubeClient
    from .exchange import Exchange

__all__ = ["WatchStream", "describe_event"]

_END = object()
MAX_RECORDED_EVENTS = 200
MAX_RESUMES = 5


def describe_event(ev: Mapping[str, Any]) -> str:
    """`MODIFIED nsc-a-x1y2z rv=12 phase=Terminating` — for timeout messages."""
    obj = ev.get("object") or {}
    if not isinstance(obj, dict):
        return str(ev.get("type"))
    meta = obj.get("metadata") or {}
    bits = [str(ev.get("type")), str(meta.get("name") or obj.get("kind") or "")]
    if meta.get("resourceVersion"):
        bits.append(f"rv={meta['resourceVersion']}")
    phase = (obj.get("status") or {}).get("phase") if isinstance(obj.get("status"), dict) else None
    if phase:
        bits.append(f"phase={phase}")
    if ev.get("type") == "ERROR":
        bits.append(f"code={obj.get('code')} reason={obj.get('reason')} message={obj.get('message')!r}")
    return " ".join(b for b in bits if b)


class WatchStream:
    """Iterator of `{"type", "object"}` events from one watch request.

    `status_code` is the HTTP status of the (first) response; a non-200 watch yields no events and its
    body is in `error_body`. `seen` keeps every event delivered so far, `reconnects` counts resumes.
    """

    def __init__(self, client: "KubeClient", path: str, params: Mapping[str, Any] | None = None,
                 read_timeout: float | None = None, resume: bool = True,
                 headers: Mapping[str, str] | None = None) -> None:
        self.client = client
        self.path = path
        self.params: dict[str, Any] = dict(params or {})
        self.request_headers: dict[str, str] = dict(headers or {})
        self.read_timeout = float(read_timeout) if read_timeout else 60.0
        self.resume = resume
        self.last_resource_version: str | None = self.params.get("resourceVersion")
        self.seen: list[dict[str, Any]] = []
        self.reconnects = 0
        self.ended = False
        self.end_reason: str | None = None
        self.status_code: int | None = None
        self.headers: Mapping[str, str] = {}
        self.error_body: Any = None
        self._q: queue.Queue[Any] = queue.Queue()
        self._closed = threading.Event()
        self._resp: requests.Response | None = None
        self._lock = threading.Lock()
        resp, ex = self._open(first=True)
        self.status_code = resp.status_code
        self.headers = resp.headers
        if resp.status_code != 200:
            self.error_body = ex.response_body = _json_or_text(resp)
            _close(resp)
            self._finish("http-status")
            return
        self._thread = threading.Thread(target=self._reader, args=(resp, ex), name=f"watch {path}", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ connection
    def _open(self, first: bool) -> "tuple[requests.Response, Exchange]":
        params = dict(self.params)
        if not first and self.last_resource_version:
            params["resourceVersion"] = self.last_resource_version
        prep = self.client._prepare("GET", self.path, params=params, headers=self.request_headers)
        resp, ex = self.client.send(prep, timeout=(10.0, self.read_timeout), stream=True)
        ex.response_body = {"events": []}
        with self._lock:
            self._resp = resp
        return resp, ex

    def _reader(self, resp: requests.Response, ex: "Exchange") -> None:
        while not self._closed.is_set():
            outcome = self._pump(resp, ex)
            if self._closed.is_set() or outcome == "closed":
                break
            if outcome in ("eof", "error-event") or not self.resume:
                self._finish("dropped" if outcome.startswith("dropped") else outcome)
                return
            # The connection dropped (or stayed silent past the read timeout): resume from the last
            # resourceVersion. Only consecutive failed re-opens count against MAX_RESUMES.
            attempt = 0
            while True:
                self._closed.wait(min(0.1 * attempt, 1.0))  # bounded back-off, interruptible by close()
                if self._closed.is_set():
                    self._finish("closed")
                    return
                try:
                    resp, ex = self._open(first=False)
                    break
                except TargetUnreachable:
                    attempt += 1
                    if attempt > MAX_RESUMES:
                        self._finish("dropped")
                        return
            self.reconnects += 1
            if resp.status_code != 200:
                body = _json_or_text(resp)
                ex.response_body = body
                _close(resp)
                self._deliver({"type": "ERROR", "object": body if isinstance(body, dict) else {"message": body}}, ex)
                self._finish("error-event")
                return
        self._finish("closed")

    def _pump(self, resp: requests.Response, ex: "Exchange") -> str:
        """Read one connection until it ends; returns eof | error-event | dropped | events."""
        buf = b""
        got_events = False
        saw_error = False
        try:
            for chunk in resp.iter_content(chunk_size=None):
                if self._closed.is_set():
                    return "closed"
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip():
                        ev = self._parse(line)
                        got_events = True
                        saw_error = saw_error or ev.get("type") == "ERROR"
                        self._deliver(ev, ex)
            if buf.strip():
                ev = self._parse(buf)
                saw_error = saw_error or ev.get("type") == "ERROR"
                self._deliver(ev, ex)
            return "error-event" if saw_error else "eof"
        except (requests.RequestException, OSError, ValueError, AttributeError):
            if self._closed.is_set():
                return "closed"
            return "error-event" if saw_error else ("dropped" if not got_events else "dropped-after-events")
        finally:
            _close(resp)

    @staticmethod
    def _parse(line: bytes) -> dict[str, Any]:
        try:
            ev = json.loads(line)
        except ValueError:
            return {"type": "MALFORMED", "object": None, "raw": line.decode("utf-8", "replace")[:2000]}
        if not isinstance(ev, dict):
            return {"type": "MALFORMED", "object": None, "raw": line.decode("utf-8", "replace")[:2000]}
        return ev

    def _deliver(self, ev: dict[str, Any], ex: "Exchange") -> None:
        obj = ev.get("object")
        if ev.get("type") in ("ADDED", "MODIFIED", "DELETED", "BOOKMARK") and isinstance(obj, dict):
            rv = (obj.get("metadata") or {}).get("resourceVersion")
            if rv:
                self.last_resource_version = str(rv)
        body = ex.response_body
        if isinstance(body, dict) and len(body.get("events", [])) < MAX_RECORDED_EVENTS:
            body["events"].append({"type": ev.get("type"), "object": mask_secret_data(obj)})
        self._q.put(ev)

    def _finish(self, reason: str) -> None:
        if self.end_reason is None:
            self.end_reason = reason
        self._q.put(_END)

    # ------------------------------------------------------------------ consumer API
    def next_event(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next event, or None if none arrived within `timeout` s or the stream has ended."""
        if self.ended and self._q.empty():
            return None
        try:
            item = self._q.get(timeout=self.read_timeout if timeout is None else max(timeout, 0.0))
        except queue.Empty:
            return None
        if item is _END:
            self.ended = True
            return None
        self.seen.append(item)
        return item

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """Events until the stream ends or stays silent for `read_timeout` s."""
        while True:
            ev = self.next_event()
            if ev is None:
                return
            yield ev

    def until(self, predicate: Callable[[dict[str, Any]], bool], timeout: float | None = None,
              what: str = "a matching watch event") -> list[dict[str, Any]]:
        """Events up to and including the first that satisfies `predicate`; WaitTimeout otherwise."""
        __tracebackhide__ = True
        from ..wait import WaitTimeout, scaled

        limit = scaled(timeout if timeout is not None else 60.0)
        deadline = time.monotonic() + limit
        collected: list[dict[str, Any]] = []
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            ev = self.next_event(min(remaining, 1.0))
            if ev is None:
                if self.ended:
                    break
                continue
            collected.append(ev)
            if predicate(ev):
                return collected
        tail = "; ".join(describe_event(e) for e in collected[-10:]) or "no events"
        why = f"stream ended ({self.end_reason})" if self.ended else f"timed out after {limit:g}s"
        raise WaitTimeout(f"watch {self.path}: {why} waiting for {what}; {len(collected)} event(s) seen: {tail}",
                          last_seen=collected[-1] if collected else None, events=collected)

    def close(self) -> None:
        """Stop reading; unblocks the reader thread by shutting the socket down."""
        if self._closed.is_set():
            return
        self._closed.set()
        with self._lock:
            resp = self._resp
        if resp is not None:
            _shutdown(resp)
            _close(resp)
        self._finish("closed")

    def __enter__(self) -> "WatchStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass


def _close(resp: requests.Response) -> None:
    """Close the response and the session that owns its connection (see KubeClient.send)."""
    try:
        resp.close()
    except Exception:
        pass
    own = getattr(resp, "_nsconform_session", None)
    if own is not None:
        own.close()


def _shutdown(resp: requests.Response) -> None:
    raw = getattr(resp, "raw", None)
    for attr in ("_connection", "connection"):
        conn = getattr(raw, attr, None)
        sock = getattr(conn, "sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
    fp = getattr(raw, "_fp", None)
    try:
        sock = fp.fp.raw._sock  # type: ignore[union-attr]
        sock.shutdown(socket.SHUT_RDWR)
    except Exception:
        pass


def _json_or_text(resp: requests.Response) -> Any:
    try:
        return mask_secret_data(resp.json())
    except ValueError:
        return resp.text[:2000]
