"""auth/reconciliation.py: `computeReconciledRole` / `computeReconciledRoleBinding` with upstream's union semantics
(pkg/registry/rbac/reconciliation): missing rules added broken down, nothing removed, stored labels and annotations
win, a changed roleRef recreates, `autoupdate: "false"` protects."""
from __future__ import annotations

import copy

from conformance.reference_server.auth.reconciliation import (
    CREATE,
    NONE,
    RECREATE,
    UPDATE,
    reconcile_binding,
    reconcile_role,
)

G = "rbac.authorization.k8s.io"
META = {"name": "r", "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
        "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"}}
ROLE = {"kind": "ClusterRole", "metadata": META, "rules": [
    {"apiGroups": [""], "resources": ["pods", "services"], "verbs": ["get", "list"]},
    {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]}


def test_missing_role_is_created_as_the_policy_has_it():
    result = reconcile_role(None, ROLE)
    assert result.operation == CREATE and result.obj == ROLE and result.obj is not ROLE


def test_lost_rules_come_back_broken_down_and_extra_ones_stay():
    stored = copy.deepcopy(ROLE)
    stored["rules"] = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "delete"]}]
    stored["metadata"]["resourceVersion"] = "7"
    result = reconcile_role(stored, ROLE)
    assert result.operation == UPDATE and not result.protected
    assert result.obj["rules"] == stored["rules"] + [
        {"apiGroups": [""], "resources": ["services"], "verbs": ["get"]},
        {"apiGroups": [""], "resources": ["services"], "verbs": ["list"]},
        {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]
    assert result.obj["metadata"]["resourceVersion"] == "7"  # an update of what was read


def test_covered_role_is_left_alone_and_stored_metadata_wins():
    stored = copy.deepcopy(ROLE)
    stored["rules"] = [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                       {"nonResourceURLs": ["*"], "verbs": ["*"]}]
    assert reconcile_role(stored, ROLE).operation == NONE
    stored["metadata"]["labels"] = {"kubernetes.io/bootstrapping": "mine"}
    assert reconcile_role(stored, ROLE).operation == NONE  # the stored value wins over the policy's
    del stored["metadata"]["labels"]
    result = reconcile_role(stored, ROLE)
    assert result.operation == UPDATE and result.obj["metadata"]["labels"] == META["labels"]


def test_autoupdate_false_protects():
    stored = copy.deepcopy(ROLE)
    stored["rules"] = []
    stored["metadata"]["annotations"] = {"rbac.authorization.kubernetes.io/autoupdate": "false"}
    result = reconcile_role(stored, ROLE)
    assert result.protected and result.operation == UPDATE and len(result.missing) == 5


def test_aggregation_selectors_are_added_and_an_unexpected_rule_dropped():
    want = {"kind": "ClusterRole", "metadata": META, "aggregationRule": {"clusterRoleSelectors": [
        {"matchLabels": {"a": "true"}}]}}
    stored = {"kind": "ClusterRole", "metadata": META, "aggregationRule": {"clusterRoleSelectors": [
        {"matchLabels": {"b": "true"}}]}, "rules": [{"apiGroups": [""], "resources": ["x"], "verbs": ["get"]}]}
    result = reconcile_role(stored, want)
    assert result.operation == UPDATE
    assert result.obj["aggregationRule"]["clusterRoleSelectors"] == [{"matchLabels": {"b": "true"}},
                                                                     {"matchLabels": {"a": "true"}}]
    plain = reconcile_role(stored, ROLE)
    assert "aggregationRule" not in plain.obj and plain.operation == UPDATE


def test_bindings_gain_subjects_and_a_changed_role_ref_recreates():
    want = {"kind": "ClusterRoleBinding", "metadata": META,
            "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": "r"},
            "subjects": [{"apiGroup": G, "kind": "Group", "name": "a"}, {"apiGroup": G, "kind": "Group", "name": "b"}]}
    stored = copy.deepcopy(want)
    stored["subjects"] = [{"apiGroup": G, "kind": "User", "name": "me"}, want["subjects"][1]]
    result = reconcile_binding(stored, want)
    assert result.operation == UPDATE and result.obj["subjects"] == stored["subjects"] + [want["subjects"][0]]
    assert reconcile_binding(want, want).operation == NONE
    stored["roleRef"] = {"apiGroup": G, "kind": "ClusterRole", "name": "other"}
    result = reconcile_binding(stored, want)
    assert result.operation == RECREATE and result.obj == want
