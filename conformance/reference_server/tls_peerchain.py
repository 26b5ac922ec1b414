"""The whole certificate chain a TLS client sent (Go's `tls.ConnectionState.PeerCertificates`: leaf first, then
what the client sent after it), which the x509 authenticator verifies with `PeerCertificates[1:]` as intermediates
(`staging/src/k8s.io/apiserver/pkg/authentication/request/x509/x509.go`).

CPython 3.13 has `SSLObject.get_unverified_chain`; before it, `ssl` gives the leaf only. There the chain is read
through the OpenSSL `_ssl` is linked to (as `tls_clientauth.py` sets the handshake up): `SSL_get_peer_cert_chain`
(on a server, the certificates after the leaf, kept whether or not they verified) and `i2d_X509` for each one's DER.
The `SSL *` is found in CPython's `PySSLSocket` (after the object header and its socket weakref) and proven before
use: `SSL_get_SSL_CTX` of it must be the `SSL_CTX *` of the object's own context. Where any of that fails (another
implementation, another layout) the leaf alone is returned, and the leaf must then be signed by a CA of the bundle.
"""
from __future__ import annotations

import ctypes
import logging
import ssl
import sys
from typing import Any

from .tls_clientauth import _ssl_ctx_pointer

log = logging.getLogger("nsconform.reference_server")


def _libssl() -> Any:
    import _ssl

    lib = ctypes.CDLL(_ssl.__file__)  # dlsym on it also finds libssl's and libcrypto's symbols
    lib.SSL_get_SSL_CTX.argtypes = [ctypes.c_void_p]
    lib.SSL_get_SSL_CTX.restype = ctypes.c_void_p
    lib.SSL_get_peer_cert_chain.argtypes = [ctypes.c_void_p]
    lib.SSL_get_peer_cert_chain.restype = ctypes.c_void_p
    lib.OPENSSL_sk_num.argtypes = [ctypes.c_void_p]
    lib.OPENSSL_sk_num.restype = ctypes.c_int
    lib.OPENSSL_sk_value.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.OPENSSL_sk_value.restype = ctypes.c_void_p
    lib.i2d_X509.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(ctypes.c_ubyte))]
    lib.i2d_X509.restype = ctypes.c_int
    return lib


def _load() -> Any:
    if sys.implementation.name != "cpython":  # id() is an address, and the layout known, only there
        return None
    try:
        return _libssl()
    except (OSError, AttributeError) as exc:
        log.warning("client certificates: only the leaf is read (%s): intermediates must be in the CA bundle", exc)
        return None


_LIB = _load()
_SSL_OFFSET = object.__basicsize__ + ctypes.sizeof(ctypes.c_void_p)  # PySSLSocket: PyObject_HEAD, Socket, ssl


def _ssl_pointer(ssl_object: ssl.SSLObject) -> int | None:
    """The `SSL *` of an `ssl.SSLObject`, when its context's `SSL_CTX *` proves the layout."""
    inner = getattr(ssl_object, "_sslobj", None)
    if _LIB is None or inner is None or type(inner).__name__ != "_SSLSocket":
        return None
    ptr = ctypes.c_void_p.from_address(id(inner) + _SSL_OFFSET).value
    ctx = _ssl_ctx_pointer(inner.context)
    if not ptr or ctx is None or _LIB.SSL_get_SSL_CTX(ptr) != ctx:
        return None
    return ptr


def _der(x509: int) -> bytes:
    size = _LIB.i2d_X509(x509, None)
    if size <= 0:
        return b""
    buf = (ctypes.c_ubyte * size)()
    cursor = ctypes.cast(buf, ctypes.POINTER(ctypes.c_ubyte))  # i2d_X509 moves it past what it wrote
    written = _LIB.i2d_X509(x509, ctypes.byref(cursor))
    return bytes(buf[:written]) if written == size else b""


def sent_after_leaf(ssl_object: ssl.SSLObject) -> tuple[bytes, ...] | None:
    """The DER certificates the client sent after its leaf (None: not readable here)."""
    ptr = _ssl_pointer(ssl_object)
    if ptr is None:
        return None
    stack = _LIB.SSL_get_peer_cert_chain(ptr)
    if not stack:
        return ()
    certs = (_der(_LIB.OPENSSL_sk_value(stack, i)) for i in range(_LIB.OPENSSL_sk_num(stack)))
    return tuple(c for c in certs if c)


def peer_chain(ssl_object: ssl.SSLObject) -> tuple[bytes, ...]:
    """`PeerCertificates` as DER, leaf first (empty: no certificate)."""
    unverified = getattr(ssl_object, "get_unverified_chain", None)
    if unverified is not None:  # CPython 3.13+: ssl.py's wrapper gives DER bytes
        certs = tuple(c for c in unverified() or () if isinstance(c, bytes))
        if certs:
            return certs
    leaf = ssl_object.getpeercert(binary_form=True)
    if not leaf:
        return ()
    rest = sent_after_leaf(ssl_object) or ()
    if rest and rest[0] == leaf:  # a stack that holds the leaf too (OpenSSL's client side does)
        rest = rest[1:]
    return (leaf, *rest)


__all__ = ["peer_chain", "sent_after_leaf"]
