"""kube-apiserver's `kube-system/kube-apiserver-legacy-service-account-token-tracking` ConfigMap: data
`since: <UTC date, YYYY-MM-DD>`, the day from which the server tracks legacy (Secret-based) token use.

Upstream: `pkg/controlplane/controller/legacytokentracking/controller.go` (post-start hook
`start-legacy-token-tracking-controller`, every API server): an informer on that one ConfigMap; a sync creates it
when absent (a creation rate limiter of one per 30 minutes, its first token free: a deleted ConfigMap comes back
at most every 30 minutes), and rewrites `since` when it does not parse as a date (a 404 or 409 then is ignored).
Its writes are the loopback client's (`system:apiserver`, manager `kube-apiserver`) through admission/admitted.py.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER
from ..storage.offload import Offload
from .loop import Controller
from .reads import get_or_none

NAMESPACE = "kube-system"
CONFIGMAP_NAME = "kube-apiserver-legacy-service-account-token-tracking"
DATA_KEY = "since"
FIELD_MANAGER = "kube-apiserver"
CREATION_INTERVAL = 30 * 60.0  # rate.NewLimiter(rate.Every(30*time.Minute), 1)


def since(now: float) -> str:
    """`now.UTC().Format("2006-01-02")`."""
    return datetime.fromtimestamp(now, timezone.utc).strftime("%Y-%m-%d")


def _parses(value: Any) -> bool:
    """`time.Parse("2006-01-02", value)` succeeds: exactly a four-digit year, two-digit month and day."""
    if not isinstance(value, str) or len(value) != 10:
        return False
    try:
        datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        return False
    return value[4] == "-" and value[7] == "-" and value[:4].isdigit()


class LegacyTokenTrackingController(Controller):
    name = "legacy_token_tracking_controller"
    client_user = APISERVER_USER

    def __init__(self, registry: Any, *, clock: Callable[[], float] = time.time):
        super().__init__()
        self.registry, self.clock = registry, clock
        self._next_creation = 0.0  # the limiter's next free token
        self._offload = Offload(registry.store, self.name)  # etcd: a sync's round trips off the loop

    def sync(self) -> float:
        """One pass; returns the delay after which to sync again (0: none needed)."""
        store = self.registry.content("configmaps")
        if store is None:
            return 0.0
        now = self.clock()
        current = get_or_none(store, NAMESPACE, CONFIGMAP_NAME)
        if current is None:
            if now < self._next_creation:
                return self._next_creation - now
            try:
                self.writes.create(store, {"apiVersion": "v1", "kind": "ConfigMap",
                                           "metadata": {"name": CONFIGMAP_NAME, "namespace": NAMESPACE},
                                           "data": {DATA_KEY: since(now)}}, field_manager=FIELD_MANAGER)
            except E.StatusError as exc:
                if exc.code != 409:  # an unsuccessful attempt does not consume the limiter's token
                    raise
            self._next_creation = now + CREATION_INTERVAL
            return 0.0
        if not _parses((current.get("data") or {}).get(DATA_KEY)):
            body = {**current, "data": {**(current.get("data") or {}), DATA_KEY: since(now)}}
            try:
                self.writes.update(store, NAMESPACE, CONFIGMAP_NAME, body, field_manager=FIELD_MANAGER)
            except E.StatusError as exc:
                if exc.code not in (404, 409):
                    raise
        return 0.0

    def start(self) -> None:
        store = self.registry.content("configmaps")
        if store is None:
            return
        queue = self._queue_for(store, NAMESPACE, CONFIGMAP_NAME)

        async def sync(key: str) -> None:
            delay = await self._offload(self.sync)
            if delay > 0:
                queue.add_after(key, delay)
        self._work(queue, sync)
        queue.add(CONFIGMAP_NAME)
