"""The conversion between core/v1 Events and events.k8s.io/v1 Events (`pkg/apis/events/v1/conversion.go`:
`Convert_v1_Event_To_core_Event`, `Convert_core_Event_To_v1_Event` over the generated auto-conversions).

kube-apiserver stores one Event type and serves it in both versions; here the stored form is core/v1's JSON and
events.k8s.io/v1 is computed from it. Renamed fields: `note` ↔ `message`, `regarding` ↔ `involvedObject`,
`reportingController` ↔ `reportingComponent`, `deprecatedSource` ↔ `source`, `deprecatedFirstTimestamp` ↔
`firstTimestamp`, `deprecatedLastTimestamp` ↔ `lastTimestamp`, `deprecatedCount` ↔ `count`; the rest (metadata,
eventTime, series, action, reason, related, reportingInstance, type) is the same. Each side is written in Go's
JSON shape: struct fields without `omitempty` (and zero times, which marshal as `null`) are always present.

Pure functions, below the registry and wire (both use them).
"""
from __future__ import annotations

from typing import Any

GROUP, VERSION = "events.k8s.io", "v1"
API_VERSION = f"{GROUP}/{VERSION}"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _series(value: Any) -> dict[str, Any] | None:
    """EventSeries (core has the same two fields): `count` always written, `lastObservedTime` a MicroTime."""
    if not isinstance(value, dict):
        return None
    return {"count": value.get("count") or 0, "lastObservedTime": value.get("lastObservedTime")}


def to_v1(core: dict[str, Any]) -> dict[str, Any]:
    """`Convert_core_Event_To_v1_Event`, in events/v1's field order."""
    out: dict[str, Any] = {"kind": "Event", "apiVersion": API_VERSION, "metadata": core.get("metadata") or {},
                           "eventTime": core.get("eventTime")}
    series = _series(core.get("series"))
    if series is not None:
        out["series"] = series
    for v1_name, core_name in (("reportingController", "reportingComponent"),
                               ("reportingInstance", "reportingInstance"), ("action", "action"), ("reason", "reason")):
        if core.get(core_name):
            out[v1_name] = core[core_name]
    out["regarding"] = _dict(core.get("involvedObject"))
    if isinstance(core.get("related"), dict):
        out["related"] = core["related"]
    for v1_name, core_name in (("note", "message"), ("type", "type")):
        if core.get(core_name):
            out[v1_name] = core[core_name]
    out["deprecatedSource"] = _dict(core.get("source"))
    out["deprecatedFirstTimestamp"] = core.get("firstTimestamp")
    out["deprecatedLastTimestamp"] = core.get("lastTimestamp")
    if core.get("count"):
        out["deprecatedCount"] = core["count"]
    return out


def to_core(v1: dict[str, Any]) -> dict[str, Any]:
    """`Convert_v1_Event_To_core_Event`, in core/v1's field order."""
    out: dict[str, Any] = {"kind": "Event", "apiVersion": "v1", "metadata": v1.get("metadata") or {},
                           "involvedObject": _dict(v1.get("regarding"))}
    for core_name, v1_name in (("reason", "reason"), ("message", "note")):
        if v1.get(v1_name):
            out[core_name] = v1[v1_name]
    out["source"] = _dict(v1.get("deprecatedSource"))
    out["firstTimestamp"] = v1.get("deprecatedFirstTimestamp")
    out["lastTimestamp"] = v1.get("deprecatedLastTimestamp")
    if v1.get("deprecatedCount"):
        out["count"] = v1["deprecatedCount"]
    if v1.get("type"):
        out["type"] = v1["type"]
    out["eventTime"] = v1.get("eventTime")
    series = _series(v1.get("series"))
    if series is not None:
        out["series"] = series
    if v1.get("action"):
        out["action"] = v1["action"]
    if isinstance(v1.get("related"), dict):
        out["related"] = v1["related"]
    out["reportingComponent"] = v1.get("reportingController") or ""
    out["reportingInstance"] = v1.get("reportingInstance") or ""
    return out


__all__ = ["API_VERSION", "GROUP", "VERSION", "to_core", "to_v1"]
