"""Progress of long opt-in runs (sensitivity, specificity, later the scale suite).

On a terminal one line updates in place (`[ 37/106] name … caught (12.3 s) · eta 4m10s`), so a long run
shows where it is without scrolling a hundred lines; runs that did not go well (missed, failed, error) are
still printed in full above it, so nothing is lost. Anywhere else (CI logs, a pipe, `CI` set) every
finished run gets one plain line instead, which is what a log reader greps. Either way the caller's final
table and last line are printed after `finish()` and are untouched by this module.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import Callable, Collection, TextIO

__all__ = ["Progress", "is_live", "eta"]

GOOD = frozenset({"passed", "caught"})


def is_live(stream: TextIO, environ: dict[str, str] | None = None) -> bool:
    """An updating line only on an interactive terminal, never under CI (logs keep every `\\r` frame)."""
    env = os.environ if environ is None else environ
    if env.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a real stream
        return False


def eta(seconds: float) -> str:
    """`45s`, `4m10s`, `1h02m`: short enough for one terminal line."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


class Progress:
    """Counts finished runs out of `total` and shows them on `tty` (live) or as lines on `out` (plain).

    `done(label, status, seconds, line)`: `line` is the plain, complete line for this run (what CI logs
    show); `label`/`status`/`seconds` make the short live line.
    """

    def __init__(self, total: int, *, out: TextIO | None = None, tty: TextIO | None = None,
                 live: bool | None = None, clock: Callable[[], float] = time.monotonic,
                 good: Collection[str] = GOOD) -> None:
        self.total = total
        self.out = out if out is not None else sys.stdout
        self.tty = tty if tty is not None else sys.stderr
        self.live = is_live(self.tty) if live is None else live
        self.clock = clock
        self.good = frozenset(good)
        self.count = 0
        self.started = clock()
        self._shown = False

    def _width(self) -> int:
        return max(20, shutil.get_terminal_size((100, 24)).columns - 1)

    def _clear(self) -> None:
        if self._shown:
            self.tty.write("\r\x1b[K")
            self._shown = False

    def status_line(self, label: str, status: str, seconds: float) -> str:
        width = len(str(self.total))
        text = f"[{self.count:>{width}}/{self.total}] {label} … {status} ({seconds:.1f} s)"
        left = self.total - self.count
        if left and self.count:
            per_run = (self.clock() - self.started) / self.count  # wall time: already counts parallel jobs
            text += f" · eta {eta(per_run * left)}"
        return text

    def done(self, label: str, status: str, seconds: float, line: str) -> None:
        self.count += 1
        if not self.live:
            print(line, file=self.out, flush=True)
            return
        self._clear()
        if status not in self.good:  # a problem stays on screen above the updating line
            self.out.flush()
            self.tty.write(line + "\n")
        text = self.status_line(label, status, seconds)
        width = self._width()
        if len(text) > width:
            text = text[:width - 1] + "…"
        self.tty.write("\r" + text)
        self.tty.flush()
        self._shown = True

    def finish(self) -> None:
        """Remove the updating line, so the final table starts on a clean line."""
        if self.live:
            self._clear()
            self.tty.flush()
