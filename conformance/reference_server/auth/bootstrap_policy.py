"""kube-apiserver 1.33's bootstrap RBAC policy, read from data files in upstream's golden-file form.

Upstream: `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go` (`ClusterRoles`, `ClusterRoleBindings`:
the user-facing, aggregated and system roles), `controller_policy.go` (`ControllerRoles`,
`ControllerRoleBindings`: one `system:controller:<name>` ClusterRole per kube-controller-manager controller,
bound to the `kube-system/<name>` service account), `namespace_policy.go` (`NamespaceRoles`,
`NamespaceRoleBindings`), each expanded in `testdata/{cluster-roles,cluster-role-bindings,controller-roles,
controller-role-bindings,namespace-roles,namespace-role-bindings}.yaml`, whose form `auth/policy/*.yaml` keeps
(the default feature gates of 1.33: no DynamicResourceAllocation, ClusterTrustBundle, VolumeAttributesClass or
StorageVersionMigrator rules). `addDefaultMetadata`: every object carries the `kubernetes.io/bootstrapping:
rbac-defaults` label and the `rbac.authorization.kubernetes.io/autoupdate: "true"` annotation.

`storage_rbac.go` (`PolicyData`) reconciles the cluster roles, then the controller roles, then the bindings in
the same order, then the namespaced roles and bindings: `policy()` is that order (controller/rbac_bootstrap.py).
"""
from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).with_name("policy")
AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"
BOOTSTRAPPING = "kubernetes.io/bootstrapping"


def _load(name: str) -> tuple[dict[str, Any], ...]:
    """The items of one golden file; `null` fields (an aggregated role's rules, `system:node`'s subjects) are
    left out, as the API's omitempty would leave them."""
    doc = yaml.safe_load((DATA / name).read_text())
    return tuple({k: v for k, v in item.items() if v is not None} for item in doc["items"])


@cache
def policy_files() -> dict[str, tuple[dict[str, Any], ...]]:
    """Each golden file's objects, by file name (read once)."""
    return {name: _load(name) for name in (
        "cluster-roles.yaml", "controller-roles.yaml", "cluster-role-bindings.yaml", "controller-role-bindings.yaml",
        "namespace-roles.yaml", "namespace-role-bindings.yaml")}


def cluster_policy() -> tuple[dict[str, Any], ...]:
    """ClusterRoles (system, then controllers'), then ClusterRoleBindings likewise."""
    files = policy_files()
    return (files["cluster-roles.yaml"] + files["controller-roles.yaml"] + files["cluster-role-bindings.yaml"]
            + files["controller-role-bindings.yaml"])


def namespace_policy() -> tuple[dict[str, Any], ...]:
    """The namespaced Roles, then RoleBindings (kube-system's and kube-public's)."""
    files = policy_files()
    return files["namespace-roles.yaml"] + files["namespace-role-bindings.yaml"]


def policy() -> tuple[dict[str, Any], ...]:
    """The whole bootstrap policy, in `EnsureRBACPolicy`'s order."""
    return cluster_policy() + namespace_policy()


__all__ = ["AUTOUPDATE", "BOOTSTRAPPING", "cluster_policy", "namespace_policy", "policy", "policy_files"]
