"""What every controller here shares with upstream's `client-go` pattern: watch pumps feeding a work queue
that dedupes keys, one worker draining it, and a clean stop. Runs on the server's event loop."""
from __future__ import annotations

import asyncio
import contextvars
import logging
from typing import Any, Awaitable, Callable, Generic, Hashable, TypeVar

from ..admission.admitted import ControllerWrites, admitted
from ..registry.store import ListOptions

K = TypeVar("K", bound=Hashable)


class SyncEvents:
    """The Events one sync has recorded, for the reruns of a sync a pending admission stopped: an Event its earlier
    run recorded is not recorded again (upstream's sync runs once, its recorder once per call)."""

    def __init__(self) -> None:
        self.before: set[Any] = set()  # recorded by the earlier runs
        self.now: set[Any] = set()     # by this run

    def first(self, key: Any) -> bool:
        self.now.add(key)
        return key not in self.before

    def rerun(self) -> None:
        self.before |= self.now
        self.now = set()


SYNC_EVENTS: contextvars.ContextVar[SyncEvents | None] = contextvars.ContextVar("sync_events", default=None)
log = logging.getLogger("nsconform.reference_server.controller")
PUMP_RUN = 100  # events a watch pump handles before it lets the event loop run (an etcd delete sends 10,000)


class WorkQueue(Generic[K]):
    """`workqueue` minus rate limiting: a key added again before a worker took it is worked once."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[K] = asyncio.Queue()
        self._queued: set[K] = set()
        self._timers: list[asyncio.TimerHandle] = []

    def add(self, key: K) -> None:
        if key not in self._queued:
            self._queued.add(key)
            self._queue.put_nowait(key)

    def add_after(self, key: K, delay: float) -> None:
        """`AddAfter`: queued now (so not added twice), handed to a worker after `delay` seconds."""
        if delay <= 0:
            self.add(key)
        elif key not in self._queued:
            self._queued.add(key)
            self._timers.append(asyncio.get_running_loop().call_later(delay, self._queue.put_nowait, key))

    async def get(self) -> K:
        key = await self._queue.get()
        self._queued.discard(key)
        return key

    def shut_down(self) -> None:
        for t in self._timers:
            t.cancel()
        self._timers.clear()


class Controller:
    """Tasks and watches of one controller; `stop` closes the watches and cancels the tasks."""

    name = "controller"
    # kube-controller-manager's client name for it (`ClientOrDie("<name>")`): its writes' service account
    service_account = ""
    # or the user of a component with credentials of its own (kube-scheduler's `system:kube-scheduler`)
    client_user: Any = None
    # its queue's per-item backoff, in seconds: `DefaultControllerRateLimiter`'s 5 ms (some controllers differ)
    backoff_base = 0.005
    # its writes through the webhooks and policies (admission/admitted.py); direct until `use_webhooks`
    writes = ControllerWrites(None, "")

    def __init__(self) -> None:
        self._tasks: list[asyncio.Task[Any]] = []
        self._watchers: list[Any] = []
        self._queues: list[WorkQueue[Any]] = []
        self._failures: dict[Any, int] = {}

    def use_webhooks(self, hooks: Any, offload: Any = None) -> None:
        """Make this controller's writes as an API client's: through `hooks` (admission/webhooks/
        WebhookAdmission), as `system:serviceaccount:kube-system:<service_account>`."""
        self.writes = ControllerWrites(hooks, self.service_account or self.name, offload, self.client_user)
        recorder = getattr(self, "recorder", None)
        if recorder is not None:  # its Events are written by the same client
            recorder.writes, recorder.loop = self.writes, asyncio.get_running_loop()

    def backoff(self, key: Any) -> float:
        """The queue's per-item delay for a failed key: `backoff_base` doubling, at most 1000 s."""
        n = self._failures.get(key, 0)
        self._failures[key] = n + 1
        return min(self.backoff_base * 2 ** n, 1000.0)

    def forget(self, key: Any) -> None:
        self._failures.pop(key, None)

    def refused(self, queue: "WorkQueue[Any]", key: Any, exc: Exception) -> None:
        """A write a webhook or policy refused (admission/admitted.py `AdmissionRefusal`): the sync's error, logged,
        and the key queued again after its backoff (`AddRateLimited`)."""
        log.info("%s: %s: %s", self.name, key, getattr(exc, "message", exc))
        queue.add_after(key, self.backoff(key))

    def _queue(self) -> WorkQueue[Any]:
        q: WorkQueue[Any] = WorkQueue()
        self._queues.append(q)
        return q

    def _follow(self, watcher: Any, on_event: Callable[[Any], None]) -> None:
        """Feed every event of a storage watch to `on_event` until the watch ends."""
        self._watchers.append(watcher)
        self._spawn(self._pump(watcher, on_event))

    def _inform(self, store: Any, on_event: Callable[[Any], None]) -> None:
        """List-then-watch, as an informer's handlers see it: an event for every object already stored (the
        watch's backlog), then every change, each to `on_event`. Must be called on the server's event loop."""
        backlog, watcher, _ = store.watch(None, ListOptions(), asyncio.get_running_loop())
        for ev in backlog:
            on_event(ev)
        self._follow(watcher, on_event)

    def _queue_for(self, store: Any, namespace: str, name: str) -> WorkQueue[Any]:
        """A queue that gets the key `name` at every event of that one object (an informer narrowed to it, as
        kube-apiserver's own controllers of one kube-system object filter theirs). On the server's event loop."""
        queue = self._queue()
        _, watcher, _ = store.watch(namespace, ListOptions(), asyncio.get_running_loop())
        self._follow(watcher, lambda ev: queue.add(name) if ev.name == name else None)
        return queue

    def _work(self, queue: WorkQueue[K], sync: Callable[[K], Awaitable[None]]) -> None:
        """One worker: `sync` each key taken from `queue`; a failed sync is logged, the worker goes on."""
        async def worker() -> None:
            while True:
                key = await queue.get()
                events = SyncEvents()
                token = SYNC_EVENTS.set(events)
                try:  # a write waiting for the webhooks: settled, then synced again
                    await admitted(sync, key, on_rerun=events.rerun)
                except Exception:  # a controller bug must not stop the loop
                    log.exception("%s: sync of %s failed", self.name, key)
                finally:
                    SYNC_EVENTS.reset(token)
        self._spawn(worker())

    def _spawn(self, coro: Awaitable[Any]) -> None:
        self._tasks.append(asyncio.get_running_loop().create_task(coro))  # type: ignore[arg-type]

    async def _pump(self, watcher: Any, on_event: Callable[[Any], None]) -> None:
        taken = 0
        while True:
            ev = await watcher.queue.get()  # no yield while the queue has events: thousands may wait at once
            if ev is None:
                return
            taken += 1
            if taken % PUMP_RUN == 0:  # let the loop serve requests between runs
                await asyncio.sleep(0)
            try:
                on_event(ev)
            except Exception:  # a controller bug must not stop the loop
                log.exception("%s: event %s %s/%s", self.name, ev.type, ev.namespace, ev.name)

    async def stop(self) -> None:
        recorder = getattr(self, "recorder", None)
        if recorder is not None:
            await recorder.close()
        for q in self._queues:
            q.shut_down()
        for w in self._watchers:
            w.close()
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        self._watchers.clear()
