"""What a store reports to its `StorageObserver` (storage/interface.py), on both backends: each write's etcd
transaction, the reads that go to etcd, each change its watch cache receives, a relist."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.storage import DELETE, KeyExistsError, TooOldResourceVersionError
from conformance.reference_server.storage.interface import StorageObserver


class Recorder(StorageObserver):
    def __init__(self) -> None:
        self.requests: list[tuple[str, str, bool]] = []
        self.lists: list[tuple[str, int, int, int]] = []
        self.events: list[tuple[str, int]] = []
        self.reloads = 0

    def request(self, operation: str, resource: str, seconds: float, failed: bool) -> None:
        assert seconds >= 0
        self.requests.append((operation, resource, failed))

    def listed(self, resource: str, fetched: int, evaluated: int, returned: int) -> None:
        self.lists.append((resource, fetched, evaluated, returned))

    def event(self, resource: str, rv: int) -> None:
        self.events.append((resource, rv))

    def reloaded(self) -> None:
        self.reloads += 1


def cm(name: str, **data: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "a"}, "data": data}


def test_each_write_is_one_transaction_and_one_cache_event(make_store: Any) -> None:
    s = make_store()
    seen = Recorder()
    s.observe(seen)
    first = s.create("configmaps", "a", "c", cm("c"))
    with pytest.raises(KeyExistsError):
        s.create("configmaps", "a", "c", cm("c"))  # refused by its compare: a transaction all the same
    s.guaranteed_update("configmaps", "a", "c", lambda o: {**o, "data": {"k": "v"}})
    s.guaranteed_update("configmaps", "a", "c", lambda o: o)  # unchanged: nothing sent
    s.create("widgets.example.com", "a", "w", cm("w"))
    s.guaranteed_update("widgets.example.com", "a", "w", lambda o: DELETE)
    gone = s.delete("configmaps", "a", "c")
    assert [(op, res) for op, res, _ in seen.requests] == [
        ("create", "configmaps"), ("create", "configmaps"), ("update", "configmaps"),
        ("create", "widgets.example.com"), ("delete", "widgets.example.com"), ("delete", "configmaps")]
    assert not any(failed for _, _, failed in seen.requests)
    assert len(seen.events) == 5, seen.events  # the etcd store's writes return once its cache has them
    assert seen.events[0] == ("configmaps", int(first["metadata"]["resourceVersion"]))
    assert seen.events[-1] == ("configmaps", int(gone["metadata"]["resourceVersion"]))


def test_a_list_at_a_revision_is_an_etcd_list(make_store: Any, backend: str) -> None:
    s = make_store(history_size=2)
    seen = Recorder()
    s.observe(seen)
    first = s.create("configmaps", "a", "c0", cm("c0"))
    for i in range(1, 5):
        s.create("configmaps", "a", f"c{i}", cm(f"c{i}"))
    rv = int(first["metadata"]["resourceVersion"])
    if backend == "memory":  # etcd and its cache in one: a read at a revision is the etcd LIST it stands for
        items, _ = s.list_at("configmaps", "a", rv + 4)
        assert len(items) == 5 and seen.requests[-1] == ("list", "configmaps", False)
        assert seen.lists == [("configmaps", 5, 5, 5)]
        with pytest.raises(TooOldResourceVersionError):  # compacted: a failed request
            s.list_at("configmaps", "a", rv)
        assert seen.requests[-1] == ("list", "configmaps", True) and len(seen.lists) == 1
        return
    items, _ = s.list_at("configmaps", "a", rv)
    assert [o["metadata"]["name"] for o in items] == ["c0"]
    assert seen.requests[-1] == ("list", "configmaps", False)
    assert seen.lists == [("configmaps", 1, 1, 1)]


def test_a_relist_is_reported(make_store: Any, backend: str) -> None:
    if backend == "memory":
        pytest.skip("only the etcd store's watch cache is filled from a list")
    s = make_store()
    seen = Recorder()
    s.observe(seen)
    s.reflector.relist()
    assert seen.reloads == 1

