"""The pod garbage collector (controller/podgc.py): on a cluster without nodes it is what removes pods bound to
a node, after upstream's quarantine; a terminating pod bound to no node is marked Failed and force-deleted."""
from __future__ import annotations

import dataclasses

import pytest
import requests

from conformance.reference_server.controller.podgc import PodGarbageCollector
from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.flavors.catalogue import BARE, DEFAULT, KIND
from conformance.reference_server.registry import DeleteOptions, ListOptions, Registry
from conformance.reference_server.storage import MemoryStore

from .conftest import WatchReader, unique

NS = "gc"
SPEC = {"containers": [{"name": "c", "image": "pause"}]}


@pytest.fixture
def reg() -> Registry:
    r = Registry(MemoryStore())
    r.namespaces.create({"metadata": {"name": NS}})
    return r


def _pod(reg: Registry, name: str, *, node: str = "", finalizers: list[str] | None = None) -> None:
    meta = {"name": name, "namespace": NS, **({"finalizers": finalizers} if finalizers else {})}
    reg.content("pods").create({"metadata": meta, "spec": {**SPEC, **({"nodeName": node} if node else {})}})


def _names(reg: Registry) -> list[str]:
    return [p["metadata"]["name"] for p in reg.content("pods").list(NS, ListOptions())["items"]]


def test_upstream_timings_in_the_kind_flavour_none_in_bare():
    assert (KIND.pod_gc_period, KIND.pod_gc_quarantine) == (20.0, 40.0)
    assert DEFAULT.pod_gc_period == 20.0 and BARE.pod_gc_period == 0  # bare: no kube-controller-manager


def test_a_pod_bound_to_a_missing_node_goes_after_the_quarantine(reg):
    _pod(reg, "orphan", node="gone")
    _pod(reg, "free")
    gc = PodGarbageCollector(reg, period=20, quarantine=40)
    gc.gc(clock=0)
    gc.gc(clock=20)
    assert _names(reg) == ["free", "orphan"]  # still in quarantine
    gc.gc(clock=40)
    assert _names(reg) == ["free"]


def test_an_existing_node_keeps_its_pods(reg):
    reg.cluster("nodes").create({"metadata": {"name": "here"}})
    _pod(reg, "bound", node="here")
    gc = PodGarbageCollector(reg, quarantine=0)
    gc.gc(clock=0)
    gc.gc(clock=1)
    assert _names(reg) == ["bound"]


def test_a_held_orphan_is_marked_failed_with_the_disruption_condition(reg):
    _pod(reg, "held", node="gone", finalizers=["example.com/hold"])
    gc = PodGarbageCollector(reg, quarantine=0)
    gc.gc(clock=0)
    pod = reg.content("pods").get(NS, "held")
    assert pod["status"]["phase"] == "Failed"
    cond = pod["status"]["conditions"][-1]
    assert {k: cond[k] for k in ("type", "status", "reason", "message")} == {
        "type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
        "message": "PodGC: node no longer exists"}
    assert pod["metadata"]["deletionTimestamp"] and pod["metadata"]["deletionGracePeriodSeconds"] == 0
    assert pod["spec"]["nodeName"] == "gone"


def test_a_terminating_unscheduled_pod_is_marked_failed(reg):
    _pod(reg, "held", finalizers=["example.com/hold"])
    reg.content("pods").delete(NS, "held", DeleteOptions())
    PodGarbageCollector(reg).gc(clock=0)
    pod = reg.content("pods").get(NS, "held")
    assert pod["status"]["phase"] == "Failed" and "conditions" not in pod["status"]


def test_namespace_with_a_bound_pod_is_deleted_once_pod_gc_removes_it():
    """Over HTTP with a flavour whose pod GC is fast: ordered deletion waits for the pod, pod GC removes it,
    then the rest goes."""
    fl = dataclasses.replace(BARE, pod_gc_period=0.2, pod_gc_quarantine=0.5)
    srv = start_embedded(flavor=fl)
    http = requests.Session()
    name = unique("podgc")
    try:
        assert http.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
        base = f"{srv.url}/api/v1/namespaces/{name}"
        assert http.post(f"{base}/pods", json={"metadata": {"name": "p"}, "spec": {**SPEC, "nodeName": "n"}}
                         ).status_code == 201
        assert http.post(f"{base}/configmaps", json={"metadata": {"name": "cm"}}).status_code == 201
        with WatchReader(f"{srv.url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}"}) as w:
            w.next()
            http.delete(f"{srv.url}/api/v1/namespaces/{name}")
            w.until(lambda e: e["type"] == "DELETED", timeout=15, what="namespace removed after pod GC")
    finally:
        http.close()
        srv.stop()
