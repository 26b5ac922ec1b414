"""The storage contract, on both backends (`make_store`: memory, etcd): versions, index, copies, guaranteed
update, history and watches."""
from __future__ import annotations

import asyncio
import threading

import pytest

from conformance.reference_server.storage import (DELETE, KeyExistsError, KeyNotFoundError, MemoryStore,
                                                  TooOldResourceVersionError, object_key)


def obj(name: str, ns: str = "", **extra):
    meta = {"name": name}
    if ns:
        meta["namespace"] = ns
    return {"metadata": meta, **extra}


def test_keys():
    assert object_key("configmaps", "a", "b") == "/registry/configmaps/a/b"
    assert object_key("namespaces", "", "x") == "/registry/namespaces/x"


def test_rv_is_global_and_monotonic(make_store):
    s = make_store()
    a = s.create("namespaces", "", "a", obj("a"))
    b = s.create("configmaps", "a", "c", obj("c", "a"))
    assert int(b["metadata"]["resourceVersion"]) == int(a["metadata"]["resourceVersion"]) + 1
    assert s.current_rv() == int(b["metadata"]["resourceVersion"])


def test_create_twice_and_missing(make_store):
    s = make_store()
    s.create("configmaps", "a", "c", obj("c", "a"))
    with pytest.raises(KeyExistsError) as e:
        s.create("configmaps", "a", "c", obj("c", "a"))
    assert e.value.existing["metadata"]["name"] == "c"
    s.create("configmaps", "b", "c", obj("c", "b"))  # per-namespace uniqueness
    with pytest.raises(KeyNotFoundError):
        s.get("configmaps", "a", "zz")


def test_copies_protect_the_store(make_store):
    s = make_store()
    src = obj("c", "a", data={"k": "v"})
    out = s.create("configmaps", "a", "c", src)
    src["data"]["k"] = "changed"
    out["data"]["k"] = "changed"
    s.get("configmaps", "a", "c")["data"]["k"] = "changed"
    s.list("configmaps", "a")[0][0]["data"]["k"] = "changed"
    assert s.get("configmaps", "a", "c")["data"] == {"k": "v"}


def test_list_per_namespace_and_all(make_store):
    s = make_store()
    for ns in ("b", "a"):
        for n in ("y", "x"):
            s.create("configmaps", ns, n, obj(n, ns))
    items, _ = s.list("configmaps", "a")
    assert [i["metadata"]["name"] for i in items] == ["x", "y"]
    items, _ = s.list("configmaps", None)
    assert [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in items] == \
        [("a", "x"), ("a", "y"), ("b", "x"), ("b", "y")]
    assert s.count("configmaps", "a") == 2 and s.count("configmaps", None) == 4
    assert s.list("secrets", "a")[0] == []


def test_guaranteed_update_noop_and_delete(make_store):
    """A no-op update writes nothing (the object keeps its version), an update and a delete each write once. On
    etcd the revision is the whole etcd's, which the session servers' controllers in the same worker also move
    (a lease renewal): the object's own versions are compared, and the store's revision only as a bound."""
    s = make_store()
    s.create("configmaps", "a", "c", obj("c", "a"))
    rv = int(s.get("configmaps", "a", "c")["metadata"]["resourceVersion"])
    out, deleted = s.guaranteed_update("configmaps", "a", "c", lambda cur: cur)
    assert not deleted and out["metadata"]["resourceVersion"] == str(rv)
    assert s.get("configmaps", "a", "c")["metadata"]["resourceVersion"] == str(rv)
    out, deleted = s.guaranteed_update("configmaps", "a", "c", lambda cur: {**cur, "data": {"a": "b"}})
    updated = int(out["metadata"]["resourceVersion"])
    assert out["data"] == {"a": "b"} and rv < updated <= s.current_rv()
    out, deleted = s.guaranteed_update("configmaps", "a", "c", lambda cur: DELETE)
    assert deleted and updated < int(out["metadata"]["resourceVersion"]) <= s.current_rv()
    with pytest.raises(KeyNotFoundError):
        s.guaranteed_update("configmaps", "a", "c", lambda cur: cur)


def test_update_fn_error_leaves_object_untouched(make_store):
    s = make_store()
    s.create("configmaps", "a", "c", obj("c", "a"))

    def boom(cur):
        cur["data"] = {"x": "y"}
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        s.guaranteed_update("configmaps", "a", "c", boom)
    assert "data" not in s.get("configmaps", "a", "c")


def test_history_compaction_and_too_old(make_store):
    s = make_store(history_size=3)
    for i in range(6):
        s.create("configmaps", "a", f"c{i}", obj(f"c{i}", "a"))
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(TooOldResourceVersionError) as e:
            s.watch("configmaps", "a", 2, loop)
        assert str(e.value) == f"too old resource version: 2 ({s.compacted_rv()})"
        backlog, w = s.watch("configmaps", "a", s.current_rv() - 2, loop)
        assert [ev.name for ev in backlog] == ["c4", "c5"]
        w.close()
    finally:
        loop.close()
    with pytest.raises(TooOldResourceVersionError):
        s.check_rv(2)


def test_watch_initial_state_then_live_events_from_another_thread(make_store):
    s = make_store()
    s.create("configmaps", "a", "old", obj("old", "a"))
    s.create("configmaps", "b", "other", obj("other", "b"))

    async def main():
        backlog, w = s.watch("configmaps", "a", 0, asyncio.get_running_loop())
        assert [(e.type, e.name) for e in backlog] == [("ADDED", "old")]
        t = threading.Thread(target=lambda: (s.create("configmaps", "b", "x", obj("x", "b")),
                                              s.create("configmaps", "a", "new", obj("new", "a")),
                                              s.delete("configmaps", "a", "old")))
        t.start()
        t.join()
        got = [await asyncio.wait_for(w.queue.get(), 5) for _ in range(2)]
        w.close()
        return got

    got = asyncio.run(main())
    assert [(e.type, e.name) for e in got] == [("ADDED", "new"), ("DELETED", "old")]
    assert got[1].prev["metadata"]["name"] == "old"


def test_close_watchers_sends_end(make_store):
    s = make_store()

    async def main():
        _, w = s.watch("namespaces", None, 0, asyncio.get_running_loop())
        s.close_watchers()
        return await asyncio.wait_for(w.queue.get(), 5)

    assert asyncio.run(main()) is None


def test_mutating_returned_objects_never_changes_the_store(make_store):
    """Every object handed out (write results, reads, errors, deletion results, the registry's reads) is the
    caller's own: deep mutations of it leave what is stored, and what later readers and watchers see, intact."""
    from conformance.reference_server.registry import ListOptions, Registry

    s = make_store()
    start = s.current_rv()
    want = {"k": ["v"]}
    out = s.create("configmaps", "a", "c", obj("c", "a", data={"k": ["v"]}))
    out["data"]["k"].append("x")
    out["metadata"]["name"] = "zz"
    s.get("configmaps", "a", "c")["data"]["k"].append("x")
    s.list("configmaps", "a")[0][0]["data"]["k"].append("x")
    with pytest.raises(KeyExistsError) as e:
        s.create("configmaps", "a", "c", obj("c", "a"))
    e.value.existing["data"]["k"].append("x")
    updated, _ = s.guaranteed_update("configmaps", "a", "c",
                                     lambda cur: {**cur, "metadata": {**cur["metadata"], "labels": {"l": "1"}}})
    updated["data"]["k"].append("x")
    same, _ = s.guaranteed_update("configmaps", "a", "c", lambda cur: cur)  # unchanged: no rewrite
    same["data"]["k"].append("x")
    assert s.get("configmaps", "a", "c")["data"] == want
    assert s.get("configmaps", "a", "c")["metadata"]["name"] == "c"

    backlog, w = s.watch("configmaps", "a", start, asyncio.new_event_loop())
    assert [ev.object["data"] for ev in backlog] == [want, want]  # the history holds the states as written
    w.close()

    reg = Registry(make_store())
    reg.store.create("configmaps", "a", "d", obj("d", "a", data={"k": ["v"]}))
    cms = reg.content("configmaps")
    got = cms.get("a", "d")
    got["data"]["k"].append("x")
    got["metadata"]["labels"] = {"x": "y"}
    cms.list("a", ListOptions())["items"][0]["data"]["k"].append("x")
    shared = cms.get("a", "d", shared=True)  # new top-level and metadata dicts over the stored data
    shared["metadata"]["resourceVersion"] = "0"
    shared["kind"] = "Other"
    stored = reg.store.get("configmaps", "a", "d")
    assert stored["data"] == want and "labels" not in stored["metadata"]
    assert stored["metadata"]["resourceVersion"] != "0"

    gone = s.delete("configmaps", "a", "c")
    gone["data"]["k"].append("x")
    backlog, w = s.watch("configmaps", "a", start, asyncio.new_event_loop())
    assert [ev.object["data"] for ev in backlog] == [want, want, want]
    assert backlog[-1].type == "DELETED" and backlog[-1].prev["metadata"]["resourceVersion"] \
        != backlog[-1].object["metadata"]["resourceVersion"]
    w.close()


def test_list_at_reads_the_state_at_a_resource_version(make_store):
    s = make_store()
    s.create("configmaps", "a", "x", obj("x", "a", data={"v": "1"}))
    s.create("configmaps", "b", "y", obj("y", "b"))
    at = s.current_rv()
    s.guaranteed_update("configmaps", "a", "x", lambda o: {**o, "data": {"v": "2"}})
    s.delete("configmaps", "b", "y")
    s.create("configmaps", "a", "z", obj("z", "a"))
    s.create("namespaces", "", "other", obj("other"))  # another resource: ignored
    items, rv = s.list_at("configmaps", None, at)
    assert rv == at and [(o["metadata"]["namespace"], o["metadata"]["name"]) for o in items] == [("a", "x"), ("b", "y")]
    assert items[0]["data"] == {"v": "1"}
    items, _ = s.list_at("configmaps", "a", at)
    assert [o["metadata"]["name"] for o in items] == ["x"]
    assert s.list_at("configmaps", None, s.current_rv()) == s.list("configmaps", None)
    s.compact()
    with pytest.raises(TooOldResourceVersionError):
        s.list_at("configmaps", None, at)


def test_progress_mark_follows_every_delivered_change(make_store):
    from conformance.reference_server.storage import Progress

    s = make_store()
    loop = asyncio.new_event_loop()
    try:
        _, w = s.watch("configmaps", None, s.current_rv(), loop)
        done = threading.Event()

        def write():  # from another thread: events are queued through the loop, the mark behind them
            s.create("configmaps", "a", "x", obj("x", "a"))
            w.request_progress()
            done.set()

        threading.Thread(target=write).start()
        done.wait(5)
        async def two():
            return [await w.queue.get(), await w.queue.get()]

        got = loop.run_until_complete(two())
        assert got[0].name == "x" and got[1] == Progress(s.current_rv())
        w.close()
    finally:
        loop.close()


def test_create_many_is_one_write_and_one_event_per_object(make_store):
    """Objects created together (pipelined on etcd: an API server's bootstrap policy) each get their own
    resourceVersion and ADDED event; one that exists is its `KeyExistsError`; the store has seen every creation
    when the call returns."""
    s = make_store()
    s.create("configmaps", "a", "taken", obj("taken", "a"))
    start = s.current_rv()
    items = [("configmaps", "a", f"cm-{i}", obj(f"cm-{i}", "a", data={"k": str(i)})) for i in range(20)]
    items.insert(5, ("configmaps", "a", "taken", obj("taken", "a")))
    items.append(("clusterroles", "", "view", {"metadata": {"name": "view"}}))
    out = s.create_many(items)
    assert isinstance(out[5], KeyExistsError)
    made = out[:5] + out[6:]
    assert [m["metadata"]["name"] for m in made] == [f"cm-{i}" for i in range(20)] + ["view"]
    rvs = sorted(int(m["metadata"]["resourceVersion"]) for m in made)
    assert len(set(rvs)) == 21 and rvs[0] > start and s.current_rv() >= rvs[-1]
    assert s.get("configmaps", "a", "cm-7")["data"] == {"k": "7"} and s.get("clusterroles", "", "view")

    async def events():
        backlog, w = s.watch("configmaps", "a", start, asyncio.get_running_loop())
        w.close()
        return backlog
    added = [e for e in asyncio.run(events()) if e.type == "ADDED"]
    assert sorted(e.name for e in added) == sorted(f"cm-{i}" for i in range(20))


def test_delete_many_is_one_write_and_one_event_per_object(make_store):
    """A collection deleted together (several in flight on etcd) still gives each object its own
    resourceVersion and its own DELETED event, as upstream's deleteCollection; per item the last state or
    what `delete` would have raised; the store has seen every deletion when the call returns."""
    s = make_store()
    names = [f"cm-{i}" for i in range(30)]
    for n in names:
        s.create("configmaps", "a", n, obj(n, "a", data={"k": n}))
    s.create("configmaps", "a", "kept", {"metadata": {"name": "kept", "namespace": "a", "finalizers": ["x/y"]}})
    start = s.current_rv()

    def refuse(stored):
        if stored["metadata"].get("finalizers"):
            raise LookupError("finalizers")

    items = [("a", n) for n in names[:15]] + [("a", "missing"), ("a", "kept")] + [("a", n) for n in names[15:]]
    out = s.delete_many("configmaps", items, check=refuse)
    assert isinstance(out[15], KeyNotFoundError) and isinstance(out[16], LookupError)
    gone = out[:15] + out[17:]
    assert [g["metadata"]["name"] for g in gone] == names and [g["data"]["k"] for g in gone] == names
    rvs = sorted(int(g["metadata"]["resourceVersion"]) for g in gone)
    assert len(set(rvs)) == 30 and rvs[0] > start and s.current_rv() >= rvs[-1]
    assert [o["metadata"]["name"] for o in s.list("configmaps", "a")[0]] == ["kept"]

    async def events():
        backlog, w = s.watch("configmaps", "a", start, asyncio.get_running_loop())
        w.close()
        return backlog
    deleted = [e for e in asyncio.run(events()) if e.type == "DELETED"]
    assert sorted(e.name for e in deleted) == sorted(names)
    assert sorted(e.rv for e in deleted) == rvs
