"""ResourceQuota: `resource.Quantity`, per-object usage, `status.used`, and the admission check of creates and of
the updates upstream's evaluators handle (services, claims).

Upstream sources reproduced here (read, not guessed):
- `staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go` (parsing, canonical `String()`, `Add`: in
  `reference_server/quantity.py`);
- `staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go` (`CheckRequest`, the
  `exceeded quota: %s, requested: %s, used: %s, limited: %s`, `failed quota: %s: %v` and
  `status unknown for quota: %s, resources: %s` messages, `prettyPrint`);
- `pkg/quota/v1/evaluator/core/pods.go` (pod usage, `must specify %s for: %s` constraints, scopes,
  `QuotaV1Pod`), `pkg/quota/v1/evaluator/core/services.go`, `.../persistent_volume_claims.go`, `pkg/quota/v1/evaluator/core/registry.go`
  (legacy object-count aliases), `staging/src/k8s.io/apiserver/pkg/quota/v1/generic/evaluator.go`
  (`count/<resource>[.<group>]`, `Matches`);
- `staging/src/k8s.io/apiserver/pkg/admission/errors.go` (`NewForbidden`: the name is the object's name,
  else its generateName, else `Unknown`).

Like upstream, admission reads `status.hard` / `status.used` (not `spec.hard`): a quota whose status the
quota controller has not computed yet constrains nothing, or answers `status unknown for quota`. The
server therefore has to run `sync_status` when a quota is written and after content is deleted (the
upstream controller's replenishment), see docs/scope.md. Everything here is a pure function over
JSON-shaped dicts.
"""
from __future__ import annotations

import datetime as _dt
from fractions import Fraction
from typing import Any, Iterable, Mapping

from .. import apierrors as E
from ..quantity import Quantity, canonical  # below the registry, which validates ResourceQuota quantities
from .defaultclass import claim_class

ResourceList = dict[str, Quantity]


def parse_list(raw: Mapping[str, Any] | None) -> ResourceList:
    return {str(k): Quantity.parse(v) for k, v in (raw or {}).items()}


def format_list(rl: Mapping[str, Quantity]) -> dict[str, str]:
    return {k: rl[k].canonical() for k in sorted(rl)}


def add_lists(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> ResourceList:
    """`quota.Add`."""
    out = {k: (v.add(b[k]) if k in b else v) for k, v in a.items()}
    for k, v in b.items():
        out.setdefault(k, v)
    return out


def mask(rl: Mapping[str, Quantity], names: Iterable[str]) -> ResourceList:
    keep = set(names)
    return {k: v for k, v in rl.items() if k in keep}


def subtract_non_negative(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> ResourceList:
    """`quota.SubtractWithNonNegativeResult`: `a - b` per name of `a`, never below zero."""
    zero = Quantity.from_int(0)
    out: ResourceList = {}
    for k, v in a.items():
        d = v.sub(b[k]) if k in b else v
        out[k] = d if d.cmp(zero) > 0 else zero
    return out


def remove_zeros(rl: Mapping[str, Quantity]) -> ResourceList:
    return {k: v for k, v in rl.items() if v.value != 0}


def less_than_or_equal(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> tuple[bool, list[str]]:
    """`quota.LessThanOrEqual`: keys missing from `b` are not limits."""
    exceeded = [k for k, v in a.items() if k in b and v.cmp(b[k]) > 0]
    return not exceeded, exceeded


def pretty_print(rl: Mapping[str, Quantity]) -> str:
    """`prettyPrint` (controller.go): `k=v` sorted by key, joined by commas."""
    return ",".join(f"{k}={rl[k].canonical()}" for k in sorted(rl))


# ---------------------------------------------------------------------------------------------------------
# Evaluators: which quota names a resource consumes, and how much one object consumes
# ---------------------------------------------------------------------------------------------------------

# pkg/quota/v1/install/registry.go ignoredResources: never quota-ed, neither by admission nor by the controller.
IGNORED_RESOURCES = frozenset({
    ("", "bindings"), ("", "componentstatuses"), ("", "events"), ("events.k8s.io", "events"),
    ("authentication.k8s.io", "tokenreviews"), ("authentication.k8s.io", "selfsubjectreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"), ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"), ("authorization.k8s.io", "selfsubjectrulesreviews")})

# registry.go legacyObjectCountAliases (+ services.go, pods.go): the unprefixed object-count names.
LEGACY_ALIASES = {"configmaps": "configmaps", "resourcequotas": "resourcequotas", "secrets": "secrets",
                  "replicationcontrollers": "replicationcontrollers"}
POD_RESOURCES = ("count/pods", "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
                 "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods")
SERVICE_RESOURCES = ("count/services", "services", "services.nodeports", "services.loadbalancers")
# persistent_volume_claims.go: the claim's object counts and storage, also per storage class
# (`<class>.storageclass.storage.k8s.io/persistentvolumeclaims`, `.../requests.storage`)
PVC_RESOURCES = ("count/persistentvolumeclaims", "persistentvolumeclaims", "requests.storage")
STORAGE_CLASS_SUFFIX = ".storageclass.storage.k8s.io/"


def _quantity(raw: Any) -> Quantity | None:
    try:
        return Quantity.parse(raw) if raw is not None else None
    except Exception:  # refused by validation; nothing to charge
        return None


def _whole_bytes(q: Quantity) -> Quantity:
    """`RoundUp(0)`: storage is charged in whole bytes, so the quota's own validation accepts it (issue 94313)."""
    return q if q.value.denominator == 1 else Quantity(Fraction(q.int_value()), q.format)


def _storage_usage(spec: dict[str, Any], status: dict[str, Any]) -> Quantity | None:
    """`getStorageUsage`: the requested storage, or the allocated one where it is larger; allocated storage
    without a request is not charged."""
    requested = _quantity(((spec.get("resources") or {}).get("requests") or {}).get("storage"))
    if requested is None:
        return None
    requested = _whole_bytes(requested)
    allocated = _quantity((status.get("allocatedResources") or {}).get("storage"))
    if allocated is not None and allocated.cmp(requested) > 0:
        return _whole_bytes(allocated)
    return requested


def _claim_usage(claim: dict[str, Any]) -> ResourceList:
    """`pvcEvaluator.Usage`: one claim, its requested storage (the larger of the request and
    `status.allocatedResources`), both again under its storage class when it names one."""
    usage: ResourceList = {"persistentvolumeclaims": Quantity.from_int(1),
                           "count/persistentvolumeclaims": Quantity.from_int(1)}
    spec, status = claim.get("spec") or {}, claim.get("status") or {}
    klass = claim_class(claim)  # an empty beta annotation is no class, whatever storageClassName says
    if klass:
        usage[f"{klass}{STORAGE_CLASS_SUFFIX}persistentvolumeclaims"] = Quantity.from_int(1)
    storage = _storage_usage(spec, status)
    if storage is not None:
        usage["requests.storage"] = storage
        if klass:
            usage[f"{klass}{STORAGE_CLASS_SUFFIX}requests.storage"] = storage
    return usage


# pods.go validationSet: quota on these forces every container to state them ("it was a mistake").
POD_VALIDATION_SET = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"})


def object_count_name(resource: str, group: str = "") -> str:
    """`generic.ObjectCountQuotaResourceNameFor`: `count/<resource>` or `count/<resource>.<group>`."""
    return f"count/{resource}.{group}" if group else f"count/{resource}"


def matching_resources(resource: str, names: Iterable[str], group: str = "") -> list[str]:
    """`Evaluator.MatchingResources`: the quota names (of `names`) that objects of `resource` consume."""
    names = list(names)
    if (group, resource) in IGNORED_RESOURCES:
        return []
    if not group and resource == "pods":
        out = [n for n in names if n in POD_RESOURCES]
        out += [n for n in names if n.startswith(("hugepages-", "requests.hugepages-"))]
        out += [n for n in names if n.startswith("requests.") and "/" in n and "kubernetes.io/" not in n]
        return out
    if not group and resource == "services":
        return [n for n in names if n in SERVICE_RESOURCES]
    if not group and resource == "persistentvolumeclaims":  # persistent_volume_claims.go MatchingResources
        return [n for n in names if n in PVC_RESOURCES or n.endswith(tuple(STORAGE_CLASS_SUFFIX + r for r in
                                                                           PVC_RESOURCES[1:]))]
    own = {object_count_name(resource, group)}
    if not group and resource in LEGACY_ALIASES:
        own.add(LEGACY_ALIASES[resource])
    return [n for n in names if n in own]


def pod_container_totals(pod: dict[str, Any], field: str) -> ResourceList:
    """Containers summed, init containers as a max, restartable (sidecar) init containers added: the part
    of `resourcehelper.PodRequests/PodLimits` that LimitRanger's `podRequests`/`podLimits` share."""
    spec = pod.get("spec") or {}
    total: ResourceList = {}
    for c in spec.get("containers") or []:
        total = add_lists(total, parse_list(((c.get("resources") or {}).get(field))))
    restartable: ResourceList = {}
    init_max: ResourceList = {}
    for c in spec.get("initContainers") or []:
        reqs = parse_list(((c.get("resources") or {}).get(field)))
        if c.get("restartPolicy") == "Always":
            total = add_lists(total, reqs)
            restartable = add_lists(restartable, reqs)
            reqs = dict(restartable)
        else:
            reqs = add_lists(reqs, restartable)
        for k, v in reqs.items():
            if k not in init_max or v.cmp(init_max[k]) > 0:
                init_max[k] = v
    for k, v in init_max.items():
        if k not in total or v.cmp(total[k]) > 0:
            total[k] = v
    return total


def _pod_requests(pod: dict[str, Any], field: str) -> ResourceList:
    """`resourcehelper.PodRequests/PodLimits`: the container totals plus `spec.overhead`."""
    spec = pod.get("spec") or {}
    total = pod_container_totals(pod, field)
    overhead = parse_list(spec.get("overhead"))
    if overhead:
        if field == "requests":
            total = add_lists(total, overhead)
        else:  # PodLimits adds overhead only to resources that have a limit
            total = {k: (v.add(overhead[k]) if k in overhead else v) for k, v in total.items()}
    return total


def _compute_usage(requests: Mapping[str, Quantity], limits: Mapping[str, Quantity]) -> ResourceList:
    """`podComputeUsageHelper`."""
    out: ResourceList = {"pods": Quantity.from_int(1)}
    for res in ("cpu", "memory", "ephemeral-storage"):
        if res in requests:
            out[res] = requests[res]
            out[f"requests.{res}"] = requests[res]
        if res in limits:
            out[f"limits.{res}"] = limits[res]
    for k, v in requests.items():
        if k.startswith("hugepages-"):
            out[k] = v
            out[f"requests.{k}"] = v
        elif "/" in k and "kubernetes.io/" not in k and not k.startswith("requests."):
            out[f"requests.{k}"] = v  # extended resources
    return out


def pod_counts_for_compute(pod: dict[str, Any], now: _dt.datetime | None = None) -> bool:
    """`QuotaV1Pod`: terminal pods, and pods past their deletion grace period, stop consuming compute quota."""
    if (pod.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
        return False
    meta = pod.get("metadata") or {}
    ts, grace = meta.get("deletionTimestamp"), meta.get("deletionGracePeriodSeconds")
    if ts and grace is not None:
        now = now or _dt.datetime.now(_dt.timezone.utc)
        deleted = _dt.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc)
        if now > deleted + _dt.timedelta(seconds=int(grace)):
            return False
    return True


def object_usage(resource: str, obj: dict[str, Any], group: str = "", *,
                 now: _dt.datetime | None = None) -> ResourceList:
    """`Evaluator.Usage` of one object: what creating it consumes."""
    if not group and resource == "pods":
        usage: ResourceList = {"count/pods": Quantity.from_int(1)}
        if not pod_counts_for_compute(obj, now):
            return usage
        return add_lists(usage, _compute_usage(_pod_requests(obj, "requests"), _pod_requests(obj, "limits")))
    if not group and resource == "services":
        spec = obj.get("spec") or {}
        ports = len(spec.get("ports") or [])
        usage = {"count/services": Quantity.from_int(1), "services": Quantity.from_int(1),
                 "services.loadbalancers": Quantity.from_int(0), "services.nodeports": Quantity.from_int(0)}
        if spec.get("type") == "NodePort":
            usage["services.nodeports"] = Quantity.from_int(ports)
        elif spec.get("type") == "LoadBalancer":
            usage["services.nodeports"] = Quantity.from_int(ports)
            usage["services.loadbalancers"] = Quantity.from_int(1)
        return usage
    if not group and resource == "persistentvolumeclaims":
        return _claim_usage(obj)
    usage = {object_count_name(resource, group): Quantity.from_int(1)}
    if not group and resource in LEGACY_ALIASES:
        usage[LEGACY_ALIASES[resource]] = Quantity.from_int(1)
    return usage


# --- scopes (pods.go podMatchesScopeFunc); other evaluators match no scope at all (generic.MatchesNoScopeFunc)

def _is_best_effort(pod: dict[str, Any]) -> bool:
    """`qos.GetPodQOS(pod) == BestEffort`: no container states a non-zero cpu/memory request or limit."""
    spec = pod.get("spec") or {}
    for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        res = c.get("resources") or {}
        for field in ("requests", "limits"):
            for k, v in (res.get(field) or {}).items():
                if k in ("cpu", "memory") and Quantity.parse(v).value != 0:
                    return False
    return True


def _scope_selectors(quota: dict[str, Any]) -> list[dict[str, Any]]:
    spec = quota.get("spec") or {}
    sels = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or []]
    sels += list(((spec.get("scopeSelector") or {}).get("matchExpressions")) or [])
    return sels


def _pod_matches_scope(sel: dict[str, Any], pod: dict[str, Any]) -> bool:
    spec = pod.get("spec") or {}
    name = sel.get("scopeName")
    if name in ("Terminating", "NotTerminating"):
        ads = spec.get("activeDeadlineSeconds")
        terminating = ads is not None and int(ads) >= 0
        return terminating if name == "Terminating" else not terminating
    if name in ("BestEffort", "NotBestEffort"):
        return _is_best_effort(pod) == (name == "BestEffort")
    if name == "PriorityClass":
        pc = spec.get("priorityClassName") or ""
        op, values = sel.get("operator"), sel.get("values") or []
        if op == "Exists":
            return bool(pc)
        if op == "DoesNotExist":
            return not pc
        if op == "In":
            return bool(pc) and pc in values
        if op == "NotIn":
            return not pc or pc not in values
        return False
    # CrossNamespacePodAffinity (and unknown scopes) are not evaluated here: never matched.
    return False


def quota_matches(quota: dict[str, Any], resource: str, obj: dict[str, Any], group: str = "") -> bool:
    """`generic.Matches`: the quota limits something this resource consumes and all its scopes match."""
    hard = ((quota.get("status") or {}).get("hard")) or {}
    if not matching_resources(resource, hard, group):
        return False
    for sel in _scope_selectors(quota):
        if group or resource != "pods" or not _pod_matches_scope(sel, obj):
            return False
    return True


def _pod_constraints(required: Iterable[str], pod: dict[str, Any]) -> str | None:
    """`podEvaluator.Constraints`: `must specify <res> for: <containers>; ...` or None."""
    req_set = set(required) & POD_VALIDATION_SET
    missing: dict[str, set[str]] = {}
    spec = pod.get("spec") or {}
    for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        res = c.get("resources") or {}
        have = set(_compute_usage(parse_list(res.get("requests")), parse_list(res.get("limits"))))
        for r in req_set - have:
            missing.setdefault(r, set()).add(c.get("name", ""))
    if not missing:
        return None
    parts = [f"{r} for: {','.join(sorted(missing[r]))}" for r in sorted(missing)]
    return "must specify " + "; ".join(parts)


# ---------------------------------------------------------------------------------------------------------
# status.used and the admission check
# ---------------------------------------------------------------------------------------------------------

def usage(objects_by_resource: Mapping[str, Iterable[dict[str, Any]]], quota: dict[str, Any], *,
          now: _dt.datetime | None = None) -> dict[str, str]:
    """`quota.CalculateUsage` for one quota: `status.used` (canonical strings) over `spec.hard`'s names.

    `objects_by_resource` maps a plural (`"pods"`, or `"widgets.example.com"` for a grouped resource) to
    the objects of the quota's namespace. Names no evaluator tracks are left out, as upstream leaves them.
    """
    hard_names = list(((quota.get("spec") or {}).get("hard")) or {})
    total: ResourceList = {}
    tracked: set[str] = set()
    for key, objects in objects_by_resource.items():
        resource, _, group = key.partition(".")
        names = matching_resources(resource, hard_names, group)
        if not names:
            continue
        tracked.update(names)
        stats: ResourceList = {n: Quantity.from_int(0) for n in names}
        for obj in objects:
            if all(_pod_matches_scope(s, obj) if (resource == "pods" and not group) else False
                   for s in _scope_selectors(quota)):
                stats = add_lists(stats, mask(object_usage(resource, obj, group, now=now), names))
        total = add_lists(total, stats)
    return format_list(mask(total, tracked))


def sync_status(quota: dict[str, Any], objects_by_resource: Mapping[str, Iterable[dict[str, Any]]], *,
                now: _dt.datetime | None = None) -> dict[str, Any]:
    """What the quota controller writes to `status`: `hard` = `spec.hard` (canonical), `used` recomputed
    (previous `used` values kept for names no evaluator tracks, then masked to `hard`'s names)."""
    hard = {k: canonical(v) for k, v in sorted((((quota.get("spec") or {}).get("hard")) or {}).items())}
    used = dict(((quota.get("status") or {}).get("used")) or {})
    used.update(usage(objects_by_resource, quota, now=now))
    return {"hard": hard, "used": {k: used[k] for k in sorted(used) if k in hard}}


def _object_name(obj: dict[str, Any]) -> str:
    """`admission.extractResourceName`: name, else generateName, else `Unknown`."""
    meta = obj.get("metadata") or {}
    return meta.get("name") or meta.get("generateName") or "Unknown"


UPDATE_HANDLED = frozenset({"services", "persistentvolumeclaims"})  # evaluators whose `Handles` takes an update
# (services.go, persistent_volume_claims.go; pods.go only for the `resize` subresource, admission/scope.py; the
# generic object-count evaluator creates only)


def check_create(quotas: Iterable[dict[str, Any]], resource: str, obj: dict[str, Any],
                 current_usage: Mapping[str, Mapping[str, Any]] | None = None, *, group: str = "",
                 now: _dt.datetime | None = None, old: dict[str, Any] | None = None) -> dict[str, dict[str, str]]:
    """`CheckRequest` for a create of `obj` (a `resource` in `group`) in the namespace of `quotas`, or, with
    `old` (the stored object), for an update: charged by the growth of its usage
    (`SubtractWithNonNegativeResult`, then `RemoveZeros`), as upstream charges an update whose old object has a
    resourceVersion.

    Returns `{quota name: new status.used}` for every quota whose usage changes (the caller persists those
    with the object, atomically); `{}` when no quota applies. Raises the 403 upstream raises.
    `current_usage` optionally overrides `status.used` per quota name (a server that computes usage live).
    """
    quotas = list(quotas)
    if (group, resource) in IGNORED_RESOURCES:
        return {}  # quotaEvaluator.Evaluate: ignored resources are admitted untouched
    name = _object_name(obj)

    def forbid(msg: str) -> E.StatusError:
        return E.forbidden(resource, name, msg, group)

    interesting: list[tuple[dict[str, Any], ResourceList, ResourceList]] = []
    for q in quotas:
        if not quota_matches(q, resource, obj, group):
            continue
        qname = (q.get("metadata") or {}).get("name", "")
        status = q.get("status") or {}
        hard = parse_list(status.get("hard"))
        raw_used = (current_usage or {}).get(qname, status.get("used"))
        used = parse_list(raw_used)
        restricted = matching_resources(resource, hard, group)
        if not group and resource == "pods":
            err = _pod_constraints(restricted, obj)
            if err:
                raise forbid(f"failed quota: {qname}: {err}")
        if any(r not in used for r in restricted):
            raise forbid(f"status unknown for quota: {qname}, resources: {','.join(sorted(restricted))}")
        interesting.append((q, hard, used))

    input_usage = object_usage(resource, obj, group, now=now)
    negative = sorted(k for k, v in input_usage.items() if v.value < 0)
    if negative:
        raise forbid(f"quota usage is negative for resource(s): {','.join(negative)}")
    if old is not None and (old.get("metadata") or {}).get("resourceVersion"):
        input_usage = subtract_non_negative(input_usage, object_usage(resource, old, group, now=now))
    delta = remove_zeros(input_usage)
    if not interesting or not delta:
        return {}

    out: dict[str, dict[str, str]] = {}
    for q, hard, used in interesting:
        qname = (q.get("metadata") or {}).get("name", "")
        requested = mask(delta, hard)
        new_usage = add_lists(used, requested)
        allowed, exceeded = less_than_or_equal(mask(new_usage, requested), hard)
        if not allowed:
            raise forbid(f"exceeded quota: {qname}, requested: {pretty_print(mask(requested, exceeded))}, "
                         f"used: {pretty_print(mask(used, exceeded))}, limited: {pretty_print(mask(hard, exceeded))}")
        if requested:
            out[qname] = format_list(new_usage)
    return out
