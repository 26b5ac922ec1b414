"""The PV controller (controller/persistentvolume.py) one sync at a time, on a server context with the kind
flavour's `standard` class and the default admission chain: static binding, pre-binding, the
WaitForFirstConsumer and external-provisioning waits and their Events, the retroactive default class, release
and reclaim, lost claims."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.admission import create_admission
from conformance.reference_server.controller.persistentvolume import PersistentVolumeController, \
    find_matching_volume
from conformance.reference_server.registry import DeleteOptions
from conformance.reference_server.server import build_context

NS = "v"


class Cluster:
    def __init__(self, flavor: str = "kind"):
        self.ctx = build_context(flavor=flavor)
        self.reg = self.ctx.registry
        self.reg.namespaces.create({"metadata": {"name": NS}})
        self.pvc = self.reg.content("persistentvolumeclaims")
        self.pv = self.reg.cluster("persistentvolumes")
        self.ctrl = PersistentVolumeController(self.reg, self.ctx.admission)

    def create(self, store: Any, body: dict[str, Any]) -> dict[str, Any]:
        return store.create(body, **create_admission(self.ctx.admission, store.info))

    def claim(self, name: str = "c", **spec: Any) -> dict[str, Any]:
        body = {"metadata": {"name": name, "namespace": NS},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec}}
        return self.create(self.pvc, body)

    def volume(self, name: str = "vol", size: str = "1Gi", **spec: Any) -> dict[str, Any]:
        spec = {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": size}, "hostPath": {"path": "/data"}, **spec}
        body = {"metadata": {"name": name}, "spec": {k: v for k, v in spec.items() if v is not None}}
        self.create(self.pv, body)
        return self.sync_volume(name)

    def get_claim(self, name: str = "c") -> dict[str, Any]:
        return self.pvc.get(NS, name)

    def get_volume(self, name: str = "vol") -> dict[str, Any]:
        return self.pv.get("", name)

    def sync_claim(self, name: str = "c") -> dict[str, Any]:
        self.ctrl.sync_claim(self.get_claim(name))
        return self.get_claim(name)

    def sync_volume(self, name: str = "vol") -> dict[str, Any]:
        self.ctrl.sync_volume(self.get_volume(name))
        return self.get_volume(name)

    def events(self, name: str, ns: str = NS) -> list[tuple[str, str, str, int]]:
        items = self.reg.store.list("events", ns)[0]
        return [(e["type"], e["reason"], e["message"], e["count"]) for e in items
                if e["involvedObject"]["name"] == name and e["source"] == {"component": "persistentvolume-controller"}]


@pytest.fixture
def kind() -> Cluster:
    return Cluster("kind")


@pytest.fixture
def bare() -> Cluster:
    return Cluster("bare")


def test_a_new_volume_becomes_available(bare):
    v = bare.volume()
    assert v["status"]["phase"] == "Available" and v["status"]["lastPhaseTransitionTime"]


def test_a_claim_binds_the_smallest_matching_available_volume(kind):
    kind.volume("big", "5Gi", storageClassName="manual")
    kind.volume("small", "2Gi", storageClassName="manual")
    kind.volume("tiny", "500Mi", storageClassName="manual")
    kind.volume("other", "1Gi", storageClassName="fast")
    kind.claim(storageClassName="manual")
    claim = kind.sync_claim()
    assert claim["spec"]["volumeName"] == "small"
    assert claim["metadata"]["annotations"] == {"pv.kubernetes.io/bind-completed": "yes",
                                                "pv.kubernetes.io/bound-by-controller": "yes"}
    assert claim["status"] == {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "2Gi"}}
    volume = kind.get_volume("small")
    assert volume["metadata"]["annotations"] == {"pv.kubernetes.io/bound-by-controller": "yes"}
    assert volume["spec"]["claimRef"] == {"kind": "PersistentVolumeClaim", "namespace": NS, "name": "c",
                                          "uid": claim["metadata"]["uid"], "apiVersion": "v1",
                                          "resourceVersion": volume["spec"]["claimRef"]["resourceVersion"]}
    assert volume["status"]["phase"] == "Bound"
    assert kind.sync_volume("small")["status"]["phase"] == "Bound"  # its sync agrees
    assert kind.get_volume("big")["status"]["phase"] == "Available"


def test_access_modes_and_fewest_modes_first(bare):
    bare.volume("rwx", "1Gi", accessModes=["ReadWriteMany", "ReadWriteOnce"])
    bare.volume("rwo", "5Gi")
    bare.claim()
    assert bare.sync_claim()["spec"]["volumeName"] == "rwo"  # fewer modes wins over smaller
    bare.claim("many", accessModes=["ReadWriteMany"])
    assert bare.sync_claim("many")["spec"]["volumeName"] == "rwx"


def test_a_claim_naming_a_volume(bare):
    bare.volume("named", "1Gi", storageClassName="x")
    bare.claim(volumeName="named")  # class "" vs "x"
    claim = bare.sync_claim()
    assert claim["status"]["phase"] == "Pending" and "volumeName" in claim["spec"]
    assert bare.events("c") == [("Warning", "VolumeMismatch",
                                 'Cannot bind to requested volume "named": storageClassName does not match', 1)]
    bare.volume("ok", "1Gi")
    bare.claim("c2", volumeName="ok")
    claim = bare.sync_claim("c2")
    assert claim["status"]["phase"] == "Bound"
    assert claim["metadata"]["annotations"] == {"pv.kubernetes.io/bind-completed": "yes"}  # the user bound it
    bare.claim("c3", volumeName="ok")
    assert bare.sync_claim("c3")["status"]["phase"] == "Pending"
    assert bare.events("c3") == [("Warning", "FailedBinding", 'volume "ok" already bound to a different claim.', 1)]


def test_a_volume_pre_bound_to_a_claim(kind):
    kind.volume("pre", "1Gi", claimRef={"namespace": NS, "name": "c"}, storageClassName="other")
    assert kind.get_volume("pre")["status"]["phase"] == "Available"
    kind.claim()  # gets `standard` (WaitForFirstConsumer), yet the volume reserved for it binds at once
    claim = kind.sync_claim()
    assert claim["spec"]["storageClassName"] == "standard" and claim["spec"]["volumeName"] == "pre"
    assert "pv.kubernetes.io/bound-by-controller" not in (kind.get_volume("pre")["metadata"].get("annotations") or {})


def test_wait_for_first_consumer(kind):
    kind.volume("free", "5Gi", storageClassName="standard")
    kind.claim()
    claim = kind.sync_claim()
    assert claim["spec"]["storageClassName"] == "standard" and claim["status"] == {"phase": "Pending"}
    assert "volumeName" not in claim["spec"]  # the scheduler would bind it, with a node
    kind.sync_claim()
    assert kind.events("c") == [("Normal", "WaitForFirstConsumer",
                                 "waiting for first consumer to be created before binding", 2)]
    kind.reg.content("pods").create({"metadata": {"name": "user", "namespace": NS}, "spec": {
        "containers": [{"name": "c", "image": "x"}],
        "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "c"}}]}})
    kind.sync_claim()
    assert ("Normal", "WaitForPodScheduled", "waiting for pod user to be scheduled", 1) in kind.events("c")


def test_external_and_missing_provisioners(kind):
    sc = kind.reg.group("storage.k8s.io", "storageclasses")
    kind.create(sc, {"metadata": {"name": "now"}, "provisioner": "example.com/csi"})
    kind.create(sc, {"metadata": {"name": "intree"}, "provisioner": "kubernetes.io/no-provisioner"})
    kind.claim("ext", storageClassName="now")
    claim = kind.sync_claim("ext")
    assert claim["metadata"]["annotations"] == {"volume.beta.kubernetes.io/storage-provisioner": "example.com/csi",
                                                "volume.kubernetes.io/storage-provisioner": "example.com/csi"}
    assert claim["status"] == {"phase": "Pending"}
    assert kind.events("ext") == [("Normal", "ExternalProvisioning",
                                   "Waiting for a volume to be created either by the external provisioner "
                                   "'example.com/csi' or manually by the system administrator. If volume creation "
                                   "is delayed, please verify that the provisioner is running and correctly "
                                   "registered.", 1)]
    kind.claim("gone", storageClassName="nope")
    kind.sync_claim("gone")
    assert kind.events("gone") == [("Warning", "ProvisioningFailed",
                                    'storageclass.storage.k8s.io "nope" not found', 1)]
    kind.claim("in", storageClassName="intree")
    kind.sync_claim("in")
    assert kind.events("in") == [("Warning", "ProvisioningFailed",
                                  "no volume plugin matched name: kubernetes.io/no-provisioner", 1)]


def test_no_class_and_no_default(bare):
    bare.claim(storageClassName="")
    assert bare.sync_claim()["status"] == {"phase": "Pending"}
    assert bare.events("c") == [("Normal", "FailedBinding",
                                 "no persistent volumes available for this claim and no storage class is set", 1)]


def test_retroactive_default_class(bare):
    bare.claim()  # no default class: none assigned at admission
    assert "storageClassName" not in bare.get_claim()["spec"]
    bare.create(bare.reg.group("storage.k8s.io", "storageclasses"),
                {"metadata": {"name": "late", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
                 "provisioner": "example.com/x"})
    assert bare.sync_claim()["spec"]["storageClassName"] == "late"
    bare.claim("empty", storageClassName="")  # an explicit "" is a choice: kept
    assert bare.sync_claim("empty")["spec"]["storageClassName"] == ""


@pytest.mark.parametrize("policy, spec, phase, event", [
    ("Retain", {}, "Released", None),
    ("Delete", {}, "Failed", ("Warning", "VolumeFailedDelete",
                              "host_path deleter only supports /tmp/.+ but received provided /data", 1)),
    ("Delete", {"hostPath": None, "nfs": {"server": "s", "path": "/"}}, "Failed",
     ("Warning", "VolumeFailedDelete",
      'error getting deleter volume plugin for volume "vol": no deletable volume plugin matched', 1)),
    ("Recycle", {"hostPath": None, "local": {"path": "/d"}, "nodeAffinity": {"required": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}]}]}}}, "Failed",
     ("Warning", "VolumeFailedRecycle", "No recycler plugin found for the volume!", 1)),
])
def test_a_deleted_claim_releases_its_volume(bare, policy, spec, phase, event):
    bare.volume(persistentVolumeReclaimPolicy=policy, **spec)
    bare.claim()
    assert bare.sync_claim()["status"]["phase"] == "Bound"
    bare.pvc.update(NS, "c", transform=lambda c: {**c, "metadata": {**c["metadata"], "finalizers": []}})
    bare.pvc.delete(NS, "c", DeleteOptions())
    volume = bare.sync_volume()
    assert volume["status"]["phase"] == phase
    assert bare.events("vol", "default") == ([event] if event else [])
    bare.sync_volume()
    assert bare.events("vol", "default") == ([event] if event else [])  # once, not on every sync


def test_an_externally_provisioned_volume_waits_for_its_deleter(bare):
    bare.create(bare.pv, {"metadata": {"name": "vol", "annotations": {"pv.kubernetes.io/provisioned-by": "x.io/csi"}},
                          "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"},
                                   "csi": {"driver": "x.io/csi", "volumeHandle": "h"},
                                   "persistentVolumeReclaimPolicy": "Delete"}})
    bare.sync_volume()
    bare.claim()
    bare.sync_claim()
    bare.pvc.update(NS, "c", transform=lambda c: {**c, "metadata": {**c["metadata"], "finalizers": []}})
    bare.pvc.delete(NS, "c", DeleteOptions())
    assert bare.sync_volume()["status"]["phase"] == "Released" and not bare.events("vol", "default")


def test_a_claim_whose_volume_is_gone_is_lost(bare):
    bare.volume()
    bare.claim()
    bare.sync_claim()
    bare.pv.update("", "vol", transform=lambda v: {**v, "metadata": {**v["metadata"], "finalizers": []}})
    bare.pv.delete("", "vol", DeleteOptions())
    assert bare.sync_claim()["status"] == {"phase": "Lost"}
    assert bare.events("c") == [("Warning", "ClaimLost",
                                 "Bound claim has lost its PersistentVolume. Data on the volume is lost!", 1)]


def test_find_matching_volume_skips_deleting_and_unavailable_volumes():
    claim = {"metadata": {"name": "c", "namespace": NS, "uid": "u"},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}

    def vol(name: str, **extra: Any) -> dict[str, Any]:
        return {"metadata": {"name": name, **extra.pop("meta", {})},
                "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}},
                "status": {"phase": extra.pop("phase", "Available")}}
    assert find_matching_volume(claim, [vol("a", phase="Pending"), vol("b", meta={"deletionTimestamp": "t"})],
                                False) is None
    assert find_matching_volume(claim, [vol("a")], True) is None  # WaitForFirstConsumer: the scheduler's job
    labelled = {**claim, "spec": {**claim["spec"], "selector": {"matchLabels": {"tier": "gold"}}}}
    assert find_matching_volume(labelled, [vol("a")], False) is None
    assert find_matching_volume(labelled, [vol("g", meta={"labels": {"tier": "gold"}})], False)["metadata"][
        "name"] == "g"


def test_a_released_tmp_host_path_volume_is_deleted(bare):
    bare.volume(persistentVolumeReclaimPolicy="Delete", hostPath={"path": "/tmp/data"})
    bare.claim()
    bare.sync_claim()
    bare.pvc.update(NS, "c", transform=lambda c: {**c, "metadata": {**c["metadata"], "finalizers": []}})
    bare.pvc.delete(NS, "c", DeleteOptions())
    volume = bare.sync_volume()  # the deleter "removed" the directory; the volume waits for pv-protection
    assert volume["status"]["phase"] == "Released" and volume["metadata"]["deletionTimestamp"]
