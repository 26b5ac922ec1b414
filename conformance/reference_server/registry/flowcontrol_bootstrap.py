"""The API Priority and Fairness configuration every kube-apiserver 1.33 makes
(`staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go`, read at k8s.io/apiserver v0.33.1): the
mandatory `exempt` and `catch-all` objects and the suggested ones, in its order, each with the
`apf.kubernetes.io/autoupdate-spec: "true"` annotation, their specs as stored (after
`pkg/apis/flowcontrol/v1/defaults.go`). Data only; `controller/apf_config.py` keeps them.
"""
from __future__ import annotations

from typing import Any

API_VERSION = "flowcontrol.apiserver.k8s.io/v1"
AUTOUPDATE_ANNOTATION = "apf.kubernetes.io/autoupdate-spec"

_ALL_RESOURCES = {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": True, "namespaces": ["*"]}
_ALL_NON_RESOURCES = {"verbs": ["*"], "nonResourceURLs": ["*"]}


def _groups(*names: str) -> list[dict[str, Any]]:
    return [{"kind": "Group", "group": {"name": n}} for n in names]


def _users(*names: str) -> list[dict[str, Any]]:
    return [{"kind": "User", "user": {"name": n}} for n in names]


def _kube_system_sas(*names: str) -> list[dict[str, Any]]:
    return [{"kind": "ServiceAccount", "serviceAccount": {"name": n, "namespace": "kube-system"}} for n in names]


def _rule(verbs: list[str], groups: list[str], resources: list[str], namespaces: list[str],
          cluster_scope: bool) -> dict[str, Any]:
    rule: dict[str, Any] = {"verbs": verbs, "apiGroups": groups, "resources": resources}
    if cluster_scope:
        rule["clusterScope"] = True
    rule["namespaces"] = namespaces
    return rule


def _everything(subjects: list[dict[str, Any]]) -> dict[str, Any]:
    return {"subjects": subjects, "resourceRules": [dict(_ALL_RESOURCES)],
            "nonResourceRules": [dict(_ALL_NON_RESOURCES)]}


def _fs(name: str, pl: str, precedence: int, method: str, *rules: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {"priorityLevelConfiguration": {"name": pl}, "matchingPrecedence": precedence}
    if method:
        spec["distinguisherMethod"] = {"type": method}
    spec["rules"] = list(rules)
    return {"apiVersion": API_VERSION, "kind": "FlowSchema",
            "metadata": {"name": name, "annotations": {AUTOUPDATE_ANNOTATION: "true"}}, "spec": spec}


def _limited(name: str, shares: int, lendable: int, queuing: tuple[int, int, int] | None) -> dict[str, Any]:
    response: dict[str, Any] = {"type": "Reject"}
    if queuing is not None:
        queues, hand, length = queuing
        response = {"type": "Queue", "queuing": {"queues": queues, "handSize": hand, "queueLengthLimit": length}}
    return {"apiVersion": API_VERSION, "kind": "PriorityLevelConfiguration",
            "metadata": {"name": name, "annotations": {AUTOUPDATE_ANNOTATION: "true"}},
            "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": shares, "lendablePercent": lendable,
                                                     "limitResponse": response}}}


_LEASES = _rule(["get", "create", "update"], ["coordination.k8s.io"], ["leases"], ["*"], False)

MANDATORY_PRIORITY_LEVELS: tuple[dict[str, Any], ...] = (
    _limited("catch-all", 5, 0, None),
    {"apiVersion": API_VERSION, "kind": "PriorityLevelConfiguration",
     "metadata": {"name": "exempt", "annotations": {AUTOUPDATE_ANNOTATION: "true"}},
     "spec": {"type": "Exempt", "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0}}},
)
MANDATORY_FLOW_SCHEMAS: tuple[dict[str, Any], ...] = (
    _fs("exempt", "exempt", 1, "", _everything(_groups("system:masters"))),
    _fs("catch-all", "catch-all", 10000, "ByUser",
        _everything(_groups("system:unauthenticated", "system:authenticated"))),
)
SUGGESTED_PRIORITY_LEVELS: tuple[dict[str, Any], ...] = (
    _limited("system", 30, 33, (64, 6, 50)),
    _limited("node-high", 40, 25, (64, 6, 50)),
    _limited("leader-election", 10, 0, (16, 4, 50)),
    _limited("workload-high", 40, 50, (128, 6, 50)),
    _limited("workload-low", 100, 90, (128, 6, 50)),
    _limited("global-default", 20, 50, (128, 6, 50)),
)
SUGGESTED_FLOW_SCHEMAS: tuple[dict[str, Any], ...] = (
    _fs("system-nodes", "system", 500, "ByUser", _everything(_groups("system:nodes"))),
    _fs("system-node-high", "node-high", 400, "ByUser",
        {"subjects": _groups("system:nodes"),
         "resourceRules": [_rule(["*"], [""], ["nodes", "nodes/status"], ["*"], True),
                           _rule(["*"], ["coordination.k8s.io"], ["leases"], ["*"], False)]}),
    _fs("probes", "exempt", 2, "",
        {"subjects": _groups("system:unauthenticated", "system:authenticated"),
         "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/readyz", "/livez"]}]}),
    _fs("system-leader-election", "leader-election", 100, "ByUser",
        {"subjects": _users("system:kube-controller-manager", "system:kube-scheduler") + _kube_system_sas("*"),
         "resourceRules": [_LEASES]}),
    _fs("workload-leader-election", "leader-election", 200, "ByUser",
        {"subjects": _kube_system_sas("*"),
         "resourceRules": [_rule(["get", "create", "update"], [""], ["endpoints", "configmaps"], ["*"], False),
                           _LEASES]}),
    _fs("endpoint-controller", "workload-high", 150, "ByUser",
        {"subjects": _users("system:kube-controller-manager")
         + _kube_system_sas("endpoint-controller", "endpointslicemirroring-controller"),
         "resourceRules": [_rule(["get", "create", "update"], [""], ["endpoints"], ["*"], False)]}),
    _fs("kube-controller-manager", "workload-high", 800, "ByNamespace",
        _everything(_users("system:kube-controller-manager"))),
    _fs("kube-scheduler", "workload-high", 800, "ByNamespace", _everything(_users("system:kube-scheduler"))),
    _fs("kube-system-service-accounts", "workload-high", 900, "ByNamespace", _everything(_kube_system_sas("*"))),
    _fs("service-accounts", "workload-low", 9000, "ByUser", _everything(_groups("system:serviceaccounts"))),
    _fs("global-default", "global-default", 9900, "ByUser",
        _everything(_groups("system:unauthenticated", "system:authenticated"))),
)

# (kind, name) → the spec a mandatory object must have (validation's fixed value)
MANDATORY_SPECS: dict[tuple[str, str], dict[str, Any]] = {
    (o["kind"], o["metadata"]["name"]): o["spec"] for o in MANDATORY_PRIORITY_LEVELS + MANDATORY_FLOW_SCHEMAS}

__all__ = ["AUTOUPDATE_ANNOTATION", "MANDATORY_FLOW_SCHEMAS", "MANDATORY_PRIORITY_LEVELS", "MANDATORY_SPECS",
           "SUGGESTED_FLOW_SCHEMAS", "SUGGESTED_PRIORITY_LEVELS"]
