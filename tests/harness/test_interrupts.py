"""An interrupt is noted and always reportable (conformance/interrupts.py)."""
from __future__ import annotations

import contextlib
import signal
import sys
import types
from typing import Iterator

import pytest

from conformance.interrupts import InterruptWatch, drop_lineless_frames


def _interrupt_with_lineless_frame() -> KeyboardInterrupt:
    """A KeyboardInterrupt whose traceback has an entry CPython gives no line number (as the CI run had,
    inside urllib.request.getproxies_environment)."""
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as exc:
        tb = exc.__traceback__
        assert tb is not None
        lineless = types.TracebackType(None, sys._getframe(), 10**6, -1)
        assert lineless.tb_lineno is None
        tb.tb_next = lineless
        return exc


def test_pytest_can_describe_the_interrupt_once_lineless_frames_are_dropped() -> None:
    exc = _interrupt_with_lineless_frame()
    context = ValueError("while handling")
    context.__traceback__ = types.TracebackType(None, sys._getframe(), 10**6, -1)  # a lineless head
    exc.__context__ = context

    drop_lineless_frames(exc)

    tb, linenos = exc.__traceback__, []
    while tb is not None:
        linenos.append(tb.tb_lineno)
        tb = tb.tb_next
    assert linenos and None not in linenos
    assert context.__traceback__ is None
    text = str(pytest.ExceptionInfo.from_exception(exc).getrepr(funcargs=True))
    assert "KeyboardInterrupt" in text


@contextlib.contextmanager
def _watching(signum: int, default: object) -> Iterator[InterruptWatch]:
    """A watch installed over Python's `default` handler for `signum`; this process's own handler (this very
    session's watch, when run without xdist) is put back afterwards."""
    previous = signal.getsignal(signum)
    signal.signal(signum, default)  # type: ignore[arg-type]
    watch = InterruptWatch()
    try:
        watch.install()
        yield watch
    finally:
        watch.uninstall()
        signal.signal(signum, previous)


def test_watch_notes_sigint_and_gives_the_handler_back() -> None:
    with _watching(signal.SIGINT, signal.default_int_handler) as watch:
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        assert watch.seen.is_set()
        watch.uninstall()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_watch_turns_sigterm_into_keyboard_interrupt_once() -> None:
    with _watching(signal.SIGTERM, signal.SIG_DFL) as watch:
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGTERM)
        assert watch.seen.is_set()
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # a second SIGTERM ends the process
