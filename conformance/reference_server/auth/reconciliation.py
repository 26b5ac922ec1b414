"""Reconciling a stored RBAC object with the bootstrap policy's, as kube-apiserver's `rbac/bootstrap-roles` hook
does at every start: missing objects are created, missing rules, aggregation selectors and subjects added (the
union: nothing is ever removed), labels and annotations merged with the stored values winning, and an object
whose `rbac.authorization.kubernetes.io/autoupdate` annotation is "false" left as it is.

Upstream: `pkg/registry/rbac/reconciliation/reconcile_role.go` (`computeReconciledRole` with
`removeExtraPermissions` false: `validation.Covers(existing, expected)` gives the missing rules broken down
(`BreakdownRule`) and appends them; `getMissingAggregationRuleSelectors`; an aggregation rule the policy does not
expect is dropped), `reconcile_rolebindings.go` (`computeReconciledRoleBinding`: a changed `roleRef` resets the
binding to the policy's, deleted and created again; missing subjects are appended), `helpers.go` (`merge`: later maps win, the stored ones come last).
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .bootstrap_policy import AUTOUPDATE
from .escalation import covers

NONE, CREATE, UPDATE, RECREATE = "none", "create", "update", "recreate"  # ReconcileOperation


@dataclass
class Result:
    """`ReconcileClusterRoleResult` / `ReconcileClusterRoleBindingResult`: the object to write and how."""

    operation: str
    obj: dict[str, Any]
    protected: bool = False
    missing: list[dict[str, Any]] = field(default_factory=list)  # rules, selectors or subjects added


def _merged(expected: Mapping[str, Any], existing: Mapping[str, Any], key: str) -> dict[str, str]:
    """`merge(expected, existing)`: the stored values override the policy's."""
    return {**(expected.get(key) or {}), **(existing.get(key) or {})}


def _start(existing: dict[str, Any], expected: Mapping[str, Any]) -> Result:
    """A copy of the stored object with the labels and annotations merged; `update` when they changed."""
    meta = existing.get("metadata") or {}
    obj = copy.deepcopy(existing)
    result = Result(NONE, obj, protected=(meta.get("annotations") or {}).get(AUTOUPDATE) == "false")
    for key in ("annotations", "labels"):
        merged = _merged(expected["metadata"], meta, key)
        if merged != (meta.get(key) or {}):
            result.operation = UPDATE
        if merged or key in meta:
            obj["metadata"][key] = merged
    return result


def reconcile_role(existing: dict[str, Any] | None, expected: Mapping[str, Any]) -> Result:
    """`computeReconciledRole` (the union), for a Role or ClusterRole; `existing` None: create."""
    if existing is None:
        return Result(CREATE, copy.deepcopy(dict(expected)))
    result = _start(existing, expected)
    missing = covers(existing.get("rules") or [], expected.get("rules") or [])
    if missing:
        result.obj["rules"] = list(result.obj.get("rules") or []) + missing
        result.operation, result.missing = UPDATE, missing
    want, have = expected.get("aggregationRule"), existing.get("aggregationRule")
    if want is None and have is not None:
        result.obj.pop("aggregationRule", None)
        result.operation = UPDATE
    elif want is not None:
        stored = list((have or {}).get("clusterRoleSelectors") or [])
        selectors = [s for s in want.get("clusterRoleSelectors") or [] if s not in stored]
        if selectors:
            result.obj["aggregationRule"] = {**(have or {}), "clusterRoleSelectors": stored + selectors}
            result.operation = UPDATE
            result.missing = result.missing + selectors
    return result


def reconcile_binding(existing: dict[str, Any] | None, expected: Mapping[str, Any]) -> Result:
    """`computeReconciledRoleBinding` (subjects added, none removed), for a RoleBinding or ClusterRoleBinding."""
    if existing is None:
        return Result(CREATE, copy.deepcopy(dict(expected)))
    if existing.get("roleRef") != expected.get("roleRef"):  # roleRef is immutable: reset, deleted then created
        protected = ((existing.get("metadata") or {}).get("annotations") or {}).get(AUTOUPDATE) == "false"
        return Result(RECREATE, copy.deepcopy(dict(expected)), protected=protected)
    result = _start(existing, expected)
    stored = list(existing.get("subjects") or [])
    missing = [s for s in expected.get("subjects") or [] if s not in stored]
    if missing:
        result.obj["subjects"] = stored + copy.deepcopy(missing)
        result.operation, result.missing = UPDATE, missing
    return result


def reconcile(existing: dict[str, Any] | None, expected: Mapping[str, Any]) -> Result:
    """The reconciliation of `expected`'s kind."""
    if expected["kind"] in ("Role", "ClusterRole"):
        return reconcile_role(existing, expected)
    return reconcile_binding(existing, expected)


__all__ = ["CREATE", "NONE", "RECREATE", "UPDATE", "Result", "reconcile", "reconcile_binding", "reconcile_role"]
