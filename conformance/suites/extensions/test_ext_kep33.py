"""Extension `kep-33` (group `initializers`): namespace initializers, KEP-33 (seed 004).

KEP-33 stayed provisional and was never merged upstream: these tests run only with `--extension kep-33`,
skip when the target does not serve `NamespaceInitializerConfiguration`, and are reported apart from core
conformance. The suite plays the initializer controller: it registers configurations (unique names, the
run's labels, deleted in teardown and by `nsconform cleanup`), watches its namespace get them, creates
content there with the `initialize` grant (impersonation) and removes itself from `pending`.
Tests run one at a time (`_kep33.serial`): a configuration applies to every new namespace.
"""

from __future__ import annotations

import secrets

import pytest

from conformance import assertions as A
from conformance.suites._scope import (RBAC_GROUP, as_user, binding_body, create, grant, new_user, rbac_path,
                                       require_authorization, role_body, until_allowed)
from conformance.suites.extensions._kep33 import (Configurations, condition, initializer_name, pending,
                                                  remove_initializer, require_served, serial)


@pytest.fixture
def configs(request, api, run_id):
    """The test's configurations (the suite is skipped when the kind is not served); serialised per run."""
    require_served(api)
    made = Configurations(api, run_id, request.node.nodeid)
    with serial(run_id):
        try:
            yield made
        finally:
            problems = made.cleanup()
    if problems:
        pytest.fail("could not delete NamespaceInitializerConfiguration(s): " + "; ".join(problems))


def _ours(ns: dict, names: list[str]) -> list[str]:
    """The pending initializers that are this test's (a cluster may have its own configurations)."""
    return [n for n in pending(ns) if n in names]


@pytest.mark.clause("EXT-KEP33-001")
def test_admission_fills_pending(api, paths, namespaces, configs):
    """A new namespace gets the configured initializer in spec.initializers.pending, in place of the
    body's own list, and its creator can read it while it is pending."""
    mine = initializer_name("fill")
    configs.create("a", [mine])
    forged = initializer_name("forged")
    created = namespaces.create("kep33-fill", body={"spec": {"initializers": {"pending": [{"name": forged}]}}})
    name = created["metadata"]["name"]
    assert mine in pending(created), (f"namespace {name} was created while configuration {configs.created[0]} "
                                      f"lists {mine}: spec.initializers.pending is {pending(created)}")
    assert forged not in pending(created), (f"namespace {name}: the client's own pending initializer {forged} "
                                            f"was kept; the admission plugin must populate the list itself")
    got = A.expect_ok(api.get(paths.namespace(name)))
    assert mine in pending(got), f"GET namespace {name}: pending is {pending(got)}, expected {mine} in it"


@pytest.mark.clause("EXT-KEP33-002")
def test_merge_order(api, paths, namespaces, configs):
    """Configurations `<p>-b` [b1, b2] (created first) and `<p>-a` [a2, a1]: pending is a2, a1, b1, b2."""
    a2, a1 = initializer_name("zz"), initializer_name("aa")
    b1, b2 = initializer_name("yy"), initializer_name("bb")
    configs.create("b", [b1, b2])
    configs.create("a", [a2, a1])
    created = namespaces.create("kep33-order")
    want = [a2, a1, b1, b2]
    assert _ours(created, want) == want, (
        f"namespace {created['metadata']['name']}: pending (this test's initializers) is "
        f"{_ours(created, want)}, expected {want} (configurations sorted by name, order kept within one)")


@pytest.mark.clause("EXT-KEP33-003")
def test_initializing_condition(api, paths, namespaces, configs):
    """While an initializer is pending the namespace has condition Initializing=True."""
    configs.create("a", [initializer_name("cond")])
    created = namespaces.create("kep33-cond")
    got = A.expect_ok(api.get(paths.namespace(created["metadata"]["name"])))
    cond = condition(got)
    assert cond is not None and cond.get("status") == "True", (
        f"namespace {created['metadata']['name']} with pending {pending(got)}: expected condition "
        f"Initializing=True, got {cond} (status: {got.get('status')})")
    phase = (got.get("status") or {}).get("phase")
    assert phase in ("Active", "Initializing"), (
        f"namespace {created['metadata']['name']} is initializing: phase must be Active or the KEP's optional "
        f"Initializing, got {phase!r}")


@pytest.mark.clause("EXT-KEP33-004")
def test_initializers_remove_themselves(api, paths, namespaces, configs):
    """Two initializers remove themselves in turn; after the last one spec.initializers is gone and the
    Initializing condition is no longer True."""
    first, second = initializer_name("one"), initializer_name("two")
    configs.create("a", [first, second])
    created = namespaces.create("kep33-done")
    name = created["metadata"]["name"]
    foreign = [n for n in pending(created) if n not in (first, second)]
    if foreign:
        pytest.skip(f"namespace {name} also waits for initializers this run does not control: {foreign}")
    after_first = remove_initializer(api, paths, name, first)
    assert pending(after_first) == [second], (
        f"namespace {name}: after {first} removed itself pending is {pending(after_first)}, expected [{second}]")
    cond = condition(after_first)
    assert cond is not None and cond.get("status") == "True", f"namespace {name}: condition is {cond} with {second} pending"
    done = remove_initializer(api, paths, name, second)
    assert "initializers" not in (done.get("spec") or {}), (
        f"namespace {name}: the last initializer removed itself, spec.initializers must be cleared; "
        f"spec is {done.get('spec')}")
    cond = condition(done)
    assert cond is None or cond.get("status") != "True", (
        f"namespace {name} is initialized but its Initializing condition is still True: {cond}")
    phase = (done.get("status") or {}).get("phase")
    assert phase == "Active", f"namespace {name} is initialized: phase must be Active, got {phase!r}"


@pytest.fixture
def initializer_grant(api, run_id, request):
    """`grant(ns, user)`: a ClusterRole allowing `initialize` on namespace `ns` and a ClusterRoleBinding to
    `user` (cluster-scoped, so labelled with the run's labels and deleted in teardown)."""
    from conformance.fixtures.namespaces import MANAGED_BY, RUN_LABEL, TEST_LABEL, test_id

    labels = {MANAGED_BY[0]: MANAGED_BY[1], RUN_LABEL: run_id, TEST_LABEL: test_id(request.node.nodeid)}
    made: list[str] = []

    def give(ns: str, user: str) -> None:
        name = f"nsc-kep33-init-{secrets.token_hex(3)}"
        role = role_body(name, [{"apiGroups": [""], "resources": ["namespaces"], "resourceNames": [ns],
                                 "verbs": ["initialize"]}], kind="ClusterRole")
        role["metadata"]["labels"] = labels
        made.append(rbac_path("clusterroles", name=name))
        create(api, rbac_path("clusterroles"), role)
        binding = binding_body(name, "ClusterRole", name, user)
        binding.update(kind="ClusterRoleBinding", apiVersion=f"{RBAC_GROUP}/v1")
        binding["metadata"]["labels"] = labels
        made.append(rbac_path("clusterrolebindings", name=name))
        create(api, rbac_path("clusterrolebindings"), binding)

    yield give
    for path in reversed(made):
        api.delete(path)


@pytest.mark.clause("EXT-KEP33-005")
def test_initialize_permission_guards_content(api, paths, namespaces, configs, initializer_grant):
    """User U (configmaps create/get in the namespace) is refused 403 while it initializes; initializer
    user I (same grant plus `initialize` on the namespace) may create; after initialization U may too."""
    mine = initializer_name("guard")
    configs.create("a", [mine])
    name = namespaces.create("kep33-guard")["metadata"]["name"]
    require_authorization(api, paths, name)
    user, initializer = new_user(), new_user()
    for who in (user, initializer):
        grant(api, name, who, ["create", "get", "list"])
    initializer_grant(name, initializer)
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "by-initializer"}}
    until_allowed(api, paths.content(name, "configmaps"), initializer, "the initializer's grants to take effect")
    A.expect_ok(api.post(paths.content(name, "configmaps"), body, headers=as_user(initializer)), 201)
    resp = api.post(paths.content(name, "configmaps"),
                    {**body, "metadata": {"name": "by-user"}}, headers=as_user(user))
    A.expect_status(resp, 403, reason="Forbidden")
    resp = api.get(paths.content(name, "configmaps"), headers=as_user(user))
    A.expect_status(resp, 403, reason="Forbidden")
    foreign = [n for n in pending(A.expect_ok(api.get(paths.namespace(name)))) if n != mine]
    remove_initializer(api, paths, name, mine)
    if foreign:
        return  # initializers this run does not control still hold the namespace
    until_allowed(api, paths.content(name, "configmaps"), user, f"namespace {name} to be initialized for {user}")
    A.expect_ok(api.post(paths.content(name, "configmaps"), {**body, "metadata": {"name": "by-user"}},
                         headers=as_user(user)), 201)


@pytest.mark.clause("EXT-KEP33-006")
def test_initializing_namespace_can_be_deleted(api, paths, waiter, namespaces, configs):
    """DELETE of a namespace whose initializer never acts: accepted, and the namespace goes away."""
    idle = initializer_name("idle")
    configs.create("a", [idle])
    name = namespaces.create("kep33-delete")["metadata"]["name"]
    resp = api.delete(paths.namespace(name))
    if resp.status_code not in (200, 202):
        remove_initializer(api, paths, name, idle)  # so that teardown can delete it
    A.expect_ok(resp, (200, 202))
    waiter.namespace_gone(name)
