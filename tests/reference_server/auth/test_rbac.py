"""RBAC authorizer, request attributes and the exact 403 texts (rbac.go, requestinfo.go, errors.go)."""
from __future__ import annotations

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.auth.rbac import (BOOTSTRAP_POLICY, Attributes, LayeredRbacSource,
                                                    RBACAuthorizer, RequestInfoError, StaticRbacSource, UserInfo,
                                                    forbidden_error, forbidden_message, request_attributes)

G = "rbac.authorization.k8s.io"
ALICE = UserInfo("alice", "u1", ("devs", "system:authenticated"))


def role(name, ns, rules, kind="Role"):
    meta = {"name": name}
    if ns:
        meta["namespace"] = ns
    return {"apiVersion": f"{G}/v1", "kind": kind, "metadata": meta, "rules": rules}


def binding(name, ns, ref_kind, ref_name, subjects, kind="RoleBinding"):
    meta = {"name": name}
    if ns:
        meta["namespace"] = ns
    return {"apiVersion": f"{G}/v1", "kind": kind, "metadata": meta,
            "roleRef": {"apiGroup": G, "kind": ref_kind, "name": ref_name}, "subjects": subjects}


def user(name):
    return {"apiGroup": G, "kind": "User", "name": name}


CM_READER = [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}]


def authz(*objs):
    return RBACAuthorizer(StaticRbacSource(objs))


def attrs(method, path, query=None, who=ALICE):
    return request_attributes(method, path, query, who)


# --- request attributes (requestinfo.go) --------------------------------------------------------------------

@pytest.mark.parametrize("method,path,query,expect", [
    ("GET", "/api/v1/namespaces/a/configmaps", None, ("list", "", "configmaps", "", "a", "")),
    ("GET", "/api/v1/namespaces/a/configmaps", "watch=true", ("watch", "", "configmaps", "", "a", "")),
    ("GET", "/api/v1/namespaces/a/configmaps", "watch=1", ("watch", "", "configmaps", "", "a", "")),
    ("GET", "/api/v1/namespaces/a/configmaps", "watch=false", ("list", "", "configmaps", "", "a", "")),
    ("GET", "/api/v1/namespaces/a/configmaps", "watch=0", ("list", "", "configmaps", "", "a", "")),
    ("GET", "/api/v1/namespaces/a/configmaps/x", None, ("get", "", "configmaps", "", "a", "x")),
    ("HEAD", "/api/v1/namespaces/a/configmaps/x", None, ("get", "", "configmaps", "", "a", "x")),
    ("POST", "/api/v1/namespaces/a/configmaps", None, ("create", "", "configmaps", "", "a", "")),
    ("PUT", "/api/v1/namespaces/a/configmaps/x", None, ("update", "", "configmaps", "", "a", "x")),
    ("PATCH", "/api/v1/namespaces/a/configmaps/x", None, ("patch", "", "configmaps", "", "a", "x")),
    ("DELETE", "/api/v1/namespaces/a/configmaps/x", None, ("delete", "", "configmaps", "", "a", "x")),
    ("DELETE", "/api/v1/namespaces/a/configmaps", None, ("deletecollection", "", "configmaps", "", "a", "")),
    ("GET", "/api/v1/configmaps", None, ("list", "", "configmaps", "", "", "")),
    ("GET", "/api/v1/namespaces", None, ("list", "", "namespaces", "", "", "")),
    ("GET", "/api/v1/namespaces/a", None, ("get", "", "namespaces", "", "a", "a")),
    ("DELETE", "/api/v1/namespaces/a", None, ("delete", "", "namespaces", "", "a", "a")),
    ("PUT", "/api/v1/namespaces/a/finalize", None, ("update", "", "namespaces", "finalize", "a", "a")),
    ("PUT", "/api/v1/namespaces/a/status", None, ("update", "", "namespaces", "status", "a", "a")),
    ("GET", "/api/v1/watch/namespaces/a/configmaps", None, ("watch", "", "configmaps", "", "a", "")),
    ("GET", "/api/v1/watch/namespaces", None, ("watch", "", "namespaces", "", "", "")),
    ("GET", "/api/v1/watch/namespaces/a", None, ("watch", "", "namespaces", "", "a", "a")),
    ("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles", None, ("list", G, "roles", "", "a", "")),
    ("GET", "/api/v1/namespaces", "fieldSelector=metadata.name%3Dfoo", ("list", "", "namespaces", "", "", "foo")),
    ("GET", "/api/v1/namespaces", {"fieldSelector": "metadata.name==foo", "watch": "true"},
     ("watch", "", "namespaces", "", "", "foo")),
    ("GET", "/api/v1/namespaces", {"fieldSelector": "metadata.name!=foo"}, ("list", "", "namespaces", "", "", "")),
    ("GET", "/api/v1/namespaces", {"fieldSelector": "metadata.name=foo", "limit": "x"},
     ("list", "", "namespaces", "", "", "")),
    ("GET", "/api/v1/namespaces", {"fieldSelector": "metadata.name=foo", "timeoutSeconds": ""},
     ("list", "", "namespaces", "", "", "")),
    ("GET", "/api/v1/namespaces", {"fieldSelector": "status.phase=Active,metadata.name=foo"},
     ("list", "", "namespaces", "", "", "foo")),
    ("GET", "/api/v1/namespaces/a/pods/p/log", None, ("get", "", "pods", "log", "a", "p")),
])
def test_request_attributes(method, path, query, expect):
    a = attrs(method, path, query)
    assert a.resource_request
    assert (a.verb, a.api_group, a.resource, a.subresource, a.namespace, a.name) == expect


@pytest.mark.parametrize("path", ["/", "/api", "/api/v1", "/apis", "/apis/rbac.authorization.k8s.io",
                                  "/apis/rbac.authorization.k8s.io/v1", "/version", "/healthz", "/openapi/v2"])
def test_non_resource_paths(path):
    a = attrs("GET", path)
    assert not a.resource_request and a.verb == "get" and a.path == path


# --- forbidden texts (responsewriters/errors.go) ----------------------------------------------------------

def test_forbidden_list_in_namespace_exact():
    err = forbidden_error(attrs("GET", "/api/v1/namespaces/ns/configmaps", who=UserInfo("u")))
    assert err.code == 403 and err.reason == "Forbidden"
    assert err.message == ('configmaps is forbidden: User "u" cannot list resource "configmaps" in API group "" '
                           'in the namespace "ns"')
    assert err.status["details"] == {"kind": "configmaps"}


def test_forbidden_named_get_exact():
    err = forbidden_error(attrs("GET", "/api/v1/namespaces/ns/configmaps/x", who=UserInfo("u")))
    assert err.message == ('configmaps "x" is forbidden: User "u" cannot get resource "configmaps" in API group "" '
                           'in the namespace "ns"')
    assert err.status["details"] == {"name": "x", "kind": "configmaps"}


def test_forbidden_cluster_scope_exact():
    err = forbidden_error(attrs("GET", "/api/v1/configmaps", who=UserInfo("u")))
    assert err.message == ('configmaps is forbidden: User "u" cannot list resource "configmaps" in API group "" '
                           'at the cluster scope')


def test_forbidden_subresource_and_group():
    err = forbidden_error(attrs("PUT", "/api/v1/namespaces/ns/finalize", who=UserInfo("u")))
    assert err.message == ('namespaces "ns" is forbidden: User "u" cannot update resource "namespaces/finalize" '
                           'in API group "" in the namespace "ns"')
    err = forbidden_error(attrs("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/ns/roles", who=UserInfo("u")))
    assert err.message == ('roles.rbac.authorization.k8s.io is forbidden: User "u" cannot create resource "roles" '
                           'in API group "rbac.authorization.k8s.io" in the namespace "ns"')
    assert err.status["details"] == {"group": G, "kind": "roles"}


def test_forbidden_non_resource_and_reason_and_sanitizer():
    err = forbidden_error(attrs("GET", "/healthz", who=UserInfo("system:anonymous")))
    assert err.message == 'forbidden: User "system:anonymous" cannot get path "/healthz"'
    err = forbidden_error(attrs("GET", "/api/v1/namespaces/ns/configmaps", who=UserInfo("<b>&")),
                          'RBAC: role.rbac.authorization.k8s.io "r" not found')
    assert err.message == ('configmaps is forbidden: User "&lt;b&gt;&amp;" cannot list resource "configmaps" in '
                           'API group "" in the namespace "ns": RBAC: role.rbac.authorization.k8s.io "r" not found')
    assert forbidden_message(Attributes(None, "get", resource="pods")) == \
        'User "" cannot get resource "pods" in API group "" at the cluster scope'


# --- authorization -------------------------------------------------------------------------------------------

def test_role_binding_scopes_to_its_namespace():
    a = authz(role("cm", "a", CM_READER), binding("rb", "a", "Role", "cm", [user("alice")]))
    assert a.authorize(attrs("GET", "/api/v1/namespaces/a/configmaps")) == (
        True, 'RBAC: allowed by RoleBinding "rb/a" of Role "cm" to User "alice"')
    assert a.authorize(attrs("GET", "/api/v1/namespaces/a/configmaps/x", "")) [0]
    assert a.authorize(attrs("GET", "/api/v1/namespaces/a/configmaps", "watch=true"))[0]
    assert a.authorize(attrs("POST", "/api/v1/namespaces/a/configmaps")) == (False, "")
    assert a.authorize(attrs("GET", "/api/v1/namespaces/b/configmaps")) == (False, "")
    assert a.authorize(attrs("GET", "/api/v1/configmaps")) == (False, "")  # cross-namespace list refused
    assert a.authorize(attrs("GET", "/api/v1/namespaces/a/secrets")) == (False, "")
    with pytest.raises(StatusError) as exc:
        a.check(attrs("GET", "/api/v1/namespaces/b/configmaps"))
    assert exc.value.message == ('configmaps is forbidden: User "alice" cannot list resource "configmaps" in API '
                                 'group "" in the namespace "b"')


def test_role_binding_to_cluster_role_is_namespace_scoped():
    a = authz(role("cm", "", CM_READER, kind="ClusterRole"), binding("rb", "a", "ClusterRole", "cm", [user("alice")]))
    assert a.authorize(attrs("GET", "/api/v1/namespaces/a/configmaps")) == (
        True, 'RBAC: allowed by RoleBinding "rb/a" of ClusterRole "cm" to User "alice"')
    assert not a.authorize(attrs("GET", "/api/v1/namespaces/b/configmaps"))[0]
    assert not a.authorize(attrs("GET", "/api/v1/configmaps"))[0]


def test_cluster_role_binding_applies_everywhere():
    a = authz(role("cm", "", CM_READER, kind="ClusterRole"),
              binding("crb", "", "ClusterRole", "cm", [{"apiGroup": G, "kind": "Group", "name": "devs"}],
                      kind="ClusterRoleBinding"))
    for path in ("/api/v1/namespaces/a/configmaps", "/api/v1/namespaces/b/configmaps", "/api/v1/configmaps"):
        assert a.authorize(attrs("GET", path)) == (
            True, 'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "cm" to Group "devs"')


def test_service_account_subjects():
    sa_user = UserInfo("system:serviceaccount:a:robot", "", ("system:serviceaccounts", "system:serviceaccounts:a"))
    implicit = {"kind": "ServiceAccount", "name": "robot"}
    a = authz(role("cm", "a", CM_READER), binding("rb", "a", "Role", "cm", [implicit]))
    assert a.authorize(attrs("GET", "/api/v1/namespaces/a/configmaps", who=sa_user)) == (
        True, 'RBAC: allowed by RoleBinding "rb/a" of Role "cm" to ServiceAccount "robot/a"')
    other = {"kind": "ServiceAccount", "name": "robot", "namespace": "b"}
    a = authz(role("cm", "a", CM_READER), binding("rb", "a", "Role", "cm", [other]))
    assert not a.authorize(attrs("GET", "/api/v1/namespaces/a/configmaps", who=sa_user))[0]
    # a ClusterRoleBinding SA subject without namespace never applies
    a = authz(role("cm", "", CM_READER, kind="ClusterRole"),
              binding("crb", "", "ClusterRole", "cm", [implicit], kind="ClusterRoleBinding"))
    assert not a.authorize(attrs("GET", "/api/v1/namespaces/a/configmaps", who=sa_user))[0]


def test_rule_matching_details():
    rules = [{"apiGroups": ["*"], "resources": ["*/status"], "verbs": ["update"]},
             {"apiGroups": [""], "resources": ["namespaces/finalize"], "verbs": ["update"]},
             {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["s1"], "verbs": ["*"]},
             {"nonResourceURLs": ["/metrics/*"], "verbs": ["get"]}]
    a = authz(role("r", "", rules, kind="ClusterRole"),
              binding("b", "", "ClusterRole", "r", [user("alice")], kind="ClusterRoleBinding"))
    assert a.authorize(attrs("PUT", "/api/v1/namespaces/a/status"))[0]
    assert a.authorize(attrs("PUT", "/api/v1/namespaces/a/finalize"))[0]
    assert not a.authorize(attrs("PUT", "/api/v1/namespaces/a"))[0]
    assert a.authorize(attrs("DELETE", "/api/v1/namespaces/a/secrets/s1"))[0]
    assert not a.authorize(attrs("DELETE", "/api/v1/namespaces/a/secrets/s2"))[0]
    assert not a.authorize(attrs("GET", "/api/v1/namespaces/a/secrets"))[0]  # list has no name
    assert a.authorize(attrs("GET", "/metrics/cadvisor"))[0]
    assert not a.authorize(attrs("GET", "/metrics"))[0]


def test_system_masters_and_bootstrap_policy():
    a = RBACAuthorizer(StaticRbacSource(BOOTSTRAP_POLICY))
    admin = UserInfo("system:admin", "", ("system:masters", "system:authenticated"))
    assert a.authorize(attrs("DELETE", "/api/v1/namespaces/x", who=admin)) == (True, "")
    assert a.authorize(attrs("GET", "/api/v1", who=ALICE))[0]
    assert a.authorize(attrs("GET", "/apis/rbac.authorization.k8s.io/v1", who=ALICE))[0]
    assert a.authorize(attrs("GET", "/version", who=UserInfo("system:anonymous", "", ("system:unauthenticated",))))[0]
    assert not a.authorize(attrs("GET", "/api/v1", who=UserInfo("system:anonymous", "", ("system:unauthenticated",))))[0]
    assert not a.authorize(attrs("GET", "/api/v1/namespaces", who=ALICE))[0]


def test_dangling_bindings_give_a_reason():
    a = authz(binding("rb", "a", "Role", "gone", [user("alice")]),
              binding("rb2", "a", "ClusterRole", "gone-too", [user("alice")]),
              binding("crb", "", "ClusterRole", "gone-too", [user("alice")], kind="ClusterRoleBinding"))
    allowed, reason = a.authorize(attrs("GET", "/api/v1/namespaces/a/configmaps"))
    assert not allowed
    assert reason == ('RBAC: [clusterrole.rbac.authorization.k8s.io "gone-too" not found, '
                      'role.rbac.authorization.k8s.io "gone" not found]')
    a = authz(binding("rb", "a", "Role", "gone", [user("alice")]))
    assert a.authorize(attrs("GET", "/api/v1/namespaces/a/configmaps")) == (
        False, 'RBAC: role.rbac.authorization.k8s.io "gone" not found')
    bad = binding("rb", "a", "Thing", "x", [user("alice")])
    assert authz(bad).authorize(attrs("GET", "/api/v1/namespaces/a/configmaps")) == (
        False, 'RBAC: unsupported role reference kind: "Thing"')


def test_layered_source():
    src = LayeredRbacSource(StaticRbacSource(BOOTSTRAP_POLICY),
                            StaticRbacSource([role("cm", "a", CM_READER),
                                              binding("rb", "a", "Role", "cm", [user("alice")])]))
    a = RBACAuthorizer(src)
    assert a.authorize(attrs("GET", "/api/v1/namespaces/a/configmaps"))[0]
    assert a.authorize(attrs("GET", "/api", who=ALICE))[0]


def test_design_profile_cross_namespace_list_path():
    a = request_attributes("GET", "/api/v1/list/configmaps", None, ALICE, design_list=True)
    assert (a.verb, a.resource, a.namespace, a.name) == ("list", "configmaps", "", "")
    assert forbidden_error(a).message == ('configmaps is forbidden: User "alice" cannot list resource "configmaps" '
                                          'in API group "" at the cluster scope')
    # without the flag the path is what upstream would make of it
    a = request_attributes("GET", "/api/v1/list/configmaps", None, ALICE)
    assert (a.verb, a.resource, a.name) == ("get", "list", "configmaps")


def test_request_info_error():
    with pytest.raises(RequestInfoError) as exc:
        request_attributes("GET", "/api/v1/watch")
    assert str(exc.value) == "unable to determine kind and namespace from url, /api/v1/watch"
