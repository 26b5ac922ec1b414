"""POST `/api/v1/namespaces/<ns>/pods/<name>/eviction`: the handler half of `EvictionREST`
(`pkg/registry/core/pod/storage/eviction.go`; registry/eviction.py does the work).

As upstream's create handler for that subresource: the body is a `policy/v1` or `policy/v1beta1` Eviction
(`AcceptsGroupVersion`; another apiVersion is a 400), in JSON, YAML or protobuf (`policy.Eviction`); `dryRun`
is honoured; NamespaceLifecycle answers for the namespace, then the admission webhooks and policies see a
`pods/eviction` CREATE of the Eviction; the eviction runs in the server's one writer (`offload`).
"""
from __future__ import annotations

from typing import Any, Awaitable, Callable

from aiohttp import web

from .. import apierrors as E
from ..admission.lifecycle import NamespaceLifecycle
from ..admission.webhooks import Attributes
from ..registry import ResourceInfo
from ..registry.eviction import evict_pod
from . import params as P
from .context import ServerContext
from . import hooks
from .decode import PROTOBUF_TYPE, check_go_types, decode_body, media_type, parse_raw, summarize
from .handlers import check_path_segment, read_body
from .respond import object_response
from .router import Route
from .webhookcalls import on_subresource_create

GROUP_VERSION = "policy/v1"
ACCEPTED_VERSIONS = ("policy/v1", "policy/v1beta1")


def decode_eviction(content_type: str | None, raw: bytes) -> dict[str, Any]:
    """The request body as a `policy/v1` Eviction (a missing apiVersion/kind is the route's)."""
    obj = _parse(content_type, raw)
    if not isinstance(obj, dict):
        decode_body(content_type, raw, "Eviction")  # raises the decoder's own error for a non-object
        raise E.bad_request("the body of the request must be an object")
    version, kind = obj.get("apiVersion"), obj.get("kind")
    if version and version not in ACCEPTED_VERSIONS:
        raise E.bad_request(f"the API version in the data ({version}) does not match the expected API version "
                            f"({GROUP_VERSION})")
    if kind and kind != "Eviction":
        raise E.bad_request(f'{kind} in version "{version or GROUP_VERSION}" cannot be handled as a Eviction: '
                            f"converting ({kind}) to (Eviction): unknown conversion")
    err = check_go_types(obj, "Eviction")
    if err:
        raise E.bad_request(f'Eviction in version "v1" cannot be handled as a Eviction: {err}')
    if obj.get("metadata") is None:
        obj["metadata"] = {}
    if obj.get("deleteOptions") is not None and not isinstance(obj["deleteOptions"], dict):
        raise E.bad_request('Eviction in version "v1" cannot be handled as a Eviction: json: cannot unmarshal '
                            "into Go struct field Eviction.deleteOptions of type v1.DeleteOptions")
    obj["apiVersion"], obj["kind"] = GROUP_VERSION, "Eviction"
    return obj


def _parse(content_type: str | None, raw: bytes) -> Any:
    """JSON/YAML by the core reader; protobuf (what typed clients send) by the wire tables' `policy.Eviction`."""
    decode = hooks.wire_attr("protobuf", "decode_group")
    if media_type(content_type) != PROTOBUF_TYPE or decode is None:
        return parse_raw(content_type, raw, "Eviction")
    try:
        return decode(raw, GROUP_VERSION, frozenset({"Eviction"}))
    except ValueError as exc:
        raise E.bad_request(f"the object provided is unrecognized (must be of type Eviction): {exc} "
                            f"({summarize(raw)})") from None


async def handle_eviction(ctx: ServerContext, request: web.Request, route: Route,
                          offload: Callable[..., Awaitable[Any]]) -> web.StreamResponse:
    check_path_segment(route.namespace, "Namespace")
    check_path_segment(route.name, "Name")
    query_dry_run = request.query.getall("dryRun", [])
    dry = P.dry_run(query_dry_run)
    body = decode_eviction(request.headers.get("Content-Type"), await read_body(request))
    meta = body["metadata"] if isinstance(body["metadata"], dict) else {}
    ns = meta.get("namespace")
    if ns and ns != route.namespace:
        raise E.bad_request("the namespace of the provided object does not match the namespace sent on the request")
    info = ResourceInfo("Eviction", "pods", "eviction")
    NamespaceLifecycle(ctx.registry, ctx.deviations).for_create(info)(  # type: ignore[misc]
        {"metadata": {"name": route.name, "namespace": route.namespace}})
    body = await on_subresource_create(ctx.registry, request, Attributes(  # the webhooks see the Eviction
        "CREATE", "", "v1", "pods", "eviction", route.namespace, route.name, "Eviction", ("policy", "v1")), body, dry)
    status = await offload(evict_pod, ctx.registry, route.namespace, route.name, body,
                           ["All"] if dry else [])
    return object_response(status, 201, request.headers.get("Accept"))
