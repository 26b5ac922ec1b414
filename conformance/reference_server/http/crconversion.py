"""Where a custom resource request meets its CRD's conversion webhook (registry/crconversion/): the registry is
synchronous, so a conversion it has no answer for stops the request before anything is written
(`ConversionPending`); here the webhook is awaited (registry/crconversion/webhook.py), its answer remembered for
the request, and the request run again. A write's answer still to be converted (`Unconverted`) is converted on
the way out. A watch converts each event as it comes; a failed conversion ends it with the `InternalError`
event etcd3's watcher sends (`transformErrorToEvent`). A LIST that 1.33 serves from the watch cache
(http/cacheread.py `from_cache`), and a GET at a resourceVersion, take the version's cache's conversions
(`cached_list`, `cached_get`; `k8s.io/apiserver/pkg/storage/cacher/delegator.go`, `cacher.go` `GetList`)."""
from __future__ import annotations

import contextlib
import copy
import json
from typing import Any, Awaitable, Callable, Iterator

from .. import apierrors as E
from ..admission.webhooks.review import internal
from ..registry.crconversion import ConversionPending, Unconverted, memo
from ..registry.crconversion.cache import VersionCache, serving
from ..registry.crconversion.webhook import ATTEMPTS, UNSETTLED, GetService, convert, failed, presented, resolve
from ..registry.store import ListOptions, parse_watch_rv, too_large_rv
from .cacheread import from_cache


async def answer(obj: Any, get_service: GetService) -> Any:
    """A response's object (or list) with every `Unconverted` item converted."""
    if isinstance(obj, Unconverted):
        return obj.coerce(await convert(obj.converter, dict(obj), obj.target, get_service), dict(obj))
    if isinstance(obj, dict) and isinstance(obj.get("items"), list) and \
            any(isinstance(i, Unconverted) for i in obj["items"]):
        return {**obj, "items": [await answer(i, get_service) for i in obj["items"]]}
    return obj


class AnswerPending(Exception):
    """A response whose object still holds `Unconverted` items: `finish(converted)` responds."""

    def __init__(self, obj: Any, finish: Callable[[Any], Any]):
        super().__init__("answer to be converted")
        self.obj, self.finish = obj, finish


def unconverted(obj: Any) -> bool:
    """Whether a response's object (a write's answer, a deleted collection) needs `answer`."""
    return isinstance(obj, Unconverted) or (isinstance(obj, dict) and isinstance(obj.get("items"), list)
                                            and any(isinstance(i, Unconverted) for i in obj["items"]))


@contextlib.contextmanager
def request_memo() -> Iterator[None]:
    """A fresh memo (registry/crconversion/memo.py) for one request, or one watch event."""
    token = memo.start()
    try:
        yield
    finally:
        memo.MEMO.reset(token)


async def admitted_once(parts: list[Any], admit: Callable[[], Awaitable[dict[str, Any]]],
                        warnings: list[str]) -> dict[str, Any]:
    """`admit()`'s object, kept for a request run again after a conversion (`parts`: what it admitted): its
    admission webhooks are called once, as upstream calls them, and their warnings repeated."""
    kept = memo.MEMO.get()
    if kept is None:
        return await admit()
    key = "admitted:" + json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    hit = kept.get(key)
    if hit is not None:
        warnings += hit["warnings"]
        return copy.deepcopy(hit["object"])
    start = len(warnings)
    out = await admit()
    kept[key] = {"object": copy.deepcopy(out), "warnings": warnings[start:]}
    return out


async def cached_list(cache: VersionCache, store: Any, opts: ListOptions, read: Callable[[], Awaitable[Any]]) -> Any:
    """`read()` (the LIST as http/cacheread.py reads it) of a version whose watch cache runs, served from that
    cache's conversions when 1.33 serves it from the cache (`delegator.go` `GetList`, `cacher.go` `GetList`):
    once the cache has converted every change up to the LIST's resourceVersion (etcd's current one for a
    consistent LIST: else that LIST falls back to storage; at a number: else 504, as `waitUntilFreshAndBlock`);
    a cache not ready answers 429 `storage is (re)initializing`, but leaves a LIST with a limit and no selector
    to storage (`shouldDelegateListOnNotReadyCache`). Storage's LIST converts each item (one review each)."""
    if not from_cache(opts):
        return await read()
    store.check_list(opts)  # the request's own refusals come first
    await cache.first_list()
    refused = cache.not_ready()
    if refused is not None:
        if (opts.limit or 0) > 0 and not opts.label_selector and not opts.field_selector:
            return await read()
        raise refused
    rv, current = opts.resource_version, store.store.current_rv()
    want = current if rv == "" else min(int(rv), current)  # (beyond the store's revision: its own wait and 504)
    if not await cache.reach(want):
        refused = cache.not_ready()  # (it gave up meanwhile)
        if refused is not None:
            raise refused
        if rv == "":
            return await read()
        raise too_large_rv(want, cache.synced_rv)
    with serving(cache):  # the cache's own state, at its resourceVersion: no review
        return await read()


async def cached_get(cache: VersionCache, store: Any, rv: str, read: Callable[[], Any]) -> Any:
    """`read()` (a GET's answer) at resourceVersion `rv` (not "") of a version whose watch cache runs, served from
    that cache's conversion (`delegator.go` `Get`), once it has converted every change up to `rv` (else 504, as
    `WaitUntilFreshAndGet`); a cache not ready leaves it to storage, which converts (`ResilientWatchCache-
    Initialization`)."""
    if cache.not_ready() is None:
        want = min(parse_watch_rv(rv), store.store.current_rv())  # (beyond: the store's own wait and 504)
        if not await cache.reach(want):
            if cache.not_ready() is None:
                raise too_large_rv(want, cache.synced_rv)
        else:
            with serving(cache):
                return read()
    return read()


class ConversionFailed(E.StatusError):
    """A watch event that could not be converted: the `InternalError` the watch ends with."""


async def present_event(present: Callable[[Any], Any], obj: dict[str, Any], get_service: GetService) -> Any:
    """A watch event's object in the watch's version: each event asks the webhook as it comes (its own memo); a
    failed conversion is a `StatusError` the watch ends with."""
    try:
        return await presented(present, obj, get_service)
    except E.StatusError as exc:
        raise ConversionFailed(internal(ValueError(exc.status.get("message", ""))).status) from None


async def converting(run: Callable[[], Awaitable[Any]], get_service: GetService) -> Any:
    """`run()` (a request's handling) again after each conversion it stopped for: `ATTEMPTS` times, not counting
    a LIST's rounds of objects it has not asked for before (registry/crconversion/selection.py: a page judged
    object by object may take as many rounds as it has candidates)."""
    with request_memo():
        asked: set[tuple[str, str]] = set()
        stalled = 0
        while stalled < ATTEMPTS:
            try:
                return await run()
            except ConversionPending as pending:
                if not _new_round(pending, asked):
                    stalled += 1
                await resolve(pending, get_service)
            except AnswerPending as pending:
                return pending.finish(await answer(pending.obj, get_service))
        raise failed(UNSETTLED)


def _new_round(pending: ConversionPending, asked: set[tuple[str, str]]) -> bool:
    """Whether `pending` is a LIST's round naming only stored objects (by uid) no round of the request named
    before; they are remembered."""
    if not pending.next_round:
        return False
    uids = {(str((o.get("metadata") or {}).get("uid") or ""), pending.api_version) for o in pending.objects}
    fresh = bool(uids) and all(uid and (uid, v) not in asked for uid, v in uids)
    asked |= uids
    return fresh
