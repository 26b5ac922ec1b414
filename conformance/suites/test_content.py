"""Group `content`: namespaced objects need an existing, Active namespace; namespace/path rules; name scope."""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.schemas import validate
from conformance.suites import (CONTENT_KINDS, DELETE_TIMEOUT, HOLD, KIND_OF, clear_content_finalizers, content_body,
                                create_namespace, delete_namespace, own_label, read_object, selector_of,
                                skip_if_denied, wait_namespace)


def _obj_name(kind: str) -> str:
    return f"nsc-{kind[:-1]}"


def _schema(kind: str) -> str | None:
    return "ConfigMap" if kind == "configmaps" else None


@pytest.fixture(scope="module")
def terminating_namespace(api, paths, module_namespaces, waiter) -> str:
    """A namespace held in Terminating by a foreign spec finalizer, after the controller's pass.

    Waiting for the controller (it removes `kubernetes`) also gives every API server replica's namespace
    informer time to see the deletion, so a multi-replica control plane is judged on settled state. The
    tests only try to create in it (each kind, each clause, its own object name), so the module's tests
    share it: one controller pass per run (per xdist worker) instead of one per test.
    """
    ns = create_namespace(module_namespaces, "term", finalizers=[HOLD])
    name = ns["metadata"]["name"]
    delete_namespace(api, paths, name)
    settled = wait_namespace(waiter, paths, name, lambda o: "kubernetes" not in A.finalizers(o)
                             and A.phase(o) == "Terminating",
                             f"namespace {name} to be Terminating with the controller done", DELETE_TIMEOUT)
    assert settled is not None, f"namespace {name} vanished although spec.finalizers still held {HOLD}"
    return name


# --------------------------------------------------------------------------------------------- existence

@pytest.mark.clause("NS-CON-001")
@pytest.mark.parametrize("kind", CONTENT_KINDS)
def test_content_needs_existing_namespace(api, paths, profile, namespaces, content, kind):
    """Creating content in a namespace that does not exist is refused and nothing is stored."""
    missing = namespaces.name("missing")
    resp = api.post(paths.content(missing, kind), content_body(content, kind, _obj_name(kind)))
    if profile == "kubernetes":
        A.expect_status(resp, 404)
    else:
        A.expect_rejected(resp)
    A.expect_code(api.get(paths.content(missing, kind, _obj_name(kind))), 404)
    A.expect_code(api.get(paths.namespace(missing)), 404)


@pytest.mark.clause("NS-CON-002")
@pytest.mark.parametrize("kind", CONTENT_KINDS)
def test_content_in_missing_namespace_status(api, paths, namespaces, content, kind):
    """Content creation in a missing namespace is a 404 NotFound naming the namespace (not the object)."""
    missing = namespaces.name("missing")
    resp = api.post(paths.content(missing, kind), content_body(content, kind, _obj_name(kind)))
    body = A.expect_status(resp, 404, reason="NotFound", message=f'namespaces "{missing}" not found',
                           details={"name": missing, "kind": "namespaces"})
    validate(body, "Status")


@pytest.mark.clause("NS-CON-003")
@pytest.mark.parametrize("kind", CONTENT_KINDS)
def test_no_content_in_terminating_namespace(api, paths, profile, terminating_namespace, content, kind):
    """Creating content in a Terminating namespace is refused and nothing is stored."""
    name, obj = terminating_namespace, _obj_name(kind) + "-refused"
    resp = api.post(paths.content(name, kind), content_body(content, kind, obj))
    if resp.status_code < 300:
        content.track(name, kind, obj)
    if profile == "kubernetes":
        A.expect_status(resp, 403)
    else:
        A.expect_rejected(resp)
    A.expect_code(api.get(paths.content(name, kind, obj)), 404)


@pytest.mark.clause("NS-CON-004")
@pytest.mark.parametrize("kind", CONTENT_KINDS)
def test_terminating_namespace_forbidden_status(api, paths, terminating_namespace, content, kind):
    """The refusal is a 403 Forbidden with the upstream message and a NamespaceTerminating cause."""
    name, obj = terminating_namespace, _obj_name(kind) + "-status"
    resp = api.post(paths.content(name, kind), content_body(content, kind, obj))
    if resp.status_code < 300:
        content.track(name, kind, obj)
    body = A.expect_status(
        resp, 403, reason="Forbidden",
        message=(f'{kind} "{obj}" is forbidden: unable to create new content in namespace {name} '
                 "because it is being terminated"),
        details={"name": obj, "kind": kind},
        causes=[{"reason": "NamespaceTerminating", "message": f"namespace {name} is being terminated",
                 "field": "metadata.namespace"}])
    validate(body, "Status")


@pytest.mark.clause("NS-CON-005")
def test_content_changes_allowed_while_terminating(api, paths, profile, namespaces, content, waiter):
    """Updates, patches and deletes of existing content still succeed in a Terminating namespace."""
    ns = create_namespace(namespaces, "term")
    name = ns["metadata"]["name"]
    mine = own_label(namespaces)
    cm = content.create(name, "configmaps", "nsc-held", body=content_body(content, "configmaps", "nsc-held",
                                                                          labels=mine), finalizers=[HOLD])
    path = paths.content(name, "configmaps", cm["metadata"]["name"])
    delete_namespace(api, paths, name)
    if profile != "kubernetes":
        waiter.namespace_phase(name, "Terminating", timeout=DELETE_TIMEOUT)
    # PUT (retried on a conflict with the controller, which may mark the object deleted meanwhile)
    for _ in range(5):
        obj = read_object(api, path, "ConfigMap")
        obj["data"] = {"key": "updated"}
        resp = api.put(path, obj)
        if resp.status_code != 409:
            break
    updated = A.expect_ok(resp)
    validate(updated, "ConfigMap")
    assert updated.get("data") == {"key": "updated"}, f"PUT {path}: data {updated.get('data')}"
    if profile == "kubernetes":
        resp = api.patch(path, {"metadata": {"labels": {"nsconform.io/patched": "yes"}}})
        skip_if_denied(api, resp, "PATCH", path)
        patched = A.expect_ok(resp)
        assert A.labels(patched).get("nsconform.io/patched") == "yes", f"PATCH {path}: labels {A.labels(patched)}"
        # deletecollection is a delete too (and must not be blocked either)
        resp = api.delete(paths.content(name, "configmaps"), params={"labelSelector": selector_of(mine)})
        skip_if_denied(api, resp, "DELETE", paths.content(name, "configmaps"))
        A.expect_ok(resp)
    A.expect_ok(api.delete(path), (200, 202))
    held = read_object(api, path, "ConfigMap")
    assert held["metadata"].get("deletionTimestamp"), f"DELETE {path}: the held object has no deletionTimestamp"
    clear_content_finalizers(api, path)
    waiter.until_gone(path, timeout=DELETE_TIMEOUT)


# --------------------------------------------------------------------------------------------- path vs body

def _mismatch(api, paths, content, op, ns_a, ns_b):
    """Send `op` for an object in ns_a whose body names ns_b; returns (response, object path in a, path in b)."""
    obj = "nsc-mismatch"
    path_a, path_b = paths.content(ns_a, "configmaps", obj), paths.content(ns_b, "configmaps", obj)
    if op == "create":
        body = content_body(content, "configmaps", obj, ns_b)
        return api.post(paths.content(ns_a, "configmaps"), body), path_a, path_b
    content.create(ns_a, "configmaps", obj)
    if op == "update":
        body = read_object(api, path_a, "ConfigMap")
        body["metadata"]["namespace"] = ns_b
        body["data"] = {"key": "moved"}
        return api.put(path_a, body), path_a, path_b
    if op == "patch":
        return api.patch(path_a, {"metadata": {"namespace": ns_b}, "data": {"key": "moved"}}), path_a, path_b
    raise AssertionError(op)


@pytest.mark.clause("NS-CON-006")
@pytest.mark.parametrize("op", ["create", "update"])
def test_namespace_mismatch_rejected(api, paths, profile, namespaces, content, op):
    """A body namespace different from the path namespace is refused on create and update; nothing is stored."""
    ns_a = create_namespace(namespaces, "mis-a")["metadata"]["name"]
    ns_b = create_namespace(namespaces, "mis-b")["metadata"]["name"]
    resp, path_a, path_b = _mismatch(api, paths, content, op, ns_a, ns_b)
    if profile == "kubernetes":
        A.expect_status(resp, 400)
    else:
        A.expect_rejected(resp)
    A.expect_code(api.get(path_b), 404)
    if op == "create":
        A.expect_code(api.get(path_a), 404)
    else:
        kept = read_object(api, path_a, "ConfigMap")
        assert kept.get("data") == {"key": "value"} and kept["metadata"].get("namespace") == ns_a, (
            f"the refused {op} changed {path_a}: {kept}")


@pytest.mark.clause("NS-CON-007")
@pytest.mark.parametrize("op", ["create", "update", "patch"])
def test_namespace_mismatch_status(api, paths, namespaces, content, op):
    """The mismatch is a 400 BadRequest with the upstream message, on create, update and patch."""
    ns_a = create_namespace(namespaces, "mis-a")["metadata"]["name"]
    ns_b = create_namespace(namespaces, "mis-b")["metadata"]["name"]
    resp, path_a, path_b = _mismatch(api, paths, content, op, ns_a, ns_b)
    body = A.expect_status(resp, 400, reason="BadRequest",
                           message="the namespace of the provided object does not match the namespace sent on "
                                   "the request")
    validate(body, "Status")
    A.expect_code(api.get(path_b), 404)


@pytest.mark.clause("NS-CON-008")
@pytest.mark.parametrize("kind", CONTENT_KINDS)
def test_empty_namespace_defaulted_from_path(api, paths, namespaces, content, kind):
    """Content created without metadata.namespace gets the namespace of the request path."""
    name = create_namespace(namespaces, "dflt")["metadata"]["name"]
    obj = _obj_name(kind)
    body = content_body(content, kind, obj)
    body["metadata"].pop("namespace", None)
    content.track(name, kind, obj)
    created = A.expect_ok(api.post(paths.content(name, kind), body), 201)
    if _schema(kind):
        validate(created, _schema(kind))
    assert created["metadata"].get("namespace") == name, (
        f"POST {paths.content(name, kind)} without metadata.namespace: the created object has namespace "
        f"{created['metadata'].get('namespace')!r}, expected {name!r}")
    stored = read_object(api, paths.content(name, kind, obj), _schema(kind))
    assert stored["metadata"].get("namespace") == name, f"GET: namespace {stored['metadata'].get('namespace')!r}"
    assert stored.get("kind") == KIND_OF[kind]


# --------------------------------------------------------------------------------------------- name scope

@pytest.mark.clause("NS-CON-009")
@pytest.mark.parametrize("kind", ["configmaps", "secrets", "serviceaccounts"])
def test_duplicate_name_in_namespace_conflicts(api, paths, profile, namespaces, content, kind):
    """A second object of the same kind and name in the same namespace is refused with 409."""
    name = create_namespace(namespaces, "dup")["metadata"]["name"]
    obj = _obj_name(kind)
    first = content.create(name, kind, obj)
    resp = api.post(paths.content(name, kind), content_body(content, kind, obj))
    if profile == "kubernetes":
        A.expect_status(resp, 409, reason="AlreadyExists", message=f'{kind} "{obj}" already exists',
                        details={"name": obj, "kind": kind})
    else:
        A.expect_code(resp, 409)
    stored = read_object(api, paths.content(name, kind, obj))
    assert stored["metadata"].get("uid") == first["metadata"].get("uid"), f"{obj} was replaced by the duplicate"


@pytest.mark.clause("NS-CON-010")
def test_same_name_in_other_namespace_or_kind(api, paths, namespaces, content):
    """The same name is accepted in another namespace and for another kind in the same namespace."""
    ns_a = create_namespace(namespaces, "uniq-a")["metadata"]["name"]
    ns_b = create_namespace(namespaces, "uniq-b")["metadata"]["name"]
    shared = "nsc-shared"
    a = content.create(ns_a, "configmaps", shared)
    b_resp = api.post(paths.content(ns_b, "configmaps"), content_body(content, "configmaps", shared))
    content.track(ns_b, "configmaps", shared)
    b = A.expect_ok(b_resp, 201)
    validate(b, "ConfigMap")
    assert b["metadata"].get("namespace") == ns_b
    s_resp = api.post(paths.content(ns_a, "secrets"), content_body(content, "secrets", shared))
    content.track(ns_a, "secrets", shared)
    A.expect_ok(s_resp, 201)
    got_a = read_object(api, paths.content(ns_a, "configmaps", shared), "ConfigMap")
    got_b = read_object(api, paths.content(ns_b, "configmaps", shared), "ConfigMap")
    assert got_a["metadata"]["uid"] == a["metadata"]["uid"] and got_b["metadata"]["uid"] != got_a["metadata"]["uid"], (
        "the two ConfigMaps of the same name in different namespaces are not distinct objects")
