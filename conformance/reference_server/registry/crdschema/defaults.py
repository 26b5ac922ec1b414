"""A CRD schema's `default`s checked against the schema, as apiextensions-apiserver 1.33 checks them when the CRD is
written: `staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting/validation.go`
`ValidateDefaults` (called by `validateCustomResourceDefinitionValidation` once the schema is structural), with
`defaulting/surroundingobject.go` and `pkg/apiserver/schema/objectmeta/` (`Coerce`, `Validate`).

Each `default` must be pruned (`must not have unknown fields`, unless the stored CRD already had an unpruned default:
`requirePrunedDefaults`), its embedded resources' `apiVersion`/`kind`/`metadata` must decode and validate, its value
must pass the node's schema (`crschema`, kube-openapi's words) and then the node's `x-kubernetes-validations`
(`crdrules`, the default as `self` and `oldSelf`, then without `oldSelf`). A default inside an embedded resource's
`metadata`, `apiVersion` or `kind` is checked in the object it would land in (`must result in valid metadata: ...`).
A `default: null` is no default (`Convert_v1_JSON_To_apiextensions_JSON`). Not modelled: upstream's 10,000,000 runtime
cost budget is shared by every default's rules; here each default's check has its own (README's Known gaps)."""
from __future__ import annotations

import copy
from typing import Any

from ...apierrors import FieldError, aggregate, field_invalid, field_required, unstructured_value
from .. import crdrules, crobjectmeta, crschema
from ..validation import is_dns1035_label, validate_object_meta

META_FIELDS = ("metadata", "apiVersion", "kind")
_TYPE_META = {"apiVersion": "validation/v1", "kind": "Validation"}  # ValidateDefaults' WithTypeMeta
Step = tuple[str, str]  # ("child", key) or ("index", "") from the embedded resource down to the default


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _embedded(s: dict[str, Any]) -> bool:
    return s.get("x-kubernetes-embedded-resource") is True


def invalid(path: str, value: Any, detail: str) -> FieldError:
    """`field.Invalid` with a decoded JSON value: maps and slices print as Go's `%#v` of an `interface{}`."""
    return field_invalid(path, unstructured_value(value), detail)


def _join(base: str | None, name: str) -> str:
    return f"{base}.{name}" if base else name


def validate_defaults(path: str, schema: dict[str, Any], require_pruned: bool) -> list[FieldError]:
    """`ValidateDefaults(path, schema, isResourceRoot=true, requirePrunedDefaults)`."""
    root = schema if _embedded(schema) else {**schema, "x-kubernetes-embedded-resource": True}
    errs: list[FieldError] = []
    _walk(path, root, root, [], False, require_pruned, errs)
    return errs


def _walk(p: str, s: Any, root: dict[str, Any], steps: list[Step], inside_meta: bool, require_pruned: bool,
          errs: list[FieldError]) -> None:
    if not isinstance(s, dict):
        return
    if _embedded(s):
        inside_meta, root, steps = False, s, []
    if s.get("default") is not None:
        errs += _check_default(f"{p}.default", s["default"], s, root, steps, inside_meta, require_pruned)
    # additionalProperties are not followed: defaults are forbidden there
    if isinstance(s.get("items"), dict):
        _walk(f"{p}.items", s["items"], root, steps + [("index", "")], inside_meta, require_pruned, errs)
    for k, sub in _dict(s.get("properties")).items():
        _walk(f"{p}.properties[{k}]", sub, root, steps + [("child", k)],
              inside_meta or (_embedded(s) and k in META_FIELDS), require_pruned, errs)


def _surround(value: Any, steps: list[Step]) -> dict[str, Any] | None:
    """`SurroundingObjectFunc`: the embedded resource the default lands in, with `validation/v1` `Validation` as
    its type meta where it sets none."""
    for kind, key in reversed(steps):
        value = {key: value} if kind == "child" else [value]
    if not isinstance(value, dict):
        return None
    return {**value, **{k: v for k, v in _TYPE_META.items() if k not in value}}


def _check_default(p: str, value: Any, s: dict[str, Any], root: dict[str, Any], steps: list[Step],
                   inside_meta: bool, require_pruned: bool) -> list[FieldError]:
    is_root = s is root
    if inside_meta:
        # a structural embedded resource is an object, so the surrounding object is one ("should never happen")
        obj = _surround(copy.deepcopy(value), steps) or dict(_TYPE_META)
        if (err := _coerce(None, obj, root, True)) is not None:
            return [invalid(p, value, f"must result in valid metadata: {err}")]
        if meta_errs := _validate_meta(None, obj, root, True):
            return [invalid(p, value, f"must result in valid metadata: {aggregate(meta_errs)}")]
        return _value_errors(p, value, s, is_root)
    errs: list[FieldError] = []
    if require_pruned and crschema.needs_pruning(value, s, root=_embedded(s)):
        errs.append(invalid(p, value, "must not have unknown fields"))
    if (err := _coerce(p, value, s, _embedded(s))) is not None:
        return errs + [err]
    if meta_errs := _validate_meta(p, value, s, _embedded(s)):
        return errs + meta_errs
    return errs + _value_errors(p, value, s, is_root)


def _value_errors(p: str, value: Any, s: dict[str, Any], is_root: bool) -> list[FieldError]:
    """`ValidateCustomResource(pth, default, validator)`, else the node's CEL rules."""
    schema_errs = [_rebase(e, p) for e in crschema.validate(value, s)]
    if schema_errs:
        return schema_errs
    node = crdrules.build(s, root=is_root)
    errs = crdrules.validate_value(node, s, p, value, value, is_root)
    if not errs:  # CRDValidationRatcheting (on in 1.33): also as a create, for optionalOldSelf rules
        errs = crdrules.validate_value(node, s, p, value, None, is_root)
    return errs


def _rebase(e: FieldError, p: str) -> FieldError:
    """kube-openapi's error for the default's value at `p` (`kubeOpenAPIResultToFieldErrors`): the validator's root
    has no name (`<root>` in crschema's words), so a message about the root starts with its empty path."""
    field, body = e.field, e.body
    if field.startswith("<root>"):  # the root's own error, or an item's (`[1]`: a child named so, `default.[1]`)
        field, body = field[len("<root>"):], body.replace("<root>", "", 1)
    return FieldError(e.type, f"{p}.{field}" if field else p, body)


# ---- objectmeta.Coerce / objectmeta.Validate ---------------------------------------------------------------------
def _children(x: Any, s: dict[str, Any], p: str | None) -> list[tuple[str, Any, Any]]:
    """The (path, value, schema) pairs below `x` that `Coerce`/`Validate` follow."""
    out: list[tuple[str, Any, Any]] = []
    if isinstance(x, dict):
        props, extra = _dict(s.get("properties")), s.get("additionalProperties")
        for k, v in x.items():
            if k in props:
                out.append((_join(p, k), v, props[k]))
            elif isinstance(extra, dict):
                out.append((f"{p or ''}[{k}]", v, extra))
    elif isinstance(x, list) and isinstance(s.get("items"), dict):
        out += [(f"{p or ''}[{i}]", v, s["items"]) for i, v in enumerate(x)]
    return out


def _coerce(p: str | None, x: Any, s: Any, resource_root: bool) -> FieldError | None:
    """`objectmeta.Coerce(pth, x, s, isResourceRoot, dropInvalidFields=false)`: the first error."""
    if not isinstance(s, dict):
        return None
    if isinstance(x, dict) and (resource_root or _embedded(s)):
        for k, v in x.items():
            if k in ("apiVersion", "kind") and not isinstance(v, str):
                return invalid(_join(p, k), v, "must be a string")
            if k == "metadata" and (err := crobjectmeta.decode_error(v)) is not None:
                return invalid(_join(p, k), v, err)
    for sub_p, v, sub in _children(x, s, p):
        if (err := _coerce(sub_p, v, sub, False)) is not None:
            return err
    return None


def coerce_error(obj: dict[str, Any], schema: dict[str, Any] | None) -> FieldError | None:
    """A custom resource's embedded resources as its request decoder coerces them
    (customresource_handler.go: `CoerceWithOptions(nil, u.Object, schema, false, ...)`, invalid fields not dropped):
    the first that does not decode (a non-string `apiVersion`/`kind`, a `metadata` that is no ObjectMeta)."""
    return _coerce(None, obj, schema, False)


def validate_embedded(obj: dict[str, Any], schema: dict[str, Any] | None) -> list[FieldError]:
    """A custom resource's embedded resources (customresource/strategy.go `Validate`/`ValidateUpdate`:
    `schemaobjectmeta.Validate(nil, u.Object, structuralSchema, false)`)."""
    return _validate_meta(None, obj, schema, False)


def _validate_meta(p: str | None, x: Any, s: Any, resource_root: bool) -> list[FieldError]:
    """`objectmeta.Validate(pth, x, s, isResourceRoot)`."""
    if not isinstance(s, dict):
        return []
    errs: list[FieldError] = []
    if isinstance(x, dict) and (resource_root or _embedded(s)):
        errs += _embedded_resource(p, x)
    for sub_p, v, sub in _children(x, s, p):
        errs += _validate_meta(sub_p, v, sub, False)
    return errs


def _embedded_resource(p: str | None, x: dict[str, Any]) -> list[FieldError]:
    """`validateEmbeddedResource`: apiVersion and kind required and well-formed, metadata a valid ObjectMeta."""
    errs: list[FieldError] = []
    for k in ("apiVersion", "kind"):
        if k not in x:
            errs.append(field_required(_join(p, k), "must not be empty"))
    for k, v in x.items():
        if k in ("apiVersion", "kind") and not isinstance(v, str):
            errs.append(invalid(_join(p, k), v, "must be a string"))
        elif k in ("apiVersion", "kind") and not v:
            errs.append(field_invalid(_join(p, k), v, "must not be empty"))
        elif k == "apiVersion" and v.count("/") > 1:
            errs.append(field_invalid(_join(p, k), v, f"unexpected GroupVersion string: {v}"))
        elif k == "kind" and (msgs := is_dns1035_label(v.lower())):
            errs.append(field_invalid(_join(p, k), v, "may have mixed case, but should otherwise match: " +
                                      ",".join(msgs)))
        elif k == "metadata":
            if (err := crobjectmeta.decode_error(v)) is not None:
                errs.append(invalid(_join(p, k), v, err))
                continue
            meta = dict(_dict(v))
            meta["name"] = meta.get("name") or "fakename"
            prefix = _join(p, "metadata")
            for e in validate_object_meta(meta, namespaced=bool(meta.get("namespace")), name_rule="pathsegment",
                                          kube_finalizers=False):
                if not (e.type == "FieldValueRequired" and e.field == "metadata.namespace"):
                    errs.append(FieldError(e.type, prefix + e.field[len("metadata"):], e.body))
    return errs


# ---- requirePrunedDefaults ---------------------------------------------------------------------------------------
def has_unpruned_defaults(schema: Any) -> bool:
    """`schemaHasUnprunedDefaults` of a stored schema (structural ones only): some default loses a field to
    `PruneDefaults`."""
    def walk(s: Any) -> bool:
        if not isinstance(s, dict):
            return False
        if s.get("default") is not None and crschema.needs_pruning(s["default"], s, root=_embedded(s)):
            return True
        subs = list(_dict(s.get("properties")).values()) + [s.get("items"), s.get("additionalProperties")]
        return any(walk(sub) for sub in subs)
    return walk(schema)


__all__ = ["has_unpruned_defaults", "invalid", "validate_defaults"]
