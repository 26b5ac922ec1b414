"""A LIST's read as kube-apiserver 1.33's cache delegator makes it (`k8s.io/apiserver/pkg/storage/cacher/
delegator.go` `GetList`, `delegator/interface.go` `ShouldDelegateList`), with the watch cache's read metrics
(`metrics/cachereads.py`): a consistent LIST (`resourceVersion=""`, no `continue`) waits for the cache to reach
etcd's revision (`storage/freshness.py`), falling back to etcd when it cannot, and is counted in
`apiserver_watch_cache_consistent_read_total`; it and a LIST the cache serves at a resourceVersion above 0 observe
`apiserver_watch_cache_read_wait_seconds` (`watch_cache.go` `waitUntilFreshAndBlock`). A GET, or a LIST the cache
serves, at a resourceVersion the cache has not reached waits for it (up to 3 s, `storage/rvwait.py`) without
holding the loop, then answers `storage.NewTooLargeResourceVersionError` (504)."""
from __future__ import annotations

from typing import Any, Callable

from ..metrics.cachereads import UNCACHED, cache_reads
from ..registry.store import API_LIST, ListOptions, too_large_rv
from ..storage.rvwait import reach


def from_cache(opts: ListOptions) -> bool:
    """Whether 1.33 serves the LIST from the watch cache (`delegator/interface.go` `ShouldDelegateList`, the
    snapshots being alpha): not an `Exact` one, a legacy exact one (a resourceVersion above 0 with `limit`) nor a
    continued one, which go to etcd. One rule for built-in kinds and custom resources (http/crconversion.py)."""
    rv, match = opts.resource_version, opts.resource_version_match
    return not (opts.continue_token or match not in ("", "NotOlderThan") or
                (rv not in ("", "0") and not match and (opts.limit or 0) > 0))


def waits_on_cache(opts: ListOptions) -> bool:
    """Whether 1.33 serves the LIST from the cache at a resourceVersion above 0 (so its wait is observed): one
    `from_cache` serves, but not at "0" (any state will do)."""
    return opts.resource_version != "0" and from_cache(opts)


class _Unrecorded:
    """The reads' reports of a server without metrics."""

    def read_waited(self, store: Any, seconds: float) -> None: ...

    def consistent_read(self, store: Any, success: bool, fallback: bool) -> None: ...


async def list_read(fresh: Any, metrics: Any, store: Any, opts: ListOptions, read: Callable[[], Any]) -> Any:
    """`read()` (the registry's LIST) as the delegator makes it, the freshness gate `fresh` first when the LIST
    is a consistent one; reported to the server's `metrics` (None: none)."""
    reads: Any = cache_reads(metrics) or _Unrecorded()
    token = API_LIST.set(True)  # the registry's LIST reports what the cache served (`cache_listed`)
    try:
        if opts.resource_version != "" or opts.continue_token:
            if waits_on_cache(opts):
                reads.read_waited(store, await fresh_enough(store, opts.resource_version,
                                                            lambda: store.check_list(opts), fresh=fresh))
            elif not opts.continue_token:  # an Exact one, read from etcd at its revision
                await fresh_enough(store, opts.resource_version, lambda: store.check_list(opts), fresh=fresh,
                                   etcd=True)
            return read()
        stale, waited = await fresh.wait()  # a consistent read
        reads.read_waited(store, waited)
        if not stale:
            listed = read()
            reads.consistent_read(store, True, False)
            return listed
        try:
            listed = await fresh.read_at(stale, read)  # the fallback to etcd
        except Exception:
            reads.consistent_read(store, False, True)
            raise
        reads.consistent_read(store, True, True)
        return listed
    finally:
        API_LIST.reset(token)


async def fresh_enough(store: Any, rv: str, check: Callable[[], None] | None = None, *, fresh: Any = None,
                       etcd: bool = False) -> float:
    """`waitUntilFreshAndBlock` for a read of the registry `store` at resourceVersion `rv` ("" or "0": none): the
    seconds it waited for its storage to reach `rv`; the 504 `Too large resource version` when it did not within
    3 s. `check()` first when it must wait: the request's own refusals come before the wait (upstream's handler
    validates options and selectors before the storage sees the read); a resourceVersion that does not parse is
    left to the registry's refusal. componentstatuses are probed, never stored: no wait.

    A read upstream makes from etcd (`etcd`: an Exact LIST; any read of events, which have no watch cache,
    `DefaultWatchCacheSizes`) does not wait: past etcd's revision it is refused at once (events: etcd3's
    `validateMinimumResourceVersion`, no retry period; an Exact LIST: the registry answers etcd's ErrFutureRev).
    On a remote store (`fresh.remote`, replicas sharing an etcd) etcd is asked for its revision: one it has
    reached, written through another replica, is read once this replica's cache has it (within its watch's delay)."""
    if rv in ("", "0") or not (rv.isascii() and rv.isdigit()) or not getattr(store, "cached_reads", False):
        return 0.0
    storage, want = store.store, int(rv)
    if storage.current_rv() >= want:  # the common case, without a coroutine's wait
        return 0.0
    if check is not None:
        check()
    uncached = store.info.plural in UNCACHED
    if etcd or uncached:
        latest = await fresh.fetch_revision() if getattr(fresh, "remote", False) else storage.current_rv()
        if want > latest:
            if etcd:  # a range at a revision etcd has not made: the registry answers its ErrFutureRev
                return 0.0
            raise too_large_rv(want, latest, 0)
    reached, waited = await reach(storage, want)
    if not reached:
        raise too_large_rv(want, storage.current_rv())
    return waited


async def got_at(metrics: Any, store: Any, rv: str, fresh: Any) -> None:
    """A GET at resourceVersion `rv` (valid): served from the cache once it has reached `rv`, its wait observed
    when `rv` is above 0."""
    waited = await fresh_enough(store, rv, fresh=fresh)
    reads = cache_reads(metrics)
    if reads is not None and rv not in ("", "0"):
        reads.read_waited(store, waited)


__all__ = ["fresh_enough", "from_cache", "got_at", "list_read", "waits_on_cache"]
