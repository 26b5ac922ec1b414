"""`POST /apis/authorization.k8s.io/v1/[namespaces/<ns>/]<review plural>`: decode, ask `auth.review`, answer 201.

The requester is what the auth middleware (`authz.REQUESTER`) put on the request after authentication and
impersonation; without `--authorization rbac` there is none and the AlwaysAllow authorizer answers.
"""
from __future__ import annotations

from typing import Any

from aiohttp import web

from ..auth.review import API_VERSION, BY_PLURAL, AlwaysAllowAuthorizer, review
from .authz import REQUESTER
from .context import ServerContext
from .groups import decode_unstored_body
from .handlers import check_path_segment, read_body
from .respond import object_response
from . import params as P
from .router import Route
from .subbody import validate_fields, warned

ALWAYS_ALLOW = AlwaysAllowAuthorizer()


def _decode_protobuf(*args: Any, **kwargs: Any) -> Any:
    from ..wire import authorization_pb  # (protobuf's descriptors: a tenth of a second of start-up, rarely used)

    return authorization_pb.decode(*args, **kwargs)


async def handle_review(ctx: ServerContext, request: web.Request, route: Route) -> web.StreamResponse:
    if route.namespace:
        check_path_segment(route.namespace, "Namespace")
    kind = BY_PLURAL[route.resource]
    mode, repeats = P.field_validation(request.query), []
    body = decode_unstored_body(request.headers.get("Content-Type"), await read_body(request), API_VERSION,
                                kind.kind, _decode_protobuf, repeats)
    validate_fields(body, kind.kind, "v1", f"authorization.{kind.kind}", mode, repeats)
    result = review(kind, body, request.get(REQUESTER), ctx.authorizer or ALWAYS_ALLOW, route.namespace)
    return object_response(result, 201, request.headers.get("Accept"), warned())
