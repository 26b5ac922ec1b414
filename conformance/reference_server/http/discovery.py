"""Discovery and version documents (NS-110..NS-114) and the OpenAPI hook."""
from __future__ import annotations

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
    for s in registry.group_stores():
        i = s.info
        kinds.append(kind_info(i.kind, i.plural, i.singular, i.namespaced, tuple(i.short_names), tuple(i.verbs),
                               dict(getattr(s, "subresources", {})), group=s.group,  # type: ignore[attr-defined]
                               version=s.version))  # type: ignore[attr-defined]
    return kinds


def _accepts_json(accept: str | None) -> bool:
    """kube-openapi's handler: JSON (or protobuf, which we cannot write) for `application/json`,
    `application/*`, `*/*` or no Accept; anything else is 406 with an empty body."""
    if not accept:
        return True
    for clause in accept.split(","):
        media = clause.split(";")[0].strip().lower()
        if media in ("*/*", "application/*", "application/json"):
            return True
    return False


def openapi_response(registry: Registry, path: str, accept: str | None = None,
                     extend: Any = None) -> web.StreamResponse:
    """Serve OpenAPI through `wire.openapi` when present; otherwise a plain 404 (route not installed).

    `/openapi/v3` lists one document per served group-version; `/openapi/v2` is JSON only, so a client that
    accepts only protobuf (kubectl's fallback) gets kube-openapi's 406 instead of JSON it cannot parse.
    `extend(doc)`: an enabled extension adds its fields to the v2 / v3 `api/v1` documents."""
    if extend is not None:
        resp = openapi_response(registry, path, accept)
        if resp.status == 200 and (path == "/openapi/v2" or path.rstrip("/") == "/openapi/v3/api/v1"):
            import json as _json
            doc = _json.loads(resp.body)  # type: ignore[attr-defined]
            extend(doc)
            return object_response(doc)
        return resp
    kinds = _openapi_kinds(registry)
    v2, root, documents = (hooks.wire_attr("openapi", n)
                           for n in ("openapi_v2", "openapi_v3_root", "openapi_v3_documents"))
    if kinds is None or None in (v2, root, documents):
        return plain_not_found()
    if path == "/openapi/v2":
        if not _accepts_json(accept):
            return web.Response(status=406, headers={"Vary": "Accept"})
        return object_response(v2(kinds))
    sub = path[len("/openapi/v3"):].strip("/")
    docs = documents(kinds)
    if sub == "":
        return object_response(root(documents=docs))
    if sub in docs:
        return object_response(docs[sub])
    return plain_not_found()
