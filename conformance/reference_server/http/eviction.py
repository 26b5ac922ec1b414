"""POST `/api/v1/namespaces/<ns>/pods/<name>/eviction`: the handler half of `EvictionREST`
(`pkg/registry/core/pod/storage/eviction.go`; registry/eviction.py does the work).

As upstream's create handler for that subresource: the body is a `policy/v1` or `policy/v1beta1` Eviction
(`AcceptsGroupVersion`; another kind or version is upstream's decoding 400), in JSON, YAML or protobuf (`policy.Eviction`); `dryRun`
is honoured; NamespaceLifecycle answers for the namespace, then the admission webhooks and policies see a
`pods/eviction` CREATE of the Eviction; the eviction runs in the server's one writer (`offload`), its budget
status write passing them too, as kube-apiserver's loopback client (`system:apiserver`).
"""
from __future__ import annotations

from typing import Any, Awaitable, Callable

from aiohttp import web

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER, ControllerWrites, admitted
from ..admission.lifecycle import NamespaceLifecycle
from ..admission.webhooks import Attributes
from ..registry import ResourceInfo
from ..registry.meta import now
from ..registry.eviction import evict_pod
from . import params as P
from .context import ServerContext
from . import hooks
from ..wire import gometa, gotypes, legacyscheme
from ..wire.dupkeys import Repeats
from .decode import PROTOBUF_TYPE, YAML_TYPE, cannot_be_handled, decode_body, media_type, parse_raw, summarize
from .handlers import check_path_segment, read_body
from .respond import object_response
from .router import Route
from .subbody import EVICTION_FIELDS, validate_fields, warned
from .webhookcalls import on_subresource_create, webhook_admission

GROUP_VERSION = "policy/v1"
ACCEPTED_VERSIONS = ("policy/v1", "policy/v1beta1")


def decode_eviction(content_type: str | None, raw: bytes, mode: str = "Warn") -> dict[str, Any]:
    """The request body as a `policy/v1` Eviction (a missing apiVersion/kind is the route's). As upstream's decoder
    into `policy.Eviction` (http/decode.py `refuse_unhandled`'s reading, wire/legacyscheme.py): a version or kind
    the scheme does not register is `Scheme.New`'s error, another kind has no conversion, both named with the kind
    read; a version the subresource does not accept (`EvictionREST.AcceptsGroupVersion`: policy/v1 and v1beta1)
    does not match; a field of the wrong JSON type is Go's decoding error; then the strict decoder's unknown and
    repeated fields under `mode` (`fieldValidation`: http/subbody.py)."""
    repeats: list[Repeats] = []
    obj = _parse(content_type, raw, repeats)
    if obj is None:  # `null`, an empty YAML body: the zero Eviction (encoding/json leaves it as it was)
        obj = {}
    if not isinstance(obj, dict) or not all(isinstance(obj.get(k) or "", str) for k in ("apiVersion", "kind")):
        decode_body(content_type, raw, "Eviction")  # raises the core decoder's error for these
        raise E.bad_request("the body of the request must be an object")
    api_version, kind, _ = gometa.interpret(obj, gometa.members(obj, sorted_keys=media_type(content_type) == YAML_TYPE))
    found = legacyscheme.read(api_version, kind, ("policy", legacyscheme.INTERNAL, "Eviction"), "v1")
    if found.error is not None:
        why = found.error + (f" in '{raw.decode('utf-8', 'replace')}'" if found.missing_version else "")
        raise cannot_be_handled(found.kind, found.version, "Eviction", why)
    version = legacyscheme.group_version(found.group, found.version)
    if version not in ACCEPTED_VERSIONS:
        raise E.bad_request(f"the API version in the data ({version}) does not match the expected API version "
                            f"({GROUP_VERSION})")
    err = gotypes.type_error(obj, "policy.Eviction") or gotypes.object_meta_error(obj, "Eviction")
    if err:
        raise cannot_be_handled("Eviction", found.version, "Eviction", err)
    validate_fields(obj, "Eviction", found.version, "policy.Eviction", mode, repeats, EVICTION_FIELDS)
    if obj.get("metadata") is None:
        obj["metadata"] = {}
    obj["apiVersion"], obj["kind"] = GROUP_VERSION, "Eviction"
    return obj


def _parse(content_type: str | None, raw: bytes, repeats: list[Repeats]) -> Any:
    """JSON/YAML by the core reader; protobuf (what typed clients send) by the wire tables' `policy.Eviction`."""
    decode = hooks.wire_attr("protobuf", "decode_group")
    if media_type(content_type) != PROTOBUF_TYPE or decode is None:
        return parse_raw(content_type, raw, "Eviction", repeats)
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
    mode = P.field_validation(request.query)
    body = decode_eviction(request.headers.get("Content-Type"), await read_body(request), mode)
    meta = body["metadata"] if isinstance(body["metadata"], dict) else {}
    ns = meta.get("namespace")
    if ns and ns != route.namespace:
        raise E.bad_request("the namespace of the provided object does not match the namespace sent on the request")
    info = ResourceInfo("Eviction", "pods", "eviction")
    NamespaceLifecycle(ctx.registry, ctx.deviations).for_create(info)(  # type: ignore[misc]
        {"metadata": {"name": route.name, "namespace": route.namespace}})
    body = await on_subresource_create(ctx.registry, request, Attributes(  # the webhooks see the Eviction
        "CREATE", "", "v1", "pods", "eviction", route.namespace, route.name, "Eviction", ("policy", "v1")), body, dry,
        ctx.authorizer)
    hooks = webhook_admission(ctx.registry, ctx.authorizer)  # the budget's status: the loopback client's, reviewed
    writes = ControllerWrites(hooks, "", offload, APISERVER_USER) if hooks.active() else None
    status = await admitted(offload, evict_pod, ctx.registry, route.namespace, route.name, body,
                            ["All"] if dry else [], writes, now())
    return object_response(status, 201, request.headers.get("Accept"), warned())
