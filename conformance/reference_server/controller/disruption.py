"""kube-controller-manager's disruption controller (`pkg/controller/disruption/disruption.go`, 1.33), which writes
every PodDisruptionBudget's status, as on a kind cluster without nodes (no pod is ever Ready, so `currentHealthy`
stays 0 and no budget allows a disruption unless it asks for none):

- a budget is synced when it or a pod it selects changes (`addDB`/`updateDB`/`removeDB`, `addPod`/`updatePod`/
  `deletePod`); its pods are the namespace's pods its selector matches (a nil selector: none);
- `expectedPods` and `desiredHealthy` (`getExpectedPodCount`): an integer `minAvailable` counts the matching pods;
  a percentage `minAvailable` or any `maxUnavailable` sums the scale of the pods' controllers (`getExpectedScale`:
  ReplicationController, Deployment through its ReplicaSet, ReplicaSet, StatefulSet, else the owner's `/scale`),
  rounding percentages up; pods without a controller are left out with an `UnmanagedPods` Warning; a controller
  that cannot be found (`found no controllers for pod "<name>"`, `<resource> does not implement the scale
  subresource`, `no matches for kind ...`) fails the sync;
- `currentHealthy` counts Ready pods that are neither being deleted nor in `disruptedPods` (entries older than
  `DeletionTimeout`, 2 minutes, are dropped with a `NotDeleted` Warning on the pod; the budget is synced again
  when the oldest entry expires); `disruptionsAllowed = currentHealthy - desiredHealthy` (0 while it is negative
  or no pod is expected); the `DisruptionAllowed` condition `SufficientPods`/`InsufficientPods`; written through
  `/status` only when something changed (`updatePdbStatus`);
- a failed sync (`failSafe`): `disruptionsAllowed` 0 and `DisruptionAllowed` False `SyncFailed` with the error;
  a conflict is retried instead;
- Events: `NoPods` ("No matching pods found"), `CalculateExpectedPodCountFailed`, `UnmanagedPods`, and
  `MultiplePodDisruptionBudgets` on a pod several budgets select;
- a pod's `DisruptionTarget` condition the eviction subresource wrote is set False once it is 2 minutes old while
  the pod is neither terminating nor terminal (`syncStalePodDisruption`).
"""
from __future__ import annotations

import datetime as _dt
import logging
import math
from typing import Any

from .. import apierrors as E
from ..admission.admitted import AdmissionRefusal
from ..goport.gofmt import go_quote
from ..paramcodec import NumError, parse_int
from ..registry import Registry
from ..registry.conditions import update_pod_condition
from ..registry.eviction import is_pod_ready, set_disruption_allowed, set_disruption_allowed_condition
from ..registry.meta import parse_time
from ..registry.shapes import as_dict
from ..registry.store import ListOptions
from ..registry.subresources import scale_of
from ..registry.workloads import selector_matches
from ..storage.offload import Offload
from .events import NORMAL, WARNING, EventRecorder
from .loop import Controller, WorkQueue
from .workloads.common import controller_of

log = logging.getLogger(__name__)

COMPONENT = "controllermanager"
FIELD_MANAGER = "kube-controller-manager"
DELETION_TIMEOUT = 120.0  # DeletionTimeout
STALE_POD_DISRUPTION_TIMEOUT = 120.0  # stalePodDisruptionTimeout
CONFLICT_RETRY = 0.005  # the rate limiter's first step
POLICY = "policy"
PDBS = "poddisruptionbudgets"
Key = tuple[str, str]


class SyncError(Exception):
    """A sync that cannot compute the status: `failSafe` writes its text into the `SyncFailed` condition."""


def _utcnow() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def scaled_value(value: Any, total: int) -> int:
    """`intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true)`."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        raise SyncError("invalid value for IntOrString: invalid type: neither int nor percentage")
    if not value.endswith("%"):
        raise SyncError("invalid value for IntOrString: invalid type: string is not a percentage")
    try:  # `strconv.Atoi`; its error and the value printed with `%q` (intstr.go `getIntOrPercentValueSafely`)
        percent = parse_int(value[:-1], "Atoi")
    except NumError as exc:
        raise SyncError(f"invalid value for IntOrString: invalid value {go_quote(value)}: {exc}") from None
    return math.ceil(percent * total / 100)


def label_selector_string(selector: Any) -> str:
    """gogo's generated `(*LabelSelector).String()`, which `%v` prints in the `UnmanagedPods` event."""
    if not isinstance(selector, dict):
        return "nil"
    exprs = "".join(f"LabelSelectorRequirement{{Key:{r.get('key', '')},Operator:{r.get('operator', '')},"
                    f"Values:[{' '.join(str(v) for v in r.get('values') or [])}],}},"
                    for r in selector.get("matchExpressions") or [] if isinstance(r, dict))
    labels = "".join(f"{k}: {v}," for k, v in sorted(as_dict(selector.get("matchLabels")).items()))
    return f"&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{" \
           f"{exprs}}},}}"


def _group_of(ref: dict[str, Any]) -> str:
    api_version = str(ref.get("apiVersion") or "")
    return api_version.rpartition("/")[0] if "/" in api_version else ""


def _replicas(obj: dict[str, Any]) -> int:
    replicas = as_dict(obj.get("spec")).get("replicas")
    return replicas if isinstance(replicas, int) else 1


class DisruptionController(Controller):
    name = "disruption controller"
    service_account = "disruption-controller"  # its status writes pass the webhooks and policies

    def __init__(self, registry: Registry, admission: Any = None):
        super().__init__()
        self.registry = registry
        self.recorder = EventRecorder(registry, COMPONENT, admission)
        self.keys: WorkQueue[Key] = self._queue()
        self.recheck: WorkQueue[Key] = self._queue()  # `recheckQueue`: delayed, apart from the events' queue
        self.stale: WorkQueue[Key] = self._queue()
        self._offload = Offload(registry.store, "disruption-controller")
        self._budgets: dict[str, dict[str, dict[str, Any]]] = {}  # namespace → name → budget (the PDB lister)

    def _pdbs(self) -> Any:
        return self.registry.group(POLICY, PDBS)

    def start(self) -> None:
        if self._pdbs() is None or self.registry.content("pods") is None:
            return
        self._inform(self._pdbs(), self._on_pdb)
        self._inform(self.registry.content("pods"), self._on_pod)
        self._work(self.keys, self._sync)
        self._work(self.recheck, self._requeue)
        self._work(self.stale, self._sync_stale)

    # ---- event handlers ---------------------------------------------------------------------------
    def _on_pdb(self, ev: Any) -> None:
        """`addDB`/`updateDB`/`removeDB`; the budget is kept as the lister's cache keeps it."""
        budgets = self._budgets.setdefault(ev.namespace or "", {})
        if ev.type == "DELETED":
            budgets.pop(ev.name, None)
        else:
            budgets[ev.name] = ev.object
        self.keys.add((ev.namespace or "", ev.name))

    def _on_pod(self, ev: Any) -> None:
        pod = ev.object
        pdbs = self.pdbs_for_pod(pod)
        if len(pdbs) > 1 and ev.type != "DELETED":
            meta = pod.get("metadata") or {}
            self.recorder.event(pod, WARNING, "MultiplePodDisruptionBudgets",
                                f'Pod "{meta.get("namespace", "")}"/"{meta.get("name", "")}" matches multiple '
                                f'PodDisruptionBudgets.  Chose "{pdbs[0]["metadata"]["name"]}" arbitrarily.')
        for pdb in pdbs:
            self.keys.add((ev.namespace or "", pdb["metadata"]["name"]))
        if ev.type != "DELETED":
            wait = self.stale_disruption_wait(pod)
            if wait is not None:
                self.stale.add_after((ev.namespace or "", ev.name), wait)

    def pdbs_for_pod(self, pod: dict[str, Any]) -> list[dict[str, Any]]:
        """`GetPodPodDisruptionBudgets` (policy/v1: an empty selector matches every pod)."""
        meta = as_dict(pod.get("metadata"))
        labels = as_dict(meta.get("labels"))
        budgets = self._budgets.get(meta.get("namespace") or "") or {}
        return [pdb for _, pdb in sorted(budgets.items())
                if isinstance(as_dict(pdb.get("spec")).get("selector"), dict)
                and selector_matches(pdb["spec"]["selector"], labels)]

    # ---- sync -------------------------------------------------------------------------------------
    async def _sync(self, key: Key) -> None:
        try:
            retry = await self._offload(self.sync, key)
        except AdmissionRefusal as exc:  # failSafe's write refused too: the sync's error, `AddRateLimited`
            log.info("%s: %s/%s: %s", self.name, key[0], key[1], exc.message)
            self.keys.add_after(key, self.backoff(key))
            return
        self.forget(key)
        if retry is not None:  # a pending recheck must not hide the events that come before it
            self.recheck.add_after(key, retry)

    async def _requeue(self, key: Key) -> None:
        """`processNextRecheckWorkItem`: the budget back in the main queue."""
        self.keys.add(key)

    def sync(self, key: Key) -> float | None:
        """`sync`: one pass over the budget `key`; the delay after which it wants another, if any."""
        try:
            pdb = self._pdbs().get(*key)
        except E.StatusError as exc:
            if exc.code == 404:
                return None
            raise
        try:
            return self.try_sync(pdb)
        except E.StatusError as exc:
            if exc.code == 409:
                return CONFLICT_RETRY
            self.fail_safe(pdb, exc.message)
        except SyncError as exc:
            self.fail_safe(pdb, str(exc))
        return None

    def try_sync(self, pdb: dict[str, Any]) -> float | None:
        """`trySync`."""
        pods = self.pods_for_pdb(pdb)
        if not pods:
            self.recorder.event(pdb, NORMAL, "NoPods", "No matching pods found")
        try:
            expected, desired, unmanaged = self.expected_pod_count(pdb, pods)
        except SyncError as exc:
            self.recorder.event(pdb, WARNING, "CalculateExpectedPodCountFailed",
                                f"Failed to calculate the number of expected pods: {exc}")
            raise
        if unmanaged:
            self.recorder.event(pdb, WARNING, "UnmanagedPods",
                                "Pods selected by this PodDisruptionBudget (selector: "
                                f"{label_selector_string(as_dict(pdb.get('spec')).get('selector'))}) were found to be "
                                "unmanaged. As a result, the status of the PDB cannot be calculated correctly, which "
                                "may result in undefined behavior. To account for these pods please set "
                                '".spec.minAvailable" field of the PDB to an integer value.')
        now = _utcnow()
        disrupted, recheck = self.build_disrupted_pod_map(pods, pdb, now)
        healthy = count_healthy_pods(pods, disrupted, now)
        self.update_pdb_status(pdb, healthy, desired, expected, disrupted)
        return None if recheck is None else max((recheck - now).total_seconds(), 0.0)

    def pods_for_pdb(self, pdb: dict[str, Any]) -> list[dict[str, Any]]:
        selector = as_dict(pdb.get("spec")).get("selector")
        if not isinstance(selector, dict):
            return []  # LabelSelectorAsSelector(nil): labels.Nothing()
        pods = self.registry.content("pods").list(pdb["metadata"].get("namespace") or "", ListOptions(),
                                                  shared=True)["items"]
        return [p for p in pods if selector_matches(selector, as_dict(as_dict(p.get("metadata")).get("labels")))]

    def expected_pod_count(self, pdb: dict[str, Any], pods: list[dict[str, Any]]) -> tuple[int, int, list[str]]:
        """`getExpectedPodCount`: (expectedCount, desiredHealthy, unmanaged pods)."""
        spec = as_dict(pdb.get("spec"))
        if spec.get("maxUnavailable") is not None:
            expected, unmanaged = self.expected_scale(pods)
            return expected, max(expected - scaled_value(spec["maxUnavailable"], expected), 0), unmanaged
        min_available = spec.get("minAvailable")
        if isinstance(min_available, int) and not isinstance(min_available, bool):
            return len(pods), min_available, []
        if isinstance(min_available, str):
            expected, unmanaged = self.expected_scale(pods)
            return expected, scaled_value(min_available, expected), unmanaged
        return 0, 0, []

    def expected_scale(self, pods: list[dict[str, Any]]) -> tuple[int, list[str]]:
        """`getExpectedScale`: the sum of the scales of the pods' controllers, and the pods without one."""
        scales: dict[str, int] = {}
        unmanaged: list[str] = []
        for pod in pods:
            ref = controller_of(pod)
            name = as_dict(pod.get("metadata")).get("name", "")
            if ref is None:
                unmanaged.append(name)
                continue
            if ref.get("uid") in scales:
                continue
            ns = as_dict(pod.get("metadata")).get("namespace") or ""
            for finder in (self._replication_controller, self._deployment, self._replica_set, self._stateful_set,
                           self._scale_controller):
                found = finder(ref, ns)
                if found is not None:
                    scales[found[0]] = found[1]
                    break
            else:
                raise SyncError(f'found no controllers for pod "{name}"')
        return sum(scales.values()), unmanaged

    # ---- the finders (`finders()`, in upstream's order) -------------------------------------------
    def _get(self, group: str, plural: str, ns: str, name: str) -> dict[str, Any] | None:
        store = self.registry.group(group, plural) if group else self.registry.content(plural)
        if store is None:
            return None
        try:
            return store.get(ns, name, shared=True)
        except E.StatusError:
            return None  # "The only possible error is NotFound, which is ok here."

    @staticmethod
    def _is(ref: dict[str, Any], kind: str, groups: tuple[str, ...]) -> bool:
        """`verifyGroupKind`."""
        return ref.get("kind") == kind and _group_of(ref) in groups

    def _owned(self, ref: dict[str, Any], group: str, plural: str, ns: str) -> dict[str, Any] | None:
        obj = self._get(group, plural, ns, ref.get("name") or "")
        return obj if obj is not None and obj["metadata"].get("uid") == ref.get("uid") else None

    def _direct(self, ref: dict[str, Any], ns: str, kind: str, groups: tuple[str, ...], group: str,
                plural: str) -> tuple[str, int] | None:
        """A pod's controller of `kind` with a `spec.replicas` of its own (getPodReplicationController,
        getPodStatefulSet)."""
        if not self._is(ref, kind, groups):
            return None
        obj = self._owned(ref, group, plural, ns)
        return None if obj is None else (obj["metadata"]["uid"], _replicas(obj))

    def _replication_controller(self, ref: dict[str, Any], ns: str) -> tuple[str, int] | None:
        return self._direct(ref, ns, "ReplicationController", ("",), "", "replicationcontrollers")

    def _deployment(self, ref: dict[str, Any], ns: str) -> tuple[str, int] | None:
        if not self._is(ref, "ReplicaSet", ("apps", "extensions")):
            return None
        rs = self._owned(ref, "apps", "replicasets", ns)
        owner = controller_of(rs) if rs is not None else None
        if owner is None or not self._is(owner, "Deployment", ("apps", "extensions")):
            return None
        deployment = self._owned(owner, "apps", "deployments", ns)
        return None if deployment is None else (deployment["metadata"]["uid"], _replicas(deployment))

    def _replica_set(self, ref: dict[str, Any], ns: str) -> tuple[str, int] | None:
        if not self._is(ref, "ReplicaSet", ("apps", "extensions")):
            return None
        rs = self._owned(ref, "apps", "replicasets", ns)
        if rs is None or as_dict(controller_of(rs)).get("kind") == "Deployment":
            return None  # a Deployment's ReplicaSet is counted through its Deployment
        return rs["metadata"]["uid"], _replicas(rs)

    def _stateful_set(self, ref: dict[str, Any], ns: str) -> tuple[str, int] | None:
        return self._direct(ref, ns, "StatefulSet", ("apps",), "apps", "statefulsets")

    def _scale_controller(self, ref: dict[str, Any], ns: str) -> tuple[str, int] | None:
        """`getScaleController`: the owner's `/scale`, found through the served kinds (the RESTMapper)."""
        api_version, kind = str(ref.get("apiVersion") or ""), ref.get("kind") or ""
        group = _group_of(ref)
        stores = self.registry.group_stores(group) if group else self.registry.namespaced()
        store = next((s for s in stores if s.info.kind == kind and getattr(s, "group", "") == group), None)
        if store is None:
            raise SyncError(f'no matches for kind "{kind}" in version "{api_version}"')
        if "scale" not in getattr(store, "subresources", {}):
            resource = f"{store.info.plural}.{group}" if group else store.info.plural
            raise SyncError(f"{resource} does not implement the scale subresource")
        try:
            obj = store.get(ns, ref.get("name") or "", shared=True)
        except E.StatusError:
            return None
        scale = scale_of(obj)
        if scale["metadata"].get("uid") != ref.get("uid"):
            return None
        return scale["metadata"]["uid"], as_dict(scale.get("spec")).get("replicas") or 0

    # ---- status -----------------------------------------------------------------------------------
    def build_disrupted_pod_map(self, pods: list[dict[str, Any]], pdb: dict[str, Any],
                                now: _dt.datetime) -> tuple[dict[str, str], _dt.datetime | None]:
        """`buildDisruptedPodMap`: the entries of pods not yet being deleted and not expired."""
        disrupted = as_dict(as_dict(pdb.get("status")).get("disruptedPods"))
        result: dict[str, str] = {}
        recheck: _dt.datetime | None = None
        meta = pdb["metadata"]
        for pod in pods:
            pmeta = as_dict(pod.get("metadata"))
            if pmeta.get("deletionTimestamp") or pmeta.get("name") not in disrupted:
                continue
            when = disrupted[pmeta["name"]]
            at = parse_time(when) or now
            expected = at + _dt.timedelta(seconds=DELETION_TIMEOUT)
            if expected < now:  # upstream prints the budget's namespace twice
                self.recorder.event(pod, WARNING, "NotDeleted", "Pod was expected by PDB "
                                    f"{meta.get('namespace', '')}/{meta.get('namespace', '')} to be deleted but it "
                                    "wasn't")
            else:
                if recheck is None or expected < recheck:
                    recheck = expected
                result[pmeta["name"]] = when
        return result, recheck

    def update_pdb_status(self, pdb: dict[str, Any], healthy: int, desired: int, expected: int,
                          disrupted: dict[str, str]) -> None:
        """`updatePdbStatus`: a status write only when something changed."""
        allowed = healthy - desired
        if expected <= 0 or allowed <= 0:
            allowed = 0
        status = as_dict(pdb.get("status"))
        generation = pdb["metadata"].get("generation") or 0
        if ((status.get("currentHealthy") or 0, status.get("desiredHealthy") or 0, status.get("expectedPods") or 0,
             status.get("disruptionsAllowed") or 0, as_dict(status.get("disruptedPods")),
             status.get("observedGeneration") or 0) == (healthy, desired, expected, allowed, disrupted, generation)
                and conditions_are_up_to_date(pdb)):
            return
        new: dict[str, Any] = {"observedGeneration": generation}
        if disrupted:
            new["disruptedPods"] = disrupted
        new.update(disruptionsAllowed=allowed, currentHealthy=healthy, desiredHealthy=desired, expectedPods=expected,
                   conditions=list(status.get("conditions") or []))
        set_disruption_allowed_condition(new)
        self._write_status(pdb, new)

    def fail_safe(self, pdb: dict[str, Any], message: str) -> None:
        """`failSafe`: no disruption allowed, `DisruptionAllowed` False `SyncFailed` with the error."""
        status = {**as_dict(pdb.get("status")), "disruptionsAllowed": 0}
        set_disruption_allowed(status, "False", "SyncFailed", message)
        try:
            self._write_status(pdb, status)
        except E.StatusError:
            pass  # upstream requeues; the next event syncs the budget again

    def _write_status(self, pdb: dict[str, Any], status: dict[str, Any]) -> None:
        """`writePdbStatus`: an UpdateStatus of the budget as read (a concurrent change: 409, retried)."""
        store = self._pdbs()
        self.writes.update(store, pdb["metadata"].get("namespace") or "", pdb["metadata"]["name"],
                           {**pdb, "status": status}, strategy=store.status_strategy, field_manager=FIELD_MANAGER)

    # ---- stale DisruptionTarget conditions ---------------------------------------------------------
    @staticmethod
    def stale_disruption_wait(pod: dict[str, Any]) -> float | None:
        """`nonTerminatingPodHasStaleDisruptionCondition`: seconds until the condition is stale, or None."""
        if as_dict(pod.get("metadata")).get("deletionTimestamp"):
            return None
        status = as_dict(pod.get("status"))
        cond = next((c for c in status.get("conditions") or []
                     if isinstance(c, dict) and c.get("type") == "DisruptionTarget"), None)
        if cond is None or cond.get("status") != "True" or cond.get("reason") == "TerminationByKubelet" \
                or status.get("phase") in ("Succeeded", "Failed"):
            return None
        since = parse_time(cond.get("lastTransitionTime")) or _utcnow()
        return max(STALE_POD_DISRUPTION_TIMEOUT - (_utcnow() - since).total_seconds(), 0.0)

    async def _sync_stale(self, key: Key) -> None:
        wait = await self._offload(self.sync_stale, key)
        if wait:
            self.stale.add_after(key, wait)

    def sync_stale(self, key: Key) -> float | None:
        """`syncStalePodDisruption`: the condition set False (an UpdateStatus of the pod)."""
        pods = self.registry.content("pods")
        try:
            pod = pods.get(*key)
        except E.StatusError:
            return None
        wait = self.stale_disruption_wait(pod)
        if wait is None or wait > 0:
            return wait
        status = pod.setdefault("status", {})
        if not update_pod_condition(status, "DisruptionTarget", "False"):
            return None
        try:
            self.writes.update(pods, key[0], key[1], pod, strategy=pods.status_strategy, field_manager=FIELD_MANAGER)
        except AdmissionRefusal:  # the sync's error: retried by the queue's rate limiter
            return self.backoff(("stale", *key))
        except E.StatusError as exc:
            return CONFLICT_RETRY if exc.code == 409 else None
        return None


def conditions_are_up_to_date(pdb: dict[str, Any]) -> bool:
    """`pdbhelper.ConditionsAreUpToDate`."""
    status = as_dict(pdb.get("status"))
    cond = next((c for c in status.get("conditions") or []
                 if isinstance(c, dict) and c.get("type") == "DisruptionAllowed"), None)
    if cond is None or (status.get("observedGeneration") or 0) != (pdb["metadata"].get("generation") or 0):
        return False
    if (status.get("disruptionsAllowed") or 0) > 0:
        return cond.get("status") == "True" and cond.get("reason") == "SufficientPods"
    return cond.get("status") == "False" and cond.get("reason") == "InsufficientPods"


def count_healthy_pods(pods: list[dict[str, Any]], disrupted: dict[str, str], now: _dt.datetime) -> int:
    """`countHealthyPods`: Ready pods neither being deleted nor expected to be deleted soon."""
    healthy = 0
    for pod in pods:
        meta = as_dict(pod.get("metadata"))
        if meta.get("deletionTimestamp"):
            continue
        when = parse_time(disrupted.get(meta.get("name") or ""))
        if when is not None and when + _dt.timedelta(seconds=DELETION_TIMEOUT) > now:
            continue
        if is_pod_ready(pod):
            healthy += 1
    return healthy


__all__ = ["DELETION_TIMEOUT", "DisruptionController", "conditions_are_up_to_date", "count_healthy_pods",
           "label_selector_string", "scaled_value"]
