"""The namespace deleter (NS-70..NS-74, NS-99) and the create/delete race."""
from __future__ import annotations

import json
import threading
import time

import requests

from conformance.reference_server.embedded import start_embedded

from .conftest import WatchReader, wait_gone

MERGE = {"Content-Type": "application/merge-patch+json"}
OK_CONDITIONS = [
    ("NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered", "All resources successfully discovered"),
    ("NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions",
     "All legacy kube types successfully parsed"),
    ("NamespaceDeletionContentFailure", "False", "ContentDeleted",
     "All content successfully deleted, may be waiting on finalization"),
    ("NamespaceContentRemaining", "False", "ContentRemoved", "All content successfully removed"),
    ("NamespaceFinalizersRemaining", "False", "ContentRemoved", "All content successfully removed"),
]


def conds(ns):
    return [(c["type"], c["status"], c["reason"], c["message"]) for c in ns["status"].get("conditions", [])]


def test_full_lifecycle_event_sequence_ns99(http, url, namespaces, watch):
    ns = namespaces.create()
    name = ns["metadata"]["name"]
    specs = {"pods": {"containers": [{"name": "c", "image": "pause"}]}, "services": {"ports": [{"port": 80}]}}
    for r in ("configmaps", "secrets", "pods", "services"):
        body = {"metadata": {"name": "x"}, **({"spec": specs[r]} if r in specs else {})}
        assert http.post(f"{url}/api/v1/namespaces/{name}/{r}", json=body).status_code == 201
    w = watch(f"{url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}"})
    assert w.next()["type"] == "ADDED"
    http.delete(f"{url}/api/v1/namespaces/{name}")
    events = w.until(lambda e: e["type"] == "DELETED", what="DELETED")
    types = [e["type"] for e in events]
    assert types == ["MODIFIED", "MODIFIED", "DELETED"], types
    first, second, gone = (e["object"] for e in events)
    assert first["status"]["phase"] == "Terminating" and first["metadata"]["deletionTimestamp"]
    assert conds(second) == OK_CONDITIONS
    assert gone["spec"]["finalizers"] == ["kubernetes"]  # the emptying finalize is never persisted
    for r in ("configmaps", "secrets", "pods", "services"):
        assert http.get(f"{url}/api/v1/namespaces/{name}/{r}").json()["items"] == []
    # NS-74: recreate gives a new, empty namespace
    r = http.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": name}})
    assert r.status_code == 201 and r.json()["metadata"]["uid"] != ns["metadata"]["uid"]
    assert http.get(f"{url}/api/v1/namespaces/{name}/configmaps/x").status_code == 404


def test_content_with_finalizers_blocks_then_completes(http, url, namespaces, watch):
    name = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{name}/configmaps"
    http.post(base, json={"metadata": {"name": "held", "finalizers": ["example.com/keep"]}})
    http.post(base, json={"metadata": {"name": "free"}})
    w = watch(f"{url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}"})
    w.next()
    http.delete(f"{url}/api/v1/namespaces/{name}")
    w.until(lambda e: ("NamespaceContentRemaining", "True", "SomeResourcesRemain",
                       "Some resources are remaining: configmaps. has 1 resource instances") in conds(e["object"]),
            what="content remaining condition")
    ns = http.get(f"{url}/api/v1/namespaces/{name}").json()
    assert ("NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain",
            "Some content in the namespace has finalizers remaining: example.com/keep in 1 resource instances") in conds(ns)
    assert ns["spec"]["finalizers"] == ["kubernetes"]
    assert http.get(f"{base}/free").status_code == 404
    assert http.get(f"{base}/held").json()["metadata"]["deletionTimestamp"]
    http.patch(f"{base}/held", data=json.dumps({"metadata": {"finalizers": None}}), headers=MERGE)
    w.until(lambda e: e["type"] == "DELETED", what="namespace removed after content finalizer cleared")


def test_foreign_finalizers_untouched_ns72(http, url, namespaces, watch):
    name = namespaces.create(finalizers=["example.com/origin"])["metadata"]["name"]
    w = watch(f"{url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}"})
    w.next()
    http.delete(f"{url}/api/v1/namespaces/{name}")
    w.until(lambda e: e["object"]["spec"].get("finalizers") == ["example.com/origin"], what="kubernetes removed")
    ns = http.get(f"{url}/api/v1/namespaces/{name}").json()
    assert ns["status"]["phase"] == "Terminating"
    ns["spec"]["finalizers"] = []
    assert http.put(f"{url}/api/v1/namespaces/{name}/finalize", json=ns).status_code == 200
    wait_gone(http, url, name)


def test_controller_delay():
    srv = start_embedded(controller_delay=0.3)
    try:
        s = requests.Session()
        s.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": "slow"}})
        with WatchReader(f"{srv.url}/api/v1/namespaces", {"fieldSelector": "metadata.name=slow"}) as w:
            w.next()
            asked = time.monotonic()
            s.delete(f"{srv.url}/api/v1/namespaces/slow")
            assert w.next()["type"] == "MODIFIED"
            # nothing before the delay: the controller's first change arrives no sooner than 0.3 s after the
            # DELETE was sent (timed from the request, not from when this thread read the MODIFIED, which a
            # loaded machine may delay past the controller's delay)
            first = w.until(lambda e: True, what="the controller's first change")[-1]
            assert time.monotonic() - asked >= 0.3, first
            if first["type"] != "DELETED":
                assert [e["type"] for e in w.until(lambda e: e["type"] == "DELETED", what="gone")][-1] == "DELETED"
        s.close()
    finally:
        srv.stop()


def test_no_orphans_when_creating_while_deleting(http, url):
    """Writers racing a namespace deletion never leave content behind in a removed namespace."""
    for round_ in range(3):
        name = f"race-{round_}-{threading.get_ident() % 1000}"
        assert http.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
        start = threading.Barrier(5)
        results: list[int] = []

        def writer(i: int) -> None:
            s = requests.Session()
            start.wait()
            for j in range(40):
                r = s.post(f"{url}/api/v1/namespaces/{name}/configmaps", json={"metadata": {"name": f"w{i}-{j}"}})
                results.append(r.status_code)
            s.close()

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        start.wait()
        http.delete(f"{url}/api/v1/namespaces/{name}")
        for t in threads:
            t.join()
        wait_gone(http, url, name)
        assert set(results) <= {201, 403, 404}
        assert http.get(f"{url}/api/v1/namespaces/{name}/configmaps").json()["items"] == []
        assert [i for i in http.get(f"{url}/api/v1/configmaps").json()["items"]
                if i["metadata"]["namespace"] == name] == []


def test_no_orphans_with_threads_against_the_registry():
    """Same race without HTTP: writer threads call admission+create while the deleter runs in another thread."""
    from conformance.reference_server.controller import NamespaceController
    from conformance.reference_server.registry import DeleteOptions
    from conformance.reference_server.server import build_context

    ctx = build_context()
    reg = ctx.registry
    cms = reg.content("configmaps")
    for round_ in range(5):
        name = f"tr-{round_}"
        reg.namespaces.create({"metadata": {"name": name}})
        ctrl = NamespaceController(reg)
        go = threading.Barrier(4)
        created: list[str] = []

        def writer(i: int) -> None:
            go.wait()
            for j in range(200):
                try:
                    cms.create({"metadata": {"name": f"c{i}-{j}", "namespace": name}},
                               admit=ctx.admission.for_create(cms.info))
                    created.append(f"c{i}-{j}")
                except Exception as exc:  # 403/404 once the namespace is terminating/gone
                    assert getattr(exc, "code", None) in (403, 404), exc

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        go.wait()
        reg.namespaces.delete("", name, DeleteOptions())
        while reg.store.count("namespaces", "") and any(
                n["metadata"]["name"] == name for n in reg.store.list("namespaces", "")[0]):
            ctrl.sync(name)
            if ctrl._waiting:  # content appeared after the delete pass: what an event would trigger
                ctrl._waiting.clear()
        for t in threads:
            t.join()
        assert reg.store.count("configmaps", name) == 0


def test_large_namespace_deletion_lets_the_loop_run():
    """The controller deletes a big namespace in batches (`DELETE_BATCH`), yielding to the event loop in
    between: another coroutine runs while content is still being deleted, and the namespace still goes."""
    import asyncio

    from conformance.reference_server.controller import NamespaceController
    from conformance.reference_server.registry import DeleteOptions, ListOptions
    from conformance.reference_server.registry.store import DELETE_BATCH
    from conformance.reference_server.server import build_context

    ctx = build_context()
    reg = ctx.registry
    cms = reg.content("configmaps")
    reg.namespaces.create({"metadata": {"name": "big"}})
    total = DELETE_BATCH * 4 + 7
    for i in range(total):
        cms.create({"metadata": {"name": f"c{i}", "namespace": "big"}})
    seen: list[int] = []

    async def main() -> None:
        ctrl = NamespaceController(reg)
        ctrl.start()
        _, w, _ = reg.namespaces.watch(None, ListOptions(resource_version=str(reg.store.current_rv())),
                                       asyncio.get_running_loop())
        reg.namespaces.delete("", "big", DeleteOptions())
        while True:  # one loop iteration per turn: records how much content is left each time we get to run
            seen.append(reg.store.count("configmaps", "big"))
            ev = w.queue.get_nowait() if not w.queue.empty() else None
            if ev is not None and ev.type == "DELETED" and ev.name == "big":
                break
            await asyncio.sleep(0)
        w.close()
        await ctrl.stop()

    asyncio.run(asyncio.wait_for(main(), 30))
    assert any(0 < n < total for n in seen), "nothing else ran while the namespace's content was deleted"
    assert reg.store.count("configmaps", "big") == 0
