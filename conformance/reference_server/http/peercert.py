"""The TLS client's certificates of a request (Go's `req.TLS.PeerCertificates`), for the x509 authenticator.

The handshake asked for them without verifying (tls_clientauth.py); `auth/x509.py` verifies. DER, leaf first:
CPython 3.13's `get_unverified_chain` gives the whole chain the client sent, older ones the leaf only.
"""
from __future__ import annotations

import logging
from typing import Any

from aiohttp import web

from ..auth.rbac import ALL_AUTHENTICATED, UserInfo

log = logging.getLogger("nsconform.reference_server")


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




def certificate_user(authenticator: Any, request: web.BaseRequest) -> tuple[UserInfo | None, bool]:
    """The x509 authenticator's answer for a request: (its user with `system:authenticated`, or None; whether it
    failed, which is a 401 unless a token authenticates: `union.New` then `NewFailOnError`)."""
    peer = peer_certificates(request) if authenticator is not None else ()
    if not peer:
        return None, False
    from ..auth.x509 import CertificateError  # (cryptography: imported by a TLS server only)
    try:
        user = authenticator.authenticate(peer)
    except CertificateError as exc:
        log.info("Unable to authenticate the request: %s", exc)
        return None, True
    if user is None:
        return None, False
    return UserInfo(user.name, user.uid, user.groups + (ALL_AUTHENTICATED,), user.extra), False


__all__ = ["certificate_user", "peer_certificates"]
