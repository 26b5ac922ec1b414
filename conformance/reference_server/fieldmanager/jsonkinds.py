"""The merge types of the two built-in kinds served in JSON only, outside the field model: CustomResourceDefinition
and APIService. Upstream's field manager types them from their Go types (kube-openapi's `schemaconv` of the
generated OpenAPI), and strategic-merge patch reads their struct tags (`PatchMetaFromStruct`); their published
schema (wire/jsonkindschemas.py) carries the same markers, and the `status.conditions` rules below are grafted
over it.

Followed, marker by marker:
* `staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go` (1.33): `status.conditions` is
  `+listType=map +listMapKey=type` without a patch strategy (strategic merge replaces it); every other list is
  `+listType=atomic` (`spec.versions`, `spec.names.shortNames`/`categories`, `spec.conversion.webhook.
  conversionReviewVersions`, `status.storedVersions`, `status.acceptedNames.shortNames`/`categories`), and so is
  everything under `spec.versions` (schemas, `additionalPrinterColumns`, `selectableFields`, the
  `x-kubernetes-validations` rules: an atomic list's items are one leaf); no map or struct is atomic;
* `staging/src/k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/types.go` (1.33): `status.conditions` is
  `+listType=map +listMapKey=type` with `patchStrategy:"merge" patchMergeKey:"type"`; `spec.caBundle` is bytes (a
  scalar); no other list.

Described as the OpenAPI fragments kube-openapi would publish for those fields (`x-kubernetes-list-type`,
`x-kubernetes-list-map-keys`, `x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`), grafted onto the
kind's published root: `fieldmanager/schema.py` and the strategic-merge metadata read them as they read any
built-in kind's. A field not described keeps the defaults (maps granular, lists atomic), which is what these
types' markers say for everything else. Their `metadata` is ObjectMeta, typed as every built-in kind's.

`go_types`: the whole kind as kube-openapi generates it from those Go types, i.e. the v3 definitions published
for it (wire/jsonkindschemas.py over wire/crdtypes.py and wire/apiservicetypes.py), what structured-merge-diff
types an applied configuration with (`fieldmanager/smdschema.py`), as upstream's field manager reads the served
OpenAPI: `int32` an integer, `[]byte` a `byte` string, a struct's undeclared field refused (`.spec.typo: field not
declared in schema`), the types with an `OpenAPISchemaType` of nil (`JSON`, `JSONSchemaPropsOrBool`, `OrArray`,
`OrStringArray`) untyped, and beside the markers above `x-kubernetes-validations` a map keyed by `rule`
(`+listType=map +listMapKey=rule`).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

_STRING = {"type": "string"}


def _conditions(patch_merge: bool) -> dict[str, Any]:
    item = {"type": "object", "required": ["type", "status"],
            "properties": {"type": _STRING, "status": _STRING, "lastTransitionTime": {"type": "string",
                                                                                      "format": "date-time"},
                           "reason": _STRING, "message": _STRING}}
    out: dict[str, Any] = {"type": "array", "items": item, "x-kubernetes-list-type": "map",
                           "x-kubernetes-list-map-keys": ["type"]}
    if patch_merge:
        out |= {"x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "type"}
    return out


# (apiVersion, kind) → the top-level properties whose types differ from the defaults
TYPES: dict[tuple[str, str], dict[str, Any]] = {
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"): {
        "status": {"type": "object", "properties": {"conditions": _conditions(patch_merge=False)}},
    },
    ("apiregistration.k8s.io/v1", "APIService"): {
        "status": {"type": "object", "properties": {"conditions": _conditions(patch_merge=True)}},
    },
}


def described(api_version: str, kind: str) -> bool:
    return (api_version, kind) in TYPES


def with_types(api_version: str, kind: str, root: dict[str, Any]) -> dict[str, Any]:
    """`root` (the kind's published schema) with the described fields' types added; `root` itself for any other
    kind."""
    extra = TYPES.get((api_version, kind))
    if extra is None:
        return root
    return {**root, "properties": {**(root.get("properties") or {}), **extra}}


@lru_cache(maxsize=8)
def patch_root(group: str, version: str, kind: str) -> Any:
    """The strategic-merge metadata (`wire.patchmeta.Node`) of a described kind, None for any other."""
    api_version = f"{group}/{version}" if group else version
    if not described(api_version, kind):
        return None
    from ..wire.openapi import kind_schema
    from ..wire.patchmeta import Node
    defs, root = kind_schema(group, version, kind)
    object_meta, _ = kind_schema("", "v1", "ConfigMap")  # their published definitions lack ObjectMeta's
    return Node({**object_meta, **defs}, with_types(api_version, kind, root))


@lru_cache(maxsize=4)
def go_types(api_version: str, kind: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(definitions, root) of a described kind from its Go types, for `smdschema.Types`: its published v3
    definitions (wire/jsonkindschemas.py, what upstream's field manager reads); None for any other kind."""
    if not described(api_version, kind):
        return None
    from ..wire.openapi import kind_schema_v3
    group, _, version = api_version.rpartition("/")
    return kind_schema_v3(group, version, kind)
