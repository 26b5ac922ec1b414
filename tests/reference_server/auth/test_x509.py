"""The x509 authenticator (auth/x509.py) and its place in the authenticator union (auth/authn.py), against
upstream's x509.go, Go's `Certificate.Verify` messages and pkg/kubeapiserver/authenticator/config.go's order."""
from __future__ import annotations

import datetime as _dt
import hashlib

import pytest
from cryptography.x509.oid import ExtendedKeyUsageOID

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.auth.authn import TokenAuthenticator
from conformance.reference_server.auth.rbac import UserInfo
from conformance.reference_server.auth.x509 import (CREDENTIAL_ID_KEY, CertificateError, ClientCertAuthenticator,
                                                     load_ca_bundle)
from tests.tools import certs


@pytest.fixture(scope="module")
def root() -> certs.Pair:
    return certs.ca()


@pytest.fixture(scope="module")
def authn(root: certs.Pair) -> ClientCertAuthenticator:
    return ClientCertAuthenticator.from_pem(root.cert_pem)


def test_user_is_cn_groups_are_o_and_the_credential_id_is_the_leafs_sha256(root, authn) -> None:
    c = certs.leaf(root, "jane", ("devs", "ops"))
    assert authn.authenticate((c.der,)) == UserInfo(
        "jane", "", ("devs", "ops"), {CREDENTIAL_ID_KEY: ("X509SHA256=" + hashlib.sha256(c.der).hexdigest(),)})


def test_no_certificate_or_no_common_name_is_not_this_authenticators_request(root, authn) -> None:
    assert authn.authenticate(()) is None
    assert authn.authenticate((certs.leaf(root, "", ("devs",)).der,)) is None


def test_no_extended_key_usage_allows_client_auth(root, authn) -> None:
    assert authn.authenticate((certs.leaf(root, usages=None).der,)).name == "jane"  # type: ignore[union-attr]


def test_untrusted_certificate_is_an_unknown_authority_error(authn) -> None:
    c = certs.leaf(certs.ca("other-ca"))
    with pytest.raises(CertificateError) as err:
        authn.authenticate((c.der,))
    assert str(err.value) == (f"verifying certificate SN={c.cert.serial_number}, SKID=, AKID= failed: "
                              "x509: certificate signed by unknown authority")


def test_expired_certificate_error_names_the_times(root, authn) -> None:
    c = certs.leaf(root, days=(-10, -2))
    with pytest.raises(CertificateError, match=r"failed: x509: certificate has expired or is not yet valid: current "
                                               r"time \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ is after \d{4}-.*Z$"):
        authn.authenticate((c.der,))
    with pytest.raises(CertificateError, match="is before"):
        authn.authenticate((certs.leaf(root, days=(2, 10)).der,))


def test_server_auth_only_certificate_has_an_incompatible_key_usage(root, authn) -> None:
    c = certs.leaf(root, usages=(ExtendedKeyUsageOID.SERVER_AUTH,))
    with pytest.raises(CertificateError, match="x509: certificate specifies an incompatible key usage$"):
        authn.authenticate((c.der,))


def test_intermediates_the_client_sends_are_used_and_must_be_cas(root, authn) -> None:
    inter = certs.ca("intermediate", issuer=root)
    c = certs.leaf(inter)
    assert authn.authenticate((c.der, inter.der)).name == "jane"  # type: ignore[union-attr]
    with pytest.raises(CertificateError, match="unknown authority"):
        authn.authenticate((c.der,))
    not_ca = certs.ca("not-a-ca", issuer=root, is_ca=False)
    with pytest.raises(CertificateError, match="unknown authority"):
        authn.authenticate((certs.leaf(not_ca).der, not_ca.der))


def test_a_cached_success_expires_with_the_certificate(root, authn) -> None:
    c = certs.leaf(root, days=(-1, 1))
    assert authn.authenticate((c.der,)) is not None
    later = _dt.datetime.now(_dt.timezone.utc) + _dt.timedelta(days=2)
    with pytest.raises(CertificateError, match="expired"):
        authn.authenticate((c.der,), now=later)


def test_a_bundle_without_certificates_is_refused() -> None:
    with pytest.raises(ValueError, match="--client-ca-file f.pem: data does not contain any valid"):
        load_ca_bundle(b"not a certificate", "f.pem")


# ---- the union (config.go): x509 first, then bearer tokens, anonymous only when nothing failed ---------------

def _union(root: certs.Pair, anonymous: bool = True) -> TokenAuthenticator:
    return TokenAuthenticator({"tok": UserInfo("bob", "1", ("g",))}, allow_anonymous=anonymous,
                              client_certs=ClientCertAuthenticator.from_pem(root.cert_pem))


def test_a_verified_certificate_wins_over_any_token(root) -> None:
    user = _union(root).authenticate({"Authorization": "Bearer wrong"}, (certs.leaf(root).der,))
    assert (user.name, user.groups) == ("jane", ("devs", "system:authenticated"))


def test_a_failed_certificate_is_ignored_when_the_token_authenticates(root) -> None:
    bad = certs.leaf(certs.ca("other"))
    assert _union(root).authenticate({"Authorization": "Bearer tok"}, (bad.der,)).name == "bob"


def test_a_failed_certificate_without_a_token_is_401_even_with_anonymous_allowed(root) -> None:
    bad = certs.leaf(root, days=(-10, -2))
    with pytest.raises(StatusError) as err:
        _union(root).authenticate({}, (bad.der,))
    assert err.value.code == 401


def test_a_certificate_without_common_name_falls_through_to_anonymous(root) -> None:
    user = _union(root).authenticate({}, (certs.leaf(root, "").der,))
    assert (user.name, user.groups) == ("system:anonymous", ("system:unauthenticated",))


def test_a_cached_chain_is_the_chain_and_expires_with_its_intermediate(root) -> None:
    """A verified chain is kept under the whole chain (the leaf alone must still fail) until its first expiry."""
    authn = ClientCertAuthenticator.from_pem(root.cert_pem)
    inter = certs.ca("intermediate", issuer=root)  # 30 days
    c = certs.leaf(inter, days=(-1, 60))
    assert authn.authenticate((c.der, inter.der)).name == "jane"  # type: ignore[union-attr]
    assert authn.authenticate((c.der, inter.der)).name == "jane"  # type: ignore[union-attr]
    with pytest.raises(CertificateError, match="unknown authority"):
        authn.authenticate((c.der,))
    later = _dt.datetime.now(_dt.timezone.utc) + _dt.timedelta(days=45)
    with pytest.raises(CertificateError, match="unknown authority"):  # Go skips an expired intermediate
        authn.authenticate((c.der, inter.der), now=later)
