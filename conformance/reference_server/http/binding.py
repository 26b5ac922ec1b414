"""POST `/api/v1/namespaces/<ns>/pods/<name>/binding` and the legacy POST `/api/v1/namespaces/<ns>/bindings`
(the Binding's own name): the handler half of `BindingREST` (registry/binding.py does the write).

Like upstream's create handler: the body is a core/v1 `Binding` (JSON or YAML; its protobuf decoding is not
wired: a protobuf body is a 400), `dryRun` is honoured, a namespace in the body must be the URL's
(400), NamespaceLifecycle answers for the namespace; the write goes through the server's one writer
(`offload`), as every other write.
"""
from __future__ import annotations

from typing import Any, Awaitable, Callable

from aiohttp import web

from .. import apierrors as E
from ..admission.lifecycle import NamespaceLifecycle
from ..registry import ResourceInfo
from ..registry.binding import bind_pod
from . import params as P
from .context import ServerContext
from .groups import decode_named_body
from .handlers import check_path_segment, read_body
from .respond import object_response
from .router import Route
from .subbody import binding_fields, validate_fields, warned
from .webhookcalls import on_subresource_create
from ..admission.webhooks import Attributes


async def handle_binding(ctx: ServerContext, request: web.Request, route: Route,
                         offload: Callable[..., Awaitable[Any]]) -> web.StreamResponse:
    check_path_segment(route.namespace, "Namespace")
    if route.name:
        check_path_segment(route.name, "Name")
    dry = P.dry_run(request.query.getall("dryRun", []))
    mode, repeats = P.field_validation(request.query), []
    body = decode_named_body(request.headers.get("Content-Type"), await read_body(request), "v1", "Binding",
                             repeats=repeats)
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
