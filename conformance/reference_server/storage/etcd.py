"""The etcd store: kube-apiserver's storage layout, revisions and transactions, reads from a watch cache.

- keys as kube-apiserver writes them (`keys.py`), values JSON (kube-apiserver writes protobuf in a `k8s\\0`
  envelope; an object it wrote is skipped here);
- resourceVersion = the object's etcd mod revision (never stored in the value, as upstream's
  `APIObjectVersioner`);
- create: txn(create_revision == 0); update and delete: txn(mod_revision == the revision read), retried on a
  lost compare-and-swap with the state etcd returned, as upstream's `GuaranteedUpdate`;
- reads (get, list, count, watch) come from the process's `WatchCache`; a list at a revision older than the
  cache's window is a range read at that revision in etcd (410 once etcd compacted it); a get or list at
  resourceVersion "" is first made as fresh as etcd by the HTTP layer's `FreshnessGate` (`freshness.py`:
  `revision_request`, `wait_fresh`, and a read from etcd under `READ_AT` when the cache cannot catch up);
- every write returns only once the cache has seen its revision (read-your-writes in this process; other
  processes see it once their own cache has).

Its calls block on network round trips: `remote = True` tells the HTTP layer to run writes off the event loop.
"""
from __future__ import annotations

import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

from ..goport import gojsonraw
from ..goport.gojsonnum import encode as go_encode, loads_stored
from .cacher import Reflector, WatchCache, decode_value, with_revision
from .clone import clone
from .errors import KeyExistsError, KeyNotFoundError, StorageError, TooOldResourceVersionError
from .etcdapi import Cmp, KeyValue, KVClient, Op, TxnResult, prefix_range_end
from .etcdclient import EtcdCompacted, EtcdError, EtcdUnavailable, b64
from .freshness import READ_AT
from .interface import DELETE, NO_OBSERVER, StorageObserver, UpdateFn
from .leases import REUSE_DURATION_SECONDS, LeaseManager
from ..deviations import NONE, Deviations
from .keys import MISPLACED_NAMESPACES, collection_key, object_key
from .memory import _same

log = logging.getLogger("nsconform.reference_server.storage")
CACHE_WAIT = 10.0  # seconds a write waits for the cache to see it (then returns anyway, logged)
PROGRESS_INTERVAL = 0.1  # while a read waits for the cache: a progress request this often (upstream's 100 ms)
T = TypeVar("T")
DELETE_WORKERS = 8  # deletions in flight at once in `delete_many` on a client that cannot pipeline (gateway)


def _bytes(key: str) -> bytes:
    """A key's bytes: a name from a request path may hold a byte that is not UTF-8 (http/gopath.py keeps it
    surrogate-escaped), which etcd, whose keys are bytes, is given as the byte itself, as Go's string holds it."""
    return key.encode("utf-8", "surrogateescape")


def _removal(check: Callable[[dict[str, Any]], None] | None) -> Callable[[dict[str, Any]], Any]:
    """The transform of a deletion in `delete_many`: `check` (which may refuse, raising) then DELETE."""
    def remove(obj: dict[str, Any]) -> Any:
        if check is not None:
            check(obj)
        return DELETE
    return remove


class EtcdStore:
    """A `storage.Store` on etcd (one per server process; any number of processes may share one etcd)."""

    remote = True
    observer: StorageObserver = NO_OBSERVER  # etcd requests here, the watch cache's events in `cache`

    def __init__(self, client: KVClient, prefix: str = "/registry", *, history_size: int = 10000,
                 deviations: Deviations = NONE, progress_requests: bool | None = None,
                 lease_reuse_seconds: int = REUSE_DURATION_SECONDS):
        self.client = client
        self.deviations = deviations
        self.prefix = "/" + prefix.strip("/") if prefix.strip("/") else ""
        self.cache = WatchCache(history_size)
        self.reflector = Reflector(client, self.prefix, self.cache)
        self.reflector.start()  # EtcdUnavailable when etcd cannot be reached
        self.progress_requests = supports_progress_requests(client) if progress_requests is None \
            else progress_requests
        self._lock = threading.RLock()
        self._closers: list[Callable[[], None]] = []
        self._delete_pool: ThreadPoolExecutor | None = None
        # TTL'd writes (Events) attach to etcd leases as upstream's lease manager hands them out: etcd removes them
        self.leases = LeaseManager(lambda ttl: self.client.lease_grant(ttl), lambda n: self.observer.lease_objects(n),
                                   lease_reuse_seconds)

    def on_close(self, fn: Callable[[], None]) -> None:
        """Call `fn` when the store closes (the threads that call it off the event loop end then)."""
        self._closers.append(fn)

    def close(self) -> None:
        self.cache.shut()  # a write still in flight (a deleter pass) stops waiting, and the next one fails
        for fn in self._closers:
            fn()
        if self._delete_pool is not None:
            self._delete_pool.shutdown(wait=False)
        self.reflector.stop()
        self.cache.close_watchers()
        self.client.close()

    def observe(self, observer: StorageObserver) -> None:
        self.observer = observer
        self.cache.observe(observer)

    def _etcd(self, operation: str, resource: str, call: Callable[..., T], *args: Any, **kw: Any) -> T:
        """`call(*args, **kw)` on the etcd client, reported as one request (failed when it raised)."""
        start, failed = time.perf_counter(), False
        try:
            return call(*args, **kw)
        except BaseException:
            failed = True
            raise
        finally:
            self.observer.request(operation, resource, time.perf_counter() - start, failed)

    def _batch(self, operation: str, resource: Callable[[int], str], transact_many: Callable[[list], list],
               txns: list) -> list[Any]:
        """`transact_many(txns)`, each transaction reported as a request that took the batch's time."""
        start = time.perf_counter()
        try:
            answers: list[Any] = transact_many(txns)
        except EtcdError as e:  # no endpoint answered: nothing was sent
            answers = [e] * len(txns)
        seconds = time.perf_counter() - start
        for i, out in enumerate(answers):
            self.observer.request(operation, resource(i), seconds, isinstance(out, Exception))
        return answers

    def atomic(self) -> threading.RLock:
        """A process-local lock: it orders this process's check-then-write sequences, not other processes'.
        Across processes correctness rests on the compare-and-swap of each write; the window between a check of
        one key and a write of another stays open between replicas, as in kube-apiserver (NamespaceLifecycle
        admission checks its informer's namespace, then the create goes to etcd)."""
        return self._lock

    # ---- reads: the watch cache ----------------------------------------------------------------------
    def current_rv(self) -> int:
        return self.cache.current_rv()

    def when_rv(self, rv: int, loop: Any) -> Any:
        """A future settled once the watch cache reaches `rv` (`rvwait.reach`: upstream waits on its cacher)."""
        return self.cache.when_rv(rv, loop)

    def forget_rv_wait(self, fut: Any) -> None:
        self.cache.forget_rv_wait(fut)

    def compacted_rv(self) -> int:
        return self.cache.compacted_rv()

    def db_size(self) -> int | None:
        """The etcd database file's size (Maintenance/Status `dbSize`, as upstream's storage monitor reads it at
        each scrape), or None when etcd does not answer."""
        try:
            return self.client.db_size()
        except Exception:  # noqa: BLE001 - upstream logs it and writes no sample
            return None

    def revision_request(self) -> tuple[list[str], str, dict[str, Any], Any]:
        """How to ask etcd for its current revision, for a caller with its own (non-blocking) HTTP client: one
        linearizable range of a single key (the prefix itself, never an object), whose response header carries
        it, as upstream's `GetCurrentResourceVersionFromStorage`. The etcd endpoints, the JSON gateway path, the
        body, the TLS context (None for http)."""
        return self.client.endpoints, "/v3/kv/range", {"key": b64(self.prefix or "/"), "limit": "1"}, \
            self.client.ssl_context

    def wait_fresh(self, rev: int, timeout: float) -> bool:
        """True once the cache has reached `rev` (False after `timeout`): reads from it are then as fresh.
        While it waits, etcd is asked for a progress notification every `PROGRESS_INTERVAL` (when
        `progress_requests`), as upstream's cacher does for its waiting readers (`progress/watch_progress.go`):
        writes outside the prefix move etcd's revision without an event the cache would see."""
        if self.cache.current_rv() >= rev:
            return True
        if timeout <= 0 or not self.progress_requests:
            return self.cache.wait_for(rev, timeout)
        deadline = time.monotonic() + timeout
        while True:
            self.reflector.request_progress()
            left = deadline - time.monotonic()
            if self.cache.wait_for(rev, max(0.0, min(PROGRESS_INTERVAL, left))):
                return True
            if left <= PROGRESS_INTERVAL or self.cache.closed:
                return False

    def get(self, resource: str, namespace: str, name: str, *, shared: bool = False) -> dict[str, Any]:
        at = READ_AT.get()
        if at:  # a consistent read the cache could not serve in time (`freshness.py`)
            key = self._key(resource, namespace, name)
            try:
                kvs = self._etcd("get", resource, self.client.get, _bytes(key), revision=at).kvs
            except EtcdCompacted:
                kvs = self._etcd("get", resource, self.client.get, _bytes(key)).kvs  # compacted: newer is as fresh
            found = self._decode(kvs[0]) if kvs else None
            if found is None:
                raise KeyNotFoundError(key)
            return found
        try:
            return self.cache.get(resource, namespace, name, shared=shared)
        except KeyNotFoundError:
            raise KeyNotFoundError(self._key(resource, namespace, name)) from None

    def get_from_storage(self, resource: str, namespace: str, name: str) -> dict[str, Any]:
        """The object as etcd has it now, never the watch cache's view (which may lag another process's write):
        for a check that must not refuse what the cache has not seen yet, as NamespaceLifecycle's last resort
        (a live GET, which kube-apiserver answers from etcd)."""
        key = self._key(resource, namespace, name)
        found = self._read(key, resource)
        if found is None:
            raise KeyNotFoundError(key)
        return found

    def list(self, resource: str, namespace: str | None, *, shared: bool = False) -> tuple[list[dict], int]:
        at = READ_AT.get()
        if at:  # a consistent read the cache could not serve in time (`freshness.py`)
            try:
                return self._range_at(resource, namespace, at)
            except TooOldResourceVersionError:
                return self._range_at(resource, namespace, 0)
        return self.cache.list(resource, namespace, shared=shared)

    def count(self, resource: str, namespace: str | None) -> int:
        return self.cache.count(resource, namespace)

    def check_rv(self, rv: int) -> None:
        self.cache.check_rv(rv)

    def watch(self, resource: str, namespace: str | None, from_rv: int, loop: Any) -> tuple[list, Any]:
        return self.cache.watch(resource, namespace, from_rv, loop)

    def list_at(self, resource: str, namespace: str | None, rv: int, *,
                shared: bool = False) -> tuple[list[dict[str, Any]], int]:
        """From the cache while `rv` is in its window, else a range read at `rv` in etcd, as etcd3's `GetList`
        reads a continued page: one the cache has not reached too (another replica's token), never waiting on the
        loop, and etcd refuses a revision it has not made; `TooOldResourceVersionError` once etcd compacted it."""
        if rv > self.cache.current_rv():
            return self._range_at(resource, namespace, rv)
        try:
            return self.cache.list_at(resource, namespace, rv, shared=shared)
        except TooOldResourceVersionError:
            pass
        return self._range_at(resource, namespace, rv)

    def _range_at(self, resource: str, namespace: str | None, rv: int) -> tuple[list[dict[str, Any]], int]:
        """The collection read from etcd at `rv` (0: its current revision)."""
        start = _bytes(collection_key(self.prefix, resource, namespace))
        try:
            out = self._etcd("list", resource, self.client.get, start, range_end=prefix_range_end(start), revision=rv)
        except EtcdCompacted as e:
            raise TooOldResourceVersionError(rv, max(e.compact_revision, self.cache.compacted_rv())) from None
        items = []
        for kv in out.kvs:
            d = decode_value(self.prefix, kv.key, kv.value, kv.mod_revision)
            if d is not None and d[0] == resource and (namespace is None or d[1] == namespace):
                items.append(d[3])
        self.observer.listed(resource, len(out.kvs), len(out.kvs), len(items))
        return items, rv or out.revision

    # ---- writes: etcd transactions -------------------------------------------------------------------
    def create(self, resource: str, namespace: str, name: str, obj: dict[str, Any],
               ttl: int = 0) -> dict[str, Any]:
        """`ttl` > 0: the put carries the lease manager's lease (granted before the transaction, `ttlOpts`)."""
        key = self._key(resource, namespace, name)
        k = _bytes(key)
        put = Op("put", k, _encode(obj), self.leases.lease(ttl) if ttl else 0)
        out = self._etcd("create", resource, self.client.transact, [Cmp("CREATE", k, 0)], [put], [Op("range", k)])
        if not out.succeeded:
            existing = self._from_failure(out)
            raise KeyExistsError(key, existing if existing is not None else {})
        rv = out.revision
        self._seen(rv)
        stored = clone(obj)
        stored.setdefault("metadata", {})["resourceVersion"] = str(rv)
        return stored

    def create_many(self, items: list[tuple[str, str, str, dict[str, Any]]]) -> list[dict[str, Any] | Exception]:
        """`create` of each (resource, namespace, name, object): each its own transaction (own revision, own ADDED
        event), pipelined on one connection when the client can (`transact_many`, gRPC), and one wait for the
        watch cache, for the newest revision, instead of one per object (an API server's bootstrap writes, e.g.
        the RBAC policy: controller/rbac_bootstrap.py `seed`). A create whose fate is unknown (the connection
        ended) or a client that cannot pipeline takes `create`'s path."""
        transact_many = getattr(self.client, "transact_many", None)
        done: list[Any] = [None] * len(items)
        slow: list[int] = []
        txns, sent = [], []
        for i, (resource, ns, name, obj) in enumerate(items):
            if transact_many is None:
                slow.append(i)
                continue
            try:
                k = _bytes(self._key(resource, ns, name))
            except StorageError as e:
                done[i] = e
                continue
            txns.append(([Cmp("CREATE", k, 0)], [Op("put", k, _encode(obj))], [Op("range", k)]))
            sent.append(i)
        newest = 0
        if txns:
            answers = self._batch("create", lambda j: items[sent[j]][0], transact_many, txns)
            for i, out in zip(sent, answers):
                resource, ns, name, obj = items[i]
                if isinstance(out, EtcdUnavailable):
                    slow.append(i)
                elif isinstance(out, Exception):
                    done[i] = out
                elif out.succeeded:
                    newest = max(newest, out.revision)
                    stored = clone(obj)
                    stored.setdefault("metadata", {})["resourceVersion"] = str(out.revision)
                    done[i] = stored
                else:
                    existing = self._from_failure(out)
                    done[i] = KeyExistsError(self._key(resource, ns, name), existing if existing is not None else {})
        if newest:
            self._seen(newest)
        for i in sorted(slow):
            try:
                done[i] = self.create(*items[i])
            except Exception as e:  # noqa: BLE001 - handed back to the caller, item by item
                done[i] = e
        return done

    def guaranteed_update(self, resource: str, namespace: str, name: str,
                          fn: UpdateFn, ttl: int = 0) -> tuple[dict[str, Any], bool]:
        """`fn(copy_of_current)` → new object or `DELETE`, written only if nobody wrote in between; on a lost
        compare-and-swap `fn` runs again on the state etcd returned. A state read from the cache that `fn`
        refuses is checked against etcd first (the cache may lag), as upstream's `origStateIsCurrent`. `ttl` > 0:
        each put carries the lease manager's lease (a put without one leaves the key's lease, as etcd's)."""
        obj, deleted, rev = self._update(resource, namespace, name, fn, ttl=ttl)
        if rev:
            self._seen(rev)
        return obj, deleted

    def _update(self, resource: str, namespace: str, name: str, fn: UpdateFn, copy: bool = True,
                shared: bool = False, start: dict[str, Any] | None = None,
                ttl: int = 0) -> tuple[dict[str, Any], bool, int]:
        """`guaranteed_update` without the wait for the cache: (object, deleted, revision written or 0).
        `copy=False`: `fn` gets the current state itself (a deletion's check, which only reads it);
        `shared=True`: a deleted object's last state has new top-level and metadata dicts only, the rest is
        shared with the cache's object (read-only below metadata, as the registry's `_normalize` output);
        `start`: the state etcd returned to a lost compare-and-swap (the cache may not have it yet)."""
        key = self._key(resource, namespace, name)
        current = self.cache.snapshot(resource, namespace, name) if start is None else start
        from_cache = start is None
        while True:
            if current is None:
                current = self._read(key, resource)
                from_cache = False
                if current is None:
                    raise KeyNotFoundError(key)
            rv = current["metadata"]["resourceVersion"]
            try:
                new = fn(clone(current) if copy else current)
            except Exception:
                if from_cache:
                    fresh = self._read(key, resource)
                    if fresh is None or fresh["metadata"]["resourceVersion"] != rv:
                        current, from_cache = fresh, False
                        if fresh is None:
                            raise KeyNotFoundError(key) from None
                        continue
                raise
            k = _bytes(key)
            guard = [Cmp("MOD", k, int(rv))]
            fail = [Op("range", k)]
            if new is DELETE:
                out = self._etcd("delete", resource, self.client.transact, guard,
                                 self._delete_ops(namespace, k, current), fail)
                if out.succeeded:
                    rev = out.revision
                    gone = ({**current, "metadata": {**current["metadata"], "resourceVersion": str(rev)}} if shared
                            else _gone(current, rev))
                    return gone, True, rev
            else:
                if _same(new, current):
                    return clone(current), False, 0
                put = Op("put", k, _encode(new), self.leases.lease(ttl) if ttl else 0)
                out = self._etcd("update", resource, self.client.transact, guard, [put], fail)
                if out.succeeded:
                    rev = out.revision
                    stored = clone(new)
                    stored.setdefault("metadata", {})["resourceVersion"] = str(rev)
                    return stored, False, rev
            current, from_cache = self._from_failure(out), False  # lost the race: try again on etcd's state
            if current is None:
                raise KeyNotFoundError(key)

    def delete(self, resource: str, namespace: str, name: str,
               check: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
        def remove(obj: dict[str, Any]) -> Any:
            if check is not None:
                check(obj)
            return DELETE
        gone, _, rev = self._update(resource, namespace, name, remove, copy=False)  # `check` only reads
        if rev:
            self._seen(rev)
        return gone

    def delete_many(self, resource: str, items: list[tuple[str, str]],
                    check: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any] | Exception]:
        """`delete` of each (namespace, name), in order of `items`: the object's last state (read-only below
        metadata), or the exception `delete` would have raised (`KeyNotFoundError`, `check`'s). Each deletion is
        still its own transaction on the object's mod revision (its own revision and DELETED event, as
        upstream's deleteCollection workers), and the wait for the watch cache comes once, for the newest
        revision, instead of after each one.

        With a client that pipelines (`transact_many`, gRPC), the first attempt of every deletion goes out
        together on one connection from this thread; anything that needs more (not in the cache, refused by
        `check` on the cached state, a lost compare-and-swap, an answer lost with the connection) then takes
        the ordinary path, one by one. Otherwise (the JSON gateway) `DELETE_WORKERS` threads each send one at
        a time."""
        transact_many = getattr(self.client, "transact_many", None)
        if transact_many is None or len(items) <= 1:
            return self._delete_threaded(resource, items, check)

        remove = _removal(check)
        done: list[Any] = [None] * len(items)
        revs = [0] * len(items)
        slow: list[tuple[int, dict[str, Any] | None]] = []  # (index, etcd's state after a lost CAS, or None)
        txns = []
        sent: list[tuple[int, dict[str, Any]]] = []
        for i, (ns, name) in enumerate(items):
            try:
                k = _bytes(self._key(resource, ns, name))
            except StorageError as e:
                done[i] = e
                continue
            current = self.cache.snapshot(resource, ns, name)
            if current is None:
                slow.append((i, None))
                continue
            if check is not None:
                try:
                    check(current)  # only reads it
                except Exception:  # noqa: BLE001 - the ordinary path checks it again against etcd
                    slow.append((i, None))
                    continue
            txns.append(([Cmp("MOD", k, int(current["metadata"]["resourceVersion"]))],
                         self._delete_ops(ns, k, current), [Op("range", k)]))
            sent.append((i, current))
        if txns:
            answers = self._batch("delete", lambda j: resource, transact_many, txns)
            for (i, current), out in zip(sent, answers):
                if isinstance(out, EtcdUnavailable):  # its fate is unknown: the ordinary path reads etcd
                    slow.append((i, None))
                elif isinstance(out, Exception):
                    done[i] = out
                elif out.succeeded:
                    revs[i] = out.revision
                    done[i] = {**current, "metadata": {**current["metadata"], "resourceVersion": str(out.revision)}}
                elif out.kvs:  # lost the race: try again on etcd's state
                    slow.append((i, self._decode(out.kvs[0])))
                else:
                    done[i] = KeyNotFoundError(self._key(resource, *items[i]))
        for i, start in sorted(slow, key=lambda t: t[0]):
            try:
                done[i], _, revs[i] = self._update(resource, items[i][0], items[i][1], remove,
                                                   copy=False, shared=True, start=start)
            except Exception as e:  # noqa: BLE001 - handed back to the caller, item by item
                done[i] = e
        newest = max(revs, default=0)
        if newest:
            self._seen(newest)
        return done

    def _delete_threaded(self, resource: str, items: list[tuple[str, str]],
                         check: Callable[[dict[str, Any]], None] | None) -> list[dict[str, Any] | Exception]:
        """`delete_many` for a client that cannot pipeline: up to `DELETE_WORKERS` threads, each with one
        deletion in flight (etcd commits concurrent proposals together)."""
        remove = _removal(check)
        done: list[Any] = [None] * len(items)
        revs = [0] * len(items)

        def stride(first: int, step: int) -> None:  # one worker: items first, first + step, ...
            for i in range(first, len(items), step):
                try:
                    done[i], _, revs[i] = self._update(resource, items[i][0], items[i][1], remove,
                                                       copy=False, shared=True)
                except Exception as e:  # noqa: BLE001 - handed back to the caller, item by item
                    done[i] = e
        workers = min(DELETE_WORKERS, len(items))
        if workers <= 1:
            stride(0, 1)
        else:
            pool = self._deleters()
            for f in [pool.submit(stride, w, workers) for w in range(workers)]:
                f.result()
        newest = max(revs, default=0)
        if newest:
            self._seen(newest)
        return done

    def _delete_ops(self, namespace: str, k: bytes, current: dict[str, Any]) -> list[Op]:
        ops = [Op("delete", k)]
        if namespace and self.deviations.active("deleted-content-keys-archived"):
            # a copy left beside the key (outside the layout: the cache never reads it back)
            ops.append(Op("put", k + b".deleted", _encode(current)))
        return ops

    def _deleters(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._delete_pool is None:
                self._delete_pool = ThreadPoolExecutor(DELETE_WORKERS, thread_name_prefix="etcd-delete")
            return self._delete_pool

    def compact(self, rv: int | None = None) -> None:
        """etcd compaction at `rv` (default: the newest revision), and the cache's window moves there too."""
        rv = self.cache.current_rv() if rv is None else rv
        if rv > 0:
            self.client.compact(rv)
        self.cache.compact(rv)

    def close_watchers(self) -> None:
        self.cache.close_watchers()

    # ---- internals -----------------------------------------------------------------------------------
    def _key(self, resource: str, namespace: str, name: str) -> str:
        if self.cache.closed:
            raise StorageError("", "the etcd store is closed")
        if namespace and self.deviations.active("content-keys-without-namespace"):
            namespace = ""  # `{prefix}/configmaps/{name}`: still readable (the cache trusts the object's metadata)
        if resource == "namespaces" and self.deviations.active("namespace-keys-misplaced"):
            return f"{self.prefix}/{MISPLACED_NAMESPACES}/{name}"
        return object_key(self.prefix, resource, namespace, name)

    def _seen(self, rv: int) -> None:
        if not self.cache.wait_for(rv, CACHE_WAIT) and not self.cache.closed:
            log.warning("the watch cache has not seen revision %d after %.0f s", rv, CACHE_WAIT)

    def _read(self, key: str, resource: str) -> dict[str, Any] | None:
        kvs = self._etcd("get", resource, self.client.get, _bytes(key)).kvs
        return self._decode(kvs[0]) if kvs else None

    def _from_failure(self, out: TxnResult) -> dict[str, Any] | None:
        """The current object from a failed txn's range operation, or None when the key is gone."""
        return self._decode(out.kvs[0]) if out.kvs else None

    def _decode(self, kv: KeyValue) -> dict[str, Any] | None:
        obj = loads_stored(kv.value)  # a raw-JSON field's numbers as they were sent (gojsonnum.py)
        return with_revision(obj, kv.mod_revision)


PROGRESS_FIXED = ((3, 4, 31), (3, 5, 13))  # etcd releases whose progress notifications are ordered right


def supports_progress_requests(client: KVClient) -> bool:
    """Whether to ask etcd for progress notifications, as upstream's `feature_support_checker.go` decides: a
    transport that can (gRPC) and an etcd of 3.4.31+ or 3.5.13+ (older ones may send a progress notification
    ahead of events at or below its revision: etcd issues 15220 and 17507), else not (then a read that the
    cache cannot serve in time falls back to etcd, as before)."""
    if getattr(client, "transport", "") != "grpc":
        return False
    try:
        ver = tuple(int(x) for x in client.version().split("-")[0].split(".")[:3])
    except Exception:  # noqa: BLE001 - unknown: not supported, as upstream
        return False
    if len(ver) != 3:
        return False
    if ver[:2] == (3, 4):
        return ver >= PROGRESS_FIXED[0]
    return ver >= PROGRESS_FIXED[1]


def _encode(obj: dict[str, Any]) -> bytes:
    """JSON without the resourceVersion (the mod revision is the version, as upstream stores it)."""
    meta = dict(obj.get("metadata") or {})
    meta.pop("resourceVersion", None)
    stored = {**obj, "metadata": meta}  # numbers as Go writes them (`2`, not `2.0`): gojsonnum.py
    if gojsonraw.holds_raw(stored):  # a RawExtension's bytes as sent (gojsonraw.py)
        return gojsonraw.stored(stored).encode()
    return go_encode(stored, json.dumps(stored, separators=(",", ":"))).encode()


def _gone(last: dict[str, Any], rv: int) -> dict[str, Any]:
    out = clone(last)
    out.setdefault("metadata", {})["resourceVersion"] = str(rv)
    return out
