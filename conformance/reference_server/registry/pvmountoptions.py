"""A PersistentVolume's beta mount-options annotation, as `pkg/volume/validation/pv_validation.go`
`ValidatePersistentVolume` (`checkMountOption`) judges it: only the volume types whose plugins mount with
options may carry `volume.beta.kubernetes.io/mount-options` (present at all, whatever its value); any other
(hostPath, local, CSI, FC, FlexVolume, ...) is refused with a Forbidden error at
`metadata.annotations.<annotation>` (`field.Path.Child`: dotted, not a `[key]` subscript).

`pkg/registry/core/persistentvolume/strategy.go` appends it after `ValidatePersistentVolume` on create and on
update (before `ValidatePersistentVolumeUpdate`), in every version from 1.9 to the 1.33 development forks; the
list of types is unchanged since the check was written (1.7)."""
from __future__ import annotations

from typing import Any

from ..apierrors import FieldError, field_forbidden
from .shapes import as_dict

MOUNT_OPTION_ANNOTATION = "volume.beta.kubernetes.io/mount-options"
# the `core.PersistentVolumeSource` members `checkMountOption` lets carry it, by their JSON names
MOUNT_OPTION_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "nfs", "rbd", "quobyte", "iscsi",
                        "cinder", "cephfs", "azureFile", "vsphereVolume", "azureDisk", "photonPersistentDisk")


def mount_option_errors(pv: dict[str, Any]) -> list[FieldError]:
    """`checkMountOption`: the annotation on a volume none of whose sources takes mount options (a source is
    set when present and not `null`: Go's non-nil pointer)."""
    spec = as_dict(pv.get("spec"))
    if any(spec.get(source) is not None for source in MOUNT_OPTION_SOURCES):
        return []
    annotations = as_dict(as_dict(pv.get("metadata")).get("annotations"))
    if MOUNT_OPTION_ANNOTATION not in annotations:
        return []
    return [field_forbidden(f"metadata.annotations.{MOUNT_OPTION_ANNOTATION}",
                            "may not specify mount options for this volume type")]


__all__ = ["MOUNT_OPTION_ANNOTATION", "MOUNT_OPTION_SOURCES", "mount_option_errors"]
