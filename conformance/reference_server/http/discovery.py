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
        entry["storageVersionHash"] = info.storage_version_hash
        resources.append(entry)
        if info.plural == "namespaces" and not registry.deviations.active("discovery-no-namespace-subresources"):
            resources.append({"name": "namespaces/finalize", "singularName": "", "namespaced": False,
                              "kind": "Namespace", "verbs": sorted(finalize_verbs)})
            resources.append({"name": "namespaces/status", "singularName": "", "namespaced": False,
                              "kind": "Namespace", "verbs": ["get", "patch", "update"]})
    resources.sort(key=lambda r: r["name"])
    return {"kind": "APIResourceList", "groupVersion": "v1", "resources": resources}


def openapi_response(registry: Registry, path: str, extend: Any = None) -> web.StreamResponse:
    """Serve OpenAPI through `wire.openapi` when present; otherwise a plain 404 (route not installed).
    `extend(doc)`: an enabled extension adds its fields to the v2 / v3 `api/v1` documents."""
    if extend is not None:
        resp = openapi_response(registry, path)
        if path == "/openapi/v2" or path.rstrip("/") == "/openapi/v3/api/v1":
            import json as _json
            doc = _json.loads(resp.body)  # type: ignore[attr-defined]
            extend(doc)
            return object_response(doc)
        return resp
    kinds = hooks.wire_kinds(registry.resources())
    v2, root, group = (hooks.wire_attr("openapi", n) for n in ("openapi_v2", "openapi_v3_root", "openapi_v3_group"))
    if kinds is None or None in (v2, root, group):
        return plain_not_found()
    if path == "/openapi/v2":
        return object_response(v2(kinds))
    sub = path[len("/openapi/v3"):].strip("/")
    if sub == "":
        return object_response(root(kinds, group(kinds)))
    if sub == "api/v1":
        return object_response(group(kinds))
    return plain_not_found()
