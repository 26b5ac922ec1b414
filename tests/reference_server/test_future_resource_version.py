"""Reads at a resourceVersion the server has not reached yet, on both backends, as kube-apiserver 1.33 answers them:
a GET, or a LIST the watch cache serves, waits up to 3 s for the cache to reach it (`watch_cache.go`
`waitUntilFreshAndBlock`), ends as soon as a write gets there, else answers `storage.NewTooLargeResourceVersionError`
(504); an `Exact` LIST goes to etcd, which refuses a future revision at once (a 500 `interpretListError` passes)."""
from __future__ import annotations

import base64
import json
import re
import threading
import time
from typing import Any, Callable

import pytest
import requests

from .test_consistent_reads import CM, replicas

FUTURE_REVISION = "etcdserver: mvcc: required revision is a future revision"  # etcd's ErrGRPCFutureRev
TOO_LARGE = re.compile(r"Timeout: Too large resource version: (\d+), current: (\d+)")


def in_thread(fn: Callable[[], Any]) -> Callable[[], Any]:
    """Run `fn` in a thread now; the returned call joins it (30 s at most) and gives its result."""
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    t.start()

    def join() -> Any:
        t.join(30)
        assert out, "the request did not come back"
        return out[0]
    return join


def current_rv(http: requests.Session, url: str) -> int:
    return int(http.get(f"{url}/api/v1/namespaces").json()["metadata"]["resourceVersion"])


def assert_too_large(r: requests.Response, want: int, before: int) -> None:
    assert r.status_code == 504, r.text
    assert r.headers.get("Retry-After") == "1"
    body = r.json()
    m = TOO_LARGE.fullmatch(body["message"])
    assert m and int(m.group(1)) == want and before <= int(m.group(2)) < want, body
    assert body == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": body["message"], "reason": "Timeout",
                    "details": {"causes": [{"reason": "ResourceVersionTooLarge",
                                            "message": "Too large resource version"}],
                                "retryAfterSeconds": 1},
                    "code": 504}


def test_get_at_a_resource_version_never_reached_is_504_after_3_s(http, url):
    before = current_rv(http, url)
    started = time.monotonic()
    r = http.get(f"{url}/api/v1/namespaces/default", params={"resourceVersion": "99999999"}, timeout=30)
    assert time.monotonic() - started >= 2.9  # blockTimeout
    assert_too_large(r, 99999999, before)


def test_list_at_a_resource_version_never_reached_is_504_after_3_s(http, url):
    before = current_rv(http, url)
    started = time.monotonic()
    r = http.get(f"{url}/api/v1/configmaps", params={"resourceVersion": "99999999"}, timeout=30)
    assert time.monotonic() - started >= 2.9
    assert_too_large(r, 99999999, before)


def test_get_waits_for_the_write_that_reaches_its_resource_version(http, url, namespaces):
    """The update that makes resourceVersion R is the object a GET at R answers (before: the older object)."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    made = http.post(base, json={"metadata": {"name": "c"}, "data": {"v": "0"}}).json()
    target = int(made["metadata"]["resourceVersion"]) + 1
    got = in_thread(lambda: http.get(f"{base}/c", params={"resourceVersion": str(target)}, timeout=30))
    for i in range(1, 50):  # (other writers may take resourceVersions too: write until ours is at or past it)
        put = http.put(f"{base}/c", json={"metadata": {"name": "c"}, "data": {"v": str(i)}})
        assert put.status_code == 200, put.text
        if int(put.json()["metadata"]["resourceVersion"]) >= target:
            break
    r = got()
    assert r.status_code == 200, r.text
    assert int(r.json()["metadata"]["resourceVersion"]) >= target
    assert r.json()["data"]["v"] != "0"


def test_list_waits_for_the_write_that_reaches_its_resource_version(http, url, namespaces):
    """A LIST at R (NotOlderThan, or no match without limit) from the cache once it has reached R; before, 504 at
    once. The answer holds the object created at R."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    target = current_rv(http, url) + 1
    listed = [in_thread(lambda p=p: http.get(base, params=p, timeout=30))
              for p in ({"resourceVersion": str(target)},
                        {"resourceVersion": str(target), "resourceVersionMatch": "NotOlderThan"})]
    r = http.post(base, json={"metadata": {"name": "new"}})
    assert r.status_code == 201, r.text
    for got in listed:
        out = got()
        assert out.status_code == 200, out.text
        assert int(out.json()["metadata"]["resourceVersion"]) >= target
        assert [o["metadata"]["name"] for o in out.json()["items"]] == ["new"]


@pytest.mark.parametrize("resource", ["configmaps", "events"])
@pytest.mark.parametrize("params", [{"resourceVersionMatch": "Exact"}, {"limit": "5"}])
def test_exact_list_at_a_future_revision_is_etcds_refusal_at_once(http, url, params, resource):
    """`Exact` (and the legacy exact: `limit` with a resourceVersion) reads etcd at that revision: etcd's
    ErrFutureRev, which `interpretListError` and `InterpretListError` pass, a 500 without a reason."""
    started = time.monotonic()
    r = http.get(f"{url}/api/v1/{resource}", params={"resourceVersion": "99999999", **params}, timeout=30)
    assert time.monotonic() - started < 2.5
    assert r.status_code == 500, r.text
    assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                        "message": FUTURE_REVISION, "code": 500}


@pytest.mark.parametrize("path, extra, code, message", [
    ("configmaps", {"labelSelector": "a in (b"}, 400, None),  # refused for its options before any wait
    ("configmaps", {"resourceVersion": "\u00b2"}, 500,  # a digit to Python, not to strconv.ParseUint
     'resourceVersion: Invalid value: "\u00b2": strconv.ParseUint: parsing "\u00b2": invalid syntax'),
    ("namespaces/default", {"timeout": "1s"}, 504,  # the request's own deadline (shorter than blockTimeout) answers
     "Timeout: request did not complete within requested timeout - context deadline exceeded"),
])
def test_answered_before_the_cache_gives_up(http, url, path, extra, code, message):
    started = time.monotonic()
    r = http.get(f"{url}/api/v1/{path}", params={"resourceVersion": "99999999", **extra}, timeout=30)
    assert r.headers["Content-Type"] == "application/json"
    assert time.monotonic() - started < 2.9
    assert r.status_code == code, r.text
    assert message is None or r.json()["message"] == message


def test_the_loop_serves_other_requests_while_a_read_waits(http, url):
    waiting = in_thread(lambda: http.get(f"{url}/api/v1/namespaces/default",
                                         params={"resourceVersion": "99999999"}, timeout=30))
    started = time.monotonic()
    for _ in range(5):
        assert requests.get(f"{url}/api/v1/namespaces/default", timeout=5).status_code == 200
    assert time.monotonic() - started < 2.5
    assert waiting().status_code == 504


@pytest.mark.parametrize("path", ["/api/v1/namespaces/default/events",
                                  "/apis/events.k8s.io/v1/namespaces/default/events",
                                  "/api/v1/namespaces/default/events/none"])
def test_events_have_no_watch_cache_so_etcd_refuses_at_once(http, url, path):
    """Events are read from etcd (`DefaultWatchCacheSizes`: events 0): etcd3's `validateMinimumResourceVersion`
    answers NewTooLargeResourceVersionError with no retry period, at once."""
    before = current_rv(http, url)
    started = time.monotonic()
    r = http.get(f"{url}{path}", params={"resourceVersion": "99999999"}, timeout=30)
    assert time.monotonic() - started < 2.5
    assert r.status_code == 504, r.text
    assert "Retry-After" not in r.headers
    body = r.json()
    m = TOO_LARGE.fullmatch(body["message"])
    assert m and int(m.group(1)) == 99999999 and int(m.group(2)) >= before, body
    assert body["details"] == {"causes": [{"reason": "ResourceVersionTooLarge",
                                           "message": "Too large resource version"}]}


def test_componentstatuses_are_probed_not_cached(http, url):
    r = http.get(f"{url}/api/v1/componentstatuses/etcd-0", params={"resourceVersion": "99999999"}, timeout=30)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("params", [{}, {"resourceVersionMatch": "NotOlderThan"}, {"resourceVersionMatch": "Exact"}])
def test_a_replica_reads_at_another_ones_fresh_resource_version(etcd_process, params):
    """Replica b (its watch cache held) is asked for what replica a just wrote, at its resourceVersion: upstream's
    cacher waits for it (GET, LIST) or etcd has it (Exact, events); before, 504 or 500 at once."""
    with replicas(etcd_process) as (srv, a, b, release):
        when_rv = b.when_rv
        b.when_rv = lambda rv, loop: (release.set(), when_rv(rv, loop))[1]  # let the cache go once a read waits
        cases = [("configmaps", "c", False), ("events", "e", False)]
        if not params:  # (a GET takes no resourceVersionMatch)
            cases += [("configmaps", "g", True), ("events", "f", True)]
        for resource, name, one in cases:
            release.clear()
            obj = {**CM, "metadata": {"name": name, "namespace": "x"}} if resource == "configmaps" else \
                {"metadata": {"name": name, "namespace": "x"}, "involvedObject": {"name": "c"}}
            rv = a.create(resource, "x", name, obj)["metadata"]["resourceVersion"]
            assert b.current_rv() < int(rv)
            path = f"{resource}/{name}" if one else resource
            r = requests.get(f"{srv.url}/api/v1/namespaces/x/{path}", params={"resourceVersion": rv, **params},
                             timeout=30)
            assert r.status_code == 200, (path, r.text)
            got = r.json()
            names = [o["metadata"]["name"] for o in got["items"]] if "items" in got else [got["metadata"]["name"]]
            assert name in names, got


def continue_token(rv: int, start: str) -> str:
    """A continue token as etcd3's `EncodeContinue` makes it."""
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def test_a_continue_token_at_a_revision_no_server_made_is_etcds_refusal_at_once(http, url):
    """etcd3 `GetList` reads a continued page at the token's revision: etcd refuses a future one at once, and
    `interpretListError` passes ErrFutureRev (500, no reason); nothing waits, nothing answers today's state."""
    started = time.monotonic()
    r = http.get(f"{url}/api/v1/configmaps", params={"limit": "1", "continue": continue_token(99999999, "a/b")},
                 timeout=30)
    assert time.monotonic() - started < 2.5
    assert r.status_code == 500, r.text
    assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                        "message": FUTURE_REVISION, "code": 500}


def test_a_replica_continues_another_ones_list_at_its_fresh_revision(etcd_process):
    """Replica a's first page pins a's revision; replica b (its watch cache behind) reads the next page at it,
    from etcd, without holding its event loop."""
    with replicas(etcd_process) as (srv, a, b, release):
        for name in ("c1", "c2"):
            rv = a.create("configmaps", "x", name, {**CM, "metadata": {"name": name, "namespace": "x"}})
        at = int(rv["metadata"]["resourceVersion"])
        assert b.current_rv() < at
        r = requests.get(f"{srv.url}/api/v1/namespaces/x/configmaps",
                         params={"limit": "1", "continue": continue_token(at, "c1\x00")}, timeout=30)
        assert r.status_code == 200, r.text
        assert [o["metadata"]["name"] for o in r.json()["items"]] == ["c2"]
        assert r.json()["metadata"]["resourceVersion"] == str(at)
