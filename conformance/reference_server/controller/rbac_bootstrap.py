"""kube-apiserver's `rbac/bootstrap-roles` post-start hook: the whole bootstrap policy (auth/bootstrap_policy.py)
reconciled at every start by the loopback client (`system:apiserver`, manager `kube-apiserver`): each missing
ClusterRole, ClusterRoleBinding, Role and RoleBinding created (a Role's namespace first), each stored one given
the rules, aggregation selectors and subjects it lost, unless its `rbac.authorization.kubernetes.io/autoupdate`
annotation is "false" (auth/reconciliation.py); nothing is removed.

Upstream: `pkg/registry/rbac/rest/storage_rbac.go` (`PolicyData.EnsureRBACPolicy`: `wait.Poll(1s, 30s)` over
`ensureRBACPolicy`, which reconciles every object, logs and skips one that fails, and tries the whole round again
while any failed; after 30 s the hook fails with `unable to initialize roles: ...` and kube-apiserver exits;
`retryOnConflictOrServiceUnavailable` per object), `pkg/registry/rbac/reconciliation/reconcile_role.go` and
`reconcile_rolebindings.go` (`Run`: create, update, or delete-then-create for a binding whose roleRef changed; a
protected object with something missing is only logged; `RoleModifier.Create` / `RoleBindingClientAdapter.Create`
`tryEnsureNamespace` first). The RBAC API is served and the hook runs whatever the authorization mode
(`--authorization-mode=AlwaysAllow` too), as upstream's `RESTStorageProvider` is always installed.

On a fresh store (`seed`, when the server is built) the whole policy is written straight to storage as the hook's
first round would leave it (each object created by `kube-apiserver`), from templates made once per process through
the stores' create path, so a start costs no per-object validation; the hook then has nothing to do at start. Not
modelled: `wait.Poll`'s first wait (the first round runs at once), the pre-1.9 migrations
(`primeAggregatedClusterRoles`, `primeSplitClusterRoleBindings`).
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

from .. import apierrors as E
from ..admission.admitted import ControllerWrites, admitted
from ..auth import bootstrap_policy
from ..auth.reconciliation import CREATE, NONE, RECREATE, UPDATE, reconcile
from ..registry import meta as M
from ..registry.store import DeleteOptions
from ..storage import KeyExistsError
from ..storage.clone import clone
from ..storage.offload import Offload
from .reads import get_or_none

log = logging.getLogger("nsconform.reference_server.controller")
GROUP = "rbac.authorization.k8s.io"
FIELD_MANAGER = "kube-apiserver"
HOOK = "rbac/bootstrap-roles"
POLL_INTERVAL, POLL_TIMEOUT = 1.0, 30.0  # wait.Poll(1*time.Second, 30*time.Second, ...)
CONFLICT_RETRIES = 5  # retry.DefaultBackoff's steps
_PLURALS = {"Role": "roles", "RoleBinding": "rolebindings", "ClusterRole": "clusterroles",
            "ClusterRoleBinding": "clusterrolebindings"}


def _describe(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    where = f" in {meta['namespace']}" if meta.get("namespace") else ""
    return f"{obj['kind'].lower()}.{GROUP}/{meta['name']}{where}"


def _create(writes: ControllerWrites, store: Any, obj: dict[str, Any]) -> None:
    try:
        writes.create(store, obj, field_manager=FIELD_MANAGER)
    except E.StatusError as exc:
        if exc.code != 409:  # another replica made it meanwhile: as good
            raise


def _ensure_namespace(registry: Any, writes: ControllerWrites, namespace: str) -> None:
    """`tryEnsureNamespace`: create a missing namespace (409: made meanwhile)."""
    if namespace and get_or_none(registry.namespaces, "", namespace) is None:
        _create(writes, registry.namespaces, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})


def reconcile_one(registry: Any, writes: ControllerWrites, expected: dict[str, Any]) -> str:
    """One object's `ReconcileRoleOptions.Run` / `ReconcileRoleBindingOptions.Run` (Confirm: true), retried on a
    conflict; returns the operation done (a protected object: `none`)."""
    store = registry.group(GROUP, _PLURALS[expected["kind"]])
    meta = expected["metadata"]
    ns = meta.get("namespace", "")
    for attempt in range(CONFLICT_RETRIES):
        result = reconcile(get_or_none(store, ns, meta["name"]), expected)
        if result.operation == NONE:
            return NONE
        if result.protected:
            log.warning("skipped reconcile-protected %s with missing %s: %s", _describe(expected),
                        "permissions" if expected["kind"].endswith("Role") else "subjects", result.missing)
            return NONE
        try:
            if result.operation == CREATE:
                _ensure_namespace(registry, writes, ns)
                _create(writes, store, result.obj)
            elif result.operation == UPDATE:
                writes.update(store, ns, meta["name"], result.obj, field_manager=FIELD_MANAGER)
            elif result.operation == RECREATE:
                try:
                    writes.delete(store, ns, meta["name"], DeleteOptions())
                except E.StatusError as exc:
                    if exc.code != 404:
                        raise
                _create(writes, store, result.obj)
        except E.StatusError as exc:
            if exc.code == 409 and attempt + 1 < CONFLICT_RETRIES:
                continue
            raise
        log.debug("%s %s", {CREATE: "created", UPDATE: "updated", RECREATE: "recreated"}[result.operation],
                  _describe(expected))
        return result.operation
    return NONE


# the policy as its create would store it, per set of deviations: (plural, namespace, name, object)
_TEMPLATES: dict[frozenset[str], list[tuple[str, str, str, dict[str, Any]]]] = {}


def _templates(registry: Any) -> list[tuple[str, str, str, dict[str, Any]]]:
    """Every policy object through its store's create path (defaulting, managedFields of `kube-apiserver`,
    validation, normalisation), dry run on a scratch registry: once per process and set of deviations."""
    key = registry.deviations.names
    cached = _TEMPLATES.get(key)
    if cached is None:
        from ..registry import Registry
        from ..storage import MemoryStore
        scratch = Registry(MemoryStore(), registry.deviations)
        cached = []
        for expected in bootstrap_policy.policy():
            plural = _PLURALS[expected["kind"]]
            made = scratch.group(GROUP, plural).create(clone(expected), dry_run=True, field_manager=FIELD_MANAGER)
            meta = made["metadata"]
            cached.append((plural, meta.get("namespace", ""), meta["name"], made))
        _TEMPLATES[key] = cached
    return cached


def seed(registry: Any) -> int:
    """The hook's first round on a fresh store, written directly (after controller/bootstrap.py made the Roles'
    namespaces, as `tryEnsureNamespace` would): each template stamped with a new uid and the current time; an
    object already stored is kept (the hook reconciles it). Returns how many were created."""
    now = M.now()
    items = []
    for plural, namespace, name, template in _templates(registry):
        meta: dict[str, Any] = {}
        for k, v in template["metadata"].items():  # the store clones what it keeps: new dicts where we write
            if k == "uid":
                meta["uid"], meta["resourceVersion"] = M.new_uid(), ""  # (the key's position; storage fills it in)
            elif k == "creationTimestamp":
                meta[k] = now
            elif k == "managedFields":
                meta[k] = [{**entry, "time": now} for entry in v]
            else:
                meta[k] = v
        items.append((plural, namespace, name, {**template, "metadata": meta}))
    created = 0
    for result in registry.store.create_many(items):  # (etcd: pipelined, each its own revision)
        if isinstance(result, KeyExistsError):
            continue
        if isinstance(result, Exception):
            raise result
        created += 1
    return created


def ensure(registry: Any, writes: ControllerWrites, objects: Iterable[dict[str, Any]] | None = None) -> list[str]:
    """`ensureRBACPolicy`'s round: every object of the policy (default: all of it) reconciled, one that fails logged
    and skipped; returns the failures (empty: done)."""
    failures: list[str] = []
    for expected in bootstrap_policy.policy() if objects is None else objects:
        try:
            reconcile_one(registry, writes, expected)
        except E.StatusError as exc:
            failures.append(f"unable to reconcile {_describe(expected)}: {exc.message}")
            log.warning("%s: %s", HOOK, failures[-1])
    return failures


async def run_hook(registry: Any, writes: ControllerWrites, *, interval: float = POLL_INTERVAL,
                   timeout: float = POLL_TIMEOUT) -> str | None:
    """`EnsureRBACPolicy`: rounds every `interval` seconds until one succeeds (None) or `timeout` passed (the hook's
    error, `unable to initialize roles: ...`); each round's writes through the webhooks and policies."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    offload = Offload(registry.store, "rbac-bootstrap")  # etcd: the round's writes off the loop

    async def round_() -> list[str]:
        return await offload(ensure, registry, writes)
    while True:
        failures = await admitted(round_)
        if not failures:
            return None
        if loop.time() + interval > deadline:
            return "unable to initialize roles: timed out waiting for the condition"
        await asyncio.sleep(interval)
