"""The connect subresources: `pods/{log,exec,attach,portforward,proxy}`, `services/proxy`, `nodes/proxy`.

Follows `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go` `ConnectResource` (the options decoded from
the query, then admission's CONNECT with the options object: only the webhooks and admission policies handle it
among 1.33's default plugins, then the REST's `Connect`) and `get.go` `GetResourceWithOptions` for `pods/log` (a
`GetterWithOptions`: no admission), over `pkg/registry/core/pod/rest/{log,subresources}.go`,
`pkg/registry/core/node/rest/proxy.go` and `pkg/registry/core/service/storage/proxy.go`; where each would lead is
registry/podconnect.py's. Errors are answered before any upgrade, as upstream's handler does: a WebSocket or SPDY
client sees the Status (kubectl: `Error from server (BadRequest): pod <name> does not have a host assigned`).
1.33 has no `AuthorizePodWebsocketUpgradeCreatePermission` (added in 1.35): a WebSocket GET needs only `get`.
The location is then dialled as upstream's handlers do (http/proxying.py): `pods/proxy`, `services/proxy` and
`nodes/proxy` through the wrapped transport (`newThrottledUpgradeAwareProxyHandler(..., wrapTransport=true,
upgradeRequired=false)`), exec, attach and portforward only as upgrades (`wrapTransport=false, upgradeRequired=true`;
exec and attach over WebSocket v5 through the stream translator, http/streamtranslate.py), `pods/log` through
`LocationStreamer`; portforward over WebSocket through the stream tunnel (streamtranslate.py: the SPDY request it
stands for goes through the same upgrade-aware handler, so a failed dial is the same 500 either way).
"""
from __future__ import annotations

from typing import Any

from aiohttp import web

from ..admission.webhooks import Attributes
from ..registry import podconnect as C
from .authz import REQUESTER
from .context import ServerContext
from .handlers import check_path_segment
from .proxying import serve, stream_log
from .router import Route
from .streamtranslate import translate, tunnel, wants_translation, wants_tunnel
from .webhookcalls import webhook_admission

_OPTIONS_KIND = {("pods", "exec"): "PodExecOptions", ("pods", "attach"): "PodAttachOptions",
                 ("pods", "portforward"): "PodPortForwardOptions", ("pods", "proxy"): "PodProxyOptions",
                 ("services", "proxy"): "ServiceProxyOptions", ("nodes", "proxy"): "NodeProxyOptions"}
_STREAMS = ("stdin", "stdout", "stderr", "tty")


def connect_options(resource: str, sub: str, subpath: str, query: Any, trailing_slash: bool = False) -> dict[str, Any]:
    """The versioned options object the parameter codec decodes from the query (and, for the proxies,
    `getRequestOptions`' path: the parts after `proxy` with a leading slash, and the request's trailing one)."""
    kind = _OPTIONS_KIND[resource, sub]
    opts: dict[str, Any] = {"kind": kind, "apiVersion": "v1"}
    if sub in ("exec", "attach"):
        for key in _STREAMS:
            if C.query_bool(query, key):
                opts[key] = True
        container = C.query_value(query, "container")
        if container:
            opts["container"] = container
        if sub == "exec":
            command = query.getall("command", [])
            if command:
                opts["command"] = list(command)
    elif sub == "portforward":
        ports = [C.parse_int64(p) for p in query.getall("ports", [])]
        if ports:
            opts["ports"] = ports
    else:
        path = subpath if not subpath or subpath.startswith("/") else "/" + subpath
        if trailing_slash and not path.endswith("/"):
            path += "/"
        if path:
            opts["path"] = path
    return opts


async def _admit_connect(ctx: ServerContext, request: web.Request, route: Route, sub: str,
                         opts: dict[str, Any]) -> dict[str, Any]:
    """`admission.Connect` on the options object (mutating, then validating: webhooks and policies); the options
    as the mutating webhooks left them, which the REST's Connect reads."""
    hooks = webhook_admission(ctx.registry, ctx.authorizer)
    if not hooks.active():
        return opts
    a = Attributes("CONNECT", "", "v1", route.resource, sub, route.namespace, route.name, opts["kind"])
    user, warnings = request.get(REQUESTER), []  # type: ignore[var-annotated]
    opts = await hooks.mutate(a, dict(opts), None, user, False, {}, warnings) or opts
    await hooks.validate(a, opts, None, user, False, {}, warnings)
    return opts


async def handle_connect(ctx: ServerContext, request: web.Request, route: Route) -> web.StreamResponse:
    """One connect request: its options, admission (not for `pods/log`), where it leads, then the dial."""
    if route.namespace:
        check_path_segment(route.namespace, "Namespace")
    check_path_segment(route.name, "Name")
    sub, _, subpath = route.sub.partition("/")
    registry, query = ctx.registry, request.query
    if sub == "log":
        log_opts = C.log_options(query, route.name)
        loc = C.pod_log(registry, route.namespace, route.name, log_opts)
        if loc is None:
            return web.Response(status=204)  # StreamObject: no stream
        return await stream_log(request, loc, route.name)
    opts = await _admit_connect(ctx, request, route, sub, connect_options(
        route.resource, sub, subpath, query, request.path.endswith("/")))
    if route.resource == "pods" and sub in ("exec", "attach", "portforward"):
        loc = C.stream_location(registry, route.namespace, route.name, sub, opts)
        if sub != "portforward" and wants_translation(request.headers):  # a WebSocket v5 client (kubectl's)
            return await translate(request, loc, opts)
        if sub == "portforward" and wants_tunnel(request.headers):  # SPDY tunnelled in WebSocket (kubectl's)
            return await tunnel(request, loc)
        return await serve(request, loc, wrap=False, upgrade_required=True)
    if route.resource == "pods":
        loc = C.pod_proxy(registry, route.namespace, route.name)
    elif route.resource == "services":
        loc = C.service_proxy(registry, route.namespace, route.name)
    else:
        loc = C.node_proxy(registry, route.name)
    return await serve(request, loc.with_path(str(opts.get("path") or "")), wrap=True, upgrade_required=False)


__all__ = ["connect_options", "handle_connect"]
