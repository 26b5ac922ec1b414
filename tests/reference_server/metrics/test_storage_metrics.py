"""The etcd client's and the watch cache's families (metrics/etcd.py, metrics/watchcache.py) on each storage
backend (the session `server`): 1.33's names, HELP texts, labels (`type`/`resource` as `GroupResource.String()`)
and buckets, moved by the API's writes and watches."""
from __future__ import annotations

import threading

import requests

from conformance.reference_server.embedded import RunningServer, start_embedded
from conformance.reference_server.metrics.etcd import ThreadedHistogramVec
from conformance.reference_server.metrics.watchcache import FRESH_S, EventRing

from .scraping import scrape, value

ETCD_BOUNDS = ["0.005", "0.025", "0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1", "1.25", "1.5", "2", "3", "4", "5",
               "6", "8", "10", "15", "20", "30", "45", "60", "+Inf"]
TEMPLATE = {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}


def test_writes_are_etcd_requests_by_operation_and_group_resource(server: RunningServer, ns: str) -> None:
    base = f"{server.url}/api/v1/namespaces/{ns}/podtemplates"
    before = scrape(server)
    assert requests.post(base, json={"metadata": {"name": "t"}, **TEMPLATE}).status_code == 201
    assert requests.post(base, json={"metadata": {"name": "t"}, **TEMPLATE}).status_code == 409  # a txn all the same
    assert requests.patch(base + "/t", json={"metadata": {"labels": {"a": "b"}}},
                          headers={"Content-Type": "application/merge-patch+json"}).status_code == 200
    assert requests.patch(base + "/t", json={"metadata": {"labels": {"a": "b"}}},  # unchanged: no transaction
                          headers={"Content-Type": "application/merge-patch+json"}).status_code == 200
    assert requests.delete(base + "/t").status_code == 200
    lease = {"metadata": {"name": "l"}, "spec": {"holderIdentity": "x"}}
    assert requests.post(f"{server.url}/apis/coordination.k8s.io/v1/namespaces/{ns}/leases",
                         json=lease).status_code == 201
    after = scrape(server)

    def moved(operation: str, type_: str) -> float:
        labels = {"operation": operation, "type": type_}
        return value(after, "etcd_requests_total", **labels) - value(before, "etcd_requests_total", **labels)

    assert (moved("create", "podtemplates"), moved("update", "podtemplates"), moved("delete", "podtemplates")) == \
        (2, 1, 1)
    assert moved("create", "leases.coordination.k8s.io") == 1
    fam = after["etcd_request_duration_seconds"]
    assert fam.help == "[ALPHA] Etcd request latency in seconds for each operation and object type."
    assert fam.type == "histogram"
    assert [ls["le"] for n, ls, _ in fam.samples if n.endswith("_bucket") and ls["operation"] == "create"
            and ls["type"] == "podtemplates"] == ETCD_BOUNDS
    assert after["etcd_requests_total"].help == "[ALPHA] Etcd request counts for each operation and object type."
    assert value(after, "etcd_request_errors_total", operation="create", type="podtemplates") == 0


def test_watch_cache_counts_each_change_and_its_resource_version(server: RunningServer, ns: str) -> None:
    base = f"{server.url}/api/v1/namespaces/{ns}/podtemplates"
    before = scrape(server)
    created = requests.post(base, json={"metadata": {"name": "t"}, **TEMPLATE})
    assert created.status_code == 201
    updated = requests.put(base + "/t", json={**created.json(), "metadata": {**created.json()["metadata"],
                                                                              "labels": {"x": "y"}}})
    assert updated.status_code == 200
    after = scrape(server)
    for name in ("apiserver_watch_cache_events_received_total", "apiserver_watch_cache_events_dispatched_total",
                 "apiserver_storage_events_received_total"):
        assert value(after, name, resource="podtemplates") - value(before, name, resource="podtemplates") == 2, name
    assert value(after, "apiserver_watch_cache_resource_version", resource="podtemplates") >= \
        int(updated.json()["metadata"]["resourceVersion"])
    assert value(after, "apiserver_watch_cache_initializations_total", resource="deployments.apps") >= 1
    assert after["apiserver_watch_cache_events_received_total"].help == \
        "[ALPHA] Counter of events received in watch cache broken by resource type."
    assert after["apiserver_storage_events_received_total"].help == \
        "[ALPHA] Number of etcd events received split by kind."
    assert after["apiserver_watch_cache_resource_version"].type == "gauge"


def test_a_watch_replaying_the_cache_counts_its_init_events(server: RunningServer, ns: str) -> None:
    base = f"{server.url}/api/v1/namespaces/{ns}/podtemplates"
    for name in ("a", "b"):
        assert requests.post(base, json={"metadata": {"name": name}, **TEMPLATE}).status_code == 201
    before = value(scrape(server), "apiserver_init_events_total", resource="podtemplates")
    r = requests.get(base, params={"watch": "1", "timeoutSeconds": "1"})  # no resourceVersion: the state first
    assert r.status_code == 200 and r.text.count('"ADDED"') == 2
    after = scrape(server)
    assert value(after, "apiserver_init_events_total", resource="podtemplates") - before == 2
    assert after["apiserver_init_events_total"].help == \
        "[ALPHA] Counter of init events processed in watch cache broken by resource type."


def test_observations_from_many_threads_are_all_bucketed() -> None:
    hist = ThreadedHistogramVec("h", "h", ("k",), (1.0,))
    hist.FOLD_AT = 7  # folds race the appends

    def observe() -> None:
        for _ in range(1000):
            hist.observe_any_thread(("x",), 0.5)
    threads = [threading.Thread(target=observe) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    hist.fold()
    assert hist.values[("x",)][-1] == 4000


def test_a_continued_list_is_an_etcd_list_on_the_memory_store() -> None:
    """kube-apiserver 1.33 sends a continued LIST to etcd (`shouldDelegateList`): the memory store, etcd and watch
    cache in one, reports its read at the first page's revision as that `list` and its LIST cost counters."""
    srv = start_embedded(flavor="bare")
    try:
        base = f"{srv.url}/api/v1/namespaces/default/podtemplates"
        for name in ("a", "b", "c"):
            assert requests.post(base, json={"metadata": {"name": name}, **TEMPLATE}).status_code == 201
        before = scrape(srv)
        first = requests.get(base, params={"limit": "2"}).json()
        rest = requests.get(base, params={"limit": "2", "continue": first["metadata"]["continue"]}).json()
        assert [o["metadata"]["name"] for o in rest["items"]] == ["c"]
        after = scrape(srv)
        moved = value(after, "etcd_requests_total", operation="list", type="podtemplates") - \
            value(before, "etcd_requests_total", operation="list", type="podtemplates")
        assert moved == 1
        assert value(after, "apiserver_storage_list_total", resource="podtemplates") - \
            value(before, "apiserver_storage_list_total", resource="podtemplates") == 1
        assert value(after, "apiserver_storage_list_returned_objects_total", resource="podtemplates") >= 3
        assert after["apiserver_storage_list_total"].help == "[ALPHA] Number of LIST requests served from storage"
    finally:
        srv.stop()


def test_the_event_ring_is_sized_as_the_watch_cache() -> None:
    """`resizeCacheLocked`: full of events younger than 75 s, it doubles; full, with its newest quarter begun more
    than 75 s ago, it halves (never below 100, never above 102400)."""
    ring = EventRing()
    assert [ring.add(t / 10) for t in range(100)] == [0] * 100  # its first 100 events, within 10 s
    assert ring.add(10.0) == 200 and len(ring.times) == 101
    ring = EventRing()
    for t in range(100):
        ring.add(float(t))
    assert ring.add(100.0) == 0 and ring.capacity == 100  # full, its oldest too old to grow, at the lower bound
    ring = EventRing()
    for t in range(200):
        ring.add(t / 10)  # doubled to 200 on the 101st
    assert ring.capacity == 200
    assert ring.add(19.9 + FRESH_S + 1) == 100 and list(ring.times)[-2:] == [19.9, 19.9 + FRESH_S + 1]
    assert len(ring.times) == 100  # the newest events kept

def test_capacity_families_start_at_the_lower_bound(server: RunningServer) -> None:
    fams = scrape(server)
    assert fams["watch_cache_capacity"].value(resource="deployments.apps") >= 100
    assert fams["watch_cache_capacity"].help == "[ALPHA] Total capacity of watch cache broken by resource type."
    assert "apiserver_watch_cache_capacity" not in fams
