"""Events as client-go's recorders write them (controller/events.py), and the controllers that record them."""
from __future__ import annotations

import re

from conformance.reference_server.controller.events import COMBINED, EventRecorder
from conformance.reference_server.controller.scheduler import NO_NODES, NoNodesScheduler
from conformance.reference_server.controller.workloads import (CronJobController, DeploymentController,
                                                               JobController, ReplicaSetController,
                                                               StatefulSetController)
from conformance.reference_server.registry import DeleteOptions, ListOptions, Registry
from conformance.reference_server.storage import MemoryStore

from .workloads.conftest import NS, apps, patch_spec, template


class Clock:
    def __init__(self, t: float = 1_800_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def _reg() -> Registry:
    r = Registry(MemoryStore())
    r.namespaces.create({"metadata": {"name": NS}})
    return r


def _events(reg: Registry, reason: str | None = None) -> list[dict]:
    items = reg.content("events").list(NS, ListOptions())["items"]
    items.sort(key=lambda e: int(e["metadata"]["resourceVersion"]))
    return [e for e in items if reason is None or e["reason"] == reason]


def _cm(reg: Registry) -> dict:
    return reg.content("configmaps").create({"metadata": {"name": "obj", "namespace": NS}})


def test_an_event_has_the_record_packages_shape():
    reg, clock = _reg(), Clock()
    cm = _cm(reg)
    EventRecorder(reg, "some-controller", clock=clock).event(cm, "Normal", "Why", "what happened")
    [ev] = _events(reg)
    assert ev["metadata"]["name"] == f"obj.{int(clock.t * 1e9):x}"
    assert re.fullmatch(r"obj\.[0-9a-f]+", ev["metadata"]["name"])
    assert ev["involvedObject"] == {"kind": "ConfigMap", "namespace": NS, "name": "obj",
                                    "uid": cm["metadata"]["uid"], "apiVersion": "v1",
                                    "resourceVersion": cm["metadata"]["resourceVersion"]}
    assert {k: ev[k] for k in ("reason", "message", "type", "source", "count", "reportingComponent",
                               "reportingInstance", "eventTime")} == {
        "reason": "Why", "message": "what happened", "type": "Normal", "source": {"component": "some-controller"},
        "count": 1, "reportingComponent": "some-controller", "reportingInstance": "", "eventTime": None}
    assert ev["firstTimestamp"] == ev["lastTimestamp"] == "2027-01-15T08:00:00Z"


def test_the_same_event_again_counts_on_the_first():
    reg, clock = _reg(), Clock()
    cm = _cm(reg)
    rec = EventRecorder(reg, "c", clock=clock)
    rec.event(cm, "Warning", "Failed", "boom")
    clock.t += 61
    rec.event(cm, "Warning", "Failed", "boom")
    [ev] = _events(reg)
    assert ev["count"] == 2 and ev["firstTimestamp"] == "2027-01-15T08:00:00Z"
    assert ev["lastTimestamp"] == "2027-01-15T08:01:01Z"
    reg.content("events").delete(NS, ev["metadata"]["name"], DeleteOptions())  # gone: the next one is created again
    rec.event(cm, "Warning", "Failed", "boom")
    [again] = _events(reg)
    assert again["count"] == 3 and again["metadata"]["name"] == ev["metadata"]["name"]


def test_the_tenth_distinct_message_is_combined_and_counted_on():
    reg, clock = _reg(), Clock()
    cm = _cm(reg)
    rec = EventRecorder(reg, "c", clock=clock)
    for i in range(12):
        clock.t += 1
        rec.event(cm, "Normal", "SuccessfulCreate", f"Created pod: p{i}")
    evs = _events(reg)
    assert [e["message"] for e in evs[:9]] == [f"Created pod: p{i}" for i in range(9)]
    [combined] = evs[9:]
    assert combined["message"] == COMBINED + "Created pod: p11" and combined["count"] == 3
    assert "reportingComponent" not in combined or not combined["reportingComponent"]


def test_a_source_may_burst_25_events_about_an_object_then_one_per_five_minutes():
    reg, clock = _reg(), Clock()
    cm = _cm(reg)
    rec = EventRecorder(reg, "c", clock=clock)
    for i in range(30):
        rec.event(cm, "Normal", f"R{i}", "m")  # distinct reasons: nothing aggregates
    assert len(_events(reg)) == 25
    clock.t += 300
    rec.event(cm, "Normal", "Late", "m")
    rec.event(cm, "Normal", "Later", "m")
    assert [e["reason"] for e in _events(reg)][-1] == "Late" and len(_events(reg)) == 26


def test_a_lost_event_never_fails_the_caller():
    reg = _reg()
    EventRecorder(reg, "c").event({"kind": "ConfigMap", "apiVersion": "v1",
                                   "metadata": {"name": "x", "namespace": "nowhere"}}, "Normal", "R", "m")
    assert _events(reg) == []


# ---- the controllers' events ----------------------------------------------------------------------

def _deploy(reg: Registry, replicas: int = 3) -> None:
    apps(reg, "deployments", "web", {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                                     "template": template({"app": "web"})})


def test_deployment_and_replicaset_events():
    reg = _reg()
    _deploy(reg)
    dc, rsc = DeploymentController(reg), ReplicaSetController(reg)
    dc.sync(NS, "web")
    [rs] = reg.group("apps", "replicasets").list(NS, ListOptions())["items"]
    rs_name = rs["metadata"]["name"]
    [scaled] = _events(reg, "ScalingReplicaSet")
    assert scaled["message"] == f"Scaled up replica set {rs_name} from 0 to 3"
    assert scaled["involvedObject"]["kind"] == "Deployment" and scaled["source"] == {"component": "deployment-controller"}
    rsc.sync(NS, rs_name)
    created = _events(reg, "SuccessfulCreate")
    pods = {p["metadata"]["name"] for p in reg.content("pods").list(NS, ListOptions())["items"]}
    assert {e["message"] for e in created} == {f"Created pod: {p}" for p in pods} and len(created) == 3
    assert {e["source"]["component"] for e in created} == {"replicaset-controller"}
    assert {e["involvedObject"]["name"] for e in created} == {rs_name}
    patch_spec(reg, "deployments", "web", {"replicas": 1})
    dc.sync(NS, "web")
    assert _events(reg, "ScalingReplicaSet")[-1]["message"] == f"Scaled down replica set {rs_name} from 3 to 1"
    rsc.sync(NS, rs_name)
    deleted = _events(reg, "SuccessfulDelete")
    left = {p["metadata"]["name"] for p in reg.content("pods").list(NS, ListOptions())["items"]}
    assert {e["message"] for e in deleted} == {f"Deleted pod: {p}" for p in pods - left} and len(deleted) == 2


def test_statefulset_words_its_own_events():
    reg = _reg()
    apps(reg, "statefulsets", "db", {"replicas": 2, "serviceName": "db", "podManagementPolicy": "Parallel",
                                     "selector": {"matchLabels": {"app": "db"}}, "template": template({"app": "db"})})
    StatefulSetController(reg).sync(NS, "db")
    assert [(e["reason"], e["message"]) for e in _events(reg)] == [
        ("SuccessfulCreate", "create Pod db-0 in StatefulSet db successful"),
        ("SuccessfulCreate", "create Pod db-1 in StatefulSet db successful")]
    patch_spec(reg, "statefulsets", "db", {"replicas": 1})
    StatefulSetController(reg).sync(NS, "db")
    assert _events(reg)[-1]["message"] == "delete Pod db-1 in StatefulSet db successful"
    assert _events(reg)[-1]["source"] == {"component": "statefulset-controller"}


def test_job_suspend_and_resume_events():
    reg = _reg()
    apps(reg, "jobs", "j", {"suspend": True, "template": template({"app": "j"}, restart="Never")}, group="batch")
    jc = JobController(reg)
    jc.sync(NS, "j")
    jc.sync(NS, "j")
    assert [(e["reason"], e["message"], e["count"]) for e in _events(reg)] == [("Suspended", "Job suspended", 1)]
    patch_spec(reg, "jobs", "j", {"suspend": False}, group="batch")
    jc.sync(NS, "j")
    reasons = [e["reason"] for e in _events(reg)]
    assert reasons[:2] == ["Suspended", "Resumed"] and reasons[2:] == ["SuccessfulCreate"]
    assert _events(reg)[-1]["source"] == {"component": "job-controller"}


def test_cronjob_records_the_job_it_created():
    reg = _reg()
    apps(reg, "cronjobs", "cj", {"schedule": "* * * * *", "jobTemplate": {
        "spec": {"template": template({"app": "cj"}, restart="Never")}}}, group="batch")
    cj = reg.group("batch", "cronjobs").get(NS, "cj")
    created_at = CronJobController(reg).clock()
    CronJobController(reg, clock=lambda: created_at + 61).sync(NS, "cj")
    [job] = reg.group("batch", "jobs").list(NS, ListOptions())["items"]
    [ev] = _events(reg)
    assert (ev["reason"], ev["message"], ev["source"]) == ("SuccessfulCreate", f'Created job {job["metadata"]["name"]}',
                                                           {"component": "cronjob-controller"})
    assert ev["involvedObject"]["uid"] == cj["metadata"]["uid"]


def test_the_scheduler_records_failed_scheduling_through_the_events_api():
    reg = _reg()
    pod = reg.content("pods").create({"metadata": {"name": "p", "namespace": NS},
                                      "spec": {"containers": [{"name": "c", "image": "pause"}]}})
    sched = NoNodesScheduler(reg)
    sched.schedule(NS, "p")
    sched.schedule(NS, "p")  # already Unschedulable: nothing more
    [ev] = _events(reg)
    assert (ev["type"], ev["reason"], ev["message"], ev["action"]) == ("Warning", "FailedScheduling", NO_NODES,
                                                                       "Scheduling")
    assert ev["reportingComponent"] == "default-scheduler"
    assert ev["reportingInstance"].startswith("default-scheduler-")
    assert ev["source"] == {} and ev["firstTimestamp"] is None and "count" not in ev or not ev.get("count")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", ev["eventTime"])
    assert ev["involvedObject"]["uid"] == pod["metadata"]["uid"] and ev["involvedObject"]["kind"] == "Pod"


def test_a_rerun_of_a_sync_does_not_record_its_events_again():
    """controller/loop.py SyncEvents: a sync stopped by a pending admission runs again; the Events its earlier run
    recorded are not recorded twice (a new one of the rerun is)."""
    from conformance.reference_server.controller.loop import SYNC_EVENTS, SyncEvents
    reg, clock = _reg(), Clock()
    cm = _cm(reg)
    recorder = EventRecorder(reg, "some-controller", clock=clock)
    sync = SyncEvents()
    token = SYNC_EVENTS.set(sync)
    try:
        recorder.event(cm, "Warning", "FailedCreate", "Error creating: denied")
        sync.rerun()
        clock.t += 1
        recorder.event(cm, "Warning", "FailedCreate", "Error creating: denied")
        recorder.event(cm, "Normal", "Other", "new in the rerun")
    finally:
        SYNC_EVENTS.reset(token)
    assert [(e["reason"], e["count"]) for e in _events(reg)] == [("FailedCreate", 1), ("Other", 1)]
    recorder.event(cm, "Warning", "FailedCreate", "Error creating: denied")  # the next sync records it again
    assert sorted((e["reason"], e["count"]) for e in _events(reg)) == [("FailedCreate", 2), ("Other", 1)]
