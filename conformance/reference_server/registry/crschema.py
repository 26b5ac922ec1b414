"""Structural schemas of CustomResourceDefinitions: validation, pruning of unknown fields, defaults.

A subset of `apiextensions-apiserver/pkg/apiserver/schema` (pruning, `defaulting/algorithm.go`) and `.../validation`
(kube-openapi's validator): `type`, `properties`, `required`, `items`, `additionalProperties`, `enum`, `nullable`,
`format` (`crformats`), the value keywords (`crkeywords`: lengths, `pattern`, bounds, `multipleOf`, item and
property counts, `uniqueItems`), `x-kubernetes-preserve-unknown-fields`, `x-kubernetes-int-or-string`; an update's
errors are ratcheted as `validation/ratcheting.go`'s `ratchetingValueValidator` (`correlation`). Unknown fields are
dropped silently (upstream prunes before validation; `fieldValidation=Strict` is the http layer's business), and
so are those of an embedded resource's `metadata` (`schema/objectmeta/coerce.go` `CoerceWithOptions`, after
pruning). Error texts follow kube-openapi's: `<path> in body must be of type integer: "string"`.
"""
from __future__ import annotations

import copy
from typing import Any

from ..apierrors import FieldError, field_invalid, field_not_supported, field_required, unstructured_value
from ..wire.openapi_schemas import object_meta_fields, unknown_in
from . import crformats, crkeywords, crobjectmeta
from .correlation import deep_equal
from .correlation import old_item as correlated_item
from .crdrules.crdwrite import go_string


def _type_invalid(where: str, value: Any, detail: str) -> FieldError:
    """`field.TypeInvalid` (kube-openapi's InvalidTypeCode): printed as Invalid, its own cause reason. A type
    mismatch's value is the JSON type's name (`validate/type.go`: `InvalidType(path, in, type, schType)`)."""
    return FieldError("FieldValueTypeInvalid", where, field_invalid(where, value, detail).body)

_GO_TYPE = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array", dict: "object"}


def prune(obj: Any, schema: dict[str, Any] | None, *, root: bool = False) -> Any:
    """Drop every field the schema does not specify (`structuralpruning.Prune`); `obj` is changed in place."""
    _prune(obj, schema, root, dry=False)
    return obj


def needs_pruning(obj: Any, schema: dict[str, Any] | None, *, root: bool = False) -> bool:
    """Whether `prune(obj, schema, root=root)` would drop anything (`obj` is left untouched)."""
    return _prune(obj, schema, root, dry=True)


def unknown_paths(obj: Any, schema: dict[str, Any] | None) -> list[str]:
    """The paths `prune(obj, schema, root=True)` would drop (`obj` untouched), as `structuralpruning.PruneWithOptions`
    records them for a strict decode (schema/options.go `UnknownFieldPathOptions`: keys joined by `.`, an index as
    `[i]`, nothing escaped) and sorts them (`sort.Strings`: byte order)."""
    found: list[str] = []
    _prune(obj, schema, True, True, found)
    return sorted(found, key=lambda p: p.encode("utf-8", "surrogatepass"))


def prune_and_coerce(obj: Any, schema: dict[str, Any] | None) -> Any:
    """A custom resource as `unstructuredSchemaCoercer.apply` leaves it: its own metadata written back as decoded
    (`coerce_root_metadata`), pruned at its root, then each embedded resource's `metadata` coerced
    (`coerce_embedded`); `obj` is changed in place."""
    return coerce_embedded(prune(coerce_root_metadata(obj), schema, root=True), schema)


def coerce_root_metadata(obj: Any) -> Any:
    """A custom resource's own metadata as `GetObjectMetaWithOptions` + `SetObjectMeta` at the root write it back
    (crobjectmeta.py; a request's that does not decode was refused as it was read: http/decode.py); changed in
    place, the metadata dict too (the store holds it)."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if isinstance(meta, dict):
        written = crobjectmeta.reprint(meta)
        meta.clear()
        meta.update(written)
    return obj


def embedded_unknown_paths(obj: Any, schema: dict[str, Any] | None) -> list[str]:
    """The unknown fields of each embedded resource's `metadata` (`obj` untouched), as objectmeta/coerce.go's
    `CoerceWithOptions` returns them after pruning: `<path>.metadata.<field>` (the path as `field.Path` prints it:
    a property `.k`, an `additionalProperties` key `[k]`, an index `[i]`; the field as sigs.k8s.io/json's strict
    decoder names it, `ownerReferences[0].x`), all sorted (`sort.Strings`: byte order)."""
    found = [f"{where}.metadata.{p}" for where, parent in _embedded_metas(obj, schema, "")
             if isinstance(parent["metadata"], dict)
             for p in unknown_in(parent["metadata"], object_meta_fields(), "", drop=False)]
    return sorted(found, key=lambda p: p.encode("utf-8", "surrogatepass"))


def coerce_embedded(obj: Any, schema: dict[str, Any] | None, drop_invalid: bool = False) -> Any:
    """Each embedded resource's `metadata` as `SetObjectMeta` writes back the `metav1.ObjectMeta` it decoded
    (coerce.go; crobjectmeta.py: unknown and empty fields dropped, numbers and times re-printed, a null metadata
    `{}`). A `metadata` that does not decode is left alone (a request's: refused before or after), or with
    `drop_invalid` (the storage codec's `DropInvalidFields`) decoded from the fields that decode alone, a
    non-string `apiVersion`/`kind` removed. `obj` is changed in place."""
    for _, parent in _embedded_metas(obj, schema, "", drop_invalid):
        coerced = _coerced_resource(parent, drop_invalid)
        parent.clear()
        parent.update(coerced)
    return obj


def _coerced_resource(resource: dict[str, Any], drop_invalid: bool) -> dict[str, Any]:
    """An embedded resource with its `metadata` written back (and, `drop_invalid`, its invalid fields gone): a
    copy of its top level."""
    out = dict(resource)
    if drop_invalid:
        for key in ("apiVersion", "kind"):
            if key in out and not isinstance(out[key], str):
                del out[key]
    meta = out.get("metadata")
    if "metadata" in out and (meta is None or isinstance(meta, dict)):
        if crobjectmeta.decode_error(meta) is not None:  # (only with `drop_invalid`: `_embedded_metas`)
            meta = {k: v for k, v in meta.items() if crobjectmeta.decode_error({k: v}) is None}
        out["metadata"] = crobjectmeta.reprint(meta)
    return out


def _embedded_metas(obj: Any, schema: Any, path: str, drop_invalid: bool = False
                    ) -> list[tuple[str, dict[str, Any]]]:
    """(path, resource) of each embedded resource below the root with a `metadata` that decodes into a
    metav1.ObjectMeta (one that does not is upstream's decoding error: http/handlers.py's `_coerce_error`, on
    server-side apply `validate_embedded`'s; with `drop_invalid` any object's, and any resource with a non-string
    `apiVersion`/`kind`), walked as `coercer.coerce` walks:
    `properties`, `additionalProperties`, `items` (the root's is the decoder's own). A null `metadata` decodes
    (the zero ObjectMeta), unless its schema is not nullable (`PruneNonNullableNullsWithoutDefaults` removes it
    first)."""
    out: list[tuple[str, dict[str, Any]]] = []
    if not isinstance(schema, dict):
        return out
    props = schema.get("properties") or {}
    if isinstance(obj, dict):
        meta = obj.get("metadata")
        if path and schema.get("x-kubernetes-embedded-resource") is True and (
                "metadata" in obj and (meta is not None or not isinstance(props.get("metadata"), dict)
                                       or props["metadata"].get("nullable"))
                and (crobjectmeta.decode_error(meta) is None or drop_invalid and isinstance(meta, dict))
                or drop_invalid and any(k in obj and not isinstance(obj[k], str) for k in ("apiVersion", "kind"))):
            out.append((path, obj))
        extra = schema.get("additionalProperties")
        for key, value in obj.items():
            if key in props:
                out += _embedded_metas(value, props[key], f"{path}.{key}" if path else key, drop_invalid)
            elif isinstance(extra, dict):
                out += _embedded_metas(value, extra, f"{path}[{key}]", drop_invalid)
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(obj):
            out += _embedded_metas(item, schema["items"], f"{path}[{i}]", drop_invalid)
    return out


def _prune(obj: Any, schema: dict[str, Any] | None, root: bool, dry: bool, found: list[str] | None = None,
           path: str = "") -> bool:
    """Whether something was (`dry`: would be, and then the walk stops there, unless `found` collects each dropped
    field's path below `path`) dropped."""
    if not isinstance(schema, dict):
        return False
    dropped = False
    stop = dry and found is None
    if isinstance(obj, dict):
        if schema.get("x-kubernetes-preserve-unknown-fields") and not schema.get("properties"):
            return False
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        resource = root or schema.get("x-kubernetes-embedded-resource") is True  # pruning.go: XEmbeddedResource
        for key in list(obj):
            if resource and key in ("apiVersion", "kind", "metadata"):
                continue
            below = f"{path}.{key}" if path else key
            if key in props or isinstance(extra, dict):
                dropped = _prune(obj[key], props[key] if key in props else extra, False, dry, found, below) or dropped
            elif not (extra is True or schema.get("x-kubernetes-preserve-unknown-fields")):
                dropped = True
                if found is not None:
                    found.append(below)
                if not dry:
                    del obj[key]
            if dropped and stop:
                return True
    elif isinstance(obj, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(obj):
            dropped = _prune(item, schema["items"], False, dry, found, f"{path}[{i}]") or dropped
            if dropped and stop:
                return True
    return dropped


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


def defaults_skeleton(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The schema cut down to what `default` reads where a `default` can apply (None: the schema has none): every
    property kept (as `{}` when nothing below it has a default, so `additionalProperties` still sees only the
    others), `items`/`additionalProperties` only where they lead to a default. Built once per CRD version, so a
    read can ask `needs_defaults` cheaply."""
    if not isinstance(schema, dict):
        return None
    out: dict[str, Any] = {}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    kept = {k: _skeleton_node(p) for k, p in props.items()}
    if any(kept.values()):
        out["properties"] = kept
    for key in ("additionalProperties", "items"):
        sub = _skeleton_node(schema.get(key))
        if sub:
            out[key] = sub
    return out or None


def _skeleton_node(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    node = defaults_skeleton(schema) or {}
    if schema.get("default") is not None:
        node["default"] = schema["default"]
    if node and schema.get("nullable"):
        node["nullable"] = True
    return node


def needs_defaults(obj: Any, skeleton: dict[str, Any] | None) -> bool:
    """Whether `default(obj, skeleton)` would change `obj` (which it leaves untouched)."""
    if not skeleton:
        return False
    props = skeleton.get("properties") or {}
    extra = skeleton.get("additionalProperties")
    if isinstance(obj, dict):
        for key, prop in props.items():
            if prop.get("default") is not None and (key not in obj or obj[key] is None and not prop.get("nullable")):
                return True
        for key, value in obj.items():
            sub = props.get(key, extra)
            if sub and (value is None and sub.get("default") is not None and not sub.get("nullable")
                        or needs_defaults(value, sub)):
                return True
    elif isinstance(obj, list) and skeleton.get("items"):
        items = skeleton["items"]
        return any(item is None and items.get("default") is not None and not items.get("nullable")
                   or needs_defaults(item, items) for item in obj)
    return False


def decoded(obj: dict[str, Any], schema: dict[str, Any] | None, skeleton: dict[str, Any] | None,
            embedded: bool = False) -> dict[str, Any]:
    """A stored object as upstream's storage codec decodes it under the current schema (`unstructuredSchemaCoercer`
    prunes and, `embedded` (`has_embedded(schema)`), coerces its embedded resources with invalid fields dropped;
    `unstructuredDefaulter` defaults): `obj` itself when that changes nothing (an object written under this schema),
    else a copy below the root (its metadata shared). For objects stored before the schema changed."""
    if not needs_pruning(obj, schema, root=True) and not needs_defaults(obj, skeleton) and \
            not (embedded and _needs_coercion(obj, schema)):
        return obj
    out = {k: (v if k == "metadata" else copy.deepcopy(v)) for k, v in obj.items()}
    pruned = prune(out, schema, root=True)
    return default(coerce_embedded(pruned, schema, drop_invalid=True) if embedded else pruned, skeleton)


def has_embedded(schema: Any) -> bool:
    """Whether a schema marks some node below its root `x-kubernetes-embedded-resource` (once per CRD version)."""
    todo = [schema]
    while todo:
        node = todo.pop()
        if not isinstance(node, dict):
            continue
        if node is not schema and node.get("x-kubernetes-embedded-resource") is True:
            return True
        if isinstance(node.get("properties"), dict):
            todo.extend(node["properties"].values())
        todo.extend((node.get("additionalProperties"), node.get("items")))
    return False


def _needs_coercion(obj: Any, schema: dict[str, Any] | None) -> bool:
    """Whether `coerce_embedded(obj, schema, drop_invalid=True)` would change `obj` (left untouched)."""
    return any(_coerced_resource(parent, True) != parent for _, parent in _embedded_metas(obj, schema, "", True))


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


_NO_OLD: Any = object()  # no correlated old value (a create, or a node ratcheting cannot correlate)


def validate(obj: Any, schema: dict[str, Any] | None, path: str = "", old: Any = _NO_OLD) -> list[FieldError]:
    """The schema's type, format, required and enum errors for `obj` (already pruned), in path order.

    With `old` (an update's stored value), ratcheted as `ratchetingValueValidator`: a node equal to the old value
    it correlates with has its whole subtree's errors dropped (upstream turns them into warnings it never sends);
    a property correlates with the old object's same property, an item of a `x-kubernetes-list-type: map` list
    with the old item of the same keys, nothing else (items of other lists are validated without ratcheting)."""
    if not isinstance(schema, dict) or old is not _NO_OLD and deep_equal(obj, old):
        return []
    return _check(obj, schema, path, old)


def _check(obj: Any, schema: dict[str, Any], path: str, old: Any) -> list[FieldError]:
    """`validate` of a node not ratcheted as a whole (its children may be)."""
    errs: list[FieldError] = []
    where = path or "<root>"
    if obj is None:
        if schema.get("nullable") or not schema.get("type"):
            return []
        return [_type_invalid(where, "null", f'{where} in body must be of type {schema["type"]}: "null"')]
    want = schema.get("type")
    got = _type_of(obj)
    if schema.get("x-kubernetes-int-or-string"):
        if got not in ("integer", "string"):
            errs.append(_type_invalid(where, got, f"{where} in body must be of type integer,string: {_quote(obj)}"))
        return errs
    if want and not (want == got or (want == "number" and got == "integer")):
        return [_type_invalid(where, got, f"{where} in body must be of type {want}: {_quote(obj)}")]
    if isinstance(obj, str):  # kube-openapi's order: string keywords, format, number, slice, enum, object
        errs += crkeywords.string_errors(obj, schema, where)
        fmt = schema.get("format")
        if fmt and crformats.checks(fmt) and not crformats.valid(fmt, obj):
            errs.append(_type_invalid(where, obj, f"{where} in body must be of type {fmt}: {go_string(obj)}"))
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        errs += crkeywords.number_errors(obj, schema, where)
    elif isinstance(obj, list):  # the items first, then the list's own keywords (schemaSliceValidator)
        if isinstance(schema.get("items"), dict):
            for i, item in enumerate(obj):
                old_item = correlated_item(schema, item, old) if old is not _NO_OLD else None
                errs += validate(item, schema["items"], f"{where}[{i}]", _NO_OLD if old_item is None else old_item)
        errs += crkeywords.array_errors(obj, schema, where)
    if "enum" in schema and obj not in schema["enum"]:
        errs.append(field_not_supported(where, unstructured_value(obj), [str(v) for v in schema["enum"]]))
    if isinstance(obj, dict):
        errs += crkeywords.object_errors(obj, schema, where)
        props = schema.get("properties") or {}
        for name in schema.get("required") or []:
            if name not in obj:
                errs.append(field_required(f"{path}.{name}" if path else name))
        old_map = old if isinstance(old, dict) else {}
        for key, value in obj.items():
            sub = props.get(key)
            if sub is None and isinstance(schema.get("additionalProperties"), dict):
                sub = schema["additionalProperties"]
            if sub is not None:
                errs += validate(value, sub, f"{path}.{key}" if path else key, old_map.get(key, _NO_OLD))
    return errs


def validate_custom_resource(obj: dict[str, Any], schema: dict[str, Any] | None,
                              old: dict[str, Any] | None = None) -> list[FieldError]:
    """Validate everything below the root but metadata/apiVersion/kind (which the generic strategy checks);
    with `old` (update and status update: `NewRatchetingSchemaValidator`, CRDValidationRatcheting is GA and on in
    1.33), ratcheted against it."""
    if not isinstance(schema, dict):
        return []
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    sub = {**schema, "required": [r for r in schema.get("required") or []
                                  if r not in ("apiVersion", "kind", "metadata")]}
    if old is None:
        return validate(body, sub)
    if deep_equal(obj, old):  # the root correlates with the whole old object, metadata included
        return []
    return _check(body, sub, "", {k: v for k, v in old.items() if k not in ("apiVersion", "kind", "metadata")})
