"""Recordings that mostly wait, run in a thread while other tests run.

A few clauses need a history that takes wall time to become observable, whatever the server's speed: a watch's
BOOKMARK (kube-apiserver sends it 2 s before the watch's deadline, so a second after it opens at the soonest), a
stream's quiet tail (nothing stray may follow the last expected event), the namespace controller deleting a
namespace's content (seconds on a real cluster). A suite starts such a recording when its module starts, as a
session-scoped fixture holding a `Background`, and reads it from tests marked `background`, which a serial run
moves to its end (conformance/scheduling.py): the waiting then overlaps the rest of the run instead of holding
it up. The recording does its own reading, resuming and settling in the thread, right when its events arrive
(a resume minutes later could find the history compacted on a real cluster); the tests only judge what it
recorded.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Generic, TypeVar

import pytest

from .wait import scaled, track_progress

__all__ = ["Background", "MARK", "start_with_module"]

T = TypeVar("T")

MARK = "background"
"""The marker of a test that reads a `Background` recording (scheduling.py runs it last in a serial run)."""


class Background(Generic[T]):
    """`work(closing)` run in a daemon thread from construction on; `closing(stream)` registers what `close`
    shuts (its watch streams), so a session ending early (a failure, Ctrl-C) never leaves the thread reading."""

    def __init__(self, what: str, work: Callable[[Callable[[Any], Any]], T]) -> None:
        self.what = what
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


def start_with_module(request: pytest.FixtureRequest, *names: str) -> None:
    """Start the module's recordings (`names`: session fixtures holding a `Background`) with its first test, in
    a serial run and when a selected test reads them. Under xdist the first reader on its worker starts them:
    the module's other tests may run on another worker, which must not record for nothing."""
    if hasattr(request.config, "workerinput"):
        return
    wanted = {name for item in request.session.items if getattr(item, "module", None) is request.module
              for name in getattr(item, "fixturenames", ()) if name in names}
    for name in names:
        if name in wanted:
            request.getfixturevalue(name)
