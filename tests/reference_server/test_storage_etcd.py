"""What only the etcd backend has: kube-apiserver's key layout, several processes on one etcd (each one's cache
sees the others' writes; compare-and-swap keeps every update), restart with everything kept, compaction → 410,
a clear error when etcd cannot be reached."""
from __future__ import annotations

import asyncio
import json
import threading

import pytest
import requests

from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.storage import KeyExistsError, TooOldResourceVersionError
from conformance.reference_server.storage.backends import StorageConfig, StorageUnavailable, open_store
from conformance.reference_server.storage.etcd import EtcdStore
from conformance.reference_server.storage.etcdclient import EtcdClient, unb64
from conformance.reference_server.storage.keys import key_root, resource_of

from .backends import unique_prefix


def obj(name: str, ns: str = "", **extra):
    return {"metadata": {"name": name, **({"namespace": ns} if ns else {})}, **extra}



def test_keys_and_values_as_kube_apiserver_lays_them_out(etcd_process):
    prefix = unique_prefix()
    s = EtcdStore(EtcdClient([etcd_process.url]), prefix)
    try:
        s.create("namespaces", "", "n1", obj("n1"))
        s.create("configmaps", "n1", "c", obj("c", "n1", data={"k": "v"}))
        s.create("services", "n1", "svc", obj("svc", "n1"))
        s.create("nodes", "", "node-1", obj("node-1"))
        s.create("customresourcedefinitions.apiextensions.k8s.io", "", "widgets.example.com",
                 obj("widgets.example.com"))
        s.create("widgets.example.com", "n1", "w", obj("w", "n1"))
        raw = s.client.range(prefix + "/", prefix=True)
        keys = sorted(unb64(kv["key"]).decode()[len(prefix):] for kv in raw["kvs"])
        assert keys == ["/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com",
                        "/configmaps/n1/c", "/example.com/widgets/n1/w", "/minions/node-1", "/namespaces/n1",
                        "/services/specs/n1/svc"]
        cm = next(kv for kv in raw["kvs"] if unb64(kv["key"]).decode().endswith("/configmaps/n1/c"))
        value = json.loads(unb64(cm["value"]))  # JSON, without the resourceVersion (the mod revision is it)
        assert value == {"metadata": {"name": "c", "namespace": "n1"}, "data": {"k": "v"}}
        assert s.get("configmaps", "n1", "c")["metadata"]["resourceVersion"] == cm["mod_revision"]
    finally:
        s.close()
    for resource in ("services", "nodes", "endpoints", "configmaps", "widgets.example.com",
                     "apiservices.apiregistration.k8s.io"):
        assert resource_of(key_root(resource)) == resource


def test_every_process_sees_every_other_ones_writes(pair):
    a, b = pair

    async def main():
        _, w = b.watch("configmaps", None, b.current_rv(), asyncio.get_running_loop())
        created = await asyncio.to_thread(a.create, "configmaps", "x", "c", obj("c", "x"))
        ev = await asyncio.wait_for(w.queue.get(), 10)
        w.close()
        return created, ev

    created, ev = asyncio.run(main())
    assert (ev.type, ev.name, ev.rv) == ("ADDED", "c", int(created["metadata"]["resourceVersion"]))
    assert b.get("configmaps", "x", "c")["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    with pytest.raises(KeyExistsError):  # the create is a txn on etcd, not a check of b's cache
        b.create("configmaps", "x", "c", obj("c", "x"))


def test_concurrent_updates_from_two_processes_lose_nothing(pair):
    a, b = pair
    a.create("configmaps", "x", "counter", obj("counter", "x", data={"n": "0"}))
    b.cache.wait_for(a.current_rv(), 5)

    def bump(store):
        for _ in range(20):
            store.guaranteed_update("configmaps", "x", "counter",
                                    lambda o: {**o, "data": {"n": str(int(o["data"]["n"]) + 1)}})

    threads = [threading.Thread(target=bump, args=(s,)) for s in (a, b, a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # each write is acknowledged once its writer's cache has it, so the later of the two caches has the last
    # write; a's own cache may still lag b's last writes
    assert a.cache.wait_for(max(a.current_rv(), b.current_rv()), 5)
    assert a.get("configmaps", "x", "counter")["data"]["n"] == "80"


def test_list_at_an_old_revision_reads_etcd_until_compacted(pair):
    a, _ = pair
    a.create("configmaps", "x", "one", obj("one", "x"))
    at = a.current_rv()
    a.create("configmaps", "x", "two", obj("two", "x"))
    a.cache.compact(a.current_rv())  # the cache's window has moved on; etcd still has the revision
    items, rv = a.list_at("configmaps", "x", at)
    assert rv == at and [o["metadata"]["name"] for o in items] == ["one"]
    a.compact()
    with pytest.raises(TooOldResourceVersionError):
        a.list_at("configmaps", "x", at)


def test_restart_keeps_objects_and_resource_versions(etcd_process):
    storage_config = StorageConfig("etcd", (etcd_process.url,), unique_prefix())
    srv = start_embedded(flavor="bare", storage=storage_config, leader_elect=False)  # no Lease writes after cm
    try:
        ns = requests.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": "kept"}}).json()
        cm = requests.post(f"{srv.url}/api/v1/namespaces/kept/configmaps",
                           json={"metadata": {"name": "c"}, "data": {"k": "v"}}).json()
        default = requests.get(f"{srv.url}/api/v1/namespaces/default").json()
    finally:
        srv.stop()
    srv = start_embedded(flavor="bare", storage=storage_config, leader_elect=False)  # no Lease writes after cm
    try:
        assert requests.get(f"{srv.url}/api/v1/namespaces/kept/configmaps/c").json() == cm
        assert requests.get(f"{srv.url}/api/v1/namespaces/kept").json()["metadata"] == ns["metadata"]
        assert requests.get(f"{srv.url}/api/v1/namespaces/default").json()["metadata"] == default["metadata"]
        r = requests.get(f"{srv.url}/api/v1/namespaces/kept/configmaps",
                         params={"resourceVersion": cm["metadata"]["resourceVersion"],
                                 "resourceVersionMatch": "Exact"})
        assert r.status_code == 200 and [o["metadata"]["name"] for o in r.json()["items"]] == ["c"]
    finally:
        srv.stop()


def test_compaction_during_a_watch_is_410_on_resume(storage_config):
    srv = start_embedded(flavor="bare", storage=storage_config)
    try:
        base = f"{srv.url}/api/v1/namespaces/default/configmaps"
        rv = requests.post(base, json={"metadata": {"name": "a"}}).json()["metadata"]["resourceVersion"]
        with requests.get(base, params={"watch": "1", "resourceVersion": rv}, stream=True, timeout=10) as w:
            lines = w.iter_lines()
            requests.post(base, json={"metadata": {"name": "b"}})
            assert json.loads(next(lines))["object"]["metadata"]["name"] == "b"
            srv.server.ctx.registry.store.compact()
            requests.post(base, json={"metadata": {"name": "c"}})
            assert json.loads(next(lines))["object"]["metadata"]["name"] == "c"  # the open watch goes on
        with requests.get(base, params={"watch": "1", "resourceVersion": rv}, stream=True, timeout=10) as w:
            event = json.loads(next(w.iter_lines()))
        assert event["type"] == "ERROR" and event["object"]["code"] == 410
        assert event["object"]["reason"] == "Expired"
        assert event["object"]["message"].startswith(f"too old resource version: {rv} (")
        r = requests.get(base, params={"resourceVersion": rv, "resourceVersionMatch": "Exact"})
        assert r.status_code == 410 and r.json()["reason"] == "Expired"
    finally:
        srv.stop()


def test_unreachable_etcd_is_one_clear_line():
    with pytest.raises(StorageUnavailable) as e:
        open_store(StorageConfig("etcd", ("http://127.0.0.1:1",)))
    assert str(e.value) == "cannot reach etcd at http://127.0.0.1:1: [Errno 111] Connection refused"


@pytest.mark.parametrize("argv, said", [
    (["--storage", "etcd"], "--storage etcd needs --etcd-servers URL[,URL...] (or `embedded`)"),
    (["--etcd-servers", "http://127.0.0.1:1"], "--etcd-servers needs --storage etcd"),
    (["--storage", "etcd", "--etcd-servers", "http://127.0.0.1:1"],
     "cannot reach etcd at http://127.0.0.1:1: [Errno 111] Connection refused"),
])
def test_serve_storage_errors_are_one_line(argv, said, capsys):
    from conformance.reference_server.serve import main

    assert main(["--port", "0", *argv]) == 2
    err = capsys.readouterr().err
    assert err == f"nsconform serve: error: {said}\n"


def test_a_namespace_another_process_just_created_admits_content_before_this_cache_sees_it(pair):
    """NamespaceLifecycle refuses content only when the namespace is missing from storage itself: upstream's
    last resort is a live GET when its informer has not seen the namespace yet (replicas behind one load
    balancer: a namespace created through one, its content at once through another)."""
    from conformance.reference_server.admission.lifecycle import NamespaceLifecycle
    from conformance.reference_server.registry import Registry
    from conformance.reference_server.storage import KeyNotFoundError
    a, b = pair
    b.reflector.stop()  # b's cache stays behind for as long as the test needs
    a.create("namespaces", "", "fresh", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "fresh"}})
    with pytest.raises(KeyNotFoundError):
        b.get("namespaces", "", "fresh")  # b's cache has not seen it
    registry = Registry(b)
    admit = NamespaceLifecycle(registry).for_create(registry.content("configmaps").info)
    admit(obj("c", "fresh"))  # admitted: the namespace is in etcd
    with pytest.raises(Exception) as refused:
        admit(obj("c", "never-created"))
    assert getattr(refused.value, "code", None) == 404


def test_a_reflector_stopped_while_its_watch_opens_ends_with_it():
    """`stop` right after `start` (a store closed at once) found no watch to close while the reflector's thread
    was still opening it: the thread then followed etcd for good and `stop` waited its 5 s join in vain."""
    from conformance.reference_server.storage.cacher import Reflector, WatchCache
    from conformance.reference_server.storage.etcdapi import RangeResult

    opening, opened = threading.Event(), threading.Event()
    closed = threading.Event()

    class Stream:
        def __iter__(self):
            closed.wait(30)  # a live watch: silent until closed
            return iter(())

        def close(self):
            closed.set()

    class Client:
        def get(self, key, range_end=None, revision=0, limit=0):
            return RangeResult(kvs=[], revision=1)

        def watch_range(self, key, range_end, start_revision):
            opening.set()
            opened.wait(30)
            return Stream()

    reflector = Reflector(Client(), "/p", WatchCache())
    reflector.start()
    assert opening.wait(30)
    stopper = threading.Thread(target=reflector.stop)
    stopper.start()
    assert reflector._stop.wait(30)
    opened.set()  # the watch is open only now, after `stop` looked for it
    stopper.join(30)
    assert closed.is_set() and not reflector._thread.is_alive()
