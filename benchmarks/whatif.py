"""What-if patches for `python -m benchmarks --prelude benchmarks.whatif:<name>`.

Each function monkeypatches the reference server *in the benchmark's server process only* to try one
of the fixes proposed in benchmarks/README.md, so its effect can be measured before anyone edits the
server. They copy small pieces of the server's logic and will go stale as the server changes; they are
experiments, not fixes. `all` applies every one.
"""
from __future__ import annotations

import asyncio
import copy as _copy
import itertools
import threading
import types
from collections import OrderedDict
from typing import Any


def _clone(o: Any) -> Any:
    """Deep copy for JSON-shaped data (dict/list/scalars): ~3x faster than copy.deepcopy."""
    t = type(o)
    if t is dict:
        return {k: _clone(v) for k, v in o.items()}
    if t is list:
        return [_clone(v) for v in o]
    if t in (str, int, float, bool) or o is None:
        return o
    return _copy.deepcopy(o)


def fast_copy() -> None:
    """storage/memory.py and registry/store.py: copy.deepcopy -> a JSON-shaped clone."""
    from conformance.reference_server.registry import store as reg_store
    from conformance.reference_server.storage import memory

    shim = types.SimpleNamespace(deepcopy=_clone, copy=_copy.copy)
    memory.copy = shim  # type: ignore[attr-defined]
    reg_store.copy = shim  # type: ignore[attr-defined]


def deliver_on_loop() -> None:
    """MemoryWatcher.deliver: put on the queue directly when already on the watcher's loop thread
    (call_soon_threadsafe writes to the loop's self-pipe: one syscall per watcher per event)."""
    from conformance.reference_server.storage.memory import MemoryWatcher

    threadsafe = MemoryWatcher.deliver

    def deliver(self: Any, item: Any) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self.queue.put_nowait(item)
        else:
            threadsafe(self, item)

    MemoryWatcher.deliver = deliver  # type: ignore[method-assign]


def encode_once() -> None:
    """http/watch.py: encode each event once for all watchers instead of once per watcher."""
    from conformance.reference_server.http import watch

    plain = watch.dumps
    cache: OrderedDict[tuple[str, int], tuple[Any, bytes]] = OrderedDict()
    lock = threading.Lock()

    def dumps(obj: Any) -> bytes:
        if type(obj) is dict and len(obj) == 2 and "type" in obj and "object" in obj:
            key = (obj["type"], id(obj["object"]))
            with lock:
                hit = cache.get(key)
                if hit is not None and hit[0] is obj["object"]:
                    return hit[1]
            out = plain(obj)
            with lock:
                cache[key] = (obj["object"], out)  # holds the object, so its id stays unique
                while len(cache) > 256:
                    cache.popitem(last=False)
            return out
        return plain(obj)

    watch.dumps = dumps  # type: ignore[assignment]


def history_tail() -> None:
    """MemoryStore.watch from a resourceVersion: walk the history from its newest end (events are in
    rv order) instead of scanning all of it (up to 10,000 events) for every watch start."""
    from conformance.reference_server.storage import memory
    from conformance.reference_server.storage.errors import TooOldResourceVersionError

    original = memory.MemoryStore.watch

    def watch(self: Any, resource: str, namespace: str | None, from_rv: int, loop: asyncio.AbstractEventLoop):
        if from_rv <= 0:
            return original(self, resource, namespace, from_rv, loop)
        with self._lock:
            w = memory.MemoryWatcher(self, resource, namespace, loop)
            if from_rv < self._compacted:
                raise TooOldResourceVersionError(from_rv, self._compacted)
            newer = list(itertools.takewhile(lambda ev: ev.rv > from_rv, reversed(self._history)))
            backlog = [ev for ev in reversed(newer) if w.matches(ev)]
            self._watchers.append(w)
            return backlog, w

    memory.MemoryStore.watch = watch  # type: ignore[method-assign]


def share_event_objects() -> None:
    """MemoryStore._emit: the event (kept in the 10,000-event history) references the stored object
    instead of a deep copy of it. Safe because the store never mutates a stored dict in place (writes
    replace it) and no watch consumer mutates `Event.object`."""
    from conformance.reference_server.storage import memory
    from conformance.reference_server.storage.interface import Event

    def _emit(self: Any, typ: str, resource: str, namespace: str, name: str, obj: dict, prev: dict | None) -> None:
        ev = Event(typ, resource, namespace, name, self._rv, obj, prev)
        self._history.append(ev)
        while len(self._history) > self._history_size:
            self._compacted = self._history.popleft().rv
        for w in list(self._watchers):
            if w.closed:
                self._watchers.remove(w)
            elif w.matches(ev):
                w.deliver(ev)

    memory.MemoryStore._emit = _emit  # type: ignore[method-assign]


def shallow_reads() -> None:
    """MemoryStore.get: a shallow copy (new top-level and metadata dicts) instead of a deep copy — an
    upper bound for "don't copy on reads that only serialise". NOT safe as is (a dry-run namespace
    delete mutates the nested status of what `get` returns); measurement only, not part of `all`."""
    from conformance.reference_server.storage import memory
    from conformance.reference_server.storage.errors import KeyNotFoundError
    from conformance.reference_server.storage.interface import object_key

    def get(self: Any, resource: str, namespace: str, name: str) -> dict[str, Any]:
        with self._lock:
            obj = self._index.get((resource, namespace), {}).get(name)
            if obj is None:
                raise KeyNotFoundError(object_key(resource, namespace, name))
            return {**obj, "metadata": dict(obj["metadata"])}

    memory.MemoryStore.get = get  # type: ignore[method-assign]


def cache_wire_attr() -> None:
    """http/hooks.wire_attr: resolve each wire function once instead of importlib on every response."""
    import functools

    from conformance.reference_server.http import hooks

    hooks.wire_attr = functools.lru_cache(maxsize=None)(hooks.wire_attr)  # type: ignore[assignment]


def reads() -> None:
    """Every read-path experiment together (upper bound for the GET path; includes the unsafe one)."""
    shallow_reads()
    cache_wire_attr()
    fast_copy()


def all() -> None:  # noqa: A001 - the name users type
    cache_wire_attr()
    share_event_objects()
    fast_copy()
    deliver_on_loop()
    encode_once()
    history_tail()
