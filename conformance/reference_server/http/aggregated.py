"""Aggregated discovery (`apidiscovery.k8s.io/v2` `APIGroupDiscoveryList`) on `/api` and `/apis`.

kube-apiserver 1.30+ wraps both root discovery handlers (`discovery/aggregated/wrapper.go`): when the Accept
header's first usable clause asks for `as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2`, one document with
every group, version and resource is served instead of APIVersions / APIGroupList, so clients (client-go,
kubectl) need two requests instead of one per group version. The document is *derived from the legacy
APIResourceLists* (`discovery.api_resource_list`, `groups.api_resource_list`) the way upstream derives it from
the installer's `[]APIResource` (`endpoints.ConvertGroupVersionIntoToDiscovery`), so the two views cannot
disagree, deviations included.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Callable, Iterable

from aiohttp import web

from .. import apierrors as E
from ..goport.gojsonhtml import escape_html
from ..wire.negotiation import names, options_refused, parse_accept
from ..wire.goyamlout import dumps as yaml_dumps
from .respond import dumps_line

GROUP, VERSION, KIND = "apidiscovery.k8s.io", "v2", "APIGroupDiscoveryList"
_GVK_PARAMS = f";g={GROUP};v={VERSION};as={KIND}"  # `generateMediaTypeWithGVK` order: g, v, as
JSON, YAML, PROTOBUF = "application/json", "application/yaml", "application/vnd.kubernetes.protobuf"
# The discovery codec factory's media types, in its order (a `*/*` clause takes the first); protobuf is
# listed so such a clause is recognised, but it is never produced here (see `select`).
_SUPPORTED = (JSON, YAML, PROTOBUF)


def select(accept: str | None) -> str | None:
    """The media type to serve aggregated discovery in, or None for the legacy document.

    As `WrappedHandler.ServeHTTP` + `NegotiateMediaTypeOptions` with `DiscoveryEndpointRestrictions`: the clauses in
    goautoneg's order (`wire.negotiation.parse_accept`: case kept, q only ordering), each against the supported
    media types in the codec factory's order; a serializer is acceptable only with exactly the conversion
    `apidiscovery.k8s.io/v2 APIGroupDiscoveryList` (`AllowsMediaTypeTransform` is `IsAggregatedDiscoveryGVK`: a
    clause without g/v/as is refused too, so an aggregated clause after a plain `application/json` still wins;
    v2beta1, removed in 1.33, and `as=Table` are refused) and acceptable `stream`/`sv` options. Protobuf cannot be
    produced here, so its clauses are skipped (as `wire.negotiation` does for objects) and the next acceptable
    one (JSON, which client-go always lists) wins; when nothing is left the legacy handler's own negotiation
    answers, 406 for what it cannot serve, as upstream's does.
    """
    if not accept:
        return None
    for clause in parse_accept(accept):
        params = clause.params
        convert = (params.get("g", ""), params.get("v", ""), params.get("as", ""))
        if convert != (GROUP, VERSION, KIND):
            continue
        for media in _SUPPORTED:
            if names(clause, media) and media != PROTOBUF and not options_refused(params, media, False):
                return media
    return None


def _version_discovery(resource_list: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """APIResourceList → (group, APIVersionDiscovery), as `ConvertGroupVersionIntoToDiscovery`: top-level
    resources keep their (name-sorted) order, each `parent/sub` entry becomes a subresource of its parent.
    Keys in Go struct order (the ETag hashes this JSON). `freshness: Current`, as genericapiserver sets for
    every locally served group version (it is `Stale` only for unreachable aggregated APIServices)."""
    group, _, version = resource_list["groupVersion"].rpartition("/")
    if resource_list.get("freshness") == "Stale":  # an unreachable aggregated API (http/extensions.py)
        return group, {"version": version, "freshness": "Stale"}
    resources: list[dict[str, Any]] = []
    parents: dict[str, dict[str, Any]] = {}
    for r in resource_list["resources"]:
        if "/" in r["name"]:
            continue
        entry: dict[str, Any] = {"resource": r["name"],
                                 "responseKind": {"group": group, "version": version, "kind": r["kind"]},
                                 "scope": "Namespaced" if r["namespaced"] else "Cluster",
                                 "singularResource": r["singularName"], "verbs": list(r["verbs"])}
        for key in ("shortNames", "categories"):
            if r.get(key):
                entry[key] = list(r[key])
        resources.append(entry)
        parents[r["name"]] = entry
    for r in resource_list["resources"]:
        parent, slash, sub = r["name"].partition("/")
        if not slash:
            continue
        kind = {"group": r.get("group", group), "version": r.get("version", version), "kind": r["kind"]} \
            if r.get("kind") else \
            {"group": "", "version": "", "kind": ""}  # upstream: never null (client-go 0.26.0-3 panics on it)
        parents[parent].setdefault("subresources", []).append(
            {"subresource": sub, "responseKind": kind, "verbs": list(r["verbs"])})
    out: dict[str, Any] = {"version": version}
    if resources:
        out["resources"] = resources
    out["freshness"] = "Current"
    return group, out


def _items(resource_lists: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One APIGroupDiscovery per group (its versions preferred first, as handed over). `metadata` is a Go ObjectMeta: `name` is
    omitted when empty (the core group on `/api`) and `creationTimestamp` is always written as null."""
    items: list[dict[str, Any]] = []
    by_group: dict[str, dict[str, Any]] = {}
    for rl in resource_lists:
        group, version = _version_discovery(rl)
        if group in by_group:  # a group's further versions (handed over preferred first)
            by_group[group]["versions"].append(version)
            continue
        meta: dict[str, Any] = {"name": group} if group else {}
        meta["creationTimestamp"] = None
        by_group[group] = {"metadata": meta, "versions": [version]}
        items.append(by_group[group])
    return items


def etag(items: list[dict[str, Any]]) -> str:
    """`calculateETag`: uppercase hex SHA-512 of Go's `json.Marshal` of the list as cached, i.e. before the
    encoder sets kind/apiVersion (so `{"metadata":{},"items":[...]}`), quoted as the header needs it."""
    raw = json.dumps({"metadata": {}, "items": items}, separators=(",", ":"), ensure_ascii=False)
    return '"' + hashlib.sha512(escape_html(raw).encode("utf-8")).hexdigest().upper() + '"'


def response(resource_lists: Callable[[], Iterable[dict[str, Any]]], media: str,
             if_none_match: str | None) -> web.Response:
    """`ServeHTTPWithETag`: ETag, `Vary: Accept` (JSON and YAML share the ETag) and `Cache-Control: public`
    on every answer; 304 without body when If-None-Match is exactly the quoted ETag (no list, no weak form)."""
    items = _items(resource_lists())
    tag = etag(items)
    headers = {"ETag": tag, "Vary": "Accept", "Cache-Control": "public"}
    if if_none_match == tag:
        return web.Response(status=304, headers=headers)
    doc = {"kind": KIND, "apiVersion": f"{GROUP}/{VERSION}", "metadata": {}, "items": items}
    if media == JSON:
        body = dumps_line(doc)  # `ServeHTTPWithETag` writes it with WriteObjectNegotiated
    elif media == YAML:
        body = yaml_dumps(doc)
    else:  # `select` never returns anything else
        raise E.not_acceptable()
    headers["Content-Type"] = media + _GVK_PARAMS
    return web.Response(body=body, headers=headers)
