"""`registry/store.py` `meta_in_go_order` and `_normalize`: the keys of what is stored and shown in Go's
`ObjectMeta` order, whatever order they came in, the shortcut for metadata already in order included."""
from __future__ import annotations

import random

from conformance.reference_server.registry.kinds import NAMESPACES
from conformance.reference_server.registry.store import GenericStore, META_ORDER, meta_in_go_order
from conformance.reference_server.storage.memory import MemoryStore


def _reference(meta: dict) -> dict:
    """The order as it was written before the memo: `META_ORDER`'s keys, then the others in their order."""
    return {k: meta[k] for k in META_ORDER if k in meta} | {k: v for k, v in meta.items() if k not in META_ORDER}


def test_metadata_keys_come_in_go_order_from_any_order():
    rng = random.Random(7)
    keys = list(META_ORDER) + ["zExtra", "aExtra"]
    for _ in range(300):
        chosen = rng.sample(keys, rng.randint(0, len(keys)))
        meta = {k: f"v-{k}" for k in chosen}
        for _ in range(2):  # the second time from the memo
            out = meta_in_go_order(meta)
            assert list(out.items()) == list(_reference(meta).items())
            assert out is not meta


def test_an_object_is_shown_with_kind_and_api_version_first():
    store = GenericStore(NAMESPACES, MemoryStore())
    obj = {"spec": {}, "apiVersion": "v0", "metadata": {"uid": "u", "name": "n"}, "status": {}}
    out = store._normalize(obj)
    assert list(out) == ["kind", "apiVersion", "spec", "metadata", "status"]
    assert out["kind"] == "Namespace" and out["apiVersion"] == "v1"
    assert list(out["metadata"]) == ["name", "uid"]
    assert obj["apiVersion"] == "v0" and list(obj["metadata"]) == ["uid", "name"]  # left untouched
    assert list(store._normalize({"metadata": {}})) == ["kind", "apiVersion", "metadata"]
