"""The front proxy's authenticator (auth/requestheader.py) against upstream's headerrequest/requestheader.go and
x509.go's `Verifier`, and its place first in the union (config.go)."""
from __future__ import annotations

import pytest
from multidict import CIMultiDict

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.auth.authn import TokenAuthenticator
from conformance.reference_server.auth.requestheader import RequestHeaderAuthenticator, RequestHeaderConfig
from conformance.reference_server.auth.x509 import CertificateError, ClientCertAuthenticator
from tests.tools import certs

CONFIG = RequestHeaderConfig("front-proxy-ca.crt", ("front-proxy-client",), ("X-Remote-User", "X-Other-User"),
                             ("X-Remote-Uid",), ("X-Remote-Group",), ("X-Remote-Extra-",))


@pytest.fixture(scope="module")
def proxy_ca() -> certs.Pair:
    return certs.ca("front-proxy-ca")


@pytest.fixture(scope="module")
def proxy(proxy_ca) -> certs.Pair:
    return certs.leaf(proxy_ca, "front-proxy-client", ())


def _authn(proxy_ca: certs.Pair, config: RequestHeaderConfig = CONFIG) -> RequestHeaderAuthenticator:
    return RequestHeaderAuthenticator(config, ClientCertAuthenticator.from_pem(proxy_ca.cert_pem))


def test_the_headers_name_user_uid_groups_and_extra(proxy_ca, proxy) -> None:
    headers = CIMultiDict([("x-remote-user", "jane"), ("X-Remote-User", "ignored"), ("X-Remote-Uid", "u-1"),
                           ("X-Remote-Group", "a"), ("X-Remote-Group", ""), ("x-remote-group", "b"),
                           ("X-Remote-Extra-Scopes", "s1"), ("x-remote-extra-scopes", "s2"),
                           ("X-Remote-Extra-Example.com%2Fkey", "v"), ("X-Remote-Extra-Bad%zz", "w")])
    user = _authn(proxy_ca).authenticate(headers, (proxy.der,))
    assert (user.name, user.uid, user.groups) == ("jane", "u-1", ("a", "b"))
    assert dict(user.extra) == {"scopes": ("s1", "s2"), "example.com/key": ("v",), "bad%zz": ("w",)}


def test_the_first_username_header_with_a_value_wins(proxy_ca, proxy) -> None:
    headers = CIMultiDict([("X-Remote-User", ""), ("X-Other-User", "bob")])
    assert _authn(proxy_ca).authenticate(headers, (proxy.der,)).name == "bob"  # type: ignore[union-attr]


def test_no_user_header_is_not_this_authenticators_request(proxy_ca, proxy) -> None:
    assert _authn(proxy_ca).authenticate(CIMultiDict(), (proxy.der,)) is None
    assert _authn(proxy_ca).authenticate(CIMultiDict([("X-Remote-User", "jane")]), ()) is None


def test_a_common_name_not_allowed_is_an_error(proxy_ca) -> None:
    other = certs.leaf(proxy_ca, "someone-else", ())
    with pytest.raises(CertificateError, match="^x509: subject with cn=someone-else is not in the allowed list$"):
        _authn(proxy_ca).authenticate(CIMultiDict([("X-Remote-User", "jane")]), (other.der,))
    anyone = RequestHeaderConfig("f", (), ("X-Remote-User",))
    assert _authn(proxy_ca, anyone).authenticate(CIMultiDict([("X-Remote-User", "j")]), (other.der,)).name == "j"


def test_a_certificate_of_another_ca_is_an_error_before_the_headers_are_read(proxy_ca) -> None:
    with pytest.raises(CertificateError, match="unknown authority"):
        _authn(proxy_ca).authenticate(CIMultiDict(), (certs.leaf(certs.ca("x"), "front-proxy-client").der,))


def test_empty_header_names_are_refused() -> None:
    assert RequestHeaderConfig("f", (), (" X-Remote-User ",)).trimmed().username_headers == ("X-Remote-User",)
    with pytest.raises(ValueError, match='^empty header " "$'):
        RequestHeaderConfig("f", (), ("X-Remote-User",), (), (" ",)).trimmed()


def test_union_front_proxy_first_then_the_client_certificate(proxy_ca, proxy) -> None:
    client_ca = certs.ca("client-ca")
    union = TokenAuthenticator(client_certs=ClientCertAuthenticator.from_pem(client_ca.cert_pem),
                               request_header=_authn(proxy_ca))
    headers = CIMultiDict([("X-Remote-User", "jane")])
    assert union.authenticate(headers, (proxy.der,)).groups == ("system:authenticated",)
    # a client certificate is not the proxy's: the front proxy fails, the x509 authenticator succeeds
    user = union.authenticate(headers, (certs.leaf(client_ca, "bob", ()).der,))
    assert user.name == "bob"
    # the proxy's certificate without a user header: the x509 authenticator fails (another CA) ⇒ 401
    with pytest.raises(StatusError) as err:
        union.authenticate(CIMultiDict(), (proxy.der,))
    assert err.value.code == 401
