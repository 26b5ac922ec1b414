"""`WithTimeoutForNonLongRunningRequests` (`staging/src/k8s.io/apiserver/pkg/server/filters/timeout.go`): a
request that is not long-running is cut off after `--request-timeout`.

One timer serves every request in flight, instead of one `asyncio.timeout` each (a timer armed and cancelled
per request, and three running-loop look-ups: about 5 µs of a GET). It ticks a tenth of the timeout apart, at most
a second, while requests are in flight, so a request ends between its deadline and one tick later (upstream: at
its deadline); the timeout is a minute unless the server is told otherwise.

A request's `?timeout=` is `WithRequestDeadline`'s (`staging/src/k8s.io/apiserver/pkg/endpoints/filters/
request_deadline.go`, outside authentication): read with Go's `time.ParseDuration` (godur.py), a value that does not
parse answered 400 `invalid timeout specified in the request URL - <Go's error>`; a positive one shorter than
--request-timeout is the request's deadline (its own timer, a per-request cost paid only when it is asked for), zero or
negative leave the server's ("no timeout on the user's part").
"""
from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from .. import apierrors as E
from ..goport.godur import DurationError, parse_duration

INVALID_TIMEOUT = "invalid timeout specified in the request URL"
LONG_RUNNING_SUBRESOURCES = frozenset({"attach", "exec", "proxy", "log", "portforward"})
_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})
_MARKERS = "|".join(sorted(LONG_RUNNING_SUBRESOURCES))
_HAS_MARKER = re.compile(f"/(?:{_MARKERS})").search
# `maybe_long_running(raw_target) is None`: the raw request target (path and query) holds no watch (path or query),
# no connect subresource or proxy verb and no percent-escape that may hide one: not long-running, decided with one
# scan (the common case); else the precise checks tell
maybe_long_running = re.compile(f"watch|%|/(?:{_MARKERS})").search


def long_running_path(path: str) -> bool:
    """`BasicLongRunningRequestCheck(watch, proxy; attach, exec, proxy, log, portforward)` on the request's path
    (RequestInfo's reading of it, without the query's `watch`): the legacy `proxy` verb, or one of those
    subresources of a resource (`pods/exec`, `services/proxy`, `nodes/proxy`, ...). No deadline for them."""
    if _HAS_MARKER(path) is None:
        return False  # the common case, decided without splitting
    parts = path.strip("/").split("/")
    if parts[0] == "api" and len(parts) > 1:
        parts = parts[2:]
    elif parts[0] == "apis" and len(parts) > 2:
        parts = parts[3:]
    else:
        return False
    if parts and parts[0] == "proxy":
        return True
    if len(parts) > 2 and parts[0] == "namespaces" and parts[2] not in _NAMESPACE_SUBRESOURCES:
        parts = parts[2:]
    return len(parts) > 2 and parts[2] in LONG_RUNNING_SUBRESOURCES


def requested_timeout(request: Any) -> float | None:
    """`parseTimeout`: the `?timeout=` in seconds when it shortens the deadline (positive), None when absent, empty,
    zero or negative; StatusError 400 when Go cannot parse it."""
    value = request.query.get("timeout")
    if not value:
        return None
    try:
        ns = parse_duration(value)
    except DurationError as exc:
        raise E.bad_request(f"{INVALID_TIMEOUT} - {exc}") from None
    return ns / 1e9 if ns > 0 else None


class Deadlines:
    """Deadlines of `timeout` seconds for requests in flight (`arm`, `timed_out`, `disarm`), each kept by the
    request's task: the server's own in `_live` (one dict entry a request, swept by one timer), a shorter
    `?timeout=` by a timer of its own in `_timers`; a task either cancelled is in `_expired` until disarmed."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self.tick = min(1.0, timeout / 10)
        self._live: dict[asyncio.Task, float] = {}  # a request's task → its deadline (the server's timeout)
        self._timers: dict[asyncio.Task, asyncio.TimerHandle] = {}  # a request's task → its `?timeout=`'s timer
        self._expired: set[asyncio.Task] = set()  # tasks a deadline cancelled, until disarmed
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def arm(self, request: Any, timeout: float | None = None) -> asyncio.Task:
        """The deadline of the request being served (its task is cancelled once it passed): `timeout` seconds (a
        `?timeout=`) when shorter than the server's; `disarm` it when the request ends, and ask `timed_out` when
        the handler raised CancelledError."""
        loop = self._loop
        if loop is None:
            loop = self._loop = request.task.get_loop()  # (`request.task` is the connection's)
        task = asyncio.current_task(loop)  # (with the loop: no look-up)
        if timeout is not None and timeout < self.timeout:
            self._timers[task] = loop.call_later(timeout, self._expire, task)
            return task
        self._live[task] = time.monotonic() + self.timeout
        if self._timer is None:
            self._timer = loop.call_later(self.tick, self._sweep)
        return task

    def timed_out(self, task: asyncio.Task) -> bool:
        """After a CancelledError: True when the deadline alone cancelled it (a time-out, as `asyncio.timeout`
        turns it into TimeoutError), False when someone else did too (the client went away): re-raise then."""
        if task not in self._expired:
            return False
        self._expired.discard(task)
        return task.uncancel() == 0

    def disarm(self, task: asyncio.Task) -> None:
        if self._live.pop(task, None) is None:
            timer = self._timers.pop(task, None)
            if timer is not None:
                timer.cancel()
        if self._expired and task in self._expired:  # the handler swallowed our cancellation
            self._expired.discard(task)
            task.uncancel()

    def _expire(self, task: asyncio.Task) -> None:
        self._timers.pop(task, None)
        self._expired.add(task)
        task.cancel()

    def _sweep(self) -> None:
        self._timer = None
        if not self._live:
            return
        now = time.monotonic()
        expired = self._expired
        for task, at in self._live.items():
            if at <= now and task not in expired:
                expired.add(task)
                task.cancel()
        self._timer = self._loop.call_later(self.tick, self._sweep)  # type: ignore[union-attr]
