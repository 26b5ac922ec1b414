"""`autoscaling/v1` HorizontalPodAutoscalers as conversions of the stored `autoscaling/v2` object
(`pkg/apis/autoscaling/v1/conversion.go`, through the internal version):

- v1's `spec.targetCPUUtilizationPercentage` is the first `Resource` cpu metric's `averageUtilization`, and
  `status.currentCPUUtilizationPercentage` the (last) cpu resource metric status's;
- every other metric (`autoscaling.alpha.kubernetes.io/metrics`), every current metric (`.../current-metrics`),
  the conditions (`.../conditions`) and the behavior (`.../behavior`, Go's JSON of the internal type, whose
  fields have no JSON tags) travel in annotations, in v1's (v2beta1-shaped) metric types;
- a v1 object without any metric gets the CPU metric at 80% (the conversion's own default);
- annotations that do not parse are ignored ("only move well-formed data from annotations to fields"), and
  the four round-trip annotations never reach storage.
"""
from __future__ import annotations

import json
from typing import Any

from ..quantity import canonical
from .autoscaling import (BEHAVIOR_SPECS, CONDITIONS, METRIC_SPECS, METRIC_STATUSES, ROUND_TRIP_ANNOTATIONS,
                          default_cpu_metric)
from .versions import ServedVersion
from .shapes import as_dict

_SOURCE_FIELD = {"Object": "object", "Pods": "pods", "Resource": "resource", "ContainerResource": "containerResource",
                 "External": "external"}


def _q(value: Any) -> Any:
    """A quantity as Go's JSON writes it (canonical), or the value as given when it does not parse."""
    if value is None:
        return None
    try:
        return canonical(value)
    except Exception:  # noqa: BLE001 - validation reports it; conversion keeps what it got
        return value


def _q0(value: Any) -> Any:
    """A non-pointer Quantity: "0" when absent."""
    return _q(value) if value is not None else "0"


def _compact(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A Go struct's JSON: the fields in order, `None` meaning an omitted (omitempty / nil) one."""
    return {k: v for k, v in pairs if v is not None}


def _ref(ref: Any) -> dict[str, Any]:
    r = as_dict(ref)
    return _compact([("kind", r.get("kind", "")), ("name", r.get("name", "")), ("apiVersion", r.get("apiVersion") or None)])


def _is_cpu_utilization(metric: dict[str, Any]) -> bool:
    res = as_dict(metric.get("resource"))
    return (metric.get("type") == "Resource" and res.get("name") == "cpu"
            and as_dict(res.get("target")).get("averageUtilization") is not None)


# ---- metrics: v2 → v1 ------------------------------------------------------------------------------------
def _spec_to_v1(m: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": m.get("type", "")}
    for typ, key in _SOURCE_FIELD.items():
        src = m.get(key)
        if not isinstance(src, dict):
            continue
        metric, target = as_dict(src.get("metric")), as_dict(src.get("target"))
        if typ == "Object":
            out[key] = _compact([("target", _ref(src.get("describedObject"))), ("metricName", metric.get("name", "")),
                                 ("targetValue", _q0(target.get("value"))), ("selector", metric.get("selector")),
                                 ("averageValue", _q(target.get("averageValue")))])
        elif typ == "Pods":
            out[key] = _compact([("metricName", metric.get("name", "")),
                                 ("targetAverageValue", _q0(target.get("averageValue"))),
                                 ("selector", metric.get("selector"))])
        elif typ in ("Resource", "ContainerResource"):
            out[key] = _compact([("name", src.get("name", "")),
                                 ("targetAverageUtilization", target.get("averageUtilization")),
                                 ("targetAverageValue", _q(target.get("averageValue"))),
                                 ("container", src.get("container", "") if typ == "ContainerResource" else None)])
        else:
            out[key] = _compact([("metricName", metric.get("name", "")), ("metricSelector", metric.get("selector")),
                                 ("targetValue", _q(target.get("value"))),
                                 ("targetAverageValue", _q(target.get("averageValue")))])
    return out


def _status_to_v1(m: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": m.get("type", "")}
    for typ, key in _SOURCE_FIELD.items():
        src = m.get(key)
        if not isinstance(src, dict):
            continue
        metric, current = as_dict(src.get("metric")), as_dict(src.get("current"))
        if typ == "Object":
            out[key] = _compact([("target", _ref(src.get("describedObject"))), ("metricName", metric.get("name", "")),
                                 ("currentValue", _q0(current.get("value"))), ("selector", metric.get("selector")),
                                 ("averageValue", _q(current.get("averageValue")))])
        elif typ == "Pods":
            out[key] = _compact([("metricName", metric.get("name", "")),
                                 ("currentAverageValue", _q0(current.get("averageValue"))),
                                 ("selector", metric.get("selector"))])
        elif typ in ("Resource", "ContainerResource"):
            out[key] = _compact([("name", src.get("name", "")),
                                 ("currentAverageUtilization", current.get("averageUtilization")),
                                 ("currentAverageValue", _q0(current.get("averageValue"))),
                                 ("container", src.get("container", "") if typ == "ContainerResource" else None)])
        else:
            out[key] = _compact([("metricName", metric.get("name", "")), ("metricSelector", metric.get("selector")),
                                 ("currentValue", _q0(current.get("value"))),
                                 ("currentAverageValue", _q(current.get("averageValue")))])
    return out


def _condition(c: Any) -> dict[str, Any]:
    c = as_dict(c)
    return _compact([("type", c.get("type", "")), ("status", c.get("status", "")),
                     ("lastTransitionTime", c.get("lastTransitionTime")),
                     ("reason", c.get("reason") or None), ("message", c.get("message") or None)])


def _behavior_to_go(behavior: dict[str, Any]) -> dict[str, Any]:
    """The internal `HorizontalPodAutoscalerBehavior` as `json.Marshal` writes it (Go field names, nil as null)."""
    def rules(r: Any) -> Any:
        if not isinstance(r, dict):
            return None
        return {"StabilizationWindowSeconds": r.get("stabilizationWindowSeconds"),
                "SelectPolicy": r.get("selectPolicy"),
                "Policies": [{"Type": p.get("type", ""), "Value": p.get("value", 0),
                              "PeriodSeconds": p.get("periodSeconds", 0)} for p in r.get("policies") or []
                             if isinstance(p, dict)] if r.get("policies") is not None else None,
                "Tolerance": _q(r.get("tolerance"))}
    return {"ScaleUp": rules(behavior.get("scaleUp")), "ScaleDown": rules(behavior.get("scaleDown"))}


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def from_storage(obj: dict[str, Any]) -> dict[str, Any]:
    """`Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler` of a stored v2 object."""
    spec, status = as_dict(obj.get("spec")), as_dict(obj.get("status"))
    meta = dict(as_dict(obj.get("metadata")))
    annotations = {k: v for k, v in as_dict(meta.get("annotations")).items() if k not in ROUND_TRIP_ANNOTATIONS}
    metrics = [m for m in spec.get("metrics") or [] if isinstance(m, dict)]
    other = [_spec_to_v1(m) for m in metrics if not _is_cpu_utilization(m)]
    current = [_status_to_v1(m) for m in status.get("currentMetrics") or [] if isinstance(m, dict)]
    conditions = [_condition(c) for c in status.get("conditions") or []]
    if other:
        annotations[METRIC_SPECS] = _dumps(other)
    if current:
        annotations[METRIC_STATUSES] = _dumps(current)
    if isinstance(spec.get("behavior"), dict):
        annotations[BEHAVIOR_SPECS] = _dumps(_behavior_to_go(spec["behavior"]))
    if conditions:
        annotations[CONDITIONS] = _dumps(conditions)
    if annotations:
        meta["annotations"] = dict(sorted(annotations.items()))  # a Go map: keys sorted
    else:
        meta.pop("annotations", None)
    target_cpu = None
    for m in metrics:
        if m.get("type") == "Resource" and as_dict(m.get("resource")).get("name") == "cpu":
            target_cpu = as_dict(as_dict(m["resource"]).get("target")).get("averageUtilization")
            break
    current_cpu = None
    for m in status.get("currentMetrics") or []:
        res = as_dict(as_dict(m).get("resource"))
        if as_dict(m).get("type") == "Resource" and res.get("name") == "cpu":
            if as_dict(res.get("current")).get("averageUtilization") is not None:
                current_cpu = res["current"]["averageUtilization"]
    out: dict[str, Any] = {k: v for k, v in obj.items() if k not in ("spec", "status", "metadata")}
    out["metadata"] = meta
    out["spec"] = _compact([("scaleTargetRef", _ref(spec.get("scaleTargetRef"))),
                            ("minReplicas", spec.get("minReplicas")), ("maxReplicas", spec.get("maxReplicas", 0)),
                            ("targetCPUUtilizationPercentage", target_cpu)])
    out["status"] = _compact([("observedGeneration", status.get("observedGeneration")),
                              ("lastScaleTime", status.get("lastScaleTime")),
                              ("currentReplicas", status.get("currentReplicas", 0)),
                              ("desiredReplicas", status.get("desiredReplicas", 0)),
                              ("currentCPUUtilizationPercentage", current_cpu)])
    return out


# ---- v1 → v2 ---------------------------------------------------------------------------------------------
def _identifier(name: Any, selector: Any) -> dict[str, Any]:
    return _compact([("name", name or ""), ("selector", selector)])


def _spec_from_v1(m: dict[str, Any]) -> dict[str, Any]:
    typ = m.get("type", "")
    out: dict[str, Any] = {"type": typ}
    for t, key in _SOURCE_FIELD.items():
        src = m.get(key)
        if not isinstance(src, dict):
            continue
        if t == "Object":
            avg = src.get("averageValue")
            out[key] = {"describedObject": _ref(src.get("target")),
                        "target": _compact([("type", "AverageValue" if avg is not None else "Value"),
                                            ("value", _q0(src.get("targetValue"))), ("averageValue", _q(avg))]),
                        "metric": _identifier(src.get("metricName"), src.get("selector"))}
        elif t == "Pods":
            out[key] = {"metric": _identifier(src.get("metricName"), src.get("selector")),
                        "target": {"type": "AverageValue", "averageValue": _q0(src.get("targetAverageValue"))}}
        elif t in ("Resource", "ContainerResource"):
            util = src.get("targetAverageUtilization")
            out[key] = _compact([("name", src.get("name", "")),
                                 ("target", _compact([("type", "Utilization" if util is not None else "AverageValue"),
                                                      ("averageValue", _q(src.get("targetAverageValue"))),
                                                      ("averageUtilization", util)])),
                                 ("container", src.get("container", "") if t == "ContainerResource" else None)])
        else:
            value = src.get("targetValue")
            out[key] = {"metric": _identifier(src.get("metricName"), src.get("metricSelector")),
                        "target": _compact([("type", "AverageValue" if value is None else "Value"),
                                            ("value", _q(value)), ("averageValue", _q(src.get("targetAverageValue")))])}
    return out


def _status_from_v1(m: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": m.get("type", "")}
    for t, key in _SOURCE_FIELD.items():
        src = m.get(key)
        if not isinstance(src, dict):
            continue
        if t == "Object":
            out[key] = {"metric": _identifier(src.get("metricName"), src.get("selector")),
                        "current": _compact([("value", _q0(src.get("currentValue"))),
                                             ("averageValue", _q(src.get("averageValue")))]),
                        "describedObject": _ref(src.get("target"))}
        elif t == "Pods":
            out[key] = {"metric": _identifier(src.get("metricName"), src.get("selector")),
                        "current": {"averageValue": _q0(src.get("currentAverageValue"))}}
        elif t in ("Resource", "ContainerResource"):
            out[key] = _compact([("name", src.get("name", "")),
                                 ("current", _compact([("averageValue", _q0(src.get("currentAverageValue"))),
                                                       ("averageUtilization", src.get("currentAverageUtilization"))])),
                                 ("container", src.get("container", "") if t == "ContainerResource" else None)])
        else:
            out[key] = {"metric": _identifier(src.get("metricName"), src.get("metricSelector")),
                        "current": _compact([("value", _q0(src.get("currentValue"))),
                                             ("averageValue", _q(src.get("currentAverageValue")))])}
    return out


def _loads_list(text: Any) -> list[dict[str, Any]] | None:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        return None
    return value


def _go_field(d: dict[str, Any], name: str) -> Any:
    """Go's case-insensitive JSON field match."""
    for k, v in d.items():
        if k.lower() == name.lower():
            return v
    return None


def _behavior_from_go(text: Any) -> dict[str, Any] | None:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None

    def rules(r: Any) -> Any:
        if not isinstance(r, dict):
            return None
        policies = _go_field(r, "Policies")
        return _compact([("stabilizationWindowSeconds", _go_field(r, "StabilizationWindowSeconds")),
                         ("selectPolicy", _go_field(r, "SelectPolicy")),
                         ("policies", [{"type": _go_field(p, "Type") or "", "value": _go_field(p, "Value") or 0,
                                        "periodSeconds": _go_field(p, "PeriodSeconds") or 0}
                                       for p in policies if isinstance(p, dict)] if isinstance(policies, list) else None),
                         ("tolerance", _go_field(r, "Tolerance"))])
    out = _compact([("scaleUp", rules(_go_field(value, "ScaleUp"))), ("scaleDown", rules(_go_field(value, "ScaleDown")))])
    return out or None  # the zero behavior is not moved to the field


def to_storage(obj: dict[str, Any]) -> dict[str, Any]:
    """`Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`, then to v2."""
    spec, status = as_dict(obj.get("spec")), as_dict(obj.get("status"))
    meta = dict(as_dict(obj.get("metadata")))
    annotations = as_dict(meta.get("annotations"))
    metrics: list[dict[str, Any]] = []
    if spec.get("targetCPUUtilizationPercentage") is not None:
        metrics = [default_cpu_metric(spec["targetCPUUtilizationPercentage"])]
    other = _loads_list(annotations.get(METRIC_SPECS))
    if other is not None:
        metrics = [_spec_from_v1(m) for m in other] + metrics
    if not metrics:
        metrics = [default_cpu_metric()]
    current: list[dict[str, Any]] | None = None
    if status.get("currentCPUUtilizationPercentage") is not None:
        current = [{"type": "Resource", "resource": {"name": "cpu", "current": {
            "averageUtilization": status["currentCPUUtilizationPercentage"]}}}]
    statuses = _loads_list(annotations.get(METRIC_STATUSES))
    if statuses is not None:
        current = [_status_from_v1(m) for m in statuses]
    conditions = _loads_list(annotations.get(CONDITIONS))
    behavior = _behavior_from_go(annotations.get(BEHAVIOR_SPECS))
    if isinstance(meta.get("annotations"), dict):
        kept = {k: v for k, v in annotations.items() if k not in ROUND_TRIP_ANNOTATIONS}
        if kept:
            meta["annotations"] = kept
        else:
            del meta["annotations"]  # an empty map is omitted
    out: dict[str, Any] = {k: v for k, v in obj.items() if k not in ("spec", "status", "metadata")}
    out["metadata"] = meta
    new_spec: dict[str, Any] = {"scaleTargetRef": _ref(spec.get("scaleTargetRef"))} if "scaleTargetRef" in spec \
        else {"scaleTargetRef": {"kind": "", "name": ""}}
    new_spec.update(_compact([("minReplicas", spec.get("minReplicas")), ("maxReplicas", spec.get("maxReplicas", 0)),
                              ("metrics", metrics), ("behavior", behavior)]))
    out["spec"] = new_spec
    if "status" in obj:
        out["status"] = _compact([("observedGeneration", status.get("observedGeneration")),
                                  ("lastScaleTime", status.get("lastScaleTime")),
                                  ("currentReplicas", status.get("currentReplicas") or None),
                                  ("desiredReplicas", status.get("desiredReplicas", 0)),
                                  ("currentMetrics", current),
                                  ("conditions", [_condition(c) for c in conditions] if conditions else None)])
    return out


V1 = ServedVersion("v1", to_storage=to_storage, from_storage=from_storage)
