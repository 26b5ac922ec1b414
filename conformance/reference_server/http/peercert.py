"""The TLS client's certificates of a request (Go's `req.TLS.PeerCertificates`), for the x509 authenticator.

The handshake asked for them without verifying (tls_clientauth.py); `auth/x509.py` verifies. DER, leaf first, the
whole chain the client sent (tls_peerchain.py: CPython 3.13's `get_unverified_chain`, or OpenSSL's peer chain read
through ctypes before it), read once per connection: Go's crypto/tls has no renegotiation to change it.
"""
from __future__ import annotations

from typing import Any

from aiohttp import web

from ..auth.authn import authenticate_certificates
from ..auth.rbac import UserInfo
from ..tls_peerchain import peer_chain


def peer_certificates(request: web.BaseRequest) -> tuple[bytes, ...]:
    """The DER certificates the client sent on this connection (empty: none, or not TLS)."""
    transport = request.transport
    ssl_object = transport.get_extra_info("ssl_object") if transport is not None else None
    if ssl_object is None:
        return ()
    certs = getattr(ssl_object, "_nsconform_peer_chain", None)
    if certs is None:
        certs = peer_chain(ssl_object)
        try:
            ssl_object._nsconform_peer_chain = certs
        except AttributeError:  # an SSLObject without a __dict__: read every time
            pass
    return certs


def certificate_user(ctx: Any, request: web.BaseRequest) -> tuple[UserInfo | None, bool]:
    """The certificate authenticators' answer for a request (`auth.authn.authenticate_certificates`): the user, or
    None and whether one failed (a 401 unless a token authenticates)."""
    if ctx.client_certs is None and ctx.request_header is None:
        return None, False
    return authenticate_certificates(ctx.request_header, ctx.client_certs, request.headers, peer_certificates(request))


__all__ = ["certificate_user", "peer_certificates"]
