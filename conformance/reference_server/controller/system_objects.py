"""kube-apiserver's own controllers that keep its start-up objects, run by every replica once it serves:

- the system namespaces controller (`pkg/controlplane/controller/systemnamespaces/system_namespaces_controller.go`:
  `wait.Until(c.sync, time.Minute)`): `kube-system`, `kube-public`, `kube-node-lease` created when missing, every
  minute;
- the kubernetes-service controller (`pkg/controlplane/controller/kubernetesservice/controller.go`:
  `wait.NonSlidingUntil(UpdateKubernetesService, EndpointInterval)`, 10 s by default): the `default` namespace,
  then the `kubernetes` Service, created when missing (its spec is not reconciled after the first run);
- the `scheduling/bootstrap-system-priority-classes` post-start hook (`pkg/registry/scheduling/rest/
  storage_scheduling.go` `AddSystemPriorityClasses`): `wait.Poll(1s, 30s)` over the system PriorityClasses, a
  create answered 503 (`IsServiceUnavailable`) tried again at the next poll, any other refusal, or 30 s without
  success, failing the hook, which kills kube-apiserver (`runPostStartHook`: `klog.Fatalf`); here `on_fatal`.

Each write is the loopback client's (`writes`, admission/admitted.py `ControllerWrites` as `system:apiserver`): the
plain registry call while no webhook or policy selects it, else admitted; a refusal is logged and the object stays
missing until a later round makes it (once the refusing webhook or policy is gone). The periodic rounds start one
interval after the server (its first round is the start-up write itself, controller/bootstrap.py). `sleep` is
injectable: tests drive the rounds without waiting.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable

from .. import apierrors as E
from ..admission.admitted import ControllerWrites, admitted
from . import bootstrap

log = logging.getLogger("nsconform.reference_server")
SYSTEM_NAMESPACES = ("kube-system", "kube-public", "kube-node-lease")
NAMESPACES_INTERVAL = 60.0   # `time.Minute`
SERVICE_INTERVAL = 10.0      # `EndpointInterval` (`--endpoint-reconciler` default)
PRIORITY_CLASSES_POLL = 1.0  # `wait.Poll(1*time.Second, 30*time.Second, ...)`
PRIORITY_CLASSES_TIMEOUT = 30.0
PRIORITY_CLASSES_HOOK = "scheduling/bootstrap-system-priority-classes"

Sleep = Callable[[float], Awaitable[Any]]


class SystemObjects:
    """The two periodic controllers (`start`/`stop`) and the PriorityClasses hook (`bootstrap_priority_classes`)."""

    def __init__(self, registry: Any, service: dict[str, Any], writes: ControllerWrites,
                 sleep: Sleep = asyncio.sleep, on_fatal: Callable[[str], None] | None = None):
        self.registry = registry
        self.service = service
        self.writes = writes
        self.sleep = sleep
        self.on_fatal = on_fatal
        self.hooks: dict[str, str] = {}  # post-start hook → "running", "ok" or its failure
        self._tasks: list[asyncio.Task[None]] = []

    # ---- one round each ----------------------------------------------------------------------------------
    async def _write(self, what: str, step: Callable[[ControllerWrites], None]) -> bool:
        async def run() -> None:
            step(self.writes)
        try:
            await admitted(run)
        except E.StatusError as exc:
            log.warning("unable to create %s: %s", what, exc)
            return False
        return True

    async def sync_namespaces(self) -> None:
        """`sync`: each system namespace created if missing; an error logged, the others still tried."""
        for name in SYSTEM_NAMESPACES:
            if not bootstrap.exists(self.registry, "namespaces", "", name):
                await self._write(f"required kubernetes system Namespace {name}",
                                  lambda w, name=name: bootstrap.create_namespace(self.registry, name, w))

    async def sync_service(self) -> None:
        """`UpdateKubernetesService`: the `default` namespace, then the Service (an error ends the round)."""
        if not bootstrap.exists(self.registry, "namespaces", "", "default"):
            if not await self._write("the default namespace",
                                     lambda w: bootstrap.create_namespace(self.registry, "default", w)):
                return
        if not bootstrap.exists(self.registry, "services", "default", "kubernetes"):
            await self._write("the kubernetes Service", lambda w: bootstrap.create_service(self.registry, self.service, w))

    async def bootstrap_priority_classes(self) -> bool:
        """The hook: poll every second for 30 s; False (and `on_fatal`) when it fails."""
        self.hooks[PRIORITY_CLASSES_HOOK] = "running"
        waited = 0.0
        error = "timed out waiting for the condition"
        while waited < PRIORITY_CLASSES_TIMEOUT:
            await self.sleep(PRIORITY_CLASSES_POLL)  # wait.Poll waits one interval before the first try
            waited += PRIORITY_CLASSES_POLL

            async def run() -> None:
                bootstrap.create_priority_classes(self.registry, self.writes)
            try:
                await admitted(run)
            except E.StatusError as exc:
                if exc.code == 503:  # `IsServiceUnavailable`: tried again
                    log.info("going to retry, unable to create PriorityClass: %s", exc)
                    continue
                error = exc.message
                break
            self.hooks[PRIORITY_CLASSES_HOOK] = "ok"
            return True
        message = f"unable to add default system priority classes: {error}"
        self.hooks[PRIORITY_CLASSES_HOOK] = message
        log.critical('PostStartHook "%s" failed: %s', PRIORITY_CLASSES_HOOK, message)
        if self.on_fatal is not None:
            self.on_fatal(message)
        return False

    # ---- the periodic controllers ------------------------------------------------------------------------
    async def _every(self, interval: float, sync: Callable[[], Awaitable[None]]) -> None:
        while True:
            await self.sleep(interval)
            try:
                await sync()
            except Exception:  # noqa: BLE001 - `utilruntime.HandleError`: logged, the next round comes
                log.exception("system objects round failed")

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._every(NAMESPACES_INTERVAL, self.sync_namespaces)),
                       loop.create_task(self._every(SERVICE_INTERVAL, self.sync_service))]

    async def stop(self) -> None:
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


__all__ = ["NAMESPACES_INTERVAL", "PRIORITY_CLASSES_HOOK", "SERVICE_INTERVAL", "SYSTEM_NAMESPACES", "SystemObjects"]
