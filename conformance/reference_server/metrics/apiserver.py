"""kube-apiserver's request metrics (`k8s.io/apiserver/pkg/endpoints/metrics/metrics.go`, v0.33.1).

Which requests are counted, as upstream: a request served by a resource route (`installer.go` wraps each in
`InstrumentRouteFunc`: 404s of a missing object, 409s, 422s included), the health roots `/healthz`, `/livez`,
`/readyz` (`healthz.go`: component "", subresource the path) and the aggregated discovery documents (`/api`,
`/apis`: subresource "api"/"apis"); a request APF rejects is counted with code 429 (`RecordDroppedRequest`, and
`apiserver_request_terminations_total`). Not counted, as upstream: a path no route serves (go-restful's 404/405),
requests refused by authentication or authorization (401/403, before any route), `/version`, `/openapi/*`,
legacy discovery documents and `/metrics` itself.

Labels: the route's scope (`installer.go`: `resource` for a path with a name and for every POST, `namespace` for a
namespaced collection, `cluster` otherwise), the reported verb (`cleanVerb(CanonicalVerb(method, scope), ...)`:
LIST for a collection GET, WATCH for `?watch=` or a `/watch/` path, APPLY for an apply patch, CONNECT for the
connect subresources, `other` for an unknown method) and `cleanDryRun` (`All`, or `invalid`). The duration is
measured from the route's start plus the request's wait in an APF queue (upstream: from its arrival, before
authentication; the microseconds of authentication and classification are left out here).

`apiserver_response_sizes` (`MonitorRequest`: only when the installer's verb is GET or LIST, so a `?watch` too,
reported as WATCH, but not a `/watch/` path): the body as handed to the HTTP layer (a watch's: the bytes of its
events, without HTTP's chunk framing, as upstream's `ResponseWriterDelegator` counts them); an error raised as a
Status, answered by the outer filters, is counted but not sized. `apiserver_request_sli_duration_seconds` is
latency.py's, derived from the duration; a request that waited in an APF queue or called a webhook is noted to
it (`deduct`).

Cost on the request path: the label tuple is cached per (method, path, query); recording is a counter's dict
update, a histogram's bisect and, for a read, the body's length appended to a list (bucketed in bulk when
/metrics is read, or every 4096). About 140 ns more per request than without the sizes and the SLI (a
micro-benchmark of `_done`: 335 → 471 ns). `apiserver_longrunning_requests` counts the watches being served.
"""
from __future__ import annotations

from bisect import bisect_left
from time import perf_counter
from typing import Any, Awaitable, Callable

from aiohttp import web

from ..admission.chain import TRACE, Trace
from ..admission.webhooks.latency import SPENT, take as webhook_seconds
from ..apierrors import StatusError
from .latency import SliDuration
from .registry import STABLE, CodeCounterVec, CounterVec, GaugeVec, HistogramVec, LazyHistogramVec
from .watch import STREAM_BYTES
from ..memo import remember

COMPONENT = "apiserver"
REQUEST_LABELS = ("verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component")
DURATION_BUCKETS = (0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30,
                    45, 60)
RESPONSE_SIZE_BUCKETS = tuple(1000.0 * 10 ** i for i in range(7))  # ExponentialBuckets(1000, 10.0, 7): 1 KB .. 1 GB
VALID_VERBS = frozenset({"APPLY", "CONNECT", "CREATE", "DELETE", "DELETECOLLECTION", "GET", "LIST", "PATCH", "POST",
                         "PROXY", "PUT", "UPDATE", "WATCH", "WATCHLIST"})
CONNECT_SUBRESOURCES = frozenset({"log", "exec", "portforward", "attach", "proxy"})
APPLY_PATCH = "application/apply-patch+yaml"
HEALTH_ROOTS = frozenset({"/healthz", "/livez", "/readyz"})
DISCOVERY = {"api": "api", "apis": "apis"}
UNINSTRUMENTED = frozenset({"plain-404", "unavailable", "version", "openid", "api-v1", "group", "group-version",
                            "openapi", "metrics", "index"})
_CACHE_LIMIT = 4096
FOLD_AT = LazyHistogramVec.FOLD_AT
_webhooks = SPENT.get  # the request's webhook time cells (None: no webhook called)
_HAS_KEYS = hasattr(web, "RequestKey")
WAITED: Any = web.RequestKey("nsconform_apf_wait", float) if _HAS_KEYS else "nsconform.apf_wait"  # type: ignore


def _watch_query(query: Any) -> bool:
    """`getVerbIfWatch`: the first `watch` value, unless `0` or `false` (an empty value is a watch)."""
    values = query.getall("watch", ()) if hasattr(query, "getall") else query.get("watch", ())
    if isinstance(values, str):
        values = (values,)
    return bool(values) and values[0].lower() not in ("0", "false")


def clean_dry_run(query_string: str, query: Any) -> str:
    """`cleanDryRun`: "" without `dryRun`, else its sorted distinct values, `invalid` unless each is `All`."""
    if "dryRun" not in query_string:
        return ""
    values = list(query.getall("dryRun", ())) if hasattr(query, "getall") else list(query.get("dryRun", ()))
    if any(v != "All" for v in values):
        return "invalid"
    return ",".join(sorted(set(values)))


def reported_verb(method: str, scope: str, query: Any, content_type: str, subresource: str,
                  resource_request: bool, suggested: str = "") -> str:
    """`cleanVerb(CanonicalVerb(method, scope), suggested, req, requestInfo)`."""
    if suggested in ("WATCH", "WATCHLIST"):
        return "WATCH"
    verb = method.upper()
    if verb in ("GET", "HEAD"):
        verb = "LIST" if scope not in ("resource", "") else "GET"
    if method.upper() in ("GET", "LIST") and _watch_query(query):
        verb = "WATCH"
    if verb == "PATCH" and content_type == APPLY_PATCH:
        verb = "APPLY"
    if resource_request and subresource in CONNECT_SUBRESOURCES:
        verb = "CONNECT"
    return verb if verb in VALID_VERBS else "other"


def admission_operation(method: str, route: Any) -> str | None:
    """The admission operation of a resource request's method (DELETECOLLECTION: a collection's DELETE); a PUT or
    apply that creates is told by its 201 (admission_chain.py)."""
    if method == "POST":
        return "UPDATE" if route.target == "ns-finalize" else "CREATE"
    if method in ("PUT", "PATCH"):
        return "UPDATE"
    if method == "DELETE":
        return "DELETE" if route.name else "DELETECOLLECTION"
    return None


def clean_scope(attrs: Any) -> str:
    """`CleanScope(requestInfo)`."""
    if attrs.name or attrs.verb == "create":
        return "resource"
    if attrs.namespace:
        return "namespace"
    return "cluster" if attrs.resource_request else ""


class RequestMetrics:
    """The request families and the two hooks of the HTTP layer: `note(request, route)` once the route is known,
    then `observe(note, request, serving)` around the route's handler (it records when the answer is ready)."""

    def __init__(self, request_info: Callable[[Any], Any]):
        self.request_info = request_info  # the APF filter's cached RequestInfo of a request
        self.total = CodeCounterVec(
            "apiserver_request_total",
            "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, "
            "scope, component, and HTTP response code.", REQUEST_LABELS + ("code",), STABLE)
        self.duration = HistogramVec(
            "apiserver_request_duration_seconds",
            "Response latency distribution in seconds for each verb, dry run value, group, version, resource, "
            "subresource, scope and component.", REQUEST_LABELS, DURATION_BUCKETS, STABLE)
        self.longrunning = GaugeVec(
            "apiserver_longrunning_requests",
            "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, "
            "scope and component. Not all requests are tracked this way.",
            ("verb", "group", "version", "resource", "subresource", "scope", "component"), STABLE)
        self.terminations = CounterVec(
            "apiserver_request_terminations_total",
            "Number of requests which apiserver terminated in self-defense.",
            ("verb", "group", "version", "resource", "subresource", "scope", "component", "code"))
        self.sizes = LazyHistogramVec(
            "apiserver_response_sizes",
            "Response size distribution in bytes for each group, version, verb, resource, subresource, scope and "
            "component.", ("verb", "group", "version", "resource", "subresource", "scope", "component"),
            RESPONSE_SIZE_BUCKETS, STABLE)
        self.sli = SliDuration(self.duration)
        self.on_admission: Callable[[str, Trace, int | None], None] | None = None  # a write's admission trace
        self._labels: dict[tuple[str, ...], Any] = {}
        self._waiting = 0  # requests APF queued whose route has not ended yet

    def families(self) -> tuple[Any, ...]:
        return self.total, self.duration, self.longrunning, self.terminations, self.sizes, self.sli

    def forget(self) -> None:
        """After a reset: the cached notes hold the old cells, so they are made again."""
        self._labels.clear()

    # -- the route's labels ------------------------------------------------------------------------------

    def note(self, request: Any, route: Any) -> Any:
        """Called once the route is resolved: the note of the labels the answer will be counted under, for
        `observe` (None for a route upstream does not instrument); a watch is counted as long-running until it
        ends."""
        target = route.target
        if target in UNINSTRUMENTED:
            return None
        method = request.method
        # the raw request target (path and query, as sent) decides the decoded path and query the labels are made of
        key = (method, request.raw_path, request.headers.get("Content-Type", "") if method == "PATCH" else "")
        noted = self._labels.get(key)
        if noted is None:
            noted = self._compute(request, route)
            remember(self._labels, key, noted, _CACHE_LIMIT)
        if noted is False:
            return None
        if noted[1] is not None:
            self.longrunning.inc(noted[1])
        return noted

    def _compute(self, request: Any, route: Any) -> Any:
        """(the request/duration labels, the long-running gauge's labels or None, discovery?) or False."""
        method, query = request.method, request.query
        dry_run = clean_dry_run(request.query_string, query)
        target = route.target
        if target == "health":
            if request.path not in HEALTH_ROOTS:
                return False
            verb = reported_verb(method, "", query, "", "", False, "GET")
            return self._cells((verb, dry_run, "", "", "", request.path, "", ""), None, False, True, None)
        if target in DISCOVERY:
            verb = reported_verb(method, "", query, "", "", False, "GET")
            return self._cells((verb, dry_run, "", "", "", DISCOVERY[target], "", COMPONENT), None, True, True,
                               None)
        attrs = self.request_info(request)
        if not attrs or not attrs.resource_request:
            return False
        scope = "resource" if route.name or method == "POST" else "namespace" if route.namespace else "cluster"
        verb = reported_verb(method, scope, query, request.headers.get("Content-Type", ""), attrs.subresource, True,
                             "WATCH" if route.watch_path else "")
        labels = (verb, dry_run, attrs.api_group, attrs.api_version, attrs.resource, attrs.subresource, scope,
                  COMPONENT)
        longrunning = None
        if attrs.verb == "watch":  # `RecordLongRunning` in the watch handler: requestInfo's scope
            longrunning = ("WATCH", attrs.api_group, attrs.api_version, attrs.resource, attrs.subresource,
                           clean_scope(attrs), COMPONENT)
        # the installer's verb is GET or LIST (a `?watch` included, reported as WATCH; not a `/watch/` path)
        return self._cells(labels, longrunning, False, method in ("GET", "HEAD") and not route.watch_path,
                           None if attrs.subresource in CONNECT_SUBRESOURCES else admission_operation(method, route))

    def _cells(self, labels: tuple[str, ...], longrunning: Any, discovery: bool, sized: bool,
               admission: str | None) -> tuple[Any, ...]:
        """A note: its labels, the long-running gauge's labels, discovery?, then the counter's and the
        histogram's cells for these labels (updated in place by `_done`), the list its response's size is
        appended to (`MonitorRequest`: only when the installer's verb is GET or LIST) or None, and the
        admission operation of a write (None for a read)."""
        return (labels, longrunning, discovery, self.total.cells(labels), self.duration.cells(labels),
                self.sizes.pending(labels[:1] + labels[2:]) if sized else None, admission)

    # -- recording ----------------------------------------------------------------------------------------

    async def observe(self, noted: Any, request: Any, serving: Awaitable[Any]) -> Any:
        """`InstrumentRouteFunc`: the route's answer (`serving`, its handler's coroutine) counted under `noted`
        (`note`'s); a Status error raised for the middlewares to answer is counted with its code."""
        start = perf_counter()
        code, response = None, None  # None: cancelled (the client went away), counted nowhere
        admission = noted[6]
        if admission is not None:  # a write: its pass through admission is traced (admission/chain.py)
            trace = Trace()
            token = TRACE.set(trace)
        try:
            response = await serving
            code = response.status
            return response
        except StatusError as err:
            code = err.code
            raise
        except Exception as exc:  # aiohttp's HTTPExceptions carry their status; anything else is a 500
            code = getattr(exc, "status", 500)
            raise
        finally:
            if admission is not None:
                TRACE.reset(token)
                if self.on_admission is not None:
                    self.on_admission(admission, trace, code)
            self._done(noted, request, code, start, response)

    def waited(self, request: Any, seconds: float) -> None:
        """APF queued the request that long before its route started (flowcontrol.py's `dispatched`)."""
        request[WAITED] = seconds
        self._waiting += 1

    def _done(self, noted: Any, request: Any, code: int | None, start: float, response: Any) -> None:
        waited = 0.0
        if self._waiting:  # some request waited in an APF queue: is it this one? (else no lookup at all)
            try:
                waited = request[WAITED]
                self._waiting -= 1
            except KeyError:
                pass
        labels, longrunning, discovery, codes, cells, sizes, _ = noted
        if longrunning is not None:
            self.longrunning.inc(longrunning, -1)
            if code is None:  # a watch whose client went away: its 200 was sent when it started streaming
                code = 200
        if code is None:
            return
        if discovery and (response is None or "as=APIGroupDiscoveryList" not in
                          response.headers.get("Content-Type", "")):
            return  # a legacy discovery document: not instrumented upstream
        codes[code] = codes.get(code, 0) + 1
        routed = perf_counter() - start
        elapsed = routed + waited
        cells[bisect_left(DURATION_BUCKETS, elapsed)] += 1  # HistogramVec.observe, inlined: every request runs it
        cells[-2] += elapsed
        cells[-1] += 1
        if waited or _webhooks() is not None:  # the SLI duration leaves out APF's wait and webhooks' time
            self.sli.deduct(labels, elapsed, routed - webhook_seconds())
        if sizes is not None:  # the body's bytes (a watch's: its events', metrics/watch.py)
            if longrunning is not None:
                sizes.append(request.get(STREAM_BYTES, 0))
            elif response is not None:
                try:
                    sizes.append(len(response.body or b""))
                except (AttributeError, TypeError):  # a streamed answer (written already) or a payload object
                    sizes.append(response.body_length)
            if len(sizes) >= FOLD_AT:
                self.sizes.fold()

    def dropped(self, request: Any) -> None:
        """`RecordDroppedRequest` + `RecordRequestTermination` of APF's 429."""
        attrs = self.request_info(request)
        if not attrs:
            return
        scope = clean_scope(attrs)
        verb = reported_verb(request.method, scope, request.query, request.headers.get("Content-Type", ""),
                             attrs.subresource, attrs.resource_request)
        dry_run = clean_dry_run(request.query_string, request.query)
        if attrs.resource_request:
            where = (attrs.api_group, attrs.api_version, attrs.resource, attrs.subresource)
            codes = self.total.cells((verb, dry_run) + where + (scope, COMPONENT))
        else:  # upstream puts requestInfo.Subresource (empty) where the path would go
            where = ("", "", "", attrs.path)
            codes = self.total.cells((verb, dry_run, "", "", "", "", scope, COMPONENT))
        codes[429] = codes.get(429, 0) + 1
        self.terminations.inc((verb,) + where + (scope, COMPONENT, "429"))


__all__ = ["COMPONENT", "DURATION_BUCKETS", "RequestMetrics", "clean_dry_run", "clean_scope", "reported_verb"]
