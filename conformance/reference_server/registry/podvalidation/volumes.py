"""A pod spec's volumes: `ValidateVolumes` and `validateVolumeSource` of `pkg/apis/core/validation/validation.go`
(1.33): each name a unique DNS label, exactly one source (upstream's Go field order decides which source is the
"more than 1" one, and its paths keep upstream's spellings: `persistentDisk`, `cephfs` under `cephFS`,
`downwarAPI`), and the required fields of the sources clients commonly send (emptyDir's size, hostPath's path,
secret's `secretName`, configMap's `name`, persistentVolumeClaim's `claimName`). Only valid volumes count as
known to the containers' volumeMounts, as upstream."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid, field_required
from ...quantity import Quantity, QuantityError
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_label
from .fields import field_duplicate, one_of

# (JSON key, the path upstream's "more than 1 volume type" error names) in the Go struct's field order
_SOURCES = (
    ("emptyDir", "emptyDir"), ("hostPath", "hostPath"), ("gitRepo", "gitRepo"),
    ("gcePersistentDisk", "gcePersistentDisk"), ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("secret", "secret"), ("nfs", "nfs"), ("iscsi", "iscsi"), ("glusterfs", "glusterfs"), ("flocker", "flocker"),
    ("persistentVolumeClaim", "persistentVolumeClaim"), ("rbd", "rbd"), ("cinder", "cinder"), ("cephfs", "cephFS"),
    ("quobyte", "quobyte"), ("downwardAPI", "downwarAPI"), ("fc", "fc"), ("flexVolume", "flexVolume"),
    ("configMap", "configMap"), ("azureFile", "azureFile"), ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"), ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"), ("storageos", "storageos"), ("projected", "projected"), ("scaleIO", "scaleIO"),
    ("csi", "csi"), ("ephemeral", "ephemeral"))
_REQUIRED = {"hostPath": "path", "secret": "secretName", "configMap": "name", "persistentVolumeClaim": "claimName",
             "nfs": "server", "csi": "driver"}


def _source_errors(key: str, source: dict[str, Any], path: str) -> list[FieldError]:
    if key == "emptyDir":
        limit = source.get("sizeLimit")
        try:
            negative = limit is not None and Quantity.parse(str(limit).strip()).value < 0
        except QuantityError:
            negative = False
        return [field_forbidden(f"{path}.sizeLimit", "SizeLimit field must be a valid resource quantity")] \
            if negative else []
    required = _REQUIRED.get(key)
    if required and not source.get(required):
        return [field_required(f"{path}.{required}")]
    return []


def _volume_source(vol: dict[str, Any], path: str) -> list[FieldError]:
    """`validateVolumeSource`."""
    count, errs = one_of(vol, _SOURCES, path, "volume type",
                         lambda key, source: _source_errors(key, source, f"{path}.{key}"))
    if count == 0:
        errs.append(field_required(path, "must specify a volume type"))
    return errs


def validate_volumes(volumes: Any, path: str) -> tuple[set[str], list[FieldError]]:
    """`ValidateVolumes`: the names of the valid volumes, and the errors."""
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, vol in enumerate(as_dict(v) for v in as_list(volumes)):
        here = f"{path}[{i}]"
        el = _volume_source(vol, here)
        name = vol.get("name") or ""
        if not name:
            el.append(field_required(f"{here}.name"))
        else:
            el += [field_invalid(f"{here}.name", name, m) for m in is_dns1123_label(str(name))]
        if name in names:
            el.append(field_duplicate(f"{here}.name", name))
        if not el:
            names.add(name)
        errs += el
    return names, errs
