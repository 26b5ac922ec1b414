"""Events written by the controllers, as client-go's event recorders write them.

`EventRecorder` follows `tools/record` (`event.go` `makeEvent`/`recordToSink`, `events_cache.go` the
`EventCorrelator`), what kube-controller-manager's controllers use: a core/v1 Event named
`<object>.<hex of the Unix nanoseconds>` in the object's namespace (`default` for a cluster-scoped one), with
`involvedObject` (the object's reference), `reason`, `message`, `type`, `source.component`,
`reportingComponent` (= the component; `reportingInstance` = the source's host, empty for the controllers),
`firstTimestamp`/`lastTimestamp` and `count` 1. Before the write the correlator:

* aggregates: the 10th distinct message of the same source, object, type and reason within 600 s becomes an
  event of its own whose message is `(combined from similar events): <message>` (later ones count on it);
* counts: an event seen before (same key, message included) is a PATCH of `count` + 1, `lastTimestamp` and
  `message` on the first one's name (created again if that one is gone);
* filters spam: a token bucket per source and object, 25 events, refilled at 1 per 300 s; beyond, dropped.

`events_api=True` follows `tools/events` instead (kube-scheduler's recorder): the Event is created through the
events.k8s.io/v1 store (registry/eventsview.py), so admission webhooks and policies see an `events.k8s.io/v1`
`events` CREATE, with `eventTime` in microseconds, `action`, `reportingController`/`reportingInstance`, and no
deprecated source, timestamps or count (its series bookkeeping is left out: this server's scheduler tries each
pod once).

Writes are synchronous, through the registry with the server's admission (an Event in a namespace being
terminated is refused, and dropped, as upstream's sink logs and drops it). Upstream writes from a goroutine;
every failure here is dropped just the same, never raised into the controller's sync.
"""
from __future__ import annotations

import asyncio
import copy
import datetime as _dt
import logging
import threading
import time
from collections import OrderedDict
from typing import Any, Callable

from .. import apierrors as E
from .. import eventsv1
from ..admission import create_admission
from ..admission.admitted import ControllerWrites, admitted
from ..registry import Registry
from .loop import SYNC_EVENTS

log = logging.getLogger("nsconform.reference_server.controller")

LRU_ENTRIES = 4096
AGGREGATE_MAX_EVENTS = 10
AGGREGATE_INTERVAL_S = 600
SPAM_BURST = 25
SPAM_QPS = 1.0 / 300.0
COMBINED = "(combined from similar events): "
NORMAL, WARNING = "Normal", "Warning"


class _LRU(OrderedDict):  # type: ignore[type-arg]
    """groupcache's `lru.Cache`: at most `size` entries, the least recently used one dropped."""

    def __init__(self, size: int = LRU_ENTRIES):
        super().__init__()
        self.size = size

    def get_(self, key: str) -> Any:
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def add(self, key: str, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


def object_reference(obj: dict[str, Any]) -> dict[str, Any]:
    """`reference.GetReference`: kind, namespace, name, uid, apiVersion, resourceVersion (as Go orders them)."""
    meta = obj.get("metadata") or {}
    ref = {"kind": obj.get("kind", ""), "namespace": meta.get("namespace", ""), "name": meta.get("name", ""),
           "uid": meta.get("uid", ""), "apiVersion": obj.get("apiVersion", ""),
           "resourceVersion": meta.get("resourceVersion", "")}
    return {k: v for k, v in ref.items() if v}


def _source_object_key(ev: dict[str, Any]) -> str:
    src, ref = ev.get("source") or {}, ev["involvedObject"]
    return "\x00".join((src.get("component", ""), src.get("host", ""), ref.get("kind", ""),
                        ref.get("namespace", ""), ref.get("name", ""), ref.get("uid", ""),
                        ref.get("apiVersion", "")))


def event_key(ev: dict[str, Any]) -> str:
    """`getEventKey`: source, object (field path included), type, reason, message."""
    ref = ev["involvedObject"]
    return "\x00".join((_source_object_key(ev), ref.get("fieldPath", ""), ev.get("type", ""),
                        ev.get("reason", ""), ev.get("message", "")))


def aggregate_key(ev: dict[str, Any]) -> str:
    """`EventAggregatorByReasonFunc`'s aggregate key (the local key is the message)."""
    return "\x00".join((_source_object_key(ev), ev.get("type", ""), ev.get("reason", ""),
                        ev.get("reportingComponent", ""), ev.get("reportingInstance", "")))


class _TokenBucket:
    """`flowcontrol.NewTokenBucketRateLimiter(qps, burst)`'s `TryAccept`."""

    def __init__(self, qps: float, burst: int, now: float):
        self.qps, self.burst, self.tokens, self.last = qps, burst, float(burst), now

    def try_accept(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.qps)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class EventCorrelator:
    """`record.NewEventCorrelator` with its defaults: aggregation, then counting, then the spam filter."""

    def __init__(self, clock: Callable[[], float] = time.time):
        self.clock = clock
        self._aggregates = _LRU()   # aggregate key → (set of messages, last time)
        self._seen = _LRU()         # event key → (count, firstTimestamp, name)
        self._spam = _LRU()         # source+object → token bucket
        self.lock = threading.Lock()

    def correlate(self, ev: dict[str, Any], stamp: str, name: str) -> tuple[dict[str, Any] | None, bool]:
        """(the event to write or None to drop it, whether it is an update of one written before)."""
        with self.lock:
            now = self.clock()
            ev, key = self._aggregate(ev, now, stamp, name)
            count, first, first_name = self._seen.get_(key) or (0, "", "")
            update = count > 0
            if update:
                ev["metadata"]["name"], ev["firstTimestamp"], ev["count"] = first_name, first, count + 1
            self._seen.add(key, (ev["count"], ev["firstTimestamp"], ev["metadata"]["name"]))
            spam_key = _source_object_key(ev)
            bucket = self._spam.get_(spam_key) or _TokenBucket(SPAM_QPS, SPAM_BURST, now)
            accepted = bucket.try_accept(now)
            self._spam.add(spam_key, bucket)
            return (ev if accepted else None), update

    def _aggregate(self, ev: dict[str, Any], now: float, stamp: str, name: str) -> tuple[dict[str, Any], str]:
        """`EventAggregate`."""
        akey = aggregate_key(ev)
        messages, last = self._aggregates.get_(akey) or (set(), 0.0)
        if now - last > AGGREGATE_INTERVAL_S:
            messages = set()
        messages.add(ev.get("message", ""))
        self._aggregates.add(akey, (messages, now))
        if len(messages) < AGGREGATE_MAX_EVENTS:
            return ev, event_key(ev)
        messages.pop()
        combined = {"metadata": {"name": name, "namespace": ev["metadata"]["namespace"]},
                    "involvedObject": ev["involvedObject"], "reason": ev.get("reason", ""),
                    "message": COMBINED + ev.get("message", ""), "source": ev.get("source") or {},
                    "firstTimestamp": stamp, "lastTimestamp": stamp, "count": 1, "type": ev.get("type", "")}
        return combined, akey

    def update_state(self, ev: dict[str, Any]) -> None:
        """`UpdateState`: what the server returned is the state counted on next time."""
        with self.lock:
            self._seen.add(event_key(ev), (ev.get("count", 1), ev.get("firstTimestamp", ""),
                                           ev["metadata"]["name"]))


class EventRecorder:
    """One component's recorder (upstream: one broadcaster per controller, so one correlator each)."""

    def __init__(self, registry: Registry, component: str, admission: Any = None, *, host: str = "",
                 events_api: bool = False, action: str = "", field_manager: str = "kube-controller-manager",
                 clock: Callable[[], float] = time.time):
        self.registry, self.component, self.admission, self.host = registry, component, admission, host
        self.events_api, self.action, self.field_manager, self.clock = events_api, action, field_manager, clock
        self.correlator = EventCorrelator(clock)
        self._last_ns = 0
        self._lock = threading.Lock()
        self.writes = ControllerWrites(None, "")  # the controller's (its service account), set by use_webhooks
        self.loop: asyncio.AbstractEventLoop | None = None
        self._sending: set[asyncio.Task[Any]] = set()
        self._last: asyncio.Task[Any] | None = None  # the event sent last (the next one waits for it)

    def _name(self, obj_name: str) -> str:
        """`<name>.<hex UnixNano>`, strictly increasing in this recorder (two events in one tick differ)."""
        with self._lock:
            now = time.time_ns() if self.clock is time.time else int(self.clock() * 1e9)  # a float loses the ns
            ns = max(now, self._last_ns + 1)
            self._last_ns = ns
        return f"{obj_name}.{ns:x}"

    def event(self, obj: dict[str, Any], type_: str, reason: str, message: str) -> None:
        """`Event(object, eventtype, reason, message)`; never raises."""
        try:
            self._record(obj, type_, reason, message)
        except Exception as exc:  # a lost event must never fail the controller's sync (upstream: logged)
            log.info("%s: event %s on %s dropped: %s", self.component, reason,
                     (obj.get("metadata") or {}).get("name"), exc)

    def _record(self, obj: dict[str, Any], type_: str, reason: str, message: str) -> None:
        store = self.registry.content("events")
        if store is None:
            return
        ref = object_reference(obj)
        sync = SYNC_EVENTS.get()
        if sync is not None and not sync.first((ref.get("uid"), ref.get("name"), type_, reason, message)):
            return  # recorded by this sync's run that a pending admission stopped
        namespace = ref.get("namespace") or "default"
        now = _dt.datetime.fromtimestamp(self.clock(), _dt.timezone.utc)
        name = self._name(ref.get("name", ""))
        if self.events_api:  # tools/events: no correlator but its series (not kept here)
            store = self.registry.group(eventsv1.GROUP, "events") or store
            ev = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": namespace},
                  "involvedObject": ref, "reason": reason, "message": message, "source": {},
                  "firstTimestamp": None, "lastTimestamp": None, "type": type_,
                  "eventTime": now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "action": self.action,
                  "reportingComponent": self.component, "reportingInstance": self.host}
            if store.info.kind == "Event" and getattr(store, "group", "") == eventsv1.GROUP:
                ev = {k: v for k, v in eventsv1.to_v1(ev).items()  # the events.k8s.io/v1 client's object
                      if not (k.startswith("deprecated") and not v)}
            if self.writes.active() and self.loop is not None:
                self._send_later(store, lambda: (ev, False))
                return
            self._create(store, ev)
            return
        stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
        source = {"component": self.component, **({"host": self.host} if self.host else {})}
        ev = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": namespace},
              "involvedObject": ref, "reason": reason, "message": message, "source": source,
              "firstTimestamp": stamp, "lastTimestamp": stamp, "count": 1, "type": type_,
              "eventTime": None, "reportingComponent": self.component, "reportingInstance": self.host}
        if self.writes.active() and self.loop is not None:  # through the webhooks: sent by the broadcaster
            self._send_later(store, lambda: self._correlated(ev, stamp, name))
            return
        out, update = self._correlated(ev, stamp, name)
        if out is None:
            return
        written = None
        if update:
            written = self._patch(store, out)
        if written is None:
            out["metadata"].pop("resourceVersion", None)
            written = self._create(store, out)
        if written is not None:
            self.correlator.update_state(written)

    def _correlated(self, ev: dict[str, Any], stamp: str, name: str) -> tuple[dict[str, Any] | None, bool]:
        out, update = self.correlator.correlate(ev, stamp, name)
        if out is not None:
            out.setdefault("apiVersion", "v1")
            out.setdefault("kind", "Event")
        return out, update

    def _send_later(self, store: Any, correlate: Callable[[], tuple[dict[str, Any] | None, bool]]) -> None:
        """client-go's broadcaster correlates and writes events one after the other in its own goroutine: here a
        task on the loop per event, each after the one before (so the correlator sees the last write), and a
        webhook call never holds the controller's sync (which may be off the loop, on etcd)."""
        loop = self.loop
        assert loop is not None

        async def send(before: asyncio.Task[Any] | None) -> None:
            if before is not None:
                await asyncio.wait([before])
            ev, update = correlate()
            if ev is None:
                return
            try:
                written = None
                if update:
                    written = await admitted(self._offloaded, self._patch, store, ev)
                if written is None:
                    ev["metadata"].pop("resourceVersion", None)
                    written = await admitted(self._offloaded, self._create, store, ev)
            except Exception as exc:  # a lost event is logged, as the broadcaster's
                log.info("%s: event %s dropped: %s", self.component, ev.get("reason"), exc)
                return
            if written is not None and not self.events_api:  # (tools/events has no correlator)
                self.correlator.update_state(written)

        def start() -> None:
            task = loop.create_task(send(self._last))
            self._last = task
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)
        try:
            on_loop = asyncio.get_running_loop() is loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            start()
        else:
            loop.call_soon_threadsafe(start)

    async def close(self) -> None:
        """The events still being sent are dropped (the controller stops)."""
        for task in list(self._sending):
            task.cancel()
        await asyncio.gather(*self._sending, return_exceptions=True)

    async def _offloaded(self, fn: Callable[..., Any], *args: Any) -> Any:
        offload = self.writes.offload
        return await offload(fn, *args) if offload is not None else fn(*args)

    def _patch(self, store: Any, ev: dict[str, Any]) -> dict[str, Any] | None:
        """The correlator's strategic-merge patch: count, lastTimestamp and message; None when it is gone."""
        def change(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            new["count"], new["lastTimestamp"], new["message"] = ev["count"], ev["lastTimestamp"], ev["message"]
            return new
        try:
            return self.writes.update(store, ev["metadata"]["namespace"], ev["metadata"]["name"], transform=change,
                                      field_manager=self.field_manager)
        except E.StatusError as exc:
            if exc.code == 404:
                return None
            raise

    def _create(self, store: Any, ev: dict[str, Any]) -> dict[str, Any] | None:
        try:
            return self.writes.create(store, ev, field_manager=self.field_manager,
                                      **create_admission(self.admission, store.info))
        except E.StatusError as exc:  # namespace terminating, quota, a name taken: upstream drops it too
            log.debug("%s: event %s not written: %s", self.component, ev["reason"], exc.message)
            return None


__all__ = ["EventCorrelator", "EventRecorder", "NORMAL", "WARNING", "object_reference"]
