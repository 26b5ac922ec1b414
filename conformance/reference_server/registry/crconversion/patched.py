"""The conversion webhook call the field manager makes for a custom resource patched to name another served
version (registry/crtypemeta.py): apiserver handlers/patch.go `applyPatchToCurrentObject` ends with
`p.fieldManager.UpdateNoErrors(currentObject, objToUpdate, ...)`, whose structured-merge manager converts the new
object to the request's version (managedfields/internal/structuredmerge.go `toVersioned`: the request scope's
`Convertor`, the CRD's `crConverter`), the object as decoded (pruned and defaulted by the schema of the version it
names) without its managedFields (`RemoveObjectManagedFields`). Only where it tracks fields (`skipNonApplied`: the
new or the live object has managedFields) and the converter takes the object (its group the CRD's, its version
one of the CRD's: `KindForGroupVersionKinds`, `validVersions`); `UpdateNoErrors` drops a failed conversion (the
request goes on to be refused by the strategy, as it is without a webhook)."""
from __future__ import annotations

import copy
from typing import Any

from .. import crschema
from ..crtypemeta import decode_schema, group_version, names_other
from .converter import Converter
from .memo import QUIET

TAG = f"{QUIET}fieldmanager:"  # (its own answers, a failure remembered as none: webhook.py `resolve`)


def ask(store: Any, current: dict[str, Any], patched: dict[str, Any]) -> None:
    """The field manager's conversion of `patched` (a custom resource's patched object, `current` the live one)
    when it names another version: a `ConversionPending` until the webhook has been asked once."""
    converter: Converter | None = getattr(store, "converter", None)
    crd = getattr(store, "crd", None)
    if converter is None or not converter.webhook or crd is None:
        return
    if not names_other(patched, store.api_version, store.info.kind):
        return
    if not (_managed(patched) or _managed(current)):
        return
    group, version = group_version(patched.get("apiVersion"))
    versions = {v.get("name") for v in (crd.get("spec") or {}).get("versions") or [] if isinstance(v, dict)}
    if group != store.group or version not in versions:
        return
    obj = copy.deepcopy(patched)
    (obj.get("metadata") or {}).pop("managedFields", None)
    schema = decode_schema(obj, crd, store.group, store.info.kind, None)
    if isinstance(schema, dict):
        crschema.default(crschema.prune_and_coerce(obj, schema), schema)
    converter.convert(obj, store.api_version, tag=TAG)


def _managed(obj: dict[str, Any]) -> bool:
    meta = obj.get("metadata")
    return isinstance(meta, dict) and bool(meta.get("managedFields"))


__all__ = ["TAG", "ask"]
