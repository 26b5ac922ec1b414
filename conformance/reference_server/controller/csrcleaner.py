"""kube-controller-manager's `csrcleaner` controller (`pkg/controller/certificates/cleaner/cleaner.go`).

Every polling interval (1 h; the first pass at start, `wait.Until`) it lists every CSR and deletes one that is:

- issued (a certificate is set) with an `Approved` condition last updated more than 1 h ago;
- `Denied` or `Failed` (any status) with that condition last updated more than 1 h ago;
- pending (no condition at all) and created more than 24 h ago;
- issued with an `Approved` condition and a certificate whose `NotAfter` has passed.

An approved CSR without a certificate is kept however old (upstream's rules name none for it). "More than" is
strict (`isOlderThan`: a non-zero time `t` with `t - now < -d`). The clock is injected (`clock`, a callable
answering an aware `datetime`) and `clean(now)` runs one pass, so tests move time instead of sleeping.
"""
from __future__ import annotations

import asyncio
import datetime as _dt
import logging
from typing import Any, Callable

from cryptography import x509

from .. import apierrors as E
from ..admission.admitted import admitted
from ..registry import DeleteOptions, ListOptions, Registry
from ..registry import certificates as C
from ..registry.meta import parse_time
from .loop import Controller

log = logging.getLogger("nsconform.reference_server.controller")
POLLING_INTERVAL = 3600.0
APPROVED_EXPIRATION = _dt.timedelta(hours=1)
DENIED_EXPIRATION = _dt.timedelta(hours=1)  # also Failed's (isFailedPastDeadline uses deniedExpiration)
PENDING_EXPIRATION = _dt.timedelta(hours=24)
Clock = Callable[[], _dt.datetime]


def utc_now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _older_than(value: Any, d: _dt.timedelta, now: _dt.datetime) -> bool:
    t = parse_time(value)
    return t is not None and t - now < -d


def certificate_not_after(csr: dict[str, Any]) -> _dt.datetime | None:
    """`isExpired`'s reading: the first PEM block's first certificate's NotAfter (None if none parses)."""
    blocks = C.pem_blocks(C.decode_bytes((csr.get("status") or {}).get("certificate")))
    if not blocks:
        return None
    try:
        return x509.load_der_x509_certificate(blocks[0][1]).not_valid_after_utc
    except ValueError:
        return None


def why_clean(csr: dict[str, Any], now: _dt.datetime) -> str:
    """Which of `handle`'s rules deletes `csr` at `now` ("" when none does), in upstream's order."""
    status = csr.get("status") or {}
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    issued = bool(status.get("certificate"))
    approved = [c for c in conditions if c.get("type") == C.APPROVED]
    if issued and any(_older_than(c.get("lastUpdateTime"), APPROVED_EXPIRATION, now) for c in approved):
        return "approved"
    if any(c.get("type") == C.DENIED and _older_than(c.get("lastUpdateTime"), DENIED_EXPIRATION, now)
           for c in conditions):
        return "denied"
    if any(c.get("type") == C.FAILED and _older_than(c.get("lastUpdateTime"), DENIED_EXPIRATION, now)
           for c in conditions):
        return "failed"
    if not conditions and _older_than(csr["metadata"].get("creationTimestamp"), PENDING_EXPIRATION, now):
        return "pending"
    if issued and approved:
        not_after = certificate_not_after(csr)
        if not_after is not None and now > not_after:
            return "expired"
    return ""


class CSRCleanerController(Controller):
    name = "csrcleaner"
    service_account = "certificate-controller"  # its DELETEs' user (admission/admitted.py)

    def __init__(self, registry: Registry, *, period: float = POLLING_INTERVAL, clock: Clock = utc_now):
        super().__init__()
        self.registry = registry
        self.period = period
        self.clock = clock

    def _store(self) -> Any:
        return self.registry.group(C.GROUP, C.CSR_INFO.plural)

    def start(self) -> None:
        if self._store() is not None and self.period > 0:
            self._spawn(self._run())

    async def _run(self) -> None:
        while True:  # wait.Until: a pass, then the period
            try:  # a pass stopped by a DELETE still to be admitted runs again once it is
                await admitted(self._pass)
            except Exception:  # a controller bug must not stop the loop
                log.exception("%s: pass failed", self.name)
            await asyncio.sleep(self.period)

    async def _pass(self) -> None:
        self.clean()

    def clean(self, now: _dt.datetime | None = None) -> list[str]:
        """One `worker` pass: delete what the rules select; returns the names deleted."""
        store = self._store()
        at = now or self.clock()
        deleted = []
        for csr in store.list(None, ListOptions())["items"]:
            name = csr["metadata"]["name"]
            why = why_clean(csr, at)
            if not why:
                continue
            log.info("%s: cleaning CSR %r (%s)", self.name, name, why)
            try:
                self.writes.delete(store, "", name, DeleteOptions())
            except E.StatusError as exc:
                if exc.code != 404:
                    log.info("%s: unable to delete CSR %r: %s", self.name, name, exc.message)
                continue
            deleted.append(name)
        return deleted


__all__ = ["CSRCleanerController", "why_clean"]
