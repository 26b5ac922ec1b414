"""A PersistentVolume's `volume.beta.kubernetes.io/mount-options` annotation (registry/pvmountoptions.py):
pkg/volume/validation `checkMountOption`, which the 1.33 strategy runs on create and on update, refuses it on
a volume type whose plugin takes no mount options."""
from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
import requests

from conformance.reference_server.registry.pvmountoptions import (
    MOUNT_OPTION_ANNOTATION,
    MOUNT_OPTION_SOURCES,
    mount_option_errors,
)
from tests.reference_server.registry.test_update_meta_causes import BAD_LABEL

FIELD = "metadata.annotations.volume.beta.kubernetes.io/mount-options"
FORBIDDEN = "Forbidden: may not specify mount options for this volume type"
HOST_PATH = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/pv"}}
NFS = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "nfs": {"server": "s", "path": "/x"}}


def _pv(spec: Any, **annotations: str) -> dict[str, Any]:
    return {"metadata": {"annotations": annotations}, "spec": spec}


@pytest.mark.parametrize("source", MOUNT_OPTION_SOURCES)
def test_the_types_that_take_mount_options_pass(source: str) -> None:
    assert mount_option_errors(_pv({source: {}}, **{MOUNT_OPTION_ANNOTATION: "ro"})) == []


@pytest.mark.parametrize("spec", [{"hostPath": {"path": "/x"}}, {"local": {"path": "/x"}},
                                  {"csi": {"driver": "d", "volumeHandle": "h"}}, {"fc": {}}, {"flexVolume": {}},
                                  {"nfs": None, "hostPath": {}}, {}, None])
def test_any_other_type_is_refused_even_an_empty_value(spec: Any) -> None:
    assert [str(e) for e in mount_option_errors(_pv(spec, **{MOUNT_OPTION_ANNOTATION: ""}))] == [
        f"{FIELD}: {FORBIDDEN}"]
    assert mount_option_errors(_pv(spec, other="x")) == []
    assert mount_option_errors({"spec": spec}) == []


def _causes(r: requests.Response) -> list[tuple[str, str]]:
    assert r.status_code == 422, r.text
    return [(c["field"], c["message"]) for c in r.json()["details"]["causes"]]


def test_create_refuses_it_on_a_host_path_volume_and_takes_it_on_nfs(http: requests.Session, url: str) -> None:
    collection = f"{url}/api/v1/persistentvolumes"
    name = f"mo-{uuid.uuid4().hex[:8]}"
    body = {"metadata": {"name": name, "annotations": {MOUNT_OPTION_ANNOTATION: "hard"}}, "spec": HOST_PATH}
    r = http.post(collection, json=body)
    assert r.json()["message"] == f'PersistentVolume "{name}" is invalid: {FIELD}: {FORBIDDEN}'
    assert r.json()["details"]["causes"] == [{"reason": "FieldValueForbidden", "message": FORBIDDEN,
                                              "field": FIELD}]
    bad = {**HOST_PATH, "accessModes": ["Bad"]}  # after `ValidatePersistentVolume`'s own errors
    assert [f for f, _ in _causes(http.post(collection, json={**body, "spec": bad}))] == ["spec.accessModes", FIELD]
    r = http.post(collection, json={**body, "spec": NFS})
    assert r.status_code == 201, r.text
    assert http.delete(f"{collection}/{name}").status_code == 200


def test_update_refuses_it_between_the_two_validations(http: requests.Session, url: str) -> None:
    """The strategy's `ValidateUpdate`: `ValidatePersistentVolume`, the mount-option check, then
    `ValidatePersistentVolumeUpdate` (which runs `ValidatePersistentVolume` again): `MVSMVC`, the check once."""
    collection = f"{url}/api/v1/persistentvolumes"
    name = f"mo-{uuid.uuid4().hex[:8]}"
    r = http.post(collection, json={"metadata": {"name": name}, "spec": HOST_PATH})
    assert r.status_code == 201, r.text
    obj = r.json()
    try:
        obj["metadata"].pop("resourceVersion")
        obj["metadata"]["annotations"] = {MOUNT_OPTION_ANNOTATION: "hard"}
        r = http.put(f"{collection}/{name}", json=obj)
        assert r.json()["message"] == f'PersistentVolume "{name}" is invalid: {FIELD}: {FORBIDDEN}'
        assert _causes(r) == [(FIELD, FORBIDDEN)]
        obj["metadata"]["labels"] = {"a": "-x"}
        assert _causes(http.put(f"{collection}/{name}", json=obj)) == [BAD_LABEL] * 3 + [(FIELD, FORBIDDEN),
                                                                                        BAD_LABEL]
        obj["spec"] = {**obj["spec"], "accessModes": ["Bad"], "volumeMode": "Block"}
        assert [f for f, _ in _causes(http.put(f"{collection}/{name}", json=obj))] == [
            "metadata.labels"] * 3 + ["spec.accessModes", FIELD, "metadata.labels", "spec.accessModes", "volumeMode"]
        merge = {"Content-Type": "application/merge-patch+json"}
        patch = json.dumps({"metadata": {"annotations": {MOUNT_OPTION_ANNOTATION: "hard"}}})
        r = http.patch(f"{collection}/{name}/status", data=patch, headers=merge)  # status: not judged
        assert r.status_code == 200, r.text
        assert r.json()["metadata"]["annotations"] == {MOUNT_OPTION_ANNOTATION: "hard"}
        r = http.patch(f"{collection}/{name}", data=json.dumps({"metadata": {"labels": {"a": "b"}}}), headers=merge)
        assert _causes(r) == [(FIELD, FORBIDDEN)]  # any later update of the volume is
    finally:
        http.delete(f"{collection}/{name}")
