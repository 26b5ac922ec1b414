"""The `X-Kubernetes-PF-FlowSchema-UID` and `X-Kubernetes-PF-PriorityLevel-UID` headers of API Priority and
Fairness (`staging/src/k8s.io/apiserver/pkg/server/filters/priority-and-fairness.go`, `setResponseHeaders`), on every
answer a classified request gets: successes, errors (404, 403, 422, ...), watches and exempt requests alike.

Where upstream's filter sits (`DefaultBuildHandlerChain`): after authentication and impersonation, before
authorization and routing. So a request refused by authentication (401) or impersonation gets no headers, and
neither does a long-running request that is not a watch (`BasicLongRunningRequestCheck`: the `proxy` verb, the
`attach`, `exec`, `log`, `portforward` and `proxy` subresources, `/debug/pprof/`), which the filter passes through
unclassified. Read at k8s.io/apiserver v0.33.1 (`pkg/server/filters`, `pkg/util/flowcontrol/rule.go`).

Classification (`apf_controller.go` `startRequest`, `rule.go`): the FlowSchemas in order of matchingPrecedence then
name, those whose priority level does not exist skipped (a missing `exempt` or `catch-all` schema is supplied
from the bootstrap objects, without a UID); the first whose rules match the user (User, Group or
ServiceAccount subjects, `*` wildcards), and the verb and resource (group, `resource/subresource`, namespace or
cluster scope) or the non-resource path (exact, `*`, or a `/*` prefix), is chosen; none: the catch-all schema.

Enforcement (`PriorityAndFairness.middleware`, the filter's `Handle`): the request's work is estimated
(flowcontrol/workestimate.py: a list's seats by the resource's stored count, a write's extra seats by the watches
being served, which the filter counts as upstream's `RegisterWatch`); an exempt level's request runs at once; a
limited level's takes its seats of its `QueueSet` (flowcontrol/: nominal limits from `--max-requests-inflight` +
`--max-mutating-requests-inflight`, shuffle-sharded fair queues) or waits in a queue for them, at most a quarter of
its deadline (`getRequestWaitContext`: `min(?timeout=, --request-timeout) / 4`; a watch, which has no deadline,
`--request-timeout / 4`, the `defaultRequestWaitLimit` of `config.go`); a rejected or timed-out request gets
`tooManyRequests`: 429, `Retry-After` (`dropped_requests_tracker.go`) and Go's `http.Error` plain-text body
`Too many requests, please try again later.` (not a Status), with the PF headers. A watch holds its seat until it is
set up (its answer's headers are sent; upstream's watch initialization signal comes once the cacher has sent its
initial events, a little later), not while it streams. The filter runs just before authorization, as in
`DefaultBuildHandlerChain` (built inside-out: WithAuthorization wraps the handler, WithPriorityAndFairness wraps
that): a request the authorizer refuses has taken a seat (or a 429) first, and its 403 carries the headers.

The debug dumps `dump_priority_levels`, `dump_queues` and `dump_requests` (flowcontrol/dump.py) are served here,
behind the filter and authorization, as upstream's unlisted handlers.

Cost: a request's digest is cached per (method, path, query), the decision per (user, groups, verb, group,
resource, namespace or path), and the decision cache is dropped
when a FlowSchema or PriorityLevelConfiguration changes (checked by the store's resourceVersion, then by the
identity of the stored objects, which are replaced, never changed in place, on every write).
"""
from __future__ import annotations

import asyncio
from typing import Any, NamedTuple

from aiohttp import web
from multidict import istr

from ..auth import UserInfo
from ..auth.rbac import ALL_UNAUTHENTICATED, ANONYMOUS, RequestInfoError, request_attributes
from ..goport.godur import DurationError, parse_duration
from ..flowcontrol import (BORROWING_ADJUSTMENT_PERIOD, MUTATING_VERBS, ONE_SEAT, FlowControl, ObjectCounts,
                           WatchTracker, WorkEstimator)
from ..flowcontrol.queueset import EXECUTING
from ..flowcontrol.readwrite import EXECUTING as RW_EXECUTING, WAITING, ReadWriteCounts, series
from ..registry.flowcontrol_bootstrap import MANDATORY_FLOW_SCHEMAS
from ..memo import remember
from .authz import REQUESTER

# upstream sets `X-Kubernetes-PF-FlowSchema-UID`; Go's net/http writes it in canonical form (istr: no case-folding
# per response)
FLOW_SCHEMA_HEADER = istr("X-Kubernetes-Pf-Flowschema-Uid")
PRIORITY_LEVEL_HEADER = istr("X-Kubernetes-Pf-Prioritylevel-Uid")
LONG_RUNNING_SUBRESOURCES = frozenset({"attach", "exec", "proxy", "log", "portforward"})
_SA_PREFIX = "system:serviceaccount:"
_CACHE_LIMIT = 4096
_ANONYMOUS = UserInfo(ANONYMOUS, "", (ALL_UNAUTHENTICATED,))
TOO_MANY_REQUESTS = "Too many requests, please try again later.\n"  # Go's http.Error adds the newline
_MAX_WAIT = 60.0  # getRequestWaitContext's hard limit
DUMP_PREFIX = "/debug/api_priority_and_fairness/"
DUMP_PRIORITY_LEVELS = DUMP_PREFIX + "dump_priority_levels"
DUMP_QUEUES = DUMP_PREFIX + "dump_queues"
DUMP_REQUESTS = DUMP_PREFIX + "dump_requests"


class Decision(NamedTuple):
    """The classification: the headers' UIDs, then what the seat is asked for with."""
    fs_uid: str
    pl_uid: str
    fs_name: str
    pl_name: str
    distinguisher: str  # computeFlowDistinguisher: the user's name (ByUser), the namespace (ByNamespace) or ""
    watch: bool         # the verb is watch: the seat is held only until the watch is set up
    flow: tuple[str, str]  # (pl_name, fs_name): the APF metrics' labels, made once


def _contains(value: str, values: Any, wildcard: str = "*") -> bool:
    return isinstance(values, list) and (value in values or wildcard in values)


def _subject_matches(user: UserInfo, subject: Any) -> bool:
    """`matchesSubject`."""
    if not isinstance(subject, dict):
        return False
    kind = subject.get("kind")
    if kind == "User":
        name = (subject.get("user") or {}).get("name") if isinstance(subject.get("user"), dict) else None
        return name is not None and name in ("*", user.name)
    if kind == "Group":
        name = (subject.get("group") or {}).get("name") if isinstance(subject.get("group"), dict) else None
        return name is not None and (name == "*" or name in user.groups)
    if kind == "ServiceAccount":
        sa = subject.get("serviceAccount")
        if not isinstance(sa, dict):
            return False
        ns, name = sa.get("namespace") or "", sa.get("name") or ""
        if name == "*":  # serviceAccountMatchesNamespace
            return user.name.startswith(f"{_SA_PREFIX}{ns}:")
        return user.name == f"{_SA_PREFIX}{ns}:{name}"
    return False


def _non_resource_url_matches(urls: Any, path: str) -> bool:
    """`matchPolicyRuleNonResourceURL`."""
    for rule in urls if isinstance(urls, list) else ():
        if not isinstance(rule, str):
            continue
        if rule == "*" or rule == path:
            return True
        prefix = rule[:-1] if rule.endswith("*") else rule
        if not prefix.endswith("/"):
            prefix += "/"
        if path.startswith(prefix):
            return True
    return False


def _rules_match(rules: Any, user: UserInfo, attrs: Any) -> bool:
    """`matchesFlowSchema` over the schema's `PolicyRulesWithSubjects`."""
    for rule in rules if isinstance(rules, list) else ():
        if not isinstance(rule, dict) or not any(_subject_matches(user, s) for s in rule.get("subjects") or ()):
            continue
        if attrs.resource_request:
            seek = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
            for rr in rule.get("resourceRules") or ():
                if not isinstance(rr, dict):
                    continue
                if not (_contains(attrs.verb, rr.get("verbs")) and _contains(seek, rr.get("resources"))
                        and _contains(attrs.api_group, rr.get("apiGroups"))):
                    continue
                if (bool(rr.get("clusterScope")) if not attrs.namespace
                        else _contains(attrs.namespace, rr.get("namespaces"))):
                    return True
        else:
            for nr in rule.get("nonResourceRules") or ():
                if isinstance(nr, dict) and _contains(attrs.verb, nr.get("verbs")) \
                        and _non_resource_url_matches(nr.get("nonResourceURLs"), attrs.path):
                    return True
    return False


class Classifier:
    """The APF decision (FlowSchema UID, PriorityLevel UID) for a request digest, from the stored configuration."""

    def __init__(self, store: Any):
        self.store = store
        self._rv = -1
        self._identity: tuple[int, ...] = ()
        self._schemas: list[tuple[dict[str, Any], str]] = []  # (schema, its level's uid) in matching order
        self._catch_all: dict[str, Any] | None = None
        self._cache: dict[tuple[Any, ...], Decision | None] = {}
        self.generation = 0  # bumped whenever the decisions may have changed
        self.on_levels: Any = None  # called with the stored PriorityLevelConfigurations when they change
        self._levels_identity: tuple[int, ...] | None = None

    def _refresh(self) -> None:
        rv = self.store.current_rv()
        if rv == self._rv:
            return
        self._rv = rv
        schemas = self.store.list("flowschemas", None, shared=True)[0]
        levels = self.store.list("prioritylevelconfigurations", None, shared=True)[0]
        identity = tuple(id(o) for o in schemas) + (0,) + tuple(id(o) for o in levels)
        if identity == self._identity:
            return
        self._identity = identity
        levels_identity = tuple(id(o) for o in levels)
        if self.on_levels is not None and levels_identity != self._levels_identity:
            self._levels_identity = levels_identity
            self.on_levels(levels)
        uids = {o["metadata"]["name"]: o["metadata"].get("uid", "") for o in levels}
        ordered = []
        for fs in schemas:
            spec = fs.get("spec") or {}
            pl = (spec.get("priorityLevelConfiguration") or {}).get("name")
            if pl in uids:
                ordered.append((spec.get("matchingPrecedence") or 0, fs["metadata"]["name"], fs, uids[pl]))
        ordered.sort(key=lambda t: (t[0], t[1]))
        self._schemas = [(fs, pl_uid) for _, _, fs, pl_uid in ordered]
        names = {fs["metadata"]["name"] for fs, _ in self._schemas}
        # `digestFlowSchemasLocked`: a missing mandatory schema is supplied, unstored (so no UID), in its place
        if "exempt" not in names:
            self._schemas.insert(0, (MANDATORY_FLOW_SCHEMAS[0], uids.get("exempt", "")))
        if "catch-all" not in names:
            self._schemas.append((MANDATORY_FLOW_SCHEMAS[1], uids.get("catch-all", "")))
        self._catch_all = next((fs for fs, _ in self._schemas if fs["metadata"]["name"] == "catch-all"), None)
        self._pl_uids = {fs["metadata"]["name"]: pl_uid for fs, pl_uid in self._schemas}
        self._cache = {}
        self.generation += 1

    def classify(self, user: UserInfo, attrs: Any) -> Decision | None:
        """The Decision (its first two fields: FlowSchema UID, PriorityLevel UID), or None when no configuration is
        stored at all."""
        self._refresh()
        if attrs.resource_request:
            key: tuple[Any, ...] = (user.name, user.groups, attrs.verb, attrs.api_group, attrs.resource,
                                    attrs.subresource, attrs.namespace)
        else:
            key = (user.name, user.groups, attrs.verb, attrs.path)
        try:
            return self._cache[key]
        except KeyError:
            pass
        fs = next((fs for fs, _ in self._schemas
                   if _rules_match((fs.get("spec") or {}).get("rules"), user, attrs)), self._catch_all)
        found = None
        if fs is not None:
            spec = fs.get("spec") or {}
            method = (spec.get("distinguisherMethod") or {}).get("type")
            distinguisher = user.name if method == "ByUser" else \
                (attrs.namespace or "") if method == "ByNamespace" and attrs.resource_request else ""
            fs_name, pl_name = fs["metadata"]["name"], (spec.get("priorityLevelConfiguration") or {}).get("name", "")
            found = Decision(fs["metadata"].get("uid", ""), self._pl_uids[fs_name], fs_name, pl_name, distinguisher,
                             attrs.verb == "watch", (pl_name, fs_name))
        remember(self._cache, key, found, _CACHE_LIMIT)
        return found


_DECISION: Any = (web.RequestKey("apf_decision", object) if hasattr(web, "RequestKey")  # type: ignore[attr-defined]
                  else "nsconform.apf_decision")
_DECIDED: Any = (web.RequestKey("apf_decided", object) if hasattr(web, "RequestKey")  # type: ignore[attr-defined]
                 else "nsconform.apf_decided")  # `seat_at_once`'s (decision, RequestInfo), for `middleware`
_DUMPS = frozenset({DUMP_PRIORITY_LEVELS, DUMP_QUEUES, DUMP_REQUESTS})
_NO_QUERY: dict[str, str] = {}
_AUTHORIZATION = istr("Authorization")  # (a case-insensitive key made once)
_UNCLASSIFIED = object()  # long-running, not a watch: passed through without headers
_MISSING = object()


class _Seat:
    """A watch's seat, freed once: when its answer starts (set up) or when the request ends, whichever is first."""
    __slots__ = ("queueset", "req", "decision", "counts")

    def __init__(self, queueset: Any, req: Any, decision: Decision, counts: ReadWriteCounts):
        self.queueset = queueset
        self.req = req
        self.decision = decision
        self.counts = counts

    def free(self) -> None:
        req, self.req = self.req, None
        if req is not None:
            self.queueset.finish(req, True)
            self.counts.add(EXECUTING, -1)  # a watch: read-only


class PriorityAndFairness:
    """The filter: `middleware` classifies and seats each request, `set_headers` (run as a response starts, http/app.py)
    adds the X-Kubernetes-PF-* headers and frees a watch's seat."""
    metrics: Any  # metrics.ServerMetrics (http/app.py): dispatches, rejections and 429s counted

    def __init__(self, ctx: Any):
        from .authentication import authenticate_token

        self.ctx = ctx
        self._authenticate_token = authenticate_token
        self.classifier = Classifier(ctx.registry.store)
        self.flow_control = FlowControl(max(1, getattr(ctx, "max_requests_inflight", 400)
                                            + getattr(ctx, "max_mutating_requests_inflight", 200)))
        self.classifier.on_levels = self.flow_control.configure
        self.watches = WatchTracker()
        self._borrowing: asyncio.TimerHandle | None = None  # the periodic re-division, from the first request on
        self.estimator = WorkEstimator(ObjectCounts(self._object_count, ctx.registry.store.current_rv), self.watches)
        self._design = ctx.profile == "design"
        self._users: dict[str, UserInfo] = {}  # bearer token → user (AlwaysAllow: what authentication made of it)
        self._infos: dict[tuple[str, str, str], Any] = {}  # (method, path, query) → RequestInfo (user-independent)
        self._fast: dict[tuple[Any, ...], Any] = {}  # see _decide
        self._fast_generation = -1

    def request_info(self, request: web.Request) -> Any:
        key = (request.method, request.path, request.query_string)
        info = self._infos.get(key)
        if info is None:
            try:
                info = request_attributes(request.method, request.path, request.query, None,
                                          design_list=self._design)
            except RequestInfoError:  # WithRequestInfo's 500, before the filter
                info = False
            remember(self._infos, key, info, _CACHE_LIMIT)
        return info

    def requester(self, request: web.Request) -> UserInfo | None:
        if self.ctx.authorizer is not None:  # rbac: set after authentication and impersonation, else refused before
            return request.get(REQUESTER)
        user = request.get(REQUESTER)  # always-allow: a client certificate's user (http/app.py's token check)
        if user is not None:
            return user
        header = request.headers.get("Authorization", "")
        token = header[7:].strip() if header.startswith("Bearer ") else ""
        if not token:
            return _ANONYMOUS
        user = self._users.get(token)
        if user is None:
            user = self._authenticate_token(self.ctx, token) or _ANONYMOUS
            remember(self._users, token, user, _CACHE_LIMIT)
        return user

    def _decide(self, request: web.Request) -> tuple[Any, Any]:
        """(the Decision, None (no configuration) or _UNCLASSIFIED (no user, no RequestInfo, long-running); the
        RequestInfo). Without rbac the user follows from the Authorization header alone: one lookup by (method,
        raw request target, header) while the configuration stands."""
        if self.ctx.authorizer is not None or (self.ctx.client_certs is not None and REQUESTER in request):
            return self._classify(request)  # (a certificate's user: not keyed by the Authorization header)
        classifier = self.classifier
        classifier._refresh()
        if classifier.generation != self._fast_generation:
            self._fast.clear()
            self._fast_generation = classifier.generation
        # (the raw request target, path and query as sent, decides the decoded ones)
        key = (request.method, request.raw_path, request.headers.get(_AUTHORIZATION))
        found = self._fast.get(key)
        if found is None:
            found = self._classify(request)
            remember(self._fast, key, found, _CACHE_LIMIT)
        return found

    def _classify(self, request: web.Request) -> tuple[Any, Any]:
        user = self.requester(request)
        if user is None:
            return _UNCLASSIFIED, None
        attrs = self.request_info(request)
        if attrs is False:
            return _UNCLASSIFIED, None
        if attrs.verb == "proxy" or (attrs.subresource in LONG_RUNNING_SUBRESOURCES if attrs.resource_request
                                     else attrs.path.startswith("/debug/pprof/")):
            return _UNCLASSIFIED, None  # long-running, not a watch: served unclassified
        return self.classifier.classify(user, attrs), attrs

    def _wait_limit(self, request: web.Request, watch: bool) -> float:
        """`getRequestWaitContext`: a quarter of the request's deadline (`WithRequestDeadline`: `?timeout=` when
        shorter than --request-timeout), at most a minute."""
        limit = self.ctx.request_timeout if self.ctx.request_timeout > 0 else _MAX_WAIT * 4
        if not watch and "timeout" in request.query:
            try:
                asked = parse_duration(request.query["timeout"]) / 1e9
            except DurationError:  # unparsable: WithRequestDeadline answered it (http/deadlines.py)
                asked = None
            if asked is not None and 0 < asked < limit:
                limit = asked
        return min(limit / 4, _MAX_WAIT)

    def too_many_requests(self, level: str) -> web.Response:
        """`tooManyRequests`: Go's `http.Error` (plain text, not a Status) with the level's Retry-After."""
        dropped = self.flow_control.dropped
        dropped.record(level)
        return web.Response(status=429, text=TOO_MANY_REQUESTS, charset="utf-8", content_type="text/plain",
                            headers={"Retry-After": str(dropped.retry_after(level)),
                                     "X-Content-Type-Options": "nosniff"})

    def _object_count(self, group: str, resource: str) -> int | None:
        """The stored objects of a resource, for the list work estimate; None when it is not stored here."""
        registry = self.ctx.registry
        if group:
            store = registry.group(group, resource)
        elif resource == "namespaces":
            store = registry.namespaces
        else:
            store = registry.content(resource) or registry.cluster(resource)
        if store is None:
            return None
        return store.store.count(store.info.plural, None)

    async def _dump(self, request: web.Request) -> web.StreamResponse:
        """The debug dumps (`apf_controller_debug.go`), unlisted handlers behind the filter and authorization."""
        fc = self.flow_control
        path = request.path
        if path == DUMP_REQUESTS:
            text = fc.dump_requests(self._describe if request.query.get("includeRequestDetails") else None)
        else:
            text = fc.dump_priority_levels() if path == DUMP_PRIORITY_LEVELS else fc.dump_queues()
        return web.Response(text=text, content_type="text/plain", charset="utf-8")

    def _describe(self, details: tuple[web.Request, Any]) -> tuple[str, Any]:
        """A seated request's user name and RequestInfo, for `dump_requests?includeRequestDetails=1`."""
        user = self.requester(details[0])
        return (user.name if user is not None else ""), details[1]

    def _update_borrowing(self) -> None:
        """Every `BORROWING_ADJUSTMENT_PERIOD` seconds (`wait.Until(updateBorrowing, 10s)`)."""
        self._borrowing = asyncio.get_running_loop().call_later(BORROWING_ADJUSTMENT_PERIOD, self._update_borrowing)
        self.flow_control.update_borrowing()

    async def close(self) -> None:
        """Stop the periodic re-division (the application's cleanup)."""
        if self._borrowing is not None:
            self._borrowing.cancel()

    @web.middleware
    async def middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if self._borrowing is None:
            self._borrowing = asyncio.get_running_loop().call_later(BORROWING_ADJUSTMENT_PERIOD,
                                                                    self._update_borrowing)
        if request.path.startswith(DUMP_PREFIX) and request.path in _DUMPS and request.method in ("GET", "HEAD"):
            handler = self._dump  # behind the filter, as upstream's unlisted handlers
        decided = request.get(_DECIDED)  # (`seat_at_once` decided already, without seating it)
        decision, attrs = decided if decided is not None else self._decide(request)
        request[_DECISION] = decision
        if decision is None or decision is _UNCLASSIFIED:
            return await handler(request)
        queueset = self.flow_control.queuesets.get(decision.pl_name)
        if queueset is None:  # a level unknown to the configuration read so far
            return await handler(request)
        verb = attrs.verb
        if verb == "list" or verb in MUTATING_VERBS:  # the others take one seat: no query, no level limit read
            work = self.estimator.estimate(attrs, request.query if verb == "list" else _NO_QUERY,
                                           self.flow_control.max_seats(decision.pl_name), decision.flow,
                                           self.flow_control.watch_counts)
        else:
            work = ONE_SEAT
        req = queueset.start(work, decision.fs_name, decision.distinguisher, (request, attrs))
        watch = decision.watch
        counts = self.flow_control.read_write
        if req is not None and req.state != EXECUTING:  # queued (`noteWaitingDelta`)
            waiting = series(WAITING, verb)
            counts.add(waiting, 1)
            try:
                dispatched = await queueset.wait(req, self._wait_limit(request, watch))
            finally:
                counts.add(waiting, -1)
        else:
            dispatched = req is not None
        if not dispatched:
            self.metrics.flowcontrol.rejected(decision, req, queueset)
            self.metrics.requests.dropped(request)
            return self.too_many_requests(decision.pl_name)
        if not watch:
            seat = self._seated(decision, verb, queueset, req)
            try:
                return await handler(request)
            finally:
                self.release(seat)
        self.metrics.flowcontrol.dispatched(decision, req)
        counts.add(RW_EXECUTING, 1)  # a watch: read-only, executing until it is set up
        seat = request[_DECISION] = _Seat(queueset, req, decision, counts)
        forget = self.watches.register(attrs, request.query)  # `RegisterWatch`: counted while it is served
        try:
            return await handler(request)
        finally:
            seat.free()
            if forget is not None:
                forget()

    def seat_at_once(self, request: web.Request) -> Any:
        """`middleware`'s first half for the common case, without a coroutine of its own, for the outermost filter to
        call (http/app.py, without rbac): when the request is classified, is neither a watch nor a dump, and its
        level seats it now without queuing, its seat is taken and counted as `middleware` takes and counts it
        (`_seated`), for `release` once the answer is ready. Otherwise None, with nothing taken: `middleware` serves
        it (with the decision made here)."""
        if self._borrowing is None or request.path.startswith(DUMP_PREFIX):
            return None
        decision, attrs = decided = self._decide(request)
        if decision is None or decision is _UNCLASSIFIED or decision.watch:
            request[_DECIDED] = decided
            return None
        queueset = self.flow_control.queuesets.get(decision.pl_name)
        verb = attrs.verb
        if queueset is None or verb == "list" or verb in MUTATING_VERBS or not queueset.seats_at_once(1):
            request[_DECIDED] = decided
            return None
        request[_DECISION] = decision
        req = queueset.start(ONE_SEAT, decision.fs_name, decision.distinguisher, (request, attrs))
        return self._seated(decision, verb, queueset, req)

    def _seated(self, decision: Decision, verb: str, queueset: Any, req: Any) -> tuple[Any, Any, int]:
        """A request that is not a watch got its seat: counted as dispatched and executing (`noteExecutingDelta`);
        `(queue set, request, series)` for `release`."""
        self.metrics.flowcontrol.dispatched(decision, req)
        executing = series(RW_EXECUTING, verb)
        self.flow_control.read_write.add(executing, 1)
        return queueset, req, executing

    def release(self, seated: tuple[Any, Any, int]) -> None:
        """The end of a request that is not a watch: its seat freed, no longer counted as executing."""
        queueset, req, executing = seated
        queueset.finish(req)
        self.flow_control.read_write.add(executing, -1)

    def set_headers(self, request: web.Request, response: web.StreamResponse) -> None:
        decision = request.get(_DECISION)
        if decision is None:  # refused before the filter ran (authentication's 401, impersonation's 403): no headers
            return  # (or no configuration stored at all)
        if type(decision) is _Seat:  # a watch is set up: its seat is free for others
            decision.free()
            decision = decision.decision
        if decision is not None and decision is not _UNCLASSIFIED:
            headers = response.headers
            headers[FLOW_SCHEMA_HEADER] = decision[0]
            headers[PRIORITY_LEVEL_HEADER] = decision[1]


__all__ = ["Classifier", "Decision", "FLOW_SCHEMA_HEADER", "PRIORITY_LEVEL_HEADER", "PriorityAndFairness",
           "TOO_MANY_REQUESTS"]
