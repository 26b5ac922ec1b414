"""Group `discovery`: /api, /apis, /api/v1 entries for namespaces and content, /version."""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.schemas import validate
from conformance.suites import CONTENT_KINDS, KIND_OF


@pytest.fixture(scope="module")
def core_resources(api):
    doc = A.expect_ok(api.get("/api/v1"))
    validate(doc, "APIResourceList")
    assert doc.get("groupVersion") == "v1", f"GET /api/v1: groupVersion {doc.get('groupVersion')!r}"
    return {r.get("name"): r for r in doc.get("resources", [])}


def _entry(core_resources, name):
    entry = core_resources.get(name)
    assert entry is not None, f"GET /api/v1 does not list {name!r}; it lists {sorted(core_resources)}"
    return entry


@pytest.mark.clause("NS-DIS-001")
def test_api_versions_and_groups(api):
    """GET /api lists version v1 and GET /apis answers an APIGroupList."""
    doc = A.expect_ok(api.get("/api"))
    validate(doc, "APIVersions")
    assert doc.get("kind") == "APIVersions" and "v1" in (doc.get("versions") or []), (
        f"GET /api: expected kind APIVersions with versions containing 'v1', got {doc}")
    groups = A.expect_ok(api.get("/apis"))
    assert groups.get("kind") == "APIGroupList" and isinstance(groups.get("groups"), list), (
        f"GET /apis: expected kind APIGroupList with a groups list, got {A.body_excerpt(api.get('/apis'))}")
    for group in groups["groups"]:
        assert group.get("name") and isinstance(group.get("versions"), list), f"GET /apis: malformed group {group}"


@pytest.mark.clause("NS-DIS-002")
def test_namespaces_resource_entry(core_resources):
    """/api/v1 lists namespaces: cluster-scoped kind Namespace, short name ns, exactly the seven verbs."""
    entry = _entry(core_resources, "namespaces")
    A.expect_subset(entry, {"namespaced": False, "kind": "Namespace", "singularName": "namespace"},
                    "the /api/v1 entry for namespaces")
    assert sorted(entry.get("verbs") or []) == ["create", "delete", "get", "list", "patch", "update", "watch"], (
        f"namespaces verbs: {entry.get('verbs')}")
    assert "ns" in (entry.get("shortNames") or []), f"namespaces shortNames: {entry.get('shortNames')}"


@pytest.mark.clause("NS-DIS-003")
@pytest.mark.parametrize("name, verbs", [("namespaces/status", ["get", "patch", "update"]),
                                         ("namespaces/finalize", ["update"])])
def test_namespace_subresource_entries(core_resources, name, verbs):
    """/api/v1 lists namespaces/status (get, patch, update) and namespaces/finalize (update only)."""
    entry = _entry(core_resources, name)
    A.expect_subset(entry, {"namespaced": False, "kind": "Namespace"}, f"the /api/v1 entry for {name}")
    assert sorted(entry.get("verbs") or []) == verbs, f"{name} verbs: expected {verbs}, got {entry.get('verbs')}"


@pytest.mark.clause("NS-DIS-004")
@pytest.mark.parametrize("kind", CONTENT_KINDS)
def test_content_kinds_are_namespaced(core_resources, kind):
    """/api/v1 lists the content kinds the suites use as namespaced, with the basic verbs."""
    entry = _entry(core_resources, kind)
    A.expect_subset(entry, {"namespaced": True, "kind": KIND_OF[kind]}, f"the /api/v1 entry for {kind}")
    missing = {"create", "delete", "get", "list", "watch"} - set(entry.get("verbs") or [])
    assert not missing, f"{kind} verbs {entry.get('verbs')} lack {sorted(missing)}"


@pytest.mark.clause("NS-DIS-005")
def test_version_document(api):
    """GET /version returns major, minor and gitVersion as strings."""
    doc = A.expect_ok(api.get("/version"))
    bad = {k: doc.get(k) for k in ("major", "minor", "gitVersion") if not isinstance(doc.get(k), str)}
    assert not bad, f"GET /version: expected string fields major, minor, gitVersion; wrong or missing: {bad} in {doc}"
    assert doc["gitVersion"].startswith("v"), f"GET /version: gitVersion {doc['gitVersion']!r} does not start with v"
