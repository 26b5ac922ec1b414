"""The OpenAPI checks of a CRD's schema that are not about CEL: `ValidateCustomResourceDefinitionOpenAPISchema`'s
schema errors and `specStandardValidatorV3.validate`, in
`staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`: `uniqueItems`,
`additionalProperties` with `properties`, what JSON Schema offers and Kubernetes does not (`id`, `$ref`,
`patternProperties`, ...), `default` inside the resource's `metadata`/`apiVersion`/`kind`, and the rules of
`x-kubernetes-preserve-unknown-fields`, `-embedded-resource`, `-map-type`, `-list-type` and `-list-map-keys`.
The `x-kubernetes-validations` checks and CEL are `crdrules/crdwrite.py`'s."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ...goport.gofmt import sharp_v_strings

OPENAPI_V3_TYPES = ("array", "boolean", "integer", "number", "object", "string")  # sets.List(): sorted
META_FIELDS = ("metadata", "kind", "apiVersion")


@dataclass(frozen=True)
class Options:
    """The ratcheted `validationOptions` these checks read (true on create; see `__init__.py`)."""

    require_valid_property_type: bool = True
    require_atomic_set_type: bool = True
    require_map_list_keys_map_set_validation: bool = True


@dataclass(frozen=True)
class _Validator:
    """`specStandardValidatorV3`'s state along the walk."""

    allow_defaults: bool = True
    disallow_defaults_reason: str = ""
    inside_resource_meta: bool = False


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _strings(v: Any) -> list[str]:
    """A list of names as Go decodes `[]string` (anything else would not have decoded)."""
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def validate_openapi_schema(schema: Any, path: str, opts: Options) -> list[FieldError]:
    """The schema errors of `ValidateCustomResourceDefinitionOpenAPISchema(schema, path, ..., isRoot=true)`."""
    errs: list[FieldError] = []
    _walk(schema, path, _Validator(), True, opts, errs)
    return errs


def _standard(s: dict[str, Any], p: str, v: _Validator, opts: Options, errs: list[FieldError]) -> None:
    """`specStandardValidatorV3.validate`."""
    typ = s.get("type")
    if opts.require_valid_property_type and isinstance(typ, str) and typ and typ not in OPENAPI_V3_TYPES:
        errs.append(field_not_supported(f"{p}.type", typ, OPENAPI_V3_TYPES))
    if s.get("default") is not None and not v.allow_defaults:
        detail = "must not be set" + (f" {v.disallow_defaults_reason}" if v.disallow_defaults_reason else "")
        errs.append(field_forbidden(f"{p}.default", detail))
    if s.get("id"):
        errs.append(field_forbidden(f"{p}.id", "id is not supported"))
    if s.get("additionalItems") is not None:
        errs.append(field_forbidden(f"{p}.additionalItems", "additionalItems is not supported"))
    if s.get("patternProperties"):
        errs.append(field_forbidden(f"{p}.patternProperties", "patternProperties is not supported"))
    if s.get("definitions"):
        errs.append(field_forbidden(f"{p}.definitions", "definitions is not supported"))
    if s.get("dependencies") is not None:
        errs.append(field_forbidden(f"{p}.dependencies", "dependencies is not supported"))
    if s.get("$ref") is not None:
        errs.append(field_forbidden(f"{p}.$ref", "$ref is not supported"))
    if typ == "null":
        errs.append(field_forbidden(f"{p}.type", "type cannot be set to null, use nullable as an alternative"))
    if isinstance(s.get("items"), list) and s["items"]:
        errs.append(field_forbidden(f"{p}.items", "items must be a schema object and not an array"))
    if v.inside_resource_meta and s.get("x-kubernetes-embedded-resource") is True:
        errs.append(field_forbidden(f"{p}.x-kubernetes-embedded-resource", "must not be used inside of resource meta"))


def _walk(s: Any, p: str, v: _Validator, is_root: bool, opts: Options, errs: list[FieldError]) -> None:
    if not isinstance(s, dict):
        return
    _standard(s, p, v, opts, errs)
    if s.get("uniqueItems") is True:
        errs.append(field_forbidden(f"{p}.uniqueItems",
                                    "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
    props = {k: x for k, x in _dict(s.get("properties")).items()}
    extra = s.get("additionalProperties")
    if extra is not None:
        if props and (extra is False or isinstance(extra, dict)):
            errs.append(field_forbidden(f"{p}.additionalProperties",
                                        "additionalProperties and properties are mutual exclusive"))
        sub = replace(v, allow_defaults=False,
                      disallow_defaults_reason="inside additionalProperties applying to object metadata") \
            if v.inside_resource_meta else v
        _walk(extra, f"{p}.additionalProperties", sub, False, opts, errs)
    for name, prop in props.items():
        sub = v
        if (is_root or s.get("x-kubernetes-embedded-resource") is True) and name in META_FIELDS:
            sub = replace(sub, inside_resource_meta=True)
            if is_root:
                sub = replace(sub, allow_defaults=False, disallow_defaults_reason=f"in top-level {name}")
        _walk(prop, f"{p}.properties[{name}]", sub, False, opts, errs)
    _walk(s.get("not"), f"{p}.not", v, False, opts, errs)
    for key in ("allOf", "oneOf", "anyOf"):
        for i, clause in enumerate(s.get(key) if isinstance(s.get(key), list) else []):
            _walk(clause, f"{p}.{key}[{i}]", v, False, opts, errs)
    for name, prop in _dict(s.get("definitions")).items():
        _walk(prop, f"{p}.definitions[{name}]", v, False, opts, errs)
    items = s.get("items")
    if isinstance(items, dict):
        _walk(items, f"{p}.items", v, False, opts, errs)
    elif isinstance(items, list):
        for i, item in enumerate(items):
            _walk(item, f"{p}.items[{i}]", v, False, opts, errs)
    for name, dep in _dict(s.get("dependencies")).items():
        _walk(dep, f"{p}.dependencies[{name}]", v, False, opts, errs)
    _extensions(s, p, opts, errs)


def _extensions(s: dict[str, Any], p: str, opts: Options, errs: list[FieldError]) -> None:
    """The node's own `x-kubernetes-*` rules, checked after its children as upstream does."""
    typ = s.get("type") if isinstance(s.get("type"), str) else ""
    if s.get("x-kubernetes-preserve-unknown-fields") is False:
        errs.append(field_invalid(f"{p}.x-kubernetes-preserve-unknown-fields", False, "must be true or undefined"))
    map_type, list_type = s.get("x-kubernetes-map-type"), s.get("x-kubernetes-list-type")
    if map_type is not None and typ != "object":
        if not typ:
            errs.append(field_required(f"{p}.type", "must be object if x-kubernetes-map-type is specified"))
        else:
            errs.append(field_invalid(f"{p}.type", typ, "must be object if x-kubernetes-map-type is specified"))
    if map_type is not None and map_type not in ("atomic", "granular"):
        errs.append(field_not_supported(f"{p}.x-kubernetes-map-type", map_type, ["atomic", "granular"]))
    item = s.get("items") if isinstance(s.get("items"), dict) else None
    if list_type is not None and typ != "array":
        if not typ:
            errs.append(field_required(f"{p}.type", "must be array if x-kubernetes-list-type is specified"))
        else:
            errs.append(field_invalid(f"{p}.type", typ, "must be array if x-kubernetes-list-type is specified"))
    elif opts.require_atomic_set_type and list_type == "set" and item is not None:
        if item.get("type") == "array" and item.get("x-kubernetes-list-type") not in (None, "atomic"):
            errs.append(field_invalid(f"{p}.items.x-kubernetes-list-type", item.get("x-kubernetes-list-type"),
                                      "must be atomic as item of a list with x-kubernetes-list-type=set"))
        elif item.get("type") == "object" and item.get("x-kubernetes-map-type") != "atomic":
            # upstream reports the item's list type here (usually unset)
            errs.append(field_invalid(f"{p}.items.x-kubernetes-map-type", item.get("x-kubernetes-list-type"),
                                      "must be atomic as item of a list with x-kubernetes-list-type=set"))
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errs.append(field_not_supported(f"{p}.x-kubernetes-list-type", list_type, ["atomic", "set", "map"]))
    keys = _strings(s.get("x-kubernetes-list-map-keys"))
    if keys:
        if list_type is None:
            errs.append(field_required(f"{p}.x-kubernetes-list-type",
                                       "must be map if x-kubernetes-list-map-keys is non-empty"))
        elif list_type != "map":
            errs.append(field_invalid(f"{p}.x-kubernetes-list-type", list_type,
                                      "must be map if x-kubernetes-list-map-keys is non-empty"))
    if list_type == "map":
        _map_list(s, p, keys, item, errs)
    if opts.require_map_list_keys_map_set_validation:
        errs.extend(map_list_keys_map_set(s, p))


def _map_list(s: dict[str, Any], p: str, keys: list[Any], item: dict[str, Any] | None,
              errs: list[FieldError]) -> None:
    if not keys:
        errs.append(field_required(f"{p}.x-kubernetes-list-map-keys",
                                   "must not be empty if x-kubernetes-list-type is map"))
    if s.get("items") is None:
        errs.append(field_required(f"{p}.items", "must have a schema if x-kubernetes-list-type is map"))
    if item is None:
        return
    item_type = item.get("type") if isinstance(item.get("type"), str) else ""
    if item_type != "object":
        errs.append(field_invalid(f"{p}.items.type", item_type, "must be object if parent array's "
                                  "x-kubernetes-list-type is map"))
        return
    item_props, seen = _dict(item.get("properties")), set()
    for k in keys:
        prop = item_props.get(k)
        if isinstance(prop, dict):
            if prop.get("type") in ("array", "object"):
                errs.append(field_invalid(f"{p}.items.properties[{k}].type", item_type,
                                          "must be a scalar type if parent array's x-kubernetes-list-type is map"))
        else:
            errs.append(FieldError("FieldValueInvalid", f"{p}.x-kubernetes-list-map-keys",
                                   f"Invalid value: {sharp_v_strings(keys)}: entries must all be names of item "
                                   "properties"))
        if k in seen:
            errs.append(FieldError("FieldValueInvalid", f"{p}.x-kubernetes-list-map-keys",
                                   f"Invalid value: {sharp_v_strings(keys)}: must not contain duplicate entries"))
        seen.add(k)


def map_list_keys_map_set(s: dict[str, Any], p: str) -> list[FieldError]:
    """`validateMapListKeysMapSet`: items of sets and maps are not nullable; map keys are required or defaulted."""
    item, list_type = s.get("items"), s.get("x-kubernetes-list-type")
    if not isinstance(item, dict) or list_type not in ("set", "map"):
        return []
    errs: list[FieldError] = []
    if item.get("nullable") is True:
        errs.append(field_forbidden(f"{p}.items.nullable", f"cannot be nullable when x-kubernetes-list-type is "
                                    f"{list_type}"))
    if list_type == "map":
        required = set(_strings(item.get("required")))
        for k in _strings(s.get("x-kubernetes-list-map-keys")):
            prop = _dict(item.get("properties")).get(k)
            if not isinstance(prop, dict):
                continue
            if k not in required and prop.get("default") is None:
                errs.append(field_required(f"{p}.items.properties[{k}].default", "this property is in "
                                           "x-kubernetes-list-map-keys, so it must have a default or be a required "
                                           "property"))
            if prop.get("nullable") is True:
                errs.append(field_forbidden(f"{p}.items.properties[{k}].nullable", "this property is in "
                                            "x-kubernetes-list-map-keys, so it cannot be nullable"))
    return errs
