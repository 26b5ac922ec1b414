"""``/openapi/v2`` and ``/openapi/v3`` documents describing the served kinds.

``kubectl create -f`` / ``apply -f`` download ``/openapi/v3`` (then ``/openapi/v3/api/v1``)
before sending anything and fail without it; from it they learn that the server supports
``fieldValidation`` (PATCH operations carrying that query parameter, matched by
``x-kubernetes-group-version-kind``) and the strategic-merge patch metadata.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from ..goport.gobase64 import canonical_std
from . import crdopenapi, crdtypes, jsonkindschemas, openapi_builder, openapi_routes, schema
from .gotypes import kind_word
from .kinds import DEFAULT_KINDS, KindInfo
from .openapi_routes import SCALE, api_root, definition_prefix
from .openapi_schemas import closure, definition_name, known_fields, message_schema

__all__ = ["openapi_v2", "openapi_v2_protobuf", "openapi_v3_protobuf", "openapi_v3_root", "openapi_v3_group", "openapi_v3_documents", "known_fields",
           "group_hash"]

INFO = {"title": "Kubernetes", "version": "v1.33.0"}
_META = "io.k8s.apimachinery.pkg.apis.meta.v1"


def _ref(definition: str, v3: bool) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{definition}" if v3 else f"#/definitions/{definition}"}


def _meta_definitions(v3: bool) -> dict[str, Any]:
    """Envelope types that are not request bodies: ListMeta, Status, WatchEvent, Patch."""
    s, i = {"type": "string"}, {"type": "integer", "format": "int32"}
    cause = {"type": "object", "properties": {"field": s, "message": s, "reason": s}}
    return {
        f"{_META}.ListMeta": {"type": "object", "properties": {
            "continue": s, "remainingItemCount": {"type": "integer", "format": "int64"}, "resourceVersion": s,
            "selfLink": s}},
        f"{_META}.StatusCause": cause,
        f"{_META}.StatusDetails": {"type": "object", "properties": {
            "causes": {"type": "array", "items": _ref(f"{_META}.StatusCause", v3),
                       "x-kubernetes-list-type": "atomic"},
            "group": s, "kind": s, "name": s, "retryAfterSeconds": i, "uid": s}},
        f"{_META}.Status": {"type": "object", "properties": {
            "apiVersion": s, "kind": s, "code": i, "details": _ref(f"{_META}.StatusDetails", v3),
            "message": s, "metadata": _ref(f"{_META}.ListMeta", v3), "reason": s, "status": s},
            "x-kubernetes-group-version-kind": [{"group": "", "kind": "Status", "version": "v1"}]},
        f"{_META}.WatchEvent": {"type": "object", "required": ["type", "object"], "properties": {
            "object": {"type": "object"}, "type": s},
            "x-kubernetes-group-version-kind": [{"group": "", "kind": "WatchEvent", "version": "v1"}]},
        f"{_META}.Patch": {"type": "object"},
    }


_CONVENTIONS = "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
API_VERSION_DOC = ("APIVersion defines the versioned schema of this representation of an object. Servers should "
                   "convert recognized schemas to the latest internal value, and may reject unrecognized values. "
                   f"More info: {_CONVENTIONS}#resources")
KIND_DOC = ("Kind is a string value representing the REST resource this object represents. Servers may infer this "
            "from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: "
            f"{_CONVENTIONS}#types-kinds")


def model_message(k: KindInfo) -> str | None:
    """The field-model message of a served kind (`core.Pod`, `apps.Deployment`, `authorization.SubjectAccessReview`),
    None for a kind the model lacks. A kind added to `schema.GROUP_KINDS` (or `OUTPUT_MESSAGES`) with its messages
    in `_proto_table` gets its full schema from here, with no other step."""
    key = (k.group_version, k.kind)
    message = schema.OUTPUT_MESSAGES.get(key) or schema.BODY_MESSAGES.get(key)
    return message if message is not None and message in schema.MESSAGES else None


def _definitions(kinds: Sequence[KindInfo], v3: bool, scale: bool = False, object_meta: bool = False
                 ) -> dict[str, Any]:
    """The definitions of `kinds` and the envelopes they use (`scale`, `object_meta`: Scale and ObjectMeta too)."""
    roots = [m for m in (model_message(k) for k in kinds) if m is not None]
    roots.append("meta.DeleteOptions")
    if object_meta or any(model_message(k) is None for k in kinds):  # a metadata-only kind refers to ObjectMeta
        roots.append("meta.ObjectMeta")
    has_scale = scale or any("scale" in k.subresources for k in kinds)
    if has_scale:
        roots.append("autoscaling.Scale")
    extra = {definition: gvk for k in kinds for _, _, definition, gvk in openapi_routes.posted(k)}
    roots += [message for k in kinds for _, message, _, _ in openapi_routes.posted(k)]
    # message_schema is memoised and shared: copy the top level, which is all this function changes
    defs = {definition_name(m): dict(message_schema(m, v3)) for m in closure(roots)}
    defs.update(_meta_definitions(v3))
    s = {"type": "string"}
    type_meta = {"apiVersion": {"description": API_VERSION_DOC, "type": "string"},
                 "kind": {"description": KIND_DOC, "type": "string"}}
    for k in kinds:
        name = f"{definition_prefix(k)}.{k.kind}"
        if name not in defs and k.crd is None and jsonkindschemas.described(k.group, k.kind):  # CRDs, APIServices
            defs.update({n: d for n, d in jsonkindschemas.definitions(k.kind, definition_prefix(k), v3).items()
                         if n not in defs})
        if name not in defs:  # a kind the field model lacks: its metadata only
            defs[name] = {"type": "object", "properties": {"metadata": _group_ref(f"{_META}.ObjectMeta", v3)},
                          "x-kubernetes-preserve-unknown-fields": True}
        obj = defs[name]
        obj["properties"] = {**type_meta, **obj["properties"]}
        obj["x-kubernetes-group-version-kind"] = [k.gvk()]
        if "list" not in k.verbs:  # a create-only kind (the access reviews, Binding) has no list type
            continue
        defs[f"{definition_prefix(k)}.{k.list_kind_name}"] = {
            "type": "object", "required": ["items"],
            "properties": {"apiVersion": s, "kind": s,  # items and metadata held by value: `default: {}` in v3
                           "items": {"type": "array", "items": _group_ref(name, v3)},
                           "metadata": _group_ref(f"{_META}.ListMeta", v3)},
            "x-kubernetes-group-version-kind": [{**k.gvk(), "kind": k.list_kind_name}]}
    if has_scale:
        scale = defs[SCALE]
        scale["properties"] = {**type_meta, **scale["properties"]}
        scale["x-kubernetes-group-version-kind"] = [{"group": "autoscaling", "kind": "Scale", "version": "v1"}]
    for definition, gvk in extra.items():  # what is posted to a subresource: Eviction, TokenRequest
        posted = defs[definition]
        posted["properties"] = {**type_meta, **posted["properties"]}
        posted["x-kubernetes-group-version-kind"] = [gvk]
    delete_options = defs[f"{_META}.DeleteOptions"]
    delete_options["properties"] = {"apiVersion": s, "kind": s, **delete_options["properties"]}
    delete_options["x-kubernetes-group-version-kind"] = [
        {"group": "", "kind": "DeleteOptions", "version": "v1"},
        {"group": "meta.k8s.io", "kind": "DeleteOptions", "version": "v1"}]
    return defs


def _group_ref(definition: str, v3: bool) -> dict[str, Any]:
    """A reference as kube-openapi v3 writes one (allOf-wrapped, so siblings are legal); plain `$ref` in v2."""
    if v3:
        return {"allOf": [{"$ref": f"#/components/schemas/{definition}"}], "default": {}}
    return {"$ref": f"#/definitions/{definition}"}


def _paths(kinds: Sequence[KindInfo], v3: bool) -> dict[str, Any]:
    """The installer's routes of every kind, built into paths as kube-openapi builds them."""
    return openapi_builder.paths([r for k in kinds for r in openapi_routes.routes(k)], v3)


def _published_crd(k: KindInfo) -> bool:
    """A custom resource's version the CRD OpenAPI controllers publish: a served one."""
    return any(isinstance(v, dict) and v.get("name") == k.version and v.get("served")
               for v in k.crd["spec"].get("versions") or [])


def _split(kinds: Sequence[KindInfo]) -> tuple[list[KindInfo], list[KindInfo]]:
    """(built-in kinds with the legacy `bindings`, published custom resource versions)."""
    builtin = openapi_routes.with_bindings([k for k in kinds if k.crd is None])
    return builtin, [k for k in kinds if k.crd is not None and _published_crd(k)]


_TYPE_META_V2 = {"apiVersion": {"description": API_VERSION_DOC, "type": "string"},
                 "kind": {"description": KIND_DOC, "type": "string"}}


def _crd_parts(crds: Sequence[KindInfo], v3: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The custom resources' paths and definitions (wire/crdopenapi.py), merged as `builder.MergeSpecs` does."""
    paths: dict[str, Any] = {}
    defs: dict[str, Any] = {}
    for k in crds:
        paths.update(crdopenapi.paths(k.crd, k.version, v3, crdopenapi.version_subresources(k.crd, k.version)))
        defs.update(crdopenapi.definitions(k.crd, k.version, v3, _TYPE_META_V2))
    return paths, defs


def openapi_v2(kinds: Sequence[KindInfo]) -> dict[str, Any]:
    """The Swagger 2.0 document for ``GET /openapi/v2`` (JSON; kubectl asks for protobuf here): the built-in
    kinds', with the custom resources' merged in (`builder.MergeSpecs`: the static spec wins a conflict)."""
    from .descriptions import describe  # upstream's words: read with the first document, not at start-up
    builtin, crds = _split(kinds)
    paths, defs = _paths(builtin, v3=False), describe(_definitions(builtin, v3=False), v3=False)
    if crds:
        crd_paths, crd_defs = _crd_parts(crds, v3=False)
        if any("scale" in crdopenapi.version_subresources(k.crd, k.version) for k in crds) and SCALE not in defs:
            defs.update({n: d for n, d in describe(_definitions([], v3=False, scale=True), v3=False).items()
                         if n not in defs})
        paths = {**crd_paths, **paths}
        defs = {**crd_defs, **defs}
    doc = {"swagger": "2.0", "info": dict(INFO), "paths": dict(sorted(paths.items())), "definitions": defs,
           "securityDefinitions": {"BearerToken": {"type": "apiKey", "name": "authorization", "in": "header"}},
           "security": [{"BearerToken": []}]}
    return openapi_builder.deduplicate(doc)  # each spec's `deduplicateParameters`, then merged: the same names


def openapi_v3_crd_group(crds: Sequence[KindInfo]) -> dict[str, Any]:
    """One group-version's custom resources in OpenAPI 3.0 (`controller/openapiv3`: each CRD's `BuildOpenAPIV3`
    merged into the group-version's document, the first one's info kept), with the built-in definitions they
    reference (ObjectMeta, ListMeta, Status, Patch, DeleteOptions, Scale and theirs)."""
    from .descriptions import describe
    paths, defs = _crd_parts(crds, v3=True)
    scale = any("scale" in crdopenapi.version_subresources(k.crd, k.version) for k in crds)
    support = describe(_definitions([], v3=True, scale=scale, object_meta=True), v3=True)
    support.pop(f"{_META}.WatchEvent", None)
    return {"openapi": "3.0.0", "info": dict(crdopenapi.INFO), "paths": dict(sorted(paths.items())),
            "components": {"schemas": dict(sorted({**support, **defs}.items()))}}


def openapi_v2_protobuf(doc: dict[str, Any]) -> bytes:
    """The v2 document as gnostic's protobuf `openapi.v2.Document` (kube-openapi's `ToProtoBinary`)."""
    from .openapi_pb import document
    return document(doc)


def openapi_v3_protobuf(doc: dict[str, Any]) -> bytes:
    """A v3 group-version document as gnostic's protobuf `openapi.v3.Document` (kube-openapi's `ToV3ProtoBinary`)."""
    from .openapi3_pb import document
    return document(doc)


def openapi_v3_group(kinds: Sequence[KindInfo]) -> dict[str, Any]:
    """The OpenAPI 3.0 document for ``GET /openapi/v3/api/v1`` (or another built-in group-version's)."""
    from .descriptions import describe
    kinds = openapi_routes.with_bindings(kinds)
    return {"openapi": "3.0.0", "info": dict(INFO), "paths": dict(sorted(_paths(kinds, v3=True).items())),
            "components": {"schemas": describe(_definitions(kinds, v3=True), v3=True),
                           "securitySchemes": {"BearerToken": {"type": "apiKey", "name": "authorization",
                                                               "in": "header"}}}}


def group_hash(doc: dict[str, Any]) -> str:
    """Content hash used in ``serverRelativeURL`` (upstream: uppercase hex SHA-512 of the doc)."""
    return hashlib.sha512(json.dumps(doc, sort_keys=True).encode()).hexdigest().upper()


def openapi_v3_documents(kinds: Sequence[KindInfo]) -> dict[str, dict[str, Any]]:
    """One OpenAPI 3.0 document per served group-version, keyed by its ``/openapi/v3/<key>`` path
    (``api/v1``, ``apis/rbac.authorization.k8s.io/v1``, ...), as kube-apiserver serves every group-version.
    kubectl looks a kind's group-version up here (``fieldValidation`` support, patch metadata) and falls
    back to the protobuf ``/openapi/v2`` only when it is missing."""
    builtin, crds = _split(kinds)
    by_gv: dict[str, list[KindInfo]] = {}
    for k in builtin:
        by_gv.setdefault(api_root(k).lstrip("/"), []).append(k)
    crd_gv: dict[str, list[KindInfo]] = {}
    for k in crds:
        crd_gv.setdefault(api_root(k).lstrip("/"), []).append(k)
    docs = {key: openapi_v3_group(ks) for key, ks in by_gv.items()}
    docs.update({key: openapi_v3_crd_group(ks) for key, ks in crd_gv.items() if key not in docs})
    return dict(sorted(docs.items()))


def openapi_v3_root(kinds: Sequence[KindInfo] | None = None, group_doc: dict[str, Any] | None = None,
                    documents: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The discovery document for ``GET /openapi/v3``: where each group-version's doc lives.

    Pass the already-built documents (``openapi_v3_documents``; or just the core ``group_doc``; or the
    kinds, default ``DEFAULT_KINDS``) so each hash matches what its path serves; clients cache by that URL.
    """
    if documents is None:
        if group_doc is not None:
            documents = {"api/v1": group_doc}
        else:
            documents = openapi_v3_documents(DEFAULT_KINDS if kinds is None else kinds)
    return {"paths": {key: {"serverRelativeURL": f"/openapi/v3/{key}?hash={group_hash(doc)}"}
                      for key, doc in documents.items()}}


_TYPE_DEFS: dict[tuple[str, str, str], dict[str, Any]] = {}


def type_error(group: str, version: str, kind: str, obj: Any) -> str | None:
    """Where `obj` breaks the JSON shape of its kind's schema (an object where a scalar belongs, a scalar
    where an object/array belongs), as decoding reports it (`json: cannot unmarshal ...`); None when it fits.
    On the way, a `format: byte` string's base64 is made canonical in place (Go's decode-then-encode).

    Lenient on scalars (quantities and int-or-strings take numbers and strings): the point is the 400 a
    typed decoder answers instead of a strategy meeting a shape it cannot walk. A CRD and an APIService, outside
    the field model, are their Go types' (`crdtypes`; an APIService's `apiservicetypes` at decoding), not their
    published schemas' (whose `JSON` and `JSONSchemaPropsOr*` have no type)."""
    if jsonkindschemas.described(group, kind):  # their Go types' decoders (crdtypes.py, apiservicetypes.py)
        return crdtypes.type_error(obj) if kind == "CustomResourceDefinition" and isinstance(obj, dict) else None
    defs, root = kind_schema(group, version, kind)
    return _shape_error(defs, root, obj, kind, 0)


def kind_schema(group: str, version: str, kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The v2 definitions of one kind and its root schema, built once per kind (the request path only reads
    them: the shape check above and the strategic-merge metadata of `wire.patchmeta`)."""
    key = (group, version, kind)
    defs = _TYPE_DEFS.get(key)
    if defs is None:
        defs = _TYPE_DEFS[key] = _definitions([KindInfo(kind, "", "", True, group=group, version=version)], v3=False)
    k = KindInfo(kind, "", "", True, group=group, version=version)
    return defs, defs.get(f"{definition_prefix(k)}.{kind}", {})


_TYPE_DEFS_V3: dict[tuple[str, str, str], dict[str, Any]] = {}


def kind_schema_v3(group: str, version: str, kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """`kind_schema` in OpenAPI v3 (what upstream's server-side apply types a configuration with:
    `getOpenAPIModels`), built once per kind on the first apply."""
    key = (group, version, kind)
    defs = _TYPE_DEFS_V3.get(key)
    k = KindInfo(kind, "", "", True, group=group, version=version)
    if defs is None:
        defs = _TYPE_DEFS_V3[key] = _definitions([k], v3=True)
    return defs, defs.get(f"{definition_prefix(k)}.{kind}", {})


def _shape_error(defs: dict[str, Any], schema: dict[str, Any], value: Any, path: str, depth: int) -> str | None:
    if value is None or depth > 40:
        return None
    ref = schema.get("$ref") or next((s.get("$ref") for s in schema.get("allOf") or [] if "$ref" in s), None)
    if ref:
        return _shape_error(defs, defs.get(ref.rsplit("/", 1)[-1], {}), value, path, depth + 1)
    typ = schema.get("type")
    if typ == "object" or "properties" in schema:
        if not isinstance(value, dict):
            return f"json: cannot unmarshal {kind_word(value)} into Go struct field {path} of type object"
        if schema.get("x-kubernetes-preserve-unknown-fields"):
            return None
        props, extra = schema.get("properties") or {}, schema.get("additionalProperties")
        for name, sub in value.items():
            sub_schema = props.get(name) if name in props else extra if isinstance(extra, dict) else None
            if sub_schema is not None:
                err = _shape_error(defs, sub_schema, sub, f"{path}.{name}", depth + 1)
                if err:
                    return err
                if type(sub) is str and sub_schema.get("format") == "byte":  # decoded, answered re-encoded
                    value[name] = canonical_std(sub)
        return None
    if typ == "array":
        if not isinstance(value, list):
            return f"json: cannot unmarshal {kind_word(value)} into Go struct field {path} of type array"
        items = schema.get("items") or {}
        for i, item in enumerate(value):
            err = _shape_error(defs, items, item, path, depth + 1)
            if err:
                return err
            if type(item) is str and items.get("format") == "byte":
                value[i] = canonical_std(item)
        return None
    if typ in ("string", "integer", "number", "boolean") and isinstance(value, (dict, list)):
        return f"json: cannot unmarshal {kind_word(value)} into Go struct field {path} of type {typ}"
    return None
