"""Watch streams (NS-90..NS-99): 200 flushed at once, newline-delimited JSON events (or length-delimited protobuf
`WatchEvent` frames when the client asks for protobuf first: upstream `handlers/watch.go`), selector transitions."""
from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from typing import Any, Callable

from aiohttp import web

from .. import apierrors as E
from .. import paramcodec as C
from ..aiotime import within
from ..metrics.watch import instrument as watch_metrics, not_counted
from ..metrics.watchcache import replayed
from ..registry import GenericStore, ListOptions
from ..storage import Progress, TooOldResourceVersionError
from ..storage.interface import Event
from . import hooks
from ..registry.crconversion.cache import Terminated, VersionCache
from ..registry.selectors import EVERYTHING
from .crconversion import ConversionFailed, present_event
from .respond import PROTOBUF, dumps_line, protobuf_ok

BOOKMARK_INTERVAL = 60.0
BOOKMARK_BEFORE_DEADLINE = 2.0  # cache_watcher.go nextBookmarkTime: a heartbeat 2 s before the watch's deadline
MIN_REQUEST_TIMEOUT = 1800.0


def convert(ev: Event, pred: Callable[[dict], bool], *,
            no_transitions: bool = False) -> tuple[str, dict[str, Any]] | None:
    """`cacheWatcher.convertToWatchEvent`: ADDED/MODIFIED/DELETED as seen through the selectors (NS-96).
    `no_transitions` (a deviation): filter on the new state only, as a watch without a cache would."""
    if ev.type == "DELETED":
        return ("DELETED", ev.object) if pred(ev.object) else None
    cur = pred(ev.object)
    if no_transitions:
        return (ev.type, ev.object) if cur else None
    old = ev.prev is not None and pred(ev.prev)
    if ev.type == "ADDED" or ev.prev is None:
        return ("ADDED", ev.object) if cur else None
    if cur and old:
        return "MODIFIED", ev.object
    if cur:
        return "ADDED", ev.object
    if old:
        gone = dict(ev.prev)
        gone["metadata"] = dict(ev.prev.get("metadata", {}), resourceVersion=str(ev.rv))
        return "DELETED", gone
    return None


def _stream_encoder(request: web.Request, store: GenericStore) -> tuple[str, Callable[[str, Any], bytes]] | None:
    """(Content-Type, event encoder) of a protobuf watch (`NegotiateOutputMediaTypeStream`: the stream
    serializer of the media type the client prefers), or None for the JSON stream. Each event is one
    length-delimited `WatchEvent` frame whose object is the enveloped protobuf object."""
    neg = hooks.wire_attr("negotiation", "negotiate")
    api_version = getattr(store, "api_version", "v1")
    if neg is None or not protobuf_ok(api_version, store.info.kind):
        return None
    chosen = neg(request.headers.get("Accept"), transforms=("Table", "PartialObjectMetadata"), yaml_ok=False,
                 protobuf_ok=True)
    if chosen is None or chosen.media_type != PROTOBUF:
        return None
    encode = hooks.wire_attr("protobuf", "encode_response")
    frame = hooks.wire_attr("protobuf", "watch_frame")
    assert encode is not None and frame is not None
    kind = store.info.kind

    def event(typ: str, obj: Any) -> bytes:
        if "kind" not in obj:
            obj = {"kind": kind, "apiVersion": api_version, **obj}
        try:
            return frame(typ, encode(obj))
        except ValueError as exc:  # a value its Go type could not hold: the stream ends with an ERROR event
            err = E.internal(f"unable to encode watch object: {exc}")
            return frame("ERROR", encode(err.status))

    return f"{PROTOBUF};stream=watch", event


def _refuse_unstreamable(request: web.Request, store: GenericStore) -> None:
    """`ListResource`'s `NegotiateOutputMediaType` (a header naming nothing served: the 406 any GET gets), then
    `serveWatchHandler`'s `NegotiateOutputMediaTypeStream` (the serializer accepted has no stream form, YAML's: the
    406 naming the stream types), both before a watch starts."""
    neg = hooks.wire_attr("negotiation", "negotiate")
    if neg is None:
        return
    chosen = neg(request.headers.get("Accept"), yaml_ok=True,
                 protobuf_ok=protobuf_ok(getattr(store, "api_version", "v1"), store.info.kind))
    if chosen is None:
        message = hooks.wire_attr("negotiation", "not_acceptable_message")(True, True)  # type: ignore[misc]
    elif chosen.media_type == "application/yaml":
        message = hooks.wire_attr("negotiation", "stream_not_acceptable_message")()  # type: ignore[misc]
    else:
        return
    raise E.StatusError(E.status_dict(406, "NotAcceptable", message))


def _json_event(typ: str, obj: Any) -> bytes:
    return dumps_line({"type": typ, "object": obj})


def _embedded_transform(request: web.Request, kind: str) -> Callable[[dict[str, Any]], Any] | None:
    """`watchEmbeddedEncoder`: the `as=Table` / `as=PartialObjectMetadata` an Accept header asks for, applied to
    each event's object (a Status is sent as is). Only the first Table carries `columnDefinitions`: upstream sets
    `NoHeaders` after encoding one object, so later Tables have `"columnDefinitions": null`. An unusable Accept
    keeps the plain JSON stream (no 406 here)."""
    neg = hooks.wire_attr("negotiation", "negotiate")
    to_table = hooks.wire_attr("table", "to_table")
    if neg is None or to_table is None:
        return None
    chosen = neg(request.headers.get("Accept"), transforms=("Table", "PartialObjectMetadata"), yaml_ok=False,
                 protobuf_ok=True)
    if chosen is None or chosen.transform is None:
        return None
    version = chosen.version
    if chosen.transform == "PartialObjectMetadata":
        pom = hooks.wire_attr("table", "partial_object_metadata")
        assert pom is not None
        return lambda obj: obj if obj.get("kind") == "Status" else pom(obj, version)
    include = request.query.get("includeObject", "Metadata")
    try:  # `optionsForTransform` runs before the stream starts: a bad includeObject is a 400
        to_table([], kind, None, include_object=include, version=version)
    except ValueError as exc:
        raise E.bad_request(str(exc)) from None
    headers_sent: list[bool] = []

    def table(obj: dict[str, Any]) -> Any:
        if obj.get("kind") == "Status":
            return obj
        out = to_table([obj], kind, None, include_object=include, version=version)
        if headers_sent:
            out["columnDefinitions"] = None
        headers_sent.append(True)
        return out

    return table


def _timeout(query: Any) -> float:
    """`timeoutSeconds` (a `*int64`, decoded by `list_options` already), 0 or absent: the minimum request
    timeout stretched at random (get.go `ListResource`); a negative one ends the watch at once."""
    t = C.optional_int64(query, "timeoutSeconds")
    if t:
        return max(0.0, float(t))
    return MIN_REQUEST_TIMEOUT * (1 + random.random())


async def serve_watch(ctx: Any, request: web.Request, store: GenericStore, ns: str | None, opts: ListOptions,
                      *, cluster: bool = False, get_service: Any = None, caches: Any = None) -> web.StreamResponse:
    """Stream events until `timeoutSeconds`, server shutdown or client disconnect. A version of a CRD with a
    conversion webhook is served from that version's watch cache (`caches`: registry/crconversion/cache.py); any
    CRD's watch ends when its storage is torn down, and one from before its cache's LIST is answered 410."""
    _refuse_unstreamable(request, store)
    timeout = _timeout(request.query)
    embed = _embedded_transform(request, store.table_kind)
    stream = _stream_encoder(request, store)
    content_type, encode_event = stream if stream is not None else ("application/json", _json_event)
    encode_event, sent = watch_metrics(getattr(ctx, "metrics", None), request, store, encode_event, stream is not None)
    cache_prefix = "pb:" if stream is not None else ""
    present = getattr(store, "present", None)  # a kind's other version (registry/versions.py): events converted
    webhook = getattr(getattr(store, "converter", None), "webhook", False)  # by a CRD's webhook (crconversion.py)
    if present is not None:
        cache_prefix += getattr(store, "present_key", getattr(store, "api_version", "")) + ":"
    bookmarks = C.flag(request.query, "allowWatchBookmarks")
    deviations = ctx.deviations
    loop = asyncio.get_running_loop()
    too_old: TooOldResourceVersionError | None = None
    initial, watch_opts = await _cache_state(caches.of(store) if webhook and caches is not None else None, ns, opts)
    try:
        try:
            backlog, watcher, pred = store.watch(ns, watch_opts, loop)
            backlog = initial + backlog
        except TooOldResourceVersionError:
            if watch_opts is opts:
                raise
            backlog, watcher, pred = store.watch(ns, opts, loop)  # (the cache's point compacted: storage's state)
    except TooOldResourceVersionError as exc:
        too_old, backlog, watcher, pred = exc, [], None, (lambda o: True)
    # the version's cache (registry/crconversion/watches.py): any CRD's ends its watches when torn down; a
    # webhook's converts their events too
    held = caches.watches_of(store) if caches is not None and watcher is not None else None
    # a custom resource's selectors judging the objects as this version decodes them (converted by a webhook)
    judges_shown = getattr(store, "judges_shown", False) and pred is not EVERYTHING and present is not None
    cache = held if webhook and isinstance(held, VersionCache) else None
    attached: Any = None
    if held is not None:
        try:
            attached = await held.attach(watcher.queue)  # 429 while a conversion cache cannot fill
        except BaseException:  # (or the client went while it waited)
            watcher.close()
            raise
        too_old = held.too_old(opts.resource_version)  # from before the cache's LIST: 410 (ERROR event)
        if too_old is not None:
            held.detach(attached)
            watcher.close()
            held, cache, attached, watcher, backlog = None, None, None, None, []
    replayed(getattr(ctx, "metrics", None), store, len(backlog))
    resp = web.StreamResponse(status=200, headers={"Content-Type": content_type,
                                                   "Cache-Control": "no-cache, private"})
    resp.enable_chunked_encoding()
    await resp.prepare(request)
    try:
        if too_old is not None:
            line = encode_event("ERROR", E.expired(str(too_old)).status)
            sent(line)
            await resp.write(line)
            return resp
        assert watcher is not None
        faults = _StreamFaults(deviations, resp, sent)
        start_rv = opts.resource_version if opts.resource_version not in ("", "0") else \
            str(ctx.registry.store.current_rv())
        # cacheWatcher.process: only events newer than the resourceVersion asked for (a future one waits for
        # them, as upstream's cacher: no 504 for a plain watch), bookmarks not older than it
        floor = int(opts.resource_version) if opts.resource_version.isdigit() else 0
        skip_deleted = store.info.plural == "namespaces" and deviations.active("watch-no-deleted")
        miss = cluster and deviations.active("cluster-watch-misses-events")
        seen_ns: list[str] = []

        async def show(obj: dict[str, Any]) -> Any:
            return present(obj) if not webhook else await present_event(present, obj, get_service)

        async def judged(ev: Event) -> tuple[str, Any] | None:
            """`convert` on the event's objects as this version decodes them (a custom resource's selectors judge
            the objects its storage's codec converted: registry/crconversion/selection.py), the cache's own
            conversions when it made them."""
            got = await cache.shown(ev, attached) if cache is not None else None
            obj = got[0] if got is not None else await show(ev.object)
            prev = None
            if ev.prev is not None and ev.type == "MODIFIED":  # (only a change's transition reads it)
                prev = got[1] if got is not None and got[1] is not None else await show(ev.prev)
            return convert(dataclasses.replace(ev, object=obj, prev=prev), pred,
                           no_transitions=deviations.active("selector-watch-no-transitions"))

        async def send(ev: Event) -> None:
            if ev.rv <= floor:
                return
            if judges_shown:
                out = await judged(ev)
                if out is not None:
                    line = encode_event(out[0], embed(out[1]) if embed else out[1])
                    await faults.write(line, (ev.namespace, ev.name), out[0])
                return
            out = convert(ev, pred, no_transitions=deviations.active("selector-watch-no-transitions"))
            if out is None or (skip_deleted and out[0] == "DELETED"):
                return
            if present is not None:
                cached = embed is None and out[1] is ev.object
                line = ev.encoded.get(cache_prefix + out[0]) if cached else None
                if line is None:
                    shown = await _cached(cache, attached, ev, out[1]) if cache is not None else None
                    if shown is None:
                        shown = present(out[1]) if not webhook else await present_event(present, out[1],
                                                                                         get_service)
                    line = encode_event(out[0], embed(shown) if embed else shown)
                    if cached:
                        ev.encoded[cache_prefix + out[0]] = line
                await faults.write(line, (ev.namespace, ev.name), out[0])
                return
            if miss:
                if not seen_ns:
                    seen_ns.append(ev.namespace)
                if ev.namespace != seen_ns[0]:
                    return
            if embed is None and out[1] is ev.object:  # the event's own object: encode once for every watcher
                line = ev.encoded.get(cache_prefix + out[0])
                if line is None:
                    line = ev.encoded[cache_prefix + out[0]] = encode_event(out[0], out[1])
            else:
                line = encode_event(out[0], embed(out[1]) if embed else out[1])
            await faults.write(line, (ev.namespace, ev.name), out[0])

        if backlog and deviations.active("watch-resume-late") and opts.resource_version not in ("", "0"):
            backlog = backlog[1:]  # resumed one event after the resourceVersion asked for
        deadline = time.monotonic() + timeout

        async def timely(ev: Event) -> bool:
            """`send(ev)` for a watch its cache serves, unless the watch's deadline passes while the cache has yet
            to convert `ev` (`timeoutSeconds` ends a watch whatever its cache is doing: stalled on a change, say)."""
            try:
                await within(cache.shown(ev, attached), max(0.0, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                return False
            await send(ev)
            return True

        expired = False
        for ev in backlog:
            if cache is None:
                await send(ev)
            elif not await timely(ev):
                expired = True
                break
        next_bookmark = _next_bookmark(time.monotonic(), deadline)
        # a watch too short for upstream's pre-deadline heartbeat gets one BOOKMARK as it ends (our server's own)
        final_bookmark = bookmarks and next_bookmark is None and not expired
        if next_bookmark is None:
            next_bookmark = deadline
        queue = watcher.queue
        while True:
            now = time.monotonic()
            if now >= deadline:
                break
            try:
                ev = queue.get_nowait()  # events already queued: no wait, no timer
            except asyncio.QueueEmpty:
                wait = min(deadline, next_bookmark) - now if bookmarks else deadline - now
                try:
                    ev = await _get(queue, max(wait, 0.0))
                except asyncio.TimeoutError:
                    if bookmarks and time.monotonic() < deadline and time.monotonic() >= next_bookmark:
                        watcher.request_progress()  # the BOOKMARK goes out behind every queued change
                        next_bookmark = _next_bookmark(time.monotonic(), deadline) or deadline
                    continue
                if ev is not None and ctx.watch_lag > 0:  # a flavour's late watch: the burst waits, in order
                    await asyncio.sleep(ctx.watch_lag)
            if ev is None:
                break
            if isinstance(ev, Progress):
                if ev.rv >= floor:
                    await _bookmark(resp, store, start_rv if faults.rewind else str(ev.rv), embed, encode_event, sent)
                continue
            if cache is None:
                await send(ev)
            elif not await timely(ev):
                final_bookmark = False
                break
        ended = attached is not None and attached.ended  # the watch cache ended it: nothing more is sent
        if final_bookmark and not ended:  # a last BOOKMARK as a short watch ends
            watcher.request_progress()
            while True:
                try:
                    ev = await _get(queue, 1.0)
                except asyncio.TimeoutError:
                    break
                if ev is None:
                    break
                if isinstance(ev, Progress):
                    if ev.rv >= floor:
                        await _bookmark(resp, store, start_rv if faults.rewind else str(ev.rv), embed, encode_event,
                                        sent)
                    break
                await send(ev)
        await faults.flush()
    except ConversionFailed as exc:  # a CRD's webhook failed to convert an event: etcd3's watcher sends the error
        line = encode_event("ERROR", exc.status)  # (`transformErrorToEvent`: InternalError) and the watch ends
        sent(line)
        await resp.write(line)
    except (ConnectionResetError, ConnectionError, Terminated):  # Terminated: the watch cache ended its watches
        pass
    finally:
        if watcher is not None:
            watcher.close()
        if held is not None:
            held.detach(attached)
    try:
        await resp.write_eof()
    except (ConnectionResetError, ConnectionError, RuntimeError):
        pass
    return resp


async def _cache_state(cache: Any, ns: str | None, opts: ListOptions) -> tuple[list[Event], ListOptions]:
    """A watch at resourceVersion "0" of a version whose watch cache is ready starts from the cache's own state
    (`getAllEventsSinceLocked(0)`: ADDED events of what it holds, as it converted them), its changes after that
    following from storage: (those events, the options storage's watch is opened with)."""
    if cache is None or opts.resource_version != "0":
        return [], opts
    await cache.first_list()
    held = cache.initial_events(ns)
    if held is None:  # (not ready: the attach below answers 429)
        return [], opts
    return held[0], dataclasses.replace(opts, resource_version=str(held[1]))


async def _cached(cache: Any, attached: Any, ev: Event, obj: dict[str, Any]) -> Any:
    """`obj` (the event's object, or its previous state for a selector's DELETED) as the watch cache converted
    it, or None when the cache did not (the caller converts it)."""
    got = await cache.shown(ev, attached)
    if got is None:
        return None
    if obj is ev.object:
        return got[0]
    if got[1] is None:
        return None
    prev = got[1]
    return {**prev, "metadata": {**(prev.get("metadata") or {}), "resourceVersion": str(ev.rv)}}


def _next_bookmark(now: float, deadline: float) -> float | None:
    """When the next BOOKMARK is due (cache_watcher.go `nextBookmarkTime`): every BOOKMARK_INTERVAL, and
    BOOKMARK_BEFORE_DEADLINE s before the watch's deadline; None once that moment has passed."""
    due = min(now + BOOKMARK_INTERVAL, deadline - BOOKMARK_BEFORE_DEADLINE)
    return due if due > now else None


async def _get(queue: asyncio.Queue, timeout: float) -> Any:
    """The next event, or `asyncio.TimeoutError` (a timer on this task, not a task per wait as `wait_for` makes)."""
    return await within(queue.get(), timeout)


async def _bookmark(resp: web.StreamResponse, store: GenericStore, rv: str,
                    embed: Callable[[dict[str, Any]], Any] | None = None,
                    encode_event: Callable[[str, Any], bytes] = _json_event,
                    sent: Callable[[bytes], None] = not_counted) -> None:
    obj = {"kind": store.info.kind, "apiVersion": "v1", "metadata": {"resourceVersion": rv, "creationTimestamp": None}}
    line = encode_event("BOOKMARK", embed(obj) if embed else obj)
    sent(line)
    await resp.write(line)


class _StreamFaults:
    """The per-stream deviations of one watch (drop, duplicate or reorder one event; rewind bookmarks); with
    none active, `write` writes each line as it comes."""

    NTH = 5  # the event (counted from 1) the drop/duplicate deviations act on

    def __init__(self, deviations: Any, resp: web.StreamResponse, sent: Callable[[bytes], None]):
        self.resp = resp
        self.sent = sent  # apiserver_watch_events_total (metrics/watch.py)
        self.drop = deviations.active("watch-drops-event")
        self.duplicate = deviations.active("watch-duplicates-event")
        self.reorder = deviations.active("watch-reorders-events")
        self.rewind = deviations.active("bookmark-rewinds")
        self.count = 0
        self.held: tuple[tuple[str, str], bytes] | None = None
        self.reordered = False

    async def write(self, line: bytes, key: tuple[str, str], typ: str) -> None:
        self.sent(line)
        self.count += 1
        if self.drop and self.count == self.NTH:
            return
        if self.reorder and not self.reordered:
            if self.held is None and typ == "MODIFIED":
                self.held = (key, line)  # sent after this object's next change
                return
            if self.held is not None and self.held[0] == key:
                await self.resp.write(line)
                await self.flush()
                return
        await self.resp.write(line)
        if self.duplicate and self.count == self.NTH:
            await self.resp.write(line)

    async def flush(self) -> None:
        if self.held is not None:
            line, self.held, self.reordered = self.held[1], None, True
            await self.resp.write(line)
