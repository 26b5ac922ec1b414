"""PersistentVolumeClaimResize: a claim may grow only when it is bound and its StorageClass allows expansion.

Follows `plugin/pkg/admission/storage/persistentvolume/resize/admission.go` (`Validate`, `allowResize`) and
`GetPersistentVolumeClaimClass` (pkg/apis/core/helper: `defaultclass.claim_class`): on an update of a claim (no
subresource) whose `spec.resources.requests.storage` grows, `Only bound persistent volume claims can be expanded`
unless the stored claim is `Bound`, then `only dynamically provisioned pvc can be resized and the storageclass that provisions the
pvc must support resize` unless both versions name the same non-empty class and that StorageClass has
`allowVolumeExpansion: true`; both `admission.NewForbidden` (403). A default-on plugin, in every flavour."""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..quantity import Quantity
from ..registry import Registry
from ..storage import KeyNotFoundError
from .defaultclass import claim_class

def _storage(claim: dict[str, Any]) -> Quantity:
    raw = ((((claim.get("spec") or {}).get("resources")) or {}).get("requests") or {}).get("storage")
    try:
        return Quantity.parse(raw) if raw is not None else Quantity.from_int(0)
    except ValueError:
        return Quantity.from_int(0)  # validation has refused it already


def _allows_expansion(registry: Registry, name: str) -> bool:
    if registry.group("storage.k8s.io", "storageclasses") is None:
        return False
    try:
        sc = registry.store.get("storageclasses", "", name, shared=True)  # read only
    except KeyNotFoundError:
        return False
    return sc.get("allowVolumeExpansion") is True


def validate_update(registry: Registry, new: dict[str, Any], old: dict[str, Any]) -> None:
    """`persistentVolumeClaimResize.Validate` for an update of `old` into `new`."""
    if _storage(new).cmp(_storage(old)) <= 0:
        return
    name = (new.get("metadata") or {}).get("name") or ""
    if ((old.get("status") or {}).get("phase")) != "Bound":
        raise E.forbidden("persistentvolumeclaims", name, "Only bound persistent volume claims can be expanded")
    new_class, old_class = claim_class(new), claim_class(old)
    if not new_class or not old_class or new_class != old_class or not _allows_expansion(registry, new_class):
        raise E.forbidden("persistentvolumeclaims", name, "only dynamically provisioned pvc can be resized and "
                                                          "the storageclass that provisions the pvc must support resize")


__all__ = ["validate_update"]
