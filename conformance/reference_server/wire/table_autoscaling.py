"""Table printer of HorizontalPodAutoscalers (`kubectl get hpa`), after upstream's
`pkg/printers/internalversion/printers.go` (`printHorizontalPodAutoscaler`, `formatHPAMetrics`): NAME REFERENCE
TARGETS MINPODS MAXPODS REPLICAS AGE. Upstream prints the internal object, so an `autoscaling/v1` object is first
read as v2 (its conversion, `registry/autoscaling_v1.py`: the CPU target and the annotations' metrics).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

Col = Callable[..., dict[str, Any]]
_MAX_SHOWN = 2


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _q(value: Any) -> str:
    """`Quantity.String()` of a (possibly absent: zero) quantity."""
    from ..quantity import canonical
    try:
        return canonical(value if value is not None else "0")
    except Exception:  # noqa: BLE001 - a value validation refused never reaches a table
        return str(value)


def _entry(spec: dict[str, Any], status: dict[str, Any] | None) -> str:
    typ = spec.get("type")
    key = {"External": "external", "Pods": "pods", "Object": "object", "Resource": "resource",
           "ContainerResource": "containerResource"}.get(typ or "")
    if key is None:
        return "<unknown type>"
    src, cur = _dict(spec.get(key)), _dict(_dict(status).get(key)) if status and status.get(key) is not None else None
    target, current = _dict(src.get("target")), _dict((cur or {}).get("current"))
    if key in ("external", "object"):
        if target.get("averageValue") is not None:
            shown = _q(current["averageValue"]) if cur is not None and current.get("averageValue") is not None \
                else "<unknown>"
            return f"{shown}/{_q(target['averageValue'])} (avg)"
        shown = _q(current.get("value")) if cur is not None else "<unknown>"
        return f"{shown}/{_q(target.get('value'))}"
    if key == "pods":
        shown = _q(current.get("averageValue")) if cur is not None else "<unknown>"
        return f"{shown}/{_q(target.get('averageValue'))}"
    name = src.get("name", "")
    if target.get("averageValue") is not None:
        shown = _q(current.get("averageValue")) if cur is not None else "<unknown>"
        return f"{name}: {shown}/{_q(target['averageValue'])}"
    shown = f"{current['averageUtilization']}%" if cur is not None and current.get("averageUtilization") is not None \
        else "<unknown>"
    goal = f"{target['averageUtilization']}%" if target.get("averageUtilization") is not None else "<auto>"
    return f"{name}: {shown}/{goal}"


def format_metrics(specs: list[Any], statuses: list[Any]) -> str:
    """`formatHPAMetrics`: the first two `current/target` entries, `+ N more...`; `<none>` without metrics."""
    if not specs:
        return "<none>"
    shown = [_entry(_dict(s), _dict(statuses[i]) if i < len(statuses) else None) for i, s in enumerate(specs)]
    if len(shown) > _MAX_SHOWN:
        return ", ".join(shown[:_MAX_SHOWN]) + f" + {len(shown) - _MAX_SHOWN} more..."
    return ", ".join(shown)


def printers(col: Col, name: dict[str, Any], age_col: dict[str, Any],
             age: Callable[[dict[str, Any], datetime], str]) -> dict[str, tuple[list[dict[str, Any]], Callable]]:
    def hpa(obj: dict[str, Any], now: datetime) -> list[Any]:
        stored = getattr(obj, "stored", None)  # registry/versions.py: a v1 answer keeps its stored v2 object
        if isinstance(stored, dict):
            obj = stored
        elif obj.get("apiVersion") == "autoscaling/v1":
            from ..registry.autoscaling_v1 import to_storage  # pure conversion, as the internal object upstream
            obj = {**to_storage(obj), "metadata": obj.get("metadata") or {}}
        spec, status = _dict(obj.get("spec")), _dict(obj.get("status"))
        ref = _dict(spec.get("scaleTargetRef"))
        min_pods = str(spec["minReplicas"]) if isinstance(spec.get("minReplicas"), int) else "<unset>"
        return [obj["metadata"].get("name", ""), f"{ref.get('kind', '')}/{ref.get('name', '')}",
                format_metrics(spec.get("metrics") or [], status.get("currentMetrics") or []), min_pods,
                spec.get("maxReplicas", 0), status.get("currentReplicas", 0), age(obj, now)]

    return {"HorizontalPodAutoscaler": (
        [name,
         col("Reference", "scaleTargetRef points to the target resource to scale, and is used to the pods for which "
                          "metrics should be collected, as well as to actually change the replica count."),
         col("Targets", "metrics contains the specifications for which to use to calculate the desired replica "
                        "count (the maximum replica count across all metrics will be used).  The desired replica "
                        "count is calculated multiplying the ratio between the target value and the current value "
                        "by the current number of pods.  Ergo, metrics used must decrease as the pod count is "
                        "increased, and vice-versa.  See the individual metric source types for more information "
                        "about how each type of metric must respond."),
         col("MinPods", "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale "
                        "down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate "
                        "HPAScaleToZero is enabled and at least one Object or External metric is configured.  "
                        "Scaling is active as long as at least one metric value is available."),
         col("MaxPods", "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale "
                        "up. It cannot be less that minReplicas."),
         col("Replicas", "currentReplicas is current number of replicas of pods managed by this autoscaler, as last "
                         "seen by the autoscaler."),
         age_col], hpa)}
