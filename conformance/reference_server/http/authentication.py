"""`authentication.k8s.io/v1`: SelfSubjectReview (`kubectl auth whoami`), TokenReview, and the
`serviceaccounts/<name>/token` subresource (TokenRequest, `kubectl create token`). Create-only, unstored.

Upstream: `pkg/registry/authentication/selfsubjectreview/rest.go` (the requester's UserInfo, `metadata`
`{creationTimestamp: null}`), `tokenreview/storage.go` (400 "token is required for TokenReview in
authentication"; unauthenticated ⇒ `status.user: {}`), `pkg/registry/core/serviceaccount/storage/token.go`
(404 for a missing ServiceAccount; audiences default to the API server's; `SetDefaults_TokenRequestSpec`:
3600 s; `ValidateTokenRequest`: at least 10 minutes).
"""
from __future__ import annotations

import datetime as _dt
import hmac
from typing import Any

from aiohttp import web

from .. import apierrors as E
from ..auth.authn import ADMIN_USER, user_to_dict
from ..auth.rbac import ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS, SYSTEM_MASTERS, UserInfo
from ..auth.tokens import DEFAULT_EXPIRATION, ISSUER, MIN_EXPIRATION, TokenIssuer
from ..wire import authentication_pb
from .authz import REQUESTER
from .context import ServerContext
from .groups import decode_unstored_body
from .handlers import check_path_segment, read_body
from .respond import object_response
from .router import Route

GROUP, VERSION = "authentication.k8s.io", "v1"
API_VERSION = f"{GROUP}/{VERSION}"
RESOURCES = {"selfsubjectreviews": "SelfSubjectReview", "tokenreviews": "TokenReview"}


def _decode(request_ct: str | None, raw: bytes, kind: str) -> dict[str, Any]:
    return decode_unstored_body(request_ct, raw, API_VERSION, kind, authentication_pb.decode)


def _bearer(request: web.Request) -> str:
    header = request.headers.get("Authorization", "")
    return header[7:].strip() if header.startswith("Bearer ") else ""


def authenticate_token(ctx: ServerContext, token: str) -> UserInfo | None:
    """Who a bearer token is: the admin token, a `--users` token (rbac), or a service-account token."""
    if not token:
        return None
    if ctx.token is not None and hmac.compare_digest(token.encode(), ctx.token.encode()):
        return UserInfo(ADMIN_USER, "", (SYSTEM_MASTERS, ALL_AUTHENTICATED))
    if ctx.authenticator is not None:
        user = ctx.authenticator.tokens.get(token)
        if user is not None:
            return user if ALL_AUTHENTICATED in user.groups else \
                UserInfo(user.name, user.uid, user.groups + (ALL_AUTHENTICATED,), user.extra)
    issuer: TokenIssuer | None = getattr(ctx, "token_issuer", None)
    return issuer.authenticate(token) if issuer is not None else None


def _requester(ctx: ServerContext, request: web.Request) -> UserInfo:
    user = request.get(REQUESTER)
    if user is not None:
        return user
    return authenticate_token(ctx, _bearer(request)) or UserInfo(ANONYMOUS, "", (ALL_UNAUTHENTICATED,))


async def handle_authentication_review(ctx: ServerContext, request: web.Request, route: Route) -> web.StreamResponse:
    kind = RESOURCES[route.resource]
    body = _decode(request.headers.get("Content-Type"), await read_body(request), kind)
    out: dict[str, Any] = {"kind": kind, "apiVersion": API_VERSION, "metadata": {"creationTimestamp": None}}
    if kind == "SelfSubjectReview":
        out["status"] = {"userInfo": user_to_dict(_requester(ctx, request))}
    else:
        spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
        token = spec.get("token")
        if not token:
            raise E.bad_request("token is required for TokenReview in authentication")
        user = authenticate_token(ctx, str(token))
        out["spec"] = spec
        out["status"] = {"authenticated": True, "user": user_to_dict(user),
                         "audiences": list(spec.get("audiences") or [ISSUER])} if user else {"user": {}}
    return object_response(out, 201, request.headers.get("Accept"))


def _timestamp(unix: int) -> str:
    return _dt.datetime.fromtimestamp(unix, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


async def handle_token_request(ctx: ServerContext, request: web.Request, route: Route) -> web.StreamResponse:
    check_path_segment(route.namespace, "Namespace")
    check_path_segment(route.name, "Name")
    body = _decode(request.headers.get("Content-Type"), await read_body(request), "TokenRequest")
    store = ctx.registry.content("serviceaccounts")
    assert store is not None
    sa = store.get(route.namespace, route.name)  # 404: serviceaccounts "x" not found
    spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    expiration = spec.get("expirationSeconds")
    expiration = DEFAULT_EXPIRATION if expiration in (None, 0) else expiration
    if not isinstance(expiration, int) or expiration < MIN_EXPIRATION:
        raise E.invalid("TokenRequest", route.name, [E.field_invalid(
            "spec.expirationSeconds", expiration, "may not specify a duration less than 10 minutes")], group=GROUP)
    audiences = list(spec.get("audiences") or [ISSUER])
    issuer: TokenIssuer = ctx.token_issuer  # type: ignore[attr-defined]
    token, expiry = issuer.issue(route.namespace, route.name, sa["metadata"]["uid"], audiences, expiration)
    meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    out = {"kind": "TokenRequest", "apiVersion": API_VERSION,
           "metadata": {**meta, "name": route.name, "namespace": route.namespace, "creationTimestamp": None},
           "spec": {"audiences": audiences, "expirationSeconds": expiration,
                    "boundObjectRef": spec.get("boundObjectRef")},
           "status": {"token": token, "expirationTimestamp": _timestamp(expiry)}}
    return object_response(out, 201, request.headers.get("Accept"))
