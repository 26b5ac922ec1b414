"""A custom resource's OpenAPI paths and definitions, as kube-apiserver publishes them.

Follows apiextensions-apiserver `pkg/controller/openapi/builder/builder.go` (1.33): `generateBuilder`'s routes
(no watch routes: list, create, deletecollection, get, put, delete, patch; status and scale when the version has
them; the `ForAllNamespaces` list of a namespaced kind), `buildRoute` (operation ids through apiserver's
`endpoints/openapi.GetOperationIDAndTags`, `descriptionFor`, the options' query parameters, consumes/produces,
responses and the config's 401), `CRDCanonicalTypeNamer` + kube-openapi `util.ToRESTFriendlyName`
(`com.example.stable.v1.CronTab`), `buildKubeNative` (the structural schema unfolded, ObjectMeta's ref,
TypeMeta's apiVersion/kind, embedded resources, the selectable fields; for v2 `controller/openapi/v2/conversion.go`
`ToStructuralOpenAPIV2` and a bare object under preserve-unknown-fields) and `buildListSchema`; names are the
CRD's spec names; the options' query parameters carry their `SwaggerDoc` words. The routes become paths as
kube-openapi's builders make them (`openapi_builder.py`: common parameters lifted, v2's shared ones
deduplicated, v3's request body `required` but DeleteOptions'); builder3 wraps a `$ref` with siblings in an
`allOf`. The controllers (`controller/openapi/controller.go`: v2, defaults pruned with
`handler.PruneDefaults`, merged by `builder.MergeSpecs`, the static spec winning; `controller/openapiv3/
controller.go`: one document per group-version, its CRDs' merged) publish every served version.
"""
from __future__ import annotations

import copy
from typing import Any

from . import openapi_builder
from .openapi_builder import Param, Route
from .openapi_routes import NAMESPACE_DOC, article, operation_id, options, pretty

_META = "io.k8s.apimachinery.pkg.apis.meta.v1"
_CONVENTIONS = "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
OBJECT_META_DOC = f"Standard object's metadata. More info: {_CONVENTIONS}#metadata"
LIST_META_DOC = f"Standard list metadata. More info: {_CONVENTIONS}#types-kinds"
EMBEDDED_API_VERSION_DOC = ("apiVersion defines the versioned schema of this representation of an object. More info: "
                            f"{_CONVENTIONS}#resources")
EMBEDDED_KIND_DOC = ("kind is a string value representing the type of this object. In CamelCase. More info: "
                     f"{_CONVENTIONS}#types-kinds")
SCALE = "io.k8s.api.autoscaling.v1.Scale"
INFO = {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"}

# the structural schema's parts (`apiserver/schema/structural.go`: Generic, ValueValidation, Extensions)
_GENERIC = ("description", "type", "title", "default", "nullable")
_VALUE = ("format", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
          "pattern", "maxItems", "minItems", "uniqueItems", "multipleOf", "enum", "maxProperties", "minProperties",
          "required", "allOf", "oneOf", "anyOf", "not")
_EXTENSIONS = ("x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
               "x-kubernetes-int-or-string", "x-kubernetes-list-map-keys", "x-kubernetes-list-type",
               "x-kubernetes-map-type", "x-kubernetes-validations")
_KEPT = frozenset(_GENERIC + _VALUE + _EXTENSIONS)
_JUNCTORS = ("allOf", "oneOf", "anyOf", "not")

_OPTIONS = {"get": "GetOptions", "list": "ListOptions", "deletecollection": "ListOptions", "put": "UpdateOptions",
            "patch": "PatchOptions", "post": "CreateOptions", "delete": "DeleteOptions"}  # buildRoute's AddObjectParams
_PRODUCES = _CONSUMES = ("application/json", "application/yaml")  # runtime.ContentTypeJSON, ContentTypeYAML
_PATCH_TYPES = ("application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml")


def rest_friendly_name(group: str, version: str, kind: str) -> str:
    """`util.ToRESTFriendlyName("<group>/<version>.<kind>")`: the group's labels reversed (`com.example.stable`)."""
    return ".".join([*reversed(group.split(".")), version, kind])


def _description(kind: str, sub: str, verb: str) -> str:
    """`descriptionFor`."""
    words = {"list": " objects of kind ", "read": " the specified ", "replace": " the specified ",
             "patch": " the specified ", "create": article(kind), "delete": article(kind)}.get(verb, "")
    sub = f" {sub} of" if sub else ""
    if verb == "patch":
        return "partially update" + sub + words + kind
    if verb == "deletecollection":
        return "delete collection of" + (sub + " a" if sub else "") + " " + kind
    return verb + sub + words + kind


def _ref(name: str, v3: bool) -> dict[str, Any]:
    return {"$ref": ("#/components/schemas/" if v3 else "#/definitions/") + name}


class _Names:
    """One CRD version's names (`newBuilder`: spec names, not accepted names)."""

    def __init__(self, crd: dict[str, Any], version: str):
        spec = crd["spec"]
        names = spec["names"]
        self.group, self.version, self.plural = spec["group"], version, names["plural"]
        self.kind = names["kind"]
        self.list_kind = names.get("listKind") or self.kind + "List"
        self.namespaced = spec.get("scope") == "Namespaced"
        self.obj = rest_friendly_name(self.group, version, self.kind)
        self.list = rest_friendly_name(self.group, version, self.list_kind)


def _route(n: _Names, root: str, path: str, method: str, action: str, verb: str, sample: str,
           reads: str | None = None, op_name: str | None = None) -> Route:
    """`buildRoute` (with its `Reads`: a required body, DeleteOptions' not required)."""
    sub = path.split("/")[2] if path.count("/") == 2 else ""
    name = op_name or verb + ("Namespaced" if n.namespaced else "") + n.kind + sub.capitalize()
    op_id, tag = operation_id(verb, name[len(verb):], n.group, n.version)
    params = [pretty(), *options(_OPTIONS[action])]
    if "{namespace}" in root + path:
        params.append(Param("namespace", "path", NAMESPACE_DOC, required=True))
    if "{name}" in root + path:
        params.append(Param("name", "path", f"name of the {n.kind}", required=True))
    if action == "delete":  # `.Reads(&metav1.DeleteOptions{}).ParameterNamed("body").Required(false)`
        params.append(Param("body", "body", "", f"{_META}.DeleteOptions"))
    elif reads is not None:
        params.append(Param("body", "body", "", reads, True))
    codes = {"200": "OK", **{"post": {"201": "Created", "202": "Accepted"}, "delete": {"202": "Accepted"},
                             "put": {"201": "Created"}}.get(action, {})}
    return Route(root + path, method, op_id, tag, _description(n.kind, sub, verb), action,
                 {"group": n.group, "kind": n.kind, "version": n.version}, tuple(params),
                 _PATCH_TYPES if method == "patch" else _CONSUMES, _PRODUCES,
                 tuple((code, words, sample) for code, words in sorted(codes.items())))


def paths(crd: dict[str, Any], version: str, v3: bool, subresources: dict[str, Any]) -> dict[str, Any]:
    """`generateBuilder`'s routes for one served version of `crd`, built into paths as kube-openapi builds them
    (`openapi_builder.py`)."""
    n = _Names(crd, version)
    status, patch = f"{_META}.Status", f"{_META}.Patch"
    routes: list[Route] = []
    root = f"/apis/{n.group}/{n.version}/{n.plural}"
    if n.namespaced:
        routes.append(_route(n, root, "", "get", "list", "list", n.list, op_name=f"list{n.kind}ForAllNamespaces"))
        root = f"/apis/{n.group}/{n.version}/namespaces/{{namespace}}/{n.plural}"
    routes += [_route(n, root, "", "get", "list", "list", n.list),
               _route(n, root, "", "post", "post", "create", n.obj, n.obj),
               _route(n, root, "", "delete", "deletecollection", "deletecollection", status),
               _route(n, root, "/{name}", "get", "get", "read", n.obj),
               _route(n, root, "/{name}", "put", "put", "replace", n.obj, n.obj),
               _route(n, root, "/{name}", "delete", "delete", "delete", status),
               _route(n, root, "/{name}", "patch", "patch", "patch", n.obj, patch)]
    for sub, sample in (("status", n.obj), ("scale", SCALE)):
        if sub in subresources:
            routes += [_route(n, root, f"/{{name}}/{sub}", "get", "get", "read", sample),
                       _route(n, root, f"/{{name}}/{sub}", "put", "put", "replace", sample, sample),
                       _route(n, root, f"/{{name}}/{sub}", "patch", "patch", "patch", sample, patch)]
    return openapi_builder.paths(routes, v3)


def _structural(s: Any) -> Any:
    """The parts of a schema node `NewStructural` keeps (`example`, `externalDocs`, `id`, ... dropped)."""
    if not isinstance(s, dict):
        return s
    out: dict[str, Any] = {k: copy.deepcopy(v) for k, v in s.items() if k in _KEPT}
    for j in ("allOf", "oneOf", "anyOf"):
        if isinstance(s.get(j), list):
            out[j] = [_structural(c) for c in s[j]]
    if isinstance(s.get("not"), dict):
        out["not"] = _structural(s["not"])
    if isinstance(s.get("properties"), dict):
        out["properties"] = {k: _structural(v) for k, v in s["properties"].items()}
    if isinstance(s.get("items"), dict):
        out["items"] = _structural(s["items"])
    if isinstance(s.get("additionalProperties"), dict):
        out["additionalProperties"] = _structural(s["additionalProperties"])
    elif s.get("additionalProperties") is not None:
        out["additionalProperties"] = s["additionalProperties"]
    return out


def _is_int_or_string_any_of(clauses: Any) -> bool:
    return (isinstance(clauses, list) and len(clauses) == 2
            and [c.get("type") if isinstance(c, dict) else None for c in clauses] == ["integer", "string"])


def _unfold(s: Any) -> None:
    """`Structural.Unfold`: an int-or-string node gets `anyOf: [integer, string]` (in front of an allOf when it
    has an anyOf already), unless one of the two patterns is there."""
    if not isinstance(s, dict):
        return
    for key in ("items", "additionalProperties", "not"):
        _unfold(s.get(key))
    for child in (s.get("properties") or {}).values():
        _unfold(child)
    if not s.get("x-kubernetes-int-or-string"):
        return
    all_of = s.get("allOf") or []
    if _is_int_or_string_any_of(s.get("anyOf")) or (
            all_of and isinstance(all_of[0], dict) and _is_int_or_string_any_of(all_of[0].get("anyOf"))):
        return
    pair = [{"type": "integer"}, {"type": "string"}]
    if not s.get("anyOf"):
        s["anyOf"] = pair
    else:
        s["allOf"] = [{"anyOf": pair}, *all_of]


def _to_v2(s: Any) -> None:
    """`ToStructuralOpenAPIV2`: junctors dropped; nullable and preserve-unknown-fields nodes lose items and
    properties (a nullable one its type); an array without items and a preserve-unknown object their type; a
    nullable property leaves its parent's `required`."""
    if not isinstance(s, dict):
        return
    for j in _JUNCTORS:
        s.pop(j, None)
    if s.get("nullable"):
        s.pop("type", None)
        s.pop("nullable")
        s.pop("items", None)
        s.pop("properties", None)
    if s.get("x-kubernetes-preserve-unknown-fields"):
        s.pop("items", None)
        s.pop("properties", None)
    if "items" not in s and s.get("type") == "array":
        s.pop("type")
    if s.get("x-kubernetes-preserve-unknown-fields") and s.get("type") == "object":
        s.pop("type")
    props = s.get("properties") or {}
    nullable = {k for k, v in props.items() if isinstance(v, dict) and v.get("nullable")}
    if nullable and "required" in s:
        s["required"] = [r for r in s["required"] if r not in nullable]
        if not s["required"]:
            del s["required"]
    extra = s.get("additionalProperties")
    if isinstance(extra, dict) and extra.get("nullable"):
        s.pop("required", None)
    for child in props.values():
        _to_v2(child)
    for key in ("items", "additionalProperties"):
        _to_v2(s.get(key))


def _described_ref(name: str, description: str, v3: bool) -> dict[str, Any]:
    """A reference with a description: in v3, builder3's `WrapRefs` puts the `$ref` in an `allOf`."""
    if v3:
        return {"description": description, "allOf": [_ref(name, v3)]}
    return {**_ref(name, v3), "description": description}


def _metadata_ref(v3: bool) -> dict[str, Any]:
    return _described_ref(f"{_META}.ObjectMeta", OBJECT_META_DOC, v3)


def _embedded(s: Any, v2: bool, type_meta: dict[str, Any]) -> None:
    """`addEmbeddedProperties`: an `x-kubernetes-embedded-resource` node gets apiVersion, kind, metadata and
    requires kind and apiVersion (not under preserve-unknown-fields in v2)."""
    if not isinstance(s, dict):
        return
    for child in (s.get("properties") or {}).values():
        _embedded(child, v2, type_meta)
    for key in ("items", "additionalProperties"):
        _embedded(s.get(key), v2, type_meta)
    if s.get("x-kubernetes-preserve-unknown-fields") and v2:
        return
    if s.get("x-kubernetes-embedded-resource"):
        props = s.setdefault("properties", {})
        props["apiVersion"] = {**type_meta["apiVersion"], "description": EMBEDDED_API_VERSION_DOC}
        props["kind"] = {**type_meta["kind"], "description": EMBEDDED_KIND_DOC}
        props["metadata"] = _metadata_ref(not v2)
        required = s.setdefault("required", [])
        for r in ("kind", "apiVersion"):
            if r not in required:
                required.append(r)


def kind_schema(crd: dict[str, Any], version: str, v3: bool, type_meta: dict[str, Any]) -> dict[str, Any]:
    """`buildKubeNative`: the version's structural schema with ObjectMeta, TypeMeta and the kind's
    group-version-kind; a bare object for a version without a schema, or (v2) one preserving unknown fields."""
    n = _Names(crd, version)
    schema = version_schema(crd, version)
    preserve = bool(crd["spec"].get("preserveUnknownFields"))
    if schema is None or (not v3 and (schema.get("x-kubernetes-preserve-unknown-fields") or preserve)):
        out: dict[str, Any] = {"type": "object"}
    else:
        out = _structural(schema)
        _unfold(out)
        if not v3:
            _to_v2(out)
        props = out.setdefault("properties", {})
        props["metadata"] = _metadata_ref(v3)
        props["apiVersion"], props["kind"] = dict(type_meta["apiVersion"]), dict(type_meta["kind"])
        _embedded(out, not v3, type_meta)
    out["x-kubernetes-group-version-kind"] = [{"group": n.group, "kind": n.kind, "version": n.version}]
    selectable = [{"fieldPath": path} for path in selectable_paths(crd, version)]
    if selectable:  # `IncludeSelectableFields` (CustomResourceFieldSelectors, on in 1.33)
        out["x-kubernetes-selectable-fields"] = selectable
    if not v3:  # the v2 controller: `handler.PruneDefaults` before merging with the static spec
        _prune_defaults(out)
    return out


def _prune_defaults(s: Any) -> None:
    """kube-openapi `handler.PruneDefaults`: every schema node's `default` dropped."""
    if not isinstance(s, dict):
        return
    s.pop("default", None)
    for child in (s.get("properties") or {}).values():
        _prune_defaults(child)
    for key in ("items", "additionalProperties", "not"):
        _prune_defaults(s.get(key))
    for j in ("allOf", "anyOf", "oneOf"):
        for child in s.get(j) or ():
            _prune_defaults(child)


def list_schema(crd: dict[str, Any], version: str, v3: bool, type_meta: dict[str, Any]) -> dict[str, Any]:
    """`buildListSchema`."""
    n = _Names(crd, version)
    return {
        "description": f"{n.list_kind} is a list of {n.kind}", "type": "object", "required": ["items"],
        "properties": {
            "apiVersion": dict(type_meta["apiVersion"]),
            "items": {"description": f"List of {n.plural}. More info: {_CONVENTIONS}",
                      "type": "array", "items": _ref(n.obj, v3)},
            "kind": dict(type_meta["kind"]),
            "metadata": _described_ref(f"{_META}.ListMeta", LIST_META_DOC, v3)},
        "x-kubernetes-group-version-kind": [{"group": n.group, "kind": n.list_kind, "version": n.version}]}


def definitions(crd: dict[str, Any], version: str, v3: bool, type_meta: dict[str, Any]) -> dict[str, Any]:
    """The kind's and its list's definitions (`getOpenAPIConfig`'s `GetDefinitions` additions)."""
    n = _Names(crd, version)
    return {n.obj: kind_schema(crd, version, v3, type_meta), n.list: list_schema(crd, version, v3, type_meta)}


def version_schema(crd: dict[str, Any], version: str) -> dict[str, Any] | None:
    """`GetSchemaForVersion`: the version's `openAPIV3Schema` (None without one)."""
    s = (version_field(crd, version, "schema") or {}).get("openAPIV3Schema")
    return s if isinstance(s, dict) else None


def version_field(crd: dict[str, Any], version: str, name: str) -> Any:
    """A field of the CRD's version `version` (None when absent)."""
    for v in crd["spec"].get("versions") or []:
        if isinstance(v, dict) and v.get("name") == version:
            return v.get(name)
    return None


def selectable_paths(crd: dict[str, Any], version: str) -> list[str]:
    """The version's `selectableFields`, each JSONPath without its leading dot (the field label a selector names,
    `x-kubernetes-selectable-fields`' `fieldPath`)."""
    declared = version_field(crd, version, "selectableFields") or ()
    return [f["jsonPath"].removeprefix(".") for f in declared
            if isinstance(f, dict) and isinstance(f.get("jsonPath"), str)]


def version_subresources(crd: dict[str, Any], version: str) -> dict[str, Any]:
    """`GetSubresourcesForVersion`."""
    return version_field(crd, version, "subresources") or {}
