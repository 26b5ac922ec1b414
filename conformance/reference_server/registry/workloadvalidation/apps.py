"""The apps/v1 kinds' spec validation, `pkg/apis/apps/validation/validation.go` (1.33): `ValidateDeploymentSpec`,
`ValidateReplicaSetSpec`, `ValidateStatefulSetSpec` (+ `ValidateStatefulSetUpdate`'s forbidden fields),
`ValidateDaemonSetSpec`, with the strategies' selector immutability on update
(`pkg/registry/apps/{deployment,replicaset,daemonset}/strategy.go`, for every group-version but
extensions/v1beta1). Errors in upstream's order; values as `field.ErrorBody` prints them (gofmt.py).

As upstream, a StatefulSet's pod template is checked only for its labels and annotations (not
`ValidatePodTemplateSpec`: "TODO: Add validation for PodSpec"), and a missing selector also fails the template's
labels (`LabelSelectorAsSelector(nil)` selects nothing)."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ...goport.gofmt import go_quote

from ..podvalidation import validate_pod_template_spec
from ..shapes import as_dict
from ..validation import is_dns1123_label, validate_annotations, validate_labels
from ..podvalidation.fields import nonnegative
from .gofmt import go_label_selector, go_pointer, go_string_map
from .intstr import int_or_percent_value, intstr_invalid, not_more_than_100_percent, positive_int_or_percent_only
from .labelselector import selector_matches, selector_parses, validate_label_selector


def _selector(spec: dict[str, Any], kind: str, *, required: bool = True) -> tuple[list[FieldError], bool]:
    """The selector's own checks; returns (errors, whether `LabelSelectorAsSelector` succeeds)."""
    errs: list[FieldError] = []
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        if required:
            errs.append(field_required("spec.selector"))
        return errs, True
    errs += validate_label_selector(selector, "spec.selector")
    if not as_dict(selector).get("matchLabels") and not selector.get("matchExpressions"):
        errs.append(FieldError("FieldValueInvalid", "spec.selector",
                               f"Invalid value: {go_label_selector(selector)}: empty selector is invalid for {kind}"))
    return errs, selector_parses(selector)


def _labels_match(spec: dict[str, Any]) -> list[FieldError]:
    """`!selector.Empty() && !selector.Matches(template labels)`; a nil selector matches nothing."""
    selector = spec.get("selector")
    labels = as_dict(as_dict(spec.get("template")).get("metadata")).get("labels")
    if isinstance(selector, dict):
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            return []
        if selector_matches(selector, labels if isinstance(labels, dict) else {}):
            return []
    return [FieldError("FieldValueInvalid", "spec.template.metadata.labels",
                       f"Invalid value: {go_string_map(labels)}: `selector` does not match template `labels`")]


def _invalid_selector(spec: dict[str, Any], detail: str) -> FieldError:
    body = f"Invalid value: {go_label_selector(spec.get('selector'))}"
    return FieldError("FieldValueInvalid", "spec.selector", f"{body}: {detail}" if detail else body)


def _restart_always(tspec: dict[str, Any], path: str, kind: str) -> list[FieldError]:
    errs: list[FieldError] = []
    policy = tspec.get("restartPolicy")
    if policy != "Always":
        errs.append(field_not_supported(f"{path}.restartPolicy", policy or "", ["Always"]))
    if tspec.get("activeDeadlineSeconds") is not None:
        errs.append(field_forbidden(f"{path}.activeDeadlineSeconds", f"activeDeadlineSeconds in {kind} is not Supported"))
    return errs


def _template_for_replicaset(spec: dict[str, Any], old_template: Any) -> list[FieldError]:
    """`ValidatePodTemplateSpecForReplicaSet`."""
    template = as_dict(spec.get("template"))
    errs = _labels_match(spec) + validate_pod_template_spec(template, "spec.template", old_template)
    return errs + _restart_always(as_dict(template.get("spec")), "spec.template.spec", "ReplicaSet")


def replicaset_spec(spec: dict[str, Any], old_template: Any = None) -> list[FieldError]:
    """`ValidateReplicaSetSpec` (`old_template`: an update's stored template, see validate_pod_template_spec)."""
    errs = nonnegative(spec.get("replicas"), "spec.replicas") + nonnegative(spec.get("minReadySeconds"),
                                                                           "spec.minReadySeconds")
    serrs, parses = _selector(spec, "deployment")
    errs += serrs
    if not parses:
        return errs + [_invalid_selector(spec, "invalid label selector")]
    return errs + _template_for_replicaset(spec, old_template)


def _deployment_strategy(strategy: Any) -> list[FieldError]:
    """`ValidateDeploymentStrategy` and `ValidateRollingUpdateDeployment`."""
    strategy = as_dict(strategy)
    kind, ru = strategy.get("type") or "", strategy.get("rollingUpdate")
    if kind == "Recreate":
        return [field_forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is "
                                                                "'Recreate'")] if ru is not None else []
    if kind == "RollingUpdate":
        if not isinstance(ru, dict):
            return [field_required("spec.strategy.rollingUpdate", "this should be defaulted and never be nil")]
        path = "spec.strategy.rollingUpdate"
        unavailable, surge = ru.get("maxUnavailable", 0), ru.get("maxSurge", 0)
        errs = positive_int_or_percent_only(unavailable, f"{path}.maxUnavailable")
        errs += positive_int_or_percent_only(surge, f"{path}.maxSurge")
        if int_or_percent_value(unavailable) == 0 and int_or_percent_value(surge) == 0:
            errs.append(intstr_invalid(f"{path}.maxUnavailable", unavailable, "may not be 0 when `maxSurge` is 0"))
        return errs + not_more_than_100_percent(unavailable, f"{path}.maxUnavailable")
    shown = (f"apps.DeploymentStrategy{{Type:{go_quote(str(kind))}, "
             f"RollingUpdate:{go_pointer(ru, '*apps.RollingUpdateDeployment')}}}")
    return [FieldError("FieldValueNotSupported", "spec.strategy",
                       f'Unsupported value: {shown}: supported values: "Recreate", "RollingUpdate"')]


def deployment_spec(spec: dict[str, Any], old_template: Any = None) -> list[FieldError]:
    """`ValidateDeploymentSpec` (`old_template`: an update's stored template, see validate_pod_template_spec)."""
    errs = nonnegative(spec.get("replicas"), "spec.replicas")
    serrs, parses = _selector(spec, "deployment")
    errs += serrs
    if parses:
        errs += _template_for_replicaset(spec, old_template)
    else:
        errs.append(_invalid_selector(spec, "invalid label selector"))
    errs += _deployment_strategy(spec.get("strategy"))
    errs += nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds")
    errs += nonnegative(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit")
    deadline = spec.get("progressDeadlineSeconds")
    if isinstance(deadline, int) and not isinstance(deadline, bool):
        errs += nonnegative(deadline, "spec.progressDeadlineSeconds")
        min_ready = spec.get("minReadySeconds") if isinstance(spec.get("minReadySeconds"), int) else 0
        if deadline <= min_ready:
            errs.append(field_invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"))
    return errs


def _sts_rolling_update(ru: dict[str, Any]) -> list[FieldError]:
    """`validateRollingUpdateStatefulSet`."""
    path = "spec.updateStrategy.rollingUpdate"
    errs = nonnegative(ru.get("partition"), f"{path}.partition")
    if ru.get("maxUnavailable") is not None:
        value = ru["maxUnavailable"]
        errs += positive_int_or_percent_only(value, f"{path}.maxUnavailable")
        if int_or_percent_value(value) == 0:
            errs.append(intstr_invalid(f"{path}.maxUnavailable", value, "cannot be 0"))
        errs += not_more_than_100_percent(value, f"{path}.maxUnavailable")
    return errs


def _sts_rolling_struct(ru: dict[str, Any]) -> str:
    partition = ru.get("partition") if isinstance(ru.get("partition"), int) else 0
    return (f"apps.RollingUpdateStatefulSetStrategy{{Partition:{partition}, "
            f"MaxUnavailable:{go_pointer(ru.get('maxUnavailable'), '*intstr.IntOrString')}}}")


def statefulset_spec(spec: dict[str, Any], *, allow_invalid_service_name: bool = False) -> list[FieldError]:
    """`ValidateStatefulSetSpec`; `serviceName`, when given, must be a DNS-1123 label (kubernetes#130233, 1.33: it
    becomes the pods' subdomain), except on update (`AllowInvalidServiceName`: it is immutable)."""
    errs: list[FieldError] = []
    policy = spec.get("podManagementPolicy") or ""
    if not policy:
        errs.append(field_required("spec.podManagementPolicy"))
    elif policy not in ("OrderedReady", "Parallel"):
        errs.append(field_invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    update = as_dict(spec.get("updateStrategy"))
    kind, ru = update.get("type") or "", update.get("rollingUpdate")
    if not kind:
        errs.append(field_required("spec.updateStrategy"))
    elif kind == "OnDelete":
        if ru is not None:
            errs.append(FieldError("FieldValueInvalid", "spec.updateStrategy.rollingUpdate",
                                   f"Invalid value: {_sts_rolling_struct(as_dict(ru))}: only allowed for "
                                   "updateStrategy 'RollingUpdate'"))
    elif kind == "RollingUpdate":
        if isinstance(ru, dict):
            errs += _sts_rolling_update(ru)
    else:
        shown = (f"apps.StatefulSetUpdateStrategy{{Type:{go_quote(str(kind))}, "
                 f"RollingUpdate:{go_pointer(ru, '*apps.RollingUpdateStatefulSetStrategy')}}}")
        errs.append(FieldError("FieldValueInvalid", "spec.updateStrategy",
                               f"Invalid value: {shown}: must be 'RollingUpdate' or 'OnDelete'"))
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(retention, dict):
        for key in ("whenDeleted", "whenScaled"):
            value = retention.get(key) or ""
            if value not in ("Retain", "Delete"):
                errs.append(field_not_supported(f"spec.persistentVolumeClaimRetentionPolicy.{key}", value,
                                                ["Retain", "Delete"]))
    errs += nonnegative(spec.get("replicas"), "spec.replicas")
    errs += nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds")
    if isinstance(spec.get("ordinals"), dict):
        errs += nonnegative(spec["ordinals"].get("start"), "spec.ordinals.start")
    service = spec.get("serviceName")
    if not allow_invalid_service_name and isinstance(service, str) and service:
        errs += [field_invalid("spec.serviceName", service, m) for m in is_dns1123_label(service)]
    serrs, parses = _selector(spec, "statefulset")
    errs += serrs
    if not parses:
        errs.append(_invalid_selector(spec, ""))
    else:
        meta = as_dict(as_dict(spec.get("template")).get("metadata"))
        errs += _labels_match(spec)
        errs += validate_labels(as_dict(meta.get("labels")), "spec.template.labels")
        errs += validate_annotations(as_dict(meta.get("annotations")), "spec.template.annotations")
    return errs + _restart_always(as_dict(as_dict(spec.get("template")).get("spec")), "spec.template.spec",
                                  "StatefulSet")


STATEFULSET_MUTABLE = ("replicas", "template", "updateStrategy", "minReadySeconds", "ordinals",
                       "persistentVolumeClaimRetentionPolicy")


def _semantic(value: Any) -> Any:
    """A JSON value as Go's `Semantic.DeepEqual` compares the decoded struct: unset, "", [] and {} alike."""
    if isinstance(value, dict):
        out = {k: _semantic(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, "", [], {})}
    if isinstance(value, list):
        return [_semantic(v) for v in value]
    return value


def statefulset_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`ValidateStatefulSetUpdate`'s rule beyond the spec's own: only some fields may change."""
    strip = (lambda s: _semantic({k: v for k, v in as_dict(s).items() if k not in STATEFULSET_MUTABLE}))
    if strip(new) != strip(old):
        return [field_forbidden("spec", "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                                        "'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
                                        "'minReadySeconds' are forbidden")]
    return []


def _daemonset_strategy(strategy: Any) -> list[FieldError]:
    """`ValidateDaemonSetUpdateStrategy` and `ValidateRollingUpdateDaemonSet`."""
    strategy = as_dict(strategy)
    kind, ru = strategy.get("type") or "", strategy.get("rollingUpdate")
    if kind == "OnDelete":
        return []
    if kind == "RollingUpdate":
        if not isinstance(ru, dict):
            return [field_required("spec.updateStrategy.rollingUpdate")]
        path = "spec.updateStrategy.rollingUpdate"
        unavailable, surge = ru.get("maxUnavailable", 0), ru.get("maxSurge", 0)
        errs = positive_int_or_percent_only(unavailable, f"{path}.maxUnavailable")
        errs += positive_int_or_percent_only(surge, f"{path}.maxSurge")
        errs += not_more_than_100_percent(unavailable, f"{path}.maxUnavailable")
        errs += not_more_than_100_percent(surge, f"{path}.maxSurge")
        has_unavailable, has_surge = int_or_percent_value(unavailable) != 0, int_or_percent_value(surge) != 0
        if has_unavailable and has_surge:
            errs.append(intstr_invalid(f"{path}.maxSurge", surge, "may not be set when maxUnavailable is non-zero"))
        elif not has_unavailable and not has_surge:
            errs.append(field_required(f"{path}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
        return errs
    shown = (f"apps.DaemonSetUpdateStrategy{{Type:{go_quote(str(kind))}, "
             f"RollingUpdate:{go_pointer(ru, '*apps.RollingUpdateDaemonSet')}}}")
    return [FieldError("FieldValueNotSupported", "spec.updateStrategy",
                       f'Unsupported value: {shown}: supported values: "RollingUpdate", "OnDelete"')]


def daemonset_spec(spec: dict[str, Any], old_template: Any = None) -> list[FieldError]:
    """`ValidateDaemonSetSpec` (no error for a missing selector of its own: the template's labels fail;
    `old_template`: an update's stored template, see validate_pod_template_spec)."""
    selector = spec.get("selector")
    errs = validate_label_selector(selector, "spec.selector") if isinstance(selector, dict) else []
    if not isinstance(selector, dict) or selector_parses(selector):
        errs += _labels_match(spec)
    if isinstance(selector, dict) and not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errs.append(FieldError("FieldValueInvalid", "spec.selector", f"Invalid value: {go_label_selector(selector)}: "
                                                                     "empty selector is invalid for daemonset"))
    template = as_dict(spec.get("template"))
    errs += validate_pod_template_spec(template, "spec.template", old_template)
    errs += _restart_always(as_dict(template.get("spec")), "spec.template.spec", "DaemonSet")
    errs += nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds")
    errs += _daemonset_strategy(spec.get("updateStrategy"))
    return errs + nonnegative(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit")


def selector_immutable(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`ValidateImmutableField(new.Spec.Selector, old.Spec.Selector, spec.selector)` of the apps strategies."""
    if _semantic(new.get("selector")) == _semantic(old.get("selector")):
        return []
    shown = go_label_selector(new.get("selector")) if isinstance(new.get("selector"), dict) else "null"
    return [FieldError("FieldValueInvalid", "spec.selector", f"Invalid value: {shown}: field is immutable")]


__all__ = ["daemonset_spec", "deployment_spec", "replicaset_spec", "selector_immutable", "statefulset_spec",
           "statefulset_update"]
