"""kube-controller-manager's HorizontalPodAutoscaler controller as it behaves on a kind cluster without
metrics-server (`pkg/controller/podautoscaler/horizontal.go`, `reconcileAutoscaler`):

- every HPA is synced once per resync period (15 s, `--horizontal-pod-autoscaler-sync-period`): upstream adds
  every key, on add and on update alike, rate limited by a fixed interval (`NewDefaultHPARateLimiter`), so an HPA
  is first synced one period after it appears, then every period;
- the target's scale is read (`scaleForResourceMappings`); a target that cannot be found sets `AbleToScale`
  False `FailedGetScale` with the error, and a `FailedGetScale` Warning; otherwise `AbleToScale` True
  `SucceededGetScale`;
- a target at 0 replicas: `ScalingActive` False `ScalingDisabled`; outside [minReplicas, maxReplicas]: it is
  rescaled to the bound through its scale (`SuccessfulRescale` Normal event, `AbleToScale` True `SucceededRescale`);
- otherwise the metrics are computed, and here every Resource/ContainerResource metric fails as
  `metrics.k8s.io` is not served (`FailedGetResourceMetric`, with the client's 404 text), every Pods/Object/External
  one as `custom.metrics.k8s.io` / `external.metrics.k8s.io` are not served either: `ScalingActive` False with
  the first metric's reason, `status.currentMetrics` one empty entry per metric (`{"type": ""}`, the zero
  MetricStatus upstream writes), `currentReplicas` from the scale, `desiredReplicas` kept, and a
  `FailedComputeMetricsReplicas` Warning. The Resource metrics' text is upstream's (client-go's 404 for
  `pods.metrics.k8s.io`); the custom/external metrics' wording follows the same path but was not compared with a
  live cluster.

Its writes and Events are made as its service account (`cmd/kube-controller-manager/app/autoscaling.go`
`ClientOrDie("horizontal-pod-autoscaler")`) through admission/admitted.py: the rescale an UPDATE of the target's
`scale` subresource with the autoscaling/v1 Scale, the status `horizontalpodautoscalers/status`; a refused status
write is logged and tried again a period later (the queue's fixed interval), a refused rescale is the sync's error
(tried again a period later too).

Not done: overlapping HPAs (`AmbiguousSelector`), scaling from metrics (none can be fetched), the stabilization
window and behavior policies (they only shape a metric-driven recommendation).
"""
from __future__ import annotations

import copy
from typing import Any

from .. import apierrors as E
from ..registry import Registry
from ..registry.autoscaling import GROUP, HPA
from ..registry.crconversion import memo
from ..registry.crconversion.memo import ConversionPending
from ..registry.crconversion.webhook import resolve
from ..registry.webhooktransport import service_lookup
from ..registry.meta import now
from ..registry.subresources import scale_model
from ..storage.offload import Offload
from .events import NORMAL, WARNING, EventRecorder
from .loop import Controller, WorkQueue, log

COMPONENT = "horizontal-pod-autoscaler"
FIELD_MANAGER = "kube-controller-manager"
SYNC_PERIOD = 15.0  # --horizontal-pod-autoscaler-sync-period
CONVERSION_ATTEMPTS = 8  # a target whose conversions keep changing: left for the next period
Key = tuple[str, str]
_NOT_SERVED = "the server could not find the requested resource (get pods.metrics.k8s.io)"
_METRIC_ERRORS = {  # metric type → (condition reason, error) when the metrics APIs are not served
    "Resource": ("FailedGetResourceMetric", "failed to get {name} utilization: unable to get metrics for resource "
                                            "{name}: unable to fetch metrics from resource metrics API: " + _NOT_SERVED),
    "ContainerResource": ("FailedGetContainerResourceMetric",
                          "failed to get {name} utilization: unable to get metrics for resource {name}: unable to "
                          "fetch metrics from resource metrics API: " + _NOT_SERVED),
    "Pods": ("FailedGetPodsMetric", "unable to get metric {name}: unable to fetch metrics from custom metrics API: "
                                    "no custom metrics API (custom.metrics.k8s.io) registered"),
    "Object": ("FailedGetObjectMetric", "unable to get metric {name}: {kind} on {ns} {target}/unable to fetch "
                                        "metrics from custom metrics API: no custom metrics API "
                                        "(custom.metrics.k8s.io) registered"),
    "External": ("FailedGetExternalMetric", "unable to get external metric {ns}/{name}/nil: unable to fetch metrics "
                                            "from external metrics API: the server could not find the requested "
                                            "resource (get {name}.external.metrics.k8s.io)"),
}


def set_condition(status: dict[str, Any], type_: str, value: str, reason: str, message: str) -> None:
    """`setCondition`: update the condition of that type (appended when absent), its time changed only when its
    status changes."""
    conditions = status.setdefault("conditions", [])
    cond = next((c for c in conditions if c.get("type") == type_), None)
    if cond is None:
        cond = {"type": type_}
        conditions.append(cond)
    if cond.get("status") != value:
        cond["lastTransitionTime"] = now()
    fresh = {"type": type_, "status": value, "lastTransitionTime": cond.get("lastTransitionTime"),
             "reason": reason, "message": message}
    cond.clear()
    cond.update(fresh)


def _status(status: dict[str, Any]) -> dict[str, Any]:
    """v2 status in Go's field order (`currentReplicas` omitted when 0)."""
    order = ("observedGeneration", "lastScaleTime", "currentReplicas", "desiredReplicas", "currentMetrics",
             "conditions")
    out = {k: status[k] for k in order if k in status and status[k] is not None}
    if not out.get("currentReplicas"):
        out.pop("currentReplicas", None)
    out.setdefault("desiredReplicas", 0)
    return out


class HorizontalPodAutoscalerController(Controller):
    name = "horizontal-pod-autoscaler controller"
    service_account = COMPONENT

    def __init__(self, registry: Registry, *, period: float = SYNC_PERIOD, admission: Any = None):
        super().__init__()
        self.registry = registry
        self.period = period
        self.recorder = EventRecorder(registry, COMPONENT, admission)
        self.keys: WorkQueue[Key] = self._queue()
        self._offload = Offload(registry.store, "hpa-controller")

    def _hpas(self) -> Any:
        return self.registry.group(GROUP, HPA.plural)

    def start(self) -> None:
        store = self._hpas()
        if store is None:
            return
        self._inform(store, self._on)
        self._work(self.keys, self._sync)

    def _on(self, ev: Any) -> None:
        if ev.type != "DELETED":  # `enqueueHPA`: AddRateLimited, a fixed interval: one period later
            self.keys.add_after((ev.namespace or "", ev.name), self.period)

    async def _sync(self, key: Key) -> None:
        if await self._reconciled(key):
            self.keys.add_after(key, self.period)  # processed every resync interval while it exists

    async def _reconciled(self, key: Key) -> bool:
        """`reconcile(key)`; a target in a version a conversion webhook converts stops it before anything is
        written (`ConversionPending`): the webhook is asked and the sync run again, as the scale client's request
        would be decoded. A webhook that fails leaves the HPA as it is until the next period."""
        token = memo.start()
        try:
            for _ in range(CONVERSION_ATTEMPTS):
                try:
                    return await self._offload(self.reconcile, key)
                except ConversionPending as pending:
                    try:
                        await resolve(pending, service_lookup(self.registry))
                    except E.StatusError as exc:
                        log.info("%s: %s/%s: %s", self.name, key[0], key[1], exc.message)
                        return True
            return True
        finally:
            memo.MEMO.reset(token)

    # ---- reconcileAutoscaler -----------------------------------------------------------------------
    def reconcile(self, key: Key) -> bool:
        """One sync of the HPA `key`; False when it is gone."""
        store = self._hpas()
        try:
            hpa = store.get(*key)
        except E.StatusError as exc:
            if exc.status.get("code") == 404:
                return False
            raise
        spec = hpa.get("spec") or {}
        original = hpa.get("status") or {}
        status = copy.deepcopy(original)
        ref = spec.get("scaleTargetRef") or {}
        reference = f"{ref.get('kind', '')}/{ref.get('name', '')}"
        try:
            target, scale = self._scale(key[0], ref)
        except LookupError as exc:
            self.recorder.event(hpa, WARNING, "FailedGetScale", str(exc))
            set_condition(status, "AbleToScale", "False", "FailedGetScale",
                          f"the HPA controller was unable to get the target's current scale: {exc}")
            self._write_status(key, original, status)
            return True
        set_condition(status, "AbleToScale", "True", "SucceededGetScale",
                      "the HPA controller was able to get the target's current scale")
        current = (scale.get("spec") or {}).get("replicas") or 0
        min_replicas = spec.get("minReplicas") if spec.get("minReplicas") is not None else 1
        max_replicas = spec.get("maxReplicas") or 0
        desired, reason = status.get("desiredReplicas") or 0, ""
        if current == 0 and min_replicas != 0:
            desired = 0
            set_condition(status, "ScalingActive", "False", "ScalingDisabled",
                          "scaling is disabled since the replica count of the target is zero")
        elif current > max_replicas:
            desired, reason = max_replicas, "Current number of replicas above Spec.MaxReplicas"
        elif current < min_replicas:
            desired, reason = min_replicas, "Current number of replicas below Spec.MinReplicas"
        else:
            return self._metrics_failed(key, hpa, spec, original, status, current, reference)
        if reason:
            try:
                self._rescale(target, key[0], ref.get("name", ""), desired)
            except E.StatusError as exc:  # a refusal, a conflict: `FailedRescale`, the sync's error
                self.recorder.event(hpa, WARNING, "FailedRescale",
                                    f"New size: {desired}; reason: {reason}; error: {exc.message}")
                set_condition(status, "AbleToScale", "False", "FailedUpdateScale",
                              f"the HPA controller was unable to update the target scale: {exc.message}")
                status.update(currentReplicas=current)
                self._write_status(key, original, status)
                return True
            set_condition(status, "AbleToScale", "True", "SucceededRescale",
                          f"the HPA controller was able to update the target scale to {desired}")
            self.recorder.event(hpa, NORMAL, "SuccessfulRescale", f"New size: {desired}; reason: {reason}")
            status["lastScaleTime"] = now()
        status.update(currentReplicas=current, desiredReplicas=desired)
        self._write_status(key, original, status)
        return True

    def _metrics_failed(self, key: Key, hpa: dict[str, Any], spec: dict[str, Any], original: dict[str, Any],
                        status: dict[str, Any], current: int, reference: str) -> bool:
        """`computeReplicasForMetrics` when no metric can be fetched: ScalingActive False (the first metric's
        reason), one event per metric, then `FailedComputeMetricsReplicas`."""
        metrics = [m for m in spec.get("metrics") or [] if isinstance(m, dict)]
        first: tuple[str, str] | None = None
        for m in metrics:
            typ = m.get("type", "")
            src = m.get({"Resource": "resource", "ContainerResource": "containerResource", "Pods": "pods",
                         "Object": "object", "External": "external"}.get(typ, ""), {}) or {}
            name = src.get("name") or (src.get("metric") or {}).get("name", "")
            described = src.get("describedObject") or {}
            reason, text = _METRIC_ERRORS.get(typ, ("InvalidMetricSourceType", "unknown metric source type {typ!r}"))
            err = text.format(name=name, kind=described.get("kind", ""), ns=key[0], target=described.get("name", ""),
                              typ=typ)
            self.recorder.event(hpa, WARNING, reason, err)
            if first is None:
                first = (reason, err)
        if first is not None:
            set_condition(status, "ScalingActive", "False", first[0],
                          f"the HPA was unable to compute the replica count: {first[1]}")
        status.update(currentReplicas=current, currentMetrics=[{"type": ""} for _ in metrics])
        self._write_status(key, original, status)
        if first is not None:
            self.recorder.event(hpa, WARNING, "FailedComputeMetricsReplicas",
                                f"invalid metrics ({len(metrics)} invalid out of {len(metrics)}), first error is: "
                                f"{first[1]}")
        return True

    # ---- the target's scale ------------------------------------------------------------------------
    def _target_store(self, ref: dict[str, Any]) -> Any:
        api_version, kind = ref.get("apiVersion") or "", ref.get("kind") or ""
        if api_version.count("/") > 1:
            raise LookupError(f"unexpected GroupVersion string: {api_version}")
        group = api_version.rpartition("/")[0] if "/" in api_version else ""
        # the scale client's `ResourceFor(gr.WithVersion(""))`: the group's preferred version serving the kind (a
        # custom resource's preferred version may lack the `/scale` another version has: then it is not found)
        stores = [s for v in self.registry.group_versions(group) for s in self.registry.version_stores(group, v)] \
            if group else self.registry.namespaced()
        store = next((s for s in stores if s.info.kind == kind and s.info.namespaced
                      and getattr(s, "group", "") == group), None)
        if store is None:
            raise LookupError(f'no matches for kind "{kind}" in group "{group}"')
        return store

    def _scale(self, ns: str, ref: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        store = self._target_store(ref)
        if "scale" not in getattr(store, "subresources", {}):
            raise LookupError("the server could not find the requested resource")
        try:
            return store, scale_model(store).scale_of(store.get(ns, ref.get("name") or "", shared=True))
        except E.StatusError as exc:
            raise LookupError(exc.status.get("message", "")) from None

    def _rescale(self, store: Any, ns: str, name: str, replicas: int) -> None:
        """`scaleNamespacer.Update`: the target's `scale` subresource, through the webhooks as the controller's."""
        self.writes.update_scale(store, ns, name, replicas, FIELD_MANAGER)

    def _write_status(self, key: Key, original: dict[str, Any], status: dict[str, Any]) -> None:
        """`updateStatusIfNeeded`: an UpdateStatus only when the status changed."""
        status = _status(status)
        if status == original:
            return
        store = self._hpas()

        def change(cur: dict[str, Any]) -> dict[str, Any]:
            return {**cur, "status": status}
        try:
            self.writes.update(store, *key, transform=change, strategy=store.status_strategy,
                               field_manager=FIELD_MANAGER)
        except E.StatusError as exc:  # gone, conflicting or refused: the next sync tries again, as upstream's
            log.info("%s: %s/%s: %s", self.name, key[0], key[1], exc.message)


__all__ = ["HorizontalPodAutoscalerController", "SYNC_PERIOD", "set_condition"]
