"""`authorization.k8s.io/v1` access reviews (SelfSubjectAccessReview, SubjectAccessReview,
LocalSubjectAccessReview) and SelfSubjectRulesReview: discovery, routing, validation texts, the AlwaysAllow
and RBAC answers, and the protobuf body kubectl sends. Upstream: pkg/registry/authorization/*/rest.go,
util/helpers.go, pkg/apis/authorization/validation/validation.go, plugin/pkg/auth/authorizer/rbac/rbac.go
(`RulesFor`), authorizerfactory/builtin.go."""
from __future__ import annotations

from typing import Any

import pytest
import requests

from conformance.reference_server.auth import (BOOTSTRAP_POLICY, Attributes, RBACAuthorizer, StaticRbacSource,
                                               UserInfo)
from conformance.reference_server.auth.rbac import RuleSet
from conformance.reference_server.auth.review import BY_PLURAL, AlwaysAllowAuthorizer, review
from conformance.reference_server import apierrors as E
from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.wire import authorization_pb, protobuf

G = "authorization.k8s.io"
V1 = f"/apis/{G}/v1"
SSAR, SAR, SSRR = f"{V1}/selfsubjectaccessreviews", f"{V1}/subjectaccessreviews", f"{V1}/selfsubjectrulesreviews"
PB = "application/vnd.kubernetes.protobuf"
BASIC_USER = ('RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to '
              'Group "system:authenticated"')


def lsar(ns: str) -> str:
    return f"{V1}/namespaces/{ns}/localsubjectaccessreviews"


def ssar(**attrs: Any) -> dict[str, Any]:
    return {"apiVersion": f"{G}/v1", "kind": "SelfSubjectAccessReview", "spec": attrs}


@pytest.fixture(scope="module")
def rbac(tmp_path_factory):
    users = tmp_path_factory.mktemp("ssar") / "users.csv"
    users.write_text('alice-token,alice,1,"dev"\n')
    srv = start_embedded(authorization="rbac", users_file=str(users))
    yield srv
    srv.stop()


def post(url: str, path: str, body: Any, token: str | None = None, **headers: str) -> requests.Response:
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return requests.post(url + path, json=body, headers=headers, timeout=10)


# ---- discovery and routing ------------------------------------------------------------------------------

def test_discovery(url, http):
    gv = {"groupVersion": f"{G}/v1", "version": "v1"}
    assert http.get(f"{url}/apis/{G}").json() == {"kind": "APIGroup", "apiVersion": "v1", "name": G,
                                                   "versions": [gv], "preferredVersion": gv}
    res = http.get(url + V1).json()
    assert res["groupVersion"] == f"{G}/v1"
    assert res["resources"] == [
        {"name": "localsubjectaccessreviews", "singularName": "localsubjectaccessreview", "namespaced": True,
         "kind": "LocalSubjectAccessReview", "verbs": ["create"]},
        {"name": "selfsubjectaccessreviews", "singularName": "selfsubjectaccessreview", "namespaced": False,
         "kind": "SelfSubjectAccessReview", "verbs": ["create"]},
        {"name": "selfsubjectrulesreviews", "singularName": "selfsubjectrulesreview", "namespaced": False,
         "kind": "SelfSubjectRulesReview", "verbs": ["create"]},
        {"name": "subjectaccessreviews", "singularName": "subjectaccessreview", "namespaced": False,
         "kind": "SubjectAccessReview", "verbs": ["create"]}]


@pytest.mark.parametrize("method", ["GET", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", [SSAR, SSRR])
def test_only_create_is_served(url, http, method, path):
    r = http.request(method, url + path, json={})
    assert r.status_code == 405 and r.json()["reason"] == "MethodNotAllowed"
    assert r.json()["message"] == "the server does not allow this method on the requested resource"


@pytest.mark.parametrize("path", [f"{SSAR}/x", f"{V1}/watch/selfsubjectaccessreviews", f"{SSRR}/x",
                                  f"{V1}/localsubjectaccessreviews", f"{V1}/namespaces/a/selfsubjectaccessreviews",
                                  f"{V1}/namespaces/a/selfsubjectrulesreviews",
                                  f"/apis/{G}/v2/selfsubjectaccessreviews"])
def test_other_paths_404(url, http, path):
    assert http.post(url + path, json={}).status_code == 404


# ---- AlwaysAllow ----------------------------------------------------------------------------------------

def test_self_review_always_allow(url):
    attrs = {"namespace": "a", "verb": "get", "group": "", "resource": "pods", "name": "", "unknown": "x"}
    r = post(url, SSAR, ssar(resourceAttributes=attrs))
    assert r.status_code == 201
    assert r.json() == {"kind": "SelfSubjectAccessReview", "apiVersion": f"{G}/v1",
                        "metadata": {"creationTimestamp": None},
                        "spec": {"resourceAttributes": {"namespace": "a", "verb": "get", "resource": "pods"}},
                        "status": {"allowed": True}}
    r = post(url, SSAR, ssar(nonResourceAttributes={"path": "/x", "verb": "get"}))
    assert r.status_code == 201 and r.json()["status"] == {"allowed": True}


def test_validation_texts(url):
    r = post(url, SSAR, ssar())
    assert r.status_code == 422
    body = r.json()
    assert body["message"] == ('SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: '
                               'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes '
                               'must be specified')
    assert body["details"] == {"group": G, "kind": "SelfSubjectAccessReview", "causes": [
        {"reason": "FieldValueInvalid", "field": "spec.resourceAttributes",
         "message": 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be '
                    'specified'}]}
    r = post(url, SSAR, ssar(resourceAttributes={}, nonResourceAttributes={"path": "/x", "verb": "get"}))
    assert r.json()["message"] == (
        'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: '
        'authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with '
        'resourceAttributes')
    r = post(url, SSAR, {**ssar(resourceAttributes={}), "metadata": {"name": "x"}})
    assert r.status_code == 422 and r.json()["details"]["causes"][0]["field"] == "metadata"
    assert r.json()["message"].endswith("}: must be empty") and 'v1.ObjectMeta{Name:"x", ' in r.json()["message"]
    r = post(url, SAR, {"spec": {"resourceAttributes": {}}})
    assert r.json()["message"] == ('SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: '
                                   '"": at least one of user or group must be specified')


def test_bad_api_version(url):
    r = post(url, SSAR, {**ssar(resourceAttributes={}), "apiVersion": "authorization.k8s.io/v1beta1"})
    assert r.status_code == 400 and r.json()["message"] == (
        "the API version in the data (authorization.k8s.io/v1beta1) does not match the expected API version "
        "(authorization.k8s.io/v1)")


def test_local_review_namespace(url):
    spec = {"user": "u", "resourceAttributes": {"namespace": "b", "verb": "get"}}
    r = post(url, lsar("a"), {"spec": spec})
    assert r.status_code == 422 and r.json()["message"] == (
        'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: '
        'Invalid value: "b": must match metadata.namespace')
    r = post(url, lsar("b"), {"spec": spec})
    assert r.status_code == 201 and r.json()["metadata"] == {"namespace": "b", "creationTimestamp": None}
    r = post(url, lsar("b"), {"metadata": {"namespace": "c"}, "spec": spec})
    assert r.status_code == 400 and r.json()["message"] == (
        "the namespace of the provided object does not match the namespace sent on the request")
    r = post(url, lsar("b"), {"spec": {"user": "u", "nonResourceAttributes": {"path": "/x"}}})
    assert r.json()["message"].endswith(
        'spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:""}: '
        'disallowed on this kind of request')


# ---- RBAC -----------------------------------------------------------------------------------------------

def test_rbac_self_review(rbac):
    r = post(rbac.url, SSAR, ssar(resourceAttributes={"verb": "create", "group": G,
                                                      "resource": "selfsubjectaccessreviews"}), "alice-token")
    assert r.status_code == 201 and r.json()["status"] == {"allowed": True, "reason": BASIC_USER}
    r = post(rbac.url, SSAR, ssar(resourceAttributes={"verb": "get", "resource": "pods"}), "alice-token")
    assert r.status_code == 201 and r.json()["status"] == {"allowed": False}
    r = post(rbac.url, SSAR, ssar(resourceAttributes={"verb": "get", "resource": "pods"}), rbac.token)
    assert r.json()["status"] == {"allowed": True}  # system:masters: the privileged-group authorizer, no reason


def test_rbac_self_review_is_for_the_impersonated_user(rbac):
    attrs = ssar(resourceAttributes={"verb": "get", "resource": "pods"})
    r = post(rbac.url, SSAR, attrs, rbac.token, **{"Impersonate-User": "alice"})
    assert r.status_code == 201 and r.json()["status"] == {"allowed": False}
    r = post(rbac.url, SSAR, attrs, rbac.token, **{"Impersonate-User": "x", "Impersonate-Group": "system:masters"})
    assert r.json()["status"] == {"allowed": True}


def test_rbac_the_review_itself_is_authorized(rbac):
    r = post(rbac.url, SSAR, ssar(resourceAttributes={}))  # anonymous: not in system:authenticated
    assert r.status_code == 403 and r.json()["message"] == (
        'selfsubjectaccessreviews.authorization.k8s.io is forbidden: User "system:anonymous" cannot create '
        'resource "selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope')
    r = post(rbac.url, SAR, {"spec": {"user": "alice", "resourceAttributes": {}}}, "alice-token")
    assert r.status_code == 403  # SubjectAccessReview is not in system:basic-user


def test_rbac_subject_review(rbac):
    spec = {"user": "bob", "groups": ["system:authenticated"],
            "nonResourceAttributes": {"path": "/version", "verb": "get"}}
    r = post(rbac.url, SAR, {"spec": spec}, rbac.token)
    assert r.status_code == 201
    assert r.json()["status"] == {"allowed": True, "reason": (
        'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group '
        '"system:authenticated"')}
    assert r.json()["spec"] == spec
    r = post(rbac.url, lsar("a"), {"spec": {"user": "bob", "resourceAttributes": {"namespace": "a", "verb": "get",
                                                                                  "resource": "pods"}}}, rbac.token)
    assert r.status_code == 201 and r.json()["status"] == {"allowed": False}


# ---- protobuf (kubectl's encoding) ----------------------------------------------------------------------

def _varint(n: int) -> bytes:
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def _ld(num: int, payload: bytes | str) -> bytes:
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint(num << 3 | 2) + _varint(len(data)) + data


def _ssar_pb(kind: str = "SelfSubjectAccessReview", api_version: str = f"{G}/v1") -> bytes:
    """What client-go writes: empty strings and an empty creationTimestamp included (gogo non-nullable)."""
    meta = _ld(1, "") + _ld(2, "") + _ld(3, "") + _ld(8, b"")
    attrs = _ld(1, "a") + _ld(2, "get") + _ld(3, "") + _ld(4, "") + _ld(5, "pods") + _ld(6, "") + _ld(7, "")
    raw = _ld(1, meta) + _ld(2, _ld(1, attrs)) + _ld(3, _ld(2, "") + _ld(3, ""))
    return b"k8s\x00" + _ld(1, _ld(1, api_version) + _ld(2, kind)) + _ld(2, raw) + _ld(3, "") + _ld(4, "")


def test_protobuf_decode():
    assert authorization_pb.decode(_ssar_pb()) == {  # Go's JSON of the decoded review: a null creationTimestamp
        "apiVersion": f"{G}/v1", "kind": "SelfSubjectAccessReview", "metadata": {"creationTimestamp": None},
        "spec": {"resourceAttributes": {"namespace": "a", "verb": "get", "resource": "pods"}}}
    with pytest.raises(ValueError):
        authorization_pb.decode(_ssar_pb(kind="Pod"))
    with pytest.raises(ValueError):
        authorization_pb.decode(b"k8s\x00\x0a\x05ab")


def test_protobuf_body(rbac):
    headers = {"Authorization": "Bearer alice-token", "Content-Type": PB,
               "Accept": f"{PB},application/json"}
    r = requests.post(rbac.url + SSAR, data=_ssar_pb(), headers=headers, timeout=10)
    assert r.status_code == 201 and r.headers["Content-Type"] == PB  # asked first: answered in protobuf
    answer = protobuf.decode_response(r.content)
    assert answer["spec"] == {"resourceAttributes": {"namespace": "a", "verb": "get", "resource": "pods"}}
    assert answer["status"] == {"allowed": False}
    r = requests.post(rbac.url + SSAR, data=_ssar_pb(kind="Pod"), headers=headers, timeout=10)
    assert r.status_code == 400


# ---- the auth-layer function alone ----------------------------------------------------------------------

def test_review_function():
    role = {"kind": "ClusterRole", "metadata": {"name": "r"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}
    crb = {"kind": "ClusterRoleBinding", "metadata": {"name": "b"}, "roleRef": {"kind": "ClusterRole", "name": "r"},
           "subjects": [{"kind": "User", "name": "u"}]}
    authorizer = RBACAuthorizer(StaticRbacSource([role, crb]))
    body = {"spec": {"resourceAttributes": {"verb": "get", "resource": "pods"}}}
    out = review(BY_PLURAL["selfsubjectaccessreviews"], body, UserInfo("u"), authorizer)
    assert out["status"] == {"allowed": True, "reason": 'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" '
                                                        'to User "u"'}
    assert review(BY_PLURAL["selfsubjectaccessreviews"], body, UserInfo("v"), authorizer)["status"] == {
        "allowed": False}
    sar = {"spec": {**body["spec"], "user": "u"}}
    assert review(BY_PLURAL["subjectaccessreviews"], sar, UserInfo("v"), authorizer)["status"]["allowed"] is True
    assert review(BY_PLURAL["selfsubjectaccessreviews"], body, None, AlwaysAllowAuthorizer())["status"] == {
        "allowed": True}
    with pytest.raises(E.StatusError) as err:
        review(BY_PLURAL["selfsubjectaccessreviews"], body, None, authorizer)
    assert err.value.code == 400 and err.value.message == "no user present on request"


# ---- SelfSubjectRulesReview -----------------------------------------------------------------------------

EVERYTHING = {"resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
              "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}], "incomplete": False}
BASIC_RULES = [{"verbs": ["create"], "apiGroups": [G], "resources": ["selfsubjectaccessreviews",
                                                                    "selfsubjectrulesreviews"]},
               {"verbs": ["create"], "apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"]}]
# in the bootstrap policy's order (bootstrappolicy's builders sort the URLs), as a cluster answers
DISCOVERY_URLS = [{"verbs": ["get"], "nonResourceURLs": ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                                         "/openapi", "/openapi/*", "/readyz", "/version", "/version/"]},
                  {"verbs": ["get"], "nonResourceURLs": ["/healthz", "/livez", "/readyz", "/version", "/version/"]}]


def ssrr(namespace: str | None = "default", **extra: Any) -> dict[str, Any]:
    spec = {} if namespace is None else {"namespace": namespace}
    return {"apiVersion": f"{G}/v1", "kind": "SelfSubjectRulesReview", "spec": spec, **extra}


def test_rules_review_always_allow(url):
    """AlwaysAllow's `RulesFor`: one `*` rule of each kind, complete; metadata and spec are not echoed (the REST
    returns a fresh object holding only the status)."""
    r = post(url, SSRR, ssrr(metadata={"name": "x", "labels": {"a": "b"}}))
    assert r.status_code == 201
    assert r.json() == {"kind": "SelfSubjectRulesReview", "apiVersion": f"{G}/v1",
                        "metadata": {"creationTimestamp": None}, "spec": {}, "status": EVERYTHING}


@pytest.mark.parametrize("body", [ssrr(None), ssrr(""), {"spec": {"unknown": "x"}}, {}])
def test_rules_review_needs_a_namespace(url, body):
    """`spec.namespace` required: a 400 from the REST's `Create`, not a 422 (no validation runs)."""
    r = post(url, SSRR, body)
    assert r.status_code == 400 and r.json()["reason"] == "BadRequest"
    assert r.json()["message"] == "no namespace on request"


def test_rules_review_decode_errors(url):
    r = post(url, SSRR, {"spec": {"namespace": 5}})
    assert r.status_code == 400
    r = post(url, SSRR, {**ssrr(), "apiVersion": "authorization.k8s.io/v1beta1"})
    assert r.status_code == 400 and r.json()["message"].startswith("the API version in the data")


def test_rules_review_rbac(rbac):
    """alice (users file, group dev, plus system:authenticated): only the bootstrap rules; the admin
    (system:masters): the bootstrap `cluster-admin` binding's rules first, as on a real cluster."""
    r = post(rbac.url, SSRR, ssrr(), "alice-token")
    assert r.status_code == 201
    assert r.json()["status"] == {"resourceRules": BASIC_RULES, "nonResourceRules": DISCOVERY_URLS,
                                  "incomplete": False}
    r = post(rbac.url, SSRR, ssrr(), rbac.token)
    assert r.json()["status"] == {"resourceRules": EVERYTHING["resourceRules"] + BASIC_RULES,
                                  "nonResourceRules": EVERYTHING["nonResourceRules"] + DISCOVERY_URLS,
                                  "incomplete": False}
    r = post(rbac.url, SSRR, ssrr(None), "alice-token")
    assert r.status_code == 400 and r.json()["message"] == "no namespace on request"
    r = post(rbac.url, SSRR, ssrr())  # anonymous: the review itself is not authorized
    assert r.status_code == 403 and r.json()["message"] == (
        'selfsubjectrulesreviews.authorization.k8s.io is forbidden: User "system:anonymous" cannot create '
        'resource "selfsubjectrulesreviews" in API group "authorization.k8s.io" at the cluster scope')


def _policy() -> list[dict[str, Any]]:
    role = {"kind": "Role", "metadata": {"name": "cm", "namespace": "a"},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]},
                      {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["s"], "verbs": ["get"]}]}
    crole = {"kind": "ClusterRole", "metadata": {"name": "nodes"},
             "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]},
                       {"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]}
    rb = {"kind": "RoleBinding", "metadata": {"name": "cm", "namespace": "a"},
          "roleRef": {"kind": "Role", "name": "cm"}, "subjects": [{"kind": "User", "name": "u"}]}
    crb = {"kind": "ClusterRoleBinding", "metadata": {"name": "nodes"},
           "roleRef": {"kind": "ClusterRole", "name": "nodes"}, "subjects": [{"kind": "Group", "name": "g"}]}
    return [role, crole, rb, crb]


def test_rules_for_role_and_cluster_role_binding():
    """ClusterRoleBindings first, then the namespace's RoleBindings; other namespaces contribute nothing."""
    authorizer = RBACAuthorizer(StaticRbacSource(_policy()))
    body = ssrr("a")
    out = review(BY_PLURAL["selfsubjectrulesreviews"], body, UserInfo("u", groups=("g",)), authorizer)
    assert out["status"] == {
        "resourceRules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["nodes"]},
                          {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["configmaps"]},
                          {"verbs": ["get"], "apiGroups": [""], "resources": ["secrets"], "resourceNames": ["s"]}],
        "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/metrics"]}], "incomplete": False}
    out = review(BY_PLURAL["selfsubjectrulesreviews"], ssrr("b"), UserInfo("u", groups=("g",)), authorizer)
    assert [r["resources"] for r in out["status"]["resourceRules"]] == [["nodes"]]
    out = review(BY_PLURAL["selfsubjectrulesreviews"], body, UserInfo("v"), authorizer)
    assert out["status"] == {"resourceRules": [], "nonResourceRules": [], "incomplete": False}


def test_rules_for_broken_role_refs():
    """Unresolvable roleRefs: the resolvable bindings still contribute, the errors are aggregated into
    `evaluationError` (deduplicated, `[a, b]` when several) and `incomplete` stays false — upstream's
    `RBACAuthorizer.RulesFor` returns `false` whatever the error."""
    policy = _policy() + [
        {"kind": "ClusterRoleBinding", "metadata": {"name": "gone"}, "roleRef": {"kind": "ClusterRole", "name": "x"},
         "subjects": [{"kind": "User", "name": "u"}]},
        {"kind": "RoleBinding", "metadata": {"name": "gone", "namespace": "a"},
         "roleRef": {"kind": "Role", "name": "y"}, "subjects": [{"kind": "User", "name": "u"}]}]
    authorizer = RBACAuthorizer(StaticRbacSource(policy))
    status = review(BY_PLURAL["selfsubjectrulesreviews"], ssrr("a"), UserInfo("u"), authorizer)["status"]
    assert len(status["resourceRules"]) == 2 and status["incomplete"] is False
    assert status["evaluationError"] == ('[clusterrole.rbac.authorization.k8s.io "x" not found, '
                                         'role.rbac.authorization.k8s.io "y" not found]')
    status = review(BY_PLURAL["selfsubjectrulesreviews"], ssrr("b"), UserInfo("u"), authorizer)["status"]
    assert status == {"resourceRules": [], "nonResourceRules": [], "incomplete": False,
                      "evaluationError": 'clusterrole.rbac.authorization.k8s.io "x" not found'}


def test_rules_for_system_masters():
    """The privileged-group authorizer is no rule resolver upstream: system:masters gets exactly what the
    bootstrap `cluster-admin` ClusterRoleBinding grants, and nothing without it (yet is still authorized)."""
    masters = UserInfo("root", groups=("system:masters",))
    bare = RBACAuthorizer(StaticRbacSource())
    assert bare.authorize(Attributes(masters, "get", resource="pods", namespace="a")) == (True, "")
    assert bare.rules_for(masters, "a") == RuleSet()
    boot = RBACAuthorizer(StaticRbacSource(BOOTSTRAP_POLICY))
    status = review(BY_PLURAL["selfsubjectrulesreviews"], ssrr("a"), masters, boot)["status"]
    assert status == EVERYTHING


def test_rules_review_function_user_checks():
    kind = BY_PLURAL["selfsubjectrulesreviews"]
    with pytest.raises(E.StatusError) as err:
        review(kind, ssrr("a"), None, RBACAuthorizer(StaticRbacSource()))
    assert err.value.code == 400 and err.value.message == "no user present on request"
    assert review(kind, ssrr("a"), None, AlwaysAllowAuthorizer())["status"] == EVERYTHING


def _ssrr_pb(namespace: str) -> bytes:
    """client-go's SelfSubjectRulesReview: empty metadata strings, spec{namespace}, an empty status with
    `incomplete=false` as a varint (gogo writes non-pointer bools)."""
    meta = _ld(1, "") + _ld(2, "") + _ld(3, "") + _ld(8, b"")
    status = _varint(3 << 3 | 0) + b"\x00" + _ld(4, "")
    raw = _ld(1, meta) + _ld(2, _ld(1, namespace)) + _ld(3, status)
    return b"k8s\x00" + _ld(1, _ld(1, f"{G}/v1") + _ld(2, "SelfSubjectRulesReview")) + _ld(2, raw)


def test_rules_review_protobuf(rbac):
    assert authorization_pb.decode(_ssrr_pb("a")) == {"apiVersion": f"{G}/v1", "kind": "SelfSubjectRulesReview",
                                                      "metadata": {"creationTimestamp": None},
                                                      "spec": {"namespace": "a"}}
    assert authorization_pb.decode(_ssrr_pb(""))["spec"] == {}
    headers = {"Authorization": "Bearer alice-token", "Content-Type": PB, "Accept": f"{PB},application/json"}
    r = requests.post(rbac.url + SSRR, data=_ssrr_pb("a"), headers=headers, timeout=10)
    assert r.status_code == 201 and protobuf.decode_response(r.content)["status"]["resourceRules"] == BASIC_RULES
    r = requests.post(rbac.url + SSRR, data=_ssrr_pb(""), headers=headers, timeout=10)
    assert r.status_code == 400 and protobuf.decode_response(r.content)["message"] == "no namespace on request"
    r = requests.post(rbac.url + SSRR, data=_ssar_pb(), headers=headers, timeout=10)  # a SSAR body here
    assert r.status_code == 400 and protobuf.decode_response(r.content)["message"] == (
        'SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectRulesReview: converting '
        "(v1.SelfSubjectAccessReview) to (authorization.SelfSubjectRulesReview): unknown conversion")
