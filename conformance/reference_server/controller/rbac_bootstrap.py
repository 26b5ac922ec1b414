"""kube-apiserver's `rbac/bootstrap-roles` post-start hook for the namespaced half of the bootstrap policy
(auth/bootstrap_namespaced.py): each Role and RoleBinding created when missing, on every start, by the loopback
client (manager `kube-apiserver`). The cluster-scoped half is seeded with the RBAC stores (http/authz.py).

Upstream: `pkg/registry/rbac/rest/storage_rbac.go` (`PolicyData.EnsureRBACPolicy`: `ReconcileRoleOptions` and
`ReconcileRoleBindingOptions` with `Confirm: true`, the `RoleModifier`/`RoleBindingClientAdapter` creating the
namespace first when it is missing, `tryEnsureNamespace`). Not modelled: the reconciliation of an existing object
that lost rules or subjects (upstream adds them back unless `autoupdate` is "false"); an existing object is kept.
"""
from __future__ import annotations

import copy
import logging
from typing import Any

from .. import apierrors as E
from ..admission.admitted import ControllerWrites, admitted
from ..auth.bootstrap_namespaced import NAMESPACE_POLICY
from .reads import get_or_none

log = logging.getLogger("nsconform.reference_server.controller")
GROUP = "rbac.authorization.k8s.io"
FIELD_MANAGER = "kube-apiserver"
_PLURALS = {"Role": "roles", "RoleBinding": "rolebindings"}


def _create(writes: ControllerWrites, store: Any, obj: dict[str, Any]) -> None:
    """Create `obj`; one another replica made meanwhile (409) is as good."""
    try:
        writes.create(store, obj, field_manager=FIELD_MANAGER)
    except E.StatusError as exc:
        if exc.code != 409:
            raise


def ensure(registry: Any, writes: ControllerWrites) -> None:
    """Create each missing namespaced bootstrap object (its namespace first, when missing)."""
    for obj in NAMESPACE_POLICY:
        store = registry.group(GROUP, _PLURALS[obj["kind"]])
        if store is None:  # RBAC not served (`--authorization always-allow`)
            return
        meta = obj["metadata"]
        if get_or_none(store, meta["namespace"], meta["name"]) is not None:
            continue
        if get_or_none(registry.namespaces, "", meta["namespace"]) is None:  # tryEnsureNamespace
            _create(writes, registry.namespaces,
                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": meta["namespace"]}})
        _create(writes, store, copy.deepcopy(obj))


async def ensure_admitted(registry: Any, writes: ControllerWrites) -> None:
    """`ensure` with its writes through the webhooks and policies; a refusal is logged (upstream retries for 30 s,
    then kube-apiserver fails its post-start hook)."""
    async def run() -> None:
        ensure(registry, writes)
    try:
        await admitted(run)
    except E.StatusError as exc:
        log.warning("rbac/bootstrap-roles: %s", exc.message)
