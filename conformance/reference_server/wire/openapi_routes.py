"""The routes kube-apiserver's installer registers for a built-in kind, as kube-openapi reads them.

Follows k8s.io/apiserver 1.33 `pkg/endpoints/installer.go` `registerResourceHandlers`: the actions of a resource
and of a subresource (LIST, POST, DELETECOLLECTION, WATCHLIST, GET, PUT, PATCH, DELETE, WATCH, CONNECT, and the
`ForAllNamespaces` LIST and WATCHLIST of a namespaced resource), each route's `Doc`, `Operation`, `pretty`,
options (`AddObjectParams`: each field of the options struct a query parameter described by its `SwaggerDoc`,
`wire/data/openapi_params.json`, `tools/openapi_params.py`), path parameters (`name of the <Kind>`, the kind the
storage registers: `Scale`, `Eviction`, `PodAttachOptions`), `Reads` (a required body; DeleteOptions' not
required), `Consumes` (the web service's `*/*`, PATCH's patch types), `Produces` (the serializer's media types,
the streaming ones for LIST and WATCH) and `Returns`; and `pkg/endpoints/openapi/openapi.go`
`GetOperationIDAndTags` for operation ids and tags. Media types are those of 1.33's default feature gates (no
CBOR: `CBORServingAndStorage` is alpha).
"""
from __future__ import annotations

import functools
import json
import pathlib
from collections.abc import Iterable, Sequence

from .kinds import KindInfo
from .openapi_builder import Param, Route

MEDIA = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")
STREAM = ("application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch")
PATCH_TYPES = ("application/json-patch+json", "application/merge-patch+json",
               "application/strategic-merge-patch+json", "application/apply-patch+yaml")
PRETTY_DOC = ("If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a "
              "browser or command-line HTTP tool (curl and wget).")
NAMESPACE_DOC = "object name and auth scope, such as for teams and projects"
META = "io.k8s.apimachinery.pkg.apis.meta.v1"
SCALE = "io.k8s.api.autoscaling.v1.Scale"
EVICTION = "io.k8s.api.policy.v1.Eviction"
EVICTION_GVK = {"group": "policy", "kind": "Eviction", "version": "v1"}
SCALE_GVK = {"group": "autoscaling", "kind": "Scale", "version": "v1"}
TOKEN_REQUEST = "io.k8s.api.authentication.v1.TokenRequest"
TOKEN_REQUEST_GVK = {"group": "authentication.k8s.io", "kind": "TokenRequest", "version": "v1"}
BINDING = "io.k8s.api.core.v1.Binding"
BINDING_GVK = {"group": "", "kind": "Binding", "version": "v1"}

# `typeToJSON` of the options' Go field types; every other field is a string ([]string too)
_TYPES = {"allowWatchBookmarks": "boolean", "watch": "boolean", "sendInitialEvents": "boolean", "force": "boolean",
          "orphanDependents": "boolean", "ignoreStoreReadErrorWithClusterBreakingPotential": "boolean",
          "follow": "boolean", "previous": "boolean", "timestamps": "boolean",
          "insecureSkipTLSVerifyBackend": "boolean", "stdin": "boolean", "stdout": "boolean", "stderr": "boolean",
          "tty": "boolean", "limit": "integer", "timeoutSeconds": "integer", "gracePeriodSeconds": "integer",
          "sinceSeconds": "integer", "tailLines": "integer", "limitBytes": "integer", "ports": "integer"}
# fields AddObjectParams skips: a pointer to a struct, and `*metav1.Time` (its type prints as `*v1.Time`)
_SKIPPED = frozenset({"preconditions", "sinceTime"})

# kinds whose storage sets `ReturnDeletedObject` (a DELETE answers the object, not a Status)
DELETE_RETURNS_OBJECT = frozenset({
    ("", "Pod"), ("", "PodTemplate"), ("", "ResourceQuota"), ("", "Service"), ("", "ServiceAccount"),
    ("", "PersistentVolume"), ("", "PersistentVolumeClaim"), ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"), ("storage.k8s.io", "StorageClass"), ("storage.k8s.io", "VolumeAttachment"),
    ("storage.k8s.io", "VolumeAttributesClass")})


@functools.cache
def _docs() -> dict[str, dict[str, str]]:
    return json.loads((pathlib.Path(__file__).parent / "data" / "openapi_params.json").read_text())


def options(kind: str, exclude: Iterable[str] = ()) -> tuple[Param, ...]:
    """`AddObjectParams` of the options kind `kind` (`ListOptions`, `PodLogOptions`, ...)."""
    skip = _SKIPPED | set(exclude)
    return tuple(Param(name, "query", doc, _TYPES.get(name, "string"))
                 for name, doc in _docs()[kind].items() if name not in skip)


def pretty() -> Param:
    return Param("pretty", "query", PRETTY_DOC)


def valid_operation_id(s: str, capitalize_first: bool) -> str:
    """`ToValidOperationID`: letters, `_` and (not first) digits kept, the one after any other character (and the
    first, when asked) upper-cased."""
    out, cap = [], capitalize_first
    for i, c in enumerate(s):
        if c.isalpha() or c == "_" or (i and c.isdigit()):
            out.append(c.upper() if cap else c)
            cap = False
        else:
            cap = True
    return "".join(out)


def operation_id(verb: str, rest: str, group: str, version: str) -> tuple[str, str]:
    """`GetOperationIDAndTags`: (operation id, tag); the core group is `core`. Its verb trie matches the shortest
    prefix, so `deletecollection...` becomes `delete<Group><Version>Collection...`."""
    prefix = "delete" if verb == "deletecollection" else verb
    rest = verb[len(prefix):] + rest
    trimmed = (group or "core").removesuffix(".k8s.io")
    op = prefix + valid_operation_id(trimmed, True) + valid_operation_id(version, True)
    tag = valid_operation_id(trimmed, False) + "_" + valid_operation_id(version, False)
    return op + valid_operation_id(rest, True), tag


def article(kind: str) -> str:
    """`GetArticleForNoun(kind, " ")`: none for a plural (ending in `s`, not `ss`), else `a`/`an`."""
    if kind.endswith("s") and not kind.endswith("ss"):
        return " "
    return " an " if kind[:1].lower() in ("a", "e", "i", "o", "u") else " a "


# the groups whose Go types live outside k8s.io/api (their definitions are named after their Go packages)
_PACKAGES = {"apiextensions.k8s.io": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
             "apiregistration.k8s.io": "io.k8s.kube-aggregator.pkg.apis.apiregistration"}


def definition_prefix(k: KindInfo) -> str:
    """`io.k8s.api.<group's first label>.<version>` (`io.k8s.api.rbac.v1.Role`, `io.k8s.api.apps.v1.Deployment`),
    the CRD's and APIService's their own packages'."""
    package = _PACKAGES.get(k.group) or f"io.k8s.api.{k.group.split('.')[0] if k.group else 'core'}"
    return f"{package}.{k.version}"


def api_root(k: KindInfo) -> str:
    return f"/apis/{k.group}/{k.version}" if k.group else f"/api/{k.version}"


class _Kind:
    """One kind's route factory: its paths, names and path parameters."""

    def __init__(self, k: KindInfo):
        self.k, self.root = k, api_root(k)
        self.ns = "Namespaced" if k.namespaced else ""
        self.obj, self.list = f"{definition_prefix(k)}.{k.kind}", f"{definition_prefix(k)}.{k.list_kind_name}"
        self.base = f"namespaces/{{namespace}}/{k.plural}" if k.namespaced else k.plural
        self.ns_params = (Param("namespace", "path", NAMESPACE_DOC, required=True),) if k.namespaced else ()

    def name_params(self, kind: str) -> tuple[Param, ...]:
        return (*self.ns_params, Param("name", "path", f"name of the {kind}", required=True))

    def route(self, path: str, method: str, verb: str, name: str, action: str, doc: str, params: Sequence[Param],
              produces: Sequence[str], responses: Sequence[tuple[str, str, str]], gvk: dict[str, str] | None = None,
              consumes: Sequence[str] = ("*/*",)) -> Route:
        op, tag = operation_id(verb, name, self.k.group, self.k.version)
        return Route(f"{self.root}/{path}", method, op, tag, doc, action, gvk or self.k.gvk(), tuple(params),
                     tuple(consumes), tuple(produces), tuple(responses))


def routes(k: KindInfo) -> list[Route]:
    """Every route of a built-in kind: the resource's, its subresources', eviction, log and the connect ones."""
    r = _Kind(k)
    kind, verbs, out = k.kind, set(k.verbs), []
    watch_list = "watch" in verbs and "list" in verbs
    list_params = (pretty(), *options("ListOptions"))
    list_doc = f"list or watch objects of kind {kind}" if "watch" in verbs else f"list objects of kind {kind}"
    streaming = (*MEDIA, *STREAM)
    if "list" in verbs:
        out.append(r.route(r.base, "get", "list", r.ns + kind, "list", list_doc, (*list_params, *r.ns_params),
                           streaming, _ok(r.list)))
    if "create" in verbs:
        out.append(r.route(r.base, "post", "create", r.ns + kind, "post", f"create{article(kind)}{kind}",
                           (pretty(), *options("CreateOptions"), *r.ns_params, Param("body", "body", "", r.obj, True)),
                           MEDIA, _ok(r.obj, "201", "202")))
    delete_body = Param("body", "body", "", f"{META}.DeleteOptions")
    if "deletecollection" in verbs:
        out.append(r.route(r.base, "delete", "deletecollection", r.ns + kind, "deletecollection",
                           f"delete collection of {kind}",
                           (pretty(), *options("DeleteOptions"),
                            *options("ListOptions", ("watch", "allowWatchBookmarks")), delete_body, *r.ns_params),
                           MEDIA, _ok(f"{META}.Status")))
    event = f"{META}.WatchEvent"
    if watch_list:
        out.append(r.route(f"watch/{r.base}", "get", "watch", f"{r.ns}{kind}List", "watchlist",
                           f"watch individual changes to a list of {kind}. deprecated: use the 'watch' parameter with "
                           "a list operation instead.", (*list_params, *r.ns_params), streaming, _ok(event)))
    item, name_params = f"{r.base}/{{name}}", r.name_params(kind)
    out += _item_routes(r, item, kind, "", verbs, r.obj, name_params)
    if "delete" in verbs:
        deleted = r.obj if (k.group, kind) in DELETE_RETURNS_OBJECT else f"{META}.Status"
        out.append(r.route(item, "delete", "delete", r.ns + kind, "delete", f"delete{article(kind)}{kind}",
                           (pretty(), *options("DeleteOptions"), delete_body, *name_params), MEDIA,
                           _ok(deleted, "202")))
    if "watch" in verbs:
        out.append(r.route(f"watch/{item}", "get", "watch", r.ns + kind, "watch",
                           f"watch changes to an object of kind {kind}. deprecated: use the 'watch' parameter with a "
                           "list operation instead, filtered to a single item with the 'fieldSelector' parameter.",
                           (*list_params, *name_params), streaming, _ok(event)))
    if k.namespaced and "list" in verbs:
        out.append(r.route(k.plural, "get", "list", f"{kind}ForAllNamespaces", "list", list_doc, list_params,
                           streaming, _ok(r.list)))
        if watch_list:
            out.append(r.route(f"watch/{k.plural}", "get", "watch", f"{kind}ListForAllNamespaces", "watchlist",
                               f"watch individual changes to a list of {kind}. deprecated: use the 'watch' parameter "
                               "with a list operation instead.", list_params, streaming, _ok(event)))
    for sub, sub_verbs in k.subresources.items():
        scale = sub == "scale"
        out += _item_routes(r, f"{item}/{sub}", kind, sub, set(sub_verbs), SCALE if scale else r.obj,
                            r.name_params("Scale" if scale else kind), SCALE_GVK if scale else None)
    out += _posted_routes(r)
    out += _connect_routes(r)
    return out


def _ok(model: str, *codes: str) -> tuple[tuple[str, str, str], ...]:
    """`Returns(200, "OK", model)` and the other codes' (`Created`, `Accepted`)."""
    return tuple((c, {"200": "OK", "201": "Created", "202": "Accepted"}[c], model) for c in ("200", *codes))


def _item_routes(r: _Kind, path: str, kind: str, sub: str, verbs: set[str], model: str,
                 name_params: tuple[Param, ...], gvk: dict[str, str] | None = None) -> list[Route]:
    """GET, PUT and PATCH of an object or of one of its subresources (`read <sub> of the specified <Kind>`)."""
    of = f" {sub} of" if sub else ""
    name, out, ok = r.ns + kind + sub.capitalize(), [], _ok(model, "201")
    if "get" in verbs:
        out.append(r.route(path, "get", "read", name, "get", f"read{of} the specified {kind}", (pretty(), *name_params),
                           MEDIA, ok[:1], gvk))
    if "update" in verbs:
        out.append(r.route(path, "put", "replace", name, "put", f"replace{of} the specified {kind}",
                           (pretty(), *options("UpdateOptions"), Param("body", "body", "", model, True), *name_params),
                           MEDIA, ok, gvk))
    if "patch" in verbs:
        out.append(r.route(path, "patch", "patch", name, "patch", f"partially update{of} the specified {kind}",
                           (pretty(), *options("PatchOptions"), Param("body", "body", "", f"{META}.Patch", True),
                            *name_params), MEDIA, ok, gvk, PATCH_TYPES))
    return out


# subresources another kind is posted to (`pods/binding`: BindingREST, `pods/eviction`: EvictionREST,
# `serviceaccounts/token`: TokenREST), by the core resource: (subresource, the posted kind's message, definition
# and group-version-kind)
POSTED: dict[str, tuple[tuple[str, str, str, dict[str, str]], ...]] = {
    "pods": (("binding", "core.Binding", BINDING, BINDING_GVK),
             ("eviction", "policy.Eviction", EVICTION, EVICTION_GVK)),
    "serviceaccounts": (("token", "authentication.TokenRequest", TOKEN_REQUEST, TOKEN_REQUEST_GVK),),
}


# the legacy `bindings` collection (BindingREST registered as `bindings` beside `pods/binding`): POST only
BINDINGS = KindInfo("Binding", "bindings", "binding", True, (), ("create",))


def with_bindings(kinds: Sequence[KindInfo]) -> list[KindInfo]:
    """`kinds` with the legacy `bindings` collection where core pods are served (kube-apiserver installs both)."""
    out = list(kinds)
    if any(k.plural == "pods" and not k.group for k in out) and BINDINGS not in out:
        out.append(BINDINGS)
    return out


def posted(k: KindInfo) -> tuple[tuple[str, str, str, dict[str, str]], ...]:
    """The subresources posted to a kind (see `POSTED`)."""
    return () if k.group else POSTED.get(k.plural, ())


def _posted_routes(r: _Kind) -> list[Route]:
    """POST of another kind to an object's subresource (`create eviction of a Pod`), and `pods/log` (LogREST:
    text/plain first, a string answered)."""
    item, kind, out = f"{r.base}/{{name}}", r.k.kind, []
    for sub, _, model, gvk in posted(r.k):
        out.append(r.route(f"{item}/{sub}", "post", "create", f"{r.ns}{kind}{sub.capitalize()}", "post",
                           f"create {sub} of{article(kind)}{kind}",
                           (pretty(), *options("CreateOptions"), Param("body", "body", "", model, True),
                            *r.name_params(gvk["kind"])), MEDIA,
                           _ok(model, "201", "202"), gvk))
    if r.k.plural == "pods" and not r.k.group:
        out.append(r.route(f"{item}/log", "get", "read", f"{r.ns}PodLog", "get", "read log of the specified Pod",
                           (pretty(), *options("PodLogOptions"), *r.name_params("Pod")), ("text/plain", *MEDIA),
                           _ok("string")))
    return out


# the connect subresources (`pkg/registry/core/{pod,node,service}/...`, served by http/connect.py): each one's
# options kind and `ConnectMethods()`
_PROXY = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
_CONNECT: dict[str, tuple[tuple[str, str, tuple[str, ...]], ...]] = {
    "pods": (("attach", "PodAttachOptions", ("GET", "POST")), ("exec", "PodExecOptions", ("GET", "POST")),
             ("portforward", "PodPortForwardOptions", ("GET", "POST")), ("proxy", "PodProxyOptions", _PROXY)),
    "services": (("proxy", "ServiceProxyOptions", _PROXY),),
    "nodes": (("proxy", "NodeProxyOptions", _PROXY),),
}


def _connect_routes(r: _Kind) -> list[Route]:
    """CONNECT actions: `connect<Method><Namespaced><Kind><Sub>[WithPath]`, no `pretty`, `*/*` both ways, a
    string answered (the route's `Writes`)."""
    if r.k.group:
        return []
    out = []
    for sub, options_kind, methods in _CONNECT.get(r.k.plural, ()):
        params = (*options(options_kind), *r.name_params(options_kind))
        variants = [("", params)]
        if sub == "proxy":  # `itemPath + "/{path:*}"` with proxyParams
            variants.append(("/{path}", (*params, Param("path", "path", "path to the resource", required=True))))
        for tail, ps in variants:
            for m in methods:
                out.append(r.route(f"{r.base}/{{name}}/{sub}{tail}", m.lower(), "connect",
                                   f"{m.capitalize()}{r.ns}{r.k.kind}{sub.capitalize()}{'WithPath' if tail else ''}",
                                   "connect", f"connect {m} requests to {sub} of {r.k.kind}", ps, ("*/*",),
                                   (("200", "OK", "string"),), {"group": "", "kind": options_kind, "version": "v1"},
                                   ("*/*",)))
    return out
