"""Warnings a request's lower layers add for its answer (`staging/src/k8s.io/apiserver/pkg/warning/context.go`
`AddWarning`, recorded per request by `endpoints/filters/warning.go` `WithWarningRecorder`): the registry knows no
request, so, as upstream's context, a context variable holds the request's recorder; http/ sets it for the writes
whose validation may warn and sends what was recorded as `Warning: 299 - "<text>"` headers, on a success or an error
alike. Without a recorder (a controller's own write) a warning goes nowhere, as upstream's does."""
from __future__ import annotations

import contextvars
from typing import Iterable

RECORDER: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("warning_recorder", default=None)


def add_warning(text: str) -> None:
    """`warning.AddWarning(ctx, "", text)`: recorded once per request (the recorder dedupes), empty text dropped."""
    recorded = RECORDER.get()
    if recorded is not None and text and text not in recorded:
        recorded.append(text)


def recorded() -> list[str]:
    """What the current request's recorder holds (nothing without one)."""
    return RECORDER.get() or []


def warning_header(text: str) -> str:
    """`net.NewWarningHeader(299, "-", text)`: the text as an RFC 7230 quoted-string."""
    return '299 - "' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def warning_headers(texts: Iterable[str]) -> list[tuple[str, str]]:
    """One `Warning` header per distinct text, in order; a text no header can carry (a control character) is
    dropped, as `NewWarningHeader` refuses what it cannot quote."""
    return [("Warning", warning_header(w)) for w in dict.fromkeys(texts) if w.isprintable()]


__all__ = ["RECORDER", "add_warning", "recorded", "warning_header", "warning_headers"]
