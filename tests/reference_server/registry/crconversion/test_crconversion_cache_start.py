"""When a CRD's watch caches start and what they answer (registry/crconversion/cache.py, controller/
garbagecollector.py `_discovery_sync`, controller/crconversion.py `delete_collection_requests`, http/
crconversion.py): upstream makes a CRD's storages, and so starts its caches, at the first request for its
resources (`customresource_handler.go` `getOrCreateServingInfoFor`); in a kind cluster that request is a client's,
the namespace deleter's DeleteCollection, or the garbage collector's (and quota controller's) informers' LIST
after their discovery sync (every 30 s). A LIST or GET the cache serves answers the cache's own state, at its
resourceVersion, without a review, even while the cache is stalled on a change it cannot convert (`cacher.go`
`GetList`: `waitUntilFreshAndBlock` then the watch cache's store)."""
from __future__ import annotations

import time
import uuid
from typing import Any, Callable, Iterator

import pytest
import requests

from conformance.reference_server.controller import garbagecollector
from conformance.reference_server.embedded import RunningServer, start_embedded
from tests.reference_server.registry.crconversion.test_crconversion_cache import (BETA, _events, _reviews_of, _to_beta,
                                                                              _until, _watch)
from tests.reference_server.registry.crconversion.test_crconversion_webhook import (  # noqa: F401
    GROUP, ConversionHook, Widgets, hook)

SYNC_SECONDS = 1.0  # the short discovery sync of the `syncing` server


def _server(period: float) -> Iterator[RunningServer]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(garbagecollector, "DISCOVERY_SYNC_SECONDS", period)
        srv = start_embedded()  # (its garbage collector takes the period as it is built)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def idle() -> Iterator[RunningServer]:
    """A server whose garbage collector syncs discovery once, at its start: no CRD of a test is ever its."""
    yield from _server(3600.0)


@pytest.fixture(scope="module")
def syncing() -> Iterator[RunningServer]:
    """A server whose garbage collector syncs discovery every `SYNC_SECONDS`."""
    yield from _server(SYNC_SECONDS)


def _never(check: Callable[[], Any], seconds: float = 1.0) -> None:
    """`check` stays false for `seconds` (polled)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        assert not check()
        time.sleep(0.05)


def _running(server: RunningServer, w: Widgets) -> bool:
    return server.server.ctx.registry.custom.caches.running(w.name)


def _converting_later(server: RunningServer, hook: ConversionHook) -> tuple[Widgets, str]:  # noqa: F811
    """A CRD whose object `a` was created while it converted without a webhook, then given one: (its Widgets,
    `a`'s uid). The requests that made `a` started no cache (a CRD without a webhook has none here)."""
    w = Widgets(server, hook, path=None)
    created = w.create("v1", "a", {"replicas": 1})
    assert created.status_code == 201, created.text
    w.use("/convert")
    return w, created.json()["metadata"]["uid"]


def test_the_caches_start_with_the_first_request_for_the_resources(idle: RunningServer,
                                                                    hook: ConversionHook) -> None:  # noqa: F811
    """Established and converting by webhook, the CRD has no cache until a request for its resources (no
    controller of a kind cluster asks before its next discovery sync): nothing is converted; the first request,
    a GET in the storage version that converts nothing itself, starts them, and the v1beta1 cache's LIST
    converts `a`."""
    w, uid = _converting_later(idle, hook)
    try:
        _never(lambda: _running(idle, w) or _to_beta(hook, 0, uid))
        start = len(hook.reviews)
        got = requests.get(w.url("v1", "a"))
        assert got.status_code == 200 and got.json()["spec"] == {"replicas": 1}
        sent = _until(lambda: _to_beta(hook, start, uid))
        assert [(o["apiVersion"], o["spec"]) for o in sent] == [(f"{GROUP}/v1", {"replicas": 1})]
        assert _running(idle, w)
    finally:
        requests.delete(f"{idle.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{w.name}")


def test_a_namespace_deletion_starts_the_caches(idle: RunningServer, hook: ConversionHook) -> None:  # noqa: F811
    """The namespace deleter's DeleteCollection of every namespaced resource it discovered (whether or not that
    namespace holds any) is a request for each CRD's resources: deleting any namespace starts the caches."""
    w, uid = _converting_later(idle, hook)
    try:
        _never(lambda: _running(idle, w))
        ns = f"gone-{uuid.uuid4().hex[:8]}"
        assert requests.post(f"{idle.url}/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
        assert requests.delete(f"{idle.url}/api/v1/namespaces/{ns}").status_code == 200
        _until(lambda: _to_beta(hook, 0, uid))  # the v1beta1 cache's LIST converts `a` (in "default")
        assert _running(idle, w)
        _until(lambda: requests.get(f"{idle.url}/api/v1/namespaces/{ns}").status_code == 404)  # (no more passes)
    finally:
        requests.delete(f"{idle.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{w.name}")


def test_the_garbage_collector_sync_starts_the_caches_then_its_rewatch(syncing: RunningServer,
                                                                      hook: ConversionHook) -> None:  # noqa: F811
    """Without a client's request the garbage collector's informers start the caches at their discovery sync
    (here every `SYNC_SECONDS`); once they watch the CRD's resources, a spec change, which ends the old caches'
    watches, starts new caches at once (their re-watch), whose LIST converts `a` again (with the new review
    version)."""
    w, uid = _converting_later(syncing, hook)
    try:
        sent = _until(lambda: _to_beta(hook, 0, uid), timeout=SYNC_SECONDS + 15)
        assert [o["spec"] for o in sent] == [{"replicas": 1}]
        start = len(hook.reviews)
        w.use("/convert", review_versions=("v1beta1", "v1"))
        again = _until(lambda: _reviews_of(hook, start, uid))
        assert [(r["apiVersion"], r["request"]["desiredAPIVersion"]) for r in again] == [
            ("apiextensions.k8s.io/v1beta1", BETA)]
    finally:
        requests.delete(f"{syncing.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{w.name}")


def test_reads_the_cache_serves_answer_its_state_while_it_stalls(idle: RunningServer,
                                                                 hook: ConversionHook) -> None:  # noqa: F811
    """While the v1beta1 cache retries a change it cannot convert (`bad`), a later change of `good` waits behind
    it: a LIST at resourceVersion 0 (the `kubernetes` client's) or at one the cache has reached, a GET at 0 and a
    watch at 0 answer the cache's state, at its resourceVersion, without a review (`good` as it converted it, no
    `bad`: a GET of it is 404), where storage's LIST would ask the webhook for both (and fail), and a watch
    would wait for the cache to get past `bad`."""
    from kubernetes import client

    w = Widgets(idle, hook, path="/picky")
    try:
        listed = requests.get(w.url("v1beta1"))  # the first request: the caches start
        assert listed.status_code == 200, listed.text
        good = w.create("v1", "good", {"replicas": 1}).json()
        uid = good["metadata"]["uid"]
        synced = requests.get(w.url("v1beta1"))  # a consistent LIST: once the cache has converted `good`
        assert [o["spec"] for o in synced.json()["items"]] == [{"count": 1}]
        bad = w.create("v1", "bad", {"replicas": 1}).json()
        bad_rv = int(bad["metadata"]["resourceVersion"])
        _until(lambda: _to_beta(hook, 0, bad["metadata"]["uid"]))  # the cache is trying it
        patched = requests.patch(w.url("v1", "good"), json={"spec": {"replicas": 2}},
                                 headers={"Content-Type": "application/merge-patch+json"})
        assert patched.status_code == 200, patched.text
        start = len(hook.reviews)
        conf = client.Configuration()
        conf.host = idle.url
        api = client.CustomObjectsApi(client.ApiClient(conf))
        for rv in ("0", good["metadata"]["resourceVersion"]):
            at = api.list_namespaced_custom_object(GROUP, "v1beta1", "default", w.plural, resource_version=rv)
            assert [(o["metadata"]["name"], o["apiVersion"], o["spec"]) for o in at["items"]] == [
                ("good", BETA, {"count": 1})], rv
            assert int(good["metadata"]["resourceVersion"]) <= int(at["metadata"]["resourceVersion"]) < bad_rv
        one = requests.get(w.url("v1beta1", "good"), params={"resourceVersion": "0"})
        assert (one.status_code, one.json()["spec"], one.json()["metadata"]["resourceVersion"]) == (
            200, {"count": 1}, good["metadata"]["resourceVersion"])
        missing = requests.get(w.url("v1beta1", "bad"), params={"resourceVersion": "0"})
        assert (missing.status_code, missing.json()["reason"]) == (404, "NotFound")
        began = time.monotonic()
        with _watch(w, "v1beta1", "0", timeout=1) as watch:  # its ADDED events: the cache's state, then nothing
            assert [(e["type"], e["object"]["metadata"]["name"], e["object"]["spec"]) for e in _events(watch, 2)] \
                == [("ADDED", "good", {"count": 1})]
        assert time.monotonic() - began < 10  # ended by its timeoutSeconds (the cache retries `bad` for 30 s)
        assert _to_beta(hook, start, uid) == []  # none of them asked for `good`
    finally:
        requests.delete(f"{idle.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{w.name}")


def test_the_crd_finalizer_starts_the_caches(idle: RunningServer, hook: ConversionHook) -> None:  # noqa: F811
    """Deleting the CRD: its finalizer's `GetCustomResourceListerCollectionDeleter` makes the storages no request
    had made, so the caches start and the v1beta1 one converts `held` (an instance its own finalizer keeps, and
    the CRD with it, until the test lets it go)."""
    w = Widgets(idle, hook, path=None)
    body = {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "spec": {"replicas": 1},
            "metadata": {"name": "held", "finalizers": ["example.com/hold"]}}
    created = requests.post(w.url("v1"), json=body)
    assert created.status_code == 201, created.text
    uid = created.json()["metadata"]["uid"]
    w.use("/convert")
    crd_url = f"{idle.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{w.name}"
    try:
        _never(lambda: _running(idle, w))
        assert requests.delete(crd_url).status_code == 200
        _until(lambda: _to_beta(hook, 0, uid))
    finally:
        requests.patch(w.url("v1", "held"), json={"metadata": {"finalizers": None}},
                       headers={"Content-Type": "application/merge-patch+json"})
        requests.delete(crd_url)


def test_a_spec_change_ends_the_caches_watches_a_second_later(idle: RunningServer,
                                                              hook: ConversionHook) -> None:  # noqa: F811
    """A spec change retires the CRD's storages (`removeStorage_locked`) and tears them down a second later
    (`tearDown`: watches are not among the requests it waits for), which ends every watch their caches serve:
    the stream closes without an event, whatever its `timeoutSeconds`."""
    w = Widgets(idle, hook)
    try:
        rv = requests.get(w.url("v1beta1")).json()["metadata"]["resourceVersion"]  # (the caches start)
        with _watch(w, "v1beta1", rv, timeout=30) as watch, _watch(w, "v1", rv, timeout=30) as stored:
            began = time.monotonic()
            w.use("/convert", review_versions=("v1beta1", "v1"))
            assert _events(watch, 1) == [] and _events(stored, 1) == []
            took = time.monotonic() - began
        assert 0.9 <= took < 10, took
    finally:
        requests.delete(f"{idle.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{w.name}")
