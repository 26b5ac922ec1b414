"""The pvc-protection and pv-protection controllers (controller/volumeprotection.py), with the
StorageObjectInUseProtection finalizers (admission/storageprotection.py); the PV controller's binding and
phases: test_persistentvolume.py."""
from __future__ import annotations

import asyncio

import pytest

from conformance.reference_server.admission.storageprotection import PV_PROTECTION, PVC_PROTECTION, \
    StorageObjectInUseProtection
from conformance.reference_server.controller.volumeprotection import VolumeProtectionController, pod_uses_claim
from conformance.reference_server.registry import DeleteOptions, ListOptions, Registry
from conformance.reference_server.storage import MemoryStore

NS = "v"
CLAIM = {"metadata": {"name": "c", "namespace": NS},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
VOLUME = {"metadata": {"name": "vol"},
          "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}, "hostPath": {"path": "/x"}}}


class _NoAdmission:
    def for_create(self, info):
        return None


@pytest.fixture
def reg() -> Registry:
    r = Registry(MemoryStore())
    r.namespaces.create({"metadata": {"name": NS}})
    return r


def _create(reg, plural, body):
    store = reg.content(plural) or reg.cluster(plural)
    return store.create(body, admit=StorageObjectInUseProtection(_NoAdmission()).for_create(store.info))


def _pod(node: str = "") -> dict:
    spec = {"containers": [{"name": "c", "image": "nginx"}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "c"}}]}
    if node:
        spec["nodeName"] = node
    return {"metadata": {"name": "p", "namespace": NS}, "spec": spec}


def test_admission_adds_the_finalizers_once(reg):
    claim = _create(reg, "persistentvolumeclaims", {**CLAIM, "metadata": {**CLAIM["metadata"],
                                                                          "finalizers": [PVC_PROTECTION]}})
    assert claim["metadata"]["finalizers"] == [PVC_PROTECTION]
    assert _create(reg, "persistentvolumes", VOLUME)["metadata"]["finalizers"] == [PV_PROTECTION]


def test_only_a_scheduled_pod_uses_a_claim():
    assert not pod_uses_claim(_pod(), "c")  # upstream: the kubelet never starts it once the claim is deleting
    assert pod_uses_claim(_pod("node-1"), "c")
    assert not pod_uses_claim(_pod("node-1"), "other")


def _run(reg, check):
    async def go():
        c = VolumeProtectionController(reg)
        c.start()
        try:
            for _ in range(200):
                await asyncio.sleep(0.005)
                if check():
                    return True
            return False
        finally:
            await c.stop()
    return asyncio.run(go())


def test_a_deleted_claim_and_volume_lose_their_finalizers_and_go(reg):
    _create(reg, "persistentvolumeclaims", CLAIM)
    _create(reg, "persistentvolumes", VOLUME)
    reg.content("pods").create(_pod())  # unscheduled: does not hold the claim
    reg.content("persistentvolumeclaims").delete(NS, "c", DeleteOptions())
    reg.cluster("persistentvolumes").delete("", "vol", DeleteOptions())
    pvcs, pvs = reg.content("persistentvolumeclaims"), reg.cluster("persistentvolumes")
    assert _run(reg, lambda: not pvcs.list(NS, ListOptions())["items"] and not pvs.list(None, ListOptions())["items"])


def test_a_claim_used_by_a_scheduled_pod_keeps_its_finalizer(reg):
    _create(reg, "persistentvolumeclaims", CLAIM)
    reg.content("pods").create(_pod("node-1"))
    pvcs = reg.content("persistentvolumeclaims")
    pvcs.delete(NS, "c", DeleteOptions())
    VolumeProtectionController(reg)._sync_claim(pvcs, pvcs.get(NS, "c"))  # one sync: the pod holds it
    assert pvcs.get(NS, "c")["metadata"]["finalizers"] == [PVC_PROTECTION]
    reg.content("pods").delete(NS, "p", DeleteOptions(grace_period_seconds=0))
    VolumeProtectionController(reg)._sync_claim(pvcs, pvcs.get(NS, "c"))
    assert not pvcs.list(NS, ListOptions())["items"]
