"""The default-class admission plugins: DefaultStorageClass and DefaultIngressClass.

* `plugin/pkg/admission/storage/storageclass/setdefault/admission.go`: a new PersistentVolumeClaim without a
  class (`PersistentVolumeClaimHasClass`: neither `spec.storageClassName`, even `""`, nor the beta annotation
  `volume.beta.kubernetes.io/storage-class`) gets the default StorageClass's name; the default is
  `pkg/volume/util/storageclass.go` `GetDefaultClass`: the classes annotated
  `storageclass.kubernetes.io/is-default-class` (or the beta annotation) `"true"`, the newest by
  creationTimestamp, then the smallest name (since 1.26; no default: the claim is left alone).
* `plugin/pkg/admission/network/defaultingressclass/admission.go`: a new Ingress without `spec.ingressClassName`
  and without the `kubernetes.io/ingress.class` annotation gets the default IngressClass (annotation
  `ingressclass.kubernetes.io/is-default-class: "true"`, the newest as above).

`default_storage_class` is also what the PV controller's retroactive assignment uses
(controller/persistentvolume.py, `assignDefaultStorageClass`).
"""
from __future__ import annotations

from typing import Any, Iterable

from ..registry import Registry

IS_DEFAULT_STORAGE_CLASS = "storageclass.kubernetes.io/is-default-class"
BETA_IS_DEFAULT_STORAGE_CLASS = "storageclass.beta.kubernetes.io/is-default-class"
BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
IS_DEFAULT_INGRESS_CLASS = "ingressclass.kubernetes.io/is-default-class"
INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"


def _annotations(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    ann = meta.get("annotations")
    return ann if isinstance(ann, dict) else {}


def newest(classes: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """Newest creationTimestamp first, then the smallest name (`GetDefaultClass`'s sort); None when empty.
    RFC 3339 seconds in UTC sort as strings."""
    best = None
    for c in classes:
        meta = c.get("metadata") or {}
        key = (meta.get("creationTimestamp") or "", _neg(meta.get("name") or ""))
        if best is None or key > best[0]:
            best = (key, c)
    return best[1] if best else None


def _neg(name: str) -> tuple[int, ...]:
    """A key that sorts names in reverse, so `max` picks the smallest name among equal timestamps."""
    return tuple(-ord(ch) for ch in name) + (1,)


def _items(registry: Registry, group: str, plural: str) -> list[dict[str, Any]]:
    store = registry.group(group, plural)
    if store is None:
        return []
    return registry.store.list(plural, None, shared=True)[0]  # read only


def default_storage_class(registry: Registry) -> dict[str, Any] | None:
    """`GetDefaultClass` over the StorageClasses."""
    return newest(c for c in _items(registry, "storage.k8s.io", "storageclasses")
                  if "true" in (_annotations(c).get(IS_DEFAULT_STORAGE_CLASS),
                                _annotations(c).get(BETA_IS_DEFAULT_STORAGE_CLASS)))


def default_ingress_class(registry: Registry) -> dict[str, Any] | None:
    return newest(c for c in _items(registry, "networking.k8s.io", "ingressclasses")
                  if _annotations(c).get(IS_DEFAULT_INGRESS_CLASS) == "true")


def claim_class(claim: dict[str, Any]) -> str:
    """`GetPersistentVolumeClaimClass`: the beta annotation first, then `spec.storageClassName`."""
    ann = _annotations(claim)
    if BETA_STORAGE_CLASS in ann:
        return ann[BETA_STORAGE_CLASS]
    spec = claim.get("spec") if isinstance(claim.get("spec"), dict) else {}
    return spec.get("storageClassName") or ""


def claim_has_class(claim: dict[str, Any]) -> bool:
    """`PersistentVolumeClaimHasClass`: the beta annotation, or `spec.storageClassName` set (`""` included)."""
    spec = claim.get("spec") if isinstance(claim.get("spec"), dict) else {}
    return BETA_STORAGE_CLASS in _annotations(claim) or spec.get("storageClassName") is not None


def admit_claim(registry: Registry, claim: dict[str, Any]) -> None:
    """DefaultStorageClass's `Admit` on create."""
    if claim_has_class(claim) or not isinstance(claim.get("spec"), dict):
        return
    default = default_storage_class(registry)
    if default is not None:
        claim["spec"]["storageClassName"] = default["metadata"]["name"]


def admit_ingress(registry: Registry, ingress: dict[str, Any]) -> None:
    """DefaultIngressClass's `Admit` on create."""
    spec = ingress.get("spec")
    if not isinstance(spec, dict) or spec.get("ingressClassName") is not None \
            or INGRESS_CLASS_ANNOTATION in _annotations(ingress):
        return
    default = default_ingress_class(registry)
    if default is not None:
        spec["ingressClassName"] = default["metadata"]["name"]
