"""Waiting for a server to reach a state, without `sleep`.

The waiter watches the object's collection narrowed by `fieldSelector=metadata.name=<n>` (fast), and
re-reads the object with a GET whenever the watch stays silent for a bounded interval (robust: the
server's watch is itself under test, so a wait must not depend on it being right). Timeouts are
scaled by `--timeout-scale`; on expiry `WaitTimeout` says what was last seen, since "timed out"
alone does not tell a reader whether the namespace was stuck Terminating or never deleted.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .client.api import KubeClient
    from .endpoints import Paths

__all__ = ["WaitTimeout", "Waiter", "scaled", "set_timeout_scale", "get_timeout_scale", "describe_object",
           "DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 60.0
_SCALE = 1.0


def set_timeout_scale(scale: float) -> None:
    """Set by the plugin from `--timeout-scale`; slow clusters need more than the defaults."""
    global _SCALE
    if scale <= 0:
        raise ValueError("timeout scale must be > 0")
    _SCALE = float(scale)


def get_timeout_scale() -> float:
    return _SCALE


def scaled(timeout: float) -> float:
    return float(timeout) * _SCALE


class WaitTimeout(AssertionError):
    """A wait expired. An AssertionError so that pytest reports a failure (the server did not get
    there), not an error in the harness. `last_seen` is the last state observed (None = absent)."""

    def __init__(self, message: str, *, last_seen: Any = None, events: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.last_seen = last_seen
        self.events = events or []


def describe_object(obj: Any) -> str:
    """Phase, finalizers, deletionTimestamp and conditions: what explains a stuck namespace."""
    if obj is None:
        return "absent (404)"
    if not isinstance(obj, dict):
        return repr(obj)[:300]
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
    bits = [f"{obj.get('kind') or 'object'} {meta.get('name', '?')}"]
    if status.get("phase"):
        bits.append(f"phase={status['phase']}")
    if meta.get("deletionTimestamp"):
        bits.append(f"deletionTimestamp={meta['deletionTimestamp']}")
    if "finalizers" in spec:
        bits.append(f"spec.finalizers={spec.get('finalizers')}")
    elif obj.get("kind") == "Namespace":
        bits.append("no spec.finalizers")  # what the default-finalizer clause is about
    if meta.get("finalizers"):
        bits.append(f"metadata.finalizers={meta['finalizers']}")
    conds = status.get("conditions") or []
    if conds:
        shown = [f"{c.get('type')}={c.get('status')}" + (f" ({c.get('message')})" if c.get("message") else "")
                 for c in conds if isinstance(c, dict)]
        bits.append("conditions=[" + "; ".join(shown) + "]")
    if meta.get("resourceVersion"):
        bits.append(f"rv={meta['resourceVersion']}")
    return ", ".join(bits)


class Waiter:
    """Wait helpers on one client. `poll_interval` bounds how long a silent watch goes unchecked."""

    def __init__(self, client: "KubeClient", paths: "Paths | None" = None, *, default_timeout: float = DEFAULT_TIMEOUT,
                 poll_interval: float = 1.0, use_watch: bool = True) -> None:
        from .endpoints import Paths

        self.client = client
        self.paths = paths or Paths(getattr(client, "profile", "kubernetes"))
        self.default_timeout = default_timeout
        self.poll_interval = poll_interval
        self.use_watch = use_watch
        self._idle = threading.Event()  # never set: its wait() is an interruptible bounded pause

    # ------------------------------------------------------------------ public API
    def until(self, path: str, predicate: Callable[[dict[str, Any]], bool], what: str,
              timeout: float | None = None) -> dict[str, Any]:
        """Wait until the object at `path` exists and satisfies `predicate`; returns it."""
        result = self._wait(path, lambda obj: obj is not None and bool(predicate(obj)), what, timeout)
        assert result is not None
        return result

    def until_or_gone(self, path: str, predicate: Callable[[dict[str, Any]], bool], what: str,
                      timeout: float | None = None) -> dict[str, Any] | None:
        """Like `until`, but an object that disappears ends the wait at once (returns None), so a server
        that deletes too early fails fast instead of after the whole timeout."""
        return self._wait(path, lambda obj: obj is None or bool(predicate(obj)), what, timeout)

    def until_gone(self, path: str, timeout: float | None = None) -> None:
        """Wait until GET `path` answers 404."""
        self._wait(path, lambda obj: obj is None, f"{path} to be gone", timeout)

    def namespace_phase(self, name: str, phase: str, timeout: float | None = None) -> dict[str, Any]:
        return self.until(self.paths.namespace(name),
                          lambda o: (o.get("status") or {}).get("phase") == phase,
                          f"namespace {name} to reach phase {phase}", timeout)

    def namespace_gone(self, name: str, timeout: float | None = None) -> None:
        self._wait(self.paths.namespace(name), lambda obj: obj is None, f"namespace {name} to be gone", timeout)

    # ------------------------------------------------------------------ implementation
    def _get(self, path: str) -> tuple[bool, Any]:
        """(known, object-or-None). Unknown when the server answers neither 200 nor 404."""
        resp = self.client.get(path)
        if resp.status_code == 404:
            return True, None
        if resp.status_code == 200:
            try:
                return True, resp.json()
            except ValueError:
                return False, None
        return False, None

    def _wait(self, path: str, test: Callable[[Any], bool], what: str, timeout: float | None) -> Any:
        limit = scaled(timeout if timeout is not None else self.default_timeout)
        deadline = time.monotonic() + limit
        known, state = self._get(path)
        seen_any = known
        if known and test(state):
            return state
        stream = None
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                if stream is None and self.use_watch:
                    stream = self._open_watch(path)
                if stream is not None:
                    ev = stream.next_event(min(remaining, self.poll_interval))
                    if ev is not None:
                        kind = ev.get("type")
                        if kind in ("ADDED", "MODIFIED") and isinstance(ev.get("object"), dict):
                            state, seen_any = ev["object"], True
                        elif kind == "DELETED":
                            state, seen_any = None, True
                        elif kind in ("ERROR", "MALFORMED"):
                            stream.close()
                            stream = None
                        if seen_any and kind in ("ADDED", "MODIFIED", "DELETED") and test(state):
                            return state
                        continue
                    if stream.ended:
                        stream.close()
                        stream = None
                else:
                    self._idle.wait(min(remaining, self.poll_interval))
                # The watch was silent for poll_interval (or is unavailable): re-read the object.
                k, s = self._get(path)
                if k:
                    known, state, seen_any = True, s, True
                    if test(state):
                        return state
        finally:
            if stream is not None:
                stream.close()
        last = describe_object(state) if seen_any else "nothing (the server never answered 200 or 404)"
        raise WaitTimeout(f"timed out after {limit:g}s waiting for {what}; last seen: {last}", last_seen=state)

    def _open_watch(self, path: str) -> Any:
        from .client import TargetUnreachable

        # No resourceVersion: the server starts with the current state (synthetic ADDED), which never
        # fails as "too old"; the gap between our GET and the watch is closed by the polling GET.
        wpath, params = self.paths.watch_for(path)
        try:
            stream = self.client.watch(wpath, params=params, timeout_s=max(self.poll_interval * 30, 30.0))
        except TargetUnreachable:
            return None
        if stream.status_code != 200:
            stream.close()
            self.use_watch = False  # this server does not serve the watch: poll from now on
            return None
        return stream
