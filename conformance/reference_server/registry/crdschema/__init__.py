"""A CRD's `openAPIV3Schema` checked as apiextensions-apiserver 1.33 checks it when the CRD is written
(`staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`
`validateCustomResourceDefinitionValidation`, its `validationOptions` and their ratcheting on update):

- `structural.py`: the schema must be structural (`pkg/apiserver/schema/validation.go`, `convert.go`,
  `complete.go`), whenever `requireStructuralSchema` holds: always for a CRD written through v1, except that an
  update of a CRD whose stored schema already is not structural, that keeps `spec.preserveUnknownFields: true`
  and has no defaults or Kubernetes extensions, is let through (`requireStructuralSchema(oldSpec)`);
- `openapi.py`: the schema errors of `ValidateCustomResourceDefinitionOpenAPISchema`;
- `statusroot.py`: what the root may hold when the status subresource is on (`allowedFieldsAtRootSchema`);
- `defaults.py`: each `default` against its schema (`structuraldefaulting.ValidateDefaults`), once the schema is
  structural; an update may keep unpruned defaults the stored CRD already had (`requirePrunedDefaults`).
- a `pattern`'s Go `regexp.Compile` error comes from `reference_server/goport/goregexp/` (Go's parser).

The CEL rules are `crdrules/`'s: upstream compiles them only when the schema is structural (`celContext` is nil
otherwise, and when a default is refused), so `SchemaErrors.uncompiled` names the schemas whose rules must not be
compiled."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ...apierrors import FieldError, aggregate, field_forbidden, field_invalid
from ..crdrules.crdwrite import _schemas as internal_schemas  # the schema paths of the internal version
from .defaults import has_unpruned_defaults, validate_defaults
from .openapi import OPENAPI_V3_TYPES, Options, map_list_keys_map_set, validate_openapi_schema
from .statusroot import validate_status_root
from .structural import is_structural, new_structural_error, validate_structural

__all__ = ["SchemaErrors", "is_structural", "non_structural_condition", "validate_crd_schemas"]


@dataclass
class SchemaErrors:
    errors: list[FieldError] = field(default_factory=list)
    uncompiled: frozenset[str] = frozenset()


def _children(s: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for key in ("items", "additionalProperties", "additionalItems", "not"):
        v = s.get(key)
        out += v if isinstance(v, list) else [v]
    for key in ("allOf", "anyOf", "oneOf"):
        out += s.get(key) if isinstance(s.get(key), list) else []
    for key in ("properties", "patternProperties", "definitions", "dependencies"):
        out += list(s.get(key).values()) if isinstance(s.get(key), dict) else []
    return out


def schema_has(s: Any, pred: Callable[[dict[str, Any]], bool]) -> bool:
    """`SchemaHas`: `pred` holds at some node of `s`."""
    if not isinstance(s, dict):
        return False
    return pred(s) or any(schema_has(c, pred) for c in _children(s))


def _spec_has(crd: dict[str, Any], pred: Callable[[dict[str, Any]], bool]) -> bool:
    return any(schema_has(s, pred) for _, s in internal_schemas(crd))


def _has_extensions(s: dict[str, Any]) -> bool:
    return s.get("x-kubernetes-embedded-resource") is True or s.get("x-kubernetes-preserve-unknown-fields") \
        is not None or s.get("x-kubernetes-int-or-string") is True or bool(s.get("x-kubernetes-list-map-keys")) \
        or s.get("x-kubernetes-list-type") is not None or bool(s.get("x-kubernetes-validations"))


def _invalid_type(s: dict[str, Any]) -> bool:
    return isinstance(s.get("type"), str) and bool(s["type"]) and s["type"] not in OPENAPI_V3_TYPES


def _non_atomic_set(s: dict[str, Any]) -> bool:
    item = s.get("items")
    if s.get("x-kubernetes-list-type") != "set" or not isinstance(item, dict):
        return False
    if item.get("type") == "array":
        return item.get("x-kubernetes-list-type") not in (None, "atomic")
    return item.get("type") == "object" and item.get("x-kubernetes-map-type") != "atomic"


def _preserve_unknown_fields(crd: dict[str, Any] | None) -> bool:
    return isinstance(crd, dict) and (crd.get("spec") or {}).get("preserveUnknownFields") is True


def _require_structural(crd: dict[str, Any], old: dict[str, Any] | None) -> bool:
    """`requireStructuralSchema(oldSpec)`, then forced by `validateCustomResourceDefinitionSpec`: pruning
    (preserveUnknownFields false), defaults and Kubernetes extensions all need a structural schema."""
    if not _preserve_unknown_fields(crd):
        return True
    if _spec_has(crd, lambda s: s.get("default") is not None) or _spec_has(crd, _has_extensions):
        return True
    return old is None or all(is_structural(s) for _, s in internal_schemas(old))


def _preserve_unknown_fields_errors(crd: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """`validatePreserveUnknownFields`: v1 cannot turn it on; a CRD that already has it keeps it."""
    if _preserve_unknown_fields(old) or not _preserve_unknown_fields(crd):
        return []
    return [field_invalid("spec.preserveUnknownFields", True, "cannot set to true, set "
                          "x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead")]


def _status_enabled(crd: dict[str, Any], path: str) -> bool:
    """The status subresource for the schema at `path`: any version's for the shared `spec.validation` schema
    (`hasAnyStatusEnabled`), else its own version's."""
    versions = [v for v in (crd.get("spec") or {}).get("versions") or [] if isinstance(v, dict)]
    if path.startswith("spec.versions["):
        versions = versions[int(path.split("[", 1)[1].split("]", 1)[0]):][:1]
    return any(isinstance(v.get("subresources"), dict) and v["subresources"].get("status") is not None
               for v in versions)


def validate_crd_schemas(crd: dict[str, Any], old: dict[str, Any] | None = None) -> SchemaErrors:
    """Every schema of `crd` (written over `old` on update): its errors, and the schemas whose rules upstream
    would not compile."""
    out = SchemaErrors(errors=_preserve_unknown_fields_errors(crd, old))
    if _preserve_unknown_fields(crd) and _spec_has(crd, lambda s: s.get("default") is not None):
        out.errors.insert(0, field_invalid("spec.preserveUnknownFields", True,
                                           "must be false in order to use defaults in the schema"))
    require = _require_structural(crd, old)
    opts = Options() if old is None else Options(
        require_valid_property_type=not _spec_has(old, _invalid_type),
        require_atomic_set_type=not _spec_has(old, _non_atomic_set),
        require_map_list_keys_map_set_validation=not _spec_has(old, lambda s: bool(map_list_keys_map_set(s, ""))))
    require_pruned = old is None or not any(
        is_structural(s) and has_unpruned_defaults(s) for _, s in internal_schemas(old))
    uncompiled: set[str] = set()
    for path, schema in internal_schemas(crd):
        errs: list[FieldError] = validate_status_root(schema, path) if _status_enabled(crd, path) else []
        if schema.get("nullable") is True:
            errs.append(field_forbidden(f"{path}.nullable", "nullable cannot be true at the root"))
        init_error = new_structural_error(schema) if require else None
        structural_errs = validate_structural(path, schema) if require and init_error is None else []
        if require and init_error is None and not structural_errs:
            structural_errs = validate_defaults(path, schema, require_pruned)
        if not require or init_error or structural_errs:
            uncompiled.add(path)
        errs += structural_errs + validate_openapi_schema(schema, path, opts)
        if not errs and init_error:
            errs.append(field_invalid(path, "", init_error))
        out.errors += errs
    out.uncompiled = frozenset(uncompiled)
    return out


def non_structural_condition(crd: dict[str, Any]) -> tuple[str, str, str] | None:
    """`calculateCondition` of the NonStructuralSchema condition controller: (status, reason, message) when a
    version's schema is not structural, None when every one is. Paths are the v1 versions' own."""
    errs: list[FieldError] = []
    for i, version in enumerate((crd.get("spec") or {}).get("versions") or []):
        schema = ((version or {}).get("schema") or {}).get("openAPIV3Schema") if isinstance(version, dict) else None
        if not isinstance(schema, dict):
            continue
        if err := new_structural_error(schema):
            return "Unknown", "StructuralError", f"failed to check validation schema for version " \
                f"{version.get('name')}: {err}"
        errs += validate_structural(f"spec.versions[{i}].schema.openAPIV3Schema", schema)
    if not errs:
        return None
    return "True", "Violations", aggregate(errs)
