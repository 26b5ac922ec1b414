"""Watch semantics (NS-90..NS-97)."""
from __future__ import annotations

import json

import pytest

from .conftest import WatchReader

MERGE = {"Content-Type": "application/merge-patch+json"}


def test_framing_and_initial_events_ns91_ns92(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    with WatchReader(f"{url}/api/v1/namespaces", {"timeoutSeconds": "1"}) as w:
        assert w.status == 200 and w.headers["Content-Type"] == "application/json"
        assert w.headers.get("Transfer-Encoding") == "chunked"
        events = w.rest()
    names = [e["object"]["metadata"]["name"] for e in events]
    assert name in names and "default" in names
    # the initial events are ADDED; other namespaces (earlier tests' being deleted) may change within the second
    assert all(e["type"] == "ADDED" for e in events if e["object"]["metadata"]["name"] in (name, "default"))
    assert events[0]["type"] == "ADDED"
    assert all(e["object"]["kind"] == "Namespace" and e["object"]["apiVersion"] == "v1" for e in events)


def test_events_after_rv_and_deprecated_paths_ns90(http, url, namespaces):
    ns = namespaces.create()
    name, rv = ns["metadata"]["name"], ns["metadata"]["resourceVersion"]
    cm_base = f"{url}/api/v1/namespaces/{name}/configmaps"
    watches = [WatchReader(f"{url}/api/v1/watch/namespaces/{name}/configmaps", {"resourceVersion": rv}),
               WatchReader(f"{url}/api/v1/watch/configmaps", {"resourceVersion": rv}),
               WatchReader(cm_base, {"resourceVersion": rv, "watch": "true"}),
               WatchReader(f"{url}/api/v1/configmaps", {"resourceVersion": rv}),
               WatchReader(f"{url}/api/v1/watch/namespaces/{name}/configmaps/a", {"resourceVersion": rv})]
    try:
        http.post(cm_base, json={"metadata": {"name": "a"}})
        http.post(cm_base, json={"metadata": {"name": "b"}})
        http.patch(f"{cm_base}/a", data=json.dumps({"data": {"x": "y"}}), headers=MERGE)
        http.delete(f"{cm_base}/a")
        for w in watches[:4]:
            seen = w.until(lambda e: e["type"] == "DELETED", what="DELETED a")
            mine = [(e["type"], e["object"]["metadata"]["name"]) for e in seen
                    if e["object"]["metadata"]["namespace"] == name]
            assert mine == [("ADDED", "a"), ("ADDED", "b"), ("MODIFIED", "a"), ("DELETED", "a")]
        seen = watches[4].until(lambda e: e["type"] == "DELETED", what="single object")
        assert [(e["type"], e["object"]["metadata"]["name"]) for e in seen] == \
            [("ADDED", "a"), ("MODIFIED", "a"), ("DELETED", "a")]
    finally:
        for w in watches:
            w.close()


def test_single_namespace_watch_path(http, url, namespaces):
    ns = namespaces.create()
    name = ns["metadata"]["name"]
    with WatchReader(f"{url}/api/v1/watch/namespaces/{name}", {"timeoutSeconds": "1"}) as w:
        assert [e["object"]["metadata"]["name"] for e in w.rest()] == [name]
    r = http.get(f"{url}/api/v1/watch/namespaces/{name}", params={"fieldSelector": "metadata.name=other"})
    assert r.status_code == 400 and r.json()["message"] == "fieldSelector metadata.name doesn't match requested name"


def test_selector_transitions_ns96(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{name}/configmaps"
    rv = http.post(base, json={"metadata": {"name": "a", "labels": {"sel": "no"}}}).json()["metadata"]["resourceVersion"]
    with WatchReader(base, {"labelSelector": "sel=yes", "resourceVersion": rv}) as w:
        for n, value in enumerate(("yes", "yes", "no", "no")):
            http.patch(f"{base}/a", data=json.dumps({"metadata": {"labels": {"sel": value}},
                                                     "data": {"v": str(n)}}), headers=MERGE)
        seen = w.until(lambda e: e["type"] == "DELETED", what="stops matching")
        assert [e["type"] for e in seen] == ["ADDED", "MODIFIED", "DELETED"]
        gone = seen[-1]["object"]
        assert gone["metadata"]["labels"]["sel"] == "yes"  # previous content, new RV
        current = http.get(f"{base}/a").json()
        assert int(gone["metadata"]["resourceVersion"]) <= int(current["metadata"]["resourceVersion"])
        assert int(gone["metadata"]["resourceVersion"]) > int(seen[-2]["object"]["metadata"]["resourceVersion"])


def test_too_old_rv_is_error_event_ns93(server, http, url):
    store = server.server.ctx.registry.store
    http.post(f"{url}/api/v1/namespaces/default/configmaps", json={"metadata": {"generateName": "old-"}})
    store.compact()
    with WatchReader(f"{url}/api/v1/namespaces", {"resourceVersion": "1"}) as w:
        assert w.status == 200
        events = w.rest()
    assert events == [{"type": "ERROR", "object": {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f"too old resource version: 1 ({store.compacted_rv()})", "reason": "Expired", "code": 410}}]


def test_timeout_and_bookmarks_ns95_ns97(http, url, namespaces):
    rv = http.get(f"{url}/api/v1/namespaces").json()["metadata"]["resourceVersion"]  # no initial events
    with WatchReader(f"{url}/api/v1/namespaces", {"timeoutSeconds": "1", "allowWatchBookmarks": "true",
                                                  "resourceVersion": rv}) as w:
        events = w.rest(timeout=5)
    assert events and events[-1]["type"] == "BOOKMARK"
    bm = events[-1]["object"]
    assert bm["kind"] == "Namespace" and bm["metadata"]["resourceVersion"]


def test_bookmark_is_due_two_seconds_before_the_deadline():
    """cache_watcher.go `nextBookmarkTime`: every minute, and 2 s before the watch's deadline; none after that
    moment (a watch of 3 s gets its BOOKMARK after 1 s, not as it ends)."""
    from conformance.reference_server.http.watch import _next_bookmark
    assert _next_bookmark(0.0, 3.0) == 1.0
    assert _next_bookmark(0.0, 1000.0) == 60.0
    assert _next_bookmark(990.0, 1000.0) == 998.0
    assert _next_bookmark(0.0, 2.0) is None and _next_bookmark(998.5, 1000.0) is None


def test_three_second_watch_gets_one_bookmark(http, url, namespaces):
    base = f"{url}/api/v1/namespaces/{namespaces.create()['metadata']['name']}/configmaps"
    rv = http.get(base).json()["metadata"]["resourceVersion"]  # no initial events
    with WatchReader(base, {"timeoutSeconds": "3", "allowWatchBookmarks": "true", "resourceVersion": rv}) as w:
        events = w.rest(timeout=10)
    assert [e["type"] for e in events] == ["BOOKMARK"], events


def test_watch_option_validation_ns92_ns98(http, url):
    r = http.get(f"{url}/api/v1/namespaces", params={"watch": "1", "resourceVersionMatch": "NotOlderThan",
                                                     "resourceVersion": "1"})
    assert r.status_code == 422 and "resourceVersionMatch is forbidden for watch" in r.json()["message"]
    r = http.get(f"{url}/api/v1/namespaces", params={"watch": "1", "sendInitialEvents": "true"})
    assert r.status_code == 422 and "WatchList feature gate" in r.json()["message"]
    r = http.get(f"{url}/api/v1/namespaces", params={"watch": "1", "labelSelector": "a in (b"})
    assert r.status_code == 400


def test_watch_false_is_a_list(http, url):
    for v in ("false", "0"):
        assert http.get(f"{url}/api/v1/namespaces", params={"watch": v}).json()["kind"] == "NamespaceList"


def test_watch_param_on_a_single_object(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    with WatchReader(f"{url}/api/v1/namespaces/{name}", {"timeoutSeconds": "1"}) as w:
        assert [e["object"]["metadata"]["name"] for e in w.rest()] == [name]
    r = http.get(f"{url}/api/v1/namespaces/{name}/status", params={"watch": "1"})
    assert r.json()["kind"] == "Namespace"


TABLE_ACCEPT = ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
                "application/json")


def test_watch_as_table_embeds_tables(http, url, namespaces):
    """`watchEmbeddedEncoder`: with kubectl's `as=Table` Accept each event object is a one-row Table; only the
    first carries columnDefinitions (upstream sets NoHeaders after one object, so later ones are null)."""
    ns = namespaces.create()
    name, rv = ns["metadata"]["name"], ns["metadata"]["resourceVersion"]
    with WatchReader(f"{url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}", "resourceVersion": "0"},
                     headers={"Accept": TABLE_ACCEPT}) as w:
        assert w.status == 200 and w.headers["Content-Type"] == "application/json"
        first = w.next()
        http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps({"metadata": {"labels": {"a": "b"}}}),
                   headers=MERGE)
        second = w.next()
    assert first["type"] == "ADDED" and second["type"] == "MODIFIED"
    t1, t2 = first["object"], second["object"]
    assert t1["kind"] == t2["kind"] == "Table" and t1["apiVersion"] == "meta.k8s.io/v1"
    assert [c["name"] for c in t1["columnDefinitions"]] == ["Name", "Status", "Age"]
    assert t2["columnDefinitions"] is None
    assert t1["metadata"] == {"resourceVersion": rv}
    assert [r["cells"][:2] for r in t1["rows"] + t2["rows"]] == [[name, "Active"], [name, "Active"]]
    assert t2["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    assert t2["rows"][0]["object"]["metadata"]["labels"]["a"] == "b"


def test_watch_as_table_options(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    params = {"fieldSelector": f"metadata.name={name}", "timeoutSeconds": "1", "includeObject": "Object"}
    with WatchReader(f"{url}/api/v1/namespaces", params, headers={"Accept": TABLE_ACCEPT}) as w:
        (event,) = w.rest()
    assert event["object"]["rows"][0]["object"]["kind"] == "Namespace"
    params["includeObject"] = "All"  # optionsForTransform fails before the stream starts
    r = http.get(f"{url}/api/v1/namespaces", params={**params, "watch": "1"}, headers={"Accept": TABLE_ACCEPT})
    assert r.status_code == 400 and r.json()["reason"] == "BadRequest"
    meta = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json"
    with WatchReader(f"{url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}", "timeoutSeconds": "1"},
                     headers={"Accept": meta}) as w:
        (event,) = w.rest()
    assert event["object"]["kind"] == "PartialObjectMetadata" and event["object"]["metadata"]["name"] == name
    with WatchReader(f"{url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}", "timeoutSeconds": "1"},
                     headers={"Accept": "application/json"}) as w:
        assert w.rest()[0]["object"]["kind"] == "Namespace"


def test_bookmark_follows_the_delivered_changes_and_resumes_cleanly(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{name}/configmaps"
    rv = http.get(base).json()["metadata"]["resourceVersion"]
    with WatchReader(base, {"resourceVersion": rv, "allowWatchBookmarks": "true", "timeoutSeconds": "1"}) as w:
        for n in "ab":
            http.post(base, json={"metadata": {"name": n}})
        events = w.rest(timeout=5)
    assert [e["type"] for e in events] == ["ADDED", "ADDED", "BOOKMARK"]
    mark = events[-1]["object"]
    assert mark["metadata"] == {"resourceVersion": mark["metadata"]["resourceVersion"], "creationTimestamp": None}
    assert int(mark["metadata"]["resourceVersion"]) >= int(events[1]["object"]["metadata"]["resourceVersion"])
    with WatchReader(base, {"resourceVersion": mark["metadata"]["resourceVersion"], "timeoutSeconds": "1"}) as w:
        assert w.rest(timeout=5) == []


@pytest.mark.parametrize("rv, why", [("abc", "invalid syntax"), ("-1", "invalid syntax"), ("+5", "invalid syntax"),
                                     ("18446744073709551616", "value out of range")])
def test_invalid_watch_resource_version_is_upstreams_500(http, url, rv, why):
    """cacher.go `Watch` returns `ParseResourceVersion`'s storage.InvalidError as is; `ErrorToAPIStatus` makes any
    such error a 500 without a reason (lists: test_http_resource_version.py)."""
    r = http.get(f"{url}/api/v1/namespaces", params={"watch": "1", "resourceVersion": rv, "timeoutSeconds": "1"},
                 timeout=10)
    assert r.status_code == 500
    assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "code": 500,
                        "message": f'resourceVersion: Invalid value: "{rv}": strconv.ParseUint: parsing "{rv}": {why}'}


def test_watch_from_a_future_resource_version_waits_for_newer_events(http, url, namespaces):
    """A plain watch (no sendInitialEvents) from a resourceVersion the server has not reached is established and
    delivers only events newer than it, bookmarks included (cacher.go `waitUntilWatchCacheFreshAndForceAllEvents`
    waits only for watch-list requests; `cacheWatcher.process` filters the rest): no 504."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    target = int(http.get(base).json()["metadata"]["resourceVersion"]) + 10
    made: list[tuple[str, int]] = []
    with WatchReader(base, {"resourceVersion": str(target), "allowWatchBookmarks": "true"}) as w:
        while not made or made[-1][1] <= target:  # configmaps written before and after the target
            r = http.post(base, json={"metadata": {"name": f"c{len(made)}"}})
            assert r.status_code == 201, r.text
            made.append((r.json()["metadata"]["name"], int(r.json()["metadata"]["resourceVersion"])))
        events = w.until(lambda e: e["object"]["metadata"].get("name") == made[-1][0], 10, "the last ADDED")
    assert [n for n, rv in made if rv <= target], made  # some writes came before the target
    assert [e["object"]["metadata"]["name"] for e in events if e["type"] == "ADDED"] == \
        [n for n, rv in made if rv > target]
    assert all(int(e["object"]["metadata"]["resourceVersion"]) >= target for e in events), events
