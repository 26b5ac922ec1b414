"""Leader election for the controllers, as kube-controller-manager does it: client-go's
`tools/leaderelection` with a `resourcelock.LeaseLock` on a `coordination.k8s.io/v1` Lease
(`kube-system/kube-controller-manager`).

Several replicas sharing one store (etcd) each run an elector; only the holder of the Lease runs the
namespace controller and the others. Every write of the Lease is a compare-and-swap on its
resourceVersion through the registry, so two processes can never both believe they acquired it.
Expiry is judged as upstream does: by the local time at which this elector last saw the record change
(`observedTime`), never by the holder's `renewTime`, so clock skew between replicas does not matter.

The Lease's writes are kube-controller-manager's own client's (kind's `controller-manager.conf`: a client
certificate `CN=system:kube-controller-manager`), so webhooks and policies see them (admission/admitted.py, given
`hooks`): a step that reaches a write some webhook or policy selects stops with `Pending`, is admitted, and runs
again with the same `now` (so the write is the one admitted); a refused write is a failed attempt, as upstream's
failed Create/Update.

Differences from kube-controller-manager, deliberate: a replica that loses the Lease stops its controllers
and competes again (kube-controller-manager exits and is restarted by its supervisor), and a graceful stop
releases the Lease (client-go's `ReleaseOnCancel`), so the next replica takes over at once.
"""
from __future__ import annotations

import asyncio
import logging
import random
import socket
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable

from .. import apierrors as E
from ..admission.admitted import KUBE_CONTROLLER_MANAGER_USER, ControllerWrites, Pending, admitted
from ..aiotime import within

log = logging.getLogger("nsconform.reference_server.controller")

JITTER_FACTOR = 1.2  # leaderelection.JitterFactor
GROUP, RESOURCE = "coordination.k8s.io", "leases"


def default_identity(hostname: str = "") -> str:
    """kube-controller-manager's: `hostname + "_" + uuid` (this machine's name unless a flavour names its host)."""
    return f"{hostname or socket.gethostname()}_{uuid.uuid4()}"


@dataclass(frozen=True)
class LeaderElectionConfig:
    """kube-controller-manager's `--leader-elect-*` options (durations in seconds, upstream defaults)."""

    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    namespace: str = "kube-system"
    name: str = "kube-controller-manager"
    identity: str = field(default_factory=default_identity)

    def __post_init__(self) -> None:
        # NewLeaderElector's checks, with its texts
        if self.lease_duration <= self.renew_deadline:
            raise ValueError("leaseDuration must be greater than renewDeadline")
        if self.renew_deadline <= JITTER_FACTOR * self.retry_period:
            raise ValueError("renewDeadline must be greater than retryPeriod*JitterFactor")
        if self.lease_duration < 1:
            raise ValueError("leaseDuration must be greater than zero")  # the Lease holds whole seconds
        if self.retry_period < 0.001:
            raise ValueError("retryPeriod must be greater than zero")
        if not self.identity:
            raise ValueError("Lock identity is empty")


@dataclass
class LeaderElectionRecord:
    """`resourcelock.LeaderElectionRecord`; times are epoch seconds."""

    holder_identity: str = ""
    lease_duration_seconds: int = 0
    acquire_time: float = 0.0
    renew_time: float = 0.0
    leader_transitions: int = 0

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> "LeaderElectionRecord":
        """`LeaseSpecToLeaderElectionRecord`."""
        return cls(holder_identity=spec.get("holderIdentity") or "",
                   lease_duration_seconds=int(spec.get("leaseDurationSeconds") or 0),
                   acquire_time=parse_micro_time(spec.get("acquireTime")),
                   renew_time=parse_micro_time(spec.get("renewTime")),
                   leader_transitions=int(spec.get("leaseTransitions") or 0))

    def to_spec(self) -> dict[str, Any]:
        """`LeaderElectionRecordToLeaseSpec`: every field set (holderIdentity "" after a release)."""
        return {"holderIdentity": self.holder_identity, "leaseDurationSeconds": self.lease_duration_seconds,
                "acquireTime": micro_time(self.acquire_time), "renewTime": micro_time(self.renew_time),
                "leaseTransitions": self.leader_transitions}


def micro_time(t: float) -> str:
    """metav1.MicroTime's JSON form: RFC 3339 with microseconds, UTC."""
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_micro_time(value: Any) -> float:
    if not value:
        return 0.0
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


class LeaseLock:
    """`resourcelock.LeaseLock` on the registry: Get/Create/Update of one Lease, the update carrying the
    resourceVersion last read or written (a 409 when another replica wrote in between)."""

    def __init__(self, registry: Any, namespace: str, name: str, identity: str,
                 writes: ControllerWrites | None = None, field_manager: str = "kube-controller-manager"):
        self.registry, self.namespace, self.name, self.identity = registry, namespace, name, identity
        self.field_manager = field_manager  # the component's user agent
        self.lease: dict[str, Any] | None = None
        self.writes = writes or ControllerWrites(None, "")  # direct until given the server's webhooks

    @property
    def _store(self) -> Any:
        store = self.registry.group(GROUP, RESOURCE)
        if store is None:
            raise RuntimeError("coordination.k8s.io/v1 leases are not served")
        return store

    def describe(self) -> str:
        return f"{self.namespace}/{self.name}"

    def get(self) -> tuple[LeaderElectionRecord, bytes]:
        """The record and its raw form (to notice any change); `StatusError` 404 when there is none."""
        self.lease = self._store.get(self.namespace, self.name)
        spec = self.lease.get("spec") or {}
        raw = repr(sorted(spec.items())).encode()
        return LeaderElectionRecord.from_spec(spec), raw

    def create(self, record: LeaderElectionRecord) -> None:
        self.lease = self.writes.create(
            self._store, {"apiVersion": f"{GROUP}/v1", "kind": "Lease",
             "metadata": {"name": self.name, "namespace": self.namespace}, "spec": record.to_spec()},
            field_manager=self.field_manager)

    def update(self, record: LeaderElectionRecord) -> None:
        if self.lease is None:
            raise RuntimeError("lease not initialized, call get or create first")
        body = dict(self.lease, spec=record.to_spec())
        self.lease = self.writes.update(self._store, self.namespace, self.name, body,
                                        field_manager=self.field_manager)


class LeaderElector:
    """`leaderelection.LeaderElector`: `try_acquire_or_renew` is one step (synchronous, testable with a
    fake `clock`); `run` loops it on the event loop and calls `on_started` / `on_stopped`."""

    def __init__(self, registry: Any, config: LeaderElectionConfig, *,
                 on_started: Callable[[], Any], on_stopped: Callable[[], Awaitable[None]],
                 clock: Callable[[], float] = time.time, hooks: Any = None,
                 user: Any = KUBE_CONTROLLER_MANAGER_USER, field_manager: str = "kube-controller-manager"):
        """`user`, `field_manager`: the component's client (kube-scheduler's elects with its own)."""
        self.config = config
        offload = None if not getattr(registry.store, "remote", False) else _in_thread
        self.lock = LeaseLock(registry, config.namespace, config.name, config.identity,
                              ControllerWrites(hooks, "", offload, user), field_manager)
        self.on_started, self.on_stopped = on_started, on_stopped
        self.clock = clock
        self.observed_record = LeaderElectionRecord()
        self.observed_raw: bytes | None = None
        self.observed_time = 0.0
        self.leading = False  # the callbacks' view: on_started ran and on_stopped has not
        self._task: asyncio.Task[None] | None = None
        self._stopping = False  # the loop's own end, should a cancel be lost (aiotime.py)

    # ---- one step --------------------------------------------------------------------------------
    def is_leader(self) -> bool:
        return self.observed_record.holder_identity == self.config.identity

    def _lease_valid(self, now: float) -> bool:
        return self.observed_time + self.observed_record.lease_duration_seconds > now

    def _observe(self, record: LeaderElectionRecord) -> None:
        self.observed_record = record
        self.observed_time = self.clock()

    def try_acquire_or_renew(self, now: float | None = None) -> bool:
        """Acquire the Lease, or renew it if held; False when another holder's lease is still valid or a
        write lost a race (upstream's `tryAcquireOrRenew`, step by step). `Pending`: a write to be admitted first
        (the step runs again with the same `now`)."""
        now = self.clock() if now is None else now
        record = LeaderElectionRecord(holder_identity=self.config.identity,
                                      lease_duration_seconds=int(self.config.lease_duration),
                                      acquire_time=now, renew_time=now)
        # 1. fast path: the leader updates optimistically with the Lease it wrote last
        if self.is_leader() and self._lease_valid(now):
            record.acquire_time = self.observed_record.acquire_time
            record.leader_transitions = self.observed_record.leader_transitions
            try:
                self.lock.update(record)
                self._observe(record)
                return True
            except Pending:
                raise
            except Exception as exc:  # noqa: BLE001 - a conflict or a storage error: take the slow path
                log.info("leader election: optimistic update of %s failed (%s), falling back to slow path",
                         self.lock.describe(), _why(exc))
        # 2. obtain or create the record
        try:
            old, raw = self.lock.get()
        except E.StatusError as exc:
            if exc.code != 404:
                log.warning("leader election: error retrieving %s: %s", self.lock.describe(), exc.message)
                return False
            try:
                self.lock.create(record)
            except Pending:
                raise
            except Exception as exc2:  # noqa: BLE001 - another replica created it first, or storage down
                log.info("leader election: error initially creating %s: %s", self.lock.describe(), _why(exc2))
                return False
            self._observe(record)
            return True
        except Exception as exc:  # noqa: BLE001 - storage unavailable
            log.warning("leader election: error retrieving %s: %s", self.lock.describe(), _why(exc))
            return False
        # 3. record obtained: check the identity and the time
        if raw != self.observed_raw:
            self._observe(old)
            self.observed_raw = raw
        if old.holder_identity and self._lease_valid(now) and not self.is_leader():
            return False
        # 4. update: keep acquireTime and transitions when renewing, count a transition when taking over
        if self.is_leader():
            record.acquire_time = old.acquire_time
            record.leader_transitions = old.leader_transitions
        else:
            record.leader_transitions = old.leader_transitions + 1
        try:
            self.lock.update(record)
        except Pending:
            raise
        except Exception as exc:  # noqa: BLE001 - another replica won the race (409) or storage down
            log.info("leader election: failed to update %s: %s", self.lock.describe(), _why(exc))
            return False
        self._observe(record)
        return True

    def release(self, now: float | None = None) -> bool:
        """Give the Lease up (holder "", duration 1 s) so another replica need not wait for it to expire."""
        if not self.is_leader():
            return True
        now = self.clock() if now is None else now
        record = LeaderElectionRecord(lease_duration_seconds=1, acquire_time=now, renew_time=now,
                                      leader_transitions=self.observed_record.leader_transitions)
        try:
            self.lock.update(record)
        except Pending:
            raise
        except Exception as exc:  # noqa: BLE001
            log.warning("leader election: failed to release %s: %s", self.lock.describe(), _why(exc))
            return False
        self._observe(record)
        return True

    # ---- the loop --------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the election loop. On a local store the first attempt is made now, so a lone server leads
        (and its controllers run) before `start` returns; a remote store (etcd) is never called on the loop."""
        led = False
        if not self._remote:
            try:
                led = self.try_acquire_or_renew()
            except Pending:  # (a webhook on leases: the loop's first attempt has it admitted)
                led = False
            if led:
                self._lead()
        self._task = asyncio.get_running_loop().create_task(self._run(first_now=self._remote and not led))

    @property
    def _remote(self) -> bool:
        return bool(getattr(self.lock.registry.store, "remote", False))

    async def _step(self, fn: Callable[[float], bool]) -> bool:
        """One storage step, in a worker thread when the store blocks on the network; a write it reaches that
        must be admitted first is, and the step runs again at the same `now`."""
        now = self.clock()
        return await admitted(self._call, fn, now)

    async def _call(self, fn: Callable[[float], bool], now: float) -> bool:
        return await asyncio.to_thread(fn, now) if self._remote else fn(now)

    async def _renew_before(self, deadline: float) -> bool:
        """An attempt that does not outlive the renew deadline (upstream's timeout context): a hung etcd
        must not keep this replica's controllers running past it."""
        try:
            return await within(self._step(self.try_acquire_or_renew),
                                max(0.001, deadline - asyncio.get_running_loop().time()))
        except asyncio.TimeoutError:
            return False

    def _lead(self) -> None:
        log.info("leader election: %s successfully acquired lease %s", self.config.identity, self.lock.describe())
        self.leading = True
        self.on_started()

    async def _run(self, first_now: bool) -> None:
        cfg = self.config
        loop = asyncio.get_running_loop()
        while not self._stopping:
            if not self.leading:
                if not first_now:
                    await asyncio.sleep(cfg.retry_period * (1 + random.random() * JITTER_FACTOR))  # JitterUntil
                first_now = False
                if not await self._step(self.try_acquire_or_renew):
                    continue
                self._lead()
            # renew: every retry period; a renewal not achieved within the renew deadline loses the lease
            await asyncio.sleep(cfg.retry_period)
            deadline = loop.time() + cfg.renew_deadline
            while not self._stopping and not await self._renew_before(deadline):
                if loop.time() + cfg.retry_period > deadline:
                    log.warning("leader election: %s lost lease %s", cfg.identity, self.lock.describe())
                    self.leading = False
                    await self.on_stopped()
                    break
                await asyncio.sleep(cfg.retry_period)

    async def stop(self) -> None:
        """End the loop; stop the controllers and release the Lease if held."""
        self._stopping = True
        if self._task is not None:
            task, self._task = self._task, None
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        if self.leading:
            self.leading = False
            await self.on_stopped()
            await self._step(self.release)


async def _in_thread(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """A remote store's preview writes, off the event loop (as the elector's steps)."""
    return await asyncio.to_thread(fn, *args, **kw)


def _why(exc: BaseException) -> str:
    return exc.message if isinstance(exc, E.StatusError) else f"{type(exc).__name__}: {exc}"
