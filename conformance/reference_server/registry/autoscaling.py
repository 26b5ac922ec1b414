"""`autoscaling` HorizontalPodAutoscalers as kind 1.33 serves them: stored in `autoscaling/v2` (etcd key
`/registry/horizontalpodautoscalers/{ns}/{name}`), also served in `autoscaling/v1` through the conversion of
`registry/autoscaling_v1.py` (the multi-version mechanism: `registry/versions.py`).

- defaults: `pkg/apis/autoscaling/v2/defaults.go` (minReplicas 1; no metrics ⇒ CPU at 80% utilization; a
  behavior gets every unset scaling rule field; `tolerance` dropped, its `HPAConfigurableTolerance` gate being
  off in 1.33: `dropDisabledFields`); the round-trip annotations of other versions are dropped on decode
  (`DropRoundTripHorizontalPodAutoscalerAnnotations`, v2's conversion);
- strategy: `pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go` (status reset on create, kept on
  update; the status strategy keeps the spec);
- validation: `pkg/apis/autoscaling/validation/validation.go` (`ValidateHorizontalPodAutoscaler`: scaleTargetRef,
  min/max, metrics, behavior; `ValidateHorizontalPodAutoscalerStatusUpdate`), errors in upstream's order.
"""
from __future__ import annotations

import copy
import json
from typing import Any

from .. import apierrors as E
from ..apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..quantity import Quantity, QuantityError
from .kinds import ResourceInfo
from .strategy import Strategy
from .subresources import SUBRESOURCE_VERBS, StatusStrategy
from .validation import is_dns1123_label, is_path_segment_name
from .shapes import as_dict, as_int, as_list

GROUP, STORAGE_VERSION = "autoscaling", "v2"
HPA = ResourceInfo("HorizontalPodAutoscaler", "horizontalpodautoscalers", "horizontalpodautoscaler", ("hpa",),
                   fields=frozenset({"spec", "status"}), categories=("all",))

# pkg/apis/autoscaling/annotations.go: what autoscaling/v1 keeps of a v2 object in its annotations
METRIC_SPECS = "autoscaling.alpha.kubernetes.io/metrics"
METRIC_STATUSES = "autoscaling.alpha.kubernetes.io/current-metrics"
CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions"
BEHAVIOR_SPECS = "autoscaling.alpha.kubernetes.io/behavior"
ROUND_TRIP_ANNOTATIONS = (METRIC_SPECS, BEHAVIOR_SPECS, METRIC_STATUSES, CONDITIONS)
DEFAULT_CPU_UTILIZATION = 80
MAX_PERIOD_SECONDS, MAX_STABILIZATION_WINDOW_SECONDS = 1800, 3600

_SOURCE_TYPES = ("ContainerResource", "External", "Object", "Pods", "Resource")  # sets.List(): sorted
_SOURCE_FIELD = {"Object": "object", "Pods": "pods", "Resource": "resource", "External": "external",
                 "ContainerResource": "containerResource"}
_SELECT_POLICIES = ("Disabled", "Max", "Min")
_POLICY_TYPES = ("Percent", "Pods")
_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def drop_round_trip_annotations(obj: dict[str, Any]) -> None:
    """`DropRoundTripHorizontalPodAutoscalerAnnotations` on the object's metadata (in place)."""
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if isinstance(annotations, dict) and any(k in annotations for k in ROUND_TRIP_ANNOTATIONS):
        meta["annotations"] = {k: v for k, v in annotations.items() if k not in ROUND_TRIP_ANNOTATIONS}
        if not meta["annotations"]:
            del meta["annotations"]  # an empty map is omitted


def default_cpu_metric(utilization: int = DEFAULT_CPU_UTILIZATION) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                     "averageUtilization": utilization}}}


def scale_up_rules() -> dict[str, Any]:
    return {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
            "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                         {"type": "Percent", "value": 100, "periodSeconds": 15}]}


def scale_down_rules() -> dict[str, Any]:
    return {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


def _copy_rules(given: Any, default: dict[str, Any]) -> dict[str, Any]:
    """`copyHPAScalingRules`: every non-nil field of `given` over the defaults (Go's field order kept)."""
    if not isinstance(given, dict):
        return default
    out = {"stabilizationWindowSeconds": given.get("stabilizationWindowSeconds",
                                                   default.get("stabilizationWindowSeconds")),
           "selectPolicy": given.get("selectPolicy") or default["selectPolicy"],
           "policies": given["policies"] if given.get("policies") is not None else default["policies"]}
    return {k: v for k, v in out.items() if v is not None}


def set_defaults(obj: dict[str, Any]) -> None:
    """`SetDefaults_HorizontalPodAutoscaler` (v2), and `dropDisabledFields` (tolerance)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not spec.get("metrics"):
        spec["metrics"] = [default_cpu_metric()]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        up = _copy_rules(behavior.get("scaleUp"), scale_up_rules())
        down = _copy_rules(behavior.get("scaleDown"), scale_down_rules())
        for rules in (up, down):
            rules.pop("tolerance", None)
        spec["behavior"] = {"scaleUp": up, "scaleDown": down}
    order = ("scaleTargetRef", "minReplicas", "maxReplicas", "metrics", "behavior")  # Go's field order
    obj["spec"] = {**{k: spec[k] for k in order if k in spec}, **{k: v for k, v in spec.items() if k not in order}}


def _json_kind(value: Any) -> str:
    """`encoding/json`'s name of a JSON value in an UnmarshalTypeError."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number " + json.dumps(value)
    return {str: "string", list: "array", dict: "object"}.get(type(value), "value")


def check_integers(obj: dict[str, Any]) -> None:
    """The 400 a typed decoder answers for a non-integer where v2 has an int32 (the shape check leaves scalars
    alone): `json: cannot unmarshal string into Go struct field <Struct>.<path> of type int32`."""
    spec = as_dict(obj.get("spec"))
    found: list[tuple[str, str, Any]] = [("HorizontalPodAutoscalerSpec", f"spec.{k}", spec.get(k))
                                         for k in ("minReplicas", "maxReplicas")]
    for m in as_list(spec.get("metrics")):
        for key in ("resource", "containerResource"):
            target = as_dict(as_dict(as_dict(m).get(key)).get("target"))
            found.append(("MetricTarget", f"spec.metrics.{key}.target.averageUtilization",
                          target.get("averageUtilization")))
    behavior = as_dict(spec.get("behavior"))
    for rules_key in ("scaleUp", "scaleDown"):
        rules = as_dict(behavior.get(rules_key))
        found.append(("HPAScalingRules", f"spec.behavior.{rules_key}.stabilizationWindowSeconds",
                      rules.get("stabilizationWindowSeconds")))
        for p in as_list(rules.get("policies")):
            for k in ("value", "periodSeconds"):
                found.append(("HPAScalingPolicy", f"spec.behavior.{rules_key}.policies.{k}", as_dict(p).get(k)))
    for struct, path, value in found:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise E.bad_request(f'HorizontalPodAutoscaler in version "{STORAGE_VERSION}" cannot be handled as a '
                                f"HorizontalPodAutoscaler: json: cannot unmarshal {_json_kind(value)} into Go struct "
                                f"field {struct}.{path} of type int32")


# ---- validation ------------------------------------------------------------------------------------------
path_segment_errors = is_path_segment_name  # `path.IsValidPathSegmentName`


def _cross_version_ref(ref: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidateCrossVersionObjectReference`: kind and name required, each a valid path segment."""
    errs: list[FieldError] = []
    for key in ("kind", "name"):
        value = ref.get(key) or ""
        if not value:
            errs.append(field_required(f"{path}.{key}"))
        else:
            errs += [field_invalid(f"{path}.{key}", value, m) for m in path_segment_errors(value)]
    return errs


def _sign(value: Any) -> int:
    try:
        q = Quantity.parse(value)
    except (QuantityError, ValueError, TypeError):
        return 0
    return (q.value > 0) - (q.value < 0)


def _metric_target(target: dict[str, Any], path: str) -> list[FieldError]:
    """`validateMetricTarget`."""
    errs: list[FieldError] = []
    typ = target.get("type") or ""
    if not typ:
        errs.append(field_required(f"{path}.type", "must specify a metric target type"))
    if typ not in ("Utilization", "Value", "AverageValue"):
        errs.append(field_invalid(f"{path}.type", typ, "must be either Utilization, Value, or AverageValue"))
    for key in ("value", "averageValue"):
        if target.get(key) is not None and _sign(target[key]) != 1:
            errs.append(field_invalid(f"{path}.{key}", target[key], "must be positive"))
    utilization = target.get("averageUtilization")
    if isinstance(utilization, int) and utilization < 1:
        errs.append(field_invalid(f"{path}.averageUtilization", utilization, "must be greater than 0"))
    return errs


def _metric_identifier(metric: dict[str, Any], path: str) -> list[FieldError]:
    name = metric.get("name") or ""
    if not name:
        return [field_required(f"{path}.name", "must specify a metric name")]
    return [field_invalid(f"{path}.name", name, m) for m in path_segment_errors(name)]


def _container_resource_name(name: str, path: str) -> list[FieldError]:
    """`ValidateContainerResourceName` for the names an HPA metric uses."""
    if "/" not in name:
        if name not in _CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            return [field_invalid(path, name, "must be a standard resource for containers")]
    return []


def _resource_source(src: dict[str, Any], path: str, container: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    name = src.get("name") or ""
    if not name:
        errs.append(field_required(f"{path}.name", "must specify a resource name"))
    else:
        errs += _container_resource_name(name, f"{path}.name")
    if container:
        cname = src.get("container") or ""
        if not cname:
            errs.append(field_required(f"{path}.container", "must specify a container"))
        else:
            errs += [field_invalid(f"{path}.container", cname, m) for m in is_dns1123_label(cname)]
    target = as_dict(src.get("target"))
    errs += _metric_target(target, f"{path}.target")
    if target.get("averageUtilization") is None and target.get("averageValue") is None:
        errs.append(field_required(f"{path}.target.averageUtilization",
                                   "must set either a target raw value or a target utilization"))
    if target.get("averageUtilization") is not None and target.get("averageValue") is not None:
        errs.append(field_forbidden(f"{path}.target.averageValue",
                                    "may not set both a target raw value and a target utilization"))
    return errs


def _source_errors(kind: str, src: dict[str, Any], path: str) -> list[FieldError]:
    if kind in ("resource", "containerResource"):
        return _resource_source(src, path, kind == "containerResource")
    errs: list[FieldError] = []
    if kind == "object":
        errs += _cross_version_ref(as_dict(src.get("describedObject")), f"{path}.describedObject")
    errs += _metric_identifier(as_dict(src.get("metric")), f"{path}.metric")
    target = as_dict(src.get("target"))
    errs += _metric_target(target, f"{path}.target")
    if kind == "object" and target.get("value") is None and target.get("averageValue") is None:
        errs.append(field_required(f"{path}.target.averageValue", "must set either a target value or averageValue"))
    if kind == "pods" and target.get("averageValue") is None:
        errs.append(field_required(f"{path}.target.averageValue", "must specify a positive target averageValue"))
    if kind == "external":
        if target.get("value") is None and target.get("averageValue") is None:
            errs.append(field_required(f"{path}.target.averageValue",
                                       "must set either a target value for metric or a per-pod target"))
        if target.get("value") is not None and target.get("averageValue") is not None:
            errs.append(field_forbidden(f"{path}.target.value",
                                        "may not set both a target value for metric and a per-pod target"))
    return errs


def _metric_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    """`validateMetricSpec`."""
    errs: list[FieldError] = []
    typ = spec.get("type") or ""
    if not typ:
        errs.append(field_required(f"{path}.type", "must specify a metric source type"))
    if typ not in _SOURCE_TYPES:
        errs.append(field_not_supported(f"{path}.type", typ, _SOURCE_TYPES))
    present: list[str] = []
    for key in ("object", "external", "pods", "resource", "containerResource"):
        if spec.get(key) is not None:
            present.append(key)
            if len(present) == 1:
                errs += _source_errors(key, as_dict(spec[key]), f"{path}.{key}")
    expected = _SOURCE_FIELD.get(typ, "")
    if expected and spec.get(expected) is None:
        errs.append(field_required(f"{path}.{expected}", "must populate information for the given metric source"))
    if not expected:
        errs.append(field_not_supported(f"{path}.type", typ, _SOURCE_TYPES))
    if len(present) != 1:
        for key in sorted(k for k in present if k != expected):  # a Go set: order unspecified, sorted here
            errs.append(field_forbidden(f"{path}.{key}", "must populate the given metric source only"))
    return errs


def _scaling_rules(rules: Any, path: str) -> list[FieldError]:
    """`validateScalingRules`."""
    if not isinstance(rules, dict):
        return []
    errs: list[FieldError] = []
    window = rules.get("stabilizationWindowSeconds")
    if isinstance(window, int) and window < 0:
        errs.append(field_invalid(f"{path}.stabilizationWindowSeconds", window, "must be greater than or equal to zero"))
    if isinstance(window, int) and window > MAX_STABILIZATION_WINDOW_SECONDS:
        errs.append(field_invalid(f"{path}.stabilizationWindowSeconds", window,
                                  f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}"))
    select = rules.get("selectPolicy")
    if select is not None and select not in _SELECT_POLICIES:
        errs.append(field_not_supported(f"{path}.selectPolicy", select, _SELECT_POLICIES))
    policies = as_list(rules.get("policies"))
    if not policies:
        errs.append(field_required(f"{path}.policies", "must specify at least one Policy"))
    for i, policy in enumerate(policies):
        p, at = as_dict(policy), f"{path}.policies[{i}]"
        if p.get("type") not in _POLICY_TYPES:
            errs.append(field_not_supported(f"{at}.type", p.get("type") or "", _POLICY_TYPES))
        value, period = as_int(p.get("value")), as_int(p.get("periodSeconds"))
        if value <= 0:
            errs.append(field_invalid(f"{at}.value", value, "must be greater than zero"))
        if period <= 0:
            errs.append(field_invalid(f"{at}.periodSeconds", period, "must be greater than zero"))
        if period > MAX_PERIOD_SECONDS:
            errs.append(field_invalid(f"{at}.periodSeconds", period,
                                      f"must be less than or equal to {MAX_PERIOD_SECONDS}"))
    return errs


def validate_spec(spec: dict[str, Any], path: str = "spec") -> list[FieldError]:
    """`validateHorizontalPodAutoscalerSpec` with 1.33's options (HPAScaleToZero off: minReplicas ≥ 1)."""
    errs: list[FieldError] = []
    min_replicas, max_replicas = spec.get("minReplicas"), as_int(spec.get("maxReplicas"))
    if isinstance(min_replicas, int) and min_replicas < 1:
        errs.append(field_invalid(f"{path}.minReplicas", min_replicas, "must be greater than or equal to 1"))
    if max_replicas < 1:
        errs.append(field_invalid(f"{path}.maxReplicas", max_replicas, "must be greater than 0"))
    if isinstance(min_replicas, int) and max_replicas < min_replicas:
        errs.append(field_invalid(f"{path}.maxReplicas", max_replicas, "must be greater than or equal to `minReplicas`"))
    errs += _cross_version_ref(as_dict(spec.get("scaleTargetRef")), f"{path}.scaleTargetRef")
    for i, metric in enumerate(as_list(spec.get("metrics"))):
        errs += _metric_spec(as_dict(metric), f"{path}.metrics[{i}]")
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        errs += _scaling_rules(behavior.get("scaleUp"), f"{path}.behavior.scaleUp")
        errs += _scaling_rules(behavior.get("scaleDown"), f"{path}.behavior.scaleDown")
    return errs


# ---- strategies ------------------------------------------------------------------------------------------
class HorizontalPodAutoscalerStrategy(Strategy):
    """`autoscalerStrategy`: v2 defaults at decode, status reset on create and kept on update."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        drop_round_trip_annotations(obj)
        if obj.get("spec") is None:
            obj["spec"] = {}
        check_integers(obj)
        set_defaults(obj)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        obj["status"] = {"desiredReplicas": 0}  # v2's zero status (`currentReplicas,omitempty`)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        new["status"] = copy.deepcopy(old.get("status", {"desiredReplicas": 0}))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + validate_spec(as_dict(obj.get("spec")))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + validate_spec(as_dict(new.get("spec")))


class HorizontalPodAutoscalerStatusStrategy(StatusStrategy):
    """`autoscalerStatusStrategy`: the spec is kept; `ValidateHorizontalPodAutoscalerStatusUpdate`."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        Strategy.default(self, obj, update=update)
        drop_round_trip_annotations(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errs = Strategy.validate_update(self, new, old)
        status = as_dict(new.get("status"))
        for key in ("currentReplicas", "desiredReplicas"):
            value = status.get(key) or 0
            if isinstance(value, int) and value < 0:
                errs.append(field_invalid(f"status.{key}", value, "must be greater than or equal to 0"))
        return errs


def install(store: Any) -> None:
    """The `/status` subresource of the storage version's store (and so of every version's view)."""
    store.status_strategy = HorizontalPodAutoscalerStatusStrategy(store.info)
    store.subresources = {"status": SUBRESOURCE_VERBS}
    # `Creater.New()` as the v2 JSON shows it (fields without omitempty): what the field manager compares a create
    # with, so `scaleTargetRef` (a struct, never absent) is not recorded as added (no `.` in managedFields)
    store.field_manager_zero = {"spec": {"scaleTargetRef": {"kind": "", "name": ""}, "maxReplicas": 0},
                                "status": {"desiredReplicas": 0}}
