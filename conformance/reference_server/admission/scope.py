"""The namespace as a scope to limit resource consumption: LimitRanger and ResourceQuota admission wired
into the create path, plus the ResourceQuota/LimitRange registry strategies (see docs/scope.md).

Both plugins are always on (as upstream: they are default admission plugins); a namespace without
ResourceQuota/LimitRange objects is unaffected. Order on create, as upstream:
NamespaceLifecycle → LimitRanger defaults (mutating) → prepare/validate → LimitRanger min/max
(validating) → quota (validating, last). The quota's new `status.used` is written after the object,
in the same atomic block (`GenericStore._create`), so two creates cannot both fit the last unit.
"""
from __future__ import annotations

from typing import Any, Callable

from ..deviations import NONE, Deviations
from ..registry import Registry, ResourceInfo
from ..apierrors import FieldError
from ..registry.limitrange import defaulted_as_sent, limit_range_errors
from ..registry.strategy import Strategy
from ..storage import KeyNotFoundError
from . import limitranger, quota
from .chain import ADMIT, VALIDATE, timed
from .lifecycle import NamespaceLifecycle

_LIMITED = frozenset({"pods", "persistentvolumeclaims"})  # LimitRanger's kinds
COMPUTE_NAMES = frozenset({"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory",
                           "ephemeral-storage", "requests.ephemeral-storage", "limits.ephemeral-storage"})


def _replace(obj: dict[str, Any], new: dict[str, Any]) -> None:
    """Make `obj` equal to `new` in place, keeping the identity of `obj["metadata"]` (the registry holds
    a reference to it across admission and preparation)."""
    if new is obj:
        return
    meta, new_meta = obj.get("metadata"), new.get("metadata")
    obj.clear()
    obj.update(new)
    if isinstance(meta, dict) and isinstance(new_meta, dict):
        meta.clear()
        meta.update(new_meta)
        obj["metadata"] = meta


class ScopeAdmission(NamespaceLifecycle):
    """NamespaceLifecycle + LimitRanger + ResourceQuota (the http layer's `ctx.admission`)."""

    def __init__(self, registry: Registry, deviations: Deviations = NONE):
        super().__init__(registry, deviations)
        self._limit_ranger = timed("LimitRanger", ADMIT, self._admit_limits)
        self._limit_ranger_resize = timed("LimitRanger", ADMIT, self._admit_resize_limits)
        self._validate_limits = timed("LimitRanger", VALIDATE, self._check_limits)
        self._quota = timed("ResourceQuota", VALIDATE, self._check_quota)

    # ---- helpers -----------------------------------------------------------------------------------
    def _in_scope(self, resource: str, ns: str, cluster_wide: str) -> list[dict[str, Any]]:
        """The namespace's ResourceQuota/LimitRange objects (every namespace's under a `*-cluster-wide` bug)."""
        return self.registry.store.list(resource, None if self.deviations.active(cluster_wide) else ns)[0]

    # ---- mutating ----------------------------------------------------------------------------------
    def for_create(self, info: ResourceInfo) -> Callable[[dict[str, Any]], None] | None:
        lifecycle = super().for_create(info)
        if info.plural != "pods" or any(s.info is info for s in self.registry.group_stores()):
            return lifecycle

        limits = self._limit_ranger

        def admit(obj: dict[str, Any]) -> None:
            if lifecycle is not None:
                lifecycle(obj)
            limits(obj)
        return admit

    def _admit_limits(self, obj: dict[str, Any]) -> None:
        """LimitRanger's mutating half on a pod create: the namespace's LimitRanges' defaults."""
        _replace(obj, limitranger.default_pod_resources(obj))  # SetDefaults_Pod (decode time upstream)
        if self.deviations.active("limitrange-defaults-ignored"):
            return
        ns = (obj.get("metadata") or {}).get("namespace") or ""
        lrs = self._in_scope("limitranges", ns, "limitrange-cluster-wide")
        if lrs:
            _replace(obj, limitranger.admit(lrs, "pods", obj))

    def for_admit_update(self, info: ResourceInfo, subresource: str) -> Callable[[dict[str, Any]], None] | None:
        """The mutating hook for an update: LimitRanger's defaults on a pod's update through `pods/resize` only
        (`DefaultLimitRangerActions.SupportsAttributes`: other pod updates leave containers alone)."""
        if info.plural != "pods" or subresource != "resize" or any(s.info is info for s in self.registry.group_stores()):
            return None
        return self._limit_ranger_resize

    def _admit_resize_limits(self, obj: dict[str, Any]) -> None:
        """`PodMutateLimitFunc` on the resized pod: the namespace's LimitRanges' defaults for the resources its
        containers now lack (the resize strategy then keeps only the containers' resources: the annotation goes)."""
        if self.deviations.active("limitrange-defaults-ignored"):
            return
        lrs = self._in_scope("limitranges", (obj.get("metadata") or {}).get("namespace") or "", "limitrange-cluster-wide")
        if lrs:
            _replace(obj, limitranger.admit(lrs, "pods", obj))

    # ---- validating --------------------------------------------------------------------------------
    def for_validate(self, info: ResourceInfo) -> Callable[[dict[str, Any]], Callable[[], None] | None] | None:
        """The validating hook for a create of `info` (namespaced resources only, and CSRs)."""
        if info.kind == "CertificateSigningRequest":  # CertificateSubjectRestriction (admission/certificates.py)
            from .certificates import subject_restriction_step
            return subject_restriction_step
        if not info.namespaced:
            return None
        group = next((getattr(s, "group", "") for s in self.registry.group_stores() if s.info is info), "")
        return lambda obj: self._validate_create(info.plural, group, obj)

    def _validate_create(self, resource: str, group: str, obj: dict[str, Any]) -> Callable[[], None] | None:
        ns = (obj.get("metadata") or {}).get("namespace") or ""
        if not ns:
            return None
        if resource in _LIMITED and not group and not self.deviations.active("limitrange-not-enforced"):
            self._validate_limits(resource, ns, obj)
        return self._quota(resource, group, ns, obj)

    def for_validate_update(self, info: ResourceInfo, subresource: str) -> Callable[[dict[str, Any], dict[str, Any]],
                                                                                    Callable[[], None] | None] | None:
        """On an update: LimitRanger for a claim's requests (a resize) or a pod's through `pods/resize` (other pod
        updates are not checked, as upstream: their containers' resources are immutable there), then ResourceQuota
        for a claim, a Service or a resized pod (charged by the growth of their usage); the quota's charge is
        returned, to be written after the object. (LimitRanger's defaults on a resize: `for_admit_update`.)"""
        resource = info.plural
        resize = resource == "pods" and subresource == "resize"  # DefaultLimitRangerActions.SupportsAttributes,
        # podEvaluator.Handles: an update through `pods/resize` (registry/podupdates.py)
        if (resource not in quota.UPDATE_HANDLED or subresource) and not resize or \
                any(s.info is info for s in self.registry.group_stores()):
            return None
        validate_limits, charge_quota = self._validate_limits, self._quota

        def validate(new: dict[str, Any], old: dict[str, Any]) -> Callable[[], None] | None:
            ns = (new.get("metadata") or {}).get("namespace") or ""
            if not ns:
                return None
            if resource in _LIMITED and not self.deviations.active("limitrange-not-enforced"):
                validate_limits(resource, ns, new)
            return charge_quota(resource, "", ns, new, old)
        return validate

    def _check_limits(self, resource: str, ns: str, obj: dict[str, Any]) -> None:
        """LimitRanger's validating half on a pod create, a claim's create or update: the namespace's LimitRanges'
        min/max."""
        lrs = self._in_scope("limitranges", ns, "limitrange-cluster-wide")
        if lrs:
            limitranger.validate(lrs, resource, obj)

    def _check_quota(self, resource: str, group: str, ns: str, obj: dict[str, Any],
                     old: dict[str, Any] | None = None) -> Callable[[], None] | None:
        """ResourceQuota on a create (or, with `old`, an update): the namespace's quotas checked; their charge,
        written after the object."""
        if self.deviations.active("quota-not-enforced"):
            return None
        quotas = self._in_scope("resourcequotas", ns, "quota-cluster-wide")
        if not quotas:
            return None
        if self.deviations.active("quota-ignores-compute"):
            quotas = [_without_compute(q) for q in quotas]
        updates = quota.check_create(quotas, resource, obj, group=group, old=old)
        if not updates or self.deviations.active("quota-usage-not-tracked"):
            return None
        where = {(q.get("metadata") or {}).get("name", ""): (q.get("metadata") or {}).get("namespace", "")
                 for q in quotas}
        store = self.registry.store

        def charge() -> None:
            for qname, used in updates.items():
                def write(q: dict[str, Any], used: dict[str, str] = used) -> dict[str, Any]:
                    q.setdefault("status", {})["used"] = used
                    return q
                try:
                    store.guaranteed_update("resourcequotas", where.get(qname, ns), qname, write)
                except KeyNotFoundError:
                    pass  # the quota went away meanwhile: nothing to charge
        return charge


def _without_compute(q: dict[str, Any]) -> dict[str, Any]:
    """The `quota-ignores-compute` bug: a quota whose compute resources are not looked at."""
    q = dict(q)
    status = dict(q.get("status") or {})
    for key in ("hard", "used"):
        if isinstance(status.get(key), dict):
            status[key] = {k: v for k, v in status[key].items() if k not in COMPUTE_NAMES}
    q["status"] = status
    return q


# ---- registry strategies ---------------------------------------------------------------------------
class LimitRangeStrategy(Strategy):
    """`SetDefaults_LimitRangeItem` on store: the defaults are visible on GET, quantities canonical."""

    _sent: dict[str, Any] | None = None

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self._sent = defaulted_as_sent(obj)  # what validation judges: the texts as sent, defaulted
        try:
            _replace(obj, limitranger.default_limit_range(obj))
        except (ValueError, TypeError, AttributeError):
            pass  # malformed quantities are kept as sent (refused when decoding)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        self.prepare_for_create(new)

    def _judged(self, obj: dict[str, Any]) -> dict[str, Any]:
        sent, self._sent = self._sent, None
        return sent if sent is not None else obj

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """`ValidateLimitRange` (registry/limitrange.py) of the defaulted object."""
        return super().validate(obj) + limit_range_errors(self._judged(obj))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """The strategy's ValidateUpdate is `ValidateLimitRange` of the new object too."""
        return super().validate_update(new, old) + limit_range_errors(self._judged(new))


def install_strategies(registry: Registry) -> None:
    """Give the LimitRange store its strategy (ResourceQuota's is the registry's own: registry/resourcequota.py)."""
    store = registry.content("limitranges")
    if store is not None:
        store.strategy = LimitRangeStrategy(store.info)
