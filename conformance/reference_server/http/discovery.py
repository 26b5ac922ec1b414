"""Discovery and version documents (NS-110..NS-114) and the OpenAPI hook."""
from __future__ import annotations

import json as _json
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from ..registry import Registry
from . import hooks
from .respond import object_response, plain_not_found

VERSION_INFO = {
    "major": "1", "minor": "33", "emulationMajor": "1", "emulationMinor": "33",
    "minCompatibilityMajor": "1", "minCompatibilityMinor": "32",
    "gitVersion": "v1.33.0-nsconform", "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean", "buildDate": "2025-04-23T00:00:00Z", "goVersion": "go1.24.2",
    "compiler": "gc", "platform": "linux/amd64",
}


def api_versions(host: str) -> dict[str, Any]:
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}]}


_CORE_EXTRA = frozenset({"persistentvolumes", "replicationcontrollers", "nodes"})  # core /status of a cluster kind, /scale


def api_resource_list(registry: Registry, finalize_verbs: list[str]) -> dict[str, Any]:
    """`/api/v1`: resources sorted by name, verbs sorted; subresources with `singularName: ""`."""
    resources: list[dict[str, Any]] = []
    for info in registry.resources():
        entry: dict[str, Any] = {"name": info.plural, "singularName": info.singular, "namespaced": info.namespaced,
                                 "kind": info.kind, "verbs": sorted(info.verbs)}
        if info.namespaced and registry.deviations.active("discovery-content-without-watch"):
            entry["verbs"] = [v for v in entry["verbs"] if v != "watch"]
        if info.short_names and not (info.plural == "namespaces"
                                     and registry.deviations.active("discovery-namespaces-no-short-name")):
            entry["shortNames"] = list(info.short_names)
        if info.categories:
            entry["categories"] = list(info.categories)
        entry["storageVersionHash"] = info.storage_version_hash
        resources.append(entry)
        if getattr(registry.content(info.plural), "status_strategy", None) is not None and info.namespaced:
            resources.append({"name": f"{info.plural}/status", "singularName": "", "namespaced": True,
                              "kind": info.kind, "verbs": ["get", "patch", "update"]})
        extra = registry.content(info.plural) if info.namespaced else registry.cluster(info.plural)
        for sub in sorted(getattr(extra, "subresources", {}) if info.plural in _CORE_EXTRA else ()):
            if sub == "status" and info.namespaced:
                continue  # listed above
            resources.append({"name": f"{info.plural}/{sub}", "singularName": "", "namespaced": info.namespaced,
                              **({"group": "autoscaling", "version": "v1"} if sub == "scale" else {}),
                              "kind": "Scale" if sub == "scale" else info.kind, "verbs": ["get", "patch", "update"]})
        if info.plural == "pods":  # BindingREST, both paths (http/binding.py): no storage, no storageVersionHash
            resources.append({"name": "bindings", "singularName": "binding", "namespaced": True, "kind": "Binding",
                              "verbs": ["create"]})
            resources.append({"name": "pods/binding", "singularName": "", "namespaced": True, "kind": "Binding",
                              "verbs": ["create"]})
            resources.append({"name": "pods/eviction", "singularName": "", "namespaced": True, "group": "policy",
                              "version": "v1", "kind": "Eviction", "verbs": ["create"]})  # EvictionREST
            resources += _connect_entries("pods")
        if info.plural in ("services", "nodes"):
            resources += _connect_entries(info.plural)
        if info.plural == "serviceaccounts":  # TokenRequest (http/authentication.py)
            resources.append({"name": "serviceaccounts/token", "singularName": "", "namespaced": True,
                              "group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest",
                              "verbs": ["create"]})
        if info.plural == "namespaces" and not registry.deviations.active("discovery-no-namespace-subresources"):
            resources.append({"name": "namespaces/finalize", "singularName": "", "namespaced": False,
                              "kind": "Namespace", "verbs": sorted(finalize_verbs)})
            resources.append({"name": "namespaces/status", "singularName": "", "namespaced": False,
                              "kind": "Namespace", "verbs": ["get", "patch", "update"]})
    resources.sort(key=lambda r: r["name"])
    return {"kind": "APIResourceList", "groupVersion": "v1", "resources": resources}


_PROXY_VERBS = ["create", "delete", "get", "patch", "update"]  # GET/POST/PUT/PATCH/DELETE (HEAD, OPTIONS: none)
_UPGRADE_VERBS = ["create", "get"]
_UPDATES = ["get", "patch", "update"]
# the connect subresources (http/connect.py) and the pod updates of registry/podupdates.py, as storage_core.go
# installs them: (subresource, kind, verbs)
CONNECT_RESOURCES: dict[str, tuple[tuple[str, str, list[str]], ...]] = {
    "pods": (("attach", "PodAttachOptions", _UPGRADE_VERBS), ("ephemeralcontainers", "Pod", _UPDATES),
             ("exec", "PodExecOptions", _UPGRADE_VERBS), ("log", "Pod", ["get"]),
             ("portforward", "PodPortForwardOptions", _UPGRADE_VERBS), ("proxy", "PodProxyOptions", _PROXY_VERBS),
             ("resize", "Pod", _UPDATES)),
    "services": (("proxy", "ServiceProxyOptions", _PROXY_VERBS),),
    "nodes": (("proxy", "NodeProxyOptions", _PROXY_VERBS),),
}


def _connect_entries(plural: str) -> list[dict[str, Any]]:
    return [{"name": f"{plural}/{sub}", "singularName": "", "namespaced": plural != "nodes", "kind": kind,
             "verbs": list(verbs)} for sub, kind, verbs in CONNECT_RESOURCES[plural]]


def _openapi_kinds(registry: Registry) -> list[Any] | None:
    """Every served kind as `wire.kinds.KindInfo`: core v1, the named groups' stores, the access reviews."""
    kinds = hooks.wire_kinds(registry.resources())
    kind_info = hooks.wire_attr("kinds", "KindInfo")
    if kinds is None or kind_info is None:
        return None
    from ..auth.review import GROUP, REVIEW_KINDS, VERSION
    for r in REVIEW_KINDS:
        kinds.append(kind_info(r.kind, r.plural, r.singular, r.namespaced, (), ("create",), {},
                               group=GROUP, version=VERSION))
    from .groups import AUTHN_GROUP, AUTHN_RESOURCES, AUTHN_VERSION
    for plural, (kind, singular) in AUTHN_RESOURCES.items():
        kinds.append(kind_info(kind, plural, singular, False, (), ("create",), {}, group=AUTHN_GROUP,
                               version=AUTHN_VERSION))
    for s in registry.group_stores() + registry.views():  # every version of a multi-version kind
        i = s.info
        subresources = dict(getattr(s, "subresources", {}))
        if getattr(s, "crd", None) is None and getattr(s, "status_strategy", None) is not None:
            subresources.setdefault("status", ("get", "patch", "update"))  # CRDs', APIServices' (as discovery)
        kinds.append(kind_info(i.kind, i.plural, i.singular, i.namespaced, tuple(i.short_names), tuple(i.verbs),
                               subresources, group=s.group,  # type: ignore[attr-defined]
                               version=s.version, list_kind=i.list_kind_name,  # type: ignore[attr-defined]
                               crd=getattr(s, "crd", None)))
    return kinds


def openapi_response(registry: Registry, path: str, accept: str | None = None,
                     extend: Any = None, headers: Mapping[str, str] | None = None,
                     query: Mapping[str, str] | None = None, method: str = "GET") -> web.StreamResponse:
    """Serve OpenAPI through `wire.openapi` when present; otherwise a plain 404 (route not installed).

    `/openapi/v3` lists one document per served group-version; `/openapi/v2` answers JSON or gnostic's protobuf
    as kube-openapi does (`http/openapi.py`: negotiation, ETag, 304, gzip). Documents are built on first request
    and their bytes kept. `headers`: the request's (Accept when absent is `accept`).
    `extend(doc)`: an enabled extension adds its fields to the v2 / v3 `api/v1` documents. `/openapi/v3` follows
    kube-openapi's handler3 (`http/openapi.py`: `?hash=`, Etag/304, 406); `query`, `method`: the request's."""
    from . import openapi as handler
    if headers is None:
        headers = {"Accept": accept} if accept is not None else {}
    if extend is not None:
        resp = openapi_response(registry, path, "application/json")
        if resp.status == 200 and (path == "/openapi/v2" or path.rstrip("/") == "/openapi/v3/api/v1"):
            doc = _json.loads(resp.body)  # type: ignore[attr-defined]
            extend(doc)
            if path == "/openapi/v2":
                return _v2_answer(handler.served(doc, html=False), doc, headers)
            return object_response(doc)
        if path == "/openapi/v2":
            return openapi_response(registry, path, headers=headers)
        return resp
    kinds = _openapi_kinds(registry)
    v2, root, documents, pb = (hooks.wire_attr("openapi", n) for n in (
        "openapi_v2", "openapi_v3_root", "openapi_v3_documents", "openapi_v2_protobuf"))
    if kinds is None or None in (v2, root, documents, pb):
        return plain_not_found()

    entry = handler.CACHE.get(handler.kinds_key(kinds), dict)  # filled per document on first request
    if path == "/openapi/v2":
        if "v2" not in entry:
            doc = v2(kinds)  # type: ignore[misc]
            entry["v2"], entry["v2served"] = doc, handler.served(doc, html=False)
        return _v2_answer(entry["v2served"], entry["v2"], headers)
    if "v3" not in entry:
        docs = documents(kinds)  # type: ignore[misc]
        entry["v3"] = {k: handler.served(d) for k, d in docs.items()}
        entry["v3root"] = handler.v3_index(entry["v3"])
    sub = path[len("/openapi/v3"):].strip("/")
    if sub == "":
        return handler.v3_index_response(entry["v3root"], headers, method)
    doc = entry["v3"].get(sub)
    if doc is None:
        return plain_not_found()
    v3pb = hooks.wire_attr("openapi", "openapi_v3_protobuf")
    pb = None if v3pb is None else (lambda: v3pb(_json.loads(doc.json)))  # ToV3ProtoBinary parses the JSON bytes
    return handler.v3_response(doc, sub, query or {}, headers, method, pb)


def _v2_answer(served: Any, doc: dict[str, Any], headers: Mapping[str, str]) -> web.StreamResponse:
    from . import openapi as handler
    encode = hooks.wire_attr("openapi", "openapi_v2_protobuf")
    return handler.v2_response(served, lambda: encode(doc), headers)  # type: ignore[misc]
