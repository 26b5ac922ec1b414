"""A custom resource whose `apiVersion` or `kind` names another version or kind than its request's, as
kube-apiserver 1.33 reads it (a JSON or merge patch's result: apiserver handlers/patch.go
`applyPatchToCurrentObject`, `runtime.DecodeInto(p.codec, patchedObjJS, objToUpdate)`; a created or updated
body, decoded likewise, once create.go / update.go accepted its group-version: http/crbodygvk.py).

apiextensions-apiserver's `unstructuredNegotiatedSerializer.DecoderToVersion` (customresource_handler.go) decodes
through `schemaCoercingDecoder` (`unstructuredSchemaCoercer.apply`: pruned and coerced by
`structuralSchemas[gv.Version]` only where the object's group and kind are the CRD's, and by no schema (all but
`apiVersion`, `kind`, `metadata` pruned) where that version is none of the CRD's), then its versioning codec
"converts" with `runtime.UnsafeObjectConvertor(Scheme)`, which copies an `Unstructured` into an `Unstructured`
as it is: no conversion, the object keeps the version and kind it names. `rest.BeforeUpdate` then types it with
the strategy's `UnstructuredObjectTyper` (crdserverscheme/unstructured.go: no version is
`NewMissingVersionErr("object has no apiVersion field")`, wrapped in `NewInternalError` by `objectMetaAndKind`),
and the strategy's `ValidateTypeMeta` (registry/customresource/validator.go) refuses a kind or apiVersion that
is not the request's, the Invalid error naming the object's own group and kind (`kind.GroupKind()`).
"""
from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .. import apierrors as E
from ..apierrors import FieldError
from ..goport.gofmt import go_quote

# a custom resource's JSON or merge patch, or its created or updated body (http/crbodygvk.py: another kind of the
# route's version), being written: only its object may name another version or kind (a controller's write of an
# object an older storage version wrote carries that version: the store relabels it)
PATCHING: contextvars.ContextVar[bool] = contextvars.ContextVar("crtypemeta_patching", default=False)

# (`unstructuredSchemaCoercer.apply` with `structuralSchemas[v]` nil: `PruneWithOptions` prunes at the root
# with an empty structural schema, keeping only `apiVersion`, `kind` and `metadata`)
NO_SCHEMA: dict[str, Any] = {"type": "object"}


@contextmanager
def patching() -> Iterator[None]:
    """Within: the write of a custom resource's JSON or merge patch, or of its body (the offloaded calls copy the
    context)."""
    token = PATCHING.set(True)
    try:
        yield
    finally:
        PATCHING.reset(token)


def checked(obj: dict[str, Any], api_version: str, kind: str) -> bool:
    """Whether `obj` is a patched object (or a body) naming another version or kind, to be refused (within
    `patching`)."""
    return PATCHING.get() and names_other(obj, api_version, kind)


def group_version(api_version: Any) -> tuple[str, str]:
    """`schema.ParseGroupVersion` of a readable `apiVersion` (wire/patchedgvk.py refused the others): `""` and
    `"/"` are the empty group and version."""
    text = api_version if isinstance(api_version, str) else ""
    if text in ("", "/"):
        return "", ""
    group, _, version = text.rpartition("/")
    return group, version


def names_other(obj: dict[str, Any], api_version: str, kind: str) -> bool:
    """Whether `obj` names another version or kind than `api_version`/`kind` (or none)."""
    return obj.get("apiVersion") != api_version or obj.get("kind") != kind


def other_kind(obj: dict[str, Any], api_version: str, kind: str) -> bool:
    """Whether `obj` names another group or kind than `api_version`'s group and `kind` (which the decoder does not
    prune: `decode_schema`'s None)."""
    return group_version(obj.get("apiVersion"))[0] != group_version(api_version)[0] or obj.get("kind") != kind


def decode_schema(obj: dict[str, Any], crd: dict[str, Any] | None, group: str, kind: str,
                  own: dict[str, Any] | None) -> dict[str, Any] | None:
    """The schema `unstructuredSchemaCoercer.apply` prunes `obj` with: that of the version its `apiVersion`
    names where its group and kind are the CRD's (`own` for the request's version: the caller's), `NO_SCHEMA`
    for a version the CRD does not have, None (not pruned, not coerced) for another group or kind."""
    obj_group, version = group_version(obj.get("apiVersion"))
    if obj_group != group or obj.get("kind") != kind:
        return None
    for v in ((crd or {}).get("spec") or {}).get("versions") or []:
        if isinstance(v, dict) and v.get("name") == version:
            schema = (v.get("schema") or {}).get("openAPIV3Schema")
            return schema if isinstance(schema, dict) else NO_SCHEMA
    return NO_SCHEMA if crd is not None else own


def untyped(obj: dict[str, Any]) -> E.StatusError | None:
    """`objectMetaAndKind`'s refusal of an object with no version (`ObjectKinds`: `NewMissingVersionErr`, in
    `NewInternalError`), the first thing `rest.BeforeUpdate` does; None for a typed one."""
    if group_version(obj.get("apiVersion"))[1]:
        return None
    return E.internal("Object 'apiVersion' is missing in 'object has no apiVersion field'")


def invalid(obj: dict[str, Any], name: str, causes: list[FieldError]) -> E.StatusError:
    """`rest.BeforeUpdate`'s Invalid error of `causes` (the update's whole list, as `update_causes` makes it
    from `type_meta_errors` and the rest) under the object's own group and kind (`kind.GroupKind()`)."""
    return E.invalid(str(obj.get("kind")), name, causes, group=group_version(obj.get("apiVersion"))[0])


def type_meta_errors(obj: dict[str, Any], api_version: str, kind: str) -> list[FieldError]:
    """`ValidateTypeMeta`: the kind, then the apiVersion, each `must be` the request's."""
    errs = []
    if obj.get("kind") != kind:
        errs.append(FieldError("FieldValueInvalid", "kind",
                               f"Invalid value: {go_quote(_text(obj.get('kind')))}: must be {kind}"))
    if obj.get("apiVersion") != api_version:
        errs.append(FieldError("FieldValueInvalid", "apiVersion",
                               f"Invalid value: {go_quote(_text(obj.get('apiVersion')))}: must be {api_version}"))
    return errs


def _text(value: Any) -> str:
    """`GetKind`/`GetAPIVersion`: the string, or "" (absent)."""
    return value if isinstance(value, str) else ""


__all__ = ["NO_SCHEMA", "PATCHING", "checked", "decode_schema", "group_version", "invalid", "names_other",
           "other_kind", "patching", "type_meta_errors", "untyped"]
