"""registry/workloads.py `_Generation`: the stored spec and generation it keeps between `prepare_for_update` and
`canonicalize` belong to the thread writing (the etcd store's writes run in the offload thread while controllers
write on the loop through the same strategy), so one write never takes another's generation."""
from __future__ import annotations

from conformance.reference_server.registry.workloads import WORKLOAD_KINDS
from tests.reference_server.registry.interleave import interleaved


def _deployment(generation: int, replicas: int) -> dict:
    return {"metadata": {"name": "d", "generation": generation}, "spec": {"replicas": replicas}}


def test_two_threads_updating_through_one_strategy_keep_their_own_generation() -> None:
    gk = next(gk for gk in WORKLOAD_KINDS if gk.info.kind == "Deployment")
    strategy = gk.strategy(gk.info)

    def stored(generation: int, replicas: int) -> dict:
        obj = _deployment(generation, replicas)
        strategy.default(obj)  # as stored: defaulted
        return obj
    # a spec change of a deployment at generation 7, held; meanwhile a metadata-only write of another at 3
    assert interleaved(strategy, (_deployment(7, 2), stored(7, 1)), (_deployment(3, 1), stored(3, 1))) == (3, 8)
