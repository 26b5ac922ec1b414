"""The OpenAPI definitions of the two built-in kinds outside the field model, CustomResourceDefinition and
APIService, as kube-openapi generates them from their Go types.

Followed: apiextensions-apiserver `pkg/generated/openapi/zz_generated.openapi.go` (the `apiextensions/v1`
definitions) and kube-aggregator `pkg/generated/openapi/zz_generated.openapi.go` (`apiregistration/v1`), v0.33.x,
which openapi-gen writes from `pkg/apis/apiextensions/v1/types.go`, `types_jsonschema.go` and
`pkg/apis/apiregistration/v1/types.go`. The Go types are the ones their decoders already walk
(`wire.crdtypes.STRUCTS`, `wire.apiservicetypes.STRUCTS`, by `wire.jsonkindconvert.TABLES`); what openapi-gen adds
to them is written here:

* `+required` fields (a field without `omitempty`) in `REQUIRED`; a required scalar gets its zero value as
  `default` (`""`, `false`, `0`), as openapi-gen gives every non-pointer, non-`omitempty` field (in v3 only:
  kube-apiserver's `/openapi/v2`, `api/openapi-spec/swagger.json`, carries no `default`);
* a struct held by value (not a pointer: the kind's `metadata`/`spec`/`status`, a CRD's `names` and
  `acceptedNames`, the items of a list or map of structs) is `default: {}`; a type with an `OpenAPISchemaType` of
  its own (`JSON`, `JSONSchemaPropsOrArray`, `...OrBool`, `...OrStringArray`, `metav1.Time`) gets none;
* list markers: every list of `apiextensions/v1` is `+listType=atomic` but `status.conditions` (`+listType=map
  +listMapKey=type`, no patch strategy) and `x-kubernetes-validations` (`+listType=map +listMapKey=rule`,
  `patchStrategy:"merge" patchMergeKey:"rule"`); an APIService's `status.conditions` is a map keyed by `type` with
  the merge strategy and its `caBundle` (`[]byte`) `+listType=atomic`;
* `JSON` and the `JSONSchemaPropsOr*` types publish no `type` (their `OpenAPISchemaType()` is nil): a definition
  holding only their description.

Descriptions and enums are upstream's words, added by `wire.descriptions.describe` as for every other definition.
Server-side apply types a configuration with these v3 definitions (`fieldmanager/jsonkinds.py` `go_types`)."""
from __future__ import annotations

from typing import Any

from . import apiservicetypes, crdtypes

_META = "io.k8s.apimachinery.pkg.apis.meta.v1"
_CRD, _APISERVICE = "CustomResourceDefinition", apiservicetypes.KIND
REQUIRED: dict[str, dict[str, list[str]]] = {  # kind -> its structs' required fields
    _CRD: {
        _CRD: ["spec"],
        "CustomResourceColumnDefinition": ["name", "type", "jsonPath"],
        "CustomResourceConversion": ["strategy"],
        "CustomResourceDefinitionCondition": ["type", "status"],
        "CustomResourceDefinitionNames": ["plural", "kind"],
        "CustomResourceDefinitionSpec": ["group", "names", "scope", "versions"],
        "CustomResourceDefinitionVersion": ["name", "served", "storage"],
        "CustomResourceSubresourceScale": ["specReplicasPath", "statusReplicasPath"],
        "SelectableField": ["jsonPath"],
        "ServiceReference": ["namespace", "name"],
        "ValidationRule": ["rule"],
        "WebhookConversion": ["conversionReviewVersions"]},
    _APISERVICE: {"APIServiceCondition": ["type", "status"],
                  "APIServiceSpec": ["groupPriorityMinimum", "versionPriority"]},
}
# non-pointer struct fields besides the kind's own spec and status
_BY_VALUE = frozenset({("CustomResourceDefinitionSpec", "names"), ("CustomResourceDefinitionStatus", "acceptedNames")})
_ATOMIC = {"x-kubernetes-list-type": "atomic"}
_CONDITIONS = {"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]}
_MERGE_TYPE = {"x-kubernetes-patch-merge-key": "type", "x-kubernetes-patch-strategy": "merge"}
LIST_MARKERS: dict[tuple[str, str], dict[str, Any]] = {
    ("CustomResourceDefinitionStatus", "conditions"): _CONDITIONS,
    ("JSONSchemaProps", "x-kubernetes-validations"): {
        "x-kubernetes-list-map-keys": ["rule"], "x-kubernetes-list-type": "map",
        "x-kubernetes-patch-merge-key": "rule", "x-kubernetes-patch-strategy": "merge"},
    ("APIServiceStatus", "conditions"): {**_CONDITIONS, **_MERGE_TYPE},
    ("APIServiceSpec", "caBundle"): _ATOMIC,
}
_SCALARS: dict[str, dict[str, Any]] = {
    "s": {"type": "string"}, "b": {"type": "boolean"}, "i32": {"type": "integer", "format": "int32"},
    "i64": {"type": "integer", "format": "int64"}, "f64": {"type": "number", "format": "double"},
    "y": {"type": "string", "format": "byte"}}
_ZERO = {"s": "", "b": False, "i32": 0, "i64": 0, "f64": 0}
STRUCTS: dict[str, dict[str, dict[str, Any]]] = {_CRD: crdtypes.STRUCTS, _APISERVICE: apiservicetypes.STRUCTS}
_CUSTOM = {"json": "JSON", "or-array": "JSONSchemaPropsOrArray", "or-bool": "JSONSchemaPropsOrBool",
           "or-string-array": "JSONSchemaPropsOrStringArray"}


_GROUPS = {_CRD: "apiextensions.k8s.io", _APISERVICE: "apiregistration.k8s.io"}


def described(group: str, kind: str) -> bool:
    """True for the built-in kinds whose full definitions are built here."""
    return _GROUPS.get(kind) == group


class _Builder:
    """One kind's definitions in v2 or v3 (`#/definitions/` or `#/components/schemas/`, v3 siblings of a `$ref`
    under `allOf`, as the other definitions served here)."""

    def __init__(self, kind: str, prefix: str, v3: bool):
        self.kind, self.prefix, self.v3 = kind, prefix, v3
        self.structs, self.required = STRUCTS[kind], REQUIRED[kind]

    def ref(self, definition: str, **siblings: Any) -> dict[str, Any]:
        target = f"#/components/schemas/{definition}" if self.v3 else f"#/definitions/{definition}"
        if self.v3 and siblings:
            return {"allOf": [{"$ref": target}], **siblings}
        return {"$ref": target, **siblings}

    def default(self, zero: Any, present: bool = True) -> dict[str, Any]:
        """`default` as openapi-gen writes it, in v3 only: kube-apiserver's `/openapi/v2` publishes none."""
        return {"default": zero} if self.v3 and present else {}

    def node(self, t: Any, by_value: bool) -> dict[str, Any]:
        """The schema of a Go type code of `wire.crdtypes` (`by_value`: a struct not behind a pointer)."""
        if t in _CUSTOM:
            return self.ref(f"{self.prefix}.{_CUSTOM[t]}")
        if t == "time":
            return self.ref(f"{_META}.Time")
        if isinstance(t, tuple) and t[0] == "named":
            return {"type": "string"}
        if isinstance(t, tuple) and t[0] == "slice":
            return {"type": "array", "items": self.element(t[1])}
        if isinstance(t, tuple):
            return {"type": "object", "additionalProperties": self.element(t[1])}
        if t in _SCALARS:
            return dict(_SCALARS[t])
        return self.ref(f"{self.prefix}.{t}", **self.default({}, by_value))

    def element(self, t: Any) -> dict[str, Any]:
        """A list's or map's element: held by value, so a struct's is `{}` and a string's `""` by default."""
        if t == "s" or (isinstance(t, tuple) and t[0] == "named"):
            return {**self.default(""), "type": "string"}
        return self.node(t, by_value=True)

    def struct(self, name: str) -> dict[str, Any]:
        required = self.required.get(name, [])
        props: dict[str, Any] = {}
        for field, t in self.structs[name].items():
            prop = self.node(t, by_value=(name, field) in _BY_VALUE)
            zero = "" if isinstance(t, tuple) and t[0] == "named" else _ZERO.get(t) if isinstance(t, str) else None
            if field in required and zero is not None:  # a required scalar: its zero value
                prop = {**self.default(zero), **prop}
            markers = LIST_MARKERS.get((name, field))
            if markers is None and isinstance(t, tuple) and t[0] == "slice":
                markers = _ATOMIC  # every other list of these types is `+listType=atomic`
            prop.update(markers or {})
            props[field] = prop
        out: dict[str, Any] = {"type": "object", "properties": props} if props else {"type": "object"}
        if required:
            out["required"] = list(required)
        return out

    def definitions(self) -> dict[str, Any]:
        defs = {f"{self.prefix}.{name}": self.struct(name) for name in self.structs}
        if self.kind == _CRD:
            defs.update({f"{self.prefix}.{name}": {} for name in _CUSTOM.values()})  # no type: any JSON
        spec, status = f"{self.kind}Spec", f"{self.kind}Status"
        root: dict[str, Any] = {"type": "object", "properties": {
            "metadata": self.ref(f"{_META}.ObjectMeta", **self.default({})),
            "spec": self.ref(f"{self.prefix}.{spec}", **self.default({})),
            "status": self.ref(f"{self.prefix}.{status}", **self.default({}))}}
        if self.required.get(self.kind):
            root["required"] = list(self.required[self.kind])
        defs[f"{self.prefix}.{self.kind}"] = root
        return defs


def definitions(kind: str, prefix: str, v3: bool) -> dict[str, Any]:
    """Every definition of `kind` (its root, spec, status and the types they hold) under `prefix`
    (`io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1`), without descriptions; {} for another kind."""
    if kind not in STRUCTS:
        return {}
    return _Builder(kind, prefix, v3).definitions()
