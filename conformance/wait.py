"""Waiting for a server to reach a state, without `sleep`.

The waiter watches the object's collection narrowed by `fieldSelector=metadata.name=<n>` (fast), and
re-reads the object with a GET whenever the watch stays silent for a bounded interval (robust: the
server's watch is itself under test, so a wait must not depend on it being right). Timeouts are
scaled by `--timeout-scale`; on expiry `WaitTimeout` says what was last seen, since "timed out"
alone does not tell a reader whether the namespace was stuck Terminating or never deleted.

A wait that *cannot* succeed ends at once: a caller passes `give_up`, a function of the observed state
that names the logical impossibility (the object is gone; the finalizer was never there), and
`also`, other objects whose state makes the wait hopeless (the namespace whose controller would act is
gone). Never impatience: a slow controller is not a hopeless one, so these look only at facts that no
amount of waiting can undo. The failure is `WaitHopeless`, a `WaitTimeout`, naming what was seen.

While a wait lasts longer than `PROGRESS_AFTER` seconds, the `progress` hook (set by the plugin) is told
what is awaited, for how long and what was last seen, so a console is never silent for minutes.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional

if TYPE_CHECKING:
    from .client.api import KubeClient
    from .endpoints import Paths

__all__ = ["WaitTimeout", "WaitHopeless", "Waiter", "scaled", "set_timeout_scale", "get_timeout_scale",
           "describe_object", "DEFAULT_TIMEOUT", "GiveUp", "gone", "no_controller_for_content",
           "terminating_without_finalizers",
           "WaitProgress", "set_progress", "track_progress", "PROGRESS_AFTER"]

DEFAULT_TIMEOUT = 60.0
PROGRESS_AFTER = 2.0
"""Seconds a wait may last before the progress hook hears of it."""
_SCALE = 1.0

GiveUp = Callable[[Any], Optional[str]]
"""State observed (a dict, or None when absent) -> why the wait can no longer succeed, or None."""


@dataclass
class WaitProgress:
    """What a running (or just finished) wait is about; handed to the progress hook."""

    what: str
    elapsed: float
    limit: float
    last_seen: str
    done: bool = False
    outcome: str = ""  # when done: "met", "timed out" or "gave up"


_PROGRESS: Callable[[WaitProgress], None] | None = None


def set_progress(hook: Callable[[WaitProgress], None] | None) -> None:
    """Install the hook that hears of long waits (the plugin: a console line; None: silence)."""
    global _PROGRESS
    _PROGRESS = hook


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


class WaitHopeless(WaitTimeout):
    """A wait ended before its timeout because what was seen makes success impossible (`reason`)."""

    def __init__(self, message: str, *, reason: str, last_seen: Any = None) -> None:
        super().__init__(message, last_seen=last_seen)
        self.reason = reason


def gone(obj: Any) -> str | None:
    """Give-up predicate for a wait on an object's state: the object was deleted."""
    return "it is gone (404)" if obj is None else None


def terminating_without_finalizers(ns: Any) -> str | None:
    """Give-up predicate while waiting for a namespace to disappear (kubernetes profile): it is
    terminating with empty spec.finalizers and metadata.finalizers. kube-apiserver removes a namespace in
    the very write that empties its last finalizer (ShouldDeleteNamespaceDuringUpdate), and the namespace
    controller returns early on a namespace without `kubernetes` (deleter.go `finalized`), so a conformant
    server never stores this state and nothing will ever change it."""
    if not isinstance(ns, dict):
        return None
    meta = ns.get("metadata") or {}
    spec = ns.get("spec") if isinstance(ns.get("spec"), dict) else {}
    if meta.get("deletionTimestamp") and not spec.get("finalizers") and not meta.get("finalizers"):
        return ("it is terminating with empty spec.finalizers and metadata.finalizers, a state no controller "
                "acts on (kube-apiserver removes a namespace in the write that empties its last finalizer)")
    return None


def no_controller_for_content(name: str, profile: str = "kubernetes") -> GiveUp:
    """Give-up predicate on namespace `name` while waiting for the namespace controller to delete its content:
    the namespace is gone (404), or it is terminating without the `kubernetes` finalizer. The controller
    deletes content only of a namespace that still carries `kubernetes` (deleter.go returns early when
    `finalized`), and removes `kubernetes` only once the content is gone, so neither state lets it act.
    The second rule is upstream's: on the design profile only a gone namespace ends the wait."""
    def check(ns: Any) -> str | None:
        if ns is None:
            return f"namespace {name} is gone (404), so no namespace controller will act on its content"
        if not isinstance(ns, dict):
            return None
        fins = (ns.get("spec") or {}).get("finalizers") or [] if isinstance(ns.get("spec"), dict) else []
        if profile == "kubernetes" and (ns.get("metadata") or {}).get("deletionTimestamp") \
                and "kubernetes" not in fins:
            return (f"namespace {name} is terminating without the `kubernetes` finalizer (spec.finalizers "
                    f"{fins}), so the namespace controller will not delete its content")
        return None
    return check


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
              timeout: float | None = None, *, give_up: GiveUp | None = None,
              also: Iterable[tuple[str, GiveUp]] = ()) -> dict[str, Any]:
        """Wait until the object at `path` exists and satisfies `predicate`; returns it.

        `give_up(state)` and `also` [(path, give_up)] name states that make success impossible: the wait
        then raises `WaitHopeless` at once instead of sitting out its timeout."""
        __tracebackhide__ = True
        result = self._wait(path, lambda obj: obj is not None and bool(predicate(obj)), what, timeout,
                            give_up=give_up, also=also)
        assert result is not None
        return result

    def until_or_gone(self, path: str, predicate: Callable[[dict[str, Any]], bool], what: str,
                      timeout: float | None = None, *, give_up: GiveUp | None = None,
                      also: Iterable[tuple[str, GiveUp]] = ()) -> dict[str, Any] | None:
        """Like `until`, but an object that disappears ends the wait at once (returns None), so a server
        that deletes too early fails fast instead of after the whole timeout."""
        __tracebackhide__ = True
        return self._wait(path, lambda obj: obj is None or bool(predicate(obj)), what, timeout,
                          give_up=give_up, also=also)

    def until_gone(self, path: str, timeout: float | None = None, *, give_up: GiveUp | None = None) -> None:
        """Wait until GET `path` answers 404."""
        __tracebackhide__ = True
        self._wait(path, lambda obj: obj is None, f"{path} to be gone", timeout, give_up=give_up)

    def namespace_phase(self, name: str, phase: str, timeout: float | None = None, *,
                        give_up: GiveUp | None = None) -> dict[str, Any]:
        __tracebackhide__ = True
        return self.until(self.paths.namespace(name),
                          lambda o: (o.get("status") or {}).get("phase") == phase,
                          f"namespace {name} to reach phase {phase}", timeout, give_up=give_up)

    def namespace_gone(self, name: str, timeout: float | None = None, *, give_up: GiveUp | None = None) -> None:
        __tracebackhide__ = True
        self._wait(self.paths.namespace(name), lambda obj: obj is None, f"namespace {name} to be gone", timeout,
                   give_up=give_up)

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

    def _wait(self, path: str, test: Callable[[Any], bool], what: str, timeout: float | None, *,
              give_up: GiveUp | None = None, also: Iterable[tuple[str, GiveUp]] = ()) -> Any:
        __tracebackhide__ = True
        limit = scaled(timeout if timeout is not None else self.default_timeout)
        started = time.monotonic()
        deadline = started + limit
        others = list(also)
        progress = _Progress(what, started, limit)
        known, state = self._get(path)
        seen_any = known
        if known and test(state):
            return state
        hopeless = self._hopeless(known, state, give_up, others)
        stream = None
        outcome = "timed out"
        try:
            while hopeless is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                progress.tick(state if seen_any else _UNSEEN)
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
                        if seen_any and kind in ("ADDED", "MODIFIED", "DELETED"):
                            if test(state):
                                outcome = "met"
                                return state
                            hopeless = self._hopeless(True, state, give_up, ())
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
                        outcome = "met"
                        return state
                hopeless = self._hopeless(k, state, give_up, others)
        finally:
            if stream is not None:
                stream.close()
            if hopeless is not None:
                outcome = "gave up"
            progress.finish(outcome, state if seen_any else _UNSEEN)
        last = describe_object(state) if seen_any else "nothing (the server never answered 200 or 404)"
        if hopeless is not None:
            elapsed = time.monotonic() - started
            raise WaitHopeless(f"gave up after {elapsed:.1f}s (of {limit:g}s) waiting for {what}: it cannot "
                               f"succeed, {hopeless}; last seen: {last}", reason=hopeless, last_seen=state)
        raise WaitTimeout(f"timed out after {limit:g}s waiting for {what}; last seen: {last}", last_seen=state)

    def _hopeless(self, known: bool, state: Any, give_up: GiveUp | None,
                  others: list[tuple[str, GiveUp]]) -> str | None:
        """Why the wait cannot succeed, from the waited object's state and the other objects', or None."""
        if known and give_up is not None:
            why = give_up(state)
            if why:
                return why
        for other_path, check in others:
            k, other = self._get(other_path)
            if k:
                why = check(other)
                if why:
                    return why
        return None

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


_UNSEEN = object()


def track_progress(what: str, limit: float) -> "_Progress":
    """A wait of the caller's own (not a `Waiter`'s) shown as `Waiter` waits are: `tick(seen)` while it lasts,
    `finish(outcome, seen)` at its end; `seen` is an object (described) or a short text."""
    return _Progress(what, time.monotonic(), limit)


class _Progress:
    """Tells the progress hook about a wait once it has lasted PROGRESS_AFTER seconds (then each second)."""

    def __init__(self, what: str, started: float, limit: float) -> None:
        self.what, self.started, self.limit = what, started, limit
        self.announced = False
        self.next_at = started + PROGRESS_AFTER

    def _send(self, state: Any, done: bool = False, outcome: str = "") -> None:
        hook = _PROGRESS
        if hook is None:
            return
        seen = "nothing yet" if state is _UNSEEN else state if isinstance(state, str) else describe_object(state)
        try:
            hook(WaitProgress(self.what, time.monotonic() - self.started, self.limit, seen, done, outcome))
        except Exception:  # noqa: BLE001 - a display problem must never fail a wait
            pass

    def tick(self, state: Any) -> None:
        now = time.monotonic()
        if now >= self.next_at:
            self.announced = True
            self.next_at = now + 1.0
            self._send(state)

    def finish(self, outcome: str, state: Any) -> None:
        if self.announced or time.monotonic() - self.started >= PROGRESS_AFTER:
            self._send(state, done=True, outcome=outcome)
