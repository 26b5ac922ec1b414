"""Turn pytest phase reports into one short, categorised result per test.

Categories tell a reader whom to blame: `violation` (a suite assertion failed: the server breaks a MUST),
`timeout` (`conformance.wait.WaitTimeout`: the server never reached the expected state) and `harness`
(any other exception: connection refused, a bug in the harness). Matched by exception *name* because reports
cross process boundaries (xdist) and the classes may not be importable here.
"""

from __future__ import annotations

import re
from typing import Any, Literal

Category = Literal["violation", "timeout", "harness"]

_MAX_LINES = 12
_MAX_CHARS = 1500
_TYPE = re.compile(r"^(?:E\s+)?([A-Za-z_][\w.]*)(?::|$)")
_VIOLATION_TYPES = {"AssertionError", "Failed", "Failure"}


def crash_message(longrepr: Any) -> str:
    """The exception line(s) pytest shows as the crash reason, without the traceback."""
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # skip: (path, lineno, reason)
        return str(longrepr[2]).removeprefix("Skipped: ")
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return str(crash.message)
    text = str(longrepr)
    e_lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    return "\n".join(e_lines) if e_lines else text.strip().splitlines()[-1] if text.strip() else ""


def exception_type(message: str) -> str:
    """`conformance.wait.WaitTimeout: ...` → `WaitTimeout`; a bare `assert x` → `AssertionError`."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    if first.startswith("assert "):
        return "AssertionError"
    m = _TYPE.match(first)
    return m.group(1).rsplit(".", 1)[-1] if m else ""


def categorise(message: str, longreprtext: str = "") -> Category:
    typ = exception_type(message)
    if typ in ("WaitTimeout", "WaitHopeless") or (not typ and re.search(r"\bWait(Timeout|Hopeless)\b", longreprtext)):
        return "timeout"
    if typ in _VIOLATION_TYPES or typ.endswith("AssertionError"):
        return "violation"
    if not typ and re.search(r"^E\s+(AssertionError|assert )", longreprtext, re.M):
        return "violation"
    return "harness"


def shorten(message: str) -> str:
    """The assertion line(s), not the whole traceback: drop the AssertionError prefix, cap lines and length."""
    text = message.strip()
    text = re.sub(r"^AssertionError:\s*", "", text)
    text = re.sub(r"^[\w.]*\.(WaitTimeout|WaitHopeless):", r"\1:", text)
    lines = text.splitlines()
    if len(lines) > _MAX_LINES:
        lines = lines[:_MAX_LINES] + [f"... ({len(lines) - _MAX_LINES} more lines)"]
    text = "\n".join(lines)
    return text if len(text) <= _MAX_CHARS else text[:_MAX_CHARS] + " ..."


def describe_failure(report: Any) -> tuple[str, Category]:
    """Short message and category of a failed TestReport (works on xdist-deserialised reports too)."""
    longrepr = getattr(report, "longrepr", None)
    message = crash_message(longrepr)
    try:
        text = report.longreprtext
    except Exception:  # noqa: BLE001
        text = str(longrepr or "")
    if not message:
        message = text.strip().splitlines()[-1] if text.strip() else "failed"
    return shorten(message), categorise(message, text)
