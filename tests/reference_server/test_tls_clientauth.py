"""tls_clientauth.py: the handshake asks for a client certificate and accepts any (Go's RequestClientCert), or, where
OpenSSL cannot be reached, verifies against the bundles (the documented fallback)."""
from __future__ import annotations

import ssl

from conformance.reference_server import tls_clientauth
from tests.tools import certs


def _context() -> ssl.SSLContext:
    return ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)


def test_request_without_verifying_on_cpython(tmp_path) -> None:
    ca = certs.ca()
    (tmp_path / "ca.pem").write_bytes(ca.cert_pem)
    ctx = _context()
    assert tls_clientauth.request_client_certificates(ctx, [str(tmp_path / "ca.pem")]) is True
    assert ctx.verify_mode == ssl.CERT_OPTIONAL
    assert ctx.cert_store_stats()["x509_ca"] == 0  # no trust store: the served chain stays the leaf alone


def test_fallback_verifies_in_the_handshake(tmp_path, monkeypatch) -> None:
    a, b = certs.ca("a"), certs.ca("b")
    (tmp_path / "a.pem").write_bytes(a.cert_pem)
    (tmp_path / "b.pem").write_bytes(b.cert_pem)

    def unavailable() -> None:
        raise OSError("no libssl")

    monkeypatch.setattr(tls_clientauth, "_libssl", unavailable)
    ctx = _context()
    assert tls_clientauth.request_client_certificates(ctx, [str(tmp_path / "a.pem"), str(tmp_path / "b.pem")]) is False
    assert ctx.verify_mode == ssl.CERT_OPTIONAL and ctx.cert_store_stats()["x509_ca"] == 2
    monkeypatch.undo()
    monkeypatch.setattr(tls_clientauth.sys, "implementation", type("impl", (), {"name": "pypy"})())
    assert tls_clientauth.request_client_certificates(_context(), [str(tmp_path / "a.pem")]) is False
