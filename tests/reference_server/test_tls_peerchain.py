"""tls_peerchain.py: the chain a TLS client sent, leaf first (Go's `PeerCertificates`), on every supported Python;
a handshake over memory BIOs with the server context tls_clientauth.py sets up."""
from __future__ import annotations

import datetime as _dt
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from conformance.reference_server import tls_clientauth, tls_peerchain
from tests.tools import certs


def _server_certificate(ca: certs.Pair) -> certs.Pair:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca.cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(certs.NOW - _dt.timedelta(days=1)).not_valid_after(certs.NOW + _dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .sign(ca.key, hashes.SHA256()))
    return certs.Pair(key, cert)


def _handshake(tmp_path: Path, client_chain: list[certs.Pair] | None) -> ssl.SSLObject:
    """The server's SSLObject after a handshake with a client that sends `client_chain` (leaf first)."""
    ca = certs.ca("peerchain-ca")
    (tmp_path / "ca.pem").write_bytes(ca.cert_pem)
    server = _server_certificate(ca)
    server_files = server.files(tmp_path, "server")
    sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    sctx.load_cert_chain(*server_files)
    tls_clientauth.request_client_certificates(sctx, [str(tmp_path / "ca.pem")])
    cctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    cctx.load_verify_locations(str(tmp_path / "ca.pem"))
    if client_chain:
        cert_file, key_file = client_chain[0].files(tmp_path, "client")
        Path(cert_file).write_bytes(b"".join(p.cert_pem for p in client_chain))
        cctx.load_cert_chain(cert_file, key_file)
    bios = [ssl.MemoryBIO() for _ in range(4)]
    s = sctx.wrap_bio(bios[0], bios[1], server_side=True)
    c = cctx.wrap_bio(bios[2], bios[3], server_hostname="localhost")
    for _ in range(10):
        for side in (c, s):
            try:
                side.do_handshake()
            except ssl.SSLWantReadError:
                pass
        bios[0].write(bios[3].read())
        bios[2].write(bios[1].read())
    # TLS 1.3: the server has the client's certificates once it read the client's Finished
    s.write(b"x")
    return s


def test_the_whole_sent_chain_leaf_first(tmp_path) -> None:
    root = certs.ca("client-root")
    inter = certs.ca("client-intermediate", issuer=root)
    leaf = certs.leaf(inter, "ivy")
    obj = _handshake(tmp_path, [leaf, inter])
    assert tls_peerchain.peer_chain(obj) == (leaf.der, inter.der)
    if not hasattr(obj, "get_unverified_chain"):  # before 3.13 the ctypes path is what answered
        assert tls_peerchain.sent_after_leaf(obj) == (inter.der,)


def test_a_leaf_alone_and_no_certificate(tmp_path) -> None:
    leaf = certs.leaf(certs.ca("client-root"), "ivy")
    assert tls_peerchain.peer_chain(_handshake(tmp_path, [leaf])) == (leaf.der,)
    assert tls_peerchain.peer_chain(_handshake(tmp_path, None)) == ()


def test_an_unknown_layout_gives_the_leaf_alone(tmp_path, monkeypatch) -> None:
    """The proof of the layout fails (here: the SSL_CTX does not match): no pointer is followed."""
    root = certs.ca("client-root")
    inter = certs.ca("client-intermediate", issuer=root)
    leaf = certs.leaf(inter, "ivy")
    obj = _handshake(tmp_path, [leaf, inter])
    if hasattr(obj, "get_unverified_chain"):
        pytest.skip("Python 3.13+ reads the chain through ssl")
    monkeypatch.setattr(tls_peerchain, "_ssl_ctx_pointer", lambda ctx: 1)
    assert tls_peerchain.sent_after_leaf(obj) is None
    assert tls_peerchain.peer_chain(obj) == (leaf.der,)
