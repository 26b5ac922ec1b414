"""registry/workloads.py `_Generation`: the stored spec and generation it keeps between `prepare_for_update` and
`canonicalize` belong to the thread writing (the etcd store's writes run in the offload thread while controllers
write on the loop through the same strategy), so one write never takes another's generation."""
from __future__ import annotations

import threading

from conformance.reference_server.registry.workloads import WORKLOAD_KINDS


def _deployment(generation: int, replicas: int) -> dict:
    return {"metadata": {"name": "d", "generation": generation}, "spec": {"replicas": replicas}}


def test_two_threads_updating_through_one_strategy_keep_their_own_generation() -> None:
    gk = next(gk for gk in WORKLOAD_KINDS if gk.info.kind == "Deployment")
    strategy = gk.strategy(gk.info)

    def stored(generation: int, replicas: int) -> dict:
        obj = _deployment(generation, replicas)
        strategy.default(obj)  # as stored: defaulted
        return obj
    prepared, go_on = threading.Event(), threading.Event()
    seen: dict[str, int] = {}

    def other_thread() -> None:  # a spec change of a deployment at generation 7
        new = _deployment(7, 2)
        strategy.prepare_for_update(new, stored(7, 1))
        prepared.set()
        assert go_on.wait(10)
        strategy.canonicalize(new)
        seen["other"] = new["metadata"]["generation"]

    t = threading.Thread(target=other_thread)
    t.start()
    assert prepared.wait(10)
    new = _deployment(3, 1)  # meanwhile, a metadata-only write of another at generation 3
    strategy.prepare_for_update(new, stored(3, 1))
    strategy.canonicalize(new)
    go_on.set()
    t.join(10)
    assert (new["metadata"]["generation"], seen["other"]) == (3, 8)
