"""Group `phase`: Active on create, Terminating on DELETE, removal only when every finalizer is gone."""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.schemas import validate
from conformance.suites import (DELETE_TIMEOUT, HOLD, create_namespace, delete_namespace, finalize, finalize_ok,
                                namespace_body, read_namespace, update_fresh, wait_namespace_gone)


def _is_active(ns):
    return A.phase(ns) == "Active" and not (ns.get("metadata") or {}).get("deletionTimestamp")


@pytest.mark.clause("NS-PHA-001")
def test_created_namespace_is_active(api, paths, namespaces):
    """A new namespace is Active without deletionTimestamp, in the create response and on GET."""
    ns = create_namespace(namespaces, "pha")
    name = ns["metadata"]["name"]
    assert _is_active(ns), (f"POST {paths.namespaces()}: expected phase Active without deletionTimestamp, got phase "
                            f"{A.phase(ns)!r}, deletionTimestamp {ns['metadata'].get('deletionTimestamp')!r}")
    stored = read_namespace(api, paths, name)
    assert _is_active(stored), f"GET {paths.namespace(name)}: phase {A.phase(stored)!r}"


@pytest.mark.clause("NS-PHA-002")
@pytest.mark.parametrize("status", [
    pytest.param({"phase": "Terminating"}, id="terminating"),
    pytest.param({"phase": "Terminating", "conditions": [
        {"type": "NamespaceContentRemaining", "status": "True", "reason": "SomeResourcesRemain"}]},
        id="terminating-with-conditions"),
])
def test_status_in_create_body_ignored(api, paths, namespaces, status):
    """status.phase Terminating in a create body is ignored: the namespace is Active."""
    name = namespaces.name("pha")
    resp = api.post(paths.namespaces(), namespace_body(name, namespaces.labels, status=status))
    ns = A.expect_ok(resp, 201)
    validate(ns, "Namespace")
    assert A.phase(ns) == "Active", (
        f"POST {paths.namespaces()} with status {status}: expected phase Active, got {A.phase(ns)!r}")
    stored = read_namespace(api, paths, name)
    assert A.phase(stored) == "Active", f"GET {paths.namespace(name)}: phase {A.phase(stored)!r}, expected Active"


@pytest.mark.clause("NS-PHA-003")
def test_delete_response_shows_terminating(api, paths, namespaces):
    """The first DELETE answers 200 with the Namespace showing deletionTimestamp, Terminating, same finalizers."""
    ns = create_namespace(namespaces, "pha", finalizers=[HOLD])
    name = ns["metadata"]["name"]
    before = A.finalizers(ns)
    resp = api.delete(paths.namespace(name))
    body = A.expect_ok(resp, 200)
    validate(body, "Namespace")
    assert body.get("kind") == "Namespace", f"DELETE {paths.namespace(name)}: expected the Namespace, got {body}"
    assert body["metadata"].get("deletionTimestamp"), (
        f"DELETE {paths.namespace(name)}: the response has no metadata.deletionTimestamp")
    assert A.phase(body) == "Terminating", (
        f"DELETE {paths.namespace(name)}: expected status.phase Terminating in the response, got {A.phase(body)!r}")
    assert A.finalizers(body) == before, (
        f"DELETE {paths.namespace(name)}: spec.finalizers changed from {before} to {A.finalizers(body)}")


@pytest.mark.clause("NS-PHA-004")
def test_deleted_namespace_is_terminating(api, paths, profile, namespaces, waiter):
    """After DELETE a namespace with finalizers stays readable, has deletionTimestamp and is Terminating."""
    ns = create_namespace(namespaces, "pha", finalizers=[HOLD])
    name = ns["metadata"]["name"]
    delete_namespace(api, paths, name)
    resp = api.get(paths.namespace(name))
    stored = A.expect_ok(resp)
    validate(stored, "Namespace")
    assert stored["metadata"].get("deletionTimestamp"), (
        f"GET {paths.namespace(name)} after DELETE: metadata.deletionTimestamp is not set")
    if profile == "kubernetes":
        # NS-50: the apiserver sets the phase in the DELETE call itself.
        assert A.phase(stored) == "Terminating", (
            f"GET {paths.namespace(name)} right after DELETE: expected phase Terminating, got {A.phase(stored)!r}")
    else:
        # Seed 000: "A namespace controller observes the change, and sets the Namespace.Status.Phase to Terminating".
        stored = waiter.namespace_phase(name, "Terminating", timeout=DELETE_TIMEOUT)
        validate(stored, "Namespace")
    assert HOLD in A.finalizers(stored), f"the foreign finalizer vanished: {A.finalizers(stored)}"


@pytest.mark.clause("NS-PHA-005")
def test_repeated_delete_answers_200(api, paths, namespaces):
    """A second DELETE of a Terminating namespace with finalizers answers 200 with the Terminating object."""
    ns = create_namespace(namespaces, "pha", finalizers=[HOLD])
    name = ns["metadata"]["name"]
    first = A.expect_ok(api.delete(paths.namespace(name)))
    second = A.expect_ok(api.delete(paths.namespace(name)), 200)
    validate(second, "Namespace")
    assert A.phase(second) == "Terminating" and second["metadata"].get("deletionTimestamp"), (
        f"second DELETE {paths.namespace(name)}: expected the Terminating namespace, got phase {A.phase(second)!r}")
    first_ts = (first.get("metadata") or {}).get("deletionTimestamp")
    if first_ts:
        assert second["metadata"]["deletionTimestamp"] == first_ts, (
            f"second DELETE moved deletionTimestamp from {first_ts} to {second['metadata']['deletionTimestamp']}")
    read_namespace(api, paths, name)


@pytest.mark.clause("NS-PHA-006")
def test_removed_only_when_last_finalizer_gone(api, paths, namespaces, waiter):
    """A deleted namespace stays while any spec.finalizers entry remains and is removed after the last one."""
    second = "example.org/second"
    ns = create_namespace(namespaces, "pha", finalizers=[HOLD, second])
    name = ns["metadata"]["name"]
    delete_namespace(api, paths, name)
    # The controller removes `kubernetes` once the (empty) namespace is cleaned up.
    waiter.until(paths.namespace(name), lambda o: "kubernetes" not in A.finalizers(o),
                 f"the controller to remove `kubernetes` from {name}", timeout=DELETE_TIMEOUT)
    stored = read_namespace(api, paths, name)
    # The controller rewrites the rest sorted (NS-70 step 8), so compare without order.
    assert sorted(A.finalizers(stored)) == sorted([HOLD, second]), (
        f"spec.finalizers after the controller: {A.finalizers(stored)}, expected {HOLD} and {second} to remain")
    finalize_ok(api, paths, name, [second])
    stored = read_namespace(api, paths, name)
    assert A.phase(stored) == "Terminating" and A.finalizers(stored) == [second], (
        f"with {second} left the namespace must stay Terminating: phase {A.phase(stored)!r}, "
        f"finalizers {A.finalizers(stored)}")
    resp = finalize(api, paths, name, [])
    A.expect_ok(resp)
    wait_namespace_gone(waiter, paths, name, timeout=DELETE_TIMEOUT)
    A.expect_code(api.get(paths.namespace(name)), 404)


@pytest.mark.clause("NS-PHA-007")
def test_status_phase_must_match_deletion_timestamp(api, paths, namespaces):
    """A status write setting Terminating on a namespace without deletionTimestamp is a 422 on status.Phase."""
    ns = create_namespace(namespaces, "pha")
    name = ns["metadata"]["name"]
    # Not a clause about conflicts: a controller writing to the new namespace must not turn the 422 into a 409.
    resp = update_fresh(api, paths.status(name), lambda body: body.__setitem__("status", {"phase": "Terminating"}),
                        read_path=paths.namespace(name))
    A.expect_status(
        resp, 422, reason="Invalid",
        message=(f'Namespace "{name}" is invalid: status.Phase: Invalid value: "Terminating": '
                 "may only be 'Active' if `deletionTimestamp` is empty"),
        details={"name": name, "kind": "Namespace"},
        causes=[{"reason": "FieldValueInvalid", "field": "status.Phase"}])
    assert A.phase(read_namespace(api, paths, name)) == "Active"
