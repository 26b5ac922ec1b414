"""A VolumeAttachment's `inlineVolumeSpec`: `ValidatePersistentVolumeSpec` of `pkg/apis/core/validation/validation.go`
(1.33) with `validateInlinePersistentVolumeSpec` true, as `validateVolumeAttachmentSource` of
`pkg/apis/storage/validation/validation.go` calls it (no claimRef, capacity, nodeAffinity or storage class; a CSI
source required and validated (`validateCSIPersistentVolumeSource`: driver name, volumeHandle, the secret
references); access modes; only the Retain reclaim policy and the Filesystem volume mode; exactly one source, in
the Go struct's order). The other sources' own fields are not checked (a CSI source is required beside them);
VolumeAttributesClass is off in 1.33."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_label, is_dns1123_subdomain
from .storage import csi_driver_name_errors

INLINE = "may not be specified in the context of inline volumes"
ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
# PersistentVolumeSource's members in the Go struct's order: (JSON key, the "more than 1" error's path)
_SOURCES = (("hostPath", "hostPath"), ("gcePersistentDisk", "gcePersistentDisk"),
            ("awsElasticBlockStore", "awsElasticBlockStore"), ("glusterfs", "glusterfs"), ("flocker", "flocker"),
            ("nfs", "nfs"), ("rbd", "rbd"), ("quobyte", "quobyte"), ("cephfs", "cephFS"), ("iscsi", "iscsi"),
            ("cinder", "cinder"), ("fc", "fc"), ("flexVolume", ""), ("azureFile", "azureFile"),
            ("vsphereVolume", "vsphereVolume"), ("photonPersistentDisk", "photonPersistentDisk"),
            ("portworxVolume", "portworxVolume"), ("azureDisk", "azureDisk"), ("scaleIO", "scaleIO"),
            ("local", "local"), ("storageos", "storageos"), ("csi", "csi"))
_SECRET_REFS = ("controllerPublishSecretRef", "controllerExpandSecretRef", "nodePublishSecretRef",
                "nodeExpandSecretRef")


def _secret_reference(ref: dict[str, Any], path: str) -> list[FieldError]:
    """`validatePVSecretReference`."""
    name, namespace = str(ref.get("name") or ""), str(ref.get("namespace") or "")
    errs = [field_required(f"{path}.name")] if not name else \
        [field_invalid(f"{path}.name", name, m) for m in is_dns1123_subdomain(name)]
    errs += [field_required(f"{path}.namespace")] if not namespace else \
        [field_invalid(f"{path}.namespace", namespace, m) for m in is_dns1123_label(namespace)]
    return errs


def _csi(csi: dict[str, Any], path: str) -> list[FieldError]:
    """`validateCSIPersistentVolumeSource`."""
    errs = csi_driver_name_errors(str(csi.get("driver") or ""), f"{path}.driver")
    if not csi.get("volumeHandle"):
        errs.append(field_required(f"{path}.volumeHandle"))
    for key in _SECRET_REFS:
        if isinstance(csi.get(key), dict):
            errs += _secret_reference(csi[key], f"{path}.{key}")
    return errs


def _access_modes(modes: list[Any], path: str) -> list[FieldError]:
    errs = [] if modes else [field_required(path)]
    rwop = others = False
    for mode in modes:
        if mode not in ACCESS_MODES:
            errs.append(field_not_supported(path, mode, ACCESS_MODES))
        elif mode == "ReadWriteOncePod":
            rwop = True
        else:
            others = True
    if rwop and others:
        errs.append(field_forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return errs


def inline_volume_spec_errors(spec: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidatePersistentVolumeSpec(spec, "", true, path)`."""
    errs: list[FieldError] = []
    if spec.get("claimRef") is not None:
        errs.append(field_forbidden(f"{path}.claimRef", INLINE))
    if as_dict(spec.get("capacity")):
        errs.append(field_forbidden(f"{path}.capacity", INLINE))
    if not isinstance(spec.get("csi"), dict):
        errs.append(field_required(f"{path}.csi", "has to be specified in the context of inline volumes"))
    errs += _access_modes(as_list(spec.get("accessModes")), f"{path}.accessModes")
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy and policy != "Retain":
        errs.append(field_forbidden(f"{path}.persistentVolumeReclaimPolicy",
                                    "may only be Retain in the context of inline volumes"))
    if spec.get("nodeAffinity") is not None:
        errs.append(field_forbidden(f"{path}.nodeAffinity", INLINE))
    count = 0
    for key, shown in _SOURCES:
        if not isinstance(spec.get(key), dict):
            continue
        if count and shown:  # upstream counts flexVolume without the "more than 1" check
            errs.append(field_forbidden(f"{path}.{shown}", "may not specify more than 1 volume type"))
            continue
        count += 1
        if key == "csi":
            errs += _csi(spec["csi"], f"{path}.csi")
    if not count:
        errs.append(field_required(path, "must specify a volume type"))
    host_path = str(as_dict(spec.get("hostPath")).get("path") or "")
    if host_path and host_path.rstrip("/") == "" and policy == "Recycle":
        errs.append(field_forbidden(f"{path}.persistentVolumeReclaimPolicy",
                                    "may not be 'recycle' for a hostPath mount of '/'"))
    if spec.get("storageClassName"):
        errs.append(field_forbidden(f"{path}.storageClassName", INLINE))
    mode = spec.get("volumeMode")
    if mode is not None and mode != "Filesystem":
        errs.append(field_forbidden(f"{path}.volumeMode", "may not specify volumeMode other than Filesystem in the "
                                                          "context of inline volumes"))
    return errs
