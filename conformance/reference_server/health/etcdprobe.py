"""The `etcd` and `etcd-readiness` checks on an etcd store, as k8s.io/apiserver v0.33.1
`pkg/storage/storagebackend/factory/etcd3.go` makes them (`newETCD3Check`): a range read of `<prefix>/health`
(`etcd3ProberMonitor.Probe`, as `etcdctl endpoint health`) within the timeout (2 s: `DefaultHealthcheckTimeout`,
`DefaultReadinessTimeout`), at most one every half timeout (`rate.NewLimiter(rate.Every(timeout/2), 1)`): a check
in between answers the last probe's result. The read runs in a worker thread (the client blocks), never on the
event loop."""
from __future__ import annotations

import asyncio
import posixpath
import time
from typing import Any, Callable

from ..aiotime import within
from .state import StoreProbe

TIMEOUT = 2.0
NOT_ESTABLISHED = "etcd client connection not yet established"


class EtcdProbe:
    """One check's probe (the health and the readiness check have one each, as upstream)."""

    def __init__(self, client: Any, prefix: str, timeout: float = TIMEOUT,
                 clock: Callable[[], float] = time.monotonic):
        self.client = client
        self.key = posixpath.join("/", prefix.lstrip("/"), "health").encode()  # path.Join("/", prefix, "health")
        self.timeout = timeout
        self.clock = clock
        self._last: str | None = NOT_ESTABLISHED
        self._next = 0.0

    async def __call__(self) -> str | None:
        now = self.clock()
        if now < self._next:  # the limiter refuses: the last request's error
            return self._last
        self._next = now + self.timeout / 2
        loop = asyncio.get_running_loop()
        try:
            await within(loop.run_in_executor(None, lambda: self.client.get(self.key)), self.timeout)
            err = None
        except asyncio.TimeoutError:
            err = "error getting data from etcd: context deadline exceeded"
        except Exception as exc:  # noqa: BLE001 - any client failure is the check's error
            err = f"error getting data from etcd: {exc}"
        self._last = err
        return err


def store_probes(store: Any) -> tuple[StoreProbe, StoreProbe] | None:
    """(health, readiness) probes for an etcd store; None for a store without etcd (always healthy)."""
    client = getattr(store, "client", None)
    if not getattr(store, "remote", False) or client is None:
        return None
    prefix = getattr(store, "prefix", "/registry")
    return EtcdProbe(client, prefix), EtcdProbe(client, prefix)


__all__ = ["EtcdProbe", "NOT_ESTABLISHED", "TIMEOUT", "store_probes"]
