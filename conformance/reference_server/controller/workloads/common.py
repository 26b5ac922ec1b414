"""What the workload controllers share (`pkg/controller/controller_utils.go`, `controller_ref_manager.go`):
a controller watching its own kind and the pods (or ReplicaSets) it owns, pods made from a template through
the registry with admission applied, controller references and status writes (the template hash:
`templatehash/`).

Every write goes through the registry as a client's would (field manager `kube-controller-manager`), with the
server's admission chain on creates: a namespace being terminated refuses the write with the cause
`NamespaceTerminating`, which the controllers take quietly (as upstream's `slowStartBatch` callers do).
"""
from __future__ import annotations

import asyncio
import copy
import datetime as _dt
import logging
from typing import Any, Callable, Iterable

from ... import apierrors as E
from ...admission import create_admission
from ...admission.admitted import AdmissionRefusal
from ...registry import DeleteOptions, GenericStore, ListOptions, Registry
from ...registry.meta import now
from ...registry.workloads import selector_matches
from ...storage.offload import Offload
from ..events import NORMAL, WARNING, EventRecorder
from ..loop import Controller, WorkQueue
from ..reads import get_or_none

log = logging.getLogger("nsconform.reference_server.controller")
KCM = "kube-controller-manager"
SYNC_CREATES = 64  # creations one sync makes before it lets the loop run (requeued at once for the rest)
NAMESPACE_TERMINATING = "NamespaceTerminating"
Key = tuple[str, str]


class Requeue(Exception):
    """A sync that must run again after `delay` seconds (upstream: the rate-limited requeue or AddAfter)."""

    def __init__(self, delay: float):
        super().__init__(delay)
        self.delay = delay


def owner_reference(owner: dict[str, Any]) -> dict[str, Any]:
    """`metav1.NewControllerRef`: controller and blockOwnerDeletion true."""
    meta = owner["metadata"]
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": meta["name"], "uid": meta["uid"],
            "controller": True, "blockOwnerDeletion": True}


def controller_of(obj: dict[str, Any]) -> dict[str, Any] | None:
    """`metav1.GetControllerOf`."""
    for ref in obj.get("metadata", {}).get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller"):
            return ref
    return None


def is_terminating_refusal(exc: E.StatusError) -> bool:
    """`apierrors.HasStatusCause(err, v1.NamespaceTerminatingCause)`."""
    causes = (exc.status.get("details") or {}).get("causes") or ()
    return any(c.get("reason") == NAMESPACE_TERMINATING for c in causes)


def is_active(pod: dict[str, Any]) -> bool:
    """`controller.IsPodActive`: not terminal and not being deleted."""
    return (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed") \
        and not pod["metadata"].get("deletionTimestamp")


def parse_time(ts: str) -> _dt.datetime:
    return _dt.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc)


def utcnow() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def pod_from_template(template: dict[str, Any], owner: dict[str, Any], *, name: str = "",
                      generate_name: str = "") -> dict[str, Any]:
    """`GetPodFromTemplate`: the template's labels, annotations, finalizers and spec, the owner's controller
    reference, `generateName` `<owner>-` (or a fixed name)."""
    tmeta = template.get("metadata") or {}
    meta: dict[str, Any] = {"namespace": owner["metadata"]["namespace"]}
    if name:
        meta["name"] = name
    else:
        meta["generateName"] = generate_name or owner["metadata"]["name"] + "-"
    for key in ("labels", "annotations", "finalizers"):
        if tmeta.get(key):
            meta[key] = copy.deepcopy(tmeta[key])
    meta["ownerReferences"] = [owner_reference(owner)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": copy.deepcopy(template.get("spec") or {})}


def set_condition(conditions: list[dict[str, Any]], cond: dict[str, Any]) -> list[dict[str, Any]]:
    """`Set<Kind>Condition`: unchanged when status and reason are the same; the transition time is kept
    when only the reason or message changes."""
    out = [c for c in conditions if c.get("type") != cond["type"]]
    old = next((c for c in conditions if c.get("type") == cond["type"]), None)
    if old is not None and old.get("status") == cond["status"] and old.get("reason") == cond.get("reason"):
        return conditions
    if old is not None and old.get("status") == cond["status"] and "lastTransitionTime" in old:
        cond = {**cond, "lastTransitionTime": old["lastTransitionTime"]}
    return out + [cond]


class WorkloadController(Controller):
    """Base: a work queue of `(namespace, name)` of `group/plural` objects, fed by their own events and by
    the events of the objects they control (`owned`: pods, or ReplicaSets for Deployments)."""

    group = "apps"
    plural = ""
    owned = "pods"          # core resource (pods) or `apps/<plural>`
    owner_kind = ""
    component = ""          # the event source (`v1.EventSource{Component: ...}` of the controller's recorder)

    def __init__(self, registry: Registry, admission: Any = None, offload: Offload | None = None):
        super().__init__()
        self.registry = registry
        self.admission = admission
        self.recorder = EventRecorder(registry, self.component, admission)
        # etcd: a sync's writes are round trips, so syncs run in the offload's thread (as the namespace deleter's)
        self._offload = offload or Offload(registry.store, "workload-controllers")
        self._loop: asyncio.AbstractEventLoop | None = None
        self.keys: WorkQueue[Key] = self._queue()
        self._timers: list[asyncio.TimerHandle] = []
        self.requeued: list[tuple[Key, float]] = []

    def requeue_after(self, key: Key, delay: float) -> None:
        """`AddAfter`, without holding the key out of the queue meanwhile (events still sync it at once); from
        the loop or the offload thread. Without a loop (a sync called directly) the request is kept in
        `requeued`."""
        loop = self._loop
        if loop is None:
            self.requeued.append((key, delay))
            return
        try:
            on_loop = asyncio.get_running_loop() is loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            self._schedule(key, delay)
        else:
            loop.call_soon_threadsafe(self._schedule, key, delay)

    def _schedule(self, key: Key, delay: float) -> None:
        loop = asyncio.get_running_loop()
        if delay <= 0:
            self.keys.add(key)
            return
        self._timers = [t for t in self._timers if not t.cancelled() and t.when() > loop.time()]
        self._timers.append(loop.call_later(delay, self.keys.add, key))

    def capped(self, key: Key, wanted: int) -> int:
        """How many to create now (at most SYNC_CREATES); the rest is left to a sync queued at once."""
        if wanted > SYNC_CREATES:
            self.requeue_after(key, 0)
            return SYNC_CREATES
        return wanted

    async def stop(self) -> None:
        for t in self._timers:
            t.cancel()
        self._timers.clear()
        await super().stop()

    @property
    def store(self) -> GenericStore:
        s = self.registry.group(self.group, self.plural)
        assert s is not None
        return s

    @property
    def pods(self) -> GenericStore:
        s = self.registry.content("pods")
        assert s is not None
        return s

    def owned_store(self) -> GenericStore:
        if "/" in self.owned:
            group, plural = self.owned.split("/")
            s = self.registry.group(group, plural)
        else:
            s = self.registry.content(self.owned)
        assert s is not None
        return s

    def start(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        rv = str(self.registry.store.current_rv())
        self._inform(self.store, self._on_object)
        _, ow, _ = self.owned_store().watch(None, ListOptions(resource_version=rv), loop)
        self._follow(ow, self._on_owned)
        if self.revisions_owned:  # the ControllerRevision informer (StatefulSet, DaemonSet)
            revisions = self.registry.group("apps", "controllerrevisions")
            assert revisions is not None
            _, rw, _ = revisions.watch(None, ListOptions(resource_version=rv), loop)
            self._follow(rw, self._on_revision)
        self._work(self.keys, self._sync)

    def _on_object(self, ev: Any) -> None:
        if ev.type != "DELETED":
            self.keys.add((ev.namespace, ev.name))
        else:
            self.deleted(ev)

    def deleted(self, ev: Any) -> None:
        """The controlled object is gone (the garbage collector, not this controller, cascades)."""

    def _on_owned(self, ev: Any) -> None:
        ref = controller_of(ev.object)
        if ref is not None and ref.get("kind") == self.owner_kind:
            self.keys.add((ev.namespace, ref.get("name", "")))
        elif ref is None and self.adopts and ev.type != "DELETED" \
                and not ev.object["metadata"].get("deletionTimestamp"):
            self._wake_adopters(ev)
        self.owned_event(ev, ref)

    def _wake_adopters(self, ev: Any) -> None:
        """An orphan: every owner in its namespace whose selector matches it syncs (`getPodReplicaSets`)."""
        labels = ev.object["metadata"].get("labels") or {}
        if not labels:
            return
        for owner in self.store.list(ev.namespace, ListOptions(), shared=True)["items"]:
            selector = self.owner_selector(owner)
            if selector is not None and selector_matches(selector, labels):
                self.keys.add((ev.namespace, owner["metadata"]["name"]))

    @staticmethod
    def owner_selector(owner: dict[str, Any]) -> dict[str, Any] | None:
        """The owner's `spec.selector` as a LabelSelector, None when it selects nothing (empty)."""
        selector = (owner.get("spec") or {}).get("selector") or {}
        return selector if selector.get("matchLabels") or selector.get("matchExpressions") else None

    revisions_owned = False  # whether it keeps ControllerRevisions (`history.py`) and follows their events

    def _on_revision(self, ev: Any) -> None:
        """`addRevision`/`updateRevision`/`deleteRevision`: the controller owner syncs; an orphan wakes every
        owner whose selector matches it."""
        ref = controller_of(ev.object)
        if ref is not None:
            if ref.get("kind") == self.owner_kind:
                self.keys.add((ev.namespace, ref.get("name", "")))
        elif ev.type != "DELETED":
            self._wake_adopters(ev)

    def owned_event(self, ev: Any, ref: dict[str, Any] | None) -> None:
        """Hook for an owned object's event (the Job controller's orphan finalizers)."""

    async def _sync(self, key: Key) -> None:
        await self._offload(self._sync_now, key)

    def _sync_now(self, key: Key) -> None:
        failures = self._failures.get(key)
        try:
            self.sync(*key)
        except Requeue as r:
            self.requeue_after(key, r.delay)
        except AdmissionRefusal as exc:  # a webhook or policy refused a write: `AddRateLimited`
            log.info("%s: %s/%s: %s", self.name, key[0], key[1], exc.message)
            self.requeue_after(key, self.backoff(key))
        except E.StatusError as exc:
            if exc.code == 409:  # a write raced ours: look again (upstream: requeue with rate limit)
                self.requeue_after(key, 0.05)
            elif not is_terminating_refusal(exc):
                log.info("%s: %s/%s: %s", self.name, key[0], key[1], exc.message)
        else:
            if self._failures.get(key) == failures:  # nothing refused in this sync: the backoff starts over
                self.forget(key)

    def sync(self, ns: str, name: str) -> None:
        raise NotImplementedError

    # ---- reads -------------------------------------------------------------------------------------
    def get(self, ns: str, name: str) -> dict[str, Any] | None:
        return get_or_none(self.store, ns, name)

    def controlled(self, store: GenericStore, owner: dict[str, Any]) -> list[dict[str, Any]]:
        """The objects of `store` in the owner's namespace whose controller reference is the owner."""
        uid = owner["metadata"]["uid"]
        items = store.list(owner["metadata"]["namespace"], ListOptions(), shared=True)["items"]
        return [o for o in items if (controller_of(o) or {}).get("uid") == uid]

    # ---- adoption and release (`controller_ref_manager.go`) ------------------------------------------
    adopts = False           # whether this controller claims orphans by its selector (ClaimPods/ClaimReplicaSets)

    def member(self, owner: dict[str, Any], obj: dict[str, Any]) -> bool:
        """An extra condition for adoption (the StatefulSet's `isMemberOf`)."""
        return True

    def claim(self, store: GenericStore, owner: dict[str, Any], adopt: bool | None = None) -> list[dict[str, Any]]:
        """`ClaimObject` over the namespace: ours and matching: kept; ours and no longer matching the selector:
        released (our reference removed; not while the owner is being deleted); orphans matching it (neither
        side being deleted): adopted, once the owner is read again and is still the same and not deleting
        (`RecheckDeletionTimestamp`). `adopt` overrides `adopts` (the DaemonSet claims its revisions)."""
        meta = owner["metadata"]
        uid, deleting = meta["uid"], bool(meta.get("deletionTimestamp"))
        selector = (owner.get("spec") or {}).get("selector") or {}
        adopts = self.adopts if adopt is None else adopt
        if not adopts or not (selector.get("matchLabels") or selector.get("matchExpressions")):
            return self.controlled(store, owner)
        out: list[dict[str, Any]] = []
        rechecked: bool | None = None
        for obj in store.list(meta["namespace"], ListOptions(), shared=True)["items"]:
            ref = controller_of(obj)
            matches = selector_matches(selector, obj["metadata"].get("labels") or {})
            if ref is not None:
                if ref.get("uid") != uid:
                    continue
                if matches or deleting:
                    out.append(obj)
                    continue
                self._set_controller(store, obj, owner, adopt=False)
                continue
            if deleting or obj["metadata"].get("deletionTimestamp") or not matches or not self.member(owner, obj):
                continue
            if rechecked is None:
                fresh = self.get(meta["namespace"], meta["name"])
                rechecked = fresh is not None and fresh["metadata"]["uid"] == uid \
                    and not fresh["metadata"].get("deletionTimestamp")
            if rechecked:
                adopted = self._set_controller(store, obj, owner, adopt=True)
                if adopted is not None:
                    out.append(adopted)
        return out

    def _set_controller(self, store: GenericStore, obj: dict[str, Any], owner: dict[str, Any],
                        adopt: bool) -> dict[str, Any] | None:
        """The adoption patch (our controller reference added, the object's uid a precondition) or the release
        patch (our reference deleted); None when the object changed hands or is gone."""
        meta, uid = obj["metadata"], owner["metadata"]["uid"]

        def change(cur: dict[str, Any]) -> dict[str, Any]:
            if cur["metadata"].get("uid") != meta.get("uid"):
                raise E.conflict(store.info.plural, meta["name"], "the object has been modified")
            new = copy.deepcopy(cur)
            refs = [r for r in cur["metadata"].get("ownerReferences") or [] if r.get("uid") != uid]
            if adopt:
                if controller_of(cur) is not None:
                    raise E.conflict(store.info.plural, meta["name"], "the object has been modified")
                refs.append(owner_reference(owner))
            new["metadata"]["ownerReferences"] = refs
            if not refs:
                del new["metadata"]["ownerReferences"]
            return new
        try:
            return self.writes.update(store, meta["namespace"], meta["name"], transform=change, field_manager=KCM)
        except E.StatusError as exc:
            if exc.code in (404, 409, 422):
                return None
            raise

    # ---- writes ------------------------------------------------------------------------------------
    def create_pod(self, pod: dict[str, Any], owner: dict[str, Any] | None = None) -> dict[str, Any]:
        """`RealPodControl.CreatePods`: through admission (NamespaceLifecycle, LimitRanger, quota, SA), with
        its events on `owner`: `SuccessfulCreate` "Created pod: <name>", or `FailedCreate` "Error creating:
        <message>" (none when the namespace is being terminated)."""
        try:
            created = self.create(self.pods, pod)
        except E.StatusError as exc:
            if owner is not None and not is_terminating_refusal(exc):
                self.pod_event(owner, pod, exc)
            raise
        if owner is not None:
            self.pod_event(owner, created, None)
        return created

    def pod_event(self, owner: dict[str, Any], pod: dict[str, Any], error: E.StatusError | None,
                  verb: str = "create") -> None:
        """`RealPodControl`'s events (the StatefulSet controller words its own)."""
        name = pod["metadata"].get("name", "")
        if verb == "create":
            if error is None:
                self.recorder.event(owner, NORMAL, "SuccessfulCreate", f"Created pod: {name}")
            else:
                self.recorder.event(owner, WARNING, "FailedCreate", f"Error creating: {error.message}")
        elif error is None:
            self.recorder.event(owner, NORMAL, "SuccessfulDelete", f"Deleted pod: {name}")
        else:
            self.recorder.event(owner, WARNING, "FailedDelete", f"Error deleting: {error.message}")

    def create(self, store: GenericStore, obj: dict[str, Any]) -> dict[str, Any]:
        try:
            return self.writes.create(store, obj, field_manager=KCM, **create_admission(self.admission, store.info))
        except E.RetriedStatusError:  # e.g. the `default` ServiceAccount not made yet: try again shortly
            raise Requeue(0.2) from None

    def delete_pod(self, pod: dict[str, Any], owner: dict[str, Any] | None = None) -> None:
        """`RealPodControl.DeletePod`, its events on `owner` (none for a pod already gone)."""
        meta = pod["metadata"]
        try:
            self.writes.delete(self.pods, meta["namespace"], meta["name"], DeleteOptions(uid=meta.get("uid")))
        except E.StatusError as exc:
            if exc.code not in (404, 409):
                if owner is not None:
                    self.pod_event(owner, pod, exc, "delete")
                raise
            return
        if owner is not None:
            self.pod_event(owner, pod, None, "delete")

    def write_status(self, obj: dict[str, Any], status: dict[str, Any],
                     annotations: dict[str, str] | None = None, store: GenericStore | None = None) -> None:
        """`UpdateStatus`, only when something changed (`annotations`: the Deployment's revision, which its
        status strategy keeps)."""
        meta = obj["metadata"]
        current_ann = meta.get("annotations") or {}
        want_ann = {**current_ann, **annotations} if annotations else current_ann
        if status == (obj.get("status") or {}) and want_ann == current_ann:
            return
        store = store or self.store

        def put(cur: dict[str, Any]) -> dict[str, Any]:
            new = copy.deepcopy(cur)
            new["metadata"]["resourceVersion"] = meta.get("resourceVersion")
            new["status"] = status
            if annotations:
                new["metadata"]["annotations"] = {**(cur["metadata"].get("annotations") or {}), **annotations}
            return new

        self.writes.update(store, meta["namespace"], meta["name"], transform=put,
                           strategy=store.status_strategy, field_manager=KCM)  # type: ignore[attr-defined]


def slow_start(count: int, create: Callable[[], None], initial: int = 1) -> tuple[int, E.StatusError | None]:
    """`slowStartBatch`: batches of 1, 2, 4, ... creations; the first failure ends it. A refusal because the
    namespace is being terminated is no error (nothing can be created there). Returns (created, error)."""
    done, batch = 0, min(count, initial)
    while batch > 0:
        for _ in range(batch):
            try:
                create()
            except E.StatusError as exc:
                if is_terminating_refusal(exc):
                    return done, None
                return done, exc
            done += 1
        batch = min(2 * batch, count - done)
    return done, None


def counts(items: Iterable[dict[str, Any]], pred: Callable[[dict[str, Any]], bool]) -> int:
    return sum(1 for i in items if pred(i))


__all__ = ["KCM", "Requeue", "WorkloadController", "controller_of", "is_active",
           "is_terminating_refusal", "owner_reference", "pod_from_template", "set_condition", "slow_start", "now"]


def is_ready(pod: dict[str, Any]) -> bool:
    """`podutil.IsPodReady`: the Ready condition is True (never, on a cluster without nodes)."""
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or () if isinstance(c, dict))
