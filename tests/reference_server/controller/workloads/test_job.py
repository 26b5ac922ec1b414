"""The Job controller (controller/workloads/job.py): pods with the tracking finalizer, which goes when a pod is
deleted so that nothing waits for a kubelet that is not there."""
from __future__ import annotations

from conformance.reference_server.controller.workloads import JobController
from conformance.reference_server.controller.workloads.job import FINALIZER
from conformance.reference_server.registry import DeleteOptions

from .conftest import BACKGROUND, NS, apps, get, pods, template


def _job(reg, **spec):
    return apps(reg, "jobs", "j", {"template": template({}, restart="Never"), **spec}, group="batch")


def test_pods_up_to_parallelism_with_the_tracking_finalizer(reg):
    job = _job(reg, parallelism=2, completions=5)
    c = JobController(reg)
    c.sync(NS, "j")
    made = pods(reg)
    assert len(made) == 2
    uid = job["metadata"]["uid"]
    for p in made:
        meta = p["metadata"]
        assert meta["generateName"] == "j-" and meta["finalizers"] == [FINALIZER]
        assert meta["labels"] == {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "j",
                                  "controller-uid": uid, "job-name": "j"}
        assert meta["ownerReferences"] == [{"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": uid,
                                            "controller": True, "blockOwnerDeletion": True}]
    status = get(reg, "jobs", "j", group="batch")["status"]
    assert set(status) == {"startTime", "active", "terminating", "ready", "uncountedTerminatedPods"}
    assert (status["active"], status["ready"], status["terminating"], status["uncountedTerminatedPods"]) == (2, 0, 0, {})


def test_a_deleted_pod_loses_the_finalizer_and_counts_as_failed(reg):
    _job(reg)
    c = JobController(reg)
    c.sync(NS, "j")
    [p] = pods(reg)
    reg.content("pods").delete(NS, p["metadata"]["name"], DeleteOptions())
    assert pods(reg)[0]["metadata"]["deletionTimestamp"]  # held by the finalizer
    c.sync(NS, "j")
    assert pods(reg) == []  # finalizer removed: gone, no replacement during the 10 s back-off
    status = get(reg, "jobs", "j", group="batch")["status"]
    assert status["failed"] == 1 and "active" not in status
    assert c.requeued and 9 < c.requeued[-1][1] <= 10


def test_pods_of_a_deleted_job_lose_the_finalizer(reg):
    _job(reg)
    c = JobController(reg)
    c.sync(NS, "j")
    [p] = pods(reg)
    gone = reg.group("batch", "jobs").get(NS, "j")
    reg.group("batch", "jobs").delete(NS, "j", BACKGROUND)

    class Ev:
        namespace, object = NS, gone
    c.deleted(Ev())
    assert pods(reg)[0]["metadata"].get("finalizers") in (None, [])


def test_suspended_and_indexed(reg):
    _job(reg, suspend=True)
    c = JobController(reg)
    c.sync(NS, "j")
    assert pods(reg) == []
    status = get(reg, "jobs", "j", group="batch")["status"]
    assert [(x["type"], x["reason"]) for x in status["conditions"]] == [("Suspended", "JobSuspended")]
    assert "startTime" not in status
    reg.group("batch", "jobs").delete(NS, "j", BACKGROUND)
    _job(reg, completionMode="Indexed", completions=3, parallelism=2)
    c.sync(NS, "j")
    indexes = sorted(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] for p in pods(reg))
    assert indexes == ["0", "1"]
    p0 = next(p for p in pods(reg) if p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] == "0")
    assert p0["metadata"]["generateName"] == "j-0-" and p0["spec"]["hostname"] == "j-0"
