"""kube-controller-manager's bootstrap token cleaner (off by default; kubeadm, kind's included, enables it with
`--controllers=*,bootstrapsigner,tokencleaner`): a `bootstrap.kubernetes.io/token` Secret in kube-system whose
`expiration` has passed is deleted, so kind's `bootstrap-token-abcdef` goes 24 h after `kubeadm init`.

Upstream: `pkg/controller/bootstrap/tokencleaner.go` (an informer on kube-system's Secrets of that type, `SecretResync`
0; `evalSecret`: an expired Secret deleted with its UID as precondition, a 404 or 409 no error; one not yet expired
queued again with `AddAfter(key, ttl)`), `staging/src/k8s.io/cluster-bootstrap/secret/util.go` (`GetExpiration`:
no `expiration`, never; one that does not parse as RFC 3339, expired; else expired once `ttl = expiration - now`
is not positive). Its writes are the `token-cleaner` service account's (`system:controller:token-cleaner`, the
namespaced bootstrap Role). `clock` is a parameter so tests need not wait.
"""
from __future__ import annotations

import asyncio
import base64
import logging
import re
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from .. import apierrors as E
from ..registry.store import DeleteOptions, ListOptions
from ..storage.offload import Offload
from .loop import Controller
from .reads import get_or_none

log = logging.getLogger("nsconform.reference_server.controller")
NAMESPACE = "kube-system"  # TokenSecretNamespace's default
TOKEN_TYPE = "bootstrap.kubernetes.io/token"
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def secret_data(secret: dict[str, Any], key: str) -> str:
    """`GetData`: a key of `data`, decoded ("" when absent or not base64 text)."""
    raw = (secret.get("data") or {}).get(key)
    try:
        return base64.b64decode(raw).decode() if raw else ""
    except (ValueError, UnicodeDecodeError):
        return ""


def get_expiration(secret: dict[str, Any], now: float) -> tuple[float, bool]:
    """`GetExpiration`: (seconds left, expired)."""
    value = secret_data(secret, "expiration")
    if not value:
        return 0.0, False
    if not _RFC3339.fullmatch(value):  # time.Parse(time.RFC3339, ...) fails: treated as expired
        return 0.0, True
    ttl = datetime.fromisoformat(value.upper().replace("Z", "+00:00")).timestamp() - now
    return (0.0, True) if ttl <= 0 else (ttl, False)


class TokenCleaner(Controller):
    name = "token_cleaner"
    service_account = "token-cleaner"

    def __init__(self, registry: Any, *, clock: Callable[[], float] = time.time):
        super().__init__()
        self.registry, self.clock = registry, clock
        self._offload = Offload(registry.store, self.name)  # etcd: the delete's round trip off the loop

    def sync(self, key: str) -> float | None:
        """`syncFunc` + `evalSecret` for one Secret name: deleted when expired (None); else the seconds until it
        expires (None: it never does, or is gone)."""
        secrets = self.registry.content("secrets")
        secret = get_or_none(secrets, NAMESPACE, key)
        if secret is None or secret.get("type") != TOKEN_TYPE:
            return None
        ttl, expired = get_expiration(secret, self.clock())
        if not expired:
            return ttl if ttl > 0 else None
        log.debug("%s: deleting expired secret %s/%s", self.name, NAMESPACE, key)
        try:
            self.writes.delete(secrets, NAMESPACE, key, DeleteOptions(uid=secret["metadata"].get("uid") or None))
        except E.StatusError as exc:
            if exc.code not in (404, 409):  # gone already, or another Secret of that name (UID precondition)
                log.info("%s: error deleting secret %s: %s", self.name, key, exc.message)
        return None

    def start(self) -> None:
        secrets = self.registry.content("secrets")
        if secrets is None:
            return
        queue = self._queue()
        loop = asyncio.get_running_loop()
        backlog, watcher, _ = secrets.watch(NAMESPACE, ListOptions(), loop)

        def on_event(ev: Any) -> None:
            if ev.type in ("ADDED", "MODIFIED") and (ev.object or {}).get("type") == TOKEN_TYPE:
                queue.add(ev.name)
        for ev in backlog:
            on_event(ev)
        self._follow(watcher, on_event)

        async def sync(key: str) -> None:
            ttl = await self._offload(self.sync, key)
            if ttl is not None:
                queue.add_after(key, ttl)  # evaluated again when it expires
        self._work(queue, sync)


__all__ = ["TokenCleaner", "get_expiration", "secret_data"]
