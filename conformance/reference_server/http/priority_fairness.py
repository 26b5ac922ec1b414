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
No queuing or rejection: the server has no concurrency limits to share.

Cost: a request's digest is cached per (method, path, query), the decision per (user, groups, verb, group,
resource, namespace or path), and the decision cache is dropped
when a FlowSchema or PriorityLevelConfiguration changes (checked by the store's resourceVersion, then by the
identity of the stored objects, which are replaced, never changed in place, on every write).
"""
from __future__ import annotations

from typing import Any

from aiohttp import web

from ..auth import UserInfo
from ..auth.rbac import ALL_UNAUTHENTICATED, ANONYMOUS, RequestInfoError, request_attributes
from ..registry.flowcontrol_bootstrap import MANDATORY_FLOW_SCHEMAS

FLOW_SCHEMA_HEADER = "X-Kubernetes-PF-FlowSchema-UID"
PRIORITY_LEVEL_HEADER = "X-Kubernetes-PF-PriorityLevel-UID"
LONG_RUNNING_SUBRESOURCES = frozenset({"attach", "exec", "proxy", "log", "portforward"})
_SA_PREFIX = "system:serviceaccount:"
_CACHE_LIMIT = 4096
_ANONYMOUS = UserInfo(ANONYMOUS, "", (ALL_UNAUTHENTICATED,))


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
        self._catch_all: tuple[str, str] | None = None
        self._cache: dict[tuple[Any, ...], tuple[str, str] | None] = {}

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
        self._catch_all = next(((fs["metadata"].get("uid", ""), pl_uid) for fs, pl_uid in self._schemas
                                if fs["metadata"]["name"] == "catch-all"), None)
        self._cache = {}

    def classify(self, user: UserInfo, attrs: Any) -> tuple[str, str] | None:
        """(FlowSchema UID, PriorityLevel UID), or None when no configuration is stored at all."""
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
        found = next(((fs["metadata"].get("uid", ""), pl_uid) for fs, pl_uid in self._schemas
                      if _rules_match((fs.get("spec") or {}).get("rules"), user, attrs)), self._catch_all)
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[key] = found
        return found


def install(app: web.Application, ctx: Any) -> None:
    """Add the headers to every classified answer (`on_response_prepare`, so errors and watches get them too)."""
    from .authentication import authenticate_token
    from .authz import REQUESTER

    classifier = Classifier(ctx.registry.store)
    design = ctx.profile == "design"
    users: dict[str, UserInfo] = {}  # bearer token → user (AlwaysAllow mode: what authentication made of it)
    infos: dict[tuple[str, str, str], Any] = {}  # (method, path, query) → its RequestInfo (user-independent)

    def request_info(request: web.Request) -> Any:
        key = (request.method, request.path, request.query_string)
        info = infos.get(key)
        if info is None:
            try:
                info = request_attributes(request.method, request.path, request.query, None, design_list=design)
            except RequestInfoError:  # WithRequestInfo's 500, before the filter
                info = False
            if len(infos) >= _CACHE_LIMIT:
                infos.clear()
            infos[key] = info
        return info

    def requester(request: web.Request) -> UserInfo | None:
        if ctx.authorizer is not None:  # rbac: set after authentication and impersonation, else refused before
            return request.get(REQUESTER)
        header = request.headers.get("Authorization", "")
        token = header[7:].strip() if header.startswith("Bearer ") else ""
        if not token:
            return _ANONYMOUS
        user = users.get(token)
        if user is None:
            user = authenticate_token(ctx, token) or _ANONYMOUS
            if len(users) >= _CACHE_LIMIT:
                users.clear()
            users[token] = user
        return user

    async def set_headers(request: web.Request, response: web.StreamResponse) -> None:
        if response.status == 401:  # refused by authentication, before the filter
            return
        user = requester(request)
        if user is None:
            return
        attrs = request_info(request)
        if attrs is False:
            return
        if attrs.verb == "proxy" or (attrs.subresource in LONG_RUNNING_SUBRESOURCES if attrs.resource_request
                                     else attrs.path.startswith("/debug/pprof/")):
            return  # long-running, not a watch: served unclassified
        decision = classifier.classify(user, attrs)
        if decision is not None:
            response.headers[FLOW_SCHEMA_HEADER] = decision[0]
            response.headers[PRIORITY_LEVEL_HEADER] = decision[1]

    app.on_response_prepare.append(set_headers)


__all__ = ["Classifier", "FLOW_SCHEMA_HEADER", "PRIORITY_LEVEL_HEADER", "install"]
