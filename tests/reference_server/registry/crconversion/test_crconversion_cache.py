"""The watch caches of a CRD's served versions (registry/crconversion/cache.py): every change is converted once
per served version by that version's cache, whether or not anyone watches; watches of that version share the
cache's conversion; a change the webhook cannot convert stalls the cache, which then ends its watches and answers
429 `storage is (re)initializing` until a LIST converts again (upstream's cacher and reflector)."""
from __future__ import annotations

import asyncio
import json
import re
import time
from types import SimpleNamespace
from typing import Any, Callable, Iterator

import pytest
import requests

from conformance.reference_server import apierrors as E
from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry.crconversion import cache
from conformance.reference_server.storage.interface import Event
from tests.reference_server.registry.crconversion.test_crconversion_webhook import (  # noqa: F401
    CRDS, GROUP, ConversionHook, Widgets, hook)
from tests.reference_server.test_admission_webhooks import server  # noqa: F401 - a server per module

BETA = f"{GROUP}/v1beta1"


def _to_beta(hook: ConversionHook, start: int, uid: str) -> list[dict[str, Any]]:
    """The objects of this uid the webhook was asked to convert to v1beta1 since `start`."""
    return [o for _, r in hook.reviews[start:] if r["request"]["desiredAPIVersion"] == BETA
            for o in r["request"]["objects"] if o["metadata"]["uid"] == uid]


def _until(check: Callable[[], Any], timeout: float = 20.0) -> Any:
    """Poll `check` until it answers something true (or fail after `timeout`)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def _crd(server: RunningServer, hook: ConversionHook, path: str = "/convert") -> Iterator[Widgets]:
    w = Widgets(server, hook, path=path)
    _until(lambda: requests.get(w.url("v1")).status_code == 200)  # its first request starts the caches
    yield w
    requests.delete(f"{server.url}{CRDS}/{w.name}")


@pytest.fixture
def widgets(server: RunningServer, hook: ConversionHook) -> Iterator[Widgets]:  # noqa: F811
    yield from _crd(server, hook)


@pytest.fixture
def picky(server: RunningServer, hook: ConversionHook) -> Iterator[Widgets]:  # noqa: F811
    yield from _crd(server, hook, "/picky")


def _watch(w: Widgets, version: str, rv: str, timeout: int = 10) -> requests.Response:
    return requests.get(w.url(version), params={"watch": "1", "resourceVersion": rv, "timeoutSeconds": str(timeout)},
                        stream=True, timeout=60)


def _events(resp: requests.Response, n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for line in resp.iter_lines():
        if line:
            out.append(json.loads(line))
            if len(out) == n:
                break
    return out


def test_every_change_is_converted_for_each_served_version_without_a_watcher(widgets: Widgets,
                                                                              hook: ConversionHook) -> None:
    start = len(hook.reviews)
    created = widgets.create("v1", "a", {"replicas": 1})  # the storage version: the request converts nothing
    assert created.status_code == 201, created.text
    uid = created.json()["metadata"]["uid"]
    sent = _until(lambda: _to_beta(hook, start, uid))  # the v1beta1 cache's decoding
    assert [(o["apiVersion"], o["spec"]) for o in sent] == [(f"{GROUP}/v1", {"replicas": 1})]
    assert sent[0]["metadata"]["resourceVersion"] == created.json()["metadata"]["resourceVersion"]
    start = len(hook.reviews)
    r = requests.patch(widgets.url("v1", "a"), data=json.dumps({"spec": {"replicas": 2}}),
                       headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text
    assert [o["spec"] for o in _until(lambda: _to_beta(hook, start, uid))] == [{"replicas": 2}]
    start = len(hook.reviews)
    assert requests.delete(widgets.url("v1", "a")).status_code == 200
    assert [o["spec"] for o in _until(lambda: _to_beta(hook, start, uid))] == [{"replicas": 2}]  # its last state


def test_watches_of_a_version_share_its_cache_conversion(widgets: Widgets, hook: ConversionHook) -> None:
    rv = requests.get(widgets.url("v1")).json()["metadata"]["resourceVersion"]
    with _watch(widgets, "v1beta1", rv) as w1, _watch(widgets, "v1beta1", rv) as w2:
        start = len(hook.reviews)
        created = widgets.create("v1", "a", {"replicas": 3})
        assert created.status_code == 201
        for w in (w1, w2):
            (ev,) = _events(w, 1)
            assert (ev["type"], ev["object"]["apiVersion"], ev["object"]["spec"]) == ("ADDED", BETA, {"count": 3})
    assert len(_to_beta(hook, start, created.json()["metadata"]["uid"])) == 1  # the cache's, not one per watcher


def test_a_watch_from_now_gets_the_cache_objects_without_a_call(widgets: Widgets, hook: ConversionHook) -> None:
    start = len(hook.reviews)
    created = widgets.create("v1", "a", {"replicas": 4})
    assert created.status_code == 201
    uid = created.json()["metadata"]["uid"]
    _until(lambda: _to_beta(hook, start, uid))
    with _watch(widgets, "v1beta1", "0", timeout=1) as w:
        (ev,) = _events(w, 1)
    assert (ev["type"], ev["object"]["spec"]) == ("ADDED", {"count": 4})
    assert len(_to_beta(hook, start, uid)) == 1


def test_a_failing_conversion_ends_the_watches_then_429_until_a_list_converts(
        picky: Widgets, hook: ConversionHook, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "RETRY_SECONDS", 0.5)
    rv = requests.get(picky.url("v1")).json()["metadata"]["resourceVersion"]
    with _watch(picky, "v1beta1", rv, timeout=30) as w:
        start = len(hook.reviews)
        created = picky.create("v1", "bad", {"replicas": 1})
        assert created.status_code == 201
        began = time.monotonic()
        assert _events(w, 1) == []  # closed by the cache, without an ERROR event
        assert time.monotonic() - began < 20
    # the change converted again while the reflector retried
    assert len(_to_beta(hook, start, created.json()["metadata"]["uid"])) >= 2
    (r,) = _until(lambda: [x for x in [requests.get(picky.url("v1beta1"), params={"watch": "1"})]
                           if x.status_code == 429])  # (a Response of an error is false)
    assert r.json()["message"].startswith("storage is (re)initializing")  # (with the LIST's error once it ran)
    (r,) = _until(lambda: [x for x in [requests.get(picky.url("v1beta1"), params={"watch": "1"})]
                           if x.status_code == 429 and "failed to list" in x.text])
    assert r.headers["Retry-After"] == "1"  # (exp(0.06 s⁻¹ × the time it has been down), at least 1)
    assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                        "message": f"storage is (re)initializing: failed to list {BETA}, Kind=Widget: conversion "
                                   f"webhook for {GROUP}/v1, Kind=Widget failed: custom webhook conversion error",
                        "reason": "TooManyRequests", "details": {"retryAfterSeconds": 1}, "code": 429}
    assert requests.delete(picky.url("v1", "bad")).status_code == 200
    rv = requests.get(picky.url("v1")).json()["metadata"]["resourceVersion"]
    _until(lambda: _watch(picky, "v1beta1", rv, timeout=1).status_code == 200)  # the next LIST converts


def test_a_new_cache_converts_each_stored_object_once_as_it_fills(widgets: Widgets, hook: ConversionHook) -> None:
    """A spec change of the CRD starts new caches at its next request: the v1beta1 cache's LIST decodes each object
    on its own (one review per object, etcd3's `GetList`); v1's needs no call."""
    uids = [widgets.create("v1", name, {"replicas": i}).json()["metadata"]["uid"] for i, name in enumerate("ab")]
    for uid in uids:  # (converted by the first caches)
        _until(lambda uid=uid: _to_beta(hook, 0, uid))
    widgets.use("/convert", review_versions=("v1beta1", "v1"))  # (the caches are rebuilt)
    start = len(hook.reviews)
    assert requests.get(widgets.url("v1", "a")).status_code == 200  # asks the webhook nothing itself
    for uid in uids:
        sent = _until(lambda uid=uid: _to_beta(hook, start, uid))
        assert len(sent) == 1
    ours = [r for _, r in hook.reviews[start:] if any(o["metadata"]["uid"] in uids for o in r["request"]["objects"])]
    assert [(len(r["request"]["objects"]), r["apiVersion"]) for r in ours] == [
        (1, "apiextensions.k8s.io/v1beta1")] * 2


def test_the_official_client_sees_the_watch_end_then_429(picky: Widgets, monkeypatch: pytest.MonkeyPatch) -> None:
    """The `kubernetes` client's watch of v1beta1 ends without an error when the cache gives up on a change, and
    its next watch is refused with the 429 a client retries after `Retry-After`."""
    from kubernetes import client, watch

    monkeypatch.setattr(cache, "RETRY_SECONDS", 0.5)
    conf = client.Configuration()
    conf.host = picky.server.url
    api = client.CustomObjectsApi(client.ApiClient(conf))
    rv = api.list_namespaced_custom_object(GROUP, "v1beta1", "default", picky.plural)["metadata"]["resourceVersion"]
    assert picky.create("v1", "good", {"replicas": 1}).status_code == 201
    w = watch.Watch()
    seen: list[tuple[str, str]] = []
    for i, ev in enumerate(w.stream(api.list_namespaced_custom_object, GROUP, "v1beta1", "default", picky.plural,
                                    resource_version=rv, timeout_seconds=30)):
        seen.append((ev["type"], ev["object"]["metadata"]["name"]))
        if i == 0:
            assert picky.create("v1", "bad", {"replicas": 1}).status_code == 201  # the cache cannot convert it
    assert seen == [("ADDED", "good")]  # and no more: the stream ended without an event
    with pytest.raises(client.ApiException) as err:
        _until(lambda: list(watch.Watch().stream(api.list_namespaced_custom_object, GROUP, "v1beta1", "default",
                                                 picky.plural, timeout_seconds=1)) and False)
    assert err.value.status == 429 and err.value.headers["Retry-After"] == "1"
    assert json.loads(err.value.body)["message"].startswith("storage is (re)initializing")


def _reviews_of(hook: ConversionHook, start: int, uid: str) -> list[dict[str, Any]]:
    return [r for _, r in hook.reviews[start:] if any(o["metadata"]["uid"] == uid for o in r["request"]["objects"])]


def test_lists_and_gets_are_served_from_the_cache_without_a_review(widgets: Widgets, hook: ConversionHook) -> None:
    """A LIST 1.33 serves from the watch cache (`resourceVersion` "", "0", a number without a limit, or
    `NotOlderThan`), and a GET at a resourceVersion, get the v1beta1 cache's conversions: a consistent LIST waits
    for the cache to convert the change just made, and none asks the webhook; an `Exact` LIST, a legacy exact one
    (a number with a limit) and a GET without a resourceVersion read storage, which converts each item (one review
    each, etcd3's `GetList` and `Get`)."""
    from kubernetes import client

    start = len(hook.reviews)
    created = widgets.create("v1", "a", {"replicas": 5})
    assert created.status_code == 201
    uid, rv = created.json()["metadata"]["uid"], created.json()["metadata"]["resourceVersion"]
    for params in ({}, {"resourceVersion": "0"}, {"resourceVersion": rv},
                   {"resourceVersion": rv, "resourceVersionMatch": "NotOlderThan"}):
        listed = requests.get(widgets.url("v1beta1"), params=params)
        assert listed.status_code == 200, listed.text
        assert [(o["apiVersion"], o["spec"]) for o in listed.json()["items"]] == [(BETA, {"count": 5})], params
    conf = client.Configuration()
    conf.host = widgets.server.url
    api = client.CustomObjectsApi(client.ApiClient(conf))
    got = api.list_namespaced_custom_object(GROUP, "v1beta1", "default", widgets.plural)
    assert [o["spec"] for o in got["items"]] == [{"count": 5}]
    for params in ({"resourceVersion": "0"}, {"resourceVersion": rv}):
        one = requests.get(widgets.url("v1beta1", "a"), params=params)
        assert (one.json()["apiVersion"], one.json()["spec"]) == (BETA, {"count": 5}), one.text
    assert len(_to_beta(hook, start, uid)) == 1  # the cache's conversion of the change, no other
    for url, params in ((widgets.url("v1beta1"), {"resourceVersion": rv, "resourceVersionMatch": "Exact"}),
                        (widgets.url("v1beta1"), {"resourceVersion": rv, "limit": "5"}),
                        (widgets.url("v1beta1", "a"), {})):
        before = len(_to_beta(hook, start, uid))
        read = requests.get(url, params=params).json()
        assert [o["spec"] for o in read.get("items", [read])] == [{"count": 5}], read
        assert len(_to_beta(hook, start, uid)) == before + 1, params  # storage's decoding


def test_a_watch_from_before_the_cache_list_is_too_old(widgets: Widgets, hook: ConversionHook) -> None:
    """The caches a spec change starts LIST after it: a watch resuming from before that LIST is answered 410
    `too old resource version: <rv> (<the LIST's>)` in an ERROR event (`getAllEventsSinceLocked`), which the
    `kubernetes` client raises (after its one retry); from the LIST's resourceVersion on, the watch is served."""
    from kubernetes import client, watch

    rv = widgets.create("v1", "a", {"replicas": 1}).json()["metadata"]["resourceVersion"]
    widgets.use("/convert", review_versions=("v1beta1", "v1"))
    changed = requests.get(f"{widgets.server.url}{CRDS}/{widgets.name}").json()["metadata"]["resourceVersion"]
    with _watch(widgets, "v1beta1", rv, timeout=5) as w:
        assert w.status_code == 200
        (ev,) = _events(w, 1)
    status = ev["object"]
    assert ev["type"] == "ERROR" and {k: v for k, v in status.items() if k != "message"} == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "Expired", "code": 410}
    m = re.fullmatch(rf"too old resource version: {rv} \((\d+)\)", status["message"])
    assert m and int(m.group(1)) >= int(changed), status["message"]
    conf = client.Configuration()
    conf.host = widgets.server.url
    api = client.CustomObjectsApi(client.ApiClient(conf))
    with pytest.raises(client.ApiException) as err:
        list(watch.Watch().stream(api.list_namespaced_custom_object, GROUP, "v1beta1", "default", widgets.plural,
                                  resource_version=rv, timeout_seconds=2))
    assert err.value.status == 410 and "too old resource version" in str(err.value.reason)
    with _watch(widgets, "v1beta1", m.group(1), timeout=1) as w:
        assert w.status_code == 200 and _events(w, 1) == []


class _FailingStore:
    """A served version's store for a cache of its own: nothing listed, one watch, a decoding that fails
    `failures` times before it converts."""

    api_version = f"{GROUP}/v1beta1"
    info = SimpleNamespace(kind="Widget", plural="widgets")

    def __init__(self, failures: int):
        self.failures, self.calls = failures, 0
        self.store = SimpleNamespace(list=lambda *_a, **_k: ([], 1))
        self.queue: asyncio.Queue = asyncio.Queue()

    def watch(self, _ns: Any, _opts: Any, _loop: Any) -> tuple[list[Any], Any, None]:
        return [], SimpleNamespace(queue=self.queue, close=lambda: None, request_progress=lambda: None), None

    def present(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        if self.calls <= self.failures:
            raise E.StatusError(E.status_dict(500, "", "conversion webhook failed"))
        return {**obj, "apiVersion": self.api_version}


def test_a_failing_change_is_converted_again_at_once() -> None:
    """The reflector re-watches at once after the `InternalError` of a change it cannot convert (`reflector.go`:
    no backoff), so the change is converted again as soon as the last try failed: ten tries take far less than
    the second a pause of 0.1 s between them would."""
    async def run() -> tuple[float, int, Any]:
        store = _FailingStore(failures=9)
        vc = cache.VersionCache(store, lambda _ns, _name: None, asyncio.get_running_loop())
        await vc.listed.wait()
        ev = Event("ADDED", "widgets", "default", "a", 2, {"apiVersion": f"{GROUP}/v1", "metadata": {"name": "a"}},
                   None)
        began = time.monotonic()
        store.queue.put_nowait(ev)
        done = await vc.reach(2, timeout=10.0)
        took = time.monotonic() - began
        vc.stop()
        return took, store.calls, done and ev.encoded[vc.key].result()[0]

    took, calls, shown = asyncio.run(run())
    assert calls == 10 and shown["apiVersion"] == f"{GROUP}/v1beta1"
    assert took < 0.5
