"""POST `/api/v1/namespaces/<ns>/pods/<name>/binding` and the legacy POST `/api/v1/namespaces/<ns>/bindings`
(the Binding's own name): the handler half of `BindingREST` (registry/binding.py does the write).

Like upstream's create handler: the body is a core/v1 `Binding` (JSON, YAML, or protobuf by the wire tables'
`core.Binding`, with the 400s of the other create-only kinds' protobuf bodies), `dryRun` is honoured, a namespace
in the body must be the URL's (400), NamespaceLifecycle answers for the namespace; the write goes through the
server's one writer (`offload`), as every other write.
"""
from __future__ import annotations

from typing import Any, Awaitable, Callable

from aiohttp import web

from .. import apierrors as E
from ..admission.lifecycle import NamespaceLifecycle
from ..registry import ResourceInfo
from ..registry.binding import bind_pod
from . import hooks, params as P
from .context import ServerContext
from .groups import decode_named_body, decode_unstored_body
from .handlers import check_path_segment, read_body
from .respond import object_response
from .router import Route
from .subbody import binding_fields, validate_fields, warned
from .webhookcalls import on_subresource_create
from ..admission.webhooks import Attributes
from ..wire.dupkeys import Repeats

_BINDING = frozenset({"Binding"})


def _decode(content_type: str | None, raw: bytes, repeats: list[Repeats]) -> dict[str, Any]:
    """JSON/YAML by the core reader; protobuf (what a typed client's `Bind` sends) by `core.Binding`."""
    decode = hooks.wire_attr("protobuf", "decode_group")
    if decode is None:  # (no wire tables: a protobuf body is the core reader's 400)
        return decode_named_body(content_type, raw, "v1", "Binding", repeats=repeats)
    return decode_unstored_body(content_type, raw, "v1", "Binding", lambda body: decode(body, "v1", _BINDING),
                                repeats)


async def handle_binding(ctx: ServerContext, request: web.Request, route: Route,
                         offload: Callable[..., Awaitable[Any]]) -> web.StreamResponse:
    check_path_segment(route.namespace, "Namespace")
    if route.name:
        check_path_segment(route.name, "Name")
    dry = P.dry_run(request.query.getall("dryRun", []))
    mode, repeats = P.field_validation(request.query), []
    body = _decode(request.headers.get("Content-Type"), await read_body(request), repeats)
    validate_fields(body, "Binding", "v1", None, mode, repeats, binding_fields())
    meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    ns = meta.get("namespace")
    if ns and ns != route.namespace:
        raise E.bad_request("the namespace of the provided object does not match the namespace sent on the request")
    name = route.name or str(meta.get("name") or "")
    # NamespaceLifecycle runs on every create in a namespace, subresources included (404 for a missing namespace,
    # 403 while it terminates); no other admission plugin looks at a Binding
    info = ResourceInfo("Binding", "pods" if route.name else "bindings", "binding")
    NamespaceLifecycle(ctx.registry, ctx.deviations).for_create(info)(  # type: ignore[misc]
        {"metadata": {"name": name, "namespace": route.namespace}})
    body = await on_subresource_create(ctx.registry, request, Attributes(  # the webhooks see the Binding
        "CREATE", "", "v1", info.plural, "binding" if route.name else "", route.namespace, name, "Binding"), body, dry,
        ctx.authorizer)
    status = await offload(bind_pod, ctx.registry.store, route.namespace, name, body, dry_run=dry)
    return object_response(status, 201, request.headers.get("Accept"), warned())
