"""storage/rehearsal.py and the memory store's rehearsal mode: a rehearsal holds no store lock across a write and
commits nothing; its remembered computations answer the commit for equal inputs only, each once."""
from __future__ import annotations

import threading

import pytest

from conformance.reference_server.storage.memory import MemoryStore
from conformance.reference_server.storage.rehearsal import REHEARSAL, Rehearsal, Rehearsed, Unforeseen, recall


def rehearsing(rehearsal: Rehearsal):
    class Scope:
        def __enter__(self):
            self.token = REHEARSAL.set(rehearsal)

        def __exit__(self, *exc):
            REHEARSAL.reset(self.token)
    return Scope()


def test_a_rehearsed_update_runs_without_the_lock_and_writes_nothing():
    store = MemoryStore()
    store.create("things", "ns", "a", {"metadata": {"name": "a"}, "v": 1})
    rv = store.current_rv()
    seen = []

    def fn(obj):
        # another thread can take the lock meanwhile: the rehearsal does not hold it
        t = threading.Thread(target=lambda: seen.append(store.get("things", "ns", "a")["v"]))
        t.start()
        t.join(5)
        obj["v"] = 2
        return obj
    with rehearsing(Rehearsal()):
        with pytest.raises(Rehearsed):
            store.guaranteed_update("things", "ns", "a", fn)
        with pytest.raises(Rehearsed):
            store.create("things", "ns", "b", {"metadata": {"name": "b"}})
        with pytest.raises(Rehearsed):
            store.delete("things", "ns", "a")
        with store.atomic():  # not the lock: another thread may write
            t = threading.Thread(target=lambda: store.create("things", "ns", "c", {"metadata": {"name": "c"}}))
            t.start()
            t.join(5)
    assert seen == [1]
    assert store.get("things", "ns", "a")["v"] == 1
    assert store.current_rv() == rv + 1  # only the other thread's create
    assert [o["metadata"]["name"] for o in store.list("things", "ns")[0]] == ["a", "c"]


def test_the_commit_recalls_equal_inputs_once_and_refuses_others():
    rehearsal = Rehearsal()
    calls = []
    with rehearsing(rehearsal):
        assert recall("v", lambda: {"x": [1]}, lambda: calls.append(1) or "first") == "first"
    rehearsal.rehearsing = False
    with rehearsing(rehearsal):
        assert recall("v", lambda: {"x": [1]}, lambda: calls.append(2) or "again") == "first"
        with pytest.raises(Unforeseen):  # used once
            recall("v", lambda: {"x": [1]}, lambda: "again")
        with pytest.raises(Unforeseen):
            recall("w", lambda: {"x": [2]}, lambda: "other")
        assert recall("name", lambda: "base-", lambda: "drawn", strict=False) == "drawn"
    assert calls == [1]
    assert recall("v", lambda: 1 / 0, lambda: "plain") == "plain"  # no rehearsal: inputs never built
