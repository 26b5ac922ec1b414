"""Each named deviation breaks the rule it names (and the default server keeps it, see the other tests)."""
from __future__ import annotations

import json

import pytest
import requests

from conformance.reference_server.deviations import DEVIATIONS, Deviations
from conformance.reference_server.embedded import start_embedded

from .conftest import WatchReader, wait_gone

MERGE = {"Content-Type": "application/merge-patch+json"}
TESTED: set[str] = set()


def deviant(name: str, **kw):
    TESTED.add(name)
    return start_embedded(deviations=[name], flavor="bare", **kw)


class Client:
    def __init__(self, srv):
        self.url, self.s = srv.url, requests.Session()

    def ns(self, name, **spec):
        body = {"metadata": {"name": name}}
        if spec:
            body["spec"] = spec
        return self.s.post(f"{self.url}/api/v1/namespaces", json=body)

    def cm(self, ns, name, **meta):
        return self.s.post(f"{self.url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": name, **meta}})

    def get(self, path, **kw):
        return self.s.get(self.url + path, **kw)

    def delete(self, path, **kw):
        return self.s.delete(self.url + path, **kw)


@pytest.fixture
def run():
    opened = []

    def start(name, **kw):
        srv = deviant(name, **kw)
        opened.append(srv)
        return srv, Client(srv)

    yield start
    for srv in opened:
        srv.stop()


def test_registry_contract():
    assert all(d.name == n and d.description and isinstance(d.clauses, tuple) for n, d in DEVIATIONS.items())
    with pytest.raises(ValueError):
        Deviations(["nope"])
    with pytest.raises(ValueError):
        start_embedded(deviations=["nope"])


def test_no_default_finalizer(run):
    _, c = run("no-default-finalizer")
    assert "finalizers" not in c.ns("a").json()["spec"]


def test_replace_user_finalizers(run):
    _, c = run("replace-user-finalizers")
    assert c.ns("a", finalizers=["example.com/x"]).json()["spec"]["finalizers"] == ["kubernetes"]


def test_accept_unqualified_finalizers(run):
    _, c = run("accept-unqualified-finalizers")
    assert c.ns("a", finalizers=["foo"]).status_code == 201


def test_update_changes_finalizers(run):
    _, c = run("update-changes-finalizers")
    c.ns("a")
    r = c.s.patch(f"{c.url}/api/v1/namespaces/a", data=json.dumps({"spec": {"finalizers": ["example.com/y"]}}),
                  headers=MERGE)
    assert r.json()["spec"]["finalizers"] == ["example.com/y"]


def test_finalize_any_verb(run):
    _, c = run("finalize-any-verb")
    ns = c.ns("a").json()
    ns["spec"]["finalizers"] = ["kubernetes", "example.com/z"]
    r = c.s.post(f"{c.url}/api/v1/namespaces/a/finalize", json=ns)
    assert r.status_code == 200 and r.json()["spec"]["finalizers"] == ["kubernetes", "example.com/z"]
    srv2 = deviant("finalize-any-verb", profile="design")
    try:
        c2 = Client(srv2)
        ns = c2.ns("b").json()
        assert c2.s.put(f"{c2.url}/api/v1/namespaces/b/finalize", json=ns).status_code == 200
    finally:
        srv2.stop()


def test_finalize_as_content(run):
    _, c = run("finalize-as-content")
    c.ns("a")
    r = c.s.post(f"{c.url}/api/v1/namespaces/a/finalize", json={"metadata": {"name": "x"}})
    assert r.status_code == 201 and r.json()["metadata"]["namespace"] == "a"


def test_accept_namespace_mismatch(run):
    _, c = run("accept-namespace-mismatch")
    c.ns("a")
    assert c.cm("a", "x", namespace="b").status_code == 201


def test_no_namespace_defaulting(run):
    _, c = run("no-namespace-defaulting")
    c.ns("a")
    assert c.cm("a", "x").status_code != 201


def test_content_in_missing_namespace(run):
    _, c = run("content-in-missing-namespace")
    assert c.cm("nope", "x").status_code == 201


def test_content_in_terminating_namespace(run):
    _, c = run("content-in-terminating-namespace")
    c.ns("a", finalizers=["example.com/hold"])
    c.delete("/api/v1/namespaces/a")
    assert c.cm("a", "x").status_code == 201


def test_delete_keeps_active(run):
    _, c = run("delete-keeps-active", controller_delay=30)
    c.ns("a")
    assert c.delete("/api/v1/namespaces/a").json()["status"]["phase"] == "Active"


def test_delete_immediately(run):
    _, c = run("delete-immediately")
    c.ns("a")
    c.cm("a", "x")
    c.delete("/api/v1/namespaces/a")
    assert c.get("/api/v1/namespaces/a").status_code == 404


def test_controller_skips_content(run):
    srv, c = run("controller-skips-content")
    c.ns("a")
    c.cm("a", "x")
    c.delete("/api/v1/namespaces/a")
    wait_gone(c.s, srv.url, "a")
    assert [i["metadata"]["name"] for i in c.get("/api/v1/namespaces/a/configmaps").json()["items"]] == ["x"]


def test_controller_removes_foreign_finalizers(run):
    srv, c = run("controller-removes-foreign-finalizers")
    c.ns("a", finalizers=["example.com/origin"])
    c.delete("/api/v1/namespaces/a")
    wait_gone(c.s, srv.url, "a")


def test_vanish_with_content_finalizers(run):
    srv, c = run("vanish-with-content-finalizers")
    c.ns("a")
    c.cm("a", "held", finalizers=["example.com/keep"])
    c.delete("/api/v1/namespaces/a")
    wait_gone(c.s, srv.url, "a")
    assert c.get("/api/v1/namespaces/a/configmaps/held").status_code == 200


def test_cluster_list_misses_namespaces(run):
    _, c = run("cluster-list-misses-namespaces")
    for ns in ("x-a", "x-b"):  # after kube-system (which holds kube-apiserver's ConfigMap), as the suites' nsc-*
        c.ns(ns)
        c.cm(ns, "x")
    namespaces = {i["metadata"]["namespace"] for i in c.get("/api/v1/configmaps").json()["items"]}
    assert "x-a" in namespaces and "x-b" not in namespaces


def test_watch_no_deleted(run):
    srv, c = run("watch-no-deleted")
    rv = c.ns("a").json()["metadata"]["resourceVersion"]
    c.s.put(f"{srv.url}/api/v1/namespaces/a/finalize", json={"metadata": {"name": "a"}, "spec": {}})
    c.delete("/api/v1/namespaces/a")
    c.delete("/api/v1/namespaces/a")
    assert c.get("/api/v1/namespaces/a").status_code == 404
    with WatchReader(f"{srv.url}/api/v1/namespaces", {"resourceVersion": rv, "timeoutSeconds": "1"}) as w:
        assert "DELETED" not in [e["type"] for e in w.rest()]


def test_cluster_watch_misses_events(run):
    srv, c = run("cluster-watch-misses-events")
    rv = c.ns("a").json()["metadata"]["resourceVersion"]
    c.ns("b")
    with WatchReader(f"{srv.url}/api/v1/configmaps", {"resourceVersion": rv, "timeoutSeconds": "1"}) as w:
        c.cm("a", "x")
        c.cm("b", "y")
        seen = {e["object"]["metadata"]["namespace"] for e in w.rest()}
    assert seen != {"a", "b"}


def test_accept_invalid_names(run):
    _, c = run("accept-invalid-names")
    assert c.ns("Bad.Name").status_code == 201


def test_names_unique_across_namespaces(run):
    _, c = run("names-unique-across-namespaces")
    c.ns("a")
    c.ns("b")
    assert c.cm("a", "same").status_code == 201
    assert c.cm("b", "same").status_code == 409


def test_phase_from_body(run):
    _, c = run("phase-from-body")
    r = c.s.post(f"{c.url}/api/v1/namespaces", json={"metadata": {"name": "a"}, "status": {"phase": "Terminating"}})
    assert r.json()["status"]["phase"] == "Terminating"


def test_second_delete_conflict(run):
    _, c = run("second-delete-conflict")
    c.ns("a", finalizers=["example.com/hold"])
    c.delete("/api/v1/namespaces/a")
    r = c.delete("/api/v1/namespaces/a")
    assert r.status_code == 409 and "The system is ensuring all content is removed" in r.json()["message"]


def test_default_deletable(run):
    _, c = run("default-deletable")
    assert c.delete("/api/v1/namespaces/default").status_code == 200
    assert c.delete("/api/v1/namespaces/kube-system").status_code == 403


def test_no_metadata_name_label(run):
    _, c = run("no-metadata-name-label")
    assert "kubernetes.io/metadata.name" not in (c.ns("a").json()["metadata"].get("labels") or {})


def test_plain_text_errors(run):
    _, c = run("plain-text-errors")
    r = c.get("/api/v1/namespaces/nope")
    assert r.status_code == 404 and r.headers["Content-Type"].startswith("text/plain")
    assert r.text == 'namespaces "nope" not found'


def test_every_deviation_has_a_test():
    """The first batch is proven here; the later batch (`_MORE`) is proven caught by its clause's suite
    tests in `nsconform sensitivity` and wired by tests/test_sensitivity.py."""
    import sys

    from conformance.reference_server import deviations

    mod = sys.modules[__name__]
    names = {n[len("test_"):].replace("_", "-") for n in dir(mod) if n.startswith("test_")}
    assert set(DEVIATIONS) - {name for name, _ in deviations._MORE} <= names


# ---- the namespace as a scope (docs/scope.md): RBAC (with authorization="rbac"), quota, LimitRange ------
def _scope(run, name, rbac=True):
    from .scope_client import ScopeClient

    srv, _ = run(name, **({"authorization": "rbac"} if rbac else {}))
    return ScopeClient(srv)


def test_rbac_ignores_bindings(run):
    c = _scope(run, "rbac-ignores-bindings")
    a = c.ns("a")
    c.grant(a, "u", ["list"])
    assert c.get(f"/api/v1/namespaces/{a}/configmaps", "u").status_code == 403


def test_rbac_ignores_namespace(run):
    c = _scope(run, "rbac-ignores-namespace")
    a, b = c.ns("a"), c.ns("b")
    c.grant(a, "u", ["list"])
    assert c.get(f"/api/v1/namespaces/{b}/configmaps", "u").status_code == 200


def test_cross_namespace_list_unchecked(run):
    c = _scope(run, "cross-namespace-list-unchecked")
    assert c.get("/api/v1/configmaps", "u").status_code == 200
    assert c.get("/api/v1/namespaces", "u").status_code == 403


def test_rbac_verb_wildcard(run):
    c = _scope(run, "rbac-verb-wildcard")
    a = c.ns("a")
    c.grant(a, "u", ["get"])
    assert c.cm(a, "x", "u").status_code == 201


def test_clusterrole_binding_scope(run):
    c = _scope(run, "clusterrole-binding-scope")
    a, b = c.ns("a"), c.ns("b")
    c.grant(a, "u", ["list"], role_kind="ClusterRole")
    assert c.get(f"/api/v1/namespaces/{b}/configmaps", "u").status_code == 200


def test_quota_usage_not_tracked(run):
    c = _scope(run, "quota-usage-not-tracked", rbac=False)
    a = c.ns("a")
    c.quota(a, {"count/configmaps": "1"})
    assert [c.cm(a, n).status_code for n in ("x", "y")] == [201, 201]
    assert c.used(a) == {"count/configmaps": "0"}


def test_quota_not_enforced(run):
    c = _scope(run, "quota-not-enforced", rbac=False)
    a = c.ns("a")
    c.quota(a, {"count/configmaps": "1"})
    assert [c.cm(a, n).status_code for n in ("x", "y")] == [201, 201]
    c.until_used(a, "q", {"count/configmaps": "2"})  # the controller still counts


def test_quota_not_released(run):
    c = _scope(run, "quota-not-released", rbac=False)
    a = c.ns("a")
    c.quota(a, {"count/configmaps": "1"})
    assert c.cm(a, "x").status_code == 201
    assert c.delete(f"/api/v1/namespaces/{a}/configmaps/x").status_code == 200
    assert c.used(a) == {"count/configmaps": "1"}
    assert c.cm(a, "y").status_code == 403


def test_quota_cluster_wide(run):
    c = _scope(run, "quota-cluster-wide", rbac=False)
    a, b = c.ns("a"), c.ns("b")
    c.quota(a, {"count/configmaps": "1"})
    assert c.cm(a, "x").status_code == 201
    c.until_used(a, "q", {"count/configmaps": "1"})
    assert c.cm(b, "x").status_code == 403


def test_quota_ignores_compute(run):
    c = _scope(run, "quota-ignores-compute", rbac=False)
    a = c.ns("a")
    c.quota(a, {"requests.cpu": "1"})
    assert c.pod(a, "p").status_code == 201


def test_limitrange_defaults_ignored(run):
    c = _scope(run, "limitrange-defaults-ignored", rbac=False)
    a = c.ns("a")
    c.limit_range(a, {"type": "Container", "default": {"cpu": "200m"}})
    r = c.pod(a, "p")
    assert r.status_code == 201 and r.json()["spec"]["containers"][0].get("resources") in (None, {})


def test_limitrange_not_enforced(run):
    c = _scope(run, "limitrange-not-enforced", rbac=False)
    a = c.ns("a")
    c.limit_range(a, {"type": "Container", "min": {"cpu": "100m"}})
    assert c.pod(a, "p", {"requests": {"cpu": "50m"}}).status_code == 201


def test_limitrange_cluster_wide(run):
    c = _scope(run, "limitrange-cluster-wide", rbac=False)
    a, b = c.ns("a"), c.ns("b")
    c.limit_range(a, {"type": "Container", "min": {"cpu": "100m"}})
    assert c.pod(b, "p", {"requests": {"cpu": "50m"}}).status_code == 403


def test_field_selector_deviations_read_the_selector_as_the_parser_does(run):
    """registry/namespace.py `predicate`: its deviations see the terms `fields.ParseSelector` sees (an escaped
    comma is data, not a separator), and leave a selector the parser refuses to the store's own 400."""
    _, c = run("unknown-field-selector-ignored")
    c.ns("a")
    r = c.get("/api/v1/namespaces", params={"fieldSelector": "metadata.name=a\\,b,spec.x=y"})
    assert r.status_code == 200 and r.json()["items"] == []  # `metadata.name` is "a,b"; `spec.x` is ignored
    r = c.get("/api/v1/namespaces", params={"fieldSelector": "metadata.name=a,spec.x=y\\,z"})
    assert [i["metadata"]["name"] for i in r.json()["items"]] == ["a"]
    _, c = run("phase-field-selector-unsupported")
    r = c.get("/api/v1/namespaces", params={"fieldSelector": "metadata.name=x\\,status.phase==y"})
    assert (r.status_code, r.json()["message"]) == (400, "invalid field selector: unescaped character in value: 61")
    r = c.get("/api/v1/namespaces", params={"fieldSelector": "metadata.name=x\\,status.phase\\=y"})
    assert r.status_code == 200 and r.json()["items"] == []
    r = c.get("/api/v1/namespaces", params={"fieldSelector": "metadata.name=x,status.phase=y"})
    assert (r.status_code, r.json()["message"]) == (400, "field label not supported: status.phase")
