"""A custom resource that names another version or kind than its request's (a JSON or merge patch's result:
registry/crtypemeta.py) as the mutating webhooks see it, and as they leave it.

The dispatcher (apiserver admission/plugin/webhook/mutating/dispatcher.go) makes the versioned attributes at the
first webhook whose rules and selectors match, before its matchConditions (`VersionedAttribute`, also asked by
generic/webhook.go `ShouldCallHook`): `admission.ConvertToGVK` converts the object to the webhook's kind with the
CRD's converter (apiextensions conversion/converter.go `crConverter.ConvertToVersion`), which refuses a version
that is none of the CRD's (`request to convert CR from an invalid group/version: %s`; another group, none
too: `%v is unstructured and is not suitable for converting to %q`), an internal error wrapped once more by the
dispatcher, and sets the kind (`SetGroupVersionKind`). After the webhooks, a patched ("Dirty")
versioned object is converted back into the request's object (`Convert(VersionedObject, attr.GetObject())`: to
that object's version, the content, kind too, the webhook's); an unpatched one leaves it as it was. (Dirty is
any non-empty patch; here, a patch that changed the object: webhooks/__init__.py's `changed`.)

Strategy `None` only: nop_converter.go sets `apiVersion`; a conversion webhook's CRD is converted so too here
(README "Known gaps")."""
from __future__ import annotations

from typing import Any

from ... import apierrors as E
from ...goport.gofmt import go_quote
from ...registry.crtypemeta import group_version, names_other



def foreign(obj: Any, a: Any) -> bool:
    """Whether `obj`, a custom resource's, names another version or kind than the request (`a`)."""
    return bool(a.custom and isinstance(obj, dict) and not a.kind_gv
                and names_other(obj, f"{a.group}/{a.version}", a.kind))


def versioned(obj: dict[str, Any], a: Any, crd: dict[str, Any] | None) -> dict[str, Any]:
    """`ConvertToGVK(obj, the request's kind)`: the object in the request's version and kind, or the
    dispatcher's internal error for a version that is none of the CRD's (`crd`: the CRD)."""
    group, version = group_version(obj.get("apiVersion"))
    names = {v.get("name") for v in ((crd or {}).get("spec") or {}).get("versions") or [] if isinstance(v, dict)}
    if group != a.group:  # (`KindForGroupVersionKinds` finds no kind of the target's group)
        inner = (f"{group}/{version}, Kind={obj.get('kind')} is unstructured and is not suitable for converting "
                 f"to {go_quote(f'{a.group}/{a.version}')}")
        raise E.internal(f"Internal error occurred: {inner}")
    if version not in names:
        inner = f"request to convert CR from an invalid group/version: {group}/{version}"
        raise E.internal(f"Internal error occurred: {inner}")
    return {**obj, "apiVersion": f"{a.group}/{a.version}", "kind": a.kind}


def back(result: dict[str, Any] | None, original: dict[str, Any], dirty: bool) -> dict[str, Any] | None:
    """The request's object after the webhooks: the patched versioned object converted back to the version
    `original` names (its kind the webhooks'), or `original` where no webhook patched it."""
    if not dirty or result is None:
        return original
    return {**result, "apiVersion": original.get("apiVersion")}


__all__ = ["back", "foreign", "versioned"]
