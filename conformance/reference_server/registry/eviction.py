"""`pods/<name>/eviction`: `EvictionREST` of `pkg/registry/core/pod/storage/eviction.go` (1.33), the write
`kubectl drain` and `create_namespaced_pod_eviction` make.

`Create`: the URL's name must be the Eviction's (400 `name in URL does not match name in Eviction object`);
`propagateDryRun` joins the query's `dryRun` and the Eviction's `deleteOptions.dryRun` (two different lists: a
plain error, which kube-apiserver answers 500 without a reason). Then:

- a pod that `canIgnorePDB` (phase Pending, Succeeded or Failed, or being deleted: on a cluster without nodes,
  every pod unless a client wrote its status) is deleted at once, with a `resourceVersion` precondition unless it
  is terminal or being deleted (`shouldEnforceResourceVersion`), retried on a conflict unless the client gave its
  own `resourceVersion` precondition;
- otherwise the PDBs of the pod's namespace whose selector matches its labels (a nil or invalid selector matches
  nothing) decide: more than one is a `Status` Failure with code 500; none: the pod is deleted; one: a pod that is
  not Ready is deleted without touching the budget when `unhealthyPodEvictionPolicy: AlwaysAllow`, or when the
  budget is healthy (`currentHealthy >= desiredHealthy > 0`, IfHealthyBudget, the default); else `checkAndDecrement`
  (429 `TooManyRequests` with a `DisruptionBudget` cause while the controller has not observed the budget's
  generation or it allows no disruption; 403 when the counts are corrupt; else `disruptionsAllowed` is decremented,
  the pod is recorded in `disruptedPods` and the status written, retried on a conflict with the budget re-read);
- the pod is deleted by `addConditionAndDeletePod`: the `DisruptionTarget` condition (`EvictionByEvictionAPI`)
  written through the pod's status strategy (not on a dry run), then the delete with the eviction's options
  (preconditions, grace period, propagation); no admission on that delete (`rest.ValidateAllObjectFunc`).

The budget's `UpdateStatus` is upstream's loopback client's (a `poddisruptionbudgets/status` UPDATE as
`system:apiserver` that webhooks and policies see): the handler passes `writes` (admission/admitted.py's
ControllerWrites, duck-typed here: the registry knows nothing of admission), which stops the eviction with its
`Pending` before that first write when some webhook or policy selects it; the handler has it admitted and runs the
eviction again, with the same `stamp` for `disruptedPods` and the condition's transition, so the write it reaches
again is the one admitted (unless the budget changed meanwhile: then, as upstream's conflict retry, it is reviewed
again).

Success answers a `Status` `Success`, 201. Retries are immediate (upstream waits 500 ms between them): writes here
are serialised, so a conflict can only come from the client's own preconditions.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
from typing import Any

from .. import apierrors as E
from ..goport.gofmt import plain_v
from .conditions import set_condition, update_pod_condition
from .meta import now
from .store import DeleteOptions, ListOptions
from .workloads import selector_matches
from .shapes import as_dict

POLICY = "policy"
PDB_PLURAL = "poddisruptionbudgets"
MAX_DISRUPTED_POD_SIZE = 2000  # MaxDisruptedPodSize
RETRY_STEPS = 20  # EvictionsRetry.Steps
DISRUPTION_BUDGET_CAUSE = "DisruptionBudget"  # policyv1.DisruptionBudgetCause
TOO_MANY_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."
MULTIPLE_PDBS = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def _dry_run_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _delete_options(body: dict[str, Any], dry_run: list[str]) -> DeleteOptions:
    """The Eviction's `deleteOptions` (decoded with Go's types by the handler) as the registry's options; no
    `ValidateDeleteOptions`: upstream's eviction hands them to the store's Delete as they are."""
    pre = as_dict(body.get("preconditions"))
    grace, orphan = body.get("gracePeriodSeconds"), body.get("orphanDependents")
    return DeleteOptions(dry_run=bool(dry_run), propagation_policy=body.get("propagationPolicy") or None,
                         orphan_dependents=orphan if isinstance(orphan, bool) else None,
                         uid=pre.get("uid"), resource_version=pre.get("resourceVersion"),
                         grace_period_seconds=grace if isinstance(grace, int) and not isinstance(grace, bool) else None)


def propagate_dry_run(eviction: dict[str, Any], query_dry_run: list[str]) -> DeleteOptions:
    """`propagateDryRun`: the options the pod is deleted with."""
    body = eviction.get("deleteOptions")
    if not isinstance(body, dict):
        return DeleteOptions(dry_run=bool(query_dry_run))
    content = _dry_run_list(body.get("dryRun"))
    if content and query_dry_run and content != query_dry_run:
        raise E.StatusError(E.status_dict(500, None, "Non-matching dry-run options in request and content: "
                                                     f"{plain_v(query_dry_run)} and {plain_v(content)}"))
    return _delete_options(body, content or query_dry_run)


def can_ignore_pdb(pod: dict[str, Any]) -> bool:
    """`canIgnorePDB`: terminal, pending or already terminating pods are deleted without asking a budget."""
    phase = as_dict(pod.get("status")).get("phase")
    return phase in ("Succeeded", "Failed", "Pending") or bool(as_dict(pod.get("metadata")).get("deletionTimestamp"))


def should_enforce_resource_version(pod: dict[str, Any]) -> bool:
    """`shouldEnforceResourceVersion`: not for terminal or terminating pods."""
    phase = as_dict(pod.get("status")).get("phase")
    return not (phase in ("Succeeded", "Failed") or as_dict(pod.get("metadata")).get("deletionTimestamp"))


def is_pod_ready(pod: dict[str, Any]) -> bool:
    """`podutil.IsPodReady`: the `Ready` condition is True."""
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True"
               for c in as_dict(pod.get("status")).get("conditions") or [])


def too_many_requests(message: str, cause: str, retry_after: int = 0) -> E.StatusError:
    """`errors.NewTooManyRequests` with the `DisruptionBudget` cause appended."""
    details: dict[str, Any] = {"causes": [{"reason": DISRUPTION_BUDGET_CAUSE, "message": cause}]}
    if retry_after:
        details["retryAfterSeconds"] = retry_after
    return E.StatusError(E.status_dict(429, "TooManyRequests", message, details))


def still_processing(pdb_name: str) -> E.StatusError:
    """`createTooManyRequestsError`."""
    return too_many_requests(TOO_MANY_MESSAGE, f"The disruption budget {pdb_name} is still being processed by the "
                                               "server.", 10)


def set_disruption_allowed(status: dict[str, Any], value: str, reason: str, message: str = "",
                           stamp: str | None = None) -> None:
    """`apimeta.SetStatusCondition` of `DisruptionAllowed` (observedGeneration: the status's): the transition time
    (`stamp`, now) moves only when the condition's status changes."""
    fresh: dict[str, Any] = {"type": "DisruptionAllowed", "status": value}
    if status.get("observedGeneration"):  # omitempty
        fresh["observedGeneration"] = status["observedGeneration"]
    fresh.update(lastTransitionTime=stamp or now(), reason=reason, message=message)
    set_condition(status, fresh)


def set_disruption_allowed_condition(status: dict[str, Any], stamp: str | None = None) -> None:
    """`pdbhelper.UpdateDisruptionAllowedCondition`: `SufficientPods` while a disruption is allowed, else
    `InsufficientPods`."""
    if (status.get("disruptionsAllowed") or 0) > 0:
        set_disruption_allowed(status, "True", "SufficientPods", stamp=stamp)
    else:
        set_disruption_allowed(status, "False", "InsufficientPods", stamp=stamp)


def pdbs_for_pod(registry: Any, pod: dict[str, Any]) -> list[dict[str, Any]]:
    """`getPodDisruptionBudgets`: the namespace's budgets whose selector matches the pod's labels."""
    store = registry.group(POLICY, PDB_PLURAL)
    if store is None:
        return []
    meta = as_dict(pod.get("metadata"))
    labels = as_dict(meta.get("labels"))
    out = []
    for pdb in store.list(meta.get("namespace") or "", ListOptions())["items"]:
        selector = as_dict(pdb.get("spec")).get("selector")
        if isinstance(selector, dict) and selector_matches(selector, labels):
            out.append(pdb)
    return out


class _Eviction:
    """One `EvictionREST.Create` against the registry's pod and PDB stores."""

    def __init__(self, registry: Any, namespace: str, name: str, options: DeleteOptions, writes: Any = None,
                 stamp: str | None = None):
        self.registry, self.namespace, self.name, self.options = registry, namespace, name, options
        self.pods = registry.content("pods")
        self.writes, self.stamp = writes, stamp

    def run(self) -> dict[str, Any]:
        pod = self._delete_if_pdb_ignored()
        if pod is None:
            return dict(SUCCESS)
        pdbs = pdbs_for_pod(self.registry, pod)
        if len(pdbs) > 1:
            raise E.StatusError(E.status_dict(500, None, MULTIPLE_PDBS))
        pin_version, pdb_name = False, ""
        if pdbs:
            pdb = pdbs[0]
            pdb_name = pdb["metadata"]["name"]
            spec, status = as_dict(pdb.get("spec")), as_dict(pdb.get("status"))
            if not is_pod_ready(pod) and (
                    spec.get("unhealthyPodEvictionPolicy") == "AlwaysAllow"
                    or (status.get("currentHealthy") or 0) >= (status.get("desiredHealthy") or 0) > 0):
                pin_version = True  # the unhealthy pod goes; the budget is not touched
            else:
                self._check_and_decrement_retrying(pdb)
        options = self.options
        if pin_version:
            options = dataclasses.replace(options, resource_version=pod["metadata"].get("resourceVersion"))
        try:
            self._add_condition_and_delete(options)
        except E.StatusError as exc:
            if exc.code == 409 and pin_version and self.options.resource_version is None:
                raise still_processing(pdb_name) from None
            raise
        return dict(SUCCESS)

    # ---- the pod ----------------------------------------------------------------------------------
    def _delete_if_pdb_ignored(self) -> dict[str, Any] | None:
        """The first retry loop: the pod, or None when it could be deleted without asking a budget."""
        retry = self.options.resource_version is None  # a client's own precondition is not retried
        for attempt in range(RETRY_STEPS):
            pod = self.pods.get(self.namespace, self.name)
            if not can_ignore_pdb(pod):
                return pod
            options = self.options
            if should_enforce_resource_version(pod) and self.options.resource_version is None:
                options = dataclasses.replace(options, resource_version=pod["metadata"].get("resourceVersion"))
            try:
                self._add_condition_and_delete(options)
            except E.StatusError as exc:
                if exc.code == 409 and retry and attempt < RETRY_STEPS - 1:
                    continue
                raise
            return None
        raise AssertionError("unreachable")

    def _add_condition_and_delete(self, options: DeleteOptions) -> None:
        """`addConditionAndDeletePod`."""
        if not options.dry_run:
            updated = self.pods.update(self.namespace, self.name, transform=self._disruption_target(options),
                                       strategy=self.pods.status_strategy)
            if options.resource_version is not None:  # our own write moved it: follow it
                options = dataclasses.replace(options, resource_version=updated["metadata"].get("resourceVersion"))
        self.pods.delete(self.namespace, self.name, options)

    def _disruption_target(self, options: DeleteOptions) -> Any:
        def change(latest: dict[str, Any]) -> dict[str, Any]:
            meta = latest["metadata"]
            if options.uid and options.uid != meta.get("uid"):
                raise E.conflict("Pod", self.name, f"the UID in the precondition ({options.uid}) does not match the "
                                                   f"UID in record ({meta.get('uid')}). The object might have been "
                                                   "deleted and then recreated")
            rv = options.resource_version
            if rv and rv != meta.get("resourceVersion"):
                raise E.conflict("Pod", self.name, f"the ResourceVersion in the precondition ({rv}) does not match "
                                                   f"the ResourceVersion in record ({meta.get('resourceVersion')}). "
                                                   "The object might have been modified")
            update_pod_condition(latest.setdefault("status", {}), "DisruptionTarget", "True", "EvictionByEvictionAPI",
                                 "Eviction API: evicting")
            return latest
        return change

    # ---- the budget -------------------------------------------------------------------------------
    def _check_and_decrement_retrying(self, pdb: dict[str, Any]) -> None:
        """`retry.RetryOnConflict` around `checkAndDecrement`, re-reading the budget after a conflict."""
        store = self.registry.group(POLICY, PDB_PLURAL)
        for attempt in range(RETRY_STEPS):
            try:
                self._check_and_decrement(store, pdb)
                return
            except E.StatusError as exc:
                if exc.code != 409 or attempt == RETRY_STEPS - 1:
                    raise
            pdb = store.get(self.namespace, pdb["metadata"]["name"])

    def _check_and_decrement(self, store: Any, pdb: dict[str, Any]) -> None:
        """`checkAndDecrement`."""
        meta, status = pdb["metadata"], copy.deepcopy(as_dict(pdb.get("status")))
        name = meta["name"]
        if (status.get("observedGeneration") or 0) < (meta.get("generation") or 0):
            raise still_processing(name)
        allowed = status.get("disruptionsAllowed") or 0
        if allowed < 0:
            raise E.forbidden("poddisruptionbudget", name, "pdb disruptions allowed is negative", POLICY)
        if len(as_dict(status.get("disruptedPods"))) > MAX_DISRUPTED_POD_SIZE:
            raise E.forbidden("poddisruptionbudget", name, "DisruptedPods map too big - too many evictions not "
                                                           "confirmed by PDB controller", POLICY)
        if allowed == 0:
            raise too_many_requests(TOO_MANY_MESSAGE, f"The disruption budget {name} needs "
                                                      f"{status.get('desiredHealthy') or 0} healthy pods and has "
                                                      f"{status.get('currentHealthy') or 0} currently")
        status["disruptionsAllowed"] = allowed - 1
        if status["disruptionsAllowed"] == 0:
            set_disruption_allowed_condition(status, self.stamp)
        if self.options.dry_run:
            return
        status["disruptedPods"] = {**as_dict(status.get("disruptedPods")), self.name: self.stamp or now()}
        # UpdateStatus of the budget as read (its resourceVersion makes a concurrent change a 409), by the
        # apiserver's loopback client, whose user agent names the manager
        write = store.update if self.writes is None else functools.partial(self.writes.update, store)
        write(self.namespace, name, {**pdb, "status": status}, strategy=store.status_strategy,
              field_manager="kube-apiserver")


def evict_pod(registry: Any, namespace: str, url_name: str, eviction: dict[str, Any],
              query_dry_run: list[str], writes: Any = None, stamp: str | None = None) -> dict[str, Any]:
    """`EvictionREST.Create`; returns the Status answered (201). `writes`: the loopback client's writes (the
    budget's status), `stamp`: the time recorded in `disruptedPods` (now)."""
    name = as_dict(eviction.get("metadata")).get("name") or ""
    if url_name != name:
        raise E.bad_request("name in URL does not match name in Eviction object")
    options = propagate_dry_run(eviction, query_dry_run)
    if registry.content("pods") is None:
        raise E.not_found("pods", name)
    return _Eviction(registry, namespace, name, options, writes, stamp).run()


__all__ = ["can_ignore_pdb", "evict_pod", "is_pod_ready", "pdbs_for_pod", "set_disruption_allowed",
           "set_disruption_allowed_condition"]
