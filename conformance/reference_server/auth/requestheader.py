"""The front proxy's authenticator (kube-apiserver's `--requestheader-*`): a client certificate signed by the
request-header CA, whose CommonName is allowed, vouches for the user named in the request's headers.

Upstream sources reproduced here:
- `staging/src/k8s.io/apiserver/pkg/authentication/request/headerrequest/requestheader.go` (`NewSecure`: header
  names trimmed, an empty one refused (`empty header "…"`); `AuthenticateRequest`: the first non-empty value of the
  username headers in order, none ⇒ not this authenticator's request; the UID likewise from the uid headers
  (`RemoteRequestHeaderUID`, beta and on in 1.33); groups: every non-empty value of every group header; extra: for
  each prefix, every header that starts with it (case-insensitively), the rest lower-cased and `url.PathUnescape`d
  (kept as sent when that fails) as the key);
- `staging/src/k8s.io/apiserver/pkg/authentication/request/x509/x509.go` (`Verifier`: the chain verified against
  the request-header CA for client auth first, then the CommonName checked against `--requestheader-allowed-names`
  (empty: any), `x509: subject with cn=… is not in the allowed list`);
- `staging/src/k8s.io/apiserver/pkg/server/options/authentication.go` (the flags; kube-apiserver has no default
  header names: kubeadm sets `X-Remote-User`, `X-Remote-Group`, `X-Remote-Extra-`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence
from urllib.parse import unquote

from ..goport.gofmt import go_quote
from .rbac import UserInfo


@dataclass(frozen=True)
class RequestHeaderConfig:
    """`--requestheader-client-ca-file` and the flags that go with it."""

    client_ca_file: str
    allowed_names: tuple[str, ...] = ()
    username_headers: tuple[str, ...] = ()
    uid_headers: tuple[str, ...] = ()
    group_headers: tuple[str, ...] = ()
    extra_headers_prefix: tuple[str, ...] = ()

    def trimmed(self) -> "RequestHeaderConfig":
        """`trimHeaders` over each list of header names (ValueError for an empty one, as kube-apiserver refuses)."""
        def trim(names: tuple[str, ...]) -> tuple[str, ...]:
            out = tuple(n.strip() for n in names)
            for raw, name in zip(names, out):
                if not name:
                    raise ValueError(f"empty header {go_quote(raw)}")
            return out
        return RequestHeaderConfig(self.client_ca_file, self.allowed_names, trim(self.username_headers),
                                   trim(self.uid_headers), trim(self.group_headers), trim(self.extra_headers_prefix))


def kubeadm_request_header(client_ca_file: str) -> RequestHeaderConfig:
    """The flags kubeadm gives kube-apiserver (`getAPIServerCommand`): the `front-proxy-client` certificate's
    headers."""
    return RequestHeaderConfig(client_ca_file, ("front-proxy-client",), ("X-Remote-User",), (),
                               ("X-Remote-Group",), ("X-Remote-Extra-",))


def _pairs(headers: Any) -> list[tuple[str, str]]:
    return [(str(k), str(v)) for k, v in headers.items()]


def _unescape(key: str) -> str:
    """`unescapeExtraKey`: `url.PathUnescape`, the key as it is when that fails."""
    if re.search(r"%(?![0-9a-fA-F]{2})", key):
        return key
    try:
        return unquote(key, errors="strict")
    except UnicodeDecodeError:
        return key


@dataclass
class RequestHeaderAuthenticator:
    """`headerrequest.NewDynamicVerifyOptionsSecure`: the `Verifier` around the header authenticator."""

    config: RequestHeaderConfig
    verifier: Any  # auth.x509.ClientCertAuthenticator over the request-header CA
    ca_pem: str = ""  # that CA bundle as read (extension-apiserver-authentication's requestheader-client-ca-file)

    def authenticate(self, headers: Any, peer: Sequence[bytes]) -> UserInfo | None:
        """The user the headers name, None when there is no certificate or no user header, CertificateError when
        the certificate does not verify or its CommonName is not allowed."""
        from .x509 import CertificateError, common_name

        if not peer or not self.verifier.roots:
            return None
        leaf = self.verifier.verify(peer)[0]
        cfg = self.config
        if cfg.allowed_names and common_name(leaf) not in cfg.allowed_names:
            raise CertificateError(f"x509: subject with cn={common_name(leaf)} is not in the allowed list")
        pairs = _pairs(headers)
        name = _first(pairs, cfg.username_headers)
        if not name:
            return None
        groups = tuple(v for h in cfg.group_headers for k, v in pairs if k.lower() == h.lower() and v)
        extra: dict[str, list[str]] = {}
        for prefix in cfg.extra_headers_prefix:
            for k, v in pairs:
                if len(k) >= len(prefix) and k[:len(prefix)].lower() == prefix.lower():
                    extra.setdefault(_unescape(k[len(prefix):].lower()), []).append(v)
        return UserInfo(name, _first(pairs, cfg.uid_headers), groups, {k: tuple(v) for k, v in extra.items()})


def _first(pairs: list[tuple[str, str]], names: tuple[str, ...]) -> str:
    """`headerValue`: for each header name in order, its first value (`Header.Get`); the first non-empty wins."""
    for name in names:
        value = next((v for k, v in pairs if k.lower() == name.lower()), "")
        if value:
            return value
    return ""


__all__ = ["RequestHeaderAuthenticator", "RequestHeaderConfig", "kubeadm_request_header"]
