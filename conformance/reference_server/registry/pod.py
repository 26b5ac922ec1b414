"""Pods as kube-apiserver stores them on a cluster without nodes, priority classes or scheduler.

Follows `pkg/apis/core/v1/defaults.go` (`SetDefaults_Pod`, `SetDefaults_PodSpec`, `SetDefaults_Container`),
the default admission plugins that touch every pod (`DefaultTolerationSeconds`: not-ready/unreachable
NoExecute for 300 s; `Priority`: priority 0 and `PreemptLowerPriority` without a default PriorityClass;
`ServiceAccount`: admission/serviceaccount.py, with `serviceAccountName: default` here too for flavours
without that plugin), `pkg/registry/core/pod/strategy.go`
(`PrepareForCreate`: status is `{phase: Pending, qosClass}`, `metadata.generation` 1; `PrepareForUpdate`: status
kept, `updatePodGeneration`: the generation moves when the spec does, ungated since 1.33 (KEP-5067, #130181);
`CheckGracefulDelete`: `graceful_period`; the fields dropped for 1.33's gates, the SchedulingGated condition, the
affinity terms' matchLabelKeys and the AppArmor fields' and annotations' sync: registry/podprepare.py) and the
pod-spec validation of `pkg/apis/core/validation/validation.go` (registry/podvalidation/); what an update may
change is `ValidatePodUpdate` (pod_update.py).
"""
from __future__ import annotations

from typing import Any

from ..apierrors import FieldError
from . import meta as M, podspec_defaults
from .pod_update import semantic, validate_pod_spec_update
from .podprepare import (apply_apparmor_version_skew, drop_disabled_fields, mutate_pod_affinity,
                         scheduling_gated_condition)
from .podvalidation.podmeta import validate_pod_object
from .podwarnings import pod_warnings
from .strategy import PerThread, Strategy
from .shapes import as_dict, as_list

DEFAULT_TOLERATION_SECONDS = 300
_TAINTS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


def _default_container(c: Any) -> None:
    if not isinstance(c, dict):
        return
    image = c.get("image")
    if not c.get("imagePullPolicy") and not (isinstance(image, str) and image):
        c["imagePullPolicy"] = "IfNotPresent"  # ParseImageName("") fails: no tag, not "latest"
    if not c.get("imagePullPolicy") and isinstance(image, str) and image:
        tag = image.rsplit("/", 1)[-1]
        tagged = ":" in tag and "@" not in tag
        latest = not tagged or tag.rsplit(":", 1)[1] == "latest"
        c["imagePullPolicy"] = "Always" if latest and "@" not in tag else "IfNotPresent"
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    if not isinstance(c.get("resources"), dict):
        c["resources"] = {}
    for port in as_list(c.get("ports")):
        if isinstance(port, dict) and not port.get("protocol"):
            port["protocol"] = "TCP"


def default_pod_spec(spec: dict[str, Any]) -> None:
    """`SetDefaults_PodSpec` + `SetDefaults_Container` and the nested defaults (`podspec_defaults.py`), also used
    for the workload kinds' pod templates."""
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    if not isinstance(spec.get("securityContext"), dict):
        spec["securityContext"] = {}
    spec.setdefault("schedulerName", "default-scheduler")
    for key in ("initContainers", "containers", "ephemeralContainers"):  # SetDefaults_EphemeralContainer too
        for c in as_list(spec.get(key)):
            _default_container(c)
    podspec_defaults.nested(spec)


def pod_only_defaults(spec: dict[str, Any]) -> None:
    """`SetDefaults_Pod`'s part that templates do not get: each (init) container's missing requests take its
    limits, and with hostNetwork a port's hostPort its containerPort."""
    for key in ("containers", "initContainers"):
        for c in as_list(spec.get(key)):
            res = as_dict(as_dict(c).get("resources"))
            if isinstance(res.get("limits"), dict) and res["limits"]:
                requests = res.setdefault("requests", {})
                if isinstance(requests, dict):
                    for name, value in res["limits"].items():
                        requests.setdefault(name, value)
            if spec.get("hostNetwork") is True:
                for port in as_list(as_dict(c).get("ports")):
                    if isinstance(port, dict) and not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort")


def qos_class(spec: dict[str, Any]) -> str:
    """`qos.GetPodQOS`: BestEffort without any request/limit; Guaranteed when every container limits cpu and
    memory with requests equal to the limits (requests default to limits); else Burstable."""
    containers = [c for k in ("initContainers", "containers") for c in as_list(spec.get(k)) if isinstance(c, dict)]
    any_set, guaranteed = False, True
    for c in containers:
        res = c.get("resources") if isinstance(c.get("resources"), dict) else {}
        requests = res.get("requests") if isinstance(res.get("requests"), dict) else {}
        limits = res.get("limits") if isinstance(res.get("limits"), dict) else {}
        if requests or limits:
            any_set = True
        for r in ("cpu", "memory"):
            if r not in limits or str(requests.get(r, limits[r])) != str(limits[r]):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


class PodStrategy(Strategy):
    """`pod.Strategy` plus the decode-time defaults and the always-on admission plugins' mutations."""

    _bumped = PerThread()  # the generation a spec change moves to, between prepare_for_update and canonicalize

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        self._bumped = None
        obj.setdefault("metadata", {})["generation"] = 1  # `pod.Generation = 1`, whatever the client sent
        spec = obj.get("spec")
        if not isinstance(spec, dict):  # a null spec decodes to Go's zero PodSpec, then defaulted
            spec = obj["spec"] = {}
        default_pod_spec(spec)
        pod_only_defaults(spec)
        spec.setdefault("enableServiceLinks", True)
        # v1 conversion: an empty serviceAccountName takes the deprecated alias; the alias then follows it
        spec["serviceAccountName"] = spec.get("serviceAccountName") or spec.get("serviceAccount") or "default"
        spec["serviceAccount"] = spec["serviceAccountName"]
        spec.setdefault("priority", 0)
        spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
        tolerations = spec.get("tolerations") if isinstance(spec.get("tolerations"), list) else []
        for key in _TAINTS:
            if not any(isinstance(t, dict) and t.get("key") == key and t.get("effect") in ("NoExecute", None, "")
                       for t in tolerations):
                tolerations.append({"key": key, "operator": "Exists", "effect": "NoExecute",
                                    "tolerationSeconds": DEFAULT_TOLERATION_SECONDS})
        spec["tolerations"] = tolerations
        obj["status"] = {"phase": "Pending", "qosClass": qos_class(spec)}
        drop_disabled_fields(spec, None)
        conditions = scheduling_gated_condition(spec, M.now())
        if conditions:
            obj["status"]["conditions"] = conditions
        mutate_pod_affinity(spec, obj["metadata"].get("labels"))
        apply_apparmor_version_skew(obj)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + validate_pod_object(obj, create=True)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        """The hostname warning and `GetWarningsForPod` (registry/podwarnings.py); an update is warned of nothing
        ("humans don't typically interact directly with pods", strategy.go)."""
        return pod_warnings(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        spec, ospec = new.get("spec"), old.get("spec") if isinstance(old.get("spec"), dict) else {}
        if isinstance(spec, dict):
            default_pod_spec(spec)
            pod_only_defaults(spec)
            spec.setdefault("enableServiceLinks", True)
            drop_disabled_fields(spec, ospec)
            for key in ("priority", "priorityClassName", "preemptionPolicy"):  # the Priority plugin on update
                spec.pop(key, None)
                if key in ospec:
                    spec[key] = ospec[key]
            account = spec.get("serviceAccountName") or spec.get("serviceAccount")
            if account:  # v1 conversion: the deprecated alias follows serviceAccountName
                spec["serviceAccountName"] = spec["serviceAccount"] = account
        if "status" in old:
            new["status"] = old["status"]
        self.update_generation(new, old)

    def update_generation(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """`updatePodGeneration`: a spec that is not `Semantic.DeepEqual` to the stored one moves the stored
        generation by one (a pod stored without one goes to 1); written by `canonicalize`, once the store has
        put the stored system fields back (`rest.BeforeUpdate` keeps the old generation before the strategy)."""
        if semantic(new.get("spec")) != semantic(old.get("spec")):
            generation = (old.get("metadata") or {}).get("generation")
            self._bumped = (generation if isinstance(generation, int) else 0) + 1
        else:
            self._bumped = None

    def canonicalize(self, obj: dict[str, Any]) -> None:
        super().canonicalize(obj)
        bumped, self._bumped = self._bumped, None
        if bumped is not None:
            obj.setdefault("metadata", {})["generation"] = bumped

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return (super().validate_update(new, old) + validate_pod_object(new, create=False, old=old)
                + validate_pod_spec_update(new.get("spec"), old.get("spec")))

    @staticmethod
    def graceful_period(pod: dict[str, Any], requested: int | None) -> int:
        """Pods are deleted gracefully (registry/graceful.py); see `graceful_period` below."""
        return graceful_period(pod, requested)


def graceful_period(pod: dict[str, Any], requested: int | None) -> int:
    """`podStrategy.CheckGracefulDelete`: the request's gracePeriodSeconds, else the pod's
    terminationGracePeriodSeconds (else 0); 0 for a pod not scheduled to a node (`spec.nodeName` empty) or
    already terminated (phase Succeeded/Failed) — such a pod has nothing to stop and is removed at once."""
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    period = requested if requested is not None else spec.get("terminationGracePeriodSeconds")
    period = period if isinstance(period, int) and not isinstance(period, bool) else 0
    if not spec.get("nodeName"):
        period = 0
    if ((pod.get("status") or {}).get("phase")) in ("Succeeded", "Failed"):
        period = 0
    return 1 if period < 0 else period
