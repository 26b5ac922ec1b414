"""The StorageObjectInUseProtection admission plugin (`plugin/pkg/admission/storage/storageobjectinuseprotection/
admission.go`): every new PersistentVolumeClaim gets the `kubernetes.io/pvc-protection` finalizer and every new
PersistentVolume `kubernetes.io/pv-protection` (once; a finalizer the client sent already is kept as is). The
protection controllers (controller/volumeprotection.py) remove them when nothing uses the object any more.

Wraps the server's admission chain: its other phases (`for_delete`, `for_validate`, ...) are the inner chain's.
"""
from __future__ import annotations

from typing import Any, Callable

from .chain import ADMIT, timed

PVC_PROTECTION = "kubernetes.io/pvc-protection"
PV_PROTECTION = "kubernetes.io/pv-protection"
FINALIZERS = {"persistentvolumeclaims": PVC_PROTECTION, "persistentvolumes": PV_PROTECTION}


def add_finalizer(obj: dict[str, Any], finalizer: str) -> None:
    meta = obj.setdefault("metadata", {})
    if not isinstance(meta, dict):
        return
    finalizers = meta.get("finalizers") if isinstance(meta.get("finalizers"), list) else []
    if finalizer not in finalizers:
        meta["finalizers"] = [*finalizers, finalizer]


_protect = timed("StorageObjectInUseProtection", ADMIT, add_finalizer)


class StorageObjectInUseProtection:
    """The inner chain, then the finalizer for PVCs and PVs (upstream orders it after the built-in mutators)."""

    def __init__(self, inner: Any):
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def for_create(self, info: Any) -> Callable[[dict[str, Any]], None] | None:
        inner = self.inner.for_create(info)
        finalizer = FINALIZERS.get(info.plural) if info.kind in ("PersistentVolumeClaim", "PersistentVolume") \
            else None
        if finalizer is None:
            return inner

        def admit(obj: dict[str, Any]) -> None:
            if inner is not None:
                inner(obj)
            _protect(obj, finalizer)
        return admit
