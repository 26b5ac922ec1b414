"""Group `scope` (authorization): the namespace as an authorization scope (seed 000: "an authorization
scope for accessing content").

A user bound to a Role in namespace A may do there what the Role allows, and nothing else: not in
namespace B, not at the cluster scope, not other verbs. Every request is made as a throw-away user through
impersonation (see `_scope.py`); on a target that does not enforce authorization the tests skip.
"""

from __future__ import annotations

import secrets

import pytest

from conformance import assertions as A
from conformance.suites import refuse
from conformance.suites._scope import (as_user, binding_body, create, forbidden_message, grant, new_user,
                                       rbac_path, require_authorization, role_body, rule, until_allowed)


@pytest.fixture
def scope(api, paths, namespaces, content):
    """Namespaces A and B, a configmap `cm` in each, and a fresh user U (no bindings yet); skips when the
    target does not enforce authorization."""
    a = namespaces.create("authz-a")["metadata"]["name"]
    b = namespaces.create("authz-b")["metadata"]["name"]
    require_authorization(api, paths, a)
    for ns in (a, b):
        content.create(ns, "configmaps", "cm")
    return a, b, new_user()


def _granted(api, paths, scope, verbs=("get", "list", "watch")):
    a, b, user = scope
    grant(api, a, user, list(verbs))
    until_allowed(api, paths.content(a, "configmaps", "cm") if "get" in verbs else paths.content(a, "configmaps"),
                  user, f"the Role in {a} to take effect")
    return a, b, user


@pytest.mark.clause("NS-AUTHZ-001")
def test_role_grants_in_its_namespace(api, paths, scope):
    """A Role (get, list, watch configmaps) bound to U in A: U may get, list and watch configmaps in A."""
    a, _, user = _granted(api, paths, scope)
    listed = A.expect_ok(api.get(paths.content(a, "configmaps"), headers=as_user(user)))
    names = [i["metadata"]["name"] for i in listed.get("items") or []]
    assert "cm" in names, f"list of configmaps in {a} as {user}: cm missing from {names}"
    got = A.expect_ok(api.get(paths.content(a, "configmaps", "cm"), headers=as_user(user)))
    assert got["metadata"]["name"] == "cm"
    # a streamed watch: the 200 (and the open stream) is the check; no need to wait for timeoutSeconds
    with api.watch(paths.content(a, "configmaps"), headers=as_user(user), resume=False,
                   params={"watch": "true", "timeoutSeconds": "1", "fieldSelector": "metadata.name=cm"}) as stream:
        assert stream.status_code == 200, (f"watch of configmaps in {a} as {user}: expected HTTP 200, got "
                                           f"HTTP {stream.status_code}: {stream.error_body}")


@pytest.mark.clause("NS-AUTHZ-002")
def test_role_does_not_grant_in_another_namespace(api, paths, profile, scope):
    """U, bound in A only, gets 403 listing or reading configmaps in B, with upstream's message."""
    _, b, user = _granted(api, paths, scope)
    resp = api.get(paths.content(b, "configmaps"), headers=as_user(user))
    refuse(profile, resp, 403, reason="Forbidden", message=forbidden_message(user, "list", "configmaps", b),
           details={"kind": "configmaps"})
    resp = api.get(paths.content(b, "configmaps", "cm"), headers=as_user(user))
    refuse(profile, resp, 403, reason="Forbidden", message=forbidden_message(user, "get", "configmaps", b, "cm"),
           details={"kind": "configmaps", "name": "cm"})


@pytest.mark.clause("NS-AUTHZ-003")
def test_no_cross_namespace_access(api, paths, profile, scope):
    """U, bound in A only, may not list configmaps across namespaces, nor list namespaces (cluster scope)."""
    _, _, user = _granted(api, paths, scope)
    resp = api.get(paths.all_namespaces("configmaps"), headers=as_user(user))
    refuse(profile, resp, 403, reason="Forbidden", message=forbidden_message(user, "list", "configmaps", None),
           details={"kind": "configmaps"})
    resp = api.get(paths.all_namespaces("configmaps"), headers=as_user(user),
                   params={"watch": "true", "timeoutSeconds": "1"})
    refuse(profile, resp, 403, reason="Forbidden", message=forbidden_message(user, "watch", "configmaps", None))
    resp = api.get(paths.namespaces(), headers=as_user(user))
    refuse(profile, resp, 403, reason="Forbidden", message=forbidden_message(user, "list", "namespaces", None),
           details={"kind": "namespaces"})


@pytest.mark.clause("NS-AUTHZ-004")
def test_verbs_outside_the_role_refused(api, paths, profile, content, scope):
    """U with a read-only Role in A gets 403 creating or deleting configmaps in A; nothing is written."""
    a, _, user = _granted(api, paths, scope)
    name = f"nsc-cm-{secrets.token_hex(3)}"
    resp = api.post(paths.content(a, "configmaps"), content.body_for("configmaps", name), headers=as_user(user))
    refuse(profile, resp, 403, reason="Forbidden", message=forbidden_message(user, "create", "configmaps", a))
    A.expect_code(api.get(paths.content(a, "configmaps", name)), 404)
    resp = api.delete(paths.content(a, "configmaps", "cm"), headers=as_user(user))
    refuse(profile, resp, 403, reason="Forbidden", message=forbidden_message(user, "delete", "configmaps", a, "cm"))
    A.expect_ok(api.get(paths.content(a, "configmaps", "cm")))


@pytest.mark.clause("NS-AUTHZ-005")
def test_rolebinding_to_clusterrole_is_namespaced(api, paths, profile, request, scope):
    """A RoleBinding in A to a ClusterRole grants the ClusterRole's rules in A only: 403 in B and across
    namespaces."""
    a, b, user = scope
    cr = f"nsc-cr-{secrets.token_hex(4)}"
    create(api, rbac_path("clusterroles"), role_body(cr, [rule(["get", "list"])], kind="ClusterRole"))
    request.addfinalizer(lambda: api.delete(rbac_path("clusterroles", name=cr)))
    create(api, rbac_path("rolebindings", a), binding_body(cr, "ClusterRole", cr, user))
    until_allowed(api, paths.content(a, "configmaps"), user, f"the RoleBinding to ClusterRole {cr} in {a}")
    resp = api.get(paths.content(b, "configmaps"), headers=as_user(user))
    refuse(profile, resp, 403, reason="Forbidden", message=forbidden_message(user, "list", "configmaps", b))
    resp = api.get(paths.all_namespaces("configmaps"), headers=as_user(user))
    refuse(profile, resp, 403, reason="Forbidden", message=forbidden_message(user, "list", "configmaps", None))
