"""Authentication (client certificates, static bearer tokens, anonymous) and impersonation, as kube-apiserver
does them.

Upstream sources reproduced here:
- `pkg/kubeapiserver/authenticator/config.go` (`Config.New`: the union of the front proxy
  (`auth/requestheader.py`), the x509 authenticator (`auth/x509.py`), then the bearer tokens; `union.New`
  returns the first that authenticates and an error only when none does; the group adder; anonymous after them
  by `union.NewFailOnError`, so an error (an untrusted client certificate, an unknown token) is a 401 even where
  anonymous requests are allowed, and a certificate without a CommonName is no error: the request goes on as if it
  carried none);
- `staging/src/k8s.io/apiserver/pkg/authentication/token/tokenfile/tokenfile.go` (`--token-auth-file`:
  CSV `token,user,uid[,"group1,group2"]`, extra columns ignored, empty tokens skipped, later duplicates
  win, groups = `strings.Split(col4, ",")`, the `must have at least 3 columns` error);
- `staging/src/k8s.io/apiserver/pkg/authentication/request/bearertoken/bearertoken.go` (`Authorization:
  Bearer <token>`; an unknown token fails with `invalid bearer token` ⇒ 401 even when anonymous auth is on);
- `staging/src/k8s.io/apiserver/pkg/authentication/group/authenticated_group_adder.go` (adds
  `system:authenticated` unless the user is anonymous or already has it / `system:unauthenticated`);
- `staging/src/k8s.io/apiserver/pkg/authentication/request/anonymous/anonymous.go` (`system:anonymous`
  in `system:unauthenticated`);
- `staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go` (`Impersonate-User`,
  `Impersonate-Group` (repeatable), `Impersonate-Uid`, `Impersonate-Extra-<key>`; each one authorized as
  verb `impersonate` on `users`/`groups`/`serviceaccounts` (core) or `uids`/`userextras/<key>`
  (`authentication.k8s.io`); service-account usernames; group defaulting; the 400 for groups/extra/uid
  without a user);
- `staging/src/k8s.io/apiserver/pkg/authentication/serviceaccount/util.go` (`SplitUsername`, group names).

401 is `apierrors.unauthorized()` (`{"reason": "Unauthorized", "message": "Unauthorized"}`).
"""
from __future__ import annotations

import csv
import hmac
import io
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Iterable
from urllib.parse import unquote

from .. import apierrors as E
from .rbac import (ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS, SA_PREFIX, SYSTEM_MASTERS, Attributes,
                   Authorizer, UserInfo, forbidden_error, make_sa_username)

log = logging.getLogger("nsconform.reference_server")
ADMIN_USER = "system:admin"
AUTHN_GROUP = "authentication.k8s.io"
IMPERSONATE_USER = "impersonate-user"
IMPERSONATE_GROUP = "impersonate-group"
IMPERSONATE_UID = "impersonate-uid"
IMPERSONATE_EXTRA_PREFIX = "impersonate-extra-"

_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


class TokenFileError(ValueError):
    """The token file cannot be loaded (kube-apiserver refuses to start)."""


def parse_token_file(text: str, path: str = "") -> dict[str, UserInfo]:
    """`tokenfile.NewCSV` over the file's text: token → user (groups as written, no implicit groups)."""
    tokens: dict[str, UserInfo] = {}
    try:
        rows = list(csv.reader(io.StringIO(text), strict=True))
    except csv.Error as exc:
        raise TokenFileError(f"token file '{path}': {exc}") from None
    for record in rows:
        if not record:  # encoding/csv skips empty lines
            continue
        if len(record) < 3:
            raise TokenFileError(f"token file '{path}' must have at least 3 columns "
                                 f"(token, user name, user uid), found {len(record)}")
        if record[0] == "":
            continue  # "empty token has been found in token file" (a warning upstream)
        groups = tuple(record[3].split(",")) if len(record) >= 4 else ()
        tokens[record[0]] = UserInfo(name=record[1], uid=record[2], groups=groups)
    return tokens


def _header_pairs(headers: Any) -> list[tuple[str, str]]:
    """Header (name, value) pairs, repeated names kept (multidict, dict of str/list, or pairs)."""
    if headers is None:
        return []
    if hasattr(headers, "items") and not isinstance(headers, dict):
        return [(str(k), str(v)) for k, v in headers.items()]  # multidicts yield every pair
    if isinstance(headers, dict):
        out = []
        for k, v in headers.items():
            for item in (v if isinstance(v, (list, tuple)) else [v]):
                out.append((str(k), str(item)))
        return out
    return [(str(k), str(v)) for k, v in headers]


def _get(pairs: list[tuple[str, str]], name: str) -> str:
    return next((v for k, v in pairs if k.lower() == name), "")


def _add_authenticated(user: UserInfo) -> UserInfo:
    """`AuthenticatedGroupAdder`."""
    if user.name == ANONYMOUS or ALL_AUTHENTICATED in user.groups or ALL_UNAUTHENTICATED in user.groups:
        return user
    return UserInfo(user.name, user.uid, user.groups + (ALL_AUTHENTICATED,), user.extra)


def authenticate_certificates(request_header: Any, client_certs: Any, headers: Any,
                              peer: tuple[bytes, ...]) -> tuple[UserInfo | None, bool]:
    """The certificate half of the union, in config.go's order: the front proxy (`--requestheader-*`), then the
    x509 authenticator. (The user with `system:authenticated`, or None; whether one of them failed: a 401 unless a
    token authenticates.)"""
    if not peer:
        return None, False
    from .x509 import CertificateError  # (cryptography: imported by a TLS server only)
    failed = False
    for authenticator, args in ((request_header, (headers, peer)), (client_certs, (peer,))):
        if authenticator is None:
            continue
        try:
            user = authenticator.authenticate(*args)
        except CertificateError as exc:
            log.info("Unable to authenticate the request: %s", exc)  # upstream's WithAuthentication logs it
            failed = True
            continue
        if user is not None:
            return _add_authenticated(user), False
    return None, failed


@dataclass
class TokenAuthenticator:
    """Bearer tokens from a token file plus the server's admin token (`system:admin` in `system:masters`)."""

    tokens: dict[str, UserInfo] = field(default_factory=dict)
    admin_token: str | None = None
    allow_anonymous: bool = True
    service_accounts: Any = None  # auth.tokens.TokenIssuer: the service-account tokens this server signed
    client_certs: Any = None  # auth.x509.ClientCertAuthenticator (--client-ca-file)
    request_header: Any = None  # auth.requestheader.RequestHeaderAuthenticator (--requestheader-client-ca-file)

    @classmethod
    def from_file(cls, path: str, admin_token: str | None = None, allow_anonymous: bool = True) -> "TokenAuthenticator":
        """Read `--users FILE` (the only I/O in this package, done once at server start)."""
        with open(path, encoding="utf-8", newline="") as fh:
            return cls(parse_token_file(fh.read(), path), admin_token, allow_anonymous)

    def authenticate(self, headers: Any, peer: tuple[bytes, ...] = ()) -> UserInfo:
        """The user of a request, or 401: the client certificate (`peer`, DER leaf first) when it verifies, else
        the bearer token; no credentials ⇒ anonymous (if allowed and the certificate was no error) else 401."""
        user, failed = authenticate_certificates(self.request_header, self.client_certs, headers, peer)
        if user is not None:
            return user
        auth = _get(_header_pairs(headers), "authorization").strip()
        parts = auth.split(" ")
        if not auth or len(parts) < 2 or parts[0].lower() != "bearer" or parts[1] == "":
            if self.allow_anonymous and not failed:
                return UserInfo(ANONYMOUS, "", (ALL_UNAUTHENTICATED,))
            raise E.unauthorized()
        token = parts[1]
        if self.admin_token is not None and hmac.compare_digest(token.encode(), self.admin_token.encode()):
            return _add_authenticated(UserInfo(ADMIN_USER, "", (SYSTEM_MASTERS,)))
        user = self.tokens.get(token)
        if user is None and self.service_accounts is not None:
            user = self.service_accounts.authenticate(token)
        if user is None:
            raise E.unauthorized()  # "invalid bearer token"
        return _add_authenticated(user)


def split_sa_username(username: str) -> tuple[str, str] | None:
    """`serviceaccount.SplitUsername`: (namespace, name) of `system:serviceaccount:<ns>:<name>`, else None."""
    if not username.startswith(SA_PREFIX):
        return None
    parts = username[len(SA_PREFIX):].split(":")
    if len(parts) != 2:
        return None
    ns, name = parts
    if len(ns) > 63 or not _LABEL_RE.match(ns) or len(name) > 253 or not _SUBDOMAIN_RE.match(name):
        return None
    return ns, name


@dataclass(frozen=True)
class _Ref:
    """A `v1.ObjectReference` as buildImpersonationRequests makes it (printed with Go `%v` in the 400)."""

    kind: str
    namespace: str = ""
    name: str = ""
    api_version: str = ""
    field_path: str = ""

    def go_v(self) -> str:
        return "{" + " ".join([self.kind, self.namespace, self.name, "", self.api_version, "", self.field_path]) + "}"


def _unescape_extra_key(key: str) -> str:
    try:
        if re.search(r"%(?![0-9a-fA-F]{2})", key):
            return key  # url.PathUnescape fails on a malformed escape: keep the key as sent
        return unquote(key, errors="strict")
    except UnicodeDecodeError:
        return key


def impersonation_requests(headers: Any) -> list[_Ref]:
    """`buildImpersonationRequests`: user, groups, extras, uid — or 400 when there is no user."""
    pairs = _header_pairs(headers)
    refs: list[_Ref] = []
    requested_user = _get(pairs, IMPERSONATE_USER)
    if requested_user:
        sa = split_sa_username(requested_user)
        refs.append(_Ref("ServiceAccount", sa[0], sa[1]) if sa else _Ref("User", name=requested_user))
    has_groups = False
    for k, v in pairs:
        if k.lower() == IMPERSONATE_GROUP:
            has_groups = True
            refs.append(_Ref("Group", name=v))
    has_extra = False
    for k, v in pairs:
        if k.lower().startswith(IMPERSONATE_EXTRA_PREFIX):
            has_extra = True
            refs.append(_Ref("UserExtra", name=v, api_version=f"{AUTHN_GROUP}/v1",
                             field_path=_unescape_extra_key(k.lower()[len(IMPERSONATE_EXTRA_PREFIX):])))
    uid = _get(pairs, IMPERSONATE_UID)
    if uid:
        refs.append(_Ref("UID", name=uid, api_version=f"{AUTHN_GROUP}/v1"))
    if (has_groups or has_extra or uid) and not requested_user:
        raise E.bad_request("requested [" + " ".join(r.go_v() for r in refs) + "] without impersonating a user")
    return refs


def impersonate(requestor: UserInfo, headers: Any, authorizer: Authorizer) -> UserInfo:
    """`WithImpersonation`: the user to act as (the requestor itself when no impersonation header is set).

    Every requested identity is authorized for the requestor as verb `impersonate`; the first refusal is
    answered with the upstream 403, e.g. `users "x" is forbidden: User "y" cannot impersonate resource
    "users" in API group "" at the cluster scope`.
    """
    refs = impersonation_requests(headers)
    if not refs:
        return requestor
    groups_specified = any(k.lower() == IMPERSONATE_GROUP for k, _ in _header_pairs(headers))
    username, uid = "", ""
    groups: list[str] = []
    extra: dict[str, list[str]] = {}
    for ref in refs:
        if ref.kind == "ServiceAccount":
            attrs = Attributes(requestor, "impersonate", "", "serviceaccounts", "", ref.namespace, ref.name,
                               api_version="v1")
            username = make_sa_username(ref.namespace, ref.name)
            if not groups_specified:
                groups = ["system:serviceaccounts", f"system:serviceaccounts:{ref.namespace}"]
        elif ref.kind == "User":
            attrs = Attributes(requestor, "impersonate", "", "users", "", "", ref.name, api_version="v1")
            username = ref.name
        elif ref.kind == "Group":
            attrs = Attributes(requestor, "impersonate", "", "groups", "", "", ref.name, api_version="v1")
            groups.append(ref.name)
        elif ref.kind == "UserExtra":
            attrs = Attributes(requestor, "impersonate", AUTHN_GROUP, "userextras", ref.field_path, "", ref.name,
                               api_version="v1")
            extra.setdefault(ref.field_path, []).append(ref.name)
        else:  # UID
            attrs = Attributes(requestor, "impersonate", AUTHN_GROUP, "uids", "", "", ref.name, api_version="v1")
            uid = ref.name
        allowed, reason = authorizer.authorize(attrs)
        if not allowed:
            raise forbidden_error(attrs, reason)
    if username != ANONYMOUS:
        if ALL_AUTHENTICATED not in groups and ALL_UNAUTHENTICATED not in groups:
            groups.append(ALL_AUTHENTICATED)
    elif ALL_UNAUTHENTICATED not in groups:
        groups.append(ALL_UNAUTHENTICATED)
    return UserInfo(username, uid, tuple(groups), {k: tuple(v) for k, v in extra.items()})


def strip_impersonation_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The request's headers without the impersonation ones (upstream deletes them before proxying on)."""
    return [(k, v) for k, v in headers
            if k.lower() not in (IMPERSONATE_USER, IMPERSONATE_GROUP, IMPERSONATE_UID)
            and not k.lower().startswith(IMPERSONATE_EXTRA_PREFIX)]


def identify(authenticator: TokenAuthenticator, authorizer: Authorizer, headers: Any,
             peer: tuple[bytes, ...] = ()) -> UserInfo:
    """Authentication then impersonation: the user every later layer authorizes and admits as."""
    return impersonate(authenticator.authenticate(headers, peer), headers, authorizer)


def user_to_dict(user: UserInfo) -> dict[str, Any]:
    """`authentication.k8s.io/v1 UserInfo` JSON (for SelfSubjectReview / audit-style echoes)."""
    out: dict[str, Any] = {"username": user.name}
    if user.uid:
        out["uid"] = user.uid
    if user.groups:
        out["groups"] = list(user.groups)
    if user.extra:
        out["extra"] = {k: list(v) for k, v in user.extra.items()}
    return out


__all__ = ["ADMIN_USER", "TokenAuthenticator", "TokenFileError", "UserInfo", "authenticate_certificates", "identify",
           "impersonate", "impersonation_requests", "parse_token_file", "split_sa_username",
           "strip_impersonation_headers", "user_to_dict"]

