"""A VolumeAttachment's `inlineVolumeSpec`: `ValidatePersistentVolumeSpec` of `pkg/apis/core/validation/validation.go`
(1.33) with `validateInlinePersistentVolumeSpec` true, as `validateVolumeAttachmentSource` of
`pkg/apis/storage/validation/validation.go` calls it (no claimRef, capacity, nodeAffinity or storage class; a CSI
source required and validated (`validateCSIPersistentVolumeSource`: driver name, volumeHandle, the secret
references); access modes; only the Retain reclaim policy and the Filesystem volume mode; exactly one source, in
the Go struct's order, flexVolume counted but never refused as a second one). The first source's own rules are
the `validate<Source>PersistentVolumeSource` functions: the ones shared with a pod's volumes are
podvalidation's, the persistent variants (glusterfs's endpoints namespace, iscsi's messages and secret, cinder's,
azureFile's and storageos's secret namespaces, local's path and node affinity) are here. VolumeAttributesClass is
off in 1.33."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_label, is_dns1123_subdomain
from ..podvalidation.legacyvolumes import iscsi_errors, text
from ..podvalidation.volumes import path_no_backsteps, volume_source_errors
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
# the path each source's own errors use, where it differs from its JSON key
_SOURCE_PATH = {"gcePersistentDisk": "persistentDisk"}
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


def _secret_ref(source: dict[str, Any], path: str) -> list[FieldError]:
    """A `SecretReference`'s name and namespace, each required when the reference is set."""
    ref = source.get("secretRef")
    if not isinstance(ref, dict):
        return []
    return [field_required(f"{path}.secretRef.{k}") for k in ("name", "namespace") if not text(ref, k)]


def _glusterfs(source: dict[str, Any], path: str) -> list[FieldError]:
    """`validateGlusterfsPersistentVolumeSource`."""
    errs = [field_required(f"{path}.{k}") for k in ("endpoints", "path") if not text(source, k)]
    namespace = source.get("endpointsNamespace")
    if isinstance(namespace, str):
        if not namespace:
            errs.append(field_invalid(f"{path}.endpointsNamespace", namespace,
                                      "if the endpointnamespace is set, it must be a valid namespace name"))
        errs += [field_invalid(f"{path}.endpointsNamespace", namespace, m)
                 for m in (is_dns1123_label(namespace) if namespace else [])]
    return errs


def _pv_source_errors(key: str, source: dict[str, Any], path: str) -> list[FieldError]:
    """`validate<Source>PersistentVolumeSource` of the first source set (csi, local and the persistent variants
    here, the rest shared with a pod's volumes)."""
    if key == "csi":
        return _csi(source, path)
    if key == "iscsi":
        return iscsi_errors(source, path, persistent=True)
    if key == "glusterfs":
        return _glusterfs(source, path)
    if key == "cinder":
        return ([] if text(source, "volumeID") else [field_required(f"{path}.volumeID")]) + _secret_ref(source, path)
    if key == "azureFile":
        errs = [field_required(f"{path}.{k}") for k in ("secretName", "shareName") if not text(source, k)]
        if source.get("secretNamespace") == "":
            errs.append(field_required(f"{path}.secretNamespace"))
        return errs
    if key == "storageos":
        errs = volume_source_errors(key, {**source, "secretRef": None}, path)
        return errs + _secret_ref(source, path)
    if key == "local":
        local = text(source, "path")
        errs = path_no_backsteps(local, f"{path}.path") if local else [field_required(f"{path}.path")]
        return errs + [field_required(path.rsplit(".", 1)[0] + ".nodeAffinity", "Local volume requires node affinity")]
    return volume_source_errors(key, source, path)


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
        if count == 1 or not shown:  # the first source, and flexVolume wherever it is
            errs += _pv_source_errors(key, spec[key], f"{path}.{_SOURCE_PATH.get(key, key)}")
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
