"""The DaemonSet controller (`pkg/controller/daemon/daemon_controller.go`) on a cluster without nodes: no
node wants a daemon pod, so nothing is made and the status (`updateDaemonSetStatus`) is zeros with the
`observedGeneration` that tells `kubectl rollout status` the controller has seen the spec. Nodes created
through the API (this server has no kubelet) are not scheduled to.

Its history is kept all the same (`pkg/controller/daemon/update.go`; `history.py`): `constructHistory` claims
the ControllerRevisions (adopting orphans that match the selector, releasing its own that no longer do), finds
the one whose data is the template's patch (`Match`), or makes it (`snapshot`: `<ds>-<hash>` with the
template's labels plus `controller-revision-hash`, the DaemonSet's annotations, revision max old + 1; a name
taken by other data bumps `status.collisionCount`), renumbers it when older ones are newer, deletes duplicates
(`dedupCurHistories`) and, beyond `revisionHistoryLimit`, the oldest ones no live pod is labelled with
(`cleanupHistory`).

Its pods (`getDaemonPods` → `ClaimPods`): orphans matching the selector are adopted (controller reference,
`blockOwnerDeletion`), its own that stop matching released. Each claimed pod is placed on its target node
(`GetTargetNodeName`: `spec.nodeName`, else the single value of a `matchFields` `metadata.name In` term of the
required node affinity); a pod with none is kept and left alone, a terminal pod being deleted is skipped.
`manage` deletes the pods whose target node does not exist and that are not bound (`getUnscheduledPodsWithoutNode`,
events `SuccessfulDelete`); a sync that deleted some skips the rolling update (upstream: expectations not yet
satisfied). `rollingUpdate` without surge deletes, on every target node, an out-of-date pod (neither the current
revision's `controller-revision-hash` nor the `pod-template-generation` of the DaemonSet's
`deprecated.daemonset.template.generation`) that is not available, and up to `maxUnavailable` minus the
unavailable count of the available ones (`desiredNumberScheduled` is 0 here: no node is scheduled to, so a
percentage is 0). Not modelled: the surge path (`maxSurge` > 0, where upstream reads each target node and fails
the sync for one that does not exist) and `podsShouldBeOnNode` for nodes created through the API (their pods are
left alone).
"""
from __future__ import annotations

import copy
import datetime as _dt
import math
from typing import Any

from ... import apierrors as E
from ...registry import ListOptions
from ...registry.workloads import TEMPLATE_GENERATION
from .common import KCM, WorkloadController, owner_reference, parse_time, utcnow
from .history import History, go_json, sort_revisions, template_patch
from .templatehash import compute_hash

UNIQUE_LABEL = "controller-revision-hash"  # apps.DefaultDaemonSetUniqueLabelKey


class DaemonSetController(WorkloadController):
    name = "daemonset controller"
    plural = "daemonsets"
    owner_kind = "DaemonSet"
    component = "daemonset-controller"
    service_account = "daemon-set-controller"
    revisions_owned = True
    adopts = True  # getDaemonPods → ClaimPods (every pod of the namespace, no activity filter)

    def sync(self, ns: str, name: str) -> None:
        ds = self.get(ns, name)
        if ds is None or ds["metadata"].get("deletionTimestamp"):
            return
        hash_, old = self.construct_history(ds)
        if self.manage(ds) == 0 and ((ds["spec"].get("updateStrategy") or {}).get("type") == "RollingUpdate"):
            self.rolling_update(ds, hash_)
        self.cleanup_history(ds, old)
        status: dict[str, Any] = {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
                                  "numberReady": 0, "observedGeneration": ds["metadata"].get("generation", 0)}
        collisions = (ds.get("status") or {}).get("collisionCount")
        if collisions is not None:
            status["collisionCount"] = collisions
        self.write_status(ds, status)

    def history(self) -> History:
        return History(self.registry.group("apps", "controllerrevisions"), self.create, self.writes)  # type: ignore[arg-type]

    def construct_history(self, ds: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        """`constructHistory`; returns the current revision's hash label and the old revisions."""
        history = self.history()
        store = history.store
        patch = go_json(template_patch(ds))
        current: list[dict[str, Any]] = []
        old: list[dict[str, Any]] = []
        for rev in self.claim(store, ds, adopt=True):
            if UNIQUE_LABEL not in (rev["metadata"].get("labels") or {}):
                rev = self._label(store, rev)
            (current if go_json(rev.get("data")) == patch else old).append(rev)
        number = max((int(r.get("revision", 0)) for r in old), default=0) + 1
        if not current:
            made = self.snapshot(ds, number)
            return (made["metadata"].get("labels") or {}).get(UNIQUE_LABEL, ""), old
        keep = self.dedup(ds, current)
        if int(keep.get("revision", 0)) < number:
            history.update_revision(keep, number)
        return (keep["metadata"].get("labels") or {}).get(UNIQUE_LABEL, ""), old

    def _label(self, store: Any, rev: dict[str, Any]) -> dict[str, Any]:
        """The unique label added to a revision without it (its name, not a hash: no collision to fear)."""
        meta = rev["metadata"]

        def change(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            new["metadata"]["labels"] = {**(cur["metadata"].get("labels") or {}), UNIQUE_LABEL: meta["name"]}
            return new
        return self.writes.update(store, meta["namespace"], meta["name"], transform=change, field_manager=KCM)

    def dedup(self, ds: dict[str, Any], current: list[dict[str, Any]]) -> dict[str, Any]:
        """`dedupCurHistories`: the highest revision kept, its pods relabelled with its hash, the others
        deleted."""
        keep = current[0]
        if len(current) == 1:
            return keep
        for rev in current:
            if int(rev.get("revision", 0)) >= int(keep.get("revision", 0)):
                keep = rev
        want = (keep["metadata"].get("labels") or {}).get(UNIQUE_LABEL)
        for pod in self.claim(self.pods, ds):
            if (pod["metadata"].get("labels") or {}).get(UNIQUE_LABEL) != want:
                self._relabel(pod, want)
        for rev in current:
            if rev["metadata"]["name"] != keep["metadata"]["name"]:
                self.history().delete(rev)
        return keep

    def snapshot(self, ds: dict[str, Any], number: int) -> dict[str, Any]:
        """`snapshot`: the revision `<ds>-<ComputeHash(template, collisionCount)>`; on a name taken by other
        data, `status.collisionCount` + 1 (unless ours was stale) and the sync is tried again."""
        meta = ds["metadata"]
        collisions = (ds.get("status") or {}).get("collisionCount")
        hash_ = compute_hash(ds["spec"].get("template") or {}, collisions)
        template_labels = ((ds["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {}
        rev: dict[str, Any] = {
            "apiVersion": "apps/v1", "kind": "ControllerRevision",
            "metadata": {"name": f"{meta['name']}-{hash_}", "namespace": meta["namespace"],
                         "labels": {**template_labels, UNIQUE_LABEL: hash_},
                         "ownerReferences": [owner_reference(ds)]},
            "data": template_patch(ds), "revision": number}
        if meta.get("annotations"):
            rev["metadata"]["annotations"] = dict(meta["annotations"])
        history = self.history()
        try:
            return self.create(history.store, rev)
        except E.StatusError as exc:
            if exc.reason != "AlreadyExists":
                raise
            existing = history.store.get(meta["namespace"], rev["metadata"]["name"])
            if go_json(existing.get("data")) == go_json(rev["data"]):
                return existing
            fresh = self.get(meta["namespace"], meta["name"])
            if fresh is None or (fresh.get("status") or {}).get("collisionCount") != collisions:
                raise  # a stale collision count: the next sync computes the hash again
            status = {**(fresh.get("status") or {}), "collisionCount": int(collisions or 0) + 1}
            self.write_status(fresh, status)
            raise

    def cleanup_history(self, ds: dict[str, Any], old: list[dict[str, Any]]) -> None:
        """`cleanupHistory`: old revisions beyond `revisionHistoryLimit`, oldest first, except those a live
        pod's `controller-revision-hash` names (deleted terminal pods included)."""
        limit = ds["spec"].get("revisionHistoryLimit")
        limit = 10 if not isinstance(limit, int) else limit
        extra = len(old) - limit
        if extra <= 0:
            return
        live = {(p["metadata"].get("labels") or {}).get(UNIQUE_LABEL)
                for pods in self.nodes_to_pods(ds, include_deleted_terminal=True).values() for p in pods}
        live.discard(None)
        live.discard("")
        history = self.history()
        for rev in sort_revisions(old):
            if extra <= 0:
                break
            if (rev["metadata"].get("labels") or {}).get(UNIQUE_LABEL) in live:
                continue
            history.delete(rev)
            extra -= 1

    # ---- pods (`getNodesToDaemonPods`, `manage`, `rollingUpdate`) ------------------------------------
    def _relabel(self, pod: dict[str, Any], hash_: str | None) -> None:
        meta = pod["metadata"]

        def change(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            new["metadata"]["labels"] = {**(cur["metadata"].get("labels") or {}), UNIQUE_LABEL: hash_}
            return new
        try:
            self.writes.update(self.pods, meta["namespace"], meta["name"], transform=change, field_manager=KCM)
        except E.StatusError as exc:
            if exc.code != 404:
                raise

    def nodes_to_pods(self, ds: dict[str, Any], include_deleted_terminal: bool = False
                      ) -> dict[str, list[dict[str, Any]]]:
        """`getNodesToDaemonPods`: the claimed pods by target node; a pod without one is left out (kept)."""
        out: dict[str, list[dict[str, Any]]] = {}
        for pod in self.claim(self.pods, ds):
            if not include_deleted_terminal and is_terminal(pod) and pod["metadata"].get("deletionTimestamp"):
                continue
            node = target_node_name(pod)
            if node:
                out.setdefault(node, []).append(pod)
        return out

    def node_names(self) -> set[str]:
        nodes = self.registry.cluster("nodes")
        if nodes is None:
            return set()
        return {n["metadata"]["name"] for n in nodes.list(None, ListOptions(), shared=True)["items"]}

    def manage(self, ds: dict[str, Any]) -> int:
        """`manage` on a cluster whose nodes no daemon pod is made for: the unbound pods of nodes that do not
        exist are deleted (`getUnscheduledPodsWithoutNode`); returns how many deletions were asked."""
        nodes = self.node_names()
        doomed = [p for node, pods in self.nodes_to_pods(ds).items() if node not in nodes
                  for p in pods if not (p.get("spec") or {}).get("nodeName")]
        for pod in doomed:
            self.delete_pod(pod, ds)
        return len(doomed)

    def rolling_update(self, ds: dict[str, Any], hash_: str) -> None:
        """`rollingUpdate` without surge (`maxSurge` 0, the default): out-of-date pods that are not available
        are replaced (deleted; the manage loop would make the new one on a real node), available ones within
        `maxUnavailable`."""
        rolling = (ds["spec"].get("updateStrategy") or {}).get("rollingUpdate") or {}
        if scaled(rolling.get("maxSurge"), 0) > 0:
            return  # the surge path reads each target Node (not modelled)
        max_unavailable = scaled(rolling.get("maxUnavailable"), 0)
        generation = template_generation(ds)
        min_ready = int(ds["spec"].get("minReadySeconds") or 0)
        now = utcnow()
        unavailable, allowed, candidates = 0, [], []
        for pods in self.nodes_to_pods(ds).values():
            found = updated_pods_on_node(pods, hash_, generation)
            if found is None:
                unavailable += 1
                continue
            new, old = found
            if (new is None) == (old is None):
                unavailable += 1
            elif new is not None:
                if not is_available(new, min_ready, now):
                    unavailable += 1
            elif not is_available(old, min_ready, now):
                allowed.append(old)
                unavailable += 1
            elif unavailable < max_unavailable:
                candidates.append(old)
        remaining = min(max(max_unavailable - unavailable, 0), len(candidates))
        for pod in allowed + candidates[:remaining]:
            self.delete_pod(pod, ds)


POD_TEMPLATE_GENERATION = "pod-template-generation"  # extensions.DaemonSetTemplateGenerationKey


def is_terminal(pod: dict[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def target_node_name(pod: dict[str, Any]) -> str:
    """`util.GetTargetNodeName`: `spec.nodeName`, else the one value of the first `matchFields`
    `metadata.name In` requirement of the required node affinity; "" when there is none (upstream: an error,
    logged, and the pod skipped)."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return str(spec["nodeName"])
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution")) or {}
    for term in required.get("nodeSelectorTerms") or ():
        for exp in (term or {}).get("matchFields") or ():
            if exp.get("key") == "metadata.name" and exp.get("operator") == "In":
                values = exp.get("values") or []
                return str(values[0]) if len(values) == 1 else ""
    return ""


def template_generation(ds: dict[str, Any]) -> int | None:
    """`util.GetTemplateGeneration`: the annotation as an int (None when absent or not a number)."""
    raw = (ds["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION)
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def is_updated(pod: dict[str, Any], hash_: str, generation: int | None) -> bool:
    """`util.IsPodUpdated`."""
    labels = pod["metadata"].get("labels") or {}
    return bool(hash_) and labels.get(UNIQUE_LABEL) == hash_ or \
        generation is not None and labels.get(POD_TEMPLATE_GENERATION) == str(generation)


def updated_pods_on_node(pods: list[dict[str, Any]], hash_: str, generation: int | None
                         ) -> tuple[dict[str, Any] | None, dict[str, Any] | None] | None:
    """`findUpdatedPodsOnNode`: (new, old) among the pods not being deleted; None when either is several."""
    new = old = None
    for pod in pods:
        if pod["metadata"].get("deletionTimestamp"):
            continue
        if is_updated(pod, hash_, generation):
            if new is not None:
                return None
            new = pod
        else:
            if old is not None:
                return None
            old = pod
    return new, old


def is_available(pod: dict[str, Any], min_ready: int, now: Any) -> bool:
    """`podutil.IsPodAvailable`: Ready, for at least `minReadySeconds`."""
    for c in (pod.get("status") or {}).get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True":
            if min_ready == 0:
                return True
            since = c.get("lastTransitionTime")
            return bool(since) and parse_time(since) + _dt.timedelta(seconds=min_ready) < now
    return False


def scaled(value: Any, total: int) -> int:
    """`intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true)` (absent: 0)."""
    if isinstance(value, bool) or value is None:
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.endswith("%"):
        try:
            return math.ceil(int(value[:-1]) * total / 100)
        except ValueError:
            return 0
    return 0
