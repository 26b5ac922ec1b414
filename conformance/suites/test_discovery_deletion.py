"""Group `discovery-deletion`: the namespace controller deletes what *discovery* finds — custom resources
included — and cannot finish while discovery fails (an unavailable aggregated API).

These tests create cluster-scoped objects (a CRD or an APIService of a group unique to the test), labelled
with the run and removed in teardown (`cluster_objects`). The APIService test is `disruptive`: while it
runs, every namespace deletion on the cluster stalls.
"""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.suites import (DELETE_TIMEOUT, HOLD, clear_content_finalizers, create_namespace,
                                delete_namespace, read_namespace, wait_namespace)
from conformance.wait import WaitTimeout, gone, no_controller_for_content

DISCOVERY_TIMEOUT = 150.0
"""Seconds (before --timeout-scale) for the controller to notice a removed APIService: upstream retries a
namespace whose discovery failed with exponential backoff (up to 60 s) and resyncs every 5 minutes."""


def _kubernetes_removed(ns):
    return "kubernetes" not in A.finalizers(ns)


def _create_resource(api, cr, ns, name, **kw):
    return A.expect_ok(api.post(cr.collection(ns), cr.body(name, ns, **kw)), 201)


def _held_by_custom_resource(api, paths, namespaces, cluster_objects, base):
    """A deleted namespace holding a custom resource with HOLD in metadata.finalizers, after the controller
    marked that resource deleted; returns (cr, namespace name, resource path)."""
    cr = cluster_objects.crd()
    name = create_namespace(namespaces, base)["metadata"]["name"]
    obj = _create_resource(api, cr, name, "held", finalizers=[HOLD])
    path = cr.path(name, obj["metadata"]["name"])
    delete_namespace(api, paths, name)
    # Hopeless at once if the resource vanished despite its finalizer, or the namespace did or lost `kubernetes`
    # without the resource being deleted (then no controller will ever delete it).
    obj = cluster_objects.waiter.until(path, lambda o: bool(o["metadata"].get("deletionTimestamp")),
                                       f"the namespace controller to delete {path} ({cr.qualified})",
                                       timeout=DELETE_TIMEOUT, give_up=gone,
                                       also=[(paths.namespace(name), no_controller_for_content(name, paths.profile))])
    assert obj["metadata"].get("deletionTimestamp")
    return cr, name, path


@pytest.mark.clause("NS-DDEL-001")
def test_controller_deletes_custom_resources(api, paths, namespaces, waiter, cluster_objects):
    """The custom resources of a deleted namespace are gone before the controller removes `kubernetes`."""
    cr = cluster_objects.crd()
    name = create_namespace(namespaces, "ddel-cr", finalizers=[HOLD])["metadata"]["name"]
    obj = _create_resource(api, cr, name, "doomed")
    path = cr.path(name, obj["metadata"]["name"])
    delete_namespace(api, paths, name)
    after = wait_namespace(waiter, paths, name, _kubernetes_removed,
                           f"the controller to remove `kubernetes` from spec.finalizers of {name}")
    assert after is not None, f"namespace {name} was removed although {HOLD} was still in spec.finalizers"
    resp = api.get(path)
    assert resp.status_code == 404, (
        f"GET {path}: HTTP {resp.status_code}; the controller removed `kubernetes` from {name} while its "
        f"{cr.kind} ({cr.qualified}) still exists: {A.body_excerpt(resp)}")


@pytest.mark.clause("NS-DDEL-002")
def test_custom_resource_finalizer_holds_namespace(api, paths, profile, namespaces, waiter, cluster_objects):
    """A custom resource's finalizer keeps the namespace until it is removed; then the namespace goes."""
    cr, name, path = _held_by_custom_resource(api, paths, namespaces, cluster_objects, "ddel-held")
    if profile == "kubernetes":  # the condition is the controller's "I looked again" (NS-DDEL-003's clause)
        def synced(o):
            return ((A.condition(o, "NamespaceFinalizersRemaining") or {}).get("status") == "True"
                    or _kubernetes_removed(o))
        what, timeout = f"the NamespaceFinalizersRemaining condition on {name}", DELETE_TIMEOUT
    else:
        synced, what, timeout = _kubernetes_removed, f"`kubernetes` to stay in spec.finalizers of {name}", 3.0
    try:
        held = wait_namespace(waiter, paths, name, synced, what, timeout=timeout)
    except WaitTimeout:
        held = read_namespace(api, paths, name)
    assert held is not None, f"namespace {name} vanished while {path} still had metadata.finalizers [{HOLD!r}]"
    assert "kubernetes" in A.finalizers(held), (
        f"the controller removed `kubernetes` from {name} while {path} ({cr.qualified}) still exists: "
        f"{A.finalizers(held)}")
    A.expect_ok(api.get(path))
    clear_content_finalizers(api, path)
    waiter.namespace_gone(name, timeout=DELETE_TIMEOUT)
    A.expect_code(api.get(path), 404)


@pytest.mark.clause("NS-DDEL-003")
def test_conditions_name_custom_resource(api, paths, namespaces, waiter, cluster_objects):
    """NamespaceContentRemaining / NamespaceFinalizersRemaining name `<plural>.<group>` and the finalizer."""
    cr, name, path = _held_by_custom_resource(api, paths, namespaces, cluster_objects, "ddel-cond")
    expected = f"{cr.qualified} has 1 resource instances"

    def settled(o):
        remaining = A.condition(o, "NamespaceContentRemaining") or {}
        fins = A.condition(o, "NamespaceFinalizersRemaining") or {}
        return (remaining.get("status") == "True" and fins.get("status") == "True"
                and f"{HOLD} in 1 resource instances" in (fins.get("message") or ""))

    ns = wait_namespace(waiter, paths, name, settled, f"NamespaceContentRemaining/FinalizersRemaining on {name}",
                        timeout=DELETE_TIMEOUT)
    assert ns is not None, f"namespace {name} vanished while {path} still had a finalizer"
    remaining = A.condition(ns, "NamespaceContentRemaining")
    A.expect_subset(remaining, {"status": "True", "reason": "SomeResourcesRemain"}, "NamespaceContentRemaining")
    assert remaining["message"].startswith("Some resources are remaining: ") and expected in remaining["message"], (
        f"NamespaceContentRemaining should name {expected!r}: {remaining['message']!r}")
    fins = A.condition(ns, "NamespaceFinalizersRemaining")
    A.expect_subset(fins, {"status": "True", "reason": "SomeFinalizersRemain"}, "NamespaceFinalizersRemaining")
    assert fins["message"].startswith("Some content in the namespace has finalizers remaining: "), (
        f"NamespaceFinalizersRemaining message: {fins['message']!r}")


@pytest.mark.disruptive
@pytest.mark.clause("NS-DDEL-004")
def test_unavailable_aggregated_api_holds_deletion(api, paths, namespaces, waiter, cluster_objects):
    """An unavailable APIService: the namespace stays Terminating with NamespaceDeletionDiscoveryFailure
    naming the group version; removing the APIService releases it."""
    name = create_namespace(namespaces, "ddel-disc")["metadata"]["name"]
    apiservice = cluster_objects.apiservice(name, "nsconform-missing")  # a service that does not exist
    gv = f"{apiservice['spec']['group']}/{apiservice['spec']['version']}"
    delete_namespace(api, paths, name)

    def failing(o):
        c = A.condition(o, "NamespaceDeletionDiscoveryFailure") or {}
        return c.get("status") == "True" and gv in (c.get("message") or "")

    # the controller writes its conditions only for a namespace that still carries `kubernetes`
    ns = wait_namespace(waiter, paths, name, failing,
                        f"NamespaceDeletionDiscoveryFailure naming {gv} on {name}", timeout=DELETE_TIMEOUT,
                        give_up=no_controller_for_content(name, paths.profile))
    assert ns is not None, (
        f"namespace {name} was removed while the aggregated API {gv} could not be discovered: the controller "
        "cannot know the namespace is empty")
    assert ns["status"].get("phase") == "Terminating", f"status.phase: {ns['status'].get('phase')!r}"
    assert "kubernetes" in A.finalizers(ns), f"spec.finalizers: {A.finalizers(ns)}"
    cond = A.condition(ns, "NamespaceDeletionDiscoveryFailure")
    A.expect_subset(cond, {"status": "True", "reason": "DiscoveryFailed"}, "NamespaceDeletionDiscoveryFailure")
    assert cond["message"].startswith("Discovery failed for some groups, "), (
        f"NamespaceDeletionDiscoveryFailure message: {cond['message']!r}")
    A.expect_ok(cluster_objects.delete_apiservice(apiservice["metadata"]["name"]), (200, 202))
    waiter.namespace_gone(name, timeout=DISCOVERY_TIMEOUT)


@pytest.mark.clause("NS-DDEL-005")
def test_crd_deletion_deletes_custom_resources(api, namespaces, cluster_objects):
    """Deleting a CRD deletes its resources first; then the CRD and its API are gone."""
    cr = cluster_objects.crd()
    name = create_namespace(namespaces, "ddel-crd")["metadata"]["name"]
    held = _create_resource(api, cr, name, "held", finalizers=[HOLD])
    path = cr.path(name, held["metadata"]["name"])
    A.expect_ok(cluster_objects.delete_crd(cr), (200, 202))
    obj = cluster_objects.waiter.until_or_gone(path, lambda o: bool(o["metadata"].get("deletionTimestamp")),
                                               f"the CRD finalizer to delete {path}", timeout=DELETE_TIMEOUT)
    assert obj is not None, f"{path} vanished despite its finalizer {HOLD!r}"
    crd_path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{cr.crd_name}"
    crd = A.expect_ok(api.get(crd_path))
    assert crd["metadata"].get("deletionTimestamp"), (
        f"CRD {cr.crd_name} is no longer being deleted while {path} still exists")
    clear_content_finalizers(api, path)
    cluster_objects.waiter.until_gone(crd_path, timeout=DELETE_TIMEOUT)
    A.expect_code(api.get(path), 404)
