"""Group `lifecycle`: what the namespace controller does while a namespace terminates, and re-creation."""

from __future__ import annotations

import warnings

import pytest

from conformance import assertions as A
from conformance.schemas import validate
from conformance.suites import (CONTENT_KINDS, DELETE_TIMEOUT, HOLD, ORIGIN, SLOW_KINDS, clear_content_finalizers,
                                create_namespace, delete_namespace, finalize_ok, namespace_body, read_namespace,
                                read_object, wait_namespace, wait_namespace_gone)
from conformance.fixtures.content import ContentFactory
from conformance.wait import WaitTimeout, gone, no_controller_for_content


def _kubernetes_removed(ns):
    return "kubernetes" not in A.finalizers(ns)


def _wait_controller_done(waiter, paths, name, timeout=DELETE_TIMEOUT):
    """Wait until the controller has removed `kubernetes`; fail at once if the namespace vanished instead."""
    ns = wait_namespace(waiter, paths, name, _kubernetes_removed,
                        f"the controller to remove `kubernetes` from spec.finalizers of {name}", timeout)
    assert ns is not None, (
        f"namespace {name} was removed from storage although a foreign spec.finalizers entry was still present")
    validate(ns, "Namespace")
    return ns


RECREATED_KINDS = ["configmaps", "services", "pods"]


@pytest.fixture(scope="module")
def started_deletions(api, paths, module_namespaces):
    """The namespaces of the module's shared scenarios, filled and deleted together before any test waits on
    one: their controller passes overlap (one wait per run for NS-LIF-001 and NS-LIF-007 together).

    Returns {"content": (name, {kind: path}), "recreate": (first, body, {kind: path})}; a failure to build
    one is returned in its place for its tests to fail on."""
    factory = ContentFactory(api, paths)
    started: dict = {}
    try:
        for key, build in (("content", _fill_held_namespace), ("recreate", _fill_namespace_to_recreate)):
            try:
                started[key] = build(api, paths, module_namespaces, factory)
            except Exception as exc:  # noqa: BLE001 - its tests fail on it
                started[key] = exc
    finally:
        for key in factory.tracked:
            module_namespaces.track_content(*key)
    for value in started.values():
        if not isinstance(value, BaseException):
            delete_namespace(api, paths, value[0] if isinstance(value[0], str) else value[0]["metadata"]["name"])
    return started


def _fill_held_namespace(api, paths, namespaces, factory):
    ns = create_namespace(namespaces, "lif-content", finalizers=[HOLD])
    name = ns["metadata"]["name"]
    objects = {}
    for kind in CONTENT_KINDS:
        obj = factory.create(name, kind, f"nsc-{kind[:-1]}")
        objects[kind] = paths.content(name, kind, obj["metadata"]["name"])
        read_object(api, objects[kind])
    return name, objects


def _fill_namespace_to_recreate(api, paths, namespaces, factory):
    name = namespaces.name("rc")
    body = namespace_body(name, namespaces.labels)
    first = A.expect_ok(api.post(paths.namespaces(), body), 201)
    validate(first, "Namespace")
    objects = {kind: paths.content(name, kind, factory.create(name, kind, f"nsc-old-{kind[:-1]}")["metadata"]["name"])
               for kind in RECREATED_KINDS}
    return first, body, objects


def _started(started_deletions, key):
    value = started_deletions[key]
    if isinstance(value, BaseException):
        raise value.with_traceback(None)
    return value


@pytest.fixture(scope="module")
def deleted_with_content(api, paths, waiter, started_deletions):
    """One namespace (held by HOLD) with one object of every content kind, deleted; the controller's pass is
    awaited once for every kind's NS-LIF-001 test (one controller pass per run, not one per kind).

    Returns (name, the namespace after the controller removed `kubernetes` — or the exception the wait
    ended with, which each kind's test then fails on —, {kind: (path, GET of it right after)})."""
    name, objects = _started(started_deletions, "content")
    try:
        after = _wait_controller_done(waiter, paths, name, max(SLOW_KINDS.get(k, DELETE_TIMEOUT) for k in objects))
    except (AssertionError, WaitTimeout) as exc:
        after = exc
    return name, after, {kind: (path, api.get(path)) for kind, path in objects.items()}


@pytest.mark.clause("NS-LIF-001")
@pytest.mark.parametrize("kind", CONTENT_KINDS)
def test_controller_deletes_content_before_finalizing(deleted_with_content, kind):
    """Deleting a namespace deletes its content of this kind before `kubernetes` leaves spec.finalizers."""
    name, after, found = deleted_with_content
    if isinstance(after, BaseException):
        raise after.with_traceback(None)
    assert A.finalizers(after) == [HOLD], f"spec.finalizers after the controller: {A.finalizers(after)}"
    path, resp = found[kind]
    assert resp.status_code == 404, (
        f"GET {path}: HTTP {resp.status_code}; the controller removed `kubernetes` from {name} while its "
        f"{kind} {path.rsplit('/', 1)[-1]} still exists: {A.body_excerpt(resp)}")


@pytest.mark.clause("NS-LIF-002", "NS-LIF-003")
def test_openshift_walkthrough_controller_first(api, paths, profile, namespaces, content, waiter):
    """Seed walk-through: controller removes only `kubernetes`; the namespace waits for the external finalizer."""
    # Step 1: "OpenShift creates a Namespace in Kubernetes" with its own finalizer first.
    ns = create_namespace(namespaces, "origin", finalizers=[ORIGIN, "kubernetes"])
    name = ns["metadata"]["name"]
    assert A.finalizers(ns) == [ORIGIN, "kubernetes"], f"created: spec.finalizers {A.finalizers(ns)}"
    cm = content.create(name, "configmaps", "nsc-known-content")
    cm_path = paths.content(name, "configmaps", cm["metadata"]["name"])
    # Step 2: "User deletes the Namespace": deletionTimestamp set, the external finalizer stays.
    # (The controller may already be done by the time we look, so `kubernetes` is not checked here.)
    delete_namespace(api, paths, name)
    deleting = read_namespace(api, paths, name)
    assert deleting["metadata"].get("deletionTimestamp"), "after DELETE: no metadata.deletionTimestamp"
    assert A.finalizers(deleting)[:1] == [ORIGIN], f"after DELETE: spec.finalizers {A.finalizers(deleting)}"
    # Step 3: the Kubernetes controller purges what it knows and finalizes away `kubernetes` only.
    after = _wait_controller_done(waiter, paths, name)
    assert A.finalizers(after) == [ORIGIN], (
        f"the controller must remove only `kubernetes`: expected [{ORIGIN!r}], got {A.finalizers(after)}")
    A.expect_code(api.get(cm_path), 404)
    stored = read_namespace(api, paths, name) if profile == "kubernetes" else \
        waiter.namespace_phase(name, "Terminating", timeout=DELETE_TIMEOUT)
    validate(stored, "Namespace")
    assert A.phase(stored) == "Terminating" and A.finalizers(stored) == [ORIGIN], (
        f"waiting for {ORIGIN}: expected Terminating with [{ORIGIN!r}], got phase {A.phase(stored)!r}, "
        f"finalizers {A.finalizers(stored)}")
    # Step 4: OpenShift's own controller finalizes away its entry; the namespace is then removed.
    finalize_ok(api, paths, name, [])
    wait_namespace_gone(waiter, paths, name, timeout=DELETE_TIMEOUT)
    A.expect_code(api.get(paths.namespace(name)), 404)


@pytest.mark.clause("NS-LIF-004")
def test_openshift_walkthrough_external_first(api, paths, namespaces, content, waiter):
    """External finalizer removed first: the namespace stays with ["kubernetes"] until the controller is done."""
    ns = create_namespace(namespaces, "origin", finalizers=[ORIGIN, "kubernetes"])
    name = ns["metadata"]["name"]
    # A ConfigMap with its own finalizer keeps the controller from finishing while we act first.
    cm_path = _delete_holding_a_configmap(api, paths, content, waiter, name)
    finalize_ok(api, paths, name, ["kubernetes"])
    stored = read_namespace(api, paths, name)
    assert stored["metadata"].get("deletionTimestamp") and A.finalizers(stored) == ["kubernetes"], (
        f"after the external finalizer left: expected a terminating namespace with ['kubernetes'], got "
        f"finalizers {A.finalizers(stored)}, deletionTimestamp {stored['metadata'].get('deletionTimestamp')!r}")
    clear_content_finalizers(api, cm_path)
    wait_namespace_gone(waiter, paths, name, timeout=DELETE_TIMEOUT)
    A.expect_code(api.get(cm_path), 404)


def _delete_holding_a_configmap(api, paths, content, waiter, name):
    """Put a ConfigMap carrying HOLD in namespace `name`, delete the namespace and wait until the controller
    has deleted the ConfigMap (which stays, held); returns the ConfigMap's path."""
    cm = content.create(name, "configmaps", "nsc-held", finalizers=[HOLD])
    cm_path = paths.content(name, "configmaps", cm["metadata"]["name"])
    delete_namespace(api, paths, name)
    # Hopeless at once if the ConfigMap vanished despite its finalizer, or the namespace did or lost `kubernetes`
    # (then no controller will ever delete its content; a conformant namespace keeps both while it is held).
    waiter.until(cm_path, lambda o: bool(o["metadata"].get("deletionTimestamp")),
                 f"the controller to delete {cm_path}", timeout=DELETE_TIMEOUT, give_up=gone,
                 also=[(paths.namespace(name), no_controller_for_content(name, paths.profile))])
    return cm_path


def _held_namespace(api, paths, profile, namespaces, content, waiter):
    """A deleted namespace whose ConfigMap carries a finalizer; returns (name, cm_path, namespace-after-sync)."""
    ns = create_namespace(namespaces, "held")
    name = ns["metadata"]["name"]
    cm_path = _delete_holding_a_configmap(api, paths, content, waiter, name)
    if profile == "kubernetes":
        # NS-71: the controller reports the remaining finalizer after its deletion pass: a sync point.
        # Conditions are NS-LIF-006's clause, so a server without them still gets a bounded wait here.
        def synced_when(o):
            return ((A.condition(o, "NamespaceFinalizersRemaining") or {}).get("status") == "True"
                    or _kubernetes_removed(o))
        what = f"the NamespaceFinalizersRemaining condition on {name}"
    else:
        # No condition to wait for: give a wrong controller a bounded chance to finalize too early.
        synced_when, what = _kubernetes_removed, f"`kubernetes` to stay in spec.finalizers of {name}"
    try:
        synced = wait_namespace(waiter, paths, name, synced_when, what,
                                timeout=DELETE_TIMEOUT if profile == "kubernetes" else 3.0)
    except WaitTimeout:
        synced = read_namespace(api, paths, name)
    return name, cm_path, synced


@pytest.mark.clause("NS-LIF-005")
def test_content_finalizers_hold_namespace(api, paths, profile, namespaces, content, waiter):
    """Content with its own finalizers keeps the terminating namespace (and `kubernetes`) until released."""
    name, cm_path, synced = _held_namespace(api, paths, profile, namespaces, content, waiter)
    assert synced is not None, f"namespace {name} vanished while {cm_path} still had metadata.finalizers [{HOLD!r}]"
    assert "kubernetes" in A.finalizers(synced), (
        f"the controller removed `kubernetes` from {name} while {cm_path} still exists: {A.finalizers(synced)}")
    stored = read_namespace(api, paths, name)
    assert stored["metadata"].get("deletionTimestamp") and "kubernetes" in A.finalizers(stored)
    read_object(api, cm_path)
    clear_content_finalizers(api, cm_path)
    wait_namespace_gone(waiter, paths, name, timeout=DELETE_TIMEOUT)
    A.expect_code(api.get(cm_path), 404)


_OK_CONDITIONS = {
    "NamespaceDeletionDiscoveryFailure": ("ResourcesDiscovered", "All resources successfully discovered"),
    "NamespaceDeletionGroupVersionParsingFailure": ("ParsedGroupVersions", "All legacy kube types successfully parsed"),
    "NamespaceDeletionContentFailure": ("ContentDeleted",
                                        "All content successfully deleted, may be waiting on finalization"),
}


@pytest.mark.clause("NS-LIF-006")
def test_termination_conditions(api, paths, namespaces, content, waiter):
    """While a ConfigMap's finalizer holds the namespace, the controller writes the five NS-71 conditions."""
    name, cm_path, _ = _held_namespace(api, paths, "kubernetes", namespaces, content, waiter)

    def settled(o):
        remaining = A.condition(o, "NamespaceContentRemaining") or {}
        fins = A.condition(o, "NamespaceFinalizersRemaining") or {}
        return (remaining.get("status") == "True" and fins.get("status") == "True"
                and f"{HOLD} in 1 resource instances" in (fins.get("message") or "")
                and all(A.condition(o, t) for t in _OK_CONDITIONS))

    ns = wait_namespace(waiter, paths, name, settled, f"the five termination conditions on {name}")
    assert ns is not None, f"namespace {name} vanished while {cm_path} still had a finalizer"
    validate(ns, "Namespace")
    remaining = A.condition(ns, "NamespaceContentRemaining")
    A.expect_subset(remaining, {"status": "True", "reason": "SomeResourcesRemain"}, "NamespaceContentRemaining")
    assert remaining["message"].startswith("Some resources are remaining: ") and \
        "configmaps. has 1 resource instances" in remaining["message"], (
            f"NamespaceContentRemaining message: {remaining['message']!r}")
    fins = A.condition(ns, "NamespaceFinalizersRemaining")
    A.expect_subset(fins, {"status": "True", "reason": "SomeFinalizersRemain"}, "NamespaceFinalizersRemaining")
    assert fins["message"].startswith("Some content in the namespace has finalizers remaining: "), f"message: {fins['message']!r}"
    for ctype, (reason, message) in _OK_CONDITIONS.items():
        cond = A.condition(ns, ctype)
        if cond.get("status") == "True":
            # A failing aggregated API on a real cluster makes these True legitimately: report, do not fail.
            warnings.warn(f"{ctype} is True on {name}: {cond.get('reason')}: {cond.get('message')}")
            continue
        A.expect_subset(cond, {"status": "False", "reason": reason, "message": message}, ctype)
    clear_content_finalizers(api, cm_path)


@pytest.fixture(scope="module")
def recreated_namespace(api, paths, waiter, started_deletions):
    """A namespace holding one object of each of RECREATED_KINDS, deleted, awaited until gone, and created again
    under the same name: one deletion per run for every kind's NS-LIF-007 test.

    Returns (first, second — or the exception the wait or the re-create ended with —, {kind: (path, GET of
    it in the re-created namespace)})."""
    first, body, objects = _started(started_deletions, "recreate")
    name = first["metadata"]["name"]
    try:
        wait_namespace_gone(waiter, paths, name, timeout=max(SLOW_KINDS.get(k, DELETE_TIMEOUT) for k in objects))
        second = A.expect_ok(api.post(paths.namespaces(), body), 201)
        validate(second, "Namespace")
    except (AssertionError, WaitTimeout) as exc:
        return first, exc, {}
    return first, second, {kind: (path, api.get(path)) for kind, path in objects.items()}


@pytest.mark.clause("NS-LIF-007")
@pytest.mark.parametrize("kind", RECREATED_KINDS)
def test_recreated_namespace_is_new_and_empty(recreated_namespace, kind):
    """Re-creating a deleted namespace's name gives a new uid and none of the old content."""
    first, second, found = recreated_namespace
    if isinstance(second, BaseException):
        raise second.with_traceback(None)
    name = first["metadata"]["name"]
    assert second["metadata"].get("uid") and second["metadata"]["uid"] != first["metadata"].get("uid"), (
        f"re-created {name}: expected a new uid, got {second['metadata'].get('uid')!r} "
        f"(old {first['metadata'].get('uid')!r})")
    obj_path, resp = found[kind]
    assert resp.status_code == 404, (
        f"GET {obj_path} in the re-created namespace: HTTP {resp.status_code}, the old {kind} survived: "
        f"{A.body_excerpt(resp)}")


@pytest.mark.clause("NS-LIF-008")
def test_create_while_terminating_conflicts(api, paths, namespaces):
    """Creating a namespace whose name is still terminating is a 409 `object is being deleted: ...`."""
    ns = create_namespace(namespaces, "lif", finalizers=[HOLD])
    name = ns["metadata"]["name"]
    delete_namespace(api, paths, name)
    resp = api.post(paths.namespaces(), namespace_body(name, namespaces.labels))
    A.expect_status(resp, 409, reason="AlreadyExists",
                    message=f'object is being deleted: namespaces "{name}" already exists',
                    details={"name": name, "kind": "namespaces"})
    stored = read_namespace(api, paths, name)
    assert stored["metadata"]["uid"] == ns["metadata"]["uid"], "the terminating namespace was replaced"
