"""Watch semantics (NS-90..NS-97)."""
from __future__ import annotations

import json

from .conftest import WatchReader

MERGE = {"Content-Type": "application/merge-patch+json"}


def test_framing_and_initial_events_ns91_ns92(http, url, namespaces):
    name = namespaces.create()["metadata"]["name"]
    with WatchReader(f"{url}/api/v1/namespaces", {"timeoutSeconds": "1"}) as w:
        assert w.status == 200 and w.headers["Content-Type"] == "application/json"
        assert w.headers.get("Transfer-Encoding") == "chunked"
        events = w.rest()
    names = [e["object"]["metadata"]["name"] for e in events]
    assert {e["type"] for e in events} == {"ADDED"} and name in names and "default" in names
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
    with WatchReader(f"{url}/api/v1/namespaces", {"timeoutSeconds": "1", "allowWatchBookmarks": "true",
                                                  "resourceVersion": str(10 ** 6)}) as w:
        events = w.rest(timeout=5)
    assert events and events[-1]["type"] == "BOOKMARK"
    bm = events[-1]["object"]
    assert bm["kind"] == "Namespace" and bm["metadata"]["resourceVersion"]


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
