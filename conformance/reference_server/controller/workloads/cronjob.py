"""The CronJob controller (`pkg/controller/cronjob/cronjob_controllerv2.go`, `utils.go`).

At each scheduled time (cron.py; `spec.timeZone` or UTC) a Job `<cronjob>-<scheduled unix minutes>` from
`jobTemplate` (its labels and annotations, the annotation `batch.kubernetes.io/cronjob-scheduled-timestamp`,
the CronJob's controller reference), listed in `status.active` (an ObjectReference) with
`status.lastScheduleTime`; the sync is requeued for the next scheduled time. A missed time older than
`startingDeadlineSeconds` is skipped; `concurrencyPolicy` Forbid skips while a Job is active, Replace deletes
the active ones first; `suspend` makes nothing. Jobs gone or finished leave `status.active` (a Complete one sets
`lastSuccessfulTime`). Jobs never finish on a cluster without nodes, so the history limits are left out.
"""
from __future__ import annotations

import datetime as _dt
import time
from typing import Any, Callable
from zoneinfo import ZoneInfo

from ... import apierrors as E
from ...registry import DeleteOptions
from ..events import NORMAL, WARNING
from . import cron
from .common import WorkloadController, controller_of, is_terminating_refusal, owner_reference, parse_time

SCHEDULED = "batch.kubernetes.io/cronjob-scheduled-timestamp"
UTC = _dt.timezone.utc


def _fmt(t: _dt.datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _finished(job: dict[str, Any]) -> str | None:
    for c in (job.get("status") or {}).get("conditions") or ():
        if isinstance(c, dict) and c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
            return c["type"]
    return None


def _ref(job: dict[str, Any]) -> dict[str, Any]:
    """`ref.GetReference`: an ObjectReference in Go's field order."""
    m = job["metadata"]
    return {"kind": "Job", "namespace": m["namespace"], "name": m["name"], "uid": m["uid"], "apiVersion": "batch/v1",
            "resourceVersion": m.get("resourceVersion", "")}


class CronJobController(WorkloadController):
    name = "cronjob controller"
    group = "batch"
    plural = "cronjobs"
    owned = "batch/jobs"
    owner_kind = "CronJob"
    component = "cronjob-controller"
    service_account = "cronjob-controller"

    def __init__(self, *a: Any, clock: Callable[[], float] = time.time, **kw: Any):
        super().__init__(*a, **kw)
        self.clock = clock

    @property
    def jobs(self) -> Any:
        return self.owned_store()

    def sync(self, ns: str, name: str) -> None:
        cj = self.get(ns, name)
        if cj is None or cj["metadata"].get("deletionTimestamp"):
            return
        status = dict(cj.get("status") or {})
        jobs = {j["metadata"]["uid"]: j for j in self.controlled(self.jobs, cj)}
        active = []
        for ref in status.get("active") or []:  # syncCronJob: drop Jobs gone or finished
            job = jobs.get(ref.get("uid"))
            if job is None:
                continue
            done = _finished(job)
            if done is not None:
                self.recorder.event(cj, NORMAL, "SawCompletedJob",
                                    f'Saw completed job: {job["metadata"]["name"]}, condition: {done}')
            if done == "Complete":
                status["lastSuccessfulTime"] = _fmt(_dt.datetime.now(UTC))
            if done is None:
                active.append(ref)
        listed = {r.get("uid") for r in active}
        active += [_ref(j) for uid, j in jobs.items() if uid not in listed and _finished(j) is None
                   and uid not in {r.get("uid") for r in status.get("active") or []}]
        spec = cj.get("spec") or {}
        try:
            schedule = cron.parse(spec.get("schedule", ""))
            zone: Any = ZoneInfo(spec["timeZone"]) if spec.get("timeZone") else UTC
        except (cron.ScheduleError, KeyError, ValueError):
            return self._write(cj, status, active)  # upstream: an event, nothing scheduled
        now = _dt.datetime.fromtimestamp(self.clock(), UTC)
        if not spec.get("suspend"):
            scheduled = self.most_recent(cj, schedule, zone, now)
            if scheduled is not None:
                active = self.run(cj, scheduled, zone, active, status)
        self._write(cj, status, active)
        nxt = schedule.next_after(now.astimezone(zone).replace(tzinfo=None))
        if nxt is not None:  # nextScheduleTimeDuration: a little after the time
            when = nxt.replace(tzinfo=zone).astimezone(UTC)
            self.requeue_after((ns, name), max((when - now).total_seconds(), 0) + 0.1)

    def most_recent(self, cj: dict[str, Any], schedule: "cron.Schedule | cron.EverySchedule", zone: Any,
                    now: _dt.datetime) -> _dt.datetime | None:
        """`mostRecentScheduleTime`: the latest scheduled time after the last one (or creation) up to now, if
        it is within `startingDeadlineSeconds`."""
        status = cj.get("status") or {}
        try:
            earliest = parse_time(status.get("lastScheduleTime") or cj["metadata"]["creationTimestamp"])
        except (KeyError, ValueError):
            return None
        deadline = (cj.get("spec") or {}).get("startingDeadlineSeconds")
        if deadline is not None:
            earliest = max(earliest, now - _dt.timedelta(seconds=int(deadline)))
        t, latest = earliest.astimezone(zone).replace(tzinfo=None), None
        wall_now = now.astimezone(zone).replace(tzinfo=None)
        if isinstance(schedule, cron.EverySchedule):  # upstream's arithmetic (exact for a constant delay)
            first = schedule.next_after(t)
            if first is not None and first <= wall_now:
                latest = first + schedule.delay * ((wall_now - first) // schedule.delay)
        else:
            while True:
                t = schedule.next_after(t)  # type: ignore[assignment]
                if t is None or t > wall_now:
                    break
                latest = t
        if latest is None:
            return None
        scheduled = latest.replace(tzinfo=zone).astimezone(UTC)
        if deadline is not None and (now - scheduled).total_seconds() > int(deadline):
            return None
        return scheduled

    def run(self, cj: dict[str, Any], scheduled: _dt.datetime, zone: Any, active: list[dict[str, Any]],
            status: dict[str, Any]) -> list[dict[str, Any]]:
        """Create the Job for `scheduled` (concurrency policy first); returns the new active list."""
        policy = (cj.get("spec") or {}).get("concurrencyPolicy", "Allow")
        if policy == "Forbid" and active:
            return active
        if policy == "Replace":
            for ref in active:
                try:
                    self.writes.delete(self.jobs, ref["namespace"], ref["name"],
                                       DeleteOptions(propagation_policy="Background"))
                except E.StatusError as exc:
                    if exc.code != 404:
                        self.recorder.event(cj, WARNING, "FailedDelete", f'Deleted job: {exc.message}')
                        raise
                else:
                    self.recorder.event(cj, NORMAL, "SuccessfulDelete", f'Deleted job {ref["name"]}')
            active = []
        template = (cj.get("spec") or {}).get("jobTemplate") or {}
        tmeta = template.get("metadata") or {}
        name = f'{cj["metadata"]["name"]}-{int(scheduled.timestamp()) // 60}'
        stamp = scheduled.astimezone(zone).isoformat().replace("+00:00", "Z")
        body = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {
            "name": name, "namespace": cj["metadata"]["namespace"], "labels": dict(tmeta.get("labels") or {}),
            "annotations": {**(tmeta.get("annotations") or {}), SCHEDULED: stamp},
            "ownerReferences": [owner_reference(cj)]}, "spec": dict(template.get("spec") or {})}
        if not body["metadata"]["labels"]:
            del body["metadata"]["labels"]
        try:
            job = self.create(self.jobs, body)
        except E.StatusError as exc:
            if exc.code != 409:
                if not is_terminating_refusal(exc):
                    self.recorder.event(cj, WARNING, "FailedCreate", f"Error creating job: {exc.message}")
                raise
            try:  # made by an earlier sync: ours if its controller is this CronJob
                job = self.jobs.get(cj["metadata"]["namespace"], name)
            except E.StatusError:
                return active
            if (controller_of(job) or {}).get("uid") != cj["metadata"]["uid"]:
                return active
        else:
            self.recorder.event(cj, NORMAL, "SuccessfulCreate", f'Created job {job["metadata"]["name"]}')
        status["lastScheduleTime"] = _fmt(scheduled)
        if all(r.get("uid") != job["metadata"]["uid"] for r in active):
            active = active + [_ref(job)]
        return active

    def _write(self, cj: dict[str, Any], status: dict[str, Any], active: list[dict[str, Any]]) -> None:
        status = dict(status)
        if active:
            status["active"] = active
        else:
            status.pop("active", None)
        self.write_status(cj, status)
