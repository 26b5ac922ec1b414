"""kube-controller-manager's clusterrole-aggregation controller: an aggregating ClusterRole's rules are the
union of its selected roles' rules (selectors in order, roles by name, duplicates once), kept up to date,
written by a forced apply of manager `clusterrole-aggregation-controller`."""
from __future__ import annotations

from typing import Any

import requests

from conformance.reference_server.controller.clusterrole_aggregation import aggregated_rules
from conformance.reference_server.embedded import RunningServer
from tests.reference_server.ownserver import own_server

from .conftest import WatchReader, unique

G = "rbac.authorization.k8s.io"
ROLES = f"/apis/{G}/v1/clusterroles"
R1 = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}
R2 = {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}
R3 = {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["watch"]}


def cr(name: str, rules: list | None = None, labels: dict | None = None, selectors: list | None = None) -> dict:
    obj: dict[str, Any] = {"apiVersion": f"{G}/v1", "kind": "ClusterRole",
                           "metadata": {"name": name, "labels": labels or {}}}
    if rules is not None:
        obj["rules"] = rules
    if selectors is not None:
        obj["aggregationRule"] = {"clusterRoleSelectors": selectors}
    return obj


def test_union_order_and_dedup():
    agg = cr("agg", selectors=[{"matchLabels": {"x": "b"}}, {"matchExpressions": [
        {"key": "x", "operator": "Exists"}]}])
    roles = [agg, cr("z", [R1], {"x": "a"}), cr("c", [R2, R1], {"x": "b"}), cr("b", [R3], {"x": "b"}),
             cr("self-match", [R1], {"y": "1"})]
    assert aggregated_rules(agg, roles + [{**agg, "metadata": {"name": "agg", "labels": {"x": "b"}},
                                            "rules": [R3]}]) == [R3, R2, R1]
    assert aggregated_rules(cr("none", selectors=[]), roles) == []


srv = own_server(authorization="rbac")


def _call(srv: RunningServer, method: str, path: str, body: Any = None) -> requests.Response:
    return requests.request(method, srv.url + path, json=body, timeout=10,
                            headers={"Authorization": f"Bearer {srv.token}"})


def _until_rules(srv: RunningServer, name: str, rules: list, rv: str) -> dict:
    with WatchReader(srv.url + ROLES, {"fieldSelector": f"metadata.name={name}", "resourceVersion": rv},
                     {"Authorization": f"Bearer {srv.token}"}) as w:
        if (_call(srv, "GET", f"{ROLES}/{name}").json().get("rules") or []) == rules:
            return _call(srv, "GET", f"{ROLES}/{name}").json()
        return w.until(lambda e: (e["object"].get("rules") or []) == rules, 10, f"{name} with rules {rules}")[-1][
            "object"]


def test_aggregated_rules_follow_the_selected_roles(srv):
    label = unique("agg")
    a, b, agg = f"{label}-a", f"{label}-b", f"{label}-all"
    for obj in (cr(a, [R1], {"agg": label}), cr(b, [R2, R1], {"agg": label}),
                cr(agg, [R3], selectors=[{"matchLabels": {"agg": label}}])):
        r = _call(srv, "POST", ROLES, obj)
        assert r.status_code == 201, r.text
    rv = r.json()["metadata"]["resourceVersion"]
    got = _until_rules(srv, agg, [R1, R2], "0")
    entry = [m for m in got["metadata"]["managedFields"] if m["manager"] == "clusterrole-aggregation-controller"]
    assert entry and entry[0]["operation"] == "Apply", got["metadata"]["managedFields"]
    r = _call(srv, "PUT", f"{ROLES}/{a}", {**cr(a, [R3], {"agg": label})})
    assert r.status_code == 200, r.text
    got = _until_rules(srv, agg, [R3, R2, R1], rv)  # a (now R3) sorts before b
    r = _call(srv, "DELETE", f"{ROLES}/{b}")
    assert r.status_code == 200, r.text
    _until_rules(srv, agg, [R3], got["metadata"]["resourceVersion"])


def test_bootstrap_admin_edit_view_are_aggregated(srv):
    from conformance.reference_server.auth.bootstrap_policy import policy_files
    rules = {o["metadata"]["name"]: o.get("rules") for o in policy_files()["cluster-roles.yaml"]}
    AGGREGATE_TO_ADMIN, AGGREGATE_TO_EDIT, AGGREGATE_TO_VIEW = (
        rules[f"system:aggregate-to-{n}"] for n in ("admin", "edit", "view"))
    view = AGGREGATE_TO_VIEW
    edit = AGGREGATE_TO_EDIT + [r for r in view if r not in AGGREGATE_TO_EDIT]  # system:aggregate-to-edit < view
    admin = edit + [r for r in AGGREGATE_TO_ADMIN if r not in edit]             # edit < system:aggregate-to-admin
    for name, rules in (("view", view), ("edit", edit), ("admin", admin)):
        got = _until_rules(srv, name, rules, "0")
        assert got["aggregationRule"] == {"clusterRoleSelectors": [
            {"matchLabels": {f"{G}/aggregate-to-{name}": "true"}}]}
    labels = _call(srv, "GET", f"{ROLES}/edit").json()["metadata"]["labels"]
    assert labels == {"kubernetes.io/bootstrapping": "rbac-defaults", f"{G}/aggregate-to-admin": "true"}
