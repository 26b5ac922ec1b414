"""Recordings that mostly wait, run in a thread while other tests run.

A few clauses need a history that takes wall time to become observable, whatever the server's speed: a watch's
BOOKMARK (kube-apiserver sends it 2 s before the watch's deadline, so a second after it opens at the soonest), a
stream's quiet tail (nothing stray may follow the last expected event), the namespace controller deleting a
namespace's content (seconds on a real cluster). A suite declares such a recording (`@recording(name, what)`) and
reads it from tests marked `background(name)` through the `background_recordings` fixture, which starts every
recording a selected test reads with the session's first test; scheduling.py runs the readers last, so the
waiting overlaps the rest of the run instead of holding it up. The recording does its own reading, resuming
and settling in the thread, right when its events arrive (a resume minutes later could find the history
compacted on a real cluster); the tests only judge what it recorded.
"""

from __future__ import annotations

import contextvars
import inspect
import threading
import time
from typing import Any, Callable, Generic, TypeVar

import pytest

from .client.exchange import RECORDER
from .wait import scaled, track_progress

__all__ = ["Background", "MARK", "Recordings", "recording", "spawn"]

T = TypeVar("T")

MARK = "background"
"""`@pytest.mark.background(name)`: the test reads the recording `name` (scheduling.py runs it last)."""

_DECLARED: dict[str, tuple[str, Callable[..., Any]]] = {}


def spawn(target: Callable[..., Any], *args: Any, name: str | None = None) -> threading.Thread:
    """A (daemon, not started) thread that runs in its starter's context: the exchanges of a thread a
    recording starts (its concurrent writers) are the recording's, as its own are."""
    return threading.Thread(target=contextvars.copy_context().run, args=(target, *args), name=name, daemon=True)


class Background(Generic[T]):
    """`work(closing)` run in a daemon thread from construction on; `closing(stream)` registers what `close`
    shuts (its watch streams), so a session ending early (a failure, Ctrl-C) never leaves the thread reading.
    Its exchanges (client.exchange.RECORDER) are kept apart from the tests that run meanwhile, and go to the
    first test that reads the result (its report, its clauses' coverage), as a fixture's would."""

    def __init__(self, what: str, work: Callable[[Callable[[Any], Any]], T]) -> None:
        self.what = what
        self._owner = f"<background: {what}>"
        self._work = work
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._open: list[Any] = []
        self._closed = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=f"nsconform-background {what}", daemon=True)
        self._thread.start()

    def _closing(self, stream: Any) -> Any:
        with self._lock:
            if not self._closed:
                self._open.append(stream)
                return stream
        stream.close()  # closed meanwhile: the work's next read ends at once
        return stream

    def _run(self) -> None:
        try:
            with RECORDER.owned_by(self._owner):
                self._value = self._work(self._closing)
        except BaseException as exc:  # noqa: BLE001 - handed to the test that reads the recording
            self._error = exc
        finally:
            self.close()
            self._done.set()

    def result(self, limit: float) -> T:
        """What the work returned, or raise what it raised; waits up to `limit` s (scaled), shown as a long
        wait after a couple of seconds."""
        limit = scaled(limit)
        progress = track_progress(f"the background recording of {self.what}", limit)
        deadline = time.monotonic() + limit
        while not self._done.wait(min(1.0, max(deadline - time.monotonic(), 0.0))):
            if time.monotonic() >= deadline:
                progress.finish("timed out", "still recording")
                raise AssertionError(f"{self.what}: the background recording did not end within {limit:.0f} s")
            progress.tick("still recording")
        progress.finish("met", "recorded")
        RECORDER.adopt(self._owner)
        if self._error is not None:
            raise self._error.with_traceback(None)
        return self._value

    def close(self) -> None:
        """Shut the recording's streams (its reads end; the thread then finishes on its own)."""
        with self._lock:
            self._closed = True
            streams, self._open = self._open, []
        for stream in streams:
            stream.close()


def recording(name: str, what: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Declare the recording `name` (`what`: how a wait or a failure names it): `work(<fixtures>..., closing)`,
    its parameters other than `closing` being session fixtures (`api`, `paths`, `target`, `profile`,
    `session_namespaces`, ...)."""
    def declare(work: Callable[..., T]) -> Callable[..., T]:
        _DECLARED[name] = (what, work)
        return work
    return declare


class Recordings:
    """A process's recordings, each started once: by `start_wanted` with the session's first test, or by the
    first `get` (under `--dist loadgroup`, where only the worker running the readers' group should record)."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request
        self._started: dict[str, Background[Any]] = {}

    def start_wanted(self, items: list[pytest.Item]) -> None:
        for name in dict.fromkeys(m.args[0] for item in items for m in item.iter_markers(MARK) if m.args):
            self.get(name)

    def get(self, name: str) -> Background[Any]:
        if name not in self._started:
            if name not in _DECLARED:
                raise pytest.UsageError(f"no background recording named {name!r} (declare it with @recording)")
            what, work = _DECLARED[name]
            kwargs = {p: self._request.getfixturevalue(p) for p in inspect.signature(work).parameters
                      if p != "closing"}
            self._started[name] = Background(what, lambda closing: work(closing=closing, **kwargs))
        return self._started[name]

    def close(self) -> None:
        for started in self._started.values():
            started.close()
