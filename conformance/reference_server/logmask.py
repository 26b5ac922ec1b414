"""Secrets never reach a log line: bearer tokens (by shape and by value) are masked in every record the
server's loggers (and aiohttp's) emit, tracebacks included."""
from __future__ import annotations

import logging
import re
from typing import Iterable

MASK = "<masked>"
_BEARER = re.compile(r"(?i)(bearer)(\s+|\\x20|%20)[^\s'\"\\,;]+")
LOGGERS = ("nsconform.reference_server", "nsconform.reference_server.http", "nsconform.reference_server.controller",
           "aiohttp", "aiohttp.server", "aiohttp.access", "aiohttp.web",
           "aiohttp.internal", "asyncio")


class SecretMask(logging.Filter):
    """Rewrites a record's message (and formatted traceback) with every known secret masked."""

    def __init__(self, secrets: Iterable[str] = ()):
        super().__init__()
        self.secrets: set[str] = {s for s in secrets if s}

    def mask(self, text: str) -> str:
        text = _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", text)
        for s in self.secrets:
            if s in text:
                text = text.replace(s, MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken format string: keep the raw text
            message = str(record.msg)
        record.msg, record.args = self.mask(message), ()
        if record.exc_info:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_info, record.exc_text = None, self.mask(text)
        elif record.exc_text:
            record.exc_text = self.mask(record.exc_text)
        return True


_INSTALLED = SecretMask()


def protect(secrets: Iterable[str] = (), handlers: Iterable[logging.Handler] = ()) -> SecretMask:
    """Mask `secrets` (and any bearer token) in the server's loggers and in `handlers` (e.g. the root
    handlers `serve` configures); idempotent, secrets accumulate."""
    _INSTALLED.secrets.update(s for s in secrets if s)
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _INSTALLED not in logger.filters:
            logger.addFilter(_INSTALLED)
    for h in handlers:
        if _INSTALLED not in h.filters:
            h.addFilter(_INSTALLED)
    return _INSTALLED
