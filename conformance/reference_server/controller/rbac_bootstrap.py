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
`tryEnsureNamespace` first). The hook runs whenever the RBAC API is served, whatever the authorization mode; this
server serves that API only with `--authorization rbac`. Not modelled: `wait.Poll`'s first wait (the first round
runs at once), the pre-1.9 migrations (`primeAggregatedClusterRoles`, `primeSplitClusterRoleBindings`).
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
from ..registry.store import DeleteOptions
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


def ensure(registry: Any, writes: ControllerWrites, objects: Iterable[dict[str, Any]] | None = None) -> list[str]:
    """`ensureRBACPolicy`'s round: every object of the policy (default: all of it) reconciled, one that fails logged
    and skipped; returns the failures (empty: done). Nothing to do where the RBAC API is not served."""
    if registry.group(GROUP, "clusterroles") is None:  # `--authorization always-allow`: RBAC not served here
        return []
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
