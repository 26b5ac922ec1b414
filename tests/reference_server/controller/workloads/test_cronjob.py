"""The CronJob controller (controller/workloads/cronjob.py) and its schedule parser (cron.py)."""
from __future__ import annotations

import datetime as dt

import pytest

from conformance.reference_server.controller.workloads import CronJobController
from conformance.reference_server.controller.workloads import cron
from conformance.reference_server.controller.workloads.common import parse_time
from conformance.reference_server.registry import ListOptions

from .conftest import BACKGROUND, NS, apps, get, patch_spec, template

T = dt.datetime(2026, 11, 23, 9, 37, 20)  # a Monday


@pytest.mark.parametrize("spec, after, expected", [
    ("* * * * *", T, dt.datetime(2026, 11, 23, 9, 38)),
    ("*/15 * * * *", T, dt.datetime(2026, 11, 23, 9, 45)),
    ("0 9-17/4 * * MON-FRI", T, dt.datetime(2026, 11, 23, 13, 0)),
    ("30 2 1 * *", T, dt.datetime(2026, 12, 1, 2, 30)),
    ("0 0 * * sun", T, dt.datetime(2026, 11, 29, 0, 0)),
    ("0 0 13 * 5", T, dt.datetime(2026, 11, 27, 0, 0)),  # day of month OR day of week (Friday 27th)
    ("@hourly", T, dt.datetime(2026, 11, 23, 10, 0)),
    ("@yearly", T, dt.datetime(2027, 1, 1, 0, 0)),
    ("0 0 29 feb *", T, dt.datetime(2028, 2, 29, 0, 0)),
])
def test_next_after(spec, after, expected):
    assert cron.parse(spec).next_after(after) == expected


@pytest.mark.parametrize("spec", ["* * * *", "61 * * * *", "@every 5x", "* * * * 8", "a * * * *", "*/0 * * * *"])
def test_bad_schedules(spec):
    with pytest.raises(cron.ScheduleError):
        cron.parse(spec)


@pytest.mark.parametrize("spec,delay", [("@every 5m", 300), ("@every 1h30m", 5400), ("@every 1500ms", 1),
                                        ("@every 10ms", 1)])
def test_every_is_a_constant_delay_in_whole_seconds(spec, delay):
    """robfig's `Every`: under a second is one second, else rounded down; `Next` drops the fraction of a second."""
    after = dt.datetime(2026, 11, 23, 9, 59, 59, 700000)
    assert cron.parse(spec).next_after(after) == dt.datetime(2026, 11, 23, 9, 59, 59) + dt.timedelta(seconds=delay)


def _cj(reg, **spec):
    return apps(reg, "cronjobs", "cj", {"schedule": "*/5 * * * *", "jobTemplate": {
        "metadata": {"labels": {"team": "a"}}, "spec": {"template": template({}, restart="Never")}}, **spec},
        group="batch")


def _jobs(reg):
    return reg.group("batch", "jobs").list(NS, ListOptions())["items"]


def test_a_job_at_the_scheduled_time_then_requeued_for_the_next(reg):
    cj = _cj(reg)
    created = parse_time(cj["metadata"]["creationTimestamp"])
    c = CronJobController(reg, clock=lambda: created.timestamp())
    c.sync(NS, "cj")
    assert _jobs(reg) == [] and 0 < c.requeued[-1][1] <= 300.1
    due = (created.replace(second=0) + dt.timedelta(minutes=5 - created.minute % 5))
    c.clock = lambda: due.timestamp() + 3
    c.sync(NS, "cj")
    [job] = _jobs(reg)
    assert job["metadata"]["name"] == f"cj-{int(due.timestamp()) // 60}"
    assert job["metadata"]["labels"]["team"] == "a"
    assert job["metadata"]["annotations"] == {"batch.kubernetes.io/cronjob-scheduled-timestamp":
                                              due.strftime("%Y-%m-%dT%H:%M:%SZ")}
    assert job["metadata"]["ownerReferences"] == [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "cj",
                                                   "uid": cj["metadata"]["uid"], "controller": True,
                                                   "blockOwnerDeletion": True}]
    status = get(reg, "cronjobs", "cj", group="batch")["status"]
    assert status["lastScheduleTime"] == due.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert status["active"] == [{"kind": "Job", "namespace": NS, "name": job["metadata"]["name"],
                                 "uid": job["metadata"]["uid"], "apiVersion": "batch/v1",
                                 "resourceVersion": job["metadata"]["resourceVersion"]}]
    c.sync(NS, "cj")
    assert len(_jobs(reg)) == 1  # the same time is not run twice
    reg.group("batch", "jobs").delete(NS, job["metadata"]["name"], BACKGROUND)
    c.sync(NS, "cj")
    assert "active" not in get(reg, "cronjobs", "cj", group="batch")["status"]


def test_an_every_schedule_runs_its_latest_missed_time_once(reg):
    """`@every 2m`, a day after creation: one Job, for the latest time (upstream's mostRecentScheduleTime
    arithmetic, not a walk over 720 missed times)."""
    cj = _cj(reg, schedule="@every 2m")
    created = parse_time(cj["metadata"]["creationTimestamp"])
    c = CronJobController(reg, clock=lambda: created.timestamp() + 86400 + 30)
    c.sync(NS, "cj")
    [job] = _jobs(reg)
    latest = created + dt.timedelta(seconds=86400)  # 720 delays of 2 minutes
    assert job["metadata"]["name"] == f"cj-{int(latest.timestamp()) // 60}"
    assert 0 < c.requeued[-1][1] <= 120.1


def test_forbid_suspend_and_starting_deadline(reg):
    cj = _cj(reg, concurrencyPolicy="Forbid", schedule="* * * * *")
    created = parse_time(cj["metadata"]["creationTimestamp"])
    c = CronJobController(reg, clock=lambda: created.timestamp() + 61)
    c.sync(NS, "cj")
    c.clock = lambda: created.timestamp() + 181
    c.sync(NS, "cj")
    assert len(_jobs(reg)) == 1  # Forbid: the first is still active
    patch_spec(reg, "cronjobs", "cj", {"suspend": True, "concurrencyPolicy": "Allow"}, group="batch")
    c.clock = lambda: created.timestamp() + 301
    c.sync(NS, "cj")
    assert len(_jobs(reg)) == 1
    patch_spec(reg, "cronjobs", "cj", {"suspend": False, "startingDeadlineSeconds": 10}, group="batch")
    c.clock = lambda: (created.replace(second=0) + dt.timedelta(minutes=10, seconds=30)).timestamp()
    c.sync(NS, "cj")
    assert len(_jobs(reg)) == 1  # the last scheduled time is 30 s old, past the 10 s deadline
