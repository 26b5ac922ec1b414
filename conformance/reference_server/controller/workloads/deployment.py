"""The Deployment controller (`pkg/controller/deployment/`), on a cluster where no pod is ever available.

* `sync.go` `getNewReplicaSet`: the new ReplicaSet `<deploy>-<pod-template-hash>` (the hash in its name,
  labels, selector and template labels), the Deployment's annotations copied (`skipCopyAnnotation` ones
  left out) plus `deployment.kubernetes.io/revision` (max old revision + 1), `desired-replicas` and
  `max-replicas`; the Deployment gets the revision annotation and the Progressing condition
  `NewReplicaSetCreated` ("Created new replica set %q"), or `FoundNewReplicaSet` for one already there.
* `rolling.go`: the new ReplicaSet scaled up within `maxSurge`, old ones scaled down within
  `maxUnavailable` (`cleanupUnhealthyReplicas` first): with nothing ever available a rollout over old
  pods stops where upstream's does. `recreate.go`: old ReplicaSets to 0, and the new one only once no old pod
  is left.
* `progress.go`/`sync.go` `syncRolloutStatus`: status counts, Available False `MinimumReplicasUnavailable`,
  Progressing `ReplicaSetUpdated` while counts move and `ProgressDeadlineExceeded` once
  `progressDeadlineSeconds` passed without progress (the sync is requeued for that moment).
* paused (`checkPausedConditions`): Progressing Unknown `DeploymentPaused`, no new ReplicaSet made.
* rollback (`kubectl rollout undo`, client-side: it puts an old ReplicaSet's template back) finds that
  ReplicaSet as the new one, raises its revision and records the old one in `revision-history`; the
  Deployment's annotations (`kubernetes.io/change-cause`) are copied to it (`SetNewReplicaSetAnnotations`).
* `cleanupDeployment`: old ReplicaSets beyond `revisionHistoryLimit` deleted, oldest revision first, once the
  rollout is complete (or paused) and only those with no replica left.
* scaling events (`isScalingEvent`: an active ReplicaSet's `desired-replicas` differs from the Deployment's
  replicas) and paused Deployments go through `sync.go` `sync`/`scale`: the one active ReplicaSet (or the newest)
  takes the new size; a saturated new one leaves the old ones at 0; otherwise, rolling, the change is spread
  over the active ReplicaSets in proportion (`proportional.py`), then only the status is written.
"""
from __future__ import annotations

import copy
import math
from typing import Any

from ... import apierrors as E
from ...registry import DeleteOptions
from ..events import NORMAL, WARNING
from . import proportional
from .common import (KCM, WorkloadController, is_terminating_refusal, now, owner_reference, parse_time,
                     set_condition, utcnow)
from .templatehash import compute_hash

HASH_LABEL = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
DESIRED = "deployment.kubernetes.io/desired-replicas"
MAX = "deployment.kubernetes.io/max-replicas"
HISTORY = "deployment.kubernetes.io/revision-history"
MAX_HISTORY_CHARS = 2000  # maxRevHistoryLengthInChars
SKIP_COPY = frozenset({"kubectl.kubernetes.io/last-applied-configuration", REVISION,
                       HISTORY, DESIRED, MAX, "deprecated.deployment.rollback.to"})


def _scaled(value: Any, total: int, round_up: bool) -> int:
    """`intstr.GetScaledValueFromIntOrPercent`."""
    if isinstance(value, str) and value.endswith("%"):
        try:
            pct = int(value[:-1])
        except ValueError:
            return 0
        v = pct * total / 100
        return math.ceil(v) if round_up else math.floor(v)
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _replicas(obj: dict[str, Any]) -> int:
    v = (obj.get("spec") or {}).get("replicas")
    return int(v) if isinstance(v, int) else 0


def fenceposts(d: dict[str, Any]) -> tuple[int, int]:
    """`ResolveFenceposts`: (maxSurge, maxUnavailable); both zero ⇒ maxUnavailable 1."""
    ru = ((d["spec"].get("strategy") or {}).get("rollingUpdate")) or {}
    want = _replicas(d)
    surge = _scaled(ru.get("maxSurge", "25%"), want, True)
    unavailable = _scaled(ru.get("maxUnavailable", "25%"), want, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def _rolling(d: dict[str, Any]) -> bool:
    return (d["spec"].get("strategy") or {}).get("type", "RollingUpdate") == "RollingUpdate"


def max_surge(d: dict[str, Any]) -> int:
    """`deploymentutil.MaxSurge`: 0 unless RollingUpdate."""
    return fenceposts(d)[0] if _rolling(d) else 0


def max_unavailable(d: dict[str, Any]) -> int:
    """`deploymentutil.MaxUnavailable`."""
    if not _rolling(d) or _replicas(d) == 0:
        return 0
    return min(fenceposts(d)[1], _replicas(d))


def _revision(rs: dict[str, Any]) -> int:
    try:
        return int((rs["metadata"].get("annotations") or {}).get(REVISION, "0"))
    except ValueError:
        return 0


def new_rs_annotations(d: dict[str, Any], current: dict[str, str], revision: str) -> dict[str, str]:
    """`SetNewReplicaSetAnnotations` for the existing new ReplicaSet: the Deployment's annotations copied
    (`kubernetes.io/change-cause` among them), the revision raised to `revision`, and, when it is raised (a
    rollback to this template), the old revision appended to `revision-history` (at most 2,000 characters,
    the oldest dropped first)."""
    out = dict(current)
    for k, v in (d["metadata"].get("annotations") or {}).items():  # copyDeploymentAnnotationsToReplicaSet
        if k not in SKIP_COPY:
            out[k] = v
    old = current.get(REVISION)
    try:
        old_int = int(old) if old is not None else 0
    except ValueError:
        if old:
            return current
        old_int = 0
    if old_int < int(revision):
        out[REVISION] = revision
        if old is not None:
            history = current.get(HISTORY, "")
            olds = history.split(",")
            if not olds[0]:
                out[HISTORY] = old
            else:
                total, start = len(history) + len(old) + 1, 0
                while total > MAX_HISTORY_CHARS and start < len(olds):
                    total -= len(olds[start]) + 1
                    start += 1
                if total <= MAX_HISTORY_CHARS:
                    out[HISTORY] = ",".join(olds[start:] + [old])
    return out


def _template_without_hash(template: dict[str, Any]) -> dict[str, Any]:
    t = copy.deepcopy(template)
    labels = (t.get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        labels.pop(HASH_LABEL, None)
    return t


def _status_replicas(rss: list[dict[str, Any]], key: str) -> int:
    return sum(int((rs.get("status") or {}).get(key, 0) or 0) for rs in rss)


def _condition(type_: str, status: str, reason: str, message: str) -> dict[str, Any]:
    t = now()
    return {"type": type_, "status": status, "lastUpdateTime": t, "lastTransitionTime": t, "reason": reason,
            "message": message}


class DeploymentController(WorkloadController):
    name = "deployment controller"
    plural = "deployments"
    owned = "apps/replicasets"
    owner_kind = "Deployment"
    component = "deployment-controller"
    service_account = "deployment-controller"
    adopts = True

    @property
    def replicasets(self) -> Any:
        return self.owned_store()

    def sync(self, ns: str, name: str) -> None:
        d = self.get(ns, name)
        if d is None:
            return
        rss = self.claim(self.replicasets, d)
        if d["metadata"].get("deletionTimestamp"):
            return self.sync_status_only(d, rss)
        if d["spec"].get("paused"):
            return self.sync_paused(d, rss)
        rss, scaling = self.is_scaling_event(d, rss)
        if scaling:
            return self.sync_scaling(d, rss)
        if _rolling(d):
            self.rollout_rolling(d, rss)
        else:
            self.rollout_recreate(d, rss)

    # ---- the new ReplicaSet ------------------------------------------------------------------------
    def find_new(self, d: dict[str, Any], rss: list[dict[str, Any]]) -> dict[str, Any] | None:
        """`FindNewReplicaSet`: the oldest whose template equals the Deployment's, ignoring the hash label."""
        want = _template_without_hash(d["spec"]["template"])
        same = [rs for rs in rss if _template_without_hash(rs["spec"].get("template") or {}) == want]
        same.sort(key=lambda rs: (rs["metadata"].get("creationTimestamp") or "", rs["metadata"]["name"]))
        return same[0] if same else None

    def new_replicas(self, d: dict[str, Any], old: list[dict[str, Any]], new: dict[str, Any] | None) -> int:
        """`NewRSNewReplicas`."""
        want = _replicas(d)
        if not _rolling(d):
            return want
        current = sum(_replicas(rs) for rs in old) + (_replicas(new) if new else 0)
        surge, _ = fenceposts(d)
        max_total = want + surge
        if current >= max_total:
            return _replicas(new) if new else 0
        up = max_total - current
        return (_replicas(new) if new else 0) + min(up, max(0, want - (_replicas(new) if new else 0)))

    def get_new(self, d: dict[str, Any], rss: list[dict[str, Any]], create: bool) -> dict[str, Any] | None:
        """`getNewReplicaSet` + `SetDeploymentRevision`: find (and annotate) or create the new ReplicaSet,
        setting the Deployment's revision and Progressing condition."""
        new = self.find_new(d, rss)
        old = [rs for rs in rss if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]]
        max_old = max((_revision(rs) for rs in old), default=0)
        revision = str(max_old + 1)
        status = copy.deepcopy(d.get("status") or {})
        conditions = status.get("conditions") or []
        if new is not None:
            current = new["metadata"].get("annotations") or {}
            wanted = new_rs_annotations(d, current, revision)
            if wanted != current:
                new = self._annotate(new, wanted)
            if d["spec"].get("progressDeadlineSeconds") is not None and \
                    not any(c.get("type") == "Progressing" for c in conditions):
                status["conditions"] = set_condition(conditions, _condition(
                    "Progressing", "True", "FoundNewReplicaSet", f'Found new replica set "{new["metadata"]["name"]}"'))
            self._sync_revision(d, status, (new["metadata"].get("annotations") or {}).get(REVISION, revision))
            return new
        if not create:
            return None
        collisions = (d.get("status") or {}).get("collisionCount")  # None: a nil pointer, not hashed
        template = copy.deepcopy(d["spec"]["template"])
        h = compute_hash(template, collisions)
        tmeta = template.setdefault("metadata", {})
        tmeta["labels"] = {**(tmeta.get("labels") or {}), HASH_LABEL: h}
        selector = copy.deepcopy(d["spec"].get("selector") or {})
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}), HASH_LABEL: h}
        surge = fenceposts(d)[0] if _rolling(d) else 0
        replicas = self.new_replicas(d, old, None)
        annotations = {k: v for k, v in (d["metadata"].get("annotations") or {}).items() if k not in SKIP_COPY}
        annotations.update({REVISION: revision, DESIRED: str(_replicas(d)), MAX: str(_replicas(d) + surge)})
        body = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
            "name": f'{d["metadata"]["name"]}-{h}', "namespace": d["metadata"]["namespace"],
            "labels": dict(tmeta["labels"]), "annotations": annotations, "ownerReferences": [owner_reference(d)]},
            "spec": {"replicas": replicas, "minReadySeconds": d["spec"].get("minReadySeconds", 0),
                     "selector": selector, "template": template}}
        try:
            created = self.create(self.replicasets, body)
        except E.StatusError as exc:
            if exc.code != 409 and not is_terminating_refusal(exc):  # sync.go `getNewReplicaSet`'s other errors
                msg = f'Failed to create new replica set "{body["metadata"]["name"]}": {exc.message}'
                if d["spec"].get("progressDeadlineSeconds") is not None:
                    status["conditions"] = set_condition(conditions, _condition(
                        "Progressing", "False", "ReplicaSetCreateError", msg))
                    try:
                        self.write_status(d, status)
                    except E.StatusError:
                        pass  # "we don't really care about this error at this point"
                self.recorder.event(d, WARNING, "ReplicaSetCreateError", msg)
            if exc.code != 409:
                raise
            # `name` taken by another template: count the collision and try another hash on the next sync
            status["collisionCount"] = int(collisions or 0) + 1
            self.write_status(d, status)
            return None
        if replicas > 0:
            self.recorder.event(d, NORMAL, "ScalingReplicaSet",
                                f'Scaled up replica set {created["metadata"]["name"]} from 0 to {replicas}')
        if d["spec"].get("progressDeadlineSeconds") is not None:
            status["conditions"] = set_condition(conditions, _condition(
                "Progressing", "True", "NewReplicaSetCreated", f'Created new replica set "{created["metadata"]["name"]}"'))
        self._sync_revision(d, status, revision)
        return created

    def _sync_revision(self, d: dict[str, Any], status: dict[str, Any], revision: str) -> None:
        ann = d["metadata"].get("annotations") or {}
        if ann.get(REVISION) != revision or status != (d.get("status") or {}):
            self.write_status(d, status, {REVISION: revision})
            d.update(self.get(d["metadata"]["namespace"], d["metadata"]["name"]) or d)

    def _annotate(self, rs: dict[str, Any], annotations: dict[str, str],
                  replicas: int | None = None) -> dict[str, Any]:
        def change(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            new["metadata"]["resourceVersion"] = rs["metadata"].get("resourceVersion")
            new["metadata"]["annotations"] = {**(cur["metadata"].get("annotations") or {}), **annotations}
            if replicas is not None:
                new["spec"]["replicas"] = replicas
            return new
        return self.writes.update(self.replicasets, rs["metadata"]["namespace"], rs["metadata"]["name"],
                                  transform=change, field_manager=KCM)

    def scale(self, d: dict[str, Any], rs: dict[str, Any], replicas: int) -> dict[str, Any]:
        """`scaleReplicaSet`: replicas and the desired/max-replicas annotations (`SetReplicasAnnotations`), and
        the event ("up" or "down" from the two sizes)."""
        want, surge = _replicas(d), max_surge(d)
        if _replicas(rs) == replicas and not proportional.annotations_need_update(rs, want, want + surge):
            return rs
        old = _replicas(rs)
        out = self._annotate(rs, {DESIRED: str(want), MAX: str(want + surge)}, replicas)
        if old != replicas:
            self.recorder.event(d, NORMAL, "ScalingReplicaSet", f'Scaled {"up" if old < replicas else "down"} '
                                f'replica set {out["metadata"]["name"]} from {old} to {replicas}')
        return out

    # ---- scaling events (sync.go `sync`, `scale`, `isScalingEvent`) ------------------------------------
    def is_scaling_event(self, d: dict[str, Any],
                         rss: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
        """`isScalingEvent`: an active ReplicaSet annotated with other desired replicas than the Deployment's.
        The new ReplicaSet's annotations and the revision are synced first (`getAllReplicaSetsAndSyncRevision`),
        so the ReplicaSets are returned as they now are."""
        new = self.get_new(d, rss, create=False)
        rss = [new if new is not None and rs["metadata"]["uid"] == new["metadata"]["uid"] else rs for rs in rss]
        for rs in proportional.active(rss):
            desired = proportional.int32_annotation(rs, DESIRED)
            if desired is not None and desired != _replicas(d):
                return rss, True
        return rss, False

    def sync_scaling(self, d: dict[str, Any], rss: list[dict[str, Any]]) -> None:
        """`sync` for a scaling event: `scale`, then only the status (`syncDeploymentStatus`)."""
        new = self.find_new(d, rss)
        old = [rs for rs in rss if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]]
        rss = self.proportional_scale(d, new, old)
        new = next((rs for rs in rss if new is not None and rs["metadata"]["uid"] == new["metadata"]["uid"]), None)
        self.write_status(d, self.calculate_status(d, rss, new))

    def proportional_scale(self, d: dict[str, Any], new: dict[str, Any] | None,
                           old: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`scale`: returns every ReplicaSet (new and old) as written."""
        want = _replicas(d)
        by_uid = {rs["metadata"]["uid"]: rs for rs in old + ([new] if new else [])}
        only = proportional.find_active_or_latest(new, old)
        if only is not None:
            if _replicas(only) != want:
                by_uid[only["metadata"]["uid"]] = self.scale(d, only, want)
        elif proportional.is_saturated(want, new):
            for rs in proportional.active(old):
                by_uid[rs["metadata"]["uid"]] = self.scale(d, rs, 0)
        elif _rolling(d):
            status_replicas = int((d.get("status") or {}).get("replicas", 0) or 0)
            for rs, size in proportional.plan(want, max_surge(d), status_replicas, list(by_uid.values())):
                by_uid[rs["metadata"]["uid"]] = self.scale(d, rs, size)
        return list(by_uid.values())

    # ---- strategies --------------------------------------------------------------------------------
    def rollout_rolling(self, d: dict[str, Any], rss: list[dict[str, Any]]) -> None:
        new = self.get_new(d, rss, create=True)
        if new is None:  # the name was taken (collisionCount counted): the next sync tries another hash
            return
        old = [rs for rs in rss if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]]
        if new is not None:  # reconcileNewReplicaSet
            want = _replicas(d)
            if _replicas(new) > want:
                new = self.scale(d, new, want)
            elif _replicas(new) < want:
                new = self.scale(d, new, self.new_replicas(d, old, new))
            else:
                new = self.scale(d, new, want)
        old = self.reconcile_old(d, old, new)
        if self._complete(d, d.get("status") or {}):
            self.cleanup(d, old)
        self.sync_rollout_status(d, old + ([new] if new else []), new)

    def cleanup(self, d: dict[str, Any], old: list[dict[str, Any]]) -> None:
        """`cleanupDeployment`: beyond `revisionHistoryLimit` (default 10), delete the oldest revisions among
        the old ReplicaSets that are scaled to zero, have no pod left and whose status is current."""
        limit = d["spec"].get("revisionHistoryLimit")
        if limit is None:
            return
        alive = [rs for rs in old if not rs["metadata"].get("deletionTimestamp")]
        diff = len(alive) - int(limit)
        if diff <= 0:
            return
        alive.sort(key=lambda rs: (_revision(rs), rs["metadata"].get("creationTimestamp") or "", rs["metadata"]["name"]))
        for rs in alive[:diff]:
            status = rs.get("status") or {}
            if status.get("replicas", 0) or _replicas(rs) or \
                    rs["metadata"].get("generation", 0) > status.get("observedGeneration", 0):
                continue
            try:
                self.writes.delete(self.replicasets, rs["metadata"]["namespace"], rs["metadata"]["name"], DeleteOptions())
            except E.StatusError as exc:
                if exc.code != 404:
                    raise

    def reconcile_old(self, d: dict[str, Any], old: list[dict[str, Any]],
                      new: dict[str, Any] | None) -> list[dict[str, Any]]:
        """`reconcileOldReplicaSets` → `cleanupUnhealthyReplicas`: scale down, oldest first, the unavailable
        replicas of old ReplicaSets within what maxUnavailable allows."""
        if sum(_replicas(rs) for rs in old) == 0:
            return old
        all_pods = sum(_replicas(rs) for rs in old) + (_replicas(new) if new else 0)
        min_available = _replicas(d) - max_unavailable(d)
        new_unavailable = (_replicas(new) - int((new.get("status") or {}).get("availableReplicas", 0) or 0)) \
            if new else 0
        budget = all_pods - min_available - new_unavailable
        if budget <= 0:
            return old
        out = []
        for rs in sorted(old, key=lambda r: r["metadata"].get("creationTimestamp") or ""):
            if budget <= 0 or _replicas(rs) == 0:
                out.append(rs)
                continue
            available = int((rs.get("status") or {}).get("availableReplicas", 0) or 0)
            if _replicas(rs) == available:  # healthy: `scaleDownOldReplicaSetsForRollingUpdate` would need
                out.append(rs)               # available pods above minAvailable, which never happens here
                continue
            down = min(budget, _replicas(rs) - available)
            budget -= down
            out.append(self.scale(d, rs, _replicas(rs) - down))
        return out

    def rollout_recreate(self, d: dict[str, Any], rss: list[dict[str, Any]]) -> None:
        new = self.get_new(d, rss, create=False)
        old = [rs for rs in rss if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]]
        active_old = [rs for rs in old if _replicas(rs) > 0]
        if active_old:  # scaleDownOldReplicaSetsForRecreate
            old = [self.scale(d, rs, 0) if _replicas(rs) > 0 else rs for rs in old]
            return self.sync_rollout_status(d, old + ([new] if new else []), new)
        if any(int((rs.get("status") or {}).get("replicas", 0) or 0) for rs in old):  # oldPodsRunning
            return self.sync_rollout_status(d, old + ([new] if new else []), new)
        if new is None:
            new = self.get_new(d, rss, create=True)
        if new is not None and _replicas(new) != _replicas(d):
            new = self.scale(d, new, _replicas(d))
        if self._complete(d, d.get("status") or {}):
            self.cleanup(d, old)
        self.sync_rollout_status(d, old + ([new] if new else []), new)

    def sync_paused(self, d: dict[str, Any], rss: list[dict[str, Any]]) -> None:
        """`checkPausedConditions` + `sync`: a paused Deployment is still scaled (proportionally)."""
        new = self.get_new(d, rss, create=False)
        old = [rs for rs in rss if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]]
        rss = self.proportional_scale(d, new, old)
        new = next((rs for rs in rss if new is not None and rs["metadata"]["uid"] == new["metadata"]["uid"]), None)
        self.cleanup(d, [rs for rs in rss if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]])
        status = self.calculate_status(d, rss, new)
        if d["spec"].get("progressDeadlineSeconds") is not None:
            cond = next((c for c in status.get("conditions", []) if c.get("type") == "Progressing"), None)
            if cond is None or cond.get("reason") != "DeploymentPaused":
                status["conditions"] = set_condition(status.get("conditions", []), _condition(
                    "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused"))
        self.write_status(d, status)

    def sync_status_only(self, d: dict[str, Any], rss: list[dict[str, Any]]) -> None:
        new = self.find_new(d, rss)
        self.write_status(d, self.calculate_status(d, rss, new))

    # ---- status ------------------------------------------------------------------------------------
    def calculate_status(self, d: dict[str, Any], rss: list[dict[str, Any]],
                         new: dict[str, Any] | None) -> dict[str, Any]:
        """`calculateStatus` (zero counts omitted, as Go's `omitempty`)."""
        old_status = d.get("status") or {}
        available = _status_replicas(rss, "availableReplicas")
        total = sum(_replicas(rs) for rs in rss)
        status: dict[str, Any] = {}
        for key, value in (("observedGeneration", d["metadata"].get("generation", 0)),
                           ("replicas", _status_replicas(rss, "replicas")),
                           ("updatedReplicas", _status_replicas([new], "replicas") if new else 0),
                           ("readyReplicas", _status_replicas(rss, "readyReplicas")),
                           ("availableReplicas", available),
                           ("unavailableReplicas", max(total - available, 0))):
            if value:
                status[key] = value
        conditions = [c for c in old_status.get("conditions") or [] if isinstance(c, dict)]
        if available >= _replicas(d) - max_unavailable(d):
            cond = _condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
        else:
            cond = _condition("Available", "False", "MinimumReplicasUnavailable",
                              "Deployment does not have minimum availability.")
        status["conditions"] = set_condition(conditions, cond)
        if old_status.get("collisionCount") is not None:
            status["collisionCount"] = old_status["collisionCount"]
        return status

    def sync_rollout_status(self, d: dict[str, Any], rss: list[dict[str, Any]], new: dict[str, Any] | None) -> None:
        """`syncRolloutStatus` (progress.go)."""
        status = self.calculate_status(d, rss, new)
        deadline = d["spec"].get("progressDeadlineSeconds")
        if deadline is not None:
            conditions = status["conditions"]
            current = next((c for c in conditions if c.get("type") == "Progressing"), None)
            new_name = new["metadata"]["name"] if new else None
            if self._complete(d, status):
                msg = f'ReplicaSet "{new_name}" has successfully progressed.' if new_name else \
                    f'Deployment "{d["metadata"]["name"]}" has successfully progressed.'
                status["conditions"] = set_condition(conditions, _condition("Progressing", "True",
                                                                            "NewReplicaSetAvailable", msg))
            elif self._progressing(d, status):
                msg = f'ReplicaSet "{new_name}" is progressing.' if new_name else \
                    f'Deployment "{d["metadata"]["name"]}" is progressing.'
                cond = _condition("Progressing", "True", "ReplicaSetUpdated", msg)
                if current is not None and current.get("status") == "True":
                    cond["lastTransitionTime"] = current["lastTransitionTime"]
                status["conditions"] = [c for c in conditions if c.get("type") != "Progressing"] + [cond]
            elif self._timed_out(d, current):
                msg = f'ReplicaSet "{new_name}" has timed out progressing.' if new_name else \
                    f'Deployment "{d["metadata"]["name"]}" has timed out progressing.'
                status["conditions"] = set_condition(conditions, _condition("Progressing", "False",
                                                                            "ProgressDeadlineExceeded", msg))
        self.write_status(d, status)
        self._requeue_stuck(d, status)

    @staticmethod
    def _complete(d: dict[str, Any], status: dict[str, Any]) -> bool:
        """`DeploymentComplete`."""
        want = _replicas(d)
        return status.get("updatedReplicas", 0) == want and status.get("replicas", 0) == want \
            and status.get("availableReplicas", 0) == want \
            and status.get("observedGeneration", 0) >= d["metadata"].get("generation", 0)

    @staticmethod
    def _progressing(d: dict[str, Any], status: dict[str, Any]) -> bool:
        """`DeploymentProgressing`: any count moved the right way since the last status."""
        old = d.get("status") or {}
        old_old = old.get("replicas", 0) - old.get("updatedReplicas", 0)
        new_old = status.get("replicas", 0) - status.get("updatedReplicas", 0)
        return status.get("updatedReplicas", 0) > old.get("updatedReplicas", 0) or new_old < old_old \
            or status.get("readyReplicas", 0) > old.get("readyReplicas", 0) \
            or status.get("availableReplicas", 0) > old.get("availableReplicas", 0)

    @staticmethod
    def _timed_out(d: dict[str, Any], current: dict[str, Any] | None) -> bool:
        """`DeploymentTimedOut`."""
        if current is None or current.get("reason") == "NewReplicaSetAvailable":
            return False
        if current.get("reason") == "ProgressDeadlineExceeded":
            return True
        try:
            since = parse_time(current["lastUpdateTime"])
        except (KeyError, ValueError):
            return False
        return (utcnow() - since).total_seconds() > int(d["spec"]["progressDeadlineSeconds"])

    def _requeue_stuck(self, d: dict[str, Any], status: dict[str, Any]) -> None:
        """`requeueStuckDeployment`: look again when the progress deadline passes."""
        deadline = d["spec"].get("progressDeadlineSeconds")
        cond = next((c for c in status.get("conditions", []) if c.get("type") == "Progressing"), None)
        if deadline is None or cond is None or self._complete(d, status) or \
                cond.get("reason") in ("ProgressDeadlineExceeded", "NewReplicaSetAvailable"):
            return
        try:
            since = parse_time(cond["lastUpdateTime"])
        except (KeyError, ValueError):
            return
        after = int(deadline) - (utcnow() - since).total_seconds()
        self.requeue_after((d["metadata"]["namespace"], d["metadata"]["name"]), max(after, 0) + 1)
