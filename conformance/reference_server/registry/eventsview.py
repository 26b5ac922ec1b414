"""`events.k8s.io/v1` Events: a second view of the core/v1 events' storage, as kube-apiserver serves it (one
storage, `/registry/events/<ns>/<name>`, two versions).

`ConvertingStore` sits between this view's generic store and the server's store: objects leave storage as
events.k8s.io/v1 and enter it as core/v1 (`eventsv1.to_v1`/`to_core`, upstream's conversion), so gets, lists,
watches, patches, server-side apply and managedFields all work on the v1 shape, as upstream's versioned
handlers do, while the core/v1 API and every controller keep seeing core Events. Both APIs' field managers share
one converter (`share_converter`): each managedFields entry is compared in its own version.

Validation is `pkg/apis/core/validation/events.go` for a request in events.k8s.io/v1 (`ValidateEventCreate`,
`ValidateEventUpdate` with `requestVersion` events/v1: `legacyValidateEvent`, then the strict rules), run on the
converted (internal, core-shaped) object, so its paths are upstream's internal names (`firstTimestamp`, `count`,
`source`, `involvedObject`) even for a request in the new API, as upstream reports them.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .. import eventsv1
from ..apierrors import FieldError, GoValue, field_invalid, field_required
from ..fieldmanager.versionconverter import VersionConverter
from ..storage import Store
from ..storage.interface import DELETE, Event
from ..wire.gosyntax import sharp_v, time_string
from .group import GroupStore
from .kinds import ResourceInfo
from .strategy import Strategy
from .validation import (
    is_dns1123_subdomain,
    is_qualified_name,
    validate_object_meta,
    validate_object_meta_update,
)

RESOURCE = "events"
# pkg/apis/events/v1/conversion.go `AddFieldLabelConversionsForEvent` (since 1.19, kubernetes#92874; 1.33's map, no
# `source`): each label names the core Event's field its `ToSelectableFields` sets (`regarding.kind` is
# `involvedObject.kind`, `reportingController` is `reportingComponent`), the same value this view's objects hold at
# the label's own path; any other label is `field label not supported: <label>`
EVENTS_V1_FIELD_LABELS = ("metadata.name", "metadata.namespace", "reason", "regarding.kind", "regarding.namespace",
                          "regarding.name", "regarding.uid", "regarding.apiVersion", "regarding.resourceVersion",
                          "regarding.fieldPath", "reportingController", "type")
EVENTS_V1_INFO = ResourceInfo(
    "Event", "events", "event", ("ev",),
    fields=frozenset({"eventTime", "series", "reportingController", "reportingInstance", "action", "reason",
                      "regarding", "related", "note", "type", "deprecatedSource", "deprecatedFirstTimestamp",
                      "deprecatedLastTimestamp", "deprecatedCount"}),
    selectable_fields=EVENTS_V1_FIELD_LABELS, custom_field_labels=True)
REPORTING_INSTANCE_LIMIT = ACTION_LIMIT = REASON_LIMIT = 128
NOTE_LIMIT = 1024


def _convert(obj: Any, fn: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    return fn(obj) if isinstance(obj, dict) else obj


class _ConvertingQueue:
    """A watcher's queue whose events carry events/v1 objects."""

    def __init__(self, inner: Any):
        self._inner = inner

    @staticmethod
    def _event(ev: Any) -> Any:
        if isinstance(ev, Event) and ev.resource == RESOURCE:
            return dataclasses.replace(ev, object=eventsv1.to_v1(ev.object), prev=_convert(ev.prev, eventsv1.to_v1),
                                       encoded={})
        return ev

    def get_nowait(self) -> Any:
        return self._event(self._inner.get_nowait())

    async def get(self) -> Any:
        return self._event(await self._inner.get())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _ConvertingWatcher:
    def __init__(self, inner: Any):
        self._inner = inner
        self.queue = _ConvertingQueue(inner.queue)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class ConvertingStore:
    """The server's store, with the `events` resource read as events/v1 and written as core/v1."""

    def __init__(self, inner: Store):
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def create(self, resource: str, namespace: str, name: str, obj: dict[str, Any], **ttl: int) -> dict[str, Any]:
        return eventsv1.to_v1(self._inner.create(resource, namespace, name, eventsv1.to_core(obj), **ttl))

    def get(self, resource: str, namespace: str, name: str, *, shared: bool = False) -> dict[str, Any]:
        return eventsv1.to_v1(self._inner.get(resource, namespace, name, shared=shared))

    def list(self, resource: str, namespace: str | None, *, shared: bool = False) -> tuple[list[dict[str, Any]], int]:
        items, rv = self._inner.list(resource, namespace, shared=shared)
        return [eventsv1.to_v1(o) for o in items], rv

    def list_at(self, resource: str, namespace: str | None, rv: int, *,
                shared: bool = False) -> tuple[list[dict[str, Any]], int]:
        items, at = self._inner.list_at(resource, namespace, rv, shared=shared)
        return [eventsv1.to_v1(o) for o in items], at

    def guaranteed_update(self, resource: str, namespace: str, name: str,
                          fn: Callable[[dict[str, Any]], Any], **ttl: int) -> tuple[dict[str, Any], bool]:
        def convert(current: dict[str, Any]) -> Any:
            out = fn(eventsv1.to_v1(current))
            return out if out is DELETE or not isinstance(out, dict) else eventsv1.to_core(out)
        obj, deleted = self._inner.guaranteed_update(resource, namespace, name, convert, **ttl)
        return eventsv1.to_v1(obj), deleted

    def _check(self, check: Callable[[dict[str, Any]], None] | None) -> Callable[[dict[str, Any]], None] | None:
        return None if check is None else (lambda stored: check(eventsv1.to_v1(stored)))

    def delete(self, resource: str, namespace: str, name: str,
               check: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
        return eventsv1.to_v1(self._inner.delete(resource, namespace, name, self._check(check)))

    def delete_many(self, resource: str, items: list[tuple[str, str]],
                    check: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any] | Exception]:
        return [_convert(o, eventsv1.to_v1) for o in self._inner.delete_many(resource, items, self._check(check))]

    def watch(self, resource: str, namespace: str | None, from_rv: int, loop: Any) -> tuple[list[Event], Any]:
        backlog, watcher = self._inner.watch(resource, namespace, from_rv, loop)
        return [_ConvertingQueue._event(ev) for ev in backlog], _ConvertingWatcher(watcher)


def _legacy_errors(event: dict[str, Any]) -> list[FieldError]:
    """`legacyValidateEvent` on the internal (core-shaped) event."""
    errs: list[FieldError] = []
    meta = event.get("metadata") or {}
    ns = meta.get("namespace") or ""
    involved = event.get("involvedObject") or {}
    ins = involved.get("namespace") or ""
    if not event.get("eventTime"):
        if (not ins and ns not in ("", "default")) or (ins and ns != ins):
            errs.append(field_invalid("involvedObject.namespace", ins, "does not match event.namespace"))
    else:
        if not ins and ns not in ("default", "kube-system"):
            errs.append(field_invalid("involvedObject.namespace", ins, "does not match event.namespace"))
        controller = event.get("reportingComponent") or ""
        if not controller:
            errs.append(field_required("reportingController"))
        errs += [field_invalid("reportingController", controller, m) for m in is_qualified_name(controller)]
        for path, limit in (("reportingInstance", REPORTING_INSTANCE_LIMIT), ("action", ACTION_LIMIT),
                            ("reason", REASON_LIMIT)):
            value = event.get(path) or ""
            if not value:
                errs.append(field_required(path))
            if len(value) > limit:
                errs.append(field_invalid(path, "", f"can have at most {limit} characters"))
        if len(event.get("message") or "") > NOTE_LIMIT:
            errs.append(field_invalid("message", "", f"can have at most {NOTE_LIMIT} characters"))
    errs += [field_invalid("namespace", ns, m) for m in is_dns1123_subdomain(ns)]
    return errs


def _series_errors(event: dict[str, Any]) -> list[FieldError]:
    """`validateV1EventSeries`."""
    series = event.get("series")
    if not isinstance(series, dict):
        return []
    errs: list[FieldError] = []
    if (series.get("count") or 0) < 2:
        errs.append(field_invalid("series.count", "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        errs.append(field_required("series.lastObservedTime"))
    return errs


_IMMUTABLE = ("involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count", "reason",
              "type", "eventTime", "action", "related", "reportingComponent", "reportingInstance")
_PATHS = {"reportingComponent": "reportingController"}
_STRUCTS = {"involvedObject": "core.ObjectReference", "source": "core.EventSource", "related": "core.ObjectReference"}
_TIMES = ("firstTimestamp", "lastTimestamp", "eventTime")


def _bad_value(name: str, value: Any) -> Any:
    """An immutable field's new value as `ValidateImmutableField`'s `field.Invalid` prints the internal `core.Event`'s
    field: a struct (`Related` a pointer, dereferenced or nil) as Go's `%#v`, a `metav1.Time`/`MicroTime` by its
    `String()` (a `fmt.Stringer`), an absent string "" and an absent count 0."""
    if name in _TIMES:
        return GoValue(time_string(value))
    if name in _STRUCTS:
        return None if name == "related" and value is None else GoValue(sharp_v(value, _STRUCTS[name]))
    return value or (0 if name == "count" else "")


class EventsV1Strategy(Strategy):
    """`eventStrategy` for a request in events.k8s.io/v1 (objects here are in the v1 shape)."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """`ValidateEventCreate(event, events/v1)`."""
        event = eventsv1.to_core(obj)
        errs = _legacy_errors(event)
        errs += validate_object_meta(event.get("metadata") or {}, namespaced=True, name_rule="subdomain")
        errs += _series_errors(event)
        if not event.get("eventTime"):
            errs.append(field_required("eventTime"))
        etype = event.get("type") or ""
        if etype not in ("Normal", "Warning"):
            errs.append(field_invalid("type", "", f"has invalid value: {etype}"))
        for path, present in (("firstTimestamp", bool(event.get("firstTimestamp"))),
                              ("lastTimestamp", bool(event.get("lastTimestamp"))),
                              ("count", bool(event.get("count"))),
                              ("source", bool(event["source"].get("component") or event["source"].get("host")))):
            if present:
                errs.append(field_invalid(path, "", "needs to be unset"))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateEventUpdate(new, old, events/v1)`."""
        event, before = eventsv1.to_core(new), eventsv1.to_core(old)
        errs = _legacy_errors(event)
        errs += validate_object_meta_update(event.get("metadata") or {}, before.get("metadata") or {})
        if event.get("series") != before.get("series"):
            errs += _series_errors(event)
        for name in _IMMUTABLE:
            if event.get(name) != before.get(name):
                errs.append(field_invalid(_PATHS.get(name, name), _bad_value(name, event.get(name)),
                                          "field is immutable"))
        return errs


def share_converter(core: Any, view: Any) -> None:
    """One `VersionConverter` for the core/v1 events' field manager and this view's (set before either is built):
    an Event's managedFields entry keeps the version it was recorded in, and a write through the other API compares
    it there (versionconverter.go: through the group's internal version, which for events.k8s.io is core's `Event`,
    kubernetes `pkg/apis/events/register.go`), so `f:message` and `f:note` are one field seen from each side."""
    converter = VersionConverter("v1")
    converter.add(eventsv1.API_VERSION, eventsv1.to_core, eventsv1.to_v1)
    core.version_converter = view.version_converter = converter


class EventsView(GroupStore):
    """The events.k8s.io/v1 store: the generic store over `ConvertingStore` (the core events' storage)."""

    def __init__(self, store: Store, deviations: Any):
        converting: Any = ConvertingStore(store)
        super().__init__(EVENTS_V1_INFO, converting, eventsv1.GROUP, eventsv1.VERSION,
                         EventsV1Strategy(EVENTS_V1_INFO), deviations)

    view_of = "events"  # the core events' store: left out of `Registry.namespaced()` (no double deletion or GC)
    schema_kind = "events.k8s.io/Event"  # not core/v1's Event to the decoder's field model (http/handlers.py)
    field_kind = ""  # a field label's value is the string at its path in the v1 object (EVENTS_V1_FIELD_LABELS)

    @property
    def table_kind(self) -> str:
        return "events.k8s.io/Event"  # printEvent of the internal event (wire/table_certsevents.py)

    def get_rendered(self, ns: str, name: str, render: Callable[[dict[str, Any]], Any]) -> Any:
        """No memo: every read converts, so the stored dict's identity does not stand for a version here."""
        return render(self.get(ns, name, shared=True))


__all__ = ["EVENTS_V1_INFO", "ConvertingStore", "EventsV1Strategy", "EventsView", "share_converter"]
