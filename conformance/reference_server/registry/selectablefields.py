"""The value a field selector compares, for the built-in kinds whose `ToSelectableFields` does not simply copy
the string at the field's path: a bool is `fmt.Sprint` / `strconv.FormatBool` of it (unset: "false"), a number
`strconv.Itoa` (unset: "0"), and two fields are computed.

Follows pkg/registry/core/pod/strategy.go (`ToSelectableFields`: `spec.hostNetwork`, `status.podIP` from
`status.podIPs[0]`; `status.podIPs`, a label pkg/apis/core/v1/conversion.go accepts that `ToSelectableFields` never
sets, is "" for every pod: `fields.Set.Get` of a missing key), node/strategy.go (`NodeToSelectableFields`),
replicationcontroller/strategy.go (`ControllerToSelectableFields`) and event/strategy.go (`ToSelectableFields`: `source` is `source.component`, else
`reportingComponent`). Every other field (metadata.name, spec.nodeName, status.phase, type, ...) is the string at
its path, "" when unset."""
from __future__ import annotations

from typing import Any, Callable

__all__ = ["field_value"]


def _at(obj: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def _string(obj: dict[str, Any], path: str) -> str:
    """`fmt.Sprint` of the value at `path` ("" when unset: a custom resource's `selectableFields`, whose
    schema types are string, integer or boolean, customresource/strategy.go `selectableFields`)."""
    v = _at(obj, path)
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


def _bool(path: str) -> Callable[[dict[str, Any]], str]:
    return lambda obj: "true" if _at(obj, path) is True else "false"


def _int(path: str) -> Callable[[dict[str, Any]], str]:
    return lambda obj: str(v) if isinstance(v := _at(obj, path), int) and not isinstance(v, bool) else "0"


def _pod_ip(obj: dict[str, Any]) -> str:
    ips = _at(obj, "status.podIPs")
    first = ips[0] if isinstance(ips, list) and ips else None
    return first.get("ip") or "" if isinstance(first, dict) else ""


def _event_source(obj: dict[str, Any]) -> str:
    return _string(obj, "source.component") or _string(obj, "reportingComponent")


_COMPUTED: dict[tuple[str, str], Callable[[dict[str, Any]], str]] = {
    ("Pod", "spec.hostNetwork"): _bool("spec.hostNetwork"),
    ("Pod", "status.podIP"): _pod_ip,
    ("Pod", "status.podIPs"): lambda obj: "",
    ("Node", "spec.unschedulable"): _bool("spec.unschedulable"),
    ("ReplicationController", "status.replicas"): _int("status.replicas"),
    ("Event", "source"): _event_source,
}


def field_value(kind: str, obj: dict[str, Any], path: str) -> str:
    """The `fields.Set` value of `path` for an object of `kind`."""
    computed = _COMPUTED.get((kind, path))
    return computed(obj) if computed is not None else _string(obj, path)
