"""Path → route resolution with go-restful's outcomes (NS-04, NS-05) and the two profiles.

Profiles differ only in the finalize verb and the cross-namespace list path:
* `kubernetes`: `PUT /api/v1/namespaces/{name}/finalize`; cross-namespace list `GET /api/v1/{resource}`.
* `design` (seed 000's REST table): `POST /api/v1/namespaces/{name}/finalize` (PUT ⇒ 405, as the design
  serves only POST); cross-namespace list `GET /api/v1/list/{resource}` — `/api/v1/{resource}` stays
  served too, so a design-profile client never depends on it and a kubernetes client still works.
"""
from __future__ import annotations

from typing import NamedTuple

from .. import apierrors as E
from ..deviations import Deviations
from ..registry import Registry
from ..memo import remember

PROFILES = ("kubernetes", "design")
NAMESPACE_SUBRESOURCES = ("status", "finalize")
_MATCHED_LIMIT = 4096
_PROXY_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")  # the ProxyRESTs' ConnectMethods
_UPGRADE_METHODS = ("GET", "POST")  # exec, attach, portforward: `upgradeableMethods`
CONNECT_METHODS = {("pods", "log"): ("GET",), ("pods", "exec"): _UPGRADE_METHODS, ("pods", "attach"): _UPGRADE_METHODS,
                   ("pods", "portforward"): _UPGRADE_METHODS, ("pods", "proxy"): _PROXY_METHODS,
                   ("services", "proxy"): _PROXY_METHODS, ("nodes", "proxy"): _PROXY_METHODS}
ANY_METHOD = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")  # a plain mux handler's methods


class Route(NamedTuple):
    """What a request addresses; `target` names the handler family. (A tuple: made for every request, and a
    frozen dataclass costs three times as much to build.)"""

    target: str            # ns-collection | ns-item | ns-status | ns-finalize | collection | item | cluster |
    #                        api | api-v1 | apis | version | health | index | openapi | review | plain-404
    resource: str = ""     # content plural (or "namespaces")
    namespace: str = ""
    name: str = ""
    watch_path: bool = False
    group: str = ""        # a named API group (`/apis/<group>/<version>/...`); "" for the core group
    version: str = ""      # the named group's version in the path (registry/versions.py: a kind may have several)
    sub: str = ""          # a connect subresource (`log`, `exec`, `proxy`, ...; http/connect.py), its proxied path
    #                        after a "/" for `proxy`


class Router:
    def __init__(self, registry: Registry, profile: str, deviations: Deviations):
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
        self.registry = registry
        self.profile = profile
        self.deviations = deviations
        self._matched: dict[str, tuple[Route, tuple[str, ...]]] = {}  # see resolve

    def finalize_methods(self) -> tuple[str, ...]:
        base = ("PUT",) if self.profile == "kubernetes" else ("POST",)
        if self.deviations.active("finalize-any-verb"):
            base = ("PUT", "POST", "PATCH")
        return base

    def resolve(self, method: str, path: str) -> Route:
        """Route a decoded path; raises the router's 404/405 Status errors.

        A path outside `/apis/` is matched once: what it resolves to depends only on the core kinds, the profile
        and the deviations, all fixed when the server is built (a named group's routes follow its CRDs and
        APIServices, so they are matched every time). Refusals are not kept."""
        found = self._matched.get(path)
        if found is None:
            found = self._match(path)
            if not path.startswith("/apis/"):
                remember(self._matched, path, found, _MATCHED_LIMIT)
        route, methods = found
        if route.target == "plain-404":
            return route
        if method not in methods:
            if self.deviations.active("unsupported-method-404"):
                raise E.route_not_found()
            raise E.route_method_not_allowed()
        return route

    def _known(self, plural: str) -> bool:
        return self.registry.content(plural) is not None

    def _match(self, path: str) -> tuple[Route, tuple[str, ...]]:
        get = ("GET",)
        if path in ("/healthz", "/livez", "/readyz") or path.startswith(("/healthz/", "/livez/", "/readyz/")):
            return Route("health"), ANY_METHOD  # healthz.go's handlers, on a mux that does not check the method
        if path in ("/", "/index.html"):  # routes/index.go (UnlistedHandle: any method)
            return Route("index"), ANY_METHOD
        if path in ("/version", "/version/"):
            return Route("version"), get
        if path in ("/metrics", "/metrics/slis"):  # metrics.ServerMetrics.answer: any method, DELETE resets
            return Route("metrics", name=path), ANY_METHOD
        if path in ("/.well-known/openid-configuration", "/openid/v1/jwks"):  # pkg/routes/openidmetadata.go
            return Route("openid", name=path), get
        if path in ("/api", "/api/"):
            return Route("api"), get
        if path in ("/apis", "/apis/"):
            if self.deviations.active("no-apis-group-list"):
                return Route("plain-404"), ()
            return Route("apis"), get
        if path == "/openapi/v2" or path.startswith("/openapi/v3"):
            return Route("openapi", name=path), get
        if path.startswith("/apis/"):
            from .groups import match_group
            return match_group(self.registry, path)
        if not path.startswith("/api/v1"):
            return Route("plain-404"), ()
        rest = path[len("/api/v1"):]
        if rest in ("", "/"):
            return Route("api-v1"), get
        if not rest.startswith("/"):
            return Route("plain-404"), ()
        segs = rest[1:].split("/")
        if segs and segs[-1] == "" and len(segs) > 1:
            segs = segs[:-1]
        return self._match_v1(segs)

    def _match_v1(self, segs: list[str]) -> tuple[Route, tuple[str, ...]]:
        nf = E.route_not_found
        n = len(segs)
        if segs[0] == "watch":
            route = self._match_v1(segs[1:])[0] if n > 1 else None
            if route is None or route.target not in ("ns-collection", "ns-item", "collection", "item", "cluster"):
                raise nf()
            if route.target == "cluster" and n > 1 and segs[1] == "list":
                raise nf()
            unwatched = self.registry.cluster(route.resource)
            if unwatched is not None and "watch" not in unwatched.info.verbs:  # componentstatuses: no watch route
                raise nf()
            return Route(route.target, route.resource, route.namespace, route.name, watch_path=True), ("GET",)
        design_list = self.profile == "design" or self.deviations.active("kubernetes-serves-design-list")
        if segs[0] == "list" and design_list and n == 2:
            if segs[1] == "namespaces":
                return Route("ns-collection", "namespaces"), ("GET",)
            if self._known(segs[1]):
                return Route("cluster", segs[1]), ("GET",)
            raise nf()
        if segs[0] == "namespaces":
            if n == 1:
                return Route("ns-collection", "namespaces"), ("GET", "POST")
            name = segs[1]
            if n == 2:
                return Route("ns-item", "namespaces", name=name), ("GET", "PUT", "PATCH", "DELETE")
            sub = segs[2]
            if sub == "finalize" and self.deviations.active("finalize-as-content"):
                pass
            elif sub in NAMESPACE_SUBRESOURCES:
                if n != 3:
                    raise nf()
                if sub == "status":
                    return Route("ns-status", "namespaces", name=name), ("GET", "PUT", "PATCH")
                return Route("ns-finalize", "namespaces", name=name), self.finalize_methods()
            if sub == "bindings" and n == 3 and self._known("pods"):  # the legacy Binding collection
                return Route("pod-binding", "bindings", namespace=name), ("POST",)
            if not self._known(sub):
                raise nf()
            if n == 3:
                return Route("collection", sub, namespace=name), ("GET", "POST", "DELETE")
            if n == 4:
                return Route("item", sub, namespace=name, name=segs[3]), ("GET", "PUT", "PATCH", "DELETE")
            if n == 5 and segs[4] == "status" and getattr(self.registry.content(sub), "status_strategy", None):
                return Route("status", sub, namespace=name, name=segs[3]), ("GET", "PUT", "PATCH")
            if n == 5 and segs[4] == "scale" and "scale" in getattr(self.registry.content(sub), "subresources", {}):
                return Route("scale", sub, namespace=name, name=segs[3]), ("GET", "PUT", "PATCH")  # RCs
            if n == 5 and sub == "pods" and segs[4] == "binding":  # BindingREST (http/binding.py)
                return Route("pod-binding", sub, namespace=name, name=segs[3]), ("POST",)
            if n == 5 and sub == "pods" and segs[4] == "eviction":  # EvictionREST (http/eviction.py)
                return Route("pod-eviction", sub, namespace=name, name=segs[3]), ("POST",)
            if n == 5 and segs[4] in getattr(self.registry.content(sub), "extra_subresources", {}):
                return Route(segs[4], sub, namespace=name, name=segs[3]), ("GET", "PUT", "PATCH")  # pods' (podupdates)
            if n >= 5 and (sub, segs[4]) in CONNECT_METHODS and (n == 5 or segs[4] == "proxy"):
                return Route("connect", sub, namespace=name, name=segs[3], sub="/".join(segs[4:])), \
                    CONNECT_METHODS[sub, segs[4]]
            if n == 5 and sub == "serviceaccounts" and segs[4] == "token":  # TokenRequest (http/authentication.py)
                return Route("sa-token", sub, namespace=name, name=segs[3]), ("POST",)
            raise nf()
        if n == 1 and self._known(segs[0]):
            return Route("cluster", segs[0]), ("GET",)
        cluster = self.registry.cluster(segs[0])
        if cluster is not None and n <= 2:  # cluster-scoped core kinds (nodes)
            if "create" not in cluster.info.verbs:  # read-only (componentstatuses)
                return Route("collection" if n == 1 else "item", segs[0], name=segs[1] if n == 2 else ""), ("GET",)
            if n == 1:
                return Route("collection", segs[0]), ("GET", "POST", "DELETE")
            return Route("item", segs[0], name=segs[1]), ("GET", "PUT", "PATCH", "DELETE")
        if cluster is not None and n >= 3 and segs[0] == "nodes" and segs[2] == "proxy":  # node.ProxyREST
            return Route("connect", "nodes", name=segs[1], sub="/".join(segs[2:])), CONNECT_METHODS["nodes", "proxy"]
        if cluster is not None and n == 3 and segs[2] == "status" and getattr(cluster, "status_strategy", None):
            return Route("status", segs[0], name=segs[1]), ("GET", "PUT", "PATCH")  # persistentvolumes/status
        raise nf()
