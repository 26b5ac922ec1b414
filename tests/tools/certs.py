"""Client certificates for tests: a CA, and leaves with a chosen subject, validity, usages and issuer."""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

NOW = _dt.datetime.now(_dt.timezone.utc)


@dataclass
class Pair:
    key: Any
    cert: x509.Certificate

    @property
    def cert_pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)

    @property
    def key_pem(self) -> bytes:
        return self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption())

    @property
    def der(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.DER)

    def files(self, directory: Path, name: str) -> tuple[str, str]:
        """(cert file, key file) written under `directory`: what `requests`' `cert=` takes."""
        cert, key = directory / f"{name}.crt", directory / f"{name}.key"
        cert.write_bytes(self.cert_pem)
        key.write_bytes(self.key_pem)
        return str(cert), str(key)


def _subject(cn: str, orgs: tuple[str, ...] = ()) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs]
    if cn:
        attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, cn))
    return x509.Name(attrs)


def ca(cn: str = "test-ca", issuer: Pair | None = None, is_ca: bool = True) -> Pair:
    """A self-signed CA, or (with `issuer`) an intermediate signed by it."""
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(_subject(cn))
            .issuer_name(issuer.cert.subject if issuer else _subject(cn)).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(NOW - _dt.timedelta(days=1))
            .not_valid_after(NOW + _dt.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True)
            .sign(issuer.key if issuer else key, hashes.SHA256()))
    return Pair(key, cert)


def leaf(issuer: Pair, cn: str = "jane", orgs: tuple[str, ...] = ("devs",), *, days: tuple[int, int] = (-1, 30),
         usages: tuple[Any, ...] | None = (ExtendedKeyUsageOID.CLIENT_AUTH,)) -> Pair:
    """A certificate signed by `issuer`, valid from `days[0]` to `days[1]` days from now; `usages` None: no
    extended key usage extension."""
    key = ec.generate_private_key(ec.SECP256R1())
    builder = (x509.CertificateBuilder().subject_name(_subject(cn, orgs)).issuer_name(issuer.cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(NOW + _dt.timedelta(days=days[0]))
               .not_valid_after(NOW + _dt.timedelta(days=days[1])))
    if usages is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage(list(usages)), critical=False)
    return Pair(key, builder.sign(issuer.key, hashes.SHA256()))
