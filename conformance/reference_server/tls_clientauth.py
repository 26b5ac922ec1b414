"""Ask TLS clients for a certificate without verifying it in the handshake, as kube-apiserver does with a client CA
(`staging/src/k8s.io/apiserver/pkg/server/secure_serving.go`: `tlsConfig.ClientAuth = tls.RequestClientCert`, the CA
bundle's subjects sent as the acceptable authorities); the x509 authenticator (auth/x509.py) verifies it per
request, so an untrusted or expired certificate is a 401 (or ignored beside a valid token), never a failed handshake.

Python's `ssl` has no verify callback: `CERT_OPTIONAL` alone would make OpenSSL abort the handshake on a certificate
it cannot verify. So the callback (always 1: accept, OpenSSL still checks the client's proof of possession of the
key) and the acceptable-CA list are set on the context's `SSL_CTX` through the OpenSSL that `_ssl` is linked to.
When that is not possible (another Python implementation, a stripped OpenSSL) the context keeps `CERT_OPTIONAL`
with the bundle as trust store: trusted certificates work alike, an untrusted one fails the handshake instead.
"""
from __future__ import annotations

import ctypes
import logging
import ssl
import sys
from typing import Any, Sequence

log = logging.getLogger("nsconform.reference_server")

_SSL_VERIFY_PEER = 0x01
_VERIFY_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p)


@_VERIFY_CALLBACK
def _accept(preverify_ok: int, store_ctx: Any) -> int:  # OpenSSL's verify_callback signature
    return 1


def _libssl() -> Any:
    import _ssl

    lib = ctypes.CDLL(_ssl.__file__)  # dlsym on it also finds the libssl it links to
    lib.SSL_CTX_get_verify_mode.argtypes = [ctypes.c_void_p]
    lib.SSL_CTX_get_verify_mode.restype = ctypes.c_int
    lib.SSL_CTX_set_verify.argtypes = [ctypes.c_void_p, ctypes.c_int, _VERIFY_CALLBACK]
    lib.SSL_CTX_set_verify.restype = None
    lib.SSL_load_client_CA_file.argtypes = [ctypes.c_char_p]
    lib.SSL_load_client_CA_file.restype = ctypes.c_void_p
    lib.SSL_CTX_set_client_CA_list.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.SSL_CTX_set_client_CA_list.restype = None
    lib.SSL_add_file_cert_subjects_to_stack.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.SSL_add_file_cert_subjects_to_stack.restype = ctypes.c_int
    return lib


def _ssl_ctx_pointer(ctx: ssl.SSLContext) -> int | None:
    """CPython's `PySSLContext` starts with its `SSL_CTX *` right after the object header."""
    ptr = ctypes.c_void_p.from_address(id(ctx) + object.__basicsize__).value
    return ptr or None


def request_client_certificates(ctx: ssl.SSLContext, ca_files: Sequence[str]) -> bool:
    """Make `ctx` (a server context) ask for a client certificate that the x509 (and front-proxy) authenticators
    verify; `ca_files`: their bundles, whose subjects the CertificateRequest lists (Go's `ClientCAs`, the union of
    `--client-ca-file` and `--requestheader-client-ca-file`). True when the handshake accepts any certificate
    (`tls.RequestClientCert`), False for the fallback."""
    ctx.verify_mode = ssl.CERT_OPTIONAL  # SSL_VERIFY_PEER without FAIL_IF_NO_PEER_CERT: a CertificateRequest
    try:
        if sys.implementation.name != "cpython":  # id() is an address, and the layout known, only there
            raise OSError(f"not CPython but {sys.implementation.name}")
        lib = _libssl()
        ptr = _ssl_ctx_pointer(ctx)
        if ptr is None or lib.SSL_CTX_get_verify_mode(ptr) != _SSL_VERIFY_PEER:  # not the layout we expect
            raise OSError("SSL_CTX not found")
        lib.SSL_CTX_set_verify(ptr, _SSL_VERIFY_PEER, _accept)
        names = lib.SSL_load_client_CA_file(ca_files[0].encode())
        if names:  # the acceptable authorities
            for more in ca_files[1:]:
                lib.SSL_add_file_cert_subjects_to_stack(names, more.encode())
            lib.SSL_CTX_set_client_CA_list(ptr, names)
        return True  # (no trust store: OpenSSL would also add the CA to the chain it serves, which Go does not)
    except (OSError, AttributeError, ValueError) as exc:
        for ca_file in ca_files:
            ctx.load_verify_locations(cafile=ca_file)
        log.warning("client certificates: verified in the TLS handshake (%s): an untrusted one fails it", exc)
        return False


__all__ = ["request_client_certificates"]
