"""Token file, bearer authentication, anonymous, impersonation (tokenfile.go, bearertoken.go, impersonation.go)."""
from __future__ import annotations

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.auth.authn import (TokenAuthenticator, TokenFileError, identify, impersonate,
                                                     parse_token_file, split_sa_username)
from conformance.reference_server.auth.rbac import BOOTSTRAP_POLICY, RBACAuthorizer, StaticRbacSource, UserInfo

G = "rbac.authorization.k8s.io"
TOKENS = 't1,alice,u-1,"devs,qa"\nt2,bob,u-2\n\n,nobody,u-0\nt3,carol,u-3,,extra-col\nt2,bob2,u-22\n'


def test_parse_token_file():
    tokens = parse_token_file(TOKENS, "users.csv")
    assert tokens["t1"] == UserInfo("alice", "u-1", ("devs", "qa"))
    assert tokens["t2"] == UserInfo("bob2", "u-22", ())          # a later duplicate wins
    assert tokens["t3"].groups == ("",)                           # strings.Split("", ",") == [""]
    assert "" not in tokens                                       # empty token skipped


def test_parse_token_file_errors():
    with pytest.raises(TokenFileError) as exc:
        parse_token_file("t1,alice\n", "/etc/users.csv")
    assert str(exc.value) == ("token file '/etc/users.csv' must have at least 3 columns "
                              "(token, user name, user uid), found 2")


def test_from_file(tmp_path):
    p = tmp_path / "users.csv"
    p.write_text(TOKENS)
    auth = TokenAuthenticator.from_file(str(p), admin_token="adm")
    assert auth.authenticate({"Authorization": "Bearer t1"}).name == "alice"


AUTH = TokenAuthenticator(parse_token_file(TOKENS), admin_token="adm")


def test_authenticate():
    assert AUTH.authenticate({"Authorization": "Bearer t1"}) == UserInfo(
        "alice", "u-1", ("devs", "qa", "system:authenticated"))
    assert AUTH.authenticate({"authorization": "bearer adm"}) == UserInfo(
        "system:admin", "", ("system:masters", "system:authenticated"))
    assert AUTH.authenticate({}) == UserInfo("system:anonymous", "", ("system:unauthenticated",))
    assert AUTH.authenticate({"Authorization": "Basic Zm9vOmJhcg=="}).name == "system:anonymous"


def test_invalid_token_is_401_even_with_anonymous():
    with pytest.raises(StatusError) as exc:
        AUTH.authenticate({"Authorization": "Bearer nope"})
    assert exc.value.status == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                "message": "Unauthorized", "reason": "Unauthorized", "code": 401}
    strict = TokenAuthenticator(AUTH.tokens, "adm", allow_anonymous=False)
    with pytest.raises(StatusError) as exc:
        strict.authenticate({})
    assert exc.value.code == 401


def test_split_sa_username():
    assert split_sa_username("system:serviceaccount:ns:robot") == ("ns", "robot")
    assert split_sa_username("system:serviceaccount:ns") is None
    assert split_sa_username("system:serviceaccount:NS:robot") is None
    assert split_sa_username("alice") is None


def _authz(*extra):
    return RBACAuthorizer(StaticRbacSource(list(BOOTSTRAP_POLICY) + list(extra)))


ADMIN = UserInfo("system:admin", "", ("system:masters", "system:authenticated"))
ALICE = UserInfo("alice", "u-1", ("devs", "system:authenticated"))


def test_no_headers_keeps_the_requestor():
    assert impersonate(ALICE, {"Accept": "x"}, _authz()) is ALICE


def test_masters_impersonate_user_and_groups():
    a = _authz()
    assert impersonate(ADMIN, {"Impersonate-User": "bob"}, a) == UserInfo("bob", "", ("system:authenticated",))
    got = impersonate(ADMIN, [("Impersonate-User", "bob"), ("Impersonate-Group", "g1"), ("Impersonate-Group", "g2"),
                              ("Impersonate-Uid", "abc"), ("Impersonate-Extra-Example.org%2Fscope", "read")], a)
    assert got == UserInfo("bob", "abc", ("g1", "g2", "system:authenticated"), {"example.org/scope": ("read",)})
    got = impersonate(ADMIN, [("Impersonate-User", "bob"), ("Impersonate-Group", "system:unauthenticated")], a)
    assert got.groups == ("system:unauthenticated",)
    sa = impersonate(ADMIN, {"Impersonate-User": "system:serviceaccount:ns:robot"}, a)
    assert sa == UserInfo("system:serviceaccount:ns:robot", "",
                          ("system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"))
    anon = impersonate(ADMIN, {"Impersonate-User": "system:anonymous"}, a)
    assert anon.groups == ("system:unauthenticated",)


def test_impersonation_refused_exact():
    with pytest.raises(StatusError) as exc:
        impersonate(ALICE, {"Impersonate-User": "x"}, _authz())
    assert exc.value.code == 403 and exc.value.reason == "Forbidden"
    assert exc.value.message == ('users "x" is forbidden: User "alice" cannot impersonate resource "users" in API '
                                 'group "" at the cluster scope')
    assert exc.value.status["details"] == {"name": "x", "kind": "users"}


def test_impersonation_rbac_per_kind():
    role = {"kind": "ClusterRole", "metadata": {"name": "imp"},
            "rules": [{"apiGroups": [""], "resources": ["users"], "verbs": ["impersonate"]}]}
    crb = {"kind": "ClusterRoleBinding", "metadata": {"name": "imp"},
           "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": "imp"},
           "subjects": [{"apiGroup": G, "kind": "User", "name": "alice"}]}
    a = _authz(role, crb)
    assert impersonate(ALICE, {"Impersonate-User": "x"}, a).name == "x"
    with pytest.raises(StatusError) as exc:
        impersonate(ALICE, [("Impersonate-User", "x"), ("Impersonate-Group", "admins")], a)
    assert exc.value.message == ('groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in '
                                 'API group "" at the cluster scope')
    with pytest.raises(StatusError) as exc:
        impersonate(ALICE, {"Impersonate-User": "system:serviceaccount:ns:robot"}, a)
    assert exc.value.message == ('serviceaccounts "robot" is forbidden: User "alice" cannot impersonate resource '
                                 '"serviceaccounts" in API group "" in the namespace "ns"')
    with pytest.raises(StatusError) as exc:
        impersonate(ALICE, [("Impersonate-User", "x"), ("Impersonate-Uid", "abc")], a)
    assert exc.value.message == ('uids.authentication.k8s.io "abc" is forbidden: User "alice" cannot impersonate '
                                 'resource "uids" in API group "authentication.k8s.io" at the cluster scope')
    with pytest.raises(StatusError) as exc:
        impersonate(ALICE, [("Impersonate-User", "x"), ("Impersonate-Extra-Scopes", "view")], a)
    assert exc.value.message == ('userextras.authentication.k8s.io "view" is forbidden: User "alice" cannot '
                                 'impersonate resource "userextras/scopes" in API group "authentication.k8s.io" '
                                 'at the cluster scope')


def test_groups_without_user_is_400():
    with pytest.raises(StatusError) as exc:
        impersonate(ADMIN, {"Impersonate-Group": "devs"}, _authz())
    assert exc.value.code == 400 and exc.value.reason == "BadRequest"
    assert exc.value.message == "requested [{Group  devs    }] without impersonating a user"


def test_identify_chains_authn_and_impersonation():
    a = _authz()
    assert identify(AUTH, a, {"Authorization": "Bearer adm", "Impersonate-User": "alice"}).name == "alice"
    with pytest.raises(StatusError) as exc:
        identify(AUTH, a, {"Authorization": "Bearer t1", "Impersonate-User": "bob"})
    assert exc.value.message.startswith('users "bob" is forbidden: User "alice" cannot impersonate')
