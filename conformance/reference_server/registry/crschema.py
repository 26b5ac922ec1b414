"""Structural schemas of CustomResourceDefinitions: type/required validation, pruning of unknown fields, defaults.

A subset of `apiextensions-apiserver/pkg/apiserver/schema` (pruning, `defaulting/algorithm.go`) and `.../validation`
(kube-openapi's validator): `type`, `properties`, `required`, `items`, `additionalProperties`, `enum`, `nullable`,
`x-kubernetes-preserve-unknown-fields`, `x-kubernetes-int-or-string`. Unknown fields are dropped silently
(upstream prunes before validation; `fieldValidation=Strict` is the http layer's business). Error texts
follow kube-openapi's: `<path> in body must be of type integer: "string"`.
"""
from __future__ import annotations

import copy
from typing import Any

from ..apierrors import FieldError, field_invalid, field_not_supported, field_required


def _type_invalid(where: str, value: Any, detail: str) -> FieldError:
    """`field.TypeInvalid` (kube-openapi's InvalidTypeCode): printed as Invalid, its own cause reason."""
    return FieldError("FieldValueTypeInvalid", where, field_invalid(where, value, detail).body)

_GO_TYPE = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array", dict: "object"}


def prune(obj: Any, schema: dict[str, Any] | None, *, root: bool = False) -> Any:
    """Drop every field the schema does not specify (`structuralpruning.Prune`); `obj` is changed in place."""
    if not isinstance(schema, dict):
        return obj
    if isinstance(obj, dict):
        if schema.get("x-kubernetes-preserve-unknown-fields") and not schema.get("properties"):
            return obj
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key in list(obj):
            if root and key in ("apiVersion", "kind", "metadata"):
                continue
            if key in props:
                prune(obj[key], props[key])
            elif isinstance(extra, dict):
                prune(obj[key], extra)
            elif extra is True or schema.get("x-kubernetes-preserve-unknown-fields"):
                continue
            else:
                del obj[key]
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        for item in obj:
            prune(item, schema["items"])
    return obj


def default(obj: Any, schema: dict[str, Any] | None) -> Any:
    """Fill in the schema's `default`s (`structuraldefaulting.Default`, run as a request is decoded, after pruning):
    an absent property, or a null one whose schema is not nullable; `obj` is changed in place."""
    if not isinstance(schema, dict):
        return obj
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    extra = schema.get("additionalProperties")
    if isinstance(obj, dict):
        for key, prop in props.items():
            if isinstance(prop, dict) and prop.get("default") is not None and (
                    key not in obj or obj[key] is None and not prop.get("nullable")):
                obj[key] = copy.deepcopy(prop["default"])
        for key in list(obj):
            if key in props:
                default(obj[key], props[key])
            elif isinstance(extra, dict):
                if obj[key] is None and not extra.get("nullable"):
                    obj[key] = copy.deepcopy(extra.get("default"))
                default(obj[key], extra)
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        items = schema["items"]
        for i, item in enumerate(obj):
            if item is None and not items.get("nullable"):
                obj[i] = copy.deepcopy(items.get("default"))
            default(obj[i], items)
    return obj


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, float) and value.is_integer():
        return "integer"
    return _GO_TYPE.get(type(value), "unknown")


def _quote(value: Any) -> str:
    return f'"{_type_of(value)}"'


def validate(obj: Any, schema: dict[str, Any] | None, path: str = "") -> list[FieldError]:
    """The schema's type, required and enum errors for `obj` (already pruned), in path order."""
    if not isinstance(schema, dict):
        return []
    errs: list[FieldError] = []
    where = path or "<root>"
    if obj is None:
        if schema.get("nullable") or not schema.get("type"):
            return []
        return [_type_invalid(where, None, f'{where} in body must be of type {schema["type"]}: "null"')]
    want = schema.get("type")
    got = _type_of(obj)
    if schema.get("x-kubernetes-int-or-string"):
        if got not in ("integer", "string"):
            errs.append(_type_invalid(where, obj, f"{where} in body must be of type integer,string: {_quote(obj)}"))
        return errs
    if want and not (want == got or (want == "number" and got == "integer")):
        return [_type_invalid(where, obj, f"{where} in body must be of type {want}: {_quote(obj)}")]
    if "enum" in schema and obj not in schema["enum"]:
        errs.append(field_not_supported(where, obj, [str(v) for v in schema["enum"]]))
    if isinstance(obj, dict):
        props = schema.get("properties") or {}
        for name in schema.get("required") or []:
            if name not in obj:
                errs.append(field_required(f"{path}.{name}" if path else name))
        for key, value in obj.items():
            sub = props.get(key)
            if sub is None and isinstance(schema.get("additionalProperties"), dict):
                sub = schema["additionalProperties"]
            if sub is not None:
                errs += validate(value, sub, f"{path}.{key}" if path else key)
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(obj):
            errs += validate(item, schema["items"], f"{where}[{i}]")
    return errs


def validate_custom_resource(obj: dict[str, Any], schema: dict[str, Any] | None) -> list[FieldError]:
    """Validate everything below the root but metadata/apiVersion/kind (which the generic strategy checks)."""
    if not isinstance(schema, dict):
        return []
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    sub = {**schema, "required": [r for r in schema.get("required") or []
                                  if r not in ("apiVersion", "kind", "metadata")]}
    return validate(body, sub)
