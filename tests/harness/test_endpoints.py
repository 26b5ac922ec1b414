"""The endpoint table: per-profile rows, matching precedence, profile-aware paths."""

from __future__ import annotations

import pytest

from conformance import endpoints as E


@pytest.mark.parametrize("method, path, kubernetes, design", [
    ("POST", "/api/v1/namespaces", "ns-create", "ns-create"),
    ("GET", "/api/v1/namespaces", "ns-list", "ns-list"),
    ("GET", "/api/v1/namespaces?watch=true", "ns-watch", None),
    ("GET", "/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3Dx", "ns-watch", None),
    ("GET", "/api/v1/namespaces?watch=false", "ns-list", "ns-list"),
    ("GET", "/api/v1/namespaces/x", "ns-get", None),
    ("PUT", "/api/v1/namespaces/x", "ns-update", "ns-update"),
    ("PATCH", "/api/v1/namespaces/x", "ns-patch", None),
    ("DELETE", "/api/v1/namespaces/x", "ns-delete", "ns-delete"),
    ("PUT", "/api/v1/namespaces/x/finalize", "ns-finalize", None),
    ("POST", "/api/v1/namespaces/x/finalize", "ns-finalize-post-405", "ns-finalize"),
    ("GET", "/api/v1/namespaces/x/finalize", "ns-finalize-get-405", None),
    ("PATCH", "/api/v1/namespaces/x/status", "ns-status-patch", None),
    ("DELETE", "/api/v1/namespaces", "ns-deletecollection-405", None),
    ("POST", "/api/v1/namespaces/x", "ns-post-named-405", None),
    ("GET", "/api/v1/watch/namespaces", "ns-watch-legacy", "ns-watch-legacy"),
    ("GET", "/api/v1/watch/namespaces/x", "ns-watch-one-legacy", None),
    ("GET", "/api/v1/configmaps", "content-list-all", None),
    ("GET", "/api/v1/configmaps?watch=true", "content-watch-all", None),
    ("POST", "/api/v1/configmaps", "content-create-all-405", None),
    ("GET", "/api/v1/list/configmaps", "content-list-all-design-404", "content-list-all"),
    ("GET", "/api/v1/watch/configmaps", "content-watch-all-legacy", "content-watch-all-legacy"),
    ("POST", "/api/v1/namespaces/n/configmaps/", "content-create", "content-create"),
    ("GET", "/api/v1/namespaces/n/configmaps/c", "content-get", "content-get"),
    ("PATCH", "/api/v1/namespaces/n/configmaps/c", "content-patch", None),
    ("DELETE", "/api/v1/namespaces/n/configmaps", "content-deletecollection", None),
    ("GET", "/api/v1/watch/namespaces/n/configmaps", "content-watch-legacy", "content-watch-legacy"),
    ("GET", "http://h:1/version", "version", None),
    ("GET", "/api/v1/foos/bar/baz/qux", None, None),
])
def test_match(method, path, kubernetes, design):
    assert E.match(method, path, "kubernetes") == kubernetes
    assert E.match(method, path, "design") == design


def test_rows_are_unique_and_complete():
    for profile in E.PROFILES:
        ids = [r.id for r in E.rows(profile)]
        assert len(ids) == len(set(ids)), f"duplicate ids in {profile}"
        for r in E.rows(profile):
            assert r.expect in ("served", "405", "404") and r.source and r.description
    design = {(r.method, r.path) for r in E.rows("design")}
    assert ("POST", "/api/{version}/namespaces/{namespace}/finalize") in design
    assert ("GET", "/api/{version}/list/{resource}") in design
    assert len(E.rows("design")) == 14  # 6 namespace rows + 8 content rows of the design document
    assert {r.id for r in E.rows("kubernetes") if r.expect == "405"} >= {
        "ns-deletecollection-405", "ns-finalize-post-405", "ns-status-post-405", "ns-post-named-405",
        "content-create-all-405"}


def test_unknown_profile():
    with pytest.raises(ValueError):
        E.rows("nope")


def test_paths_per_profile():
    k, d = E.Paths("kubernetes"), E.Paths("design")
    assert k.finalize_method == "PUT" and d.finalize_method == "POST"
    assert k.all_namespaces("configmaps") == "/api/v1/configmaps"
    assert d.all_namespaces("configmaps") == "/api/v1/list/configmaps"
    assert k.content("n", "configmaps", "c") == "/api/v1/namespaces/n/configmaps/c"
    assert k.watch_namespaces("x") == "/api/v1/watch/namespaces/x"
    assert k.watch_content("n", "pods") == "/api/v1/watch/namespaces/n/pods"
    assert k.watch_for("/api/v1/namespaces/x") == ("/api/v1/namespaces",
                                                    {"watch": "true", "fieldSelector": "metadata.name=x"})
    assert d.watch_for("/api/v1/namespaces/n/configmaps/c") == ("/api/v1/watch/namespaces/n/configmaps",
                                                                 {"fieldSelector": "metadata.name=c"})
    for p in (k, d):
        assert E.match(p.finalize_method, p.finalize("x"), p.profile) == "ns-finalize"
        assert E.match("GET", p.all_namespaces("configmaps"), p.profile) == "content-list-all"
