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
that object's version, the content, kind too, the webhook's: a webhook's patch of `apiVersion` to another of the
CRD's versions is undone, to one that is none of them refused, whatever the request's object named); an
unpatched one leaves it as it was (Dirty: a patch of at least one operation was applied, whether it changed the
object or not).

Here the checks and nop_converter.go's relabelling (`apiVersion`; the kind set); a CRD converting by webhook is
asked by webhooks/__init__.py (`_cr_converted`)."""
from __future__ import annotations

from typing import Any

from ... import apierrors as E
from ...goport.gofmt import go_quote
from ...registry.crtypemeta import checked, group_version


def custom(obj: Any, a: Any) -> bool:
    """Whether `obj` is a custom resource (an `Unstructured` the CRD's converter converts), not a subresource's
    typed kind."""
    return bool(a.custom and isinstance(obj, dict) and not a.kind_gv)


def foreign(obj: Any, a: Any) -> bool:
    """Whether `obj`, a custom resource's, names another version or kind than the request (`a`)."""
    return custom(obj, a) and checked(obj, f"{a.group}/{a.version}", a.kind)


def versioned(obj: dict[str, Any], a: Any, crd: dict[str, Any] | None) -> dict[str, Any]:
    """`ConvertToGVK(obj, the request's kind)`: the object in the request's version and kind, or the
    dispatcher's internal error for a version that is none of the CRD's (`crd`: the CRD)."""
    group, version = group_version(obj.get("apiVersion"))
    if group != a.group:  # (`KindForGroupVersionKinds` finds no kind of the target's group)
        inner = (f"{group}/{version}, Kind={obj.get('kind')} is unstructured and is not suitable for converting "
                 f"to {go_quote(f'{a.group}/{a.version}')}")
        raise E.internal(f"Internal error occurred: {inner}")
    if version not in _versions(crd):
        raise E.internal(f"Internal error occurred: {_invalid_from(group, version)}")
    return {**obj, "apiVersion": f"{a.group}/{a.version}", "kind": a.kind}


def back(result: dict[str, Any] | None, original: dict[str, Any], dirty: bool, crd: dict[str, Any] | None,
         ) -> dict[str, Any] | None:
    """The request's object after the webhooks: `original` where no webhook patched it, else the patched
    versioned object converted to the version `original` names (`crConverter.Convert`: its kind, and any version
    the webhook's patch wrote, as the patch left them), or the converter's error as `Dispatch` returns it (no
    API status: `ErrorToAPIStatus`' 500 with the bare message) for a version that is none of the CRD's."""
    if not dirty or result is None or result is original:  # (the request's version, untouched: nothing to do)
        return original
    to_group, to_version = group_version(original.get("apiVersion"))
    group, version = group_version(result.get("apiVersion"))
    if group != to_group:
        target = f"{to_group}/{to_version}" if to_group else to_version
        why = (f"{group}/{version}, Kind={result.get('kind') or ''} is unstructured and is not suitable for "
               f"converting to {go_quote(target)}")
        raise E.StatusError(E.status_dict(500, None, why))
    if version not in _versions(crd):
        raise E.StatusError(E.status_dict(500, None, _invalid_from(group, version)))
    return {**result, "apiVersion": original.get("apiVersion")}


def _versions(crd: dict[str, Any] | None) -> set[Any]:
    """`validVersions`: every version of the CRD, served or not."""
    return {v.get("name") for v in ((crd or {}).get("spec") or {}).get("versions") or [] if isinstance(v, dict)}


def _invalid_from(group: str, version: str) -> str:
    return f"request to convert CR from an invalid group/version: {f'{group}/{version}' if group else version}"


__all__ = ["back", "custom", "foreign", "versioned"]
