"""The watch cache (upstream's `cacher`): an in-memory mirror of every object under the prefix, fed by one etcd
watch, serving gets, lists, counts and watches without a round trip to etcd.

The mirror is a `MemoryStore` whose resourceVersions come from etcd (the mod revision of each change) instead
of its own counter: its history window, reads at a past RV, watch backlogs and progress marks are the memory
store's own code. A writer that got revision R from etcd waits (`wait_for(R)`) until the mirror has applied R,
so a client reads its own writes from any replica's cache once that replica has seen them.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from ..goport.gojsonnum import loads_stored
from .clone import clone
from .etcdapi import KVClient, prefix_range_end
from .etcdclient import EtcdCompacted, EtcdError
from .keys import parse_key
from .memory import MemoryStore

log = logging.getLogger("nsconform.reference_server.storage")


def decode_value(prefix: str, key: bytes, value: bytes, mod_revision: int) -> tuple[str, str, str, dict] | None:
    """(resource, namespace, name, object with its resourceVersion) of one etcd kv; None when it is not ours
    (not JSON, e.g. kube-apiserver's protobuf `k8s\\0` envelope, or outside the key layout)."""
    try:
        obj = loads_stored(value)  # a raw-JSON field's numbers as they were sent (gojsonnum.py)
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    parsed = parse_key(prefix, key.decode(errors="replace"), obj)
    if parsed is None:
        return None
    return (*parsed, with_revision(obj, mod_revision))


_BEFORE_RV = frozenset(("name", "generateName", "namespace", "selfLink", "uid"))  # ObjectMeta's struct order


def with_revision(obj: dict[str, Any], rv: int) -> dict[str, Any]:
    """A decoded object (the value stores no resourceVersion, as upstream's) with its `resourceVersion` in the
    place its answer shows it: after `uid` in ObjectMeta's struct order (a built-in kind, whose root starts with
    `kind`), else where a sorted map has it (a custom resource: wire/gomaps.py). Watch events show the decoded
    object as it is."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        obj["metadata"] = {"resourceVersion": str(rv)}
        return obj
    meta.pop("resourceVersion", None)
    typed = next(iter(obj)) == "kind"
    at = 0
    for k in meta:
        if (k not in _BEFORE_RV) if typed else (k > "resourceVersion"):
            break
        at += 1
    if at == len(meta):
        meta["resourceVersion"] = str(rv)
        return obj
    items = list(meta.items())
    obj["metadata"] = {**dict(items[:at]), "resourceVersion": str(rv), **dict(items[at:])}
    return obj


class WatchCache(MemoryStore):
    """A `MemoryStore` written only by `apply`/`load` (changes etcd reported), read by everything else."""

    def __init__(self, history_size: int = 10000):
        super().__init__(history_size=history_size, start_rv=0)
        self._seen = threading.Condition(self._lock)
        self.closed = False

    def load(self, objects: list[tuple[str, str, str, dict]], rv: int) -> None:
        """Replace the whole state with a list read at `rv`; history starts there. Open watches end (their
        clients re-watch, and get 410 when their RV is older than the new window), as upstream's cacher."""
        with self._lock:
            self._index.clear()
            for resource, ns, name, obj in objects:
                self._index.setdefault((resource, ns), {})[name] = obj
            self._history.clear()
            self._rv = max(self._rv, rv)
            self._compacted = self._rv
            self._seen.notify_all()
            self._rv_waiters.wake(self._rv)
        self.observer.reloaded()
        self.close_watchers()

    def list_at(self, resource: str, namespace: str | None, rv: int, *,
                shared: bool = False) -> tuple[list[dict[str, Any]], int]:
        """The cache's view at `rv` (no etcd request: the etcd store reports its own range reads)."""
        return self._list_at(resource, namespace, rv, shared)

    def namespace_of(self, resource: str, name: str) -> str | None:
        """The namespace of a namespaced object found by resource and name alone (a key without its namespace)."""
        with self._lock:
            return next((ns for ns, bucket in self._index.buckets(resource) if ns and name in bucket), None)

    def apply(self, typ: str, resource: str, ns: str, name: str, obj: dict | None, rv: int) -> bool:
        """One change etcd reported: PUT (`obj`) or DELETE (`obj` None) at revision `rv`. False (and nothing
        applied) for a DELETE of an object the cache does not hold under that name."""
        with self._lock:
            if typ == "DELETE":
                bucket = self._index.get((resource, ns))
                prev = bucket.pop(name, None) if bucket is not None else None
                if prev is None:
                    return False
                if not bucket:
                    del self._index[(resource, ns)]
                self._rv = max(self._rv, rv)
                gone = {**prev, "metadata": {**(prev.get("metadata") or {}), "resourceVersion": str(rv)}}
                self._emit("DELETED", resource, ns, name, gone, prev, rv)
            else:
                bucket = self._index.setdefault((resource, ns), {})
                prev = bucket.get(name)
                self._rv = max(self._rv, rv)
                bucket[name] = obj  # type: ignore[assignment]
                self._emit("MODIFIED" if prev is not None else "ADDED", resource, ns, name, obj, prev, rv)
            self._seen.notify_all()
            return True

    def advance(self, rv: int) -> None:
        """etcd's progress notification: nothing under the prefix changed up to `rv`."""
        with self._lock:
            if rv > self._rv:
                self._rv = rv
                self._seen.notify_all()
                if self._rv_waiters:
                    self._rv_waiters.wake(rv)

    def wait_for(self, rv: int, timeout: float) -> bool:
        """True once the cache has applied `rv`; False after `timeout` or when the cache is shut."""
        with self._lock:
            return self._seen.wait_for(lambda: self._rv >= rv or self.closed, timeout) and not self.closed

    def shut(self) -> None:
        """No more changes will come: release every writer waiting for one."""
        with self._lock:
            self.closed = True
            self._seen.notify_all()

    def snapshot(self, resource: str, namespace: str, name: str) -> dict[str, Any] | None:
        """The cached object itself (read-only) or None."""
        with self._lock:
            return self._index.get((resource, namespace), {}).get(name)


class Reflector:
    """Lists the prefix once, then follows it with one etcd watch into a `WatchCache`, re-listing when etcd has
    compacted past where the watch was and reconnecting (from the last revision seen) when etcd goes away."""

    def __init__(self, client: KVClient, prefix: str, cache: WatchCache,
                 on_error: Callable[[Exception], None] | None = None):
        self.client, self.prefix, self.cache = client, prefix, cache
        self._stop = threading.Event()
        self._stream: Any = None
        self._thread: threading.Thread | None = None
        self._on_error = on_error
        self.revision = 0
        self._ids: dict[bytes, tuple[str, str, str]] = {}  # etcd key -> (resource, namespace, name) in the cache

    def start(self) -> None:
        self.relist()  # EtcdUnavailable here reaches the caller: the server does not start on a dead etcd
        self._thread = threading.Thread(target=self._run, name="etcd-reflector", daemon=True)
        self._thread.start()

    def relist(self) -> None:
        start = (self.prefix + "/").encode()
        out = self.client.get(start, range_end=prefix_range_end(start))
        rev = out.revision
        objects = []
        ids = {}
        for kv in out.kvs:
            d = decode_value(self.prefix, kv.key, kv.value, kv.mod_revision)
            if d is not None:
                objects.append(d)
                ids[kv.key] = d[:3]
        self._ids = ids
        self.cache.load(objects, rev)
        self.revision = rev

    def _run(self) -> None:
        backoff = 0.05
        while not self._stop.is_set():
            try:
                start = (self.prefix + "/").encode()
                self._stream = self.client.watch_range(start, prefix_range_end(start), self.revision + 1)
                if self._stop.is_set():  # `stop` ran while the watch was being opened, and found none to close
                    self._stream.close()
                    return
                for batch in self._stream:
                    backoff = 0.05
                    for deleted, kv in batch.events:
                        rv = kv.mod_revision
                        if deleted:
                            self._apply_delete(kv.key, rv)
                        else:
                            d = decode_value(self.prefix, kv.key, kv.value, rv)
                            if d is not None:
                                self._ids[kv.key] = d[:3]
                                self.cache.apply("PUT", d[0], d[1], d[2], d[3], rv)
                            else:
                                self.cache.advance(rv)
                        self.revision = rv
                    if not batch.events and not batch.created:  # a progress notification
                        self.cache.observer.bookmark(batch.revision)
                        if batch.revision > self.revision:
                            self.revision = batch.revision
                            self.cache.advance(batch.revision)
            except EtcdCompacted:
                if self._stop.is_set():
                    return
                log.warning("etcd compacted past the watch cache (revision %d): re-listing", self.revision)
                self._retry(self.relist)
                continue
            except (EtcdError, OSError, ValueError, Exception) as e:  # noqa: BLE001 - reconnect on anything
                if self._stop.is_set():
                    return
                if self._on_error:
                    self._on_error(e)
                log.debug("etcd watch ended (%s): reconnecting", e)
            self._stop.wait(backoff)
            backoff = min(backoff * 2, 2.0)

    def _retry(self, fn: Callable[[], None]) -> None:
        while not self._stop.is_set():
            try:
                fn()
                return
            except Exception as e:  # noqa: BLE001
                log.debug("re-list failed (%s), retrying", e)
                self._stop.wait(0.5)

    def _apply_delete(self, key: bytes, rv: int) -> None:
        """A DELETE event carries no value: find the object by its key (noted when it was put), else by the
        key's layout in the cache."""
        hit = self._ids.pop(key, None)
        if hit is not None and self.cache.apply("DELETE", *hit, None, rv):
            return
        hit = self._lookup(key.decode(errors="replace"))
        if hit is None or not self.cache.apply("DELETE", *hit, None, rv):
            self.cache.advance(rv)

    def _lookup(self, key: str) -> tuple[str, str, str] | None:
        from .keys import resource_of
        rest = key[len(self.prefix) + 1:]
        parts = rest.split("/")
        # the root is 1 or 2 segments (`services/specs`, `group/plural`); namespaced keys have one more
        for root_len in (1, 2):
            for namespaced in (True, False):
                n = root_len + (2 if namespaced else 1)
                if len(parts) != n:
                    continue
                resource = resource_of("/".join(parts[:root_len]))
                ns, name = (parts[root_len], parts[root_len + 1]) if namespaced else ("", parts[root_len])
                if self.cache.snapshot(resource, ns, name) is not None:
                    return resource, ns, name
        if len(parts) in (2, 3):  # a namespaced object keyed without its namespace (content-keys-without-namespace)
            resource = resource_of("/".join(parts[:-1]))
            ns = self.cache.namespace_of(resource, parts[-1])
            if ns:
                return resource, ns, parts[-1]
        return None

    def request_progress(self) -> bool:
        """Ask etcd for a progress notification on the cache's watch now (upstream's `RequestWatchProgress`):
        its answer moves the cache to etcd's current revision when nothing under the prefix changed. False when
        the transport cannot (the gateway) or no watch is open."""
        stream = self._stream
        return stream is not None and stream.request_progress()

    def stop(self) -> None:
        self._stop.set()
        if self._stream is not None:
            self._stream.close()
        if self._thread is not None:
            self._thread.join(5)


__all__ = ["Reflector", "WatchCache", "clone", "decode_value"]
