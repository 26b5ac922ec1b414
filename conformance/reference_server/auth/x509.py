"""Client-certificate authentication (kube-apiserver's `--client-ca-file`), as upstream's x509 authenticator does it.

Upstream sources reproduced here:
- `staging/src/k8s.io/apiserver/pkg/authentication/request/x509/x509.go` (`Authenticator.AuthenticateRequest`: no
  peer certificate or an empty CA bundle ⇒ not this authenticator's request (no error); otherwise the chain is
  verified against the CA bundle with `KeyUsages: [ExtKeyUsageClientAuth]` and the peer's other certificates as
  intermediates; a failure is the error `verifying certificate SN=…, SKID=…, AKID=… failed: <x509 error>`;
  `CommonNameUserConversion`: an empty CommonName ⇒ not authenticated, no error; user = CN, groups = O, and since
  1.32 (kubernetes#125634) the extra `authentication.kubernetes.io/credential-id: X509SHA256=<hex sha256 of the
  leaf's DER>`; the UID read from the subject (kubernetes#127897, gate `AllowParsingUserUIDFromCertAuth`) came in
  1.34, so a 1.33 server leaves it empty);
- Go's `crypto/x509` `Certificate.Verify` (the leaf's validity period first: `x509: certificate has expired or is
  not yet valid: current time … is after …`; then the chains to a root: `x509: certificate signed by unknown
  authority`, an intermediate must be a CA; then `checkChainForKeyUsage`: every certificate of the chain that lists
  extended key usages must allow client auth (or any), else `x509: certificate specifies an incompatible key usage`).

How the error is answered (401, or ignored when a later authenticator succeeds) is the union's business
(`auth/authn.py`). The peer's certificates after the leaf are the intermediates, as upstream's
`PeerCertificates[1:]` (read by `tls_peerchain.py` on every supported Python).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
from dataclasses import dataclass
from typing import Sequence

from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from .rbac import UserInfo

CREDENTIAL_ID_KEY = "authentication.kubernetes.io/credential-id"  # user.CredentialIDKey
_CACHE_SIZE = 256


class CertificateError(Exception):
    """The peer's certificate did not verify: the x509 authenticator's error (a 401 unless another succeeds)."""


def load_ca_bundle(pem: bytes, path: str = "") -> list[x509.Certificate]:
    """The certificates of a `--client-ca-file` (ValueError for a file without any, as kube-apiserver refuses)."""
    try:
        certs = x509.load_pem_x509_certificates(pem)
    except ValueError:
        certs = []
    if not certs:
        raise ValueError(f"--client-ca-file {path}: data does not contain any valid RSA or ECDSA certificates")
    return certs


def _not_after(cert: x509.Certificate) -> _dt.datetime:
    return cert.not_valid_after_utc


def _not_before(cert: x509.Certificate) -> _dt.datetime:
    return cert.not_valid_before_utc


def _go_time(t: _dt.datetime) -> str:
    """Go's `time.RFC3339` in UTC, as `CertificateInvalidError`'s detail prints it."""
    return t.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _valid_at(cert: x509.Certificate, now: _dt.datetime) -> str:
    """'' when `now` is inside the validity period, else Go's `CertificateInvalidError{Expired}` message."""
    if now < _not_before(cert):
        return (f"x509: certificate has expired or is not yet valid: current time {_go_time(now)} is before "
                f"{_go_time(_not_before(cert))}")
    if now > _not_after(cert):
        return (f"x509: certificate has expired or is not yet valid: current time {_go_time(now)} is after "
                f"{_go_time(_not_after(cert))}")
    return ""


def _issued_by(cert: x509.Certificate, parent: x509.Certificate) -> bool:
    if cert.issuer != parent.subject:
        return False
    try:
        cert.verify_directly_issued_by(parent)
        return True
    except Exception:  # noqa: BLE001 - InvalidSignature, an unsupported key type: not its issuer
        return False


def _is_ca(cert: x509.Certificate) -> bool:
    try:
        return bool(cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca)
    except x509.ExtensionNotFound:
        return False


def _allows_client_auth(cert: x509.Certificate) -> bool:
    """`checkChainForKeyUsage` for one certificate: no EKU extension allows every usage."""
    try:
        usages = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    except x509.ExtensionNotFound:
        return True
    return ExtendedKeyUsageOID.CLIENT_AUTH in usages or ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE in usages


def common_name(cert: x509.Certificate) -> str:
    """Go's `pkix.Name.CommonName`: the last CN attribute of the subject, '' without one."""
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[-1].value) if names else ""


def _hex_colons(data: bytes | None) -> str:
    """`columnSeparatedHex`."""
    return ":".join(f"{b:02X}" for b in data or b"")


def _identifier(cert: x509.Certificate) -> str:
    """`certificateIdentifier`: `SN=<decimal>, SKID=AA:BB…, AKID=…`."""
    try:
        skid = cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest
    except x509.ExtensionNotFound:
        skid = b""
    try:
        akid = cert.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value.key_identifier
    except x509.ExtensionNotFound:
        akid = b""
    return f"SN={cert.serial_number}, SKID={_hex_colons(skid)}, AKID={_hex_colons(akid)}"


@dataclass
class ClientCertAuthenticator:
    """`x509.NewDynamic(caProvider.VerifyOptions, CommonNameUserConversion)` over a fixed CA bundle."""

    roots: Sequence[x509.Certificate]

    def __post_init__(self) -> None:
        self._cache: dict[bytes | tuple[bytes, ...], tuple[UserInfo | None, _dt.datetime]] = {}

    @classmethod
    def from_pem(cls, pem: bytes, path: str = "") -> "ClientCertAuthenticator":
        return cls(load_ca_bundle(pem, path))

    def authenticate(self, peer: Sequence[bytes], now: _dt.datetime | None = None) -> UserInfo | None:
        """The certificate's user (without `system:authenticated`: the group adder's), None when the request
        carries no certificate or its CN is empty, CertificateError when the chain does not verify."""
        if not peer or not self.roots:
            return None
        now = now or _dt.datetime.now(_dt.timezone.utc)
        key = peer[0] if len(peer) == 1 else tuple(peer)  # the same leaf may come with other intermediates
        cached = self._cache.get(key)
        if cached is not None and now < cached[1]:
            return cached[0]
        verified = self.verify(peer, now)
        user = self._user(verified[0], peer[0])
        if len(self._cache) >= _CACHE_SIZE:
            self._cache.pop(next(iter(self._cache)))
        self._cache[key] = (user, min(_not_after(c) for c in verified))
        return user

    def verify(self, peer: Sequence[bytes], now: _dt.datetime | None = None) -> list[x509.Certificate]:
        """The verified chain (leaf first) of the peer's DER certificates, else CertificateError (the front proxy's
        `Verifier` verifies so too)."""
        try:
            chain = [x509.load_der_x509_certificate(der) for der in peer]
        except ValueError as exc:  # Go's TLS stack refuses such a handshake; here it reached us
            raise CertificateError(f"x509: malformed certificate: {exc}") from None
        return self._verify(chain[0], chain[1:], now or _dt.datetime.now(_dt.timezone.utc))

    def _verify(self, leaf: x509.Certificate, intermediates: Sequence[x509.Certificate],
                now: _dt.datetime) -> list[x509.Certificate]:
        """`Certificate.Verify` with `KeyUsages: [ClientAuth]`: one verified chain (leaf first), else the error."""
        invalid = _valid_at(leaf, now)
        if invalid:
            raise CertificateError(self._failed(leaf, invalid))
        chains = self._chains([leaf], list(intermediates), now)
        if not chains:
            raise CertificateError(self._failed(leaf, "x509: certificate signed by unknown authority"))
        for chain in chains:
            if all(_allows_client_auth(c) for c in chain):
                return chain
        raise CertificateError(self._failed(leaf, "x509: certificate specifies an incompatible key usage"))

    def _chains(self, chain: list[x509.Certificate], pool: list[x509.Certificate],
                now: _dt.datetime) -> list[list[x509.Certificate]]:
        cert = chain[-1]
        if len(chain) == 1 and any(cert == root for root in self.roots):
            return [chain]  # the leaf itself is trusted
        out = [chain + [root] for root in self.roots if _issued_by(cert, root) and not _valid_at(root, now)]
        if len(chain) < 6:  # Go's maxChainSignatureChecks bounds the search; a short depth does here
            for inter in pool:
                if inter in chain or not _issued_by(cert, inter) or _valid_at(inter, now) or not _is_ca(inter):
                    continue
                out += self._chains(chain + [inter], pool, now)
        return out

    @staticmethod
    def _failed(leaf: x509.Certificate, err: str) -> str:
        return f"verifying certificate {_identifier(leaf)} failed: {err}"

    @staticmethod
    def _user(leaf: x509.Certificate, der: bytes) -> UserInfo | None:
        """`CommonNameUserConversion`: Go's `pkix.Name` keeps the last CommonName and every Organization."""
        cn = common_name(leaf)
        if not cn:
            return None
        orgs = tuple(str(a.value) for a in leaf.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME))
        return UserInfo(cn, "", orgs, {CREDENTIAL_ID_KEY: ("X509SHA256=" + hashlib.sha256(der).hexdigest(),)})


__all__ = ["CREDENTIAL_ID_KEY", "CertificateError", "ClientCertAuthenticator", "common_name", "load_ca_bundle"]
