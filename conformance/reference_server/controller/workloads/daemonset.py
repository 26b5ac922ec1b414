"""The DaemonSet controller (`pkg/controller/daemon/daemon_controller.go`) on a cluster without nodes: no
node wants a daemon pod, so nothing is made and the status (`updateDaemonSetStatus`) is zeros with the
`observedGeneration` that tells `kubectl rollout status` the controller has seen the spec. Nodes created
through the API (this server has no kubelet) are not scheduled to.

Its history is kept all the same (`pkg/controller/daemon/update.go`; `history.py`): `constructHistory` claims
the ControllerRevisions (adopting orphans that match the selector, releasing its own that no longer do), finds
the one whose data is the template's patch (`Match`), or makes it (`snapshot`: `<ds>-<hash>` with the
template's labels plus `controller-revision-hash`, the DaemonSet's annotations, revision max old + 1; a name
taken by other data bumps `status.collisionCount`), renumbers it when older ones are newer, deletes duplicates
(`dedupCurHistories`) and, beyond `revisionHistoryLimit`, the oldest unused ones (`cleanupHistory`).
"""
from __future__ import annotations

import copy
from typing import Any

from ... import apierrors as E
from .common import KCM, WorkloadController, compute_hash, owner_reference
from .history import History, go_json, sort_revisions, template_patch

UNIQUE_LABEL = "controller-revision-hash"  # apps.DefaultDaemonSetUniqueLabelKey


class DaemonSetController(WorkloadController):
    name = "daemonset controller"
    plural = "daemonsets"
    owner_kind = "DaemonSet"
    component = "daemonset-controller"
    revisions_owned = True

    def sync(self, ns: str, name: str) -> None:
        ds = self.get(ns, name)
        if ds is None or ds["metadata"].get("deletionTimestamp"):
            return
        old = self.construct_history(ds)
        self.cleanup_history(ds, old)
        status: dict[str, Any] = {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
                                  "numberReady": 0, "observedGeneration": ds["metadata"].get("generation", 0)}
        collisions = (ds.get("status") or {}).get("collisionCount")
        if collisions is not None:
            status["collisionCount"] = collisions
        self.write_status(ds, status)

    def history(self) -> History:
        return History(self.registry.group("apps", "controllerrevisions"), self.create)  # type: ignore[arg-type]

    def construct_history(self, ds: dict[str, Any]) -> list[dict[str, Any]]:
        """`constructHistory`; returns the old revisions (the current one made or found)."""
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
            self.snapshot(ds, number)
            return old
        keep = self.dedup(current)
        if int(keep.get("revision", 0)) < number:
            history.update_revision(keep, number)
        return old

    def _label(self, store: Any, rev: dict[str, Any]) -> dict[str, Any]:
        """The unique label added to a revision without it (its name, not a hash: no collision to fear)."""
        meta = rev["metadata"]

        def change(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            new["metadata"]["labels"] = {**(cur["metadata"].get("labels") or {}), UNIQUE_LABEL: meta["name"]}
            return new
        return store.update(meta["namespace"], meta["name"], transform=change, field_manager=KCM)

    def dedup(self, current: list[dict[str, Any]]) -> dict[str, Any]:
        """`dedupCurHistories`: the highest revision kept, the others deleted (no daemon pod to relabel)."""
        keep = current[0]
        for rev in current:
            if int(rev.get("revision", 0)) >= int(keep.get("revision", 0)):
                keep = rev
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
        """`cleanupHistory`: old revisions beyond `revisionHistoryLimit`, oldest first (no live daemon pod
        keeps one here)."""
        limit = ds["spec"].get("revisionHistoryLimit")
        limit = 10 if not isinstance(limit, int) else limit
        extra = len(old) - limit
        if extra <= 0:
            return
        history = self.history()
        for rev in sort_revisions(old)[:extra]:
            history.delete(rev)
