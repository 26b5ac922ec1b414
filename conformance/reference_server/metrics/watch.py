"""The watch streams' metrics (`k8s.io/apiserver/pkg/endpoints/metrics/metrics.go` `WatchEvents`,
`WatchEventsSizes`, v0.33.1), labelled with the watched resource's group, version and kind (`Scope.Kind`).

As upstream: `apiserver_watch_events_total` counts each event a watch sends (`handlers/watch.go` `HandleHTTP`,
before encoding: bookmarks and a final ERROR included); `apiserver_watch_events_sizes` observes the size of each
event's encoded object (`handlers/response.go` `doEncode`: `len(outEvent.Object.Raw)`, the object's JSON with
the serializer's trailing newline, or its protobuf envelope), once per encoding: an event's object encoded once
for every watcher (upstream's `CachingObject`, here the event's shared encoding) is observed once, a bookmark or
a transformed object (`as=Table`) once per watcher.
"""
from __future__ import annotations

from typing import Any, Callable

from aiohttp import web

from .registry import CounterVec, HistogramVec

EVENT_SIZE_BUCKETS = tuple(1024.0 * 2 ** i for i in range(8))  # ExponentialBuckets(1024, 2.0, 8): 1K .. 128K
_LABELS = ("group", "version", "kind")
Encoder = Callable[[str, Any], bytes]
Sent = Callable[[bytes], None]
STREAM_BYTES: Any = web.RequestKey("nsconform_stream_bytes", int) if hasattr(web, "RequestKey") \
    else "nsconform.stream_bytes"  # type: ignore[attr-defined]


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = data[i]
        value |= (b & 0x7F) << shift
        i += 1
        if b < 0x80:
            return value, i
        shift += 7


def object_size(line: bytes, event_type: str, protobuf: bool) -> int:
    """The size of the object inside one encoded event: a JSON line `{"type":"<t>","object":<o>}` + newline
    (the object's raw JSON is upstream's plus its newline), or a protobuf frame (4-byte length, then
    `WatchEvent{1: type, 2: RawExtension{1: raw}}`)."""
    if not protobuf:
        return len(line) - 21 - len(event_type)
    length, i = _varint(line, 5)  # after the frame's length and the type's tag
    i += length + 1  # past the type and the object's tag
    _, i = _varint(line, i)
    if i >= len(line):
        return 0
    raw, _ = _varint(line, i + 1)
    return raw


class WatchMetrics:
    def __init__(self) -> None:
        self.events = CounterVec("apiserver_watch_events_total", "Number of events sent in watch clients", _LABELS)
        self.sizes = HistogramVec("apiserver_watch_events_sizes", "Watch event size distribution in bytes", _LABELS,
                                  EVENT_SIZE_BUCKETS)

    def families(self) -> tuple[CounterVec, HistogramVec]:
        return self.events, self.sizes

    def stream(self, request: Any, store: Any, encode: Encoder, protobuf: bool) -> tuple[Encoder, Sent]:
        """For one watch of `store`: its event encoder, observing each encoding's size, and the call that counts
        one event sent (and its bytes, the request's `apiserver_response_sizes`: the stream's body, without
        HTTP's chunk framing, as upstream's `ResponseWriterDelegator` counts it)."""
        key = (getattr(store, "group", ""), getattr(store, "version", "v1"), store.info.kind)
        sizes, events = self.sizes, self.events.values
        request[STREAM_BYTES] = 0

        def encoded(event_type: str, obj: Any) -> bytes:
            line = encode(event_type, obj)
            sizes.observe(key, object_size(line, event_type, protobuf))
            return line

        def sent(line: bytes) -> None:
            events[key] = events.get(key, 0) + 1
            request[STREAM_BYTES] += len(line)

        return encoded, sent


def not_counted(line: bytes) -> None:
    pass


def instrument(metrics: Any, request: Any, store: Any, encode: Encoder, protobuf: bool) -> tuple[Encoder, Sent]:
    """`WatchMetrics.stream` of a server's metrics (`ctx.metrics`), or the encoder as it is without metrics."""
    watch = getattr(metrics, "watch", None)
    return watch.stream(request, store, encode, protobuf) if watch is not None else (encode, not_counted)


__all__ = ["EVENT_SIZE_BUCKETS", "STREAM_BYTES", "WatchMetrics", "instrument", "not_counted", "object_size"]
