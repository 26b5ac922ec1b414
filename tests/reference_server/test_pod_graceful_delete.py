"""Pods are deleted gracefully (`podStrategy.CheckGracefulDelete` + `rest.BeforeDelete`): a pod bound to a node
waits for its grace period; one that is not scheduled, or already terminated, goes at once."""
from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from conformance.reference_server.registry import DeleteOptions, ListOptions, Registry
from conformance.reference_server.storage import MemoryStore

NS = "g"


@pytest.fixture
def reg() -> Registry:
    r = Registry(MemoryStore())
    r.namespaces.create({"metadata": {"name": NS}})
    return r


def pod(name: str, *, node: str = "", grace: int | None = None, finalizers: list[str] | None = None) -> dict:
    spec: dict = {"containers": [{"name": "c", "image": "pause"}]}
    if node:
        spec["nodeName"] = node
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    meta: dict = {"name": name, "namespace": NS}
    if finalizers:
        meta["finalizers"] = finalizers
    return {"metadata": meta, "spec": spec}


def _ts(s: str) -> dt.datetime:
    return dt.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)


def test_a_scheduled_pod_waits_for_its_grace_period(reg):
    pods = reg.content("pods")
    pods.create(pod("bound", node="node-1"))
    obj, removed = pods.delete(NS, "bound", DeleteOptions())
    assert not removed and obj["kind"] == "Pod"
    meta = pods.get(NS, "bound")["metadata"]
    assert meta["deletionGracePeriodSeconds"] == 30  # the defaulted terminationGracePeriodSeconds
    ahead = (_ts(meta["deletionTimestamp"]) - dt.datetime.now(dt.timezone.utc)).total_seconds()
    assert 27 <= ahead <= 31, meta["deletionTimestamp"]


def test_a_second_delete_only_shortens_the_period(reg):
    pods = reg.content("pods")
    pods.create(pod("bound", node="node-1", grace=60))
    pods.delete(NS, "bound", DeleteOptions())
    first = pods.get(NS, "bound")["metadata"]
    pods.delete(NS, "bound", DeleteOptions(grace_period_seconds=90))  # longer: nothing changes
    assert pods.get(NS, "bound")["metadata"]["resourceVersion"] == first["resourceVersion"]
    pods.delete(NS, "bound", DeleteOptions(grace_period_seconds=10))
    shorter = pods.get(NS, "bound")["metadata"]
    assert shorter["deletionGracePeriodSeconds"] == 10
    assert (_ts(first["deletionTimestamp"]) - _ts(shorter["deletionTimestamp"])).total_seconds() == 50
    _, removed = pods.delete(NS, "bound", DeleteOptions(grace_period_seconds=0))  # --force --grace-period=0
    assert removed
    assert pods.list(NS, ListOptions())["items"] == []


@pytest.mark.parametrize("case", ["unscheduled", "terminated", "grace-0"])
def test_a_pod_with_nothing_to_stop_goes_at_once(reg, case):
    pods = reg.content("pods")
    pods.create(pod("p", node="" if case == "unscheduled" else "node-1"))
    if case == "terminated":
        reg.store.guaranteed_update("pods", NS, "p", lambda o: {**o, "status": {"phase": "Succeeded"}})
    obj, removed = pods.delete(NS, "p", DeleteOptions(grace_period_seconds=0 if case == "grace-0" else None))
    assert removed and obj["metadata"]["deletionGracePeriodSeconds"] == 0 and obj["metadata"]["deletionTimestamp"]
    assert pods.list(NS, ListOptions())["items"] == []


def test_graceless_delete_writes_the_timestamp_first(reg):
    """Upstream's `updateForGracefulDeletionAndFinalizers` stores the deletion timestamp before removing: a pod
    watch sees MODIFIED (deletionTimestamp, grace 0), then DELETED."""
    pods = reg.content("pods")
    pods.create(pod("p"))
    loop = asyncio.new_event_loop()
    try:
        _, watcher, _ = pods.watch(NS, ListOptions(resource_version=str(reg.store.current_rv())), loop)
        pods.delete(NS, "p", DeleteOptions())
        events = []
        while len(events) < 2:
            events.append(loop.run_until_complete(asyncio.wait_for(watcher.queue.get(), 2)))
    finally:
        loop.close()
    assert [e.type for e in events] == ["MODIFIED", "DELETED"]
    assert events[0].object["metadata"]["deletionGracePeriodSeconds"] == 0


def test_an_unscheduled_pod_with_a_finalizer_stays_with_grace_0(reg):
    pods = reg.content("pods")
    pods.create(pod("held", finalizers=["example.com/hold"]))
    _, removed = pods.delete(NS, "held", DeleteOptions())
    assert not removed
    assert pods.get(NS, "held")["metadata"]["deletionGracePeriodSeconds"] == 0


def test_deletecollection_is_graceful_too(reg):
    pods = reg.content("pods")
    pods.create(pod("bound", node="node-1"))
    pods.create(pod("free"))
    pods.delete_collection(NS, ListOptions(), DeleteOptions())
    left = pods.list(NS, ListOptions())["items"]
    assert [p["metadata"]["name"] for p in left] == ["bound"] and left[0]["metadata"]["deletionTimestamp"]


def test_an_int64_grace_period_does_not_overflow_the_timestamp(reg):
    pods = reg.content("pods")
    pods.create(pod("bound", node="node-1"))
    obj, removed = pods.delete(NS, "bound", DeleteOptions(grace_period_seconds=(1 << 63) - 1))
    assert not removed and obj["metadata"]["deletionTimestamp"].startswith("9999-")


def test_a_grace_period_beyond_int64_is_a_400(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    body = {"metadata": {"name": "p"}, "spec": {"nodeName": "n", "containers": [{"name": "c", "image": "pause"}]}}
    assert http.post(f"{url}/api/v1/namespaces/{name}/pods", json=body).status_code == 201
    r = http.delete(f"{url}/api/v1/namespaces/{name}/pods/p", params={"gracePeriodSeconds": str(1 << 63)})
    assert r.status_code == 400 and r.json()["message"] == (
        f'strconv.ParseInt: parsing "{1 << 63}": value out of range')
    r = http.delete(f"{url}/api/v1/namespaces/{name}/pods/p", params={"gracePeriodSeconds": str((1 << 63) - 1)})
    assert r.status_code == 200 and r.json()["metadata"]["deletionGracePeriodSeconds"] == (1 << 63) - 1
    assert http.delete(f"{url}/api/v1/namespaces/{name}/pods/p", params={"gracePeriodSeconds": "0"}).status_code == 200
    assert http.get(f"{url}/api/v1/namespaces/{name}/pods/p").status_code == 404
