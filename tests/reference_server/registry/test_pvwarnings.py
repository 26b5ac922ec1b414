"""A PersistentVolume's warnings (registry/pvwarnings.py): 1.33's `GetWarningsForPersistentVolume`
(pkg/api/persistentvolume/util.go), returned on create and on update, never by `persistentvolumes/status`; and
a PersistentVolumeClaim's (`GetWarningsForPersistentVolumeClaim`)."""
from __future__ import annotations

import json
import uuid
from typing import Any

import requests

from conformance.reference_server.registry.pvwarnings import (
    persistent_volume_claim_warnings,
    persistent_volume_warnings,
)
from tests.reference_server.registry.test_podwarnings import _header, _warnings
from tests.reference_server.registry.test_pvmountoptions import NFS

STORAGE_CLASS = ('metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use '
                 '"storageClassName" attribute instead')
MOUNT_OPTIONS = ('metadata.annotations[volume.beta.kubernetes.io/mount-options]: deprecated since v1.31; use '
                 '"mountOptions" attribute instead')
RECYCLE = ("spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the "
           "recommended approach is to use dynamic provisioning.")
OS_LABEL = ('spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: beta.kubernetes.io/os is '
            'deprecated since v1.14; use "kubernetes.io/os" instead')


def _pv(spec: dict[str, Any], **annotations: str) -> dict[str, Any]:
    return {"metadata": {"annotations": annotations}, "spec": spec}


def test_the_warnings_in_upstreams_order() -> None:
    affinity = {"required": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "beta.kubernetes.io/os", "operator": "In", "values": ["bad value!"]}]}]}}
    pv = _pv({"persistentVolumeReclaimPolicy": "Recycle", "nodeAffinity": affinity, "rbd": {}, "cephfs": {},
              "storageos": {}, "glusterfs": {}, "scaleIO": {}, "photonPersistentDisk": {}},
             **{"volume.beta.kubernetes.io/mount-options": "", "volume.beta.kubernetes.io/storage-class": ""})
    assert persistent_volume_warnings(pv) == [  # the label value is not judged (`checkLabelValue` false)
        STORAGE_CLASS, MOUNT_OPTIONS, RECYCLE, OS_LABEL,
        "spec.cephfs: deprecated in v1.28, non-functional in v1.31+",
        "spec.photonPersistentDisk: deprecated in v1.11, non-functional in v1.16+",
        "spec.scaleIO: deprecated in v1.16, non-functional in v1.22+",
        "spec.storageOS: deprecated in v1.22, non-functional in v1.25+",
        "spec.glusterfs: deprecated in v1.25, non-functional in v1.26+",
        "spec.rbd: deprecated in v1.28, non-functional in v1.31+"]
    assert persistent_volume_warnings(_pv({"persistentVolumeReclaimPolicy": "Retain", "nfs": {}, "rbd": None})) == []
    assert persistent_volume_warnings({}) == []


def test_create_and_update_warn_and_the_status_write_does_not(http: requests.Session, url: str) -> None:
    collection = f"{url}/api/v1/persistentvolumes"
    name = f"pw-{uuid.uuid4().hex[:8]}"
    body = _pv({**NFS, "persistentVolumeReclaimPolicy": "Recycle"},
               **{"volume.beta.kubernetes.io/mount-options": "hard"})
    body["metadata"]["name"] = name
    r = http.post(collection, json=body)
    assert r.status_code == 201, r.text
    try:
        assert _warnings(r) == [_header(MOUNT_OPTIONS), _header(RECYCLE)]
        merge = {"Content-Type": "application/merge-patch+json"}
        r = http.patch(f"{collection}/{name}", data=json.dumps({"metadata": {"labels": {"a": "b"}}}), headers=merge)
        assert r.status_code == 200 and _warnings(r) == [_header(MOUNT_OPTIONS), _header(RECYCLE)], r.text
        r = http.patch(f"{collection}/{name}/status", data=json.dumps({"status": {"message": "m"}}), headers=merge)
        assert r.status_code == 200 and _warnings(r) == [], r.text
    finally:
        http.delete(f"{collection}/{name}")


def test_a_claim_warns_of_the_storage_class_annotation_and_fractional_bytes(http: requests.Session, url: str,
                                                                           namespaces: Any) -> None:
    """`GetWarningsForPersistentVolumeClaim` on create and update (not `/status`)."""
    assert persistent_volume_claim_warnings({"spec": {}}) == []
    ns = namespaces.create()["metadata"]["name"]
    claims = f"{url}/api/v1/namespaces/{ns}/persistentvolumeclaims"
    body = {"metadata": {"name": "c", "annotations": {"volume.beta.kubernetes.io/storage-class": ""}},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1500m"}}}}
    fractional = 'spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer'
    r = http.post(claims, json=body)
    assert r.status_code == 201, r.text
    assert _warnings(r) == [_header(STORAGE_CLASS), _header(fractional)]
    merge = {"Content-Type": "application/merge-patch+json"}
    r = http.patch(f"{claims}/c", data=json.dumps({"metadata": {"labels": {"a": "b"}}}), headers=merge)
    assert r.status_code == 200 and _warnings(r) == [_header(STORAGE_CLASS), _header(fractional)], r.text
    r = http.patch(f"{claims}/c/status", data=json.dumps({"status": {"phase": "Pending"}}), headers=merge)
    assert r.status_code == 200 and _warnings(r) == [], r.text
