"""The Job controller (`pkg/controller/job/job_controller.go`), on a cluster where pods never run.

Pods up to `parallelism` (and what `completions` still needs), `<job>-xxxxx` (Indexed: `<job>-<index>-xxxxx`
with the completion-index annotation and label, hostname `<job>-<index>`), each with the finalizer
`batch.kubernetes.io/job-tracking` that lets the controller count it before it goes. A pod being deleted
(or terminal) is counted (`isPodFailed`: a deleted pod that did not succeed is a failure, the
`TerminatingOrFailed` replacement policy) and its finalizer removed at once, so a namespace holding a Job
still empties promptly; its replacement waits for the pod failure back-off (10 s, doubling, at most 6 min).
Pods whose Job is gone or being deleted lose the finalizer too (orphan pods). Past `backoffLimit` failures:
conditions FailureTarget then Failed, `BackoffLimitExceeded`. `suspend`: active pods deleted, condition
Suspended. Status: startTime, active, ready, terminating, failed, succeeded, `uncountedTerminatedPods: {}`.
Completion (pods that succeed) needs a kubelet and is left out.
"""
from __future__ import annotations

import copy
import time
from typing import Any

from ... import apierrors as E
from ...admission.admitted import AdmissionRefusal
from ...registry import ListOptions
from ..events import NORMAL, WARNING
from .common import KCM, WorkloadController, controller_of, counts, is_active, is_ready, now, pod_from_template, \
    set_condition, slow_start

FINALIZER = "batch.kubernetes.io/job-tracking"
INDEX = "batch.kubernetes.io/job-completion-index"
BACKOFF, MAX_BACKOFF = 10.0, 360.0  # DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff


def _terminal(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _finished(pod: dict[str, Any]) -> bool:
    return _terminal(pod) or bool(pod["metadata"].get("deletionTimestamp"))


def _condition(type_: str, reason: str, message: str) -> dict[str, Any]:
    t = now()
    return {"type": type_, "status": "True", "lastProbeTime": t, "lastTransitionTime": t, "reason": reason,
            "message": message}


class JobController(WorkloadController):
    name = "job controller"
    group = "batch"
    plural = "jobs"
    owner_kind = "Job"
    component = "job-controller"
    service_account = "job-controller"
    adopts = True

    def __init__(self, *a: Any, **kw: Any):
        super().__init__(*a, **kw)
        self._backoff: dict[str, tuple[int, float]] = {}  # job uid → (failures, monotonic time of the last)

    # ---- orphan pods -------------------------------------------------------------------------------
    def owned_event(self, ev: Any, ref: dict[str, Any] | None) -> None:
        if ev.type == "DELETED" or FINALIZER not in (ev.object["metadata"].get("finalizers") or ()):
            return
        if ref is None or ref.get("kind") != "Job":
            self.remove_finalizer(ev.object)
            return
        job = self.get(ev.namespace, ref.get("name", ""))
        if job is None or job["metadata"].get("uid") != ref.get("uid"):
            self.remove_finalizer(ev.object)

    def deleted(self, ev: Any) -> None:
        uid = ev.object["metadata"].get("uid")
        self._backoff.pop(uid, None)
        for pod in self.pods.list(ev.namespace, ListOptions(), shared=True)["items"]:
            if (controller_of(pod) or {}).get("uid") == uid:
                self.remove_finalizer(pod)

    def remove_finalizer(self, pod: dict[str, Any]) -> bool:
        meta = pod["metadata"]
        if FINALIZER not in (meta.get("finalizers") or ()):
            return False

        def drop(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            new["metadata"]["finalizers"] = [f for f in cur["metadata"].get("finalizers") or [] if f != FINALIZER]
            return new
        try:
            self.writes.update(self.pods, meta["namespace"], meta["name"], transform=drop, field_manager=KCM)
        except E.StatusError as exc:
            if exc.code != 404:
                raise
        return True

    # ---- sync --------------------------------------------------------------------------------------
    def sync(self, ns: str, name: str) -> None:
        job = self.get(ns, name)
        if job is None:
            return
        pods = self.claim(self.pods, job)
        uid = job["metadata"]["uid"]
        status = copy.deepcopy(job.get("status") or {})
        new_failed = new_succeeded = 0
        for pod in pods:  # trackJobStatusAndRemoveFinalizers
            if _finished(pod) and self.remove_finalizer(pod):
                if (pod.get("status") or {}).get("phase") == "Succeeded":
                    new_succeeded += 1
                else:
                    new_failed += 1
        if job["metadata"].get("deletionTimestamp"):
            for pod in pods:
                self.remove_finalizer(pod)
            return
        if new_failed:
            failures, _ = self._backoff.get(uid, (0, 0.0))
            self._backoff[uid] = (failures + new_failed, time.monotonic())
        failed = int(status.get("failed", 0) or 0) + new_failed
        succeeded = int(status.get("succeeded", 0) or 0) + new_succeeded
        spec = job.get("spec") or {}
        conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
        done = any(c.get("type") in ("Complete", "Failed") and c.get("status") == "True" for c in conditions)
        active = [p for p in pods if is_active(p)]
        suspended = bool(spec.get("suspend"))
        if not done and not suspended and failed > int(spec.get("backoffLimit", 6) or 0):
            msg = "Job has reached the specified backoff limit"
            conditions = set_condition(conditions, _condition("FailureTarget", "BackoffLimitExceeded", msg))
            for pod in active:
                self.delete_pod(pod, job)
            active = []
            conditions = set_condition(conditions, _condition("Failed", "BackoffLimitExceeded", msg))
            self.recorder.event(job, WARNING, "BackoffLimitExceeded", msg)  # recordJobFinished
            done = True
        elif not done and suspended:
            for pod in active:
                self.delete_pod(pod, job)
            active = []
            changed = set_condition(conditions, _condition("Suspended", "JobSuspended", "Job suspended"))
            if changed is not conditions:
                self.recorder.event(job, NORMAL, "Suspended", "Job suspended")
            conditions = changed
        elif not done:
            if any(c.get("type") == "Suspended" for c in conditions):
                changed = set_condition(conditions, {**_condition("Suspended", "JobResumed", "Job resumed"),
                                                     "status": "False"})
                if changed is not conditions:
                    self.recorder.event(job, NORMAL, "Resumed", "Job resumed")
                conditions = changed
            active = active + self.manage(job, active, succeeded, (ns, name))
        status["conditions"] = conditions
        if not conditions:
            del status["conditions"]
        if not suspended and not status.get("startTime"):
            status["startTime"] = now()
        for key, value in (("active", len(active)), ("failed", failed), ("succeeded", succeeded)):
            if value:
                status[key] = value
            else:
                status.pop(key, None)
        status["terminating"] = counts(pods, lambda p: bool(p["metadata"].get("deletionTimestamp"))
                                       and not _terminal(p))  # CountTerminatingPods, before the finalizers went
        status["ready"] = counts(active, is_ready)
        status["uncountedTerminatedPods"] = {}
        self.write_status(job, status)

    def manage(self, job: dict[str, Any], active: list[dict[str, Any]], succeeded: int,
               key: tuple[str, str]) -> list[dict[str, Any]]:
        """`manageJob`: create what parallelism and completions ask for, after the failure back-off."""
        spec = job["spec"]
        parallelism = int(spec.get("parallelism", 1) or 0)
        completions = spec.get("completions")
        if completions is None:
            want = parallelism if succeeded == 0 else 0
        else:
            want = max(min(int(completions) - succeeded, parallelism), 0)
        diff = want - len(active)
        if diff < 0:
            for pod in sorted(active, key=lambda p: p["metadata"].get("creationTimestamp") or "", reverse=True)[:-diff]:
                self.delete_pod(pod, job)
            return []
        if diff == 0:
            return []
        failures, last = self._backoff.get(job["metadata"]["uid"], (0, 0.0))
        if failures:
            remaining = min(BACKOFF * 2 ** (failures - 1), MAX_BACKOFF) - (time.monotonic() - last)
            if remaining > 0:
                self.requeue_after(key, remaining)
                return []
        indexed = spec.get("completionMode") == "Indexed"
        taken = {(p["metadata"].get("annotations") or {}).get(INDEX) for p in active}
        free = iter(str(i) for i in range(int(completions or 0)) if str(i) not in taken) if indexed else None
        created: list[dict[str, Any]] = []

        def make() -> None:
            template = copy.deepcopy(spec["template"])
            tmeta = template.setdefault("metadata", {})
            tmeta["finalizers"] = list(tmeta.get("finalizers") or []) + [FINALIZER]
            generate = ""
            if free is not None:
                index = next(free, None)
                if index is None:
                    return
                tmeta["annotations"] = {**(tmeta.get("annotations") or {}), INDEX: index}
                tmeta["labels"] = {**(tmeta.get("labels") or {}), INDEX: index}
                template["spec"]["hostname"] = f'{job["metadata"]["name"]}-{index}'
                generate = f'{job["metadata"]["name"]}-{index}-'
            created.append(self.create_pod(pod_from_template(template, job, generate_name=generate), job))
        _, error = slow_start(self.capped(key, diff), make)
        if isinstance(error, AdmissionRefusal):  # a webhook or policy refused: the sync's error, rate-limited
            self.requeue_after(key, self.backoff(key))
        return created
