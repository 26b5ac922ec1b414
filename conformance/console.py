"""What the console says while the suites run and when they end.

Waits: a wait longer than `wait.PROGRESS_AFTER` seconds is shown while it lasts (what is awaited, elapsed
of its limit, what was last seen): on a terminal as one status line rewritten in place, elsewhere (CI
logs) as a line when it starts to be long, one every `LOG_EVERY` seconds, and one when it ends if it
failed or lasted that long. xdist
workers cannot write to the terminal, so there each long wait is recorded on the test's report and the
controller prints one line per long wait when the test's phase ends (not live, but never silent).

End of run: a short table of failing clauses (id, severity, first failure cut at a word boundary), with
the probable root cause named first, printed before pytest's tracebacks.
"""

from __future__ import annotations

import threading
from typing import Any

from .wait import WaitProgress

__all__ = ["cut", "WaitConsole", "WaitRecorder", "format_wait", "failing_table", "LOG_EVERY"]

LOG_EVERY = 15.0
"""Seconds between the progress lines of one wait when the console is not a terminal."""


def cut(text: str, width: int) -> str:
    """One line of at most `width` characters, shortened at a word boundary (a space, or after a `/` of a
    path) with an ellipsis. Only a single word longer than the line is cut inside."""
    line = " ".join(str(text).split())
    if len(line) <= width:
        return line
    if width <= 1:
        return line[:width]
    head = line[:width - 1]
    # The last word boundary: a space, or just after a path separator (a URL is one long "word").
    space = head.rfind(" ")
    slash = head.rfind("/") + 1 if line[len(head)] != " " else 0
    at = max(space, slash if slash > 0 else -1)
    if at > 0:
        head = head[:at]
    return head.rstrip(" ,;:") + "…"


def format_wait(p: WaitProgress) -> str:
    """`waiting 12s/90s for <what>; last seen: <state>` (or how it ended)."""
    if p.done:
        head = f"{p.outcome} after {p.elapsed:.1f}s (limit {p.limit:g}s): {p.what}"
    else:
        head = f"waiting {p.elapsed:.0f}s/{p.limit:g}s for {p.what}"
    return f"{head}; last seen: {p.last_seen}"


class WaitConsole:
    """Progress hook for a process that owns the terminal (no xdist): writes through pytest's terminal
    reporter with output capturing suspended, as pytest's live logging does."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._last_log = 0.0
        self._live = False

    def _writer(self) -> tuple[Any, Any]:
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        capman = self.config.pluginmanager.get_plugin("capturemanager")
        return tr, capman

    def __call__(self, p: WaitProgress) -> None:
        tr, capman = self._writer()
        if tr is None:
            return
        with self._lock:
            tty = bool(getattr(tr, "isatty", False))
            width = int(getattr(tr._tw, "fullwidth", 80)) - 1
            width = max(width, 40) if tty else max(width, 200)  # a log line may be longer than a terminal's
            line = cut("nsconform: " + format_wait(p), width)
            ctx = capman.global_and_fixture_disabled() if capman is not None else _nullcontext()
            with ctx:
                if tty:
                    if not self._live:
                        tr.ensure_newline()  # below pytest's progress dots; they restart on a new line
                        self._live = True
                    tr.rewrite(line, erase=True, yellow=not p.done)
                    if p.done:
                        tr._tw.line()
                        self._live = False
                    return
                if p.done:
                    # A log says how a wait ended only when that is news: it failed, or it ran long
                    # enough for progress lines (a 5 s wait costs one line, not two).
                    if p.outcome != "met" or p.elapsed >= LOG_EVERY:
                        tr.write_line(line)
                    self._live = False
                elif not self._live or p.elapsed - self._last_log >= LOG_EVERY:
                    tr.write_line(line)
                    self._last_log = p.elapsed
                    self._live = True

    def pytest_runtest_logreport(self, report: Any) -> None:
        """Under xdist: print the long waits a worker recorded on its report (`nsconform["waits"]`)."""
        data = getattr(report, "nsconform", None)
        waits = data.get("waits") if isinstance(data, dict) else None
        tr, _ = self._writer()
        if not waits or tr is None:
            return
        width = int(getattr(tr._tw, "fullwidth", 80)) - 1
        width = max(width, 40) if getattr(tr, "isatty", False) else max(width, 200)
        for line in waits:
            tr.write_line(cut(f"nsconform [{report.nodeid.split('::', 1)[-1]}]: {line}", width))


class WaitRecorder:
    """Progress hook on an xdist worker: keeps the end of every long wait of the current test, for the
    report (the controller prints them)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waits: list[str] = []

    def __call__(self, p: WaitProgress) -> None:
        if p.done:
            with self._lock:
                self._waits.append(format_wait(p))

    def take(self) -> list[str]:
        with self._lock:
            out, self._waits = self._waits, []
        return out


class _nullcontext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def failing_table(run: dict[str, Any], width: int = 100) -> list[str]:
    """Lines of the end-of-run table: root-cause sentence, then `id  severity  first failure` per failed
    clause (probable root causes first). Never cut mid-word."""
    from .report.model import failing_clauses, root_cause_summary

    failing = failing_clauses(run)
    if not failing:
        return []
    roots = {r["id"] for r in (run.get("root_causes") or []) if r.get("dependents")}
    lines = [cut(root_cause_summary(run), width)]
    id_w = max(len(c["id"]) for c in failing) + (2 if roots else 0)
    sev_w = max(len(str(c.get("severity") or "")) for c in failing)
    lines.append(f"{'clause'.ljust(id_w)}  {'severity'.ljust(max(sev_w, 8))}  first failure")
    for c in failing:
        first = next((t for t in c.get("tests", []) if t.get("outcome") == "failed"), {})
        message = (first.get("message") or "failed").strip().splitlines()
        name = str(first.get("nodeid", "")).split("::", 1)[-1]
        text = f"{name}: {message[0] if message else 'failed'}" if name else (message[0] if message else "")
        mark = "* " if c["id"] in roots else ("  " if roots else "")
        head = f"{(mark + c['id']).ljust(id_w)}  {str(c.get('severity') or '').ljust(max(sev_w, 8))}  "
        lines.append(head + cut(text, max(20, width - len(head))))
    if roots:
        lines.append("(* probable root cause: other failed clauses depend on it)")
    return lines
