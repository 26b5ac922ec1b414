"""auth/tokens.py: RS256 service-account tokens as pkg/serviceaccount/jwt.go and claims.go make and check them,
verified here as an OIDC relying party would (the JWKS's key, `cryptography`)."""
from __future__ import annotations

import base64
import hashlib
import json
import time

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from conformance.reference_server.auth.rbac import BOOTSTRAP_POLICY, RBACAuthorizer, StaticRbacSource, UserInfo
from conformance.reference_server.auth.tokens import ISSUER, TokenIssuer

from .test_rbac import attrs


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _store(**objects):
    """(resource, ns, name) → object, from keys like `serviceaccounts/ns/bot`."""
    return lambda resource, ns, name: objects.get(f"{resource}/{ns}/{name}")


def _obj(uid, deleted=None):
    meta = {"uid": uid, "name": "x"}
    if deleted:
        meta["deletionTimestamp"] = deleted
    return {"metadata": meta}


def _verify_with_jwks(token: str, jwks: dict) -> dict:
    """What an OIDC client does: pick the JWK by `kid`, check RS256, read the claims."""
    head, body, sig = token.split(".")
    header = json.loads(_unb64(head))
    key = next(k for k in jwks["keys"] if k["kid"] == header["kid"])
    assert header["alg"] == key["alg"] == "RS256" and key["kty"] == "RSA" and key["use"] == "sig"
    public = rsa.RSAPublicNumbers(int.from_bytes(_unb64(key["e"]), "big"),
                                  int.from_bytes(_unb64(key["n"]), "big")).public_key()
    public.verify(_unb64(sig), f"{head}.{body}".encode(), padding.PKCS1v15(), hashes.SHA256())  # raises if bad
    der = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    assert header["kid"] == base64.urlsafe_b64encode(hashlib.sha256(der).digest()).decode().rstrip("=")
    return json.loads(_unb64(body))


def test_rs256_token_verifies_against_the_jwks_with_upstreams_claims():
    issuer = TokenIssuer(_store(**{"serviceaccounts/ns/bot": _obj("u1")}))
    token, exp = issuer.issue("ns", "bot", "u1", [ISSUER], 3600, now=time.time())
    claims = _verify_with_jwks(token, issuer.jwks())
    assert list(claims) == ["aud", "exp", "iat", "iss", "jti", "kubernetes.io", "nbf", "sub"]
    assert claims["iss"] == ISSUER and claims["aud"] == [ISSUER] and claims["exp"] == exp == claims["iat"] + 3600
    assert claims["sub"] == "system:serviceaccount:ns:bot" and claims["nbf"] == claims["iat"]
    assert claims["kubernetes.io"] == {"namespace": "ns", "serviceaccount": {"name": "bot", "uid": "u1"}}
    user = issuer.authenticate(token)
    assert user.name == "system:serviceaccount:ns:bot" and user.uid == "u1"
    assert user.extra == {"authentication.kubernetes.io/credential-id": (f"JTI={claims['jti']}",)}


def test_forged_expired_and_foreign_tokens_are_refused():
    issuer = TokenIssuer(_store(**{"serviceaccounts/ns/bot": _obj("u1")}))
    token, _ = issuer.issue("ns", "bot", "u1", [ISSUER], 3600)
    head, body, sig = token.split(".")
    claims = json.loads(_unb64(body))
    claims["sub"] = "system:serviceaccount:ns:admin"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    assert issuer.authenticate(f"{head}.{forged}.{sig}") is None
    hs = base64.urlsafe_b64encode(b'{"alg":"HS256"}').decode().rstrip("=")
    assert issuer.authenticate(f"{hs}.{body}.{sig}") is None
    old, _ = issuer.issue("ns", "bot", "u1", [ISSUER], 600, now=time.time() - 700)
    assert issuer.authenticate(old) is None  # expired beyond the minute's leeway
    other = TokenIssuer(_store(**{"serviceaccounts/ns/bot": _obj("u1")}))
    assert not other.ready and other.authenticate(token) is None  # no key yet: nothing to wait for, no token of its
    other.warm_up()
    assert other.ready and other.authenticate(token) is None  # another server's key
    assert issuer.authenticate("a.b") is None and issuer.authenticate("not-a-jwt") is None


def test_bound_tokens_carry_the_object_and_die_with_it():
    objects = {"serviceaccounts/ns/bot": _obj("u1"), "pods/ns/p": _obj("pu"), "secrets/ns/s": _obj("su")}
    issuer = TokenIssuer(lambda r, ns, n: objects.get(f"{r}/{ns}/{n}"))
    pod_token, _ = issuer.issue("ns", "bot", "u1", [ISSUER], 3600, bound={"pod": {"name": "p", "uid": "pu"}},
                                warn_after=3607)
    claims = _verify_with_jwks(pod_token, issuer.jwks())
    assert claims["kubernetes.io"]["pod"] == {"name": "p", "uid": "pu"}
    assert claims["kubernetes.io"]["warnafter"] == claims["iat"] + 3607
    assert list(claims["kubernetes.io"]) == ["namespace", "pod", "serviceaccount", "warnafter"]
    assert issuer.authenticate(pod_token).extra["authentication.kubernetes.io/pod-name"] == ("p",)
    secret_token, _ = issuer.issue("ns", "bot", "u1", [ISSUER], 3600, bound={"secret": {"name": "s", "uid": "su"}})
    assert issuer.authenticate(secret_token) is not None
    objects["pods/ns/p"] = _obj("other")  # recreated with another UID
    assert issuer.authenticate(pod_token) is None
    # deleting: still valid within jwt.DefaultLeeway (a minute) of the deletionTimestamp, invalid after
    objects["secrets/ns/s"] = _obj("su", deleted=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    assert issuer.authenticate(secret_token) is not None
    objects["secrets/ns/s"] = _obj("su", deleted=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 120)))
    assert issuer.authenticate(secret_token) is None
    del objects["secrets/ns/s"]
    assert issuer.authenticate(secret_token) is None


def test_key_file_is_shared_by_replicas(tmp_path):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = tmp_path / "sa.key"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                       serialization.NoEncryption()))
    lookup = _store(**{"serviceaccounts/ns/bot": _obj("u1")})
    one, two = TokenIssuer(lookup, str(path)), TokenIssuer(lookup, str(path))
    token, _ = one.issue("ns", "bot", "u1", [ISSUER], 3600)
    assert two.authenticate(token) is not None and one.jwks() == two.jwks()
    bad = tmp_path / "bad.key"
    bad.write_text("not a key")
    with pytest.raises(ValueError):
        TokenIssuer(lookup, str(bad))


def test_issuer_discovery_role_is_bound_to_service_accounts():
    """bootstrappolicy/policy.go: system:service-account-issuer-discovery, bound to system:serviceaccounts."""
    a = RBACAuthorizer(StaticRbacSource(BOOTSTRAP_POLICY))
    sa = UserInfo("system:serviceaccount:ns:bot", "", ("system:serviceaccounts", "system:serviceaccounts:ns",
                                                      "system:authenticated"))
    user = UserInfo("alice", "", ("system:authenticated",))
    for path in ("/.well-known/openid-configuration", "/openid/v1/jwks"):
        assert a.authorize(attrs("GET", path, who=sa))[0]
        assert not a.authorize(attrs("GET", path, who=user))[0]


def test_several_issuers_the_first_signs_and_all_are_accepted():
    """kube-apiserver's repeated --service-account-issuer: the first is the `iss` of new tokens, a token from any of
    them authenticates (rotating the issuer keeps old tokens working), one from an unlisted issuer does not."""
    lookup = _store(**{"serviceaccounts/ns/bot": _obj("u1")})
    old = TokenIssuer(lookup, issuers=["https://old.example"])
    new = TokenIssuer(lookup, issuers=["https://new.example", "https://old.example"])
    new.key, old.key = old.key, old.key  # one signing key, as replicas sharing --service-account-key-file
    token, _ = new.issue("ns", "bot", "u1", ["https://old.example"], 3600)
    assert _verify_with_jwks(token, new.jwks())["iss"] == "https://new.example"
    assert new.issuer == "https://new.example" and new.audiences == ["https://new.example", "https://old.example"]
    legacy, _ = old.issue("ns", "bot", "u1", ["https://old.example"], 3600)
    assert new.authenticate(legacy) is not None and new.authenticate(token) is not None
    assert old.authenticate(token) is None  # "https://new.example" is not one of old's issuers
    assert new.openid_configuration("h:1")["issuer"] == "https://new.example" and new.serves_discovery


@pytest.mark.parametrize("issuers, message", [
    (["https://a", "https://a"], 'service-account-issuer "https://a" is already specified'),
    ([""], "service-account-issuer should not be an empty string"),
    ([":x"], 'service-account-issuer ":x" contained a \':\' but was not a valid URL: parse ":x": missing protocol '
             'scheme'),
    (["1a:b"], 'service-account-issuer "1a:b" contained a \':\' but was not a valid URL: parse "1a:b": first path '
               'segment in URL cannot contain colon'),
    # upstream's own authentication_test.go case, and others only a whole url.Parse catches
    (["http://[::1]:namedport"], 'service-account-issuer "http://[::1]:namedport" contained a \':\' but was not a '
                                 'valid URL: parse "http://[::1]:namedport": invalid port ":namedport" after host'),
    (["https://a b:1/"], 'service-account-issuer "https://a b:1/" contained a \':\' but was not a valid URL: '
                         'parse "https://a b:1/": invalid character " " in host name'),
    (["https://k.example/%zz"], 'service-account-issuer "https://k.example/%zz" contained a \':\' but was not a '
                                'valid URL: parse "https://k.example/%zz": invalid URL escape "%zz"')])
def test_issuers_kube_apiserver_refuses(issuers, message):
    with pytest.raises(ValueError) as exc:
        TokenIssuer(_store(), issuers=issuers)
    assert str(exc.value) == message


@pytest.mark.parametrize("issuer, serves", [("https://k.example/p", True), ("api", False), ("http://k.example", False),
                                            ("https://k.example?q=1", False), ("https://k.example#f", False)])
def test_discovery_only_for_an_https_issuer(issuer, serves):
    """`NewOpenIDMetadataProvider`: kube-apiserver installs the discovery endpoints only for an https issuer URL
    without query or fragment; any other issuer still signs tokens."""
    issuer_ = TokenIssuer(_store(**{"serviceaccounts/ns/bot": _obj("u1")}), issuers=[issuer])
    assert issuer_.serves_discovery is serves
    token, _ = issuer_.issue("ns", "bot", "u1", [issuer], 3600)
    assert issuer_.authenticate(token) is not None


def test_a_token_counts_only_for_its_audiences():
    """jwt.go: the token's `aud` must meet the requested audiences (a TokenReview's, else the API server's: the
    issuers); a token without `aud` (legacy) counts as the API server's; the review grants the intersection."""
    issuer = TokenIssuer(_store(**{"serviceaccounts/ns/bot": _obj("u1")}))
    vault, _ = issuer.issue("ns", "bot", "u1", ["vault"], 3600)
    assert issuer.authenticate(vault) is None  # not a token for this API server
    user, granted = issuer.review(vault, ["other", "vault"])
    assert user.name == "system:serviceaccount:ns:bot" and granted == ["vault"]
    both, _ = issuer.issue("ns", "bot", "u1", ["vault", ISSUER], 3600)
    assert issuer.review(both)[1] == [ISSUER] and issuer.review(both, ["vault"])[1] == ["vault"]
    legacy, _ = issuer.issue("ns", "bot", "u1", [], 3600)
    assert issuer.review(legacy)[1] == [ISSUER] and issuer.review(legacy, ["vault"]) is None
