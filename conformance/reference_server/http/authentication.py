"""`authentication.k8s.io/v1`: SelfSubjectReview (`kubectl auth whoami`), TokenReview, and the
`serviceaccounts/<name>/token` subresource (TokenRequest, `kubectl create token`). Create-only, unstored.

Upstream: `pkg/registry/authentication/selfsubjectreview/rest.go` (the requester's UserInfo, `metadata`
`{creationTimestamp: null}`), `tokenreview/storage.go` (400 "token is required for TokenReview in
authentication"; unauthenticated ⇒ `status.user: {}`), `pkg/registry/core/serviceaccount/storage/token.go`
(404 for a missing ServiceAccount; audiences default to the API server's; `SetDefaults_TokenRequestSpec`:
3600 s; `ValidateTokenRequest`: at least 10 minutes; `boundObjectRef` to a Pod running as the ServiceAccount (its
node named too), a Secret or a Node, else 400; a UID that differs answers 409), `pkg/routes/openidmetadata.go`
(the issuer discovery endpoints: JSON and `application/jwk-set+json`, `Cache-Control: public, max-age=3600`).
"""
from __future__ import annotations

import asyncio
import datetime as _dt
import hmac
import json
from typing import Any

from aiohttp import web

from .. import apierrors as E
from ..auth.authn import ADMIN_USER, user_to_dict
from ..auth.rbac import ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS, SYSTEM_MASTERS, UserInfo
from ..auth.tokens import (CACHE_MAX_AGE, DEFAULT_EXPIRATION, EXTENDED_EXPIRATION, MIN_EXPIRATION,
                           OPENID_CONFIG_PATH, WARN_ONLY_EXPIRATION, TokenIssuer)
from ..goport.gojsonhtml import escape_html
from ..goport.gofmt import go_quote
from ..storage import KeyNotFoundError
from .authz import REQUESTER
from .context import ServerContext
from .groups import decode_unstored_body
from .handlers import check_path_segment, read_body
from .respond import object_response, plain_not_found
from . import params as P
from .router import Route
from .subbody import validate_fields, warned

GROUP, VERSION = "authentication.k8s.io", "v1"
API_VERSION = f"{GROUP}/{VERSION}"
RESOURCES = {"selfsubjectreviews": "SelfSubjectReview", "tokenreviews": "TokenReview"}


def _decode(request: web.Request, raw: bytes, kind: str) -> dict[str, Any]:
    """The body as `kind`, its fields judged under the request's `fieldValidation` (http/subbody.py)."""
    from ..wire import authentication_pb  # (protobuf's descriptors: a tenth of a second of start-up, rarely used)

    mode, repeats = P.field_validation(request.query), []
    body = decode_unstored_body(request.headers.get("Content-Type"), raw, API_VERSION, kind, authentication_pb.decode,
                                repeats)
    validate_fields(body, kind, VERSION, f"authentication.{kind}", mode, repeats)
    return body


def _bearer(request: web.Request) -> str:
    header = request.headers.get("Authorization", "")
    return header[7:].strip() if header.startswith("Bearer ") else ""


def authenticate_token(ctx: ServerContext, token: str) -> UserInfo | None:
    """Who a bearer token is: the admin token, a `--users` token (rbac), or a service-account token."""
    user = _static_token_user(ctx, token)
    if user is not None or not token:
        return user
    issuer: TokenIssuer | None = getattr(ctx, "token_issuer", None)
    return issuer.authenticate(token) if issuer is not None else None


def _static_token_user(ctx: ServerContext, token: str) -> UserInfo | None:
    """The admin token's or a `--users` token's user (audience-agnostic, as upstream's token file)."""
    if not token:
        return None
    if ctx.token is not None and hmac.compare_digest(token.encode(), ctx.token.encode()):
        return UserInfo(ADMIN_USER, "", (SYSTEM_MASTERS, ALL_AUTHENTICATED))
    if ctx.authenticator is not None:
        user = ctx.authenticator.tokens.get(token)
        if user is not None:
            return user if ALL_AUTHENTICATED in user.groups else \
                UserInfo(user.name, user.uid, user.groups + (ALL_AUTHENTICATED,), user.extra)
    return None


def _requester(ctx: ServerContext, request: web.Request) -> UserInfo:
    user = request.get(REQUESTER)
    if user is not None:
        return user
    return authenticate_token(ctx, _bearer(request)) or UserInfo(ANONYMOUS, "", (ALL_UNAUTHENTICATED,))


def record_requester(ctx: ServerContext, request: web.Request) -> None:
    """Make the request's user what `auth.escalation.CURRENT_USER` gives the registry (set already under
    `--authorization rbac`; here also for the always-allow server), as upstream's `request.UserFrom(ctx)`."""
    from ..auth.escalation import CURRENT_USER
    if CURRENT_USER.get() is None:
        CURRENT_USER.set(_requester(ctx, request))


async def handle_authentication_review(ctx: ServerContext, request: web.Request, route: Route) -> web.StreamResponse:
    kind = RESOURCES[route.resource]
    body = _decode(request, await read_body(request), kind)
    out: dict[str, Any] = {"kind": kind, "apiVersion": API_VERSION, "metadata": {"creationTimestamp": None}}
    if kind == "SelfSubjectReview":
        out["status"] = {"userInfo": user_to_dict(_requester(ctx, request))}
    else:
        spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
        token = spec.get("token")
        if not token:
            raise E.bad_request("token is required for TokenReview in authentication")
        requested = [str(a) for a in spec.get("audiences") or ()] or _api_audiences(ctx)
        issuer: TokenIssuer | None = getattr(ctx, "token_issuer", None)
        reviewed = issuer.review(str(token), requested) if issuer is not None else None
        # a service-account token: the audiences it was issued for that the review asks for (jwt.go Intersect)
        user, audiences = reviewed if reviewed is not None else (_static_token_user(ctx, str(token)), requested)
        out["spec"] = spec
        out["status"] = {"authenticated": True, "user": user_to_dict(user),
                         "audiences": audiences} if user else {"user": {}}
    return object_response(out, 201, request.headers.get("Accept"), warned())


def _api_audiences(ctx: ServerContext) -> list[str]:
    """The API server's audiences (`--service-account-issuer`s): TokenRequest and TokenReview defaults."""
    issuer: TokenIssuer | None = getattr(ctx, "token_issuer", None)
    return list(issuer.audiences) if issuer is not None else []


def _timestamp(unix: int) -> str:
    return _dt.datetime.fromtimestamp(unix, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


async def handle_token_request(ctx: ServerContext, request: web.Request, route: Route) -> web.StreamResponse:
    check_path_segment(route.namespace, "Namespace")
    check_path_segment(route.name, "Name")
    body = _decode(request, await read_body(request), "TokenRequest")
    store = ctx.registry.content("serviceaccounts")
    assert store is not None
    sa = store.get(route.namespace, route.name)  # 404: serviceaccounts "x" not found
    from ..admission.webhooks import Attributes
    from .webhookcalls import on_subresource_create
    body = await on_subresource_create(ctx.registry, request, Attributes(  # the webhooks see the TokenRequest
        "CREATE", "", "v1", "serviceaccounts", "token", route.namespace, route.name, "TokenRequest",
        ("authentication.k8s.io", "v1")), body, False, ctx.authorizer)
    spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    expiration = spec.get("expirationSeconds")
    expiration = DEFAULT_EXPIRATION if expiration in (None, 0) else expiration
    if not isinstance(expiration, int) or expiration < MIN_EXPIRATION:
        raise E.invalid("TokenRequest", route.name, [E.field_invalid(
            "spec.expirationSeconds", expiration, "may not specify a duration less than 10 minutes")], group=GROUP)
    api_audiences = _api_audiences(ctx)
    audiences = list(spec.get("audiences") or api_audiences)
    ref = spec.get("boundObjectRef")
    bound = _bound_object(ctx, route.namespace, route.name, ref) if isinstance(ref, dict) else {}
    # token.go: a pod-bound token for the API server asked for 3607 s (the kubelet's projected volume) lives a
    # year and carries `warnafter` (--service-account-extend-token-expiration, default true)
    lifetime, warn_after = expiration, 0
    if "pod" in bound and expiration == WARN_ONLY_EXPIRATION and set(audiences) <= set(api_audiences):  # isKubeAudiences
        lifetime, warn_after = EXTENDED_EXPIRATION, expiration
    issuer = await _issuer_with_key(ctx)
    token, expiry = issuer.issue(route.namespace, route.name, sa["metadata"]["uid"], audiences, lifetime,
                                 bound=bound, warn_after=warn_after)
    expiry = expiry - lifetime + expiration  # the status reports the requested lifetime
    meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    out = {"kind": "TokenRequest", "apiVersion": API_VERSION,
           "metadata": {**meta, "name": route.name, "namespace": route.namespace, "creationTimestamp": None},
           "spec": {"audiences": audiences, "expirationSeconds": expiration,
                    "boundObjectRef": spec.get("boundObjectRef")},
           "status": {"token": token, "expirationTimestamp": _timestamp(expiry)}}
    return object_response(out, 201, request.headers.get("Accept"), warned())


def _bound_object(ctx: ServerContext, namespace: str, sa_name: str, ref: dict[str, Any]) -> dict[str, dict[str, str]]:
    """token.go: the Pod (running as this ServiceAccount, with its node when scheduled), Secret or Node a token is
    bound to, as claims refs."""
    api_version, kind = str(ref.get("apiVersion") or ""), str(ref.get("kind") or "")
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    version = api_version.rpartition("/")[2]
    if group or kind not in ("Pod", "Secret", "Node"):
        gvk = f"{group}/{version}, Kind={kind}"  # schema.GroupVersionKind.String(): "/v1, Kind=X" for core
        raise E.bad_request(f"cannot bind token to object of type {gvk}")
    name = str(ref.get("name") or "")
    if kind == "Node":
        nodes = ctx.registry.cluster("nodes")
        assert nodes is not None
        obj = nodes.get("", name)  # 404 as a GET of it
    else:
        store = ctx.registry.content("pods" if kind == "Pod" else "secrets")
        assert store is not None
        obj = store.get(namespace, name)
    if kind == "Pod" and (obj.get("spec") or {}).get("serviceAccountName") != sa_name:
        raise E.bad_request(f"cannot bind token for serviceaccount {go_quote(str(sa_name))} to pod running with "
                            "different serviceaccount name.")
    uid = obj["metadata"]["uid"]
    if ref.get("uid") and ref["uid"] != uid:
        raise E.conflict(kind, name,  # upstream's GroupResource{Resource: the Kind}
                         f"the UID in the bound object reference ({ref['uid']}) does not match the UID in "
                         "record. The object might have been deleted and then recreated")
    bound = {kind.lower(): {"name": obj["metadata"]["name"], "uid": uid}}
    node_name = (obj.get("spec") or {}).get("nodeName") if kind == "Pod" else None
    if node_name:  # ServiceAccountTokenPodNodeInfo: the node's name, and its uid when the Node exists
        try:
            node = ctx.registry.store.get("nodes", "", node_name, shared=True)
            bound["node"] = {"name": node_name, "uid": node["metadata"]["uid"]}
        except KeyNotFoundError:
            bound["node"] = {"name": node_name}
    return bound


async def _issuer_with_key(ctx: ServerContext) -> TokenIssuer:
    """The issuer, once its key exists: a request right after start waits for it off the event loop."""
    issuer: TokenIssuer = ctx.token_issuer  # type: ignore[attr-defined]
    if not issuer.ready:
        await asyncio.get_running_loop().run_in_executor(None, issuer.warm_up)
    return issuer


async def openid_metadata(ctx: ServerContext, request: web.Request, path: str) -> web.Response:
    """`/.well-known/openid-configuration` and `/openid/v1/jwks` (pkg/routes/openidmetadata.go); not installed
    (404, as any unknown path) when the first issuer is not an https URL."""
    if not ctx.token_issuer.serves_discovery:  # type: ignore[attr-defined]
        return plain_not_found()
    issuer = await _issuer_with_key(ctx)
    if path == OPENID_CONFIG_PATH:
        body, content_type = issuer.openid_configuration(request.host), "application/json"
    else:
        body, content_type = issuer.jwks(), "application/jwk-set+json"
    return web.Response(body=escape_html(json.dumps(body, separators=(",", ":"))).encode(), content_type=content_type,
                        headers={"Cache-Control": f"public, max-age={CACHE_MAX_AGE}"})
