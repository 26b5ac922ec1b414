"""The StatefulSet controller (`pkg/controller/statefulset/stateful_set_control.go`), where no pod is ever
Running and Ready.

Pods `<set>-<ordinal>` with the template's labels plus `controller-revision-hash` (`<set>-<hash>`),
`statefulset.kubernetes.io/pod-name` and `apps.kubernetes.io/pod-index`, hostname `<set>-<ordinal>` and
subdomain `spec.serviceName`. `OrderedReady` (the default) makes pod 0 and waits for it to be Running and
Ready, which it never is here, so it stops there; `Parallel` makes them all. Pods above `replicas` are
deleted, highest ordinal first (OrderedReady: only while no pod below is unhealthy, one at a time).
Revisions (`stateful_set_control.go` `getStatefulSetRevisions`, `stateful_set_utils.go` `newRevision`,
`history.py`): each template is a ControllerRevision `<set>-<hash>` (revision 1, 2, ...; a template put back
renumbers its old revision), the update revision; the current revision stays `status.currentRevision` until
every replica is updated and Ready (`completeRollingUpdate`), which no pod here ever is: after a template
change `currentRevision` and `updateRevision` differ for good while the set has replicas. `OrderedReady`
never reaches the rolling update (pod 0 is not Ready); a `Parallel` set replaces its highest replica not at
the update revision, then waits for it. Old revisions beyond `revisionHistoryLimit` that no pod uses are
deleted (`truncateHistory`); orphan revisions matching the selector are adopted.
Status: replicas, currentReplicas/updatedReplicas, readyReplicas/availableReplicas 0, currentRevision and
updateRevision, collisionCount, observedGeneration.
Claims (`stateful_pod_control.go` `createPersistentVolumeClaims`, `stateful_set_utils.go`
`getPersistentVolumeClaims`/`updateStorage`): before each pod, every `volumeClaimTemplates` entry not yet there is
created as `<template>-<set>-<ordinal>` (the template's labels plus the selector's `matchLabels`; no owner
reference under the default `Retain` retention policy), with its `SuccessfulCreate` "create Claim ..." Event; the
pod mounts them as volumes named after the templates. Left out: the `Delete` retention policies' owner
references and the alpha `MaxUnavailableStatefulSet` rolling update.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

from ... import apierrors as E
from ..events import NORMAL, WARNING
from .common import WorkloadController, controller_of, counts, is_ready, owner_reference
from .history import (History, apply_revision, equal_revision, new_revision, next_revision, sort_revisions,
                      template_patch)

REVISION_LABEL = "controller-revision-hash"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


def _ordinal(pod: dict[str, Any], set_name: str) -> int | None:
    name = pod["metadata"]["name"]
    prefix, _, tail = name.rpartition("-")
    return int(tail) if prefix == set_name and tail.isdigit() else None


def claims_of(sts: dict[str, Any], ordinal: int) -> list[dict[str, Any]]:
    """`getPersistentVolumeClaims`: the set's claim templates for one ordinal (`template`: the template's name)."""
    out = []
    selector_labels = ((sts["spec"].get("selector") or {}).get("matchLabels")) or {}
    for t in sts["spec"].get("volumeClaimTemplates") or []:
        if not isinstance(t, dict):
            continue
        tmeta = t.get("metadata") if isinstance(t.get("metadata"), dict) else {}
        template_name = tmeta.get("name", "")
        meta = copy.deepcopy(tmeta)
        meta["name"] = f'{template_name}-{sts["metadata"]["name"]}-{ordinal}'
        meta["namespace"] = sts["metadata"]["namespace"]
        meta["labels"] = {**(meta.get("labels") or {}), **selector_labels}
        out.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
                    "spec": copy.deepcopy(t.get("spec") or {}), "template": template_name})
    return out


class StatefulSetController(WorkloadController):
    name = "statefulset controller"
    plural = "statefulsets"
    owner_kind = "StatefulSet"
    component = "statefulset-controller"
    service_account = "statefulset-controller"
    adopts = True
    revisions_owned = True

    def member(self, owner: dict[str, Any], obj: dict[str, Any]) -> bool:
        return _ordinal(obj, owner["metadata"]["name"]) is not None  # isMemberOf: `<set>-<ordinal>`

    def pod_event(self, owner: dict[str, Any], pod: dict[str, Any], error: Any, verb: str = "create") -> None:
        """`recordPodEvent`: `Successful<Verb>` "<verb> Pod <pod> in StatefulSet <set> successful", or
        `Failed<Verb>` "... failed error: <message>"."""
        pod_name, set_name = pod["metadata"].get("name", ""), owner["metadata"]["name"]
        if error is None:
            self.recorder.event(owner, NORMAL, f"Successful{verb.title()}",
                                f"{verb} Pod {pod_name} in StatefulSet {set_name} successful")
        else:
            self.recorder.event(owner, WARNING, f"Failed{verb.title()}",
                                f"{verb} Pod {pod_name} in StatefulSet {set_name} failed error: {error.message}")

    def create_pod(self, pod: dict[str, Any], owner: dict[str, Any] | None = None) -> dict[str, Any]:
        """`CreateStatefulPod`: the pod's claims first (a failure ends it, with a `FailedCreate` Event)."""
        if owner is not None:
            self.create_claims(owner, pod)
        return super().create_pod(pod, owner)

    def create_claims(self, sts: dict[str, Any], pod: dict[str, Any]) -> None:
        """`createPersistentVolumeClaims`: each claim the pod needs that does not exist yet."""
        store = self.registry.content("persistentvolumeclaims")
        ordinal = _ordinal(pod, sts["metadata"]["name"])
        if store is None or ordinal is None:
            return
        pod_name, set_name = pod["metadata"]["name"], sts["metadata"]["name"]
        for claim in claims_of(sts, ordinal):
            claim.pop("template")
            name = claim["metadata"]["name"]
            try:
                store.get(claim["metadata"]["namespace"], name)
                continue
            except E.StatusError as exc:
                if exc.code != 404:
                    raise
            try:
                self.create(store, claim)
            except E.StatusError as exc:
                self.recorder.event(sts, WARNING, "FailedCreate", f"create Claim {name} for Pod {pod_name} in "
                                    f"StatefulSet {set_name} failed error: {exc.message}")
                raise
            self.recorder.event(sts, NORMAL, "SuccessfulCreate",
                                f"create Claim {name} Pod {pod_name} in StatefulSet {set_name} success")

    def sync(self, ns: str, name: str) -> None:
        """`StatefulSetController.sync`: adopt orphan revisions, claim pods, then `UpdateStatefulSet`
        (revisions, pods, status) and `truncateHistory`."""
        sts = self.get(ns, name)
        if sts is None:
            return
        history = self.history()
        selector = sts["spec"].get("selector") or {}
        orphans = [r for r in history.list(sts, selector) if controller_of(r) is None]
        if orphans:  # `adoptOrphanRevisions`, after `RecheckDeletionTimestamp`
            fresh = self.get(ns, name)
            if fresh is None or fresh["metadata"]["uid"] != sts["metadata"]["uid"] \
                    or fresh["metadata"].get("deletionTimestamp"):
                return
            for r in orphans:
                history.adopt(sts, r)
        pods = {o: p for p in self.claim(self.pods, sts) if (o := _ordinal(p, name)) is not None}
        revisions = sort_revisions(history.list(sts, selector))
        current, update, collisions = self.revisions(sts, revisions)
        if not sts["metadata"].get("deletionTimestamp"):
            self.update_pods(sts, pods, current, update)
            pods = {o: p for p in self.controlled(self.pods, sts) if (o := _ordinal(p, name)) is not None}
        self.write_status(sts, self.status(sts, list(pods.values()), current, update, collisions))
        self.truncate_history(sts, list(pods.values()), revisions, current, update)

    def history(self) -> History:
        return History(self.registry.group("apps", "controllerrevisions"), self.create, self.writes)  # type: ignore[arg-type]

    def revisions(self, sts: dict[str, Any], revisions: list[dict[str, Any]]
                  ) -> tuple[dict[str, Any], dict[str, Any], int]:
        """`getStatefulSetRevisions`: the update revision is the set's template (the last revision when equal,
        an older equal one renumbered, else a new one); the current one is `status.currentRevision`'s, or the
        update revision when the history has none."""
        collisions = int((sts.get("status") or {}).get("collisionCount") or 0)
        history = self.history()
        update = new_revision(sts, ((sts["spec"].get("template") or {}).get("metadata") or {}).get("labels"),
                              template_patch(sts), next_revision(revisions), collisions)
        if sts["metadata"].get("annotations"):
            update["metadata"]["annotations"] = dict(sts["metadata"]["annotations"])
        equal = [r for r in revisions if equal_revision(r, update)]
        if equal and equal_revision(revisions[-1], equal[-1]):
            update = revisions[-1]
        elif equal:
            update = history.update_revision(equal[-1], update["revision"])
        else:
            update, collisions = history.create(sts, update, collisions)
        wanted = (sts.get("status") or {}).get("currentRevision")
        current = next((r for r in revisions if r["metadata"]["name"] == wanted), update)
        return current, update, collisions

    def status(self, sts: dict[str, Any], live: list[dict[str, Any]], current: dict[str, Any],
               update: dict[str, Any], collisions: int) -> dict[str, Any]:
        """`updateStatus` (`computeReplicaStatus`) and `completeRollingUpdate`: the current revision becomes the
        update revision only once every replica is updated and Ready (never, here, while there are replicas)."""
        def revision_is(rev: dict[str, Any]) -> Callable[[dict[str, Any]], bool]:
            return lambda p: not p["metadata"].get("deletionTimestamp") \
                and (p["metadata"].get("labels") or {}).get(REVISION_LABEL) == rev["metadata"]["name"]
        replicas, ready = len(live), counts(live, is_ready)
        current_n, updated_n = counts(live, revision_is(current)), counts(live, revision_is(update))
        current_name, update_name = current["metadata"]["name"], update["metadata"]["name"]
        if (sts["spec"].get("updateStrategy") or {}).get("type", "RollingUpdate") == "RollingUpdate" \
                and updated_n == replicas and ready == replicas:
            current_n, current_name = updated_n, update_name
        status: dict[str, Any] = {"observedGeneration": sts["metadata"].get("generation", 0),
                                  "replicas": replicas, "availableReplicas": 0}
        if ready:
            status["readyReplicas"] = ready
            status["availableReplicas"] = ready
        if current_n:
            status["currentReplicas"] = current_n
        if updated_n:
            status["updatedReplicas"] = updated_n
        status["currentRevision"] = current_name
        status["updateRevision"] = update_name
        status["collisionCount"] = collisions
        return status

    def truncate_history(self, sts: dict[str, Any], pods: list[dict[str, Any]], revisions: list[dict[str, Any]],
                         current: dict[str, Any], update: dict[str, Any]) -> None:
        """`truncateHistory`: revisions neither current, nor update, nor any pod's, beyond
        `revisionHistoryLimit`, oldest first."""
        live = {current["metadata"]["name"], update["metadata"]["name"]}
        live |= {(p["metadata"].get("labels") or {}).get(REVISION_LABEL) for p in pods}
        old = [r for r in revisions if r["metadata"]["name"] not in live]
        limit = sts["spec"].get("revisionHistoryLimit")
        limit = 10 if not isinstance(limit, int) else limit
        history = self.history()
        for r in old[:max(0, len(old) - limit)]:
            history.delete(r)

    def update_pods(self, sts: dict[str, Any], pods: dict[int, dict[str, Any]], current: dict[str, Any],
                    update: dict[str, Any]) -> None:
        """`updateStatefulSet`'s pod part: missing replicas made (each from the current or the update revision,
        `newVersionedStatefulSetPod`), condemned ones deleted, then the RollingUpdate: from the highest replica
        down to `partition`, the first not at the update revision is deleted (to be made again at it), and an
        unhealthy one ends the pass. `OrderedReady` stops at the first pod not Running and
        Ready (every pod, here), so only `Parallel` sets reach the rolling update."""
        spec = sts["spec"]
        replicas = int(spec.get("replicas", 1) or 0)
        parallel = spec.get("podManagementPolicy") == "Parallel"
        start = int(((spec.get("ordinals") or {}).get("start")) or 0)
        wanted = range(start, start + replicas)
        current_set, update_set = apply_revision(sts, current), apply_revision(sts, update)
        budget = self.capped((sts["metadata"]["namespace"], sts["metadata"]["name"]),
                             sum(1 for o in wanted if o not in pods))
        made: dict[int, dict[str, Any]] = {}
        for ordinal in wanted:
            pod = pods.get(ordinal)
            if pod is None:
                if budget == 0:
                    return
                budget -= 1
                made[ordinal] = self.create_pod(self.new_versioned_pod(sts, current_set, update_set, ordinal,
                                                                       current, update), sts)
                if not parallel:
                    return  # monotonic: wait for it to be Running and Ready (never, here)
            elif not parallel and (pod["metadata"].get("deletionTimestamp") or not is_ready(pod)):
                return
        for ordinal in sorted((o for o in pods if o not in wanted), reverse=True):
            self.delete_pod(pods[ordinal], sts)
            if not parallel:
                return
        strategy = spec.get("updateStrategy") or {}
        if strategy.get("type") == "OnDelete":
            return
        partition = int((strategy.get("rollingUpdate") or {}).get("partition") or 0)
        ordered = [pods.get(o) or made.get(o) for o in wanted]
        for index in range(len(ordered) - 1, partition - 1, -1):
            pod = ordered[index]
            if pod is None:
                return
            terminating = bool(pod["metadata"].get("deletionTimestamp"))
            if (pod["metadata"].get("labels") or {}).get(REVISION_LABEL) != update["metadata"]["name"] \
                    and not terminating:
                self.delete_pod(pod, sts)
                return
            if terminating or not is_ready(pod):
                return  # wait for unhealthy pods on update

    def new_versioned_pod(self, sts: dict[str, Any], current_set: dict[str, Any], update_set: dict[str, Any],
                          ordinal: int, current: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
        """`newVersionedStatefulSetPod`: below `partition` (or, without `rollingUpdate`, below the current
        replicas) a RollingUpdate set makes the pod from the current revision; otherwise from the update one."""
        spec = sts["spec"]
        strategy = spec.get("updateStrategy") or {}
        start = int(((spec.get("ordinals") or {}).get("start")) or 0)
        rolling = strategy.get("rollingUpdate")
        if strategy.get("type", "RollingUpdate") == "RollingUpdate" and rolling is None:
            old = ordinal < start + int((sts.get("status") or {}).get("currentReplicas") or 0)
        else:
            old = rolling is not None and ordinal < start + int(rolling.get("partition") or 0)
        if old:
            return self.new_pod(current_set, ordinal, current["metadata"]["name"])
        return self.new_pod(update_set, ordinal, update["metadata"]["name"])

    def new_pod(self, sts: dict[str, Any], ordinal: int, revision: str) -> dict[str, Any]:
        """`newVersionedStatefulSetPod`."""
        name = f'{sts["metadata"]["name"]}-{ordinal}'
        template = copy.deepcopy(sts["spec"].get("template") or {})
        tmeta = template.get("metadata") or {}
        labels = {**(tmeta.get("labels") or {}), POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal),
                  REVISION_LABEL: revision}
        meta: dict[str, Any] = {"name": name, "namespace": sts["metadata"]["namespace"], "labels": labels}
        for key in ("annotations", "finalizers"):
            if tmeta.get(key):
                meta[key] = tmeta[key]
        meta["ownerReferences"] = [owner_reference(sts)]
        pod_spec = template.get("spec") or {}
        claims = {c["template"]: c["metadata"]["name"] for c in claims_of(sts, ordinal)}
        if claims:  # `updateStorage`: the claims' volumes, then the template's other volumes
            pod_spec["volumes"] = [{"name": t, "persistentVolumeClaim": {"claimName": c}} for t, c in
                                   sorted(claims.items())] + [v for v in pod_spec.get("volumes") or []
                                                              if isinstance(v, dict) and v.get("name") not in claims]
        pod_spec["hostname"] = name
        if sts["spec"].get("serviceName"):
            pod_spec["subdomain"] = sts["spec"]["serviceName"]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}
