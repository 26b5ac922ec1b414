"""Named API groups (`/apis/<group>/<version>/...`): routing, discovery documents and body decoding.

Served: `authorization.k8s.io/v1` always (its create-only, unstored access reviews, as kube-apiserver
always installs them), plus every group whose stores are registered (`Registry.add_group_store`), the RBAC
kinds among them in every authorization mode.
"""
from __future__ import annotations

import base64
import hashlib
from typing import Any, Callable

from .. import apierrors as E
from ..goport import gojsonraw
from ..auth.review import BY_PLURAL as REVIEWS, GROUP as AUTHZ_GROUP, REVIEW_KINDS, VERSION as AUTHZ_VERSION
from ..fieldmanager.manager import refuse_raw_overflow
from ..registry import GenericStore, Registry
from ..registry.apipriority import group_priorities
from ..wire import gotypes, legacyscheme
from ..wire.dupkeys import Repeats
from ..wire.schema import GROUP_KINDS
from . import apiservice_groups, crbodygvk, extensions, hooks
from .decode import (JSON_TYPES, PROTOBUF_TYPE, YAML_TYPE, cannot_be_handled, custom_kind_error, decode_value,
                     media_type, parse_raw, refuse_unhandled, summarize)
from .router import Route

COLLECTION = ("GET", "POST", "DELETE")
AUTHN_GROUP, AUTHN_VERSION = "authentication.k8s.io", "v1"
# create-only, unstored, cluster-scoped (http/authentication.py): plural → (Kind, singular)
AUTHN_RESOURCES = {"selfsubjectreviews": ("SelfSubjectReview", "selfsubjectreview"),
                   "tokenreviews": ("TokenReview", "tokenreview")}
ITEM = ("GET", "PUT", "PATCH", "DELETE")


# kube-aggregator's built-in APIService priorities (registry/apipriority.py, GroupPriorityMinimum): `/apis`,
# legacy and aggregated alike, lists groups by descending priority, then by name.
_PRIORITY = group_priorities()


def _groups(registry: Registry) -> dict[str, str]:
    """group → preferred version of every served named group (registry/versions.py orders a group's versions)."""
    groups = {g: registry.group_versions(g)[0] for g in {s.group for s in registry.group_stores()}}  # type: ignore[attr-defined]
    groups[AUTHZ_GROUP] = AUTHZ_VERSION
    groups[AUTHN_GROUP] = AUTHN_VERSION
    for group, version in extensions.unavailable_groups(registry).items():  # unreachable aggregated APIs
        groups.setdefault(group, version)
    return groups


def served_groups(registry: Registry) -> list[tuple[str, str]]:
    """(group, version) of every served named group, in upstream's `/apis` order (shared by the legacy
    APIGroupList and the aggregated APIGroupDiscoveryList, so the two never disagree)."""
    return sorted(_groups(registry).items(), key=lambda gv: (-extensions.priority(registry, gv[0], _PRIORITY), gv[0]))


def match_group(registry: Registry, path: str) -> tuple[Route, tuple[str, ...]]:
    """Route a `/apis/...` path (the named-group counterpart of `Router._match_v1`)."""
    segs = path[len("/apis/"):].split("/")
    if len(segs) > 1 and segs[-1] == "":
        segs = segs[:-1]
    groups = _groups(registry)
    group = segs[0]
    if group not in groups:
        if len(segs) == 1 and apiservice_groups.api_group(registry, group) is not None:
            return Route("group", group=group), ("GET",)  # a local APIService of a group nothing serves
        if _installing(registry, group, segs):
            return _match_resource(registry, group, segs[2:], version=segs[1])
        return Route("plain-404"), ()
    if len(segs) == 1:
        return Route("group", group=group), ("GET",)
    if segs[1] not in group_versions(registry, group):
        if _installing(registry, group, segs):
            return _match_resource(registry, group, segs[2:], version=segs[1])
        return Route("plain-404"), ()
    if extensions.is_unavailable(registry, group, segs[1]):
        return Route("unavailable", group=group), ("GET", "POST", "PUT", "PATCH", "DELETE")
    if len(segs) == 2:
        return Route("group-version", group=group, version=segs[1]), ("GET",)
    if group == AUTHZ_GROUP:
        return _match_review(segs[2:])
    if group == AUTHN_GROUP:
        if len(segs) == 3 and segs[2] in AUTHN_RESOURCES:
            return Route("review", segs[2], group=AUTHN_GROUP), ("POST",)
        raise E.route_not_found()
    return _match_resource(registry, group, segs[2:], version=segs[1])


def _installing(registry: Registry, group: str, segs: list[str]) -> bool:
    """A resource path of a CRD whose names are accepted but which discovery does not list yet (not Established):
    upstream's crdHandler serves it all the same (`customresource_handler.go` ServeHTTP looks the CRD up by
    `<resource>.<group>`, not the discovery documents)."""
    rest = segs[2:]
    if rest[:1] == ["watch"]:
        rest = rest[1:]
    plural = rest[2] if len(rest) >= 3 and rest[0] == "namespaces" else (rest[0] if rest else "")
    return bool(plural) and registry.custom.lookup(group, plural, segs[1]) is not None


def group_versions(registry: Registry, group: str) -> list[str]:
    """Every served version of `group`, the preferred one first (registry/versions.py)."""
    return registry.group_versions(group) or [_groups(registry)[group]]


def _match_review(segs: list[str]) -> tuple[Route, tuple[str, ...]]:
    """Access reviews: only `POST` on the collection path is installed (any other verb there: 405; any other
    path, `watch/` included: 404)."""
    if len(segs) == 3 and segs[0] == "namespaces" and segs[2] in REVIEWS and REVIEWS[segs[2]].namespaced:
        return Route("review", segs[2], namespace=segs[1], group=AUTHZ_GROUP), ("POST",)
    if len(segs) == 1 and segs[0] in REVIEWS and not REVIEWS[segs[0]].namespaced:
        return Route("review", segs[0], group=AUTHZ_GROUP), ("POST",)
    raise E.route_not_found()


def _match_resource(registry: Registry, group: str, segs: list[str],
                    watch: bool = False, version: str = "") -> tuple[Route, tuple[str, ...]]:
    route, methods = _match_versionless(registry, group, segs, watch, version)
    return (Route(route.target, route.resource, route.namespace, route.name, route.watch_path, group, version)
            if version else route), methods


def _match_versionless(registry: Registry, group: str, segs: list[str],
                       watch: bool = False, version: str = "") -> tuple[Route, tuple[str, ...]]:
    nf = E.route_not_found
    if segs[0] == "watch" and not watch:
        if len(segs) < 2:
            raise nf()
        route, _ = _match_versionless(registry, group, segs[1:], True, version)
        if route.target not in ("collection", "item", "cluster"):
            raise nf()
        return Route(route.target, route.resource, route.namespace, route.name, True, group), ("GET",)
    if segs[0] == "namespaces" and len(segs) >= 3:
        ns, plural, rest = segs[1], segs[2], segs[3:]
        store = registry.group(group, plural, version)
        if store is None or not store.info.namespaced:
            raise nf()
        if not rest:
            return Route("collection", plural, namespace=ns, group=group), COLLECTION
        if len(rest) == 1:
            return Route("item", plural, namespace=ns, name=rest[0], group=group), ITEM
        if rest[1:] == ["status"] and getattr(store, "status_strategy", None) is not None and not watch:
            return Route("status", plural, namespace=ns, name=rest[0], group=group), ("GET", "PUT", "PATCH")
        if rest[1:] == ["scale"] and "scale" in getattr(store, "subresources", {}) and not watch:
            return Route("scale", plural, namespace=ns, name=rest[0], group=group), ("GET", "PUT", "PATCH")
        raise nf()
    store = registry.group(group, segs[0], version)
    if store is None:
        raise nf()
    if store.info.namespaced:
        if len(segs) == 1:
            return Route("cluster", segs[0], group=group), ("GET",)
        raise nf()
    if len(segs) == 1:
        return Route("collection", segs[0], group=group), COLLECTION
    if len(segs) == 2:
        return Route("item", segs[0], name=segs[1], group=group), ITEM
    if segs[2:] == ["status"] and getattr(store, "status_strategy", None) is not None and not watch:
        return Route("status", segs[0], name=segs[1], group=group), ("GET", "PUT", "PATCH")
    if segs[2:] == ["scale"] and "scale" in getattr(store, "subresources", {}) and not watch:  # cluster-scoped CRs'
        return Route("scale", segs[0], name=segs[1], group=group), ("GET", "PUT", "PATCH")
    if len(segs) == 3 and segs[2] in getattr(store, "extra_subresources", {}) and not watch:  # CSRs' /approval
        return Route(segs[2], segs[0], name=segs[1], group=group), ("GET", "PUT", "PATCH")
    raise nf()


def _version_entry(group: str, version: str) -> dict[str, str]:
    return {"groupVersion": f"{group}/{version}", "version": version}


def api_group(group: str, version: str, versions: list[str] | None = None) -> dict[str, Any]:
    """An APIGroup: every served version (preferred first, as upstream orders them) and the preferred one."""
    return {"name": group, "versions": [_version_entry(group, v) for v in versions or [version]],
            "preferredVersion": _version_entry(group, version)}


def api_group_list(registry: Registry) -> dict[str, Any]:
    """`/apis` (legacy): kube-aggregator's, from the APIService objects (http/apiservice_groups.py)."""
    return apiservice_groups.api_group_list(registry)


def api_group_document(registry: Registry, group: str) -> dict[str, Any]:
    """`/apis/<group>`: the aggregator's document of the group's APIServices, else the served group's."""
    found = apiservice_groups.api_group(registry, group)
    if found is not None:
        return found
    return {"kind": "APIGroup", "apiVersion": "v1",
            **api_group(group, _groups(registry)[group], group_versions(registry, group))}


def _hash(group_version: str, kind: str) -> str:
    return base64.b64encode(hashlib.sha256(f"{group_version}/{kind}".encode()).digest()[:8]).decode()


def api_resource_list(registry: Registry, group: str, version: str = "") -> dict[str, Any]:
    """`/apis/<group>/<version>`: the group's resources, sorted by name, verbs sorted (`version`: the preferred
    one when not given)."""
    gv = f"{group}/{version or _groups(registry)[group]}"
    if extensions.is_unavailable(registry, group, gv.rpartition("/")[2]):
        return extensions.stale_resource_list(group, gv.rpartition("/")[2])
    resources: list[dict[str, Any]] = []
    if group == AUTHZ_GROUP:  # not storage-backed: no storageVersionHash, as upstream
        resources = [{"name": k.plural, "singularName": k.singular, "namespaced": k.namespaced, "kind": k.kind,
                      "verbs": ["create"]} for k in REVIEW_KINDS]
    if group == AUTHN_GROUP:
        resources = [{"name": plural, "singularName": singular, "namespaced": False, "kind": kind,
                      "verbs": ["create"]} for plural, (kind, singular) in AUTHN_RESOURCES.items()]
    stores = registry.version_stores(group, gv.rpartition("/")[2]) if version else registry.group_stores(group)
    for s in stores:
        info = s.info
        entry: dict[str, Any] = {"name": info.plural, "singularName": info.singular,
                                 "namespaced": info.namespaced, "kind": info.kind, "verbs": sorted(info.verbs)}
        if info.short_names:
            entry["shortNames"] = list(info.short_names)
        categories = info.categories or tuple(getattr(s, "categories", ()))  # CRDs keep theirs on the store
        if categories:
            entry["categories"] = list(categories)
        entry["storageVersionHash"] = _hash(getattr(s, "storage_api_version", gv), info.kind)  # storage version's
        resources.append(entry)
        if "scale" in getattr(s, "subresources", {}):  # registry/subresources.py: an autoscaling/v1 Scale
            resources.append({"name": f"{info.plural}/scale", "singularName": "", "namespaced": info.namespaced,
                              "group": "autoscaling", "version": "v1", "kind": "Scale",
                              "verbs": ["get", "patch", "update"]})
        if getattr(s, "status_strategy", None) is not None:  # CRDs, APIServices, custom resources with status
            resources.append({"name": f"{info.plural}/status", "singularName": "", "namespaced": info.namespaced,
                              "kind": info.kind, "verbs": ["get", "patch", "update"]})
        for sub in getattr(s, "extra_subresources", {}):  # CSRs' /approval
            resources.append({"name": f"{info.plural}/{sub}", "singularName": "", "namespaced": info.namespaced,
                              "kind": info.kind, "verbs": ["get", "patch", "update"]})
    resources.sort(key=lambda r: r["name"])
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}


def decode_group_body(content_type: str | None, raw: bytes, store: GenericStore,
                      repeats: list[Repeats] | None = None, strict: bool = True) -> dict[str, Any]:
    """Decode a body for a named-group resource: `apiVersion` must be `<group>/<version>` (or absent). JSON/YAML:
    the core decoder does the rest with the version swapped to `v1` for its checks; protobuf (what typed clients
    such as `kubectl create deployment|role` send): the built-in kinds' messages (`wire.protobuf.decode_stored`).
    `repeats`: as `decode.parse_raw`'s; `strict`: the strict serializer decodes (fieldValidation Strict or Warn),
    which words a custom resource's missing kind its own way (`decode.custom_kind_error`)."""
    api_version, kind = store.api_version, store.info.kind  # type: ignore[attr-defined]
    stored_kind = hooks.wire_attr("protobuf", "stored_kind")
    decode_stored = hooks.wire_attr("protobuf", "decode_stored")
    if media_type(content_type) == PROTOBUF_TYPE and stored_kind and decode_stored and stored_kind(api_version, kind):
        obj = decode_unstored_body(content_type, raw, api_version, kind,
                                   lambda body: decode_stored(body, api_version, kind))  # type: ignore[misc]
    else:
        # a custom resource's own kind name, not a core kind's of the same name (`Service`: Knative's)
        obj = decode_named_body(content_type, raw, api_version, kind, getattr(store, "schema_kind", None)
                                if getattr(store, "crd_name", None) else None, repeats, strict)
    check_shape(store, obj)
    keep_raw_bytes(obj, content_type, raw, api_version, kind)
    return obj


def keep_raw_bytes(obj: dict[str, Any], content_type: str | None, raw: bytes, api_version: str, kind: str) -> None:
    """The kind's `RawExtension` fields held with the bytes Go's decoder keeps (gojsonraw.py): a JSON body's own,
    a YAML body's as `YAMLToJSON` wrote them (a protobuf body's `raw`: wire/protobuf.py keeps it)."""
    fields = gotypes.raw_fields(api_version, kind)
    if not fields:
        return
    mt = media_type(content_type)
    if mt in JSON_TYPES:
        gojsonraw.attach(obj, fields, raw)
    elif mt == YAML_TYPE:
        gojsonraw.from_value(obj, fields)


def raw_before_patch(store: GenericStore, current: dict[str, Any], patch_type: str) -> gojsonraw.PatchBase | None:
    """A JSON or merge patch of a kind with `RawExtension` fields: what `gojsonraw.repatched` needs of the current
    object (the patch runs on its JSON, whose bytes evanphx/json-patch keeps where it does not touch them); None
    for every other patch and kind."""
    if patch_type not in ("application/json-patch+json", "application/merge-patch+json"):
        return None
    fields = gotypes.raw_fields(getattr(store, "api_version", "v1"), store.info.kind)
    return gojsonraw.before_patch(current, fields) if fields else None


def check_shape(store: GenericStore, obj: dict[str, Any]) -> None:
    """400 when the object does not decode into its kind's Go type, as a typed decoder refuses it, before any
    strategy walks it: through the field model's Go type (`wire.gotypes`, for the built-in kinds it describes: a
    `replicas: "x"`, a list given an object), else the JSON shapes of its OpenAPI schema (`wire.openapi.type_error`)."""
    kind, version = store.info.kind, store.version  # type: ignore[attr-defined]
    message = go_message(store.group, version, kind)  # type: ignore[attr-defined]
    if message is not None:  # the Go type's walk covers the schema's shapes too: one walk, not two
        # (a number no float64 holds outside its typed and raw-JSON fields is in an unknown field, which Go's
        # decoder skips: the field validation drops it, or names it under Strict)
        err = gotypes.type_error(obj, message)
        if err is None:
            refuse_raw_overflow(obj)  # the field manager's walk, before admission
    else:
        check = hooks.wire_attr("openapi", "type_error")
        err = check(store.group, version, kind, obj) if check is not None else None  # type: ignore[attr-defined]
    if err:
        raise cannot_be_handled(kind, version, kind, err)


def go_message(group: str, version: str, kind: str) -> str | None:
    """The field model's message of a named group's kind (`wire.schema.GROUP_KINDS`), or None."""
    found = GROUP_KINDS.get(f"{group}/{version}")
    return f"{found[0]}.{kind}" if found is not None and kind in found[1] else None


def decode_unstored_body(content_type: str | None, raw: bytes, api_version: str, kind: str,
                         protobuf: Callable[[bytes], dict[str, Any]], repeats: list[Repeats] | None = None
                         ) -> dict[str, Any]:
    """The body of a create-only, unstored kind (access reviews, TokenReview, TokenRequest): JSON/YAML through
    `decode_named_body`, protobuf (what kubectl sends) through the group's reader `protobuf`, with upstream's
    400s for an unreadable body, another API version or another kind. `repeats`: as `decode.parse_raw`'s."""
    if media_type(content_type) != PROTOBUF_TYPE:
        return decode_named_body(content_type, raw, api_version, kind, repeats=repeats)
    try:
        obj = protobuf(raw)
    except ValueError as exc:
        raise E.bad_request(f"the object provided is unrecognized (must be of type {kind}): {exc} "
                            f"({summarize(raw)})") from None
    if legacyscheme.holds(api_version.rpartition("/")[0]):  # (the protobuf serializer's `copyKindDefaults`, then
        refuse_unhandled(obj, raw, api_version, kind)      # `unmarshalToObject`: as a JSON body's, bar `a/`)
        return obj
    version = obj.get("apiVersion")
    if version and version != api_version:
        raise E.bad_request(f"the API version in the data ({version}) does not match the expected API version "
                            f"({api_version})")
    if obj.get("kind") != kind:
        raise E.bad_request(f'{obj.get("kind")} in version "v1" cannot be handled as a {kind}')
    return obj


def decode_named_body(content_type: str | None, raw: bytes, api_version: str, kind: str,
                      schema_kind: str | None = None, repeats: list[Repeats] | None = None, strict: bool = True
                      ) -> dict[str, Any]:
    """`decode_group_body` for a kind given by name (the access reviews have no store): JSON or YAML (kube-apiserver
    reads YAML as JSON: `yaml.YAMLToJSON`) parsed once, its `apiVersion` checked against the group's, then the core
    decoder's checks on it (`schema_kind`: the kind the field model knows it by, as in `decode_value`; a custom
    resource's, `<group>/<Kind>`, must name a kind: `decode.custom_kind_error`, under `strict` or not, and keeps
    the version and kind it names, its version checked after the strict errors: http/crbodygvk.py)."""
    custom = schema_kind is not None and "/" in schema_kind
    scheme = None if custom or not legacyscheme.holds(api_version.rpartition("/")[0]) else api_version
    yaml_body = media_type(content_type) == YAML_TYPE
    if media_type(content_type) not in JSON_TYPES and not yaml_body:
        obj = decode_value(parse_raw(content_type, raw, kind), raw, kind, route_version=scheme or "v1")  # (its 415)
    else:
        probe = parse_raw(content_type, raw, kind, repeats)
        if custom and (missing := custom_kind_error(probe, raw, kind, api_version, strict, yaml_body)) is not None:
            raise missing
        if custom and isinstance(probe, dict):  # its own version and kind kept (http/crbodygvk.py)
            return crbodygvk.decoded(probe, api_version, kind, lambda p: decode_value(
                p, raw, kind, schema_kind, route_version=None, yaml_body=yaml_body))
        if isinstance(probe, dict) and scheme is None:  # (another scheme's kind: its version checked here)
            version = probe.get("apiVersion")
            if isinstance(version, str) and version and version != api_version:
                raise E.bad_request(f"the API version in the data ({version}) does not match the expected API "
                                    f"version ({api_version})")
            if isinstance(version, str) and version:
                probe["apiVersion"] = "v1"
        obj = decode_value(probe, raw, kind, schema_kind, route_version=scheme, yaml_body=yaml_body)
    obj["apiVersion"] = api_version
    return obj
