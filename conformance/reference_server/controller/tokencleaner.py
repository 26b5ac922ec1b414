"""kube-controller-manager's bootstrap token cleaner (off by default; kubeadm, kind's included, enables it with
`--controllers=*,bootstrapsigner,tokencleaner`): a `bootstrap.kubernetes.io/token` Secret in kube-system whose
`expiration` has passed is deleted, so kind's `bootstrap-token-abcdef` goes 24 h after `kubeadm init`.

Upstream: `pkg/controller/bootstrap/tokencleaner.go` (an informer on kube-system's Secrets of that type, `SecretResync`
0; `evalSecret`: an expired Secret deleted with its UID as precondition, a 404 or 409 no error; one not yet expired
queued again with `AddAfter(key, ttl)`), cluster-bootstrap's `GetExpiration` (controller/bootstraptokens.py). Its
writes are the `token-cleaner` service account's (`system:controller:token-cleaner`, the namespaced bootstrap Role).
`clock` is a parameter so tests need not wait.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any

from .. import apierrors as E
from ..registry.store import DeleteOptions, ListOptions
from .bootstraptokens import TOKEN_TYPE, BootstrapTokenController, get_expiration
from .reads import get_or_none

log = logging.getLogger("nsconform.reference_server.controller")
NAMESPACE = "kube-system"  # TokenSecretNamespace's default


class TokenCleaner(BootstrapTokenController):
    name = "token_cleaner"
    service_account = "token-cleaner"

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


__all__ = ["TokenCleaner"]
