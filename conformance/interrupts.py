"""Ctrl-C and a CI cancel must end a run the same way: teardown runs, the run's namespaces are swept, and
pytest reports "KeyboardInterrupt" rather than crashing while it describes where the signal landed."""
from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any, Callable

_Handler = Callable[[int, "FrameType | None"], Any] | int | None


class InterruptWatch:
    """Remembers that SIGINT or SIGTERM arrived, even when the KeyboardInterrupt it raises is later lost
    (pytest's own report of it can fail; a signal during session finish escapes pytest's handler)."""

    def __init__(self) -> None:
        self.seen = threading.Event()
        self._previous: dict[int, _Handler] = {}

    def install(self) -> None:
        """SIGTERM becomes KeyboardInterrupt; SIGINT keeps Python's behaviour but is noted. Main thread only."""
        if threading.current_thread() is not threading.main_thread():
            return
        for signum, replaceable in ((signal.SIGTERM, (signal.SIG_DFL,)),
                                    (signal.SIGINT, (signal.default_int_handler,))):
            try:
                current = signal.getsignal(signum)
                if current in replaceable:
                    self._previous[signum] = current
                    signal.signal(signum, self._on_signal)
            except (ValueError, OSError, AttributeError):  # pragma: no cover - platform without the signal
                pass

    def uninstall(self) -> None:
        """Give the handlers back (pytest.main may run again in the same process)."""
        for signum, previous in self._previous.items():
            try:
                if signal.getsignal(signum) == self._on_signal:
                    signal.signal(signum, previous)
            except (ValueError, OSError):  # pragma: no cover
                pass
        self._previous.clear()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.seen.set()
        if signum == signal.SIGTERM:  # a second SIGTERM kills at once, as without us
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise KeyboardInterrupt


def drop_lineless_frames(exc: BaseException | None) -> None:
    """Unlink traceback entries without a line number (CPython 3.11+ reports None for some frames, e.g.
    inside a comprehension), from `exc` and the exceptions it chains. pytest's traceback formatter does
    `tb_lineno - 1` and dies with TypeError on them (pytest-dev/pytest-xdist#1196), which turns a clean
    Ctrl-C into a crash that skips the interrupt summary."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        tb: TracebackType | None = exc.__traceback__
        while tb is not None and tb.tb_lineno is None:  # the head itself
            tb = tb.tb_next
        if tb is not exc.__traceback__:
            exc.__traceback__ = tb
        while tb is not None:
            nxt = tb.tb_next
            while nxt is not None and nxt.tb_lineno is None:
                nxt = nxt.tb_next
            if nxt is not tb.tb_next:
                tb.tb_next = nxt
            tb = nxt
        exc = exc.__cause__ or exc.__context__
