"""A CA and server certificate (127.0.0.1, localhost, ::1): throw-away ones generated at start, or with
`cert_dir` (kube-apiserver's `--cert-dir`) kept there and reused across restarts, so a kubeconfig written
earlier keeps working.

Client certificates, as kubeadm sets a cluster up (`cmd/kubeadm/app/phases/kubeconfig/kubeconfig.go`,
`phases/certs`): the same CA is kube-apiserver's `--client-ca-file`, and the admin kubeconfig's user is a client
certificate signed by it (`admin.conf`: CN `kubernetes-admin`, O `kubeadm:cluster-admins`; `super-admin.conf`:
CN `kubernetes-super-admin`, O `system:masters`), usage client auth, a year's validity. The handshake asks for a
client certificate without verifying it (tls_clientauth.py); auth/x509.py verifies it."""
from __future__ import annotations

import datetime as _dt
import ipaddress
import os
import ssl
import tempfile
from dataclasses import dataclass
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass
class ServerTLS:
    directory: str
    ca_file: str
    cert_file: str
    key_file: str
    ca_pem: bytes
    keep: bool = False  # files live in a --cert-dir: never removed
    ca_key_pem: bytes = b""  # the CA's key: kube-controller-manager's csrsigning signs with it (controller/csrsigning.py)
    client_ca_file: str | None = None  # --client-ca-file: ask clients for a certificate, verified against it
    requestheader_client_ca_file: str | None = None  # --requestheader-client-ca-file: the front proxy's CA
    admin_cert_pem: bytes = b""  # a kubeadm-like admin client certificate (signed by the CA) and its key
    admin_key_pem: bytes = b""
    extra_files: tuple[str, ...] = ()  # more files of ours in `directory` (front_proxy_ca), removed with it

    def ssl_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(self.cert_file, self.key_file)
        ctx.set_alpn_protocols(["h2", "http/1.1"])  # secure_serving.go's NextProtos (http/h2/alpn.py chooses)
        client_cas = [f for f in (self.client_ca_file, self.requestheader_client_ca_file) if f]
        if client_cas:
            from .tls_clientauth import request_client_certificates
            request_client_certificates(ctx, client_cas)
        return ctx

    def cleanup(self) -> None:
        if self.keep:
            return
        for f in (self.ca_file, self.cert_file, self.key_file, *self.extra_files):
            try:
                os.unlink(f)
            except OSError:
                pass
        try:
            os.rmdir(self.directory)
        except OSError:
            pass


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _ca(now: _dt.datetime, days: int, cn: str = "nsconform-ca") -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (x509.CertificateBuilder().subject_name(_name(cn)).issuer_name(_name(cn))
               .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - _dt.timedelta(minutes=5)).not_valid_after(now + _dt.timedelta(days=days))
               .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                            content_commitment=False, key_encipherment=False,
                                            data_encipherment=False, key_agreement=False, encipher_only=False,
                                            decipher_only=False), critical=True)
               .sign(ca_key, hashes.SHA256()))
    return ca_key, ca_cert


def _serving(now: _dt.datetime, days: int, hosts: tuple[str, ...], ca_key: ec.EllipticCurvePrivateKey,
             ca_cert: x509.Certificate) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    sans: list[x509.GeneralName] = []
    for h in hosts:
        try:
            sans.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            sans.append(x509.DNSName(h))
    cert = (x509.CertificateBuilder().subject_name(_name("nsconform-apiserver")).issuer_name(ca_cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - _dt.timedelta(minutes=5)).not_valid_after(now + _dt.timedelta(days=days))
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return key, cert


ADMIN = ("kubernetes-admin", ("kubeadm:cluster-admins",))  # kubeadm's admin.conf (1.29+)
SUPER_ADMIN = ("kubernetes-super-admin", ("system:masters",))  # kubeadm's super-admin.conf


def _client(now: _dt.datetime, days: int, subject: tuple[str, tuple[str, ...]], ca_key: ec.EllipticCurvePrivateKey,
            ca_cert: x509.Certificate) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """A client certificate as kubeadm's `pkiutil.NewCertAndKey` makes one: CN and O from `subject`, usage client
    auth (key usage digital signature + key encipherment), the CA's key id as authority key id."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in subject[1]]
                     + [x509.NameAttribute(NameOID.COMMON_NAME, subject[0])])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(ca_cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - _dt.timedelta(minutes=5)).not_valid_after(now + _dt.timedelta(days=days))
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, key_cert_sign=False,
                                         crl_sign=False, content_commitment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return key, cert


def _admin(now: _dt.datetime, days: int, subject: tuple[str, tuple[str, ...]] | None, ca_key: Any,
           ca_cert: x509.Certificate) -> tuple[bytes, bytes]:
    """The admin client certificate's and key's PEM (empty without a `subject`)."""
    if subject is None:
        return b"", b""
    key, cert = _client(now, days, subject, ca_key, ca_cert)
    return cert.public_bytes(serialization.Encoding.PEM), _key_pem(key)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _write_private(path: str, data: bytes) -> None:
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as fh:
        fh.write(data)


def generate(hosts: tuple[str, ...] = ("127.0.0.1", "localhost", "::1"), cert_dir: str | None = None,
             admin: tuple[str, tuple[str, ...]] | None = None, client_ca_file: str | None = None) -> ServerTLS:
    """Create a CA and a server certificate signed by it; files live in a private temp directory, or in
    `cert_dir`, where an earlier run's CA (and its still valid serving certificate) is reused.

    `admin` (CN, organisations): an admin client certificate signed by the CA, which then is the client CA too
    (kubeadm's `--client-ca-file`), unless `client_ca_file` names another bundle (then no admin certificate: this
    server holds no key of that CA)."""
    if client_ca_file:
        admin = None
    if cert_dir:
        tls = _load_or_create(cert_dir, hosts, admin)
        tls.client_ca_file = client_ca_file or (tls.ca_file if admin else None)
        return tls
    now = _dt.datetime.now(_dt.timezone.utc)
    ca_key, ca_cert = _ca(now, 7)
    key, cert = _serving(now, 7, hosts, ca_key, ca_cert)
    d = tempfile.mkdtemp(prefix="nsconform-tls-")
    ca_pem = ca_cert.public_bytes(serialization.Encoding.PEM)
    paths = {}
    for fname, data in (("ca.crt", ca_pem), ("server.crt", cert.public_bytes(serialization.Encoding.PEM)),
                        ("server.key", _key_pem(key))):
        p = os.path.join(d, fname)
        _write_private(p, data)
        paths[fname] = p
    admin_cert, admin_key = _admin(now, 7, admin, ca_key, ca_cert)
    return ServerTLS(d, paths["ca.crt"], paths["server.crt"], paths["server.key"], ca_pem, ca_key_pem=_key_pem(ca_key),
                     client_ca_file=client_ca_file or (paths["ca.crt"] if admin else None),
                     admin_cert_pem=admin_cert, admin_key_pem=admin_key)


CERT_DAYS = 365  # client-go's self-signed fixtures (GenerateSelfSignedCertKeyWithFixtures): one year


def _load_or_create(d: str, hosts: tuple[str, ...], admin: tuple[str, tuple[str, ...]] | None = None) -> ServerTLS:
    """`--cert-dir`: ca.crt/ca.key, apiserver.crt/apiserver.key and (with `admin`) admin.crt/admin.key, made once
    and reused while valid."""
    os.makedirs(d, mode=0o700, exist_ok=True)
    now = _dt.datetime.now(_dt.timezone.utc)
    ca_file, ca_key_file = os.path.join(d, "ca.crt"), os.path.join(d, "ca.key")
    cert_file, key_file = os.path.join(d, "apiserver.crt"), os.path.join(d, "apiserver.key")
    ca = _read_pair(ca_file, ca_key_file, now)
    if ca is None:
        ca_key, ca_cert = _ca(now, CERT_DAYS)
        _write_private(ca_key_file, _key_pem(ca_key))
        _write_private(ca_file, ca_cert.public_bytes(serialization.Encoding.PEM))
    else:
        ca_key, ca_cert = ca
    serving = _read_pair(cert_file, key_file, now)
    if serving is None or serving[1].issuer != ca_cert.subject or not _covers(serving[1], hosts) or \
            not _signed_by(serving[1], ca_cert):
        key, cert = _serving(now, CERT_DAYS, hosts, ca_key, ca_cert)  # type: ignore[arg-type]
        _write_private(key_file, _key_pem(key))
        _write_private(cert_file, cert.public_bytes(serialization.Encoding.PEM))
    ca_pem = ca_cert.public_bytes(serialization.Encoding.PEM)
    admin_cert, admin_key = _load_or_create_admin(d, now, admin, ca_key, ca_cert)
    return ServerTLS(d, ca_file, cert_file, key_file, ca_pem, keep=True, ca_key_pem=_key_pem(ca_key),
                     admin_cert_pem=admin_cert, admin_key_pem=admin_key)


def _load_or_create_admin(d: str, now: _dt.datetime, admin: tuple[str, tuple[str, ...]] | None, ca_key: Any,
                          ca_cert: x509.Certificate) -> tuple[bytes, bytes]:
    """admin.crt/admin.key in the cert dir: reused while valid, signed by the CA and for the same subject."""
    if admin is None:
        return b"", b""
    cert_file, key_file = os.path.join(d, "admin.crt"), os.path.join(d, "admin.key")
    pair = _read_pair(cert_file, key_file, now)
    if pair is not None and _signed_by(pair[1], ca_cert) and _subject(pair[1]) == admin:
        return pair[1].public_bytes(serialization.Encoding.PEM), _key_pem(pair[0])
    cert_pem, key_pem = _admin(now, CERT_DAYS, admin, ca_key, ca_cert)
    _write_private(key_file, key_pem)
    _write_private(cert_file, cert_pem)
    return cert_pem, key_pem


def _subject(cert: x509.Certificate) -> tuple[str, tuple[str, ...]]:
    cns = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return (str(cns[-1].value) if cns else "",
            tuple(str(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)))


def _read_pair(cert_file: str, key_file: str, now: _dt.datetime) -> tuple[Any, x509.Certificate] | None:
    """A certificate and its key when both are readable and the certificate is valid for a day more."""
    try:
        with open(cert_file, "rb") as fh:
            cert = x509.load_pem_x509_certificate(fh.read())
        with open(key_file, "rb") as fh:
            key = serialization.load_pem_private_key(fh.read(), password=None)
    except (OSError, ValueError):
        return None
    not_after = getattr(cert, "not_valid_after_utc", None) or cert.not_valid_after.replace(tzinfo=_dt.timezone.utc)
    if not_after < now + _dt.timedelta(days=1) or \
            cert.public_key().public_numbers() != key.public_key().public_numbers():  # type: ignore[union-attr]
        return None
    return key, cert


def _covers(cert: x509.Certificate, hosts: tuple[str, ...]) -> bool:
    try:
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    names = {str(n) for n in sans.get_values_for_type(x509.IPAddress)} | set(sans.get_values_for_type(x509.DNSName))
    return all((str(ipaddress.ip_address(h)) if _is_ip(h) else h) in names for h in hosts)


def _is_ip(h: str) -> bool:
    try:
        ipaddress.ip_address(h)
        return True
    except ValueError:
        return False


def _signed_by(cert: x509.Certificate, ca: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(ca)
        return True
    except Exception:  # noqa: BLE001 - InvalidSignature, a foreign key type...: not ours, make a new one
        return False


FRONT_PROXY_CA = "front-proxy-ca.crt"


def front_proxy_ca(tls: ServerTLS) -> str:
    """kubeadm's front-proxy CA (`phases/certs`: CN `front-proxy-ca`, its own root): the
    `--requestheader-client-ca-file` of a kubeadm cluster. Only its certificate is written (no front proxy is run,
    so nothing here signs with it); in a `--cert-dir` it is made once and reused."""
    path = os.path.join(tls.directory, FRONT_PROXY_CA)
    if tls.keep and os.path.exists(path):
        return path
    _, cert = _ca(_dt.datetime.now(_dt.timezone.utc), CERT_DAYS * 10, "front-proxy-ca")
    _write_private(path, cert.public_bytes(serialization.Encoding.PEM))
    if not tls.keep:
        tls.extra_files = (*tls.extra_files, path)
    return path

