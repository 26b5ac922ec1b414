"""The bootstrap user-facing roles (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`,
`ClusterRoles()`; expanded in its `testdata/cluster-roles.yaml`): `admin`, `edit` and `view` carry only an
`aggregationRule` (their rules are filled by the clusterrole-aggregation controller, controller/
clusterrole_aggregation.py), `edit` is aggregated into `admin` and `view` into `edit` by label, and the
`system:aggregate-to-{admin,edit,view}` roles hold the rules, as upstream lists them.
"""
from __future__ import annotations

from typing import Any

GROUP = "rbac.authorization.k8s.io"
TO_ADMIN = f"{GROUP}/aggregate-to-admin"
TO_EDIT = f"{GROUP}/aggregate-to-edit"
TO_VIEW = f"{GROUP}/aggregate-to-view"
READ = ["get", "list", "watch"]
WRITE = ["create", "delete", "deletecollection", "patch", "update"]
ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


def _rule(groups: list[str], resources: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources, "verbs": verbs}


def _role(name: str, labels: dict[str, str], *, rules: list[dict[str, Any]] | None = None,
          aggregate: str | None = None) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": f"{GROUP}/v1", "kind": "ClusterRole",
        "metadata": {"name": name, "labels": {"kubernetes.io/bootstrapping": "rbac-defaults", **labels},
                     "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"}}}
    if aggregate is not None:
        obj["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {aggregate: "true"}}]}
    if rules is not None:
        obj["rules"] = rules
    return obj


AGGREGATE_TO_ADMIN = [
    _rule(["authorization.k8s.io"], ["localsubjectaccessreviews"], ["create"]),
    _rule([GROUP], ["rolebindings", "roles"], ALL),
]

AGGREGATE_TO_EDIT = [
    _rule([""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"], READ),
    _rule([""], ["serviceaccounts"], ["impersonate"]),
    _rule([""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"], WRITE),
    _rule([""], ["pods/eviction"], ["create"]),
    _rule([""], ["configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
                 "replicationcontrollers/scale", "secrets", "serviceaccounts", "services", "services/proxy"], WRITE),
    _rule([""], ["serviceaccounts/token"], ["create"]),
    _rule(["apps"], ["daemonsets", "deployments", "deployments/rollback", "deployments/scale", "replicasets",
                     "replicasets/scale", "statefulsets", "statefulsets/scale"], WRITE),
    _rule(["autoscaling"], ["horizontalpodautoscalers"], WRITE),
    _rule(["batch"], ["cronjobs", "jobs"], WRITE),
    _rule(["extensions"], ["daemonsets", "deployments", "deployments/rollback", "deployments/scale", "ingresses",
                           "networkpolicies", "replicasets", "replicasets/scale", "replicationcontrollers/scale"],
          WRITE),
    _rule(["policy"], ["poddisruptionbudgets"], WRITE),
    _rule(["networking.k8s.io"], ["ingresses", "networkpolicies"], WRITE),
    _rule(["coordination.k8s.io"], ["leases"], ALL),
]

AGGREGATE_TO_VIEW = [
    _rule([""], ["configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "pods",
                 "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services",
                 "services/status"], READ),
    _rule([""], ["bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status",
                 "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"], READ),
    _rule([""], ["namespaces"], READ),
    _rule(["discovery.k8s.io"], ["endpointslices"], READ),
    _rule(["apps"], ["controllerrevisions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                     "deployments/status", "replicasets", "replicasets/scale", "replicasets/status", "statefulsets",
                     "statefulsets/scale", "statefulsets/status"], READ),
    _rule(["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"], READ),
    _rule(["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"], READ),
    _rule(["extensions"], ["daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                           "deployments/status", "ingresses", "ingresses/status", "networkpolicies", "replicasets",
                           "replicasets/scale", "replicasets/status", "replicationcontrollers/scale"], READ),
    _rule(["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"], READ),
    _rule(["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"], READ),
]

AGGREGATED_ROLES: tuple[dict[str, Any], ...] = (
    _role("admin", {}, aggregate=TO_ADMIN),
    _role("edit", {TO_ADMIN: "true"}, aggregate=TO_EDIT),
    _role("view", {TO_EDIT: "true"}, aggregate=TO_VIEW),
    _role("system:aggregate-to-admin", {TO_ADMIN: "true"}, rules=AGGREGATE_TO_ADMIN),
    _role("system:aggregate-to-edit", {TO_EDIT: "true"}, rules=AGGREGATE_TO_EDIT),
    _role("system:aggregate-to-view", {TO_VIEW: "true"}, rules=AGGREGATE_TO_VIEW),
)
