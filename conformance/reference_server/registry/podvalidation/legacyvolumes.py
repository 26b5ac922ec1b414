"""The legacy in-tree volume sources' own rules beyond their required fields, from
`pkg/apis/core/validation/validation.go` (1.33): `validateGCEPersistentDiskVolumeSource` and
`validateAWSElasticBlockStoreVolumeSource` (partitions), `validateISCSIVolumeSource` (IQN and initiator formats,
LUN, CHAP secret), `validateFlockerVolumeSource`, `validateCinderVolumeSource`, `validateQuobyteVolumeSource`
(registry host:port pairs as Go's `net.SplitHostPort` reads them), `validateFlexVolumeSource` (reserved option
namespaces), `validateAzureDisk`, `validateStorageOSVolumeSource` and `validateFCVolumeSource`.

The sources whose only rules are their required fields (glusterfs, rbd, cephfs, azureFile, vsphereVolume,
photonPersistentDisk, portworxVolume, scaleIO) stay volumes.py's `_REQUIRED`. A Go map (flexVolume's options) is
walked in the order sent, where upstream ranges in no fixed order.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from ...apierrors import FieldError, field_invalid, field_not_supported, field_required
from ...goport.gofmt import sharp_v_strings
from ...goport.gonet.strconv import to_bytes  # (Go's len() of a string counts its bytes)
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_label
from .fields import integer

PD_PARTITION_MSG = "must be between 1 and 255, inclusive"  # InclusiveRangeError(1, 255), though 0 is allowed
LUN_MSG = "must be between 0 and 255, inclusive"
ISCSI_PREFIX_MSG = "must be valid format starting with iqn, eui, or naa"
ISCSI_FORMAT_MSG = "must be valid format"
ISCSI_LENGTH_MSG = ("Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if "
                    "iscsi.initiatorName is specified.")
QUOBYTE_REGISTRY_MSG = "must be a host:port pair or multiple pairs separated by commas"
AZURE_CACHING_MODES = ("None", "ReadOnly", "ReadWrite")  # sets.List: sorted
AZURE_DISK_KINDS = ("Dedicated", "Managed", "Shared")
_AZURE_MANAGED_URI = (
    "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}",)
_AZURE_BLOB_URI = ("https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd",)
# Go's RE2 patterns (MatchString: unanchored unless written; `$` is the end of the text, `\Z` here)
_ISCSI_FORMATS = (("iqn", re.compile(r"iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)\Z", re.ASCII)),
                  ("eui", re.compile(r"^eui.[A-Za-z0-9]{16}\Z", re.ASCII)),
                  ("naa", re.compile(r"^naa.[A-Za-z0-9]{32}\Z", re.ASCII)))


def text(source: dict[str, Any], key: str) -> str:
    """A string field's value ("" when unset or not a string, as Go's zero value)."""
    value = source.get(key)
    return value if isinstance(value, str) else ""


def _partition(source: dict[str, Any], path: str) -> list[FieldError]:
    n = integer(source.get("partition")) or 0
    return [field_invalid(f"{path}.partition", n, PD_PARTITION_MSG)] if not 0 <= n <= 255 else []


def _gce_pd(source: dict[str, Any], path: str) -> list[FieldError]:
    """`validateGCEPersistentDiskVolumeSource`."""
    return ([] if text(source, "pdName") else [field_required(f"{path}.pdName")]) + _partition(source, path)


def _aws_ebs(source: dict[str, Any], path: str) -> list[FieldError]:
    """`validateAWSElasticBlockStoreVolumeSource`."""
    return ([] if text(source, "volumeID") else [field_required(f"{path}.volumeID")]) + _partition(source, path)


def iscsi_format_error(value: str) -> str | None:
    """The IQN/initiator format error for a value with a known prefix, else None."""
    for prefix, pattern in _ISCSI_FORMATS:
        if value.startswith(prefix):
            return None if pattern.search(value) else ISCSI_FORMAT_MSG
    return None


def iscsi_errors(source: dict[str, Any], path: str, *, persistent: bool = False) -> list[FieldError]:
    """`validateISCSIVolumeSource`, or with `persistent` `validateISCSIPersistentVolumeSource` for an unnamed
    (inline) persistent volume: its length check at `targetportal`, "must be valid format" for a bad prefix
    too, and a set secretRef's name required."""
    portal = text(source, "targetPortal")
    errs = [] if portal else [field_required(f"{path}.targetPortal")]
    if persistent and isinstance(source.get("initiatorName"), str) and len(to_bytes(":" + portal)) > 64:
        errs.append(field_invalid(f"{path}.targetportal", portal, ISCSI_LENGTH_MSG))
    prefix_msg = ISCSI_FORMAT_MSG if persistent else ISCSI_PREFIX_MSG
    iqn = text(source, "iqn")
    if not iqn:
        errs.append(field_required(f"{path}.iqn"))
    elif not iqn.startswith(("iqn", "eui", "naa")):
        errs.append(field_invalid(f"{path}.iqn", iqn, prefix_msg))
    elif (msg := iscsi_format_error(iqn)) is not None:
        errs.append(field_invalid(f"{path}.iqn", iqn, msg))
    lun = integer(source.get("lun")) or 0
    if not 0 <= lun <= 255:
        errs.append(field_invalid(f"{path}.lun", lun, LUN_MSG))
    if (source.get("chapAuthDiscovery") is True or source.get("chapAuthSession") is True) and \
            source.get("secretRef") is None:
        errs.append(field_required(f"{path}.secretRef"))
    if persistent and isinstance(source.get("secretRef"), dict) and not text(source["secretRef"], "name"):
        errs.append(field_required(f"{path}.secretRef.name"))
    initiator = source.get("initiatorName")
    if isinstance(initiator, str):
        if not initiator.startswith(("iqn", "eui", "naa")):
            errs.append(field_invalid(f"{path}.initiatorname", initiator, prefix_msg))
        if (msg := iscsi_format_error(initiator)) is not None:
            errs.append(field_invalid(f"{path}.initiatorname", initiator, msg))
    return errs


def iscsi_name_length(vol_name: str, source: dict[str, Any], path: str) -> list[FieldError]:
    """`validateVolumeSource`'s check of an iscsi volume with an initiator name, at the volume's `name`."""
    if isinstance(source.get("initiatorName"), str) and len(to_bytes(f"{vol_name}:{text(source, 'targetPortal')}")) > 64:
        return [field_invalid(f"{path}.name", vol_name, ISCSI_LENGTH_MSG)]
    return []


def _flocker(source: dict[str, Any], path: str) -> list[FieldError]:
    """`validateFlockerVolumeSource`."""
    name, uuid = text(source, "datasetName"), text(source, "datasetUUID")
    errs: list[FieldError] = []
    if not name and not uuid:
        errs.append(field_required(path, "one of datasetName and datasetUUID is required"))
    if name and uuid:
        errs.append(field_invalid(path, "resource", "datasetName and datasetUUID can not be specified simultaneously"))
    if "/" in name:
        errs.append(field_invalid(f"{path}.datasetName", name, "must not contain '/'"))
    return errs


def _secret_ref_name(source: dict[str, Any], path: str) -> list[FieldError]:
    ref = source.get("secretRef")
    return [field_required(f"{path}.secretRef.name")] if isinstance(ref, dict) and not text(ref, "name") else []


def _cinder(source: dict[str, Any], path: str) -> list[FieldError]:
    """`validateCinderVolumeSource`."""
    return ([] if text(source, "volumeID") else [field_required(f"{path}.volumeID")]) + \
        _secret_ref_name(source, path)


def split_host_port(hostport: str) -> bool:
    """Whether Go's `net.SplitHostPort` accepts the text (a host, possibly bracketed, a colon, a port that may be
    empty)."""
    i = hostport.rfind(":")
    if i < 0:
        return False
    j = k = 0
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0 or end + 1 != i:
            return False
        j, k = 1, end + 1
    elif ":" in hostport[:i]:
        return False
    return "[" not in hostport[j:] and "]" not in hostport[k:]


def _quobyte(source: dict[str, Any], path: str) -> list[FieldError]:
    """`validateQuobyteVolumeSource`."""
    registry = text(source, "registry")
    errs: list[FieldError] = []
    if not registry:
        errs.append(field_required(f"{path}.registry", QUOBYTE_REGISTRY_MSG))
    elif len(to_bytes(text(source, "tenant"))) >= 65:
        errs.append(field_required(f"{path}.tenant", "must be a UUID and may not exceed a length of 64 characters"))
    else:
        errs += [field_invalid(f"{path}.registry", registry, QUOBYTE_REGISTRY_MSG)
                 for pair in registry.split(",") if not split_host_port(pair)]
    if not text(source, "volume"):
        errs.append(field_required(f"{path}.volume"))
    return errs


def _flex(source: dict[str, Any], path: str) -> list[FieldError]:
    """`validateFlexVolumeSource`: user options may not use the kubernetes.io or k8s.io namespaces."""
    errs = [] if text(source, "driver") else [field_required(f"{path}.driver")]
    for key in as_dict(source.get("options")):
        namespace = key.split("/", 1)[0] if "/" in key else key
        normalized = "." + namespace.lower()
        if normalized.endswith((".kubernetes.io", ".k8s.io")):
            errs.append(field_invalid(f"{path}.options[{key}]", key,
                                      "kubernetes.io and k8s.io namespaces are reserved"))
    return errs


def _azure_disk(source: dict[str, Any], path: str) -> list[FieldError]:
    """`validateAzureDisk` (the kind and caching mode are defaulted: Shared, ReadWrite)."""
    errs = [] if text(source, "diskName") else [field_required(f"{path}.diskName")]
    uri = text(source, "diskURI")
    if not uri:
        errs.append(field_required(f"{path}.diskURI"))
    caching, kind = source.get("cachingMode"), source.get("kind")
    if caching is not None and caching not in AZURE_CACHING_MODES:
        errs.append(field_not_supported(f"{path}.cachingMode", caching, AZURE_CACHING_MODES))
    if kind is not None and kind not in AZURE_DISK_KINDS:
        errs.append(field_not_supported(f"{path}.kind", kind, AZURE_DISK_KINDS))
    if kind == "Managed" and not uri.startswith("/subscriptions/"):
        errs.append(field_not_supported(f"{path}.diskURI", uri, _AZURE_MANAGED_URI))
    if kind is not None and kind != "Managed" and not uri.startswith("https://"):
        errs.append(field_not_supported(f"{path}.diskURI", uri, _AZURE_BLOB_URI))
    return errs


def _storageos(source: dict[str, Any], path: str) -> list[FieldError]:
    """`validateStorageOSVolumeSource`."""
    name, namespace = text(source, "volumeName"), text(source, "volumeNamespace")
    errs = [field_invalid(f"{path}.volumeName", name, m) for m in is_dns1123_label(name)] if name \
        else [field_required(f"{path}.volumeName")]
    if namespace:
        errs += [field_invalid(f"{path}.volumeNamespace", namespace, m) for m in is_dns1123_label(namespace)]
    return errs + _secret_ref_name(source, path)


def _fc(source: dict[str, Any], path: str) -> list[FieldError]:
    """`validateFCVolumeSource`."""
    wwns, wwids = [str(w) for w in as_list(source.get("targetWWNs"))], as_list(source.get("wwids"))
    errs: list[FieldError] = []
    if not wwns and not wwids:
        errs.append(field_required(f"{path}.targetWWNs", "must specify either targetWWNs or wwids, but not both"))
    if wwns and wwids:
        errs.append(FieldError("FieldValueInvalid", f"{path}.targetWWNs", f"Invalid value: {sharp_v_strings(wwns)}: "
                               "targetWWNs and wwids can not be specified simultaneously"))
    if wwns:
        lun = integer(source.get("lun"))
        if lun is None:
            errs.append(field_required(f"{path}.lun", "lun is required if targetWWNs is specified"))
        elif not 0 <= lun <= 255:
            errs.append(field_invalid(f"{path}.lun", lun, LUN_MSG))
    return errs


LEGACY_SOURCES: dict[str, Callable[[dict[str, Any], str], list[FieldError]]] = {
    "gcePersistentDisk": _gce_pd, "awsElasticBlockStore": _aws_ebs, "iscsi": iscsi_errors, "flocker": _flocker,
    "cinder": _cinder, "quobyte": _quobyte, "flexVolume": _flex, "azureDisk": _azure_disk, "storageos": _storageos,
    "fc": _fc}

__all__ = ["LEGACY_SOURCES", "iscsi_errors", "iscsi_name_length", "split_host_port", "text"]
