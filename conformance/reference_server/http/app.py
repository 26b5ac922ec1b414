"""The request handler: auth and error middlewares around one dispatcher (no framework routing, so every
404/405 is upstream's), run by aiohttp's low-level server."""
from __future__ import annotations

import asyncio
import functools
import hmac
import logging
from typing import Any, Awaitable, Callable

from aiohttp import HttpVersion11, web
from aiohttp.helpers import reify
from multidict import MultiDictProxy, istr

from .. import apierrors as E
from . import aggregated, apiservice_groups, priority_fairness
from . import params as P
from .chain_headers import add_chain_headers, order_as_go
from .context import ServerContext
from .deadlines import Deadlines, long_running_path, maybe_long_running, requested_timeout
from .discovery import VERSION_INFO, api_resource_list, api_versions, openapi_response
from .groups import api_group_document, api_group_list, api_resource_list as group_resource_list, served_groups
from .groups import group_versions
from .authz import REQUESTER
from .gopath import go_path
from .goquery import request_query
from .handlers import Handlers, add_deprecation_warning
from .peercert import certificate_user
from .pretty import pretty_hook
from .respond import error_response, object_response, panic_answer, panic_dropped, plain_not_found, raw_json_response
from .authentication import GROUP as AUTHN_GROUP, handle_authentication_review, handle_token_request, openid_metadata
from .reviews import handle_review
from ..health import HealthChecks, answer as health_answer, root_paths
from ..health.index import index_answer
from ..metrics import ServerMetrics
from ..storage import BackendError
from ..warning import RECORDER, recorded, warning_headers

log = logging.getLogger("nsconform.reference_server.http")
Handler = Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]
Middleware = Callable[..., Awaitable[web.StreamResponse]]
PUBLIC_PATHS = ("/healthz", "/livez", "/readyz")


class App:
    """The request handler an aiohttp low-level `web.Server` runs (http/connection.py), built once: the
    middlewares composed around `dispatch` here, not per request by aiohttp's `Application` (which would also
    resolve a route and send two signals per request for a server that routes itself: about a tenth of a GET's
    time). `make_request` makes requests whose responses get `on_prepare`'s headers when they start."""

    def __init__(self, handle: Handler, on_prepare: tuple[Callable[[web.BaseRequest, web.StreamResponse], None], ...],
                 client_max_size: int, cleanup: tuple[Callable[[], Awaitable[None]], ...]):
        self.handle = handle
        self._cleanup = cleanup
        self._client_max_size = client_max_size

        class ApiRequest(web.BaseRequest):
            async def _prepare_hook(self, response: web.StreamResponse) -> None:  # aiohttp's hook, before headers go
                for hook in on_prepare:
                    hook(self, response)
                order_as_go(self, response)  # then in Go's order (fastwrite.py orders its own)

            def run_prepare_hooks(self, response: web.StreamResponse) -> None:
                """The same hooks, for an answer http/fastwrite.py writes without aiohttp's `prepare`."""
                for hook in on_prepare:
                    hook(self, response)

            @reify
            def path(self) -> str:  # type: ignore[override]
                """`req.URL.Path` (gopath.py): yarl's decoding, but Go's where a target holds a byte >= 0x80
                (escaped or raw), which yarl leaves escaped. A plain ASCII target without `%` costs one check."""
                target = self._message.path
                if target.isascii() and "%" not in target:
                    return self._rel_url.path
                return go_path(target) or self._rel_url.path

            @reify
            def query(self) -> MultiDictProxy[str]:  # type: ignore[override]
                """`req.URL.Query()` of the request line's bytes (goquery.py), not yarl's reading of them."""
                return request_query(self._message.path)

            def get(self, key: Any, default: Any = None) -> Any:
                """The request's state by key (the mapping aiohttp keeps it in): `MutableMapping.get` would
                raise and catch a KeyError for every key not set, a microsecond each."""
                return self._state.get(key, default)

            def __setitem__(self, key: Any, value: Any) -> None:
                """Straight into the state mapping: our keys are `web.RequestKey`s or dotted strings, so aiohttp's
                per-write check for a plain string key (a warning) has nothing to say."""
                self._state[key] = value

        self._request_class = ApiRequest

    def make_request(self, message: Any, payload: Any, protocol: Any, writer: Any, task: Any) -> web.BaseRequest:
        """`web.Server`'s request factory."""
        return self._request_class(message, payload, protocol, writer, task, task.get_loop(),
                                   client_max_size=self._client_max_size)

    async def cleanup(self) -> None:
        for fn in self._cleanup:
            await fn()


def compose(middlewares: list[Middleware], handler: Handler) -> Handler:
    """`middlewares` (aiohttp's `(request, handler)` shape, outermost first) around `handler`, bound once."""
    for m in reversed(middlewares):
        handler = functools.partial(m, handler=handler)
    return handler


def build_app(ctx: ServerContext) -> App:
    """The request handler: the middlewares of `ctx`'s authorizer around `dispatch` (all paths)."""
    apf = priority_fairness.PriorityAndFairness(ctx)  # seats, queues, 429s, X-Kubernetes-PF-* headers
    metrics = apf.metrics = ctx.metrics = ServerMetrics(ctx.registry, apf.flow_control, apf.request_info)
    handlers = Handlers(ctx)
    health_checks = HealthChecks(ctx.health)

    observe = metrics.requests.observe  # apiserver_request_total & co. (metrics/apiserver.py)

    handle = handlers.handle

    def dispatch(request: web.Request) -> Awaitable[web.StreamResponse]:
        """The route's answer, to be awaited (a plain function, as `Handlers.handle`: one coroutine less a
        request)."""
        route = ctx.router.resolve(request.method, request.path)
        noted = metrics.note(request, route)  # what apiserver_request_total will count the answer under
        if route.target in _SERVED_BY_APP:
            serving = serve(request, route)
        else:  # a resource's route, straight to its handler (no coroutine of serve's, no target comparisons)
            try:
                serving = handle(request, route)
            except Exception as exc:  # raised before its coroutine: raised where the route's answer is awaited
                serving = _raising(exc)
        if noted is None:
            return serving
        return observe(noted, request, serving)

    async def serve(request: web.Request, route: Any) -> web.StreamResponse:
        """The handler of a route whose target is in `_SERVED_BY_APP` (keep the two in step)."""
        t = route.target
        if t == "plain-404":
            return plain_not_found()
        if t == "unavailable":  # an unreachable aggregated API (http/extensions.py)
            from .extensions import service_unavailable
            return service_unavailable()
        if t == "health":
            return await _health(request, health_checks, metrics)
        if t == "index":  # routes/index.go
            status, headers, body = index_answer(root_paths(_group_versions(ctx), health_checks.paths(),
                                                            ctx.token_issuer is not None and
                                                            ctx.token_issuer.serves_discovery))
            return web.Response(status=status, headers=headers, body=body)
        if t == "metrics":
            await metrics.refresh(request.method, request.path)
            status, headers, body = metrics.answer(request.method, request.path,
                                                   request.headers.get("Accept-Encoding", ""))
            return web.Response(status=status, headers=headers, body=body)
        if t == "version":
            if ctx.deviations.active("version-numeric-fields"):
                return raw_json_response({**VERSION_INFO, "major": 1, "minor": 33})
            return raw_json_response(VERSION_INFO)  # version.go: WriteRawJSON
        if t == "openid":
            return await openid_metadata(ctx, request, route.name)
        if t in ("api", "apis"):  # upstream's WrappedHandler: aggregated (v2) or legacy by Accept
            accept = request.headers.get("Accept")
            media = aggregated.select(accept)
            if media is not None:
                return aggregated.response(lambda: _root_resource_lists(ctx, t), media,
                                           request.headers.get("If-None-Match"))
            legacy = api_versions(request.host) if t == "api" else api_group_list(ctx.registry)
            return object_response(legacy, accept=accept)
        if t == "api-v1":
            return object_response(api_resource_list(ctx.registry, _finalize_verbs(ctx)))
        if t in ("group", "group-version"):
            return object_response(api_group_document(ctx.registry, route.group) if t == "group"
                                   else group_resource_list(ctx.registry, route.group, route.version))
        if t == "openapi":
            return openapi_response(ctx.registry, route.name, request.headers.get("Accept"),
                                    _openapi_extension(ctx), headers=request.headers, query=request.query,
                                    method=request.method)
        if t == "review" and route.group == AUTHN_GROUP:
            return await handle_authentication_review(ctx, request, route)
        if t == "review":
            return await handle_review(ctx, request, route)
        if t == "sa-token":
            return await handle_token_request(ctx, request, route)
        if t == "pod-binding":
            from .binding import handle_binding
            return await handle_binding(ctx, request, route, handlers.offload)
        if t == "connect":  # pods/log, exec, attach, portforward, proxy; services/proxy, nodes/proxy
            from .connect import handle_connect
            return await handle_connect(ctx, request, route)
        if t == "pod-eviction":
            from .eviction import handle_eviction
            return await handle_eviction(ctx, request, route, handlers.offload)
        return await handlers.handle(request, route)

    async def fresh_close() -> None:  # its etcd connection, on the loop
        await handlers.fresh.aclose()

    inner = compose(list(ctx.middlewares), dispatch)  # a flavour's middlewares, innermost
    if ctx.authorizer is not None:  # --authorization rbac: authn → impersonation → APF → RBAC (http/authz.py)
        from .authz import authn_middleware, authz_middleware
        outer = [_errors(ctx), authn_middleware(ctx), apf.middleware, authz_middleware(ctx)]
        if "NamespaceInitializers" in ctx.feature_gates:  # KEP-33's guard needs the requester and RBAC
            from ..extensions.initializers import guard_middleware
            outer.append(guard_middleware(ctx))
    else:  # AlwaysAllow + token: the token check runs inside the errors middleware (one middleware, not two), and
        # so does APF's seat when its level seats the request at once (no coroutine of APF's own for it)
        outer = [_errors(ctx, check_token=True, seated=(apf, inner)), apf.middleware]
    return App(compose(outer, inner),
               # the chain's Audit-Id/Cache-Control, deprecated kinds' warning (core/v1 Endpoints), APF's UIDs,
               # JSON pretty-printed for `?pretty=true` and curl (http/pretty.py)
               on_prepare=(add_chain_headers, add_deprecation_warning, apf.set_headers, pretty_hook),
               client_max_size=1024 ** 3, cleanup=(fresh_close, apf.close))


async def _expect(request: web.BaseRequest) -> None:
    """An `Expect` header, as aiohttp's `Application` answered it before any middleware: `100 Continue` for
    HTTP/1.1's `100-continue`, 417 for any other expectation."""
    value = request.headers.get("Expect")
    if value and request.version == HttpVersion11:
        if value.lower() != "100-continue":
            raise web.HTTPExpectationFailed(text=f"Unknown Expect: {value}")
        await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        request.writer.output_size = 0  # the answer has not started: handle_error may still write one


def _openapi_extension(ctx: ServerContext) -> Any:
    if "NamespaceInitializers" in ctx.feature_gates:
        from ..extensions.initializers import extend_openapi
        return extend_openapi
    return None


def _finalize_verbs(ctx: ServerContext) -> list[str]:
    """The discovery verbs of `namespaces/finalize`, from the methods its route accepts."""
    return ["update" if m == "PUT" else "create" if m == "POST" else "patch" for m in ctx.router.finalize_methods()]


def _root_resource_lists(ctx: ServerContext, target: str) -> list[dict[str, Any]]:
    """The legacy APIResourceLists behind the aggregated `/api` (core v1) or `/apis` (each named group, in
    `/apis` order): the very documents `/api/v1` and `/apis/<group>/<version>` serve."""
    if target == "api":
        return [api_resource_list(ctx.registry, _finalize_verbs(ctx))]
    return [group_resource_list(ctx.registry, group, version) for group, _ in served_groups(ctx.registry)
            for version in group_versions(ctx.registry, group)]  # every version, preferred first


async def _health(request: web.BaseRequest, checks: HealthChecks, metrics: ServerMetrics) -> web.Response:
    """`/healthz`, `/livez`, `/readyz` and their checks (health/handler.py); a path no check has: 404."""
    query = request.query
    got = await health_answer(checks, request.path, {"exclude": query.getall("exclude", []),
                                                     **({"verbose": query.getall("verbose")} if "verbose" in query
                                                        else {})})
    if got is None:
        return plain_not_found()
    if got.endpoint:
        metrics.slis.observe(got.endpoint, got.results)
    return web.Response(status=got.status, body=got.body.encode(), headers=dict(got.headers))


def _group_versions(ctx: ServerContext) -> list[tuple[str, list[str]]]:
    """Every served named group with its versions, and every APIService's (the index's
    `/apis/<group>[/<version>]`: the delegates' listed paths and the aggregator's)."""
    return [(group, group_versions(ctx.registry, group)) for group, _ in served_groups(ctx.registry)] + \
        apiservice_groups.listed_group_versions(ctx.registry)


def _check_token(ctx: ServerContext, request: web.Request) -> None:
    """AlwaysAllow + single token: 401 unless the bearer token matches (public paths exempt). A client
    certificate that verifies (`--client-ca-file`) authenticates before it, one that does not is a 401 unless the
    token authenticates, public paths included (the x509 authenticator's error, http/peercert.py)."""
    user, failed = certificate_user(ctx, request)
    if user is not None:
        request[REQUESTER] = user
        return
    if ((ctx.token is not None or not ctx.anonymous) and request.path not in PUBLIC_PATHS) or failed:
        header = request.headers.get("Authorization", "")
        token = header[7:].strip() if header.startswith("Bearer ") else ""
        if not (token and ((ctx.token is not None and hmac.compare_digest(token, ctx.token)) or (
                ctx.token_issuer is not None and ctx.token_issuer.authenticate(token) is not None))):
            raise E.unauthorized()


_EXPECT = istr("Expect")  # (a case-insensitive key made once: a plain str is folded at every look-up)
_WARNED = frozenset({"POST", "PUT", "PATCH"})  # the writes whose lower layers may add warnings (ratcheted CRD
# rules; a created pod's AppArmor annotations)

# the route targets `build_app`'s `serve` answers itself; every other target is a resource's (http/handlers.py)
_SERVED_BY_APP = frozenset({"plain-404", "unavailable", "health", "index", "metrics", "version", "openid", "api",
                            "apis", "api-v1", "group", "group-version", "openapi", "review", "sa-token", "pod-binding",
                            "connect", "pod-eviction"})


async def _raising(exc: Exception) -> Any:
    """`exc`, raised when awaited."""
    raise exc


def _errors(ctx: ServerContext, check_token: bool = False, seated: Any = None):
    """The outermost filter: an `Expect` header answered first; then every failure becomes a Status, a true
    bug logged and answered 500 without a traceback, and a request that is not long-running cut off at
    `--request-timeout` or its shorter `?timeout=` (`WithRequestDeadline`, `WithTimeoutForNonLongRunningRequests`,
    http/deadlines.py; a `?timeout=` Go cannot parse is a 400, before authentication), and, for an update, the
    request's warning recorder (warning.py; its warnings on an error answer here, on a success by the handler's
    `_respond`). With `check_token`, the
    token check (`_check_token`) runs first inside it, as the inner auth middleware did. With `seated` (APF's
    filter, the handler inside it), a request APF seats at once (`seat_at_once`) goes straight to that handler,
    its seat released when it ends; any other takes APF's middleware (`handler`). (One coroutine for these: each
    layer of a request costs about a microsecond.)"""
    deadlines = Deadlines(ctx.request_timeout) if ctx.request_timeout > 0 else None
    seat_at_once, release, inner = (seated[0].seat_at_once, seated[0].release, seated[1]) if seated else (None,) * 3

    @web.middleware
    async def errors(request: web.Request, handler):
        if _EXPECT in request.headers:
            await _expect(request)
        ctx.request_count += 1  # the outermost middleware: every request, whatever its outcome
        deadline = None
        recording = RECORDER.set([]) if request.method in _WARNED else None  # WithWarningRecorder (warning.py)
        try:
            # WithRequestDeadline, for what is not long-running (a watch: `?watch=` or a `/watch/` path; the
            # connect subresources, as upstream's `longRunningRequestCheck`); a bad ?timeout= is a 400
            raw = request.raw_path
            if deadlines is not None and (maybe_long_running(raw) is None or (
                    "/watch/" not in request.path
                    and not (request.query_string and P.truthy(request.query.get("watch")))
                    and not long_running_path(request.path))):
                asked = requested_timeout(request) if "timeout=" in raw else None
                deadline = deadlines.arm(request, asked)
            if check_token and (ctx.token is not None or ctx.client_certs is not None
                                or ctx.request_header is not None):
                _check_token(ctx, request)
            if seat_at_once is not None and (seat := seat_at_once(request)) is not None:
                try:
                    return await inner(request)
                finally:
                    release(seat)
            return await handler(request)
        except asyncio.CancelledError:
            if deadline is not None and deadlines.timed_out(deadline):  # type: ignore[union-attr]
                # a slow body or handler ends in a 504; the rest of the body is not waited for
                resp = error_response(E.timeout("request did not complete within requested timeout - context "
                                                "deadline exceeded"), ctx.deviations, request.headers.get("Accept"))
                resp.force_close()
                return resp
            raise
        except E.StatusError as err:
            resp = error_response(err, ctx.deviations, request.headers.get("Accept"))
            for name, value in warning_headers(recorded()):  # with an error too (a 422 beside a ratcheted rule)
                resp.headers.add(name, value)
            return resp
        except web.HTTPRequestEntityTooLarge:
            return error_response(E.request_entity_too_large("limit is 3145728"), ctx.deviations,
                                  request.headers.get("Accept"))
        except web.HTTPException as exc:
            if exc.status == 404:
                return plain_not_found()
            return error_response(E.StatusError(E.status_dict(exc.status, None, exc.reason)), ctx.deviations,
                                  request.headers.get("Accept"))
        except (ConnectionResetError, ConnectionError):
            raise
        except E.GoPanic as exc:  # kube-apiserver panics there too: no answer (respond.panic_dropped), no traceback
            log.info("apiserver would panic serving %s %s: %s", request.method, request.path, exc)
            return panic_dropped()
        except BackendError as err:  # etcd failed: the client's error, through ErrorToAPIStatus's fallback
            log.warning("storage failed serving %s %s: %s", request.method, request.path, err)
            return error_response(E.StatusError(E.status_dict(500, None, str(err))), ctx.deviations,
                                  request.headers.get("Accept"))
        except Exception:  # a bug in the server: upstream's panic answer, no Python name in it
            log.exception("apiserver panic'd serving %s %s", request.method, request.path)
            return panic_answer()
        finally:
            if deadline is not None:
                deadlines.disarm(deadline)  # type: ignore[union-attr]
            if recording is not None:
                RECORDER.reset(recording)
    return errors
