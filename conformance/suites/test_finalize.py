"""Group `finalize`: spec.finalizers change only through the finalize operation; `finalize` is reserved."""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.schemas import validate
from conformance.suites import (HOLD, create_namespace, finalize, finalize_ok, namespace_body, read_namespace,
                                read_object, skip_if_denied, update_fresh)

UPDATE_OPS = [
    pytest.param("put-add", id="put-add"),
    pytest.param("put-remove-all", id="put-remove-all"),
    pytest.param("merge-patch", id="merge-patch"),
    pytest.param("json-patch", id="json-patch"),
    pytest.param("strategic-patch", id="strategic-patch"),
]


def _attempt(api, paths, name, op, label_value):
    """Try to change spec.finalizers (and a label) through the namespace resource itself."""
    path = paths.namespace(name)
    label = {"nsconform.io/probe": label_value}
    if op.startswith("put"):
        def change(body):
            validate(body, "Namespace")
            body["metadata"].setdefault("labels", {}).update(label)
            body.setdefault("spec", {})["finalizers"] = [] if op == "put-remove-all" else ["kubernetes", HOLD]
        return update_fresh(api, path, change)
    if op == "merge-patch":
        return api.patch(path, {"metadata": {"labels": label}, "spec": {"finalizers": ["kubernetes", HOLD]}},
                         patch_type="merge")
    if op == "json-patch":
        return api.patch(path, [{"op": "add", "path": "/metadata/labels/nsconform.io~1probe", "value": label_value},
                                {"op": "replace", "path": "/spec/finalizers", "value": [HOLD]}], patch_type="json")
    if op == "strategic-patch":
        return api.patch(path, {"metadata": {"labels": label}, "spec": {"finalizers": [HOLD]}},
                         patch_type="strategic")
    raise AssertionError(op)


def _restore(api, paths, name, before):
    """If a buggy server changed spec.finalizers, put them back so teardown can delete the namespace."""
    resp = api.get(paths.namespace(name))
    if resp.status_code == 200 and A.finalizers(resp.json()) != before:
        finalize(api, paths, name, before)


@pytest.mark.clause("NS-FZE-001")
@pytest.mark.parametrize("op", UPDATE_OPS)
def test_update_does_not_change_finalizers(api, paths, profile, namespaces, op):
    """PUT and PATCH of the namespace resource never change the stored spec.finalizers."""
    if profile == "design" and "patch" in op:
        pytest.skip("the design document's Namespace API has no PATCH")
    ns = create_namespace(namespaces, "fze")
    name = ns["metadata"]["name"]
    before = A.finalizers(ns)
    try:
        resp = _attempt(api, paths, name, op, "1")
        if 200 <= resp.status_code < 300:
            body = A.expect_ok(resp, resp.status_code)
            validate(body, "Namespace")
            assert A.finalizers(body) == before, (
                f"{op} on {paths.namespace(name)}: the response shows spec.finalizers {A.finalizers(body)}, "
                f"expected them unchanged {before}")
        stored = read_namespace(api, paths, name)
        assert A.finalizers(stored) == before, (
            f"{op} on {paths.namespace(name)} (HTTP {resp.status_code}) changed the stored spec.finalizers from "
            f"{before} to {A.finalizers(stored)}; only finalize may change them")
    finally:
        _restore(api, paths, name, before)


@pytest.mark.clause("NS-FZE-002")
@pytest.mark.parametrize("op", UPDATE_OPS)
def test_update_of_finalizers_silently_ignored(api, paths, namespaces, op):
    """Such a PUT/PATCH answers 200 with the old finalizers while the label change of the same request applies."""
    ns = create_namespace(namespaces, "fze")
    name = ns["metadata"]["name"]
    try:
        body = A.expect_ok(_attempt(api, paths, name, op, "2"))
        validate(body, "Namespace")
        assert A.finalizers(body) == ["kubernetes"], f"{op}: response spec.finalizers {A.finalizers(body)}"
        assert A.labels(body).get("nsconform.io/probe") == "2", (
            f"{op}: the label change of the same request was not applied: labels {A.labels(body)}")
        stored = read_namespace(api, paths, name)
        assert A.labels(stored).get("nsconform.io/probe") == "2", f"{op}: stored labels {A.labels(stored)}"
    finally:
        _restore(api, paths, name, ["kubernetes"])


@pytest.mark.clause("NS-FZE-003")
@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_status_write_does_not_change_finalizers(api, paths, namespaces, method):
    """A write to namespaces/status is applied (condition) but its spec.finalizers are ignored."""
    ns = create_namespace(namespaces, "fze")
    name = ns["metadata"]["name"]
    cond = {"type": "NsconformProbe", "status": "True", "reason": "Probe", "message": "written by nsconform"}
    try:
        read_object(api, paths.status(name), "Namespace")
        if method == "PUT":
            def change(body):
                body["spec"] = {"finalizers": ["kubernetes", HOLD]}
                body.setdefault("status", {})["conditions"] = [cond]
            resp = update_fresh(api, paths.status(name), change)
        else:
            resp = api.patch(paths.status(name), {"spec": {"finalizers": [HOLD]}, "status": {"conditions": [cond]}},
                             patch_type="merge")
        body = A.expect_ok(resp)
        validate(body, "Namespace")
        assert A.condition(body, "NsconformProbe"), (
            f"{method} {paths.status(name)}: the status write was not applied (no NsconformProbe condition): "
            f"{body.get('status')}")
        assert A.finalizers(body) == ["kubernetes"], (
            f"{method} {paths.status(name)}: response spec.finalizers {A.finalizers(body)}, expected ['kubernetes']")
        stored = read_namespace(api, paths, name)
        assert A.finalizers(stored) == ["kubernetes"], (
            f"{method} {paths.status(name)} changed the stored spec.finalizers to {A.finalizers(stored)}")
    finally:
        _restore(api, paths, name, ["kubernetes"])


@pytest.mark.clause("NS-FZE-004")
def test_finalize_adds_finalizer_on_active_namespace(api, paths, namespaces):
    """The finalize operation adds a finalizer to an Active namespace: 200, echoed, stored, still Active."""
    ns = create_namespace(namespaces, "fze")
    name = ns["metadata"]["name"]
    wanted = ["kubernetes", HOLD]
    body = finalize_ok(api, paths, name, wanted)
    assert A.phase(body) == "Active", f"finalize response: phase {A.phase(body)!r}, expected 'Active'"
    stored = read_namespace(api, paths, name)
    assert A.finalizers(stored) == wanted, f"GET after finalize: spec.finalizers {A.finalizers(stored)}"
    assert A.phase(stored) == "Active" and not stored["metadata"].get("deletionTimestamp"), (
        f"GET after finalize: expected Active without deletionTimestamp, got phase {A.phase(stored)!r}, "
        f"deletionTimestamp {stored['metadata'].get('deletionTimestamp')!r}")


@pytest.mark.clause("NS-FZE-005")
@pytest.mark.parametrize("start, keep", [
    pytest.param([HOLD], ["kubernetes"], id="remove-foreign"),
    pytest.param([HOLD], [HOLD], id="remove-kubernetes"),
    pytest.param([HOLD], [], id="remove-all"),
])
def test_finalize_removes_finalizers_on_active_namespace(api, paths, namespaces, start, keep):
    """The finalize operation removes finalizers of an Active namespace, which stays present and Active."""
    ns = create_namespace(namespaces, "fze", finalizers=start)
    name = ns["metadata"]["name"]
    try:
        finalize_ok(api, paths, name, keep)
        stored = read_namespace(api, paths, name)
        assert A.finalizers(stored) == keep, f"GET after finalize to {keep}: spec.finalizers {A.finalizers(stored)}"
        assert A.phase(stored) == "Active" and not stored["metadata"].get("deletionTimestamp"), (
            f"removing finalizers of an Active namespace must not start its deletion: phase {A.phase(stored)!r}")
    finally:
        _restore(api, paths, name, ["kubernetes"])


@pytest.mark.clause("NS-FZE-006")
@pytest.mark.parametrize("given, index, bad", [
    pytest.param(["foo", "kubernetes"], 0, "foo", id="first"),
    pytest.param(["kubernetes", "not-qualified"], 1, "not-qualified", id="second"),
])
def test_finalize_validates_names_with_index(api, paths, namespaces, given, index, bad):
    """finalize rejects an invalid finalizer name with 422 naming spec.finalizers[<i>]; nothing changes."""
    ns = create_namespace(namespaces, "fze")
    name = ns["metadata"]["name"]
    reason = "name is neither a standard finalizer name nor is it fully qualified"
    try:
        A.expect_status(
            finalize(api, paths, name, given), 422, reason="Invalid",
            message=f'Namespace "{name}" is invalid: spec.finalizers[{index}]: Invalid value: "{bad}": {reason}',
            details={"name": name, "kind": "Namespace"},
            causes=[{"reason": "FieldValueInvalid", "field": f"spec.finalizers[{index}]"}])
        assert A.finalizers(read_namespace(api, paths, name)) == ["kubernetes"]
    finally:
        _restore(api, paths, name, ["kubernetes"])


@pytest.mark.clause("NS-FZE-007")
@pytest.mark.parametrize("method", ["PUT", "POST", "PATCH", "GET", "DELETE"])
def test_other_verbs_on_finalize_rejected(api, paths, profile, namespaces, method):
    """Every method but the profile's finalize verb on /finalize is refused and changes or creates nothing."""
    if method == paths.finalize_method:
        pytest.skip(f"{method} is the finalize verb of the {profile} profile (NS-FZE-004)")
    ns = create_namespace(namespaces, "fze")
    name = ns["metadata"]["name"]
    path = paths.finalize(name)
    try:
        if method in ("PUT", "POST"):
            body = namespace_body(name, A.labels(ns), finalizers=["kubernetes", HOLD])
            resp = api.request(method, path, json=body)
        elif method == "PATCH":
            resp = api.patch(path, {"spec": {"finalizers": ["kubernetes", HOLD]}}, patch_type="merge")
        else:
            resp = api.request(method, path)
        skip_if_denied(api, resp, method, path)
        if profile == "kubernetes":
            A.expect_status(resp, 405, reason="MethodNotAllowed",
                            message="the server does not allow this method on the requested resource")
        else:
            A.expect_rejected(resp)
        stored = read_namespace(api, paths, name)
        assert A.finalizers(stored) == ["kubernetes"], (
            f"{method} {path} was refused but changed spec.finalizers to {A.finalizers(stored)}")
        assert A.phase(stored) == "Active" and not stored["metadata"].get("deletionTimestamp"), (
            f"{method} {path} started the deletion of the namespace: phase {A.phase(stored)!r}")
        probe = api.get(paths.content(name, "finalize", name))
        assert probe.status_code != 200, (
            f"GET {paths.content(name, 'finalize', name)} answered 200 after {method} {path}: "
            f"`finalize` was treated as a content type: {A.body_excerpt(probe)}")
    finally:
        _restore(api, paths, name, ["kubernetes"])


@pytest.mark.clause("NS-FZE-008")
def test_no_resource_type_named_finalize(api, profile):
    """Discovery offers `finalize` only as the namespaces/finalize subresource, never as a resource type."""
    resp = api.get("/api/v1")
    if profile == "design" and resp.status_code != 200:
        pytest.skip(f"the design-profile target serves no discovery at /api/v1 (HTTP {resp.status_code})")
    doc = A.expect_ok(resp)
    validate(doc, "APIResourceList")
    offenders = []
    for res in doc.get("resources", []):
        rname = res.get("name", "")
        parts = rname.split("/")
        if rname == "namespaces/finalize":
            continue
        if parts[0] == "finalize" or (str(res.get("kind", "")).lower() == "finalize") or \
                (len(parts) > 1 and parts[1] == "finalize"):
            offenders.append(res)
    assert not offenders, f"GET /api/v1 offers resource types named finalize: {offenders}"
