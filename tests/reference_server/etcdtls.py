"""A TLS etcd with client-certificate authentication, as kubeadm runs it: a CA, a serving certificate for
127.0.0.1, a client certificate, and a second CA that signed none of them (the wrong `--etcd-cafile`).

One etcd per test session (`tls_etcd`), started only by the tests that ask for it."""
from __future__ import annotations

import datetime as dt
import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from conformance.reference_server.storage.etcdprocess import EtcdNotInstalled, EtcdProcess, EtcdTLS

from .backends import need_etcd


@dataclass(frozen=True)
class EtcdPKI:
    ca: str
    server_cert: str
    server_key: str
    client_cert: str
    client_key: str
    wrong_ca: str  # a CA that signed nothing etcd serves

    def etcd_tls(self) -> EtcdTLS:
        return EtcdTLS(self.ca, self.server_cert, self.server_key, self.client_cert, self.client_key)


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _ca(cn: str, now: dt.datetime) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(_name(cn)).issuer_name(_name(cn)).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False),
                           critical=True)
            .sign(key, hashes.SHA256()))
    return key, cert


def _leaf(cn: str, now: dt.datetime, ca_key: ec.EllipticCurvePrivateKey, ca: x509.Certificate,
          usages: list[x509.ObjectIdentifier], ip: str | None = None
          ) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    b = (x509.CertificateBuilder().subject_name(_name(cn)).issuer_name(ca.subject).public_key(key.public_key())
         .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
         .not_valid_after(now + dt.timedelta(days=1))
         .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
         .add_extension(x509.ExtendedKeyUsage(usages), critical=False))
    if ip:
        b = b.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]), critical=False)
    return key, b.sign(ca_key, hashes.SHA256())


def make_pki(d: Path) -> EtcdPKI:
    """Write the certificates into `d`."""
    now = dt.datetime.now(dt.timezone.utc)
    ca_key, ca = _ca("etcd-ca", now)
    # kubeadm's etcd serving certificate carries both usages: etcd 3.4's JSON gateway dials etcd's own gRPC
    # port with it as a client certificate
    srv_key, srv = _leaf("etcd-server", now, ca_key, ca,
                         [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH], "127.0.0.1")
    cli_key, cli = _leaf("apiserver-etcd-client", now, ca_key, ca, [ExtendedKeyUsageOID.CLIENT_AUTH])
    _, wrong = _ca("some-other-ca", now)
    out: dict[str, str] = {}
    for fname, obj in (("ca.crt", ca), ("server.crt", srv), ("server.key", srv_key), ("client.crt", cli),
                       ("client.key", cli_key), ("wrong-ca.crt", wrong)):
        data = obj.public_bytes(serialization.Encoding.PEM) if isinstance(obj, x509.Certificate) else \
            obj.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption())
        (d / fname).write_bytes(data)
        out[fname] = str(d / fname)
    return EtcdPKI(out["ca.crt"], out["server.crt"], out["server.key"], out["client.crt"], out["client.key"],
                   out["wrong-ca.crt"])


@pytest.fixture(scope="session")
def etcd_pki(tmp_path_factory: pytest.TempPathFactory) -> EtcdPKI:
    return make_pki(tmp_path_factory.mktemp("etcd-pki"))


@pytest.fixture(scope="session")
def tls_etcd(etcd_pki: EtcdPKI) -> Iterator[EtcdProcess]:
    """A private etcd on https, refusing clients without a certificate signed by `etcd_pki.ca`."""
    need_etcd()
    try:
        proc = EtcdProcess(tls=etcd_pki.etcd_tls())
    except EtcdNotInstalled as e:
        pytest.skip(str(e))
    yield proc
    proc.stop()
