"""What the health checks read: the server's named start-up steps with their outcome, whether it is shutting
down, and how to probe its store.

Upstream each post-start hook has a `done` channel closed when the hook returns (`hooks.go`: `postStartHookEntry`,
`postStartHookHealthz` answering `not finished` until then); a hook that fails never closes it (the process exits,
`klog.Fatalf`), so its check stays `not finished`. Here a step is marked by the part of the server that performs
its equivalent (server.py); a failed step keeps its reason for the log and answers `not finished` as upstream's
would while the process still runs (the embedded server serves on after a failed hook)."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Awaitable, Callable

log = logging.getLogger("nsconform.reference_server")
NOT_FINISHED = "not finished"  # hooks.go `errHookNotFinished`


class StartupSteps:
    """Named start-up steps: absent or pending until `done`; `fail` records why one will never finish."""

    def __init__(self) -> None:
        self._done: set[str] = set()
        self._failed: dict[str, str] = {}

    def done(self, *names: str) -> None:
        for name in names:
            self._failed.pop(name, None)
            self._done.add(name)

    def fail(self, name: str, reason: str) -> None:
        self._done.discard(name)
        self._failed[name] = reason

    def is_done(self, name: str) -> bool:
        return name in self._done

    def failure(self, name: str) -> str | None:
        """Why `name` failed, None while it may still finish (or has)."""
        return self._failed.get(name)


StoreProbe = Callable[[], Awaitable["str | None"]]


async def _always_ok() -> str | None:
    return None


@dataclass
class HealthState:
    """The server's health as its checks see it (one per server, on its ServerContext).

    `store_probe` answers None when the store is healthy, else the error (the memory store: always healthy);
    `ready_probe` is the readiness one (`etcd-readiness`), a probe of its own as upstream's `CreateReadyCheck`."""

    steps: StartupSteps = field(default_factory=StartupSteps)
    shutting_down: bool = False
    store_probe: StoreProbe = _always_ok
    ready_probe: StoreProbe = _always_ok
    # `autoregister-completion`'s error until then (controller/autoregister.py `AutoRegister.missing`)
    autoregister_missing: Callable[[], "str | None"] = lambda: "missing APIService: []"


__all__ = ["HealthState", "NOT_FINISHED", "StartupSteps", "StoreProbe"]
