"""`POST /apis/authorization.k8s.io/v1/[namespaces/<ns>/]<review plural>`: decode, ask `auth.review`, answer 201.

The requester is what the auth middleware (`authz.REQUESTER`) put on the request after authentication and
impersonation; without `--authorization rbac` there is none and the AlwaysAllow authorizer answers.
"""
from __future__ import annotations

from aiohttp import web

from .. import apierrors as E
from ..auth.review import API_VERSION, BY_PLURAL, AlwaysAllowAuthorizer, review
from ..wire import authorization_pb
from .authz import REQUESTER
from .context import ServerContext
from .decode import PROTOBUF_TYPE, media_type, summarize
from .groups import decode_named_body
from .handlers import check_path_segment, read_body
from .respond import object_response
from .router import Route

ALWAYS_ALLOW = AlwaysAllowAuthorizer()


def decode_review(content_type: str | None, raw: bytes, kind: str) -> dict:
    """JSON/YAML through the named-group decoder; protobuf (what kubectl sends) through `authorization_pb`."""
    if media_type(content_type) != PROTOBUF_TYPE:
        return decode_named_body(content_type, raw, API_VERSION, kind)
    try:
        obj = authorization_pb.decode(raw)
    except ValueError as exc:
        raise E.bad_request(f"the object provided is unrecognized (must be of type {kind}): {exc} "
                            f"({summarize(raw)})") from None
    version = obj.get("apiVersion")
    if version and version != API_VERSION:
        raise E.bad_request(f"the API version in the data ({version}) does not match the expected API version "
                            f"({API_VERSION})")
    if obj.get("kind") != kind:
        raise E.bad_request(f'{obj.get("kind")} in version "v1" cannot be handled as a {kind}')
    return obj


async def handle_review(ctx: ServerContext, request: web.Request, route: Route) -> web.StreamResponse:
    if route.namespace:
        check_path_segment(route.namespace, "Namespace")
    kind = BY_PLURAL[route.resource]
    body = decode_review(request.headers.get("Content-Type"), await read_body(request), kind.kind)
    result = review(kind, body, request.get(REQUESTER), ctx.authorizer or ALWAYS_ALLOW, route.namespace)
    return object_response(result, 201, request.headers.get("Accept"))
