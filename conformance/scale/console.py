"""What a scale run says while it runs: one line per batch phase, updated in place on a terminal.

Tests run with output captured; the progress is written with capture suspended (as pytest's own live
logging does), so `nsconform run --scale 10000` shows where it is during its minutes of creating.
Under xdist workers there is no terminal: nothing is shown (the report holds the timings).
"""

from __future__ import annotations

import sys
import time
from typing import Callable

import pytest

from ..progress import eta, is_live

__all__ = ["progress_for"]


def progress_for(config: pytest.Config) -> Callable[[str, int, int], None]:
    if hasattr(config, "workerinput"):
        return lambda phase, done, total: None
    capman = config.pluginmanager.get_plugin("capturemanager")
    live = is_live(sys.stderr)
    started: dict[str, float] = {}

    def show(phase: str, done: int, total: int) -> None:
        key = f"{phase}/{total}"
        t0 = started.setdefault(key, time.monotonic())
        elapsed = time.monotonic() - t0
        text = f"nsconform scale: {phase} {done:,}/{total:,} namespaces ({elapsed:.0f} s"
        if 0 < done < total:
            text += f", eta {eta(elapsed / done * (total - done))}"
        text += ")"
        if done >= total:
            started.pop(key, None)  # the next phase of the same size starts its own clock
        with (capman.global_and_fixture_disabled() if capman is not None else _nothing()):
            if live:
                sys.stderr.write("\r\x1b[K" + text + ("\n" if done >= total else ""))
                sys.stderr.flush()
            elif done >= total or done * 10 // total != (done - 1) * 10 // total:
                sys.stderr.write(text + "\n")
                sys.stderr.flush()

    return show


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
