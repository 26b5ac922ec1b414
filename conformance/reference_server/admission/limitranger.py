"""LimitRanger: LimitRange defaults (mutating) and min/max/ratio enforcement (validating) for pods.

Reproduces `plugin/pkg/admission/limitranger/admission.go` (`PodMutateLimitFunc`, `PodValidateLimitFunc`,
`minConstraint`, `maxConstraint`, `limitRequestRatioConstraint`, the `kubernetes.io/limit-ranger`
annotation) and the two defaulting functions of `pkg/apis/core/v1/defaults.go` the plugin relies on
(`SetDefaults_LimitRangeItem`, and `SetDefaults_Pod`'s "requests default to limits"). The error is
`admission.NewForbidden(a, utilerrors.NewAggregate(errs))`: one message as is, several as `[m1, m2]`
(deduplicated), prefixed `pods "<name>" is forbidden: `.

PersistentVolumeClaims too (`PersistentVolumeClaimValidateLimitFunc`, on create and on update, as upstream's
`SupportsAttributes`): a `PersistentVolumeClaim` item's `min` against the claim's requests, its `max` with
`maxRequestConstraint` (requests only: a claim's limits are not user input); nothing is defaulted on a claim.

Deliberate simplifications (see docs/scope.md): the messages of one LimitRange item are produced in sorted
resource order (upstream ranges over a Go map, so the order of several messages is not stable there either); pod
updates are not checked (upstream skips them too: containers are immutable), except through the 1.33
`pods/resize` subresource (registry/podupdates.py), whose defaults and min/max admission/scope.py applies and checks.
"""
from __future__ import annotations

import copy
from typing import Any, Iterable

from .. import apierrors as E
from ..quantity import MAX_MILLI_VALUE, Quantity, go_string
from .quota import ResourceList, parse_list, pod_container_totals

LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger"


def _canonical_or_raw(v: Any) -> Any:
    try:
        return go_string(v)
    except ValueError:
        return v  # invalid quantities are the registry's validation's business


def default_limit_range_item(item: dict[str, Any]) -> dict[str, Any]:
    """`SetDefaults_LimitRangeItem` (Container items only): default ← max, defaultRequest ← default, then ← min.

    The registry should apply this when a LimitRange is created/updated (the stored object shows the
    defaults); the plugin applies it again, which is idempotent, so an undefaulted object behaves the same.
    """
    item = copy.deepcopy(item)
    for field in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
        if isinstance(item.get(field), dict):  # stored quantities are canonical (Quantity round trip)
            item[field] = {k: _canonical_or_raw(v) for k, v in item[field].items()}
    if item.get("type") != "Container":
        return item
    default = item.get("default") or {}
    default_request = item.get("defaultRequest") or {}
    for k, v in (item.get("max") or {}).items():
        default.setdefault(k, v)
    for k, v in default.items():
        default_request.setdefault(k, v)
    for k, v in (item.get("min") or {}).items():
        default_request.setdefault(k, v)
    if default:
        item["default"] = default
    if default_request:
        item["defaultRequest"] = default_request
    return item


def default_limit_range(lr: dict[str, Any]) -> dict[str, Any]:
    """A copy of the LimitRange with every item defaulted (`SetDefaults_LimitRangeItem`)."""
    lr = copy.deepcopy(lr)
    spec = lr.get("spec") or {}
    if spec.get("limits"):
        spec["limits"] = [default_limit_range_item(i) for i in spec["limits"]]
    return lr


def default_pod_resources(pod: dict[str, Any]) -> dict[str, Any]:
    """`SetDefaults_Pod`: a container with limits but no request for a resource requests its limit.

    Upstream does this while decoding, before any admission plugin runs, so the server's decoder/pod
    strategy must call it for every pod create (LimitRanger and ResourceQuota see the defaulted pod).
    """
    pod = copy.deepcopy(pod)
    spec = pod.get("spec") or {}
    for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        res = c.get("resources")
        if not isinstance(res, dict) or res.get("limits") is None:
            continue
        if res.get("requests") is None:
            res["requests"] = {}
        requests = res["requests"]
        for k, v in res["limits"].items():
            requests.setdefault(k, v)
    return pod


def _container_defaults(lr: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """`defaultContainerResourceRequirements`: (requests, limits) from the Container items (last wins)."""
    requests: dict[str, Any] = {}
    limits: dict[str, Any] = {}
    for item in ((lr.get("spec") or {}).get("limits")) or []:
        item = default_limit_range_item(item)
        if item.get("type") == "Container":
            requests.update(item.get("defaultRequest") or {})
            limits.update(item.get("default") or {})
    return requests, limits


def _merge_container(c: dict[str, Any], requests: dict[str, Any], limits: dict[str, Any],
                     prefix: str, annotations: list[str]) -> None:
    """`mergeContainerResources`."""
    res = c.setdefault("resources", {})
    if res.get("limits") is None:
        res["limits"] = {}
    if res.get("requests") is None:
        res["requests"] = {}
    set_limits = [k for k in limits if k not in res["limits"]]
    for k in set_limits:
        res["limits"][k] = go_string(limits[k])
    set_requests = [k for k in requests if k not in res["requests"]]
    for k in set_requests:
        res["requests"][k] = go_string(requests[k])
    name = c.get("name", "")
    if set_requests:
        annotations.append(", ".join(sorted(set_requests)) + f" request for {prefix} {name}")
    if set_limits:
        annotations.append(", ".join(sorted(set_limits)) + f" limit for {prefix} {name}")


def admit(limit_ranges: Iterable[dict[str, Any]], resource: str, obj: dict[str, Any],
          *, subresource: str = "") -> dict[str, Any]:
    """Mutating phase (`LimitRanger.Admit` on create): a copy of the pod with LimitRange defaults applied
    to containers and init containers that miss them, and the `kubernetes.io/limit-ranger` annotation."""
    if resource != "pods" or subresource:
        return obj
    pod = copy.deepcopy(obj)
    for lr in limit_ranges:
        requests, limits = _container_defaults(lr)
        annotations: list[str] = []
        spec = pod.setdefault("spec", {})
        for c in spec.get("containers") or []:
            _merge_container(c, requests, limits, "container", annotations)
        for c in spec.get("initContainers") or []:
            _merge_container(c, requests, limits, "init container", annotations)
        if annotations:
            meta = pod.setdefault("metadata", {})
            if meta.get("annotations") is None:
                meta["annotations"] = {}
            meta["annotations"][LIMIT_RANGER_ANNOTATION] = "LimitRanger plugin set: " + "; ".join(annotations)
    return pod


def _values(req: Quantity | None, lim: Quantity | None, enforced: Quantity) -> tuple[int, int, int]:
    """`requestLimitEnforcedValues`: milli-values unless one of them would overflow."""
    zero = Quantity.from_int(0)
    r, l_ = req or zero, lim or zero
    if max(r.int_value(), l_.int_value(), enforced.int_value()) <= MAX_MILLI_VALUE:
        return r.milli_value(), l_.milli_value(), enforced.milli_value()
    return r.int_value(), l_.int_value(), enforced.int_value()


def _min(limit_type: str, res: str, enforced: Quantity, request: ResourceList, limit: ResourceList) -> str | None:
    req, lim = request.get(res), limit.get(res)
    r, l_, e = _values(req, lim, enforced)
    if req is None:
        return f"minimum {res} usage per {limit_type} is {enforced}.  No request is specified"
    if r < e:
        return f"minimum {res} usage per {limit_type} is {enforced}, but request is {req}"
    if lim is not None and l_ < e:
        return f"minimum {res} usage per {limit_type} is {enforced}, but limit is {lim}"
    return None


def _max(limit_type: str, res: str, enforced: Quantity, request: ResourceList, limit: ResourceList) -> str | None:
    req, lim = request.get(res), limit.get(res)
    r, l_, e = _values(req, lim, enforced)
    if lim is None:
        return f"maximum {res} usage per {limit_type} is {enforced}.  No limit is specified"
    if l_ > e:
        return f"maximum {res} usage per {limit_type} is {enforced}, but limit is {lim}"
    if req is not None and r > e:
        return f"maximum {res} usage per {limit_type} is {enforced}, but request is {req}"
    return None


def _max_request(limit_type: str, res: str, enforced: Quantity, request: ResourceList,
                 limit: ResourceList) -> str | None:
    """`maxRequestConstraint`: the max against the request alone."""
    req = request.get(res)
    r, _, e = _values(req, None, enforced)
    if req is None:
        return f"maximum {res} usage per {limit_type} is {enforced}.  No request is specified"
    if r > e:
        return f"maximum {res} usage per {limit_type} is {enforced}, but request is {req}"
    return None


def _ratio(limit_type: str, res: str, enforced: Quantity, request: ResourceList, limit: ResourceList) -> str | None:
    req, lim = request.get(res), limit.get(res)
    r, l_, _ = _values(req, lim, enforced)
    if req is None or r == 0:
        return (f"{res} max limit to request ratio per {limit_type} is {enforced}, "
                "but no request is specified or request is 0")
    if lim is None or l_ == 0:
        return (f"{res} max limit to request ratio per {limit_type} is {enforced}, "
                "but no limit is specified or limit is 0")
    observed = float(l_) / float(r)
    display = observed
    max_ratio = float(enforced.int_value())
    if enforced.int_value() <= MAX_MILLI_VALUE:
        observed *= 1000
        max_ratio = float(enforced.milli_value())
    if observed > max_ratio:
        return (f"{res} max limit to request ratio per {limit_type} is {enforced}, "
                f"but provided ratio is {display:f}")
    return None


_POD_CHECKS = (("min", _min), ("max", _max), ("maxLimitRequestRatio", _ratio))
_CLAIM_CHECKS = (("min", _min), ("max", _max_request))


def _check(limit_type: str, item: dict[str, Any], request: ResourceList, limit: ResourceList,
           checks: tuple[tuple[str, Any], ...] = _POD_CHECKS) -> list[str]:
    errs: list[str] = []
    for field, fn in checks:
        for res, v in sorted((item.get(field) or {}).items()):
            msg = fn(limit_type, res, Quantity.parse(v), request, limit)
            if msg:
                errs.append(msg)
    return errs


def aggregate(messages: list[str]) -> str:
    """`utilerrors.NewAggregate(errs).Error()`: one message as is, several deduplicated inside `[...]`."""
    seen: list[str] = []
    for m in messages:
        if m not in seen:
            seen.append(m)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


def pod_violations(limit_range: dict[str, Any], pod: dict[str, Any]) -> list[str]:
    """`PodValidateLimitFunc` for one LimitRange: the messages, in upstream's order of checks."""
    errs: list[str] = []
    spec = pod.get("spec") or {}
    for item in ((limit_range.get("spec") or {}).get("limits")) or []:
        kind = item.get("type")
        if kind == "Container":
            for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
                res = c.get("resources") or {}
                errs += _check("Container", item, parse_list(res.get("requests")), parse_list(res.get("limits")))
        elif kind == "Pod":
            errs += _check("Pod", item, pod_container_totals(pod, "requests"), pod_container_totals(pod, "limits"))
    return errs


def claim_violations(limit_range: dict[str, Any], claim: dict[str, Any]) -> list[str]:
    """`PersistentVolumeClaimValidateLimitFunc` for one LimitRange."""
    requests = parse_list((((claim.get("spec") or {}).get("resources")) or {}).get("requests"))
    errs: list[str] = []
    for item in ((limit_range.get("spec") or {}).get("limits")) or []:
        if item.get("type") == "PersistentVolumeClaim":
            errs += _check("PersistentVolumeClaim", item, requests, {}, _CLAIM_CHECKS)
    return errs


_VIOLATIONS = {"pods": pod_violations, "persistentvolumeclaims": claim_violations}


def validate(limit_ranges: Iterable[dict[str, Any]], resource: str, obj: dict[str, Any],
             *, subresource: str = "") -> None:
    """Validating phase (`LimitRanger.Validate`): the first LimitRange the pod or claim violates is reported as
    403 `<resource> "<name>" is forbidden: <aggregate of its messages>`."""
    violations = _VIOLATIONS.get(resource)
    if violations is None or subresource:
        return
    for lr in limit_ranges:
        errs = violations(lr, obj)
        if errs:
            meta = obj.get("metadata") or {}
            name = meta.get("name") or meta.get("generateName") or "Unknown"
            raise E.forbidden(resource, name, aggregate(errs))
