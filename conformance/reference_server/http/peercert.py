"""The TLS client's certificates of a request (Go's `req.TLS.PeerCertificates`), for the x509 authenticator.

The handshake asked for them without verifying (tls_clientauth.py); `auth/x509.py` verifies. DER, leaf first:
CPython 3.13's `get_unverified_chain` gives the whole chain the client sent, older ones the leaf only.
"""
from __future__ import annotations

from typing import Any

from aiohttp import web

from ..auth.authn import authenticate_certificates
from ..auth.rbac import UserInfo


def peer_certificates(request: web.BaseRequest) -> tuple[bytes, ...]:
    """The DER certificates the client sent on this connection (empty: none, or not TLS)."""
    transport = request.transport
    ssl_object = transport.get_extra_info("ssl_object") if transport is not None else None
    if ssl_object is None:
        return ()
    chain = getattr(ssl_object, "get_unverified_chain", None)
    if chain is not None:
        certs = [c for c in chain() or () if isinstance(c, bytes)]  # ssl.py's wrapper: DER bytes
        if certs:
            return tuple(certs)
    leaf = ssl_object.getpeercert(binary_form=True)
    return (leaf,) if leaf else ()




def certificate_user(ctx: Any, request: web.BaseRequest) -> tuple[UserInfo | None, bool]:
    """The certificate authenticators' answer for a request (`auth.authn.authenticate_certificates`): the user, or
    None and whether one failed (a 401 unless a token authenticates)."""
    if ctx.client_certs is None and ctx.request_header is None:
        return None, False
    return authenticate_certificates(ctx.request_header, ctx.client_certs, request.headers, peer_certificates(request))


__all__ = ["certificate_user", "peer_certificates"]
