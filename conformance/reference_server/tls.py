"""A throw-away CA and server certificate (127.0.0.1, localhost, ::1) generated at start."""
from __future__ import annotations

import datetime as _dt
import ipaddress
import os
import ssl
import tempfile
from dataclasses import dataclass

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

    def ssl_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(self.cert_file, self.key_file)
        return ctx

    def cleanup(self) -> None:
        for f in (self.ca_file, self.cert_file, self.key_file):
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


def generate(hosts: tuple[str, ...] = ("127.0.0.1", "localhost", "::1")) -> ServerTLS:
    """Create a CA and a server certificate signed by it; files live in a private temp directory."""
    now = _dt.datetime.now(_dt.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (x509.CertificateBuilder().subject_name(_name("nsconform-ca")).issuer_name(_name("nsconform-ca"))
               .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - _dt.timedelta(minutes=5)).not_valid_after(now + _dt.timedelta(days=7))
               .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                            content_commitment=False, key_encipherment=False,
                                            data_encipherment=False, key_agreement=False, encipher_only=False,
                                            decipher_only=False), critical=True)
               .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    sans: list[x509.GeneralName] = []
    for h in hosts:
        try:
            sans.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            sans.append(x509.DNSName(h))
    cert = (x509.CertificateBuilder().subject_name(_name("nsconform-apiserver")).issuer_name(ca_cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - _dt.timedelta(minutes=5)).not_valid_after(now + _dt.timedelta(days=7))
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    d = tempfile.mkdtemp(prefix="nsconform-tls-")
    ca_pem = ca_cert.public_bytes(serialization.Encoding.PEM)
    paths = {}
    for fname, data in (("ca.crt", ca_pem), ("server.crt", cert.public_bytes(serialization.Encoding.PEM)),
                        ("server.key", key.private_bytes(serialization.Encoding.PEM,
                                                         serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))):
        p = os.path.join(d, fname)
        with open(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as fh:
            fh.write(data)
        paths[fname] = p
    return ServerTLS(d, paths["ca.crt"], paths["server.crt"], paths["server.key"], ca_pem)
