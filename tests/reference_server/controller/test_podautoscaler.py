"""The HPA controller on a cluster without metrics-server (controller/podautoscaler.py): conditions, status and
Events of one sync (`reconcileAutoscaler`), for a missing target, a target outside the bounds (rescaled through its
scale) and a target whose CPU metric cannot be fetched."""
from __future__ import annotations

import asyncio
import json

from conformance.reference_server.controller.podautoscaler import HorizontalPodAutoscalerController
from conformance.reference_server.registry import ListOptions, Registry
from conformance.reference_server.storage import MemoryStore
from tests.reference_server.crds import settle_crd

NS = "hpa"
REF = {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}
NOT_SERVED = ("failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from "
              "resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)")


def _reg() -> Registry:
    r = Registry(MemoryStore())
    r.namespaces.create({"metadata": {"name": NS}})
    return r


def _hpa(reg: Registry, name: str = "h", **spec) -> dict:
    body = {"metadata": {"name": name, "namespace": NS}, "spec": {"scaleTargetRef": REF, "maxReplicas": 5, **spec}}
    return reg.group("autoscaling", "horizontalpodautoscalers").create(body)


def _deployment(reg: Registry, replicas: int) -> dict:
    labels = {"app": "web"}
    return reg.group("apps", "deployments").create({"metadata": {"name": "web", "namespace": NS}, "spec": {
        "replicas": replicas, "selector": {"matchLabels": labels},
        "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})


def _events(reg: Registry) -> list[tuple[str, str, str]]:
    items = reg.content("events").list(NS, ListOptions())["items"]
    items.sort(key=lambda e: int(e["metadata"]["resourceVersion"]))
    return [(e["type"], e["reason"], e["message"]) for e in items]


def _status(reg: Registry, name: str = "h") -> dict:
    return reg.group("autoscaling", "horizontalpodautoscalers").get(NS, name)["status"]


def _conditions(status: dict) -> list[tuple[str, str, str, str]]:
    return [(c["type"], c["status"], c["reason"], c["message"]) for c in status.get("conditions", [])]


def test_missing_target_fails_get_scale():
    reg = _reg()
    _hpa(reg)
    assert HorizontalPodAutoscalerController(reg).reconcile((NS, "h")) is True
    status = _status(reg)
    assert _conditions(status) == [("AbleToScale", "False", "FailedGetScale", "the HPA controller was unable to get "
                                    'the target\'s current scale: deployments.apps "web" not found')]
    assert status["conditions"][0]["lastTransitionTime"]
    assert _events(reg) == [("Warning", "FailedGetScale", 'deployments.apps "web" not found')]
    # a second sync changes nothing: same condition (time kept), the event counted, no status write
    rv = reg.group("autoscaling", "horizontalpodautoscalers").get(NS, "h")["metadata"]["resourceVersion"]
    HorizontalPodAutoscalerController(reg).reconcile((NS, "h"))
    assert reg.group("autoscaling", "horizontalpodautoscalers").get(NS, "h")["metadata"]["resourceVersion"] == rv
    # an HPA that is gone: nothing to do
    assert HorizontalPodAutoscalerController(reg).reconcile((NS, "gone")) is False


def test_below_min_is_rescaled_through_the_scale():
    reg = _reg()
    _deployment(reg, 1)
    _hpa(reg, minReplicas=2)
    HorizontalPodAutoscalerController(reg).reconcile((NS, "h"))
    assert reg.group("apps", "deployments").get(NS, "web")["spec"]["replicas"] == 2
    status = _status(reg)
    assert (status["currentReplicas"], status["desiredReplicas"]) == (1, 2) and status["lastScaleTime"]
    assert _conditions(status) == [("AbleToScale", "True", "SucceededRescale",
                                    "the HPA controller was able to update the target scale to 2")]
    assert _events(reg) == [("Normal", "SuccessfulRescale",
                             "New size: 2; reason: Current number of replicas below Spec.MinReplicas")]


def test_cpu_metric_cannot_be_fetched_without_metrics_server():
    reg = _reg()
    _deployment(reg, 1)
    _hpa(reg)
    HorizontalPodAutoscalerController(reg).reconcile((NS, "h"))
    status = _status(reg)
    assert status["currentReplicas"] == 1 and status["desiredReplicas"] == 0
    assert status["currentMetrics"] == [{"type": ""}]  # the zero MetricStatus upstream writes per metric
    assert _conditions(status) == [
        ("AbleToScale", "True", "SucceededGetScale", "the HPA controller was able to get the target's current scale"),
        ("ScalingActive", "False", "FailedGetResourceMetric", f"the HPA was unable to compute the replica count: "
                                                              f"{NOT_SERVED}")]
    assert _events(reg) == [("Warning", "FailedGetResourceMetric", NOT_SERVED),
                            ("Warning", "FailedComputeMetricsReplicas",
                             f"invalid metrics (1 invalid out of 1), first error is: {NOT_SERVED}")]
    # read in autoscaling/v1, the conditions and the empty current metric travel in annotations
    v1 = reg.group("autoscaling", "horizontalpodautoscalers", "v1").get(NS, "h")
    assert v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/current-metrics"] == '[{"type":""}]'
    assert v1["status"] == {"currentReplicas": 1, "desiredReplicas": 0}


def test_zero_replicas_disable_scaling():
    reg = _reg()
    _deployment(reg, 0)
    _hpa(reg)
    HorizontalPodAutoscalerController(reg).reconcile((NS, "h"))
    assert _conditions(_status(reg))[1] == ("ScalingActive", "False", "ScalingDisabled",
                                            "scaling is disabled since the replica count of the target is zero")


def test_first_sync_one_period_after_the_hpa_appears():
    """`enqueueHPA` adds with a fixed-interval rate limiter: the first sync comes one period after the add."""
    async def run() -> tuple[dict, dict]:
        reg = _reg()
        ctl = HorizontalPodAutoscalerController(reg, period=0.2)
        ctl.start()
        try:
            _hpa(reg)
            early = _status(reg)
            store = reg.group("autoscaling", "horizontalpodautoscalers")
            _, w, _ = store.watch(NS, ListOptions(), asyncio.get_running_loop())
            while True:
                ev = await asyncio.wait_for(w.queue.get(), 5)
                if ev is not None and (ev.object.get("status") or {}).get("conditions"):
                    return early, ev.object["status"]
        finally:
            await ctl.stop()
    early, later = asyncio.run(run())
    assert "conditions" not in early
    assert later["conditions"][0]["reason"] == "FailedGetScale"


def _widget(reg: Registry, replicas: int) -> None:
    """A CRD with a scale subresource (registry/crscale.py) and one custom resource at `replicas`."""
    reg.custom.crds.create({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                            "metadata": {"name": "widgets.example.com"},
                            "spec": {"group": "example.com", "scope": "Namespaced",
                                     "names": {"plural": "widgets", "kind": "Widget"},
                                     "versions": [{"name": "v1", "served": True, "storage": True,
                                                   "subresources": {"scale": {
                                                       "specReplicasPath": ".spec.size",
                                                       "statusReplicasPath": ".status.size"}},
                                                   "schema": {"openAPIV3Schema": {
                                                       "type": "object",
                                                       "x-kubernetes-preserve-unknown-fields": True}}}]}})
    settle_crd(reg, "widgets.example.com")
    reg.group("example.com", "widgets").create({"apiVersion": "example.com/v1", "kind": "Widget",
                                                "metadata": {"name": "web", "namespace": NS},
                                                "spec": {"size": replicas}}, field_manager="creator")


def test_custom_resource_target_is_rescaled_through_its_scale():
    reg = _reg()
    _widget(reg, 9)
    _hpa(reg, scaleTargetRef={"kind": "Widget", "name": "web", "apiVersion": "example.com/v1"}, minReplicas=2)
    HorizontalPodAutoscalerController(reg).reconcile((NS, "h"))
    widget = reg.group("example.com", "widgets").get(NS, "web")
    assert widget["spec"]["size"] == 5
    entries = {(e["manager"], e.get("subresource", "")): e["fieldsV1"] for e in widget["metadata"]["managedFields"]}
    assert entries[("kube-controller-manager", "scale")] == {"f:spec": {"f:size": {}}}  # ScaleHandler.ToParent
    assert "f:size" not in json.dumps(entries[("creator", "")])
    status = _status(reg)
    assert (status["currentReplicas"], status["desiredReplicas"]) == (9, 5)
    assert _conditions(status) == [("AbleToScale", "True", "SucceededRescale",
                                    "the HPA controller was able to update the target scale to 5")]
    assert _events(reg) == [("Normal", "SuccessfulRescale",
                             "New size: 5; reason: Current number of replicas above Spec.MaxReplicas")]


def test_custom_resource_scale_is_the_preferred_versions():
    """The scale client reads `/scale` of the kind's preferred version (`ResourceFor(gr.WithVersion(""))`): v2 here,
    whose replicas live at `.spec.count`; a preferred version without `/scale` is the client's 404."""
    reg = _reg()
    _widget(reg, 9)
    crds = reg.custom.crds
    crd = crds.get("", "widgets.example.com")
    v2 = {**crd["spec"]["versions"][0], "name": "v2", "storage": False,
          "subresources": {"scale": {"specReplicasPath": ".spec.count", "statusReplicasPath": ".status.count"}}}
    crd["spec"]["versions"].append(v2)
    crds.update("", "widgets.example.com", crd)
    reg.group("example.com", "widgets").update(NS, "web", transform=lambda o: {**o, "spec": {"size": 9, "count": 1}})
    _hpa(reg, scaleTargetRef={"kind": "Widget", "name": "web", "apiVersion": "example.com/v1"}, minReplicas=2)
    HorizontalPodAutoscalerController(reg).reconcile((NS, "h"))
    assert reg.group("example.com", "widgets").get(NS, "web")["spec"] == {"size": 9, "count": 2}
    crd = crds.get("", "widgets.example.com")
    crd["spec"]["versions"][1].pop("subresources")
    crds.update("", "widgets.example.com", crd)
    HorizontalPodAutoscalerController(reg).reconcile((NS, "h"))
    assert _conditions(_status(reg))[0] == ("AbleToScale", "False", "FailedGetScale", "the HPA controller was unable "
                                            "to get the target's current scale: the server could not find the "
                                            "requested resource")


def test_custom_resource_target_in_a_webhook_converted_version():
    """The target's preferred version (`v1`, replicas in `spec.replicas`) is converted by the CRD's conversion
    webhook from the stored `v1beta1` (`spec.count`): the sync stops for the conversion, asks the webhook and runs
    again; the rescale is written through that version's paths."""
    from tests.reference_server.registry.crconversion.test_crconversion_webhook import ConversionHook

    hook = ConversionHook()
    try:
        reg = _reg()
        scale = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.ready"}
        schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
        reg.custom.crds.create({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                                "metadata": {"name": "widgets.example.com"},
                                "spec": {"group": "example.com", "scope": "Namespaced",
                                         "names": {"plural": "widgets", "kind": "Widget"},
                                         "conversion": {"strategy": "Webhook", "webhook": {
                                             "conversionReviewVersions": ["v1"],
                                             "clientConfig": {"url": f"{hook.url}/convert",
                                                              "caBundle": hook.ca_bundle}}},
                                         "versions": [
                                             {"name": "v1", "served": True, "storage": False, "schema": schema,
                                              "subresources": {"scale": scale}},
                                             {"name": "v1beta1", "served": True, "storage": True,
                                              "schema": schema, "subresources": {"scale": {
                                                  **scale, "specReplicasPath": ".spec.count"}}}]}})
        settle_crd(reg, "widgets.example.com")
        reg.group("example.com", "widgets").create({"apiVersion": "example.com/v1beta1", "kind": "Widget",
                                                    "metadata": {"name": "web", "namespace": NS},
                                                    "spec": {"count": 1}})
        _hpa(reg, scaleTargetRef={"kind": "Widget", "name": "web", "apiVersion": "example.com/v1"}, minReplicas=3)
        controller = HorizontalPodAutoscalerController(reg)
        assert reg.group_versions("example.com")[0] == "v1"  # preferred: the converted one
        start = len(hook.reviews)
        assert asyncio.run(controller._reconciled((NS, "h"))) is True
        assert reg.group("example.com", "widgets").get(NS, "web")["spec"] == {"count": 3}
        assert len(hook.reviews) > start
        assert _conditions(_status(reg)) == [("AbleToScale", "True", "SucceededRescale",
                                              "the HPA controller was able to update the target scale to 3")]
    finally:
        hook.stop()
