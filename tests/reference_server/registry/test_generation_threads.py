"""registry/replication.py `PodTemplateStrategy` (`metadata.generation` follows `template`), groupkinds.py
`_SpecGeneration` (IngressClass, CSIDriver: it follows `spec`) and flowcontrol.py `_FlowcontrolStrategy` judge the
bump against the update's own stored object (`canonicalize_update`). The etcd store runs an update's computation
outside any lock, in whichever thread writes (the handlers' offload thread, the garbage collector's, the namespace
deleter's: storage/offload.py), so two updates through one strategy can be between `prepare_for_update` and the
bump at once; neither may see the other's old object. `CustomResourceStrategy` keeps its decision per thread
(`PerThread`)."""
from __future__ import annotations

import threading
from typing import Any, Callable

import pytest

from conformance.reference_server.registry import Registry
from conformance.reference_server.storage.memory import MemoryStore
from tests.reference_server.registry.interleave import interleaved


class Optimistic(MemoryStore):
    """`guaranteed_update` as the etcd store runs it: the update computed outside the store's lock (then written;
    the objects here are never written by two threads at once)."""

    def guaranteed_update(self, resource: str, namespace: str, name: str, fn: Any,
                          ttl: int = 0) -> tuple[dict[str, Any], bool]:
        new = fn(self.get(resource, namespace, name))
        return super().guaranteed_update(resource, namespace, name, lambda _: new, ttl)


def _template(image: str) -> dict[str, Any]:
    return {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}


def _parameters(name: str) -> dict[str, Any]:
    return {"spec": {"controller": "example.com/c", "parameters": {"kind": "K", "name": name, "scope": "Cluster"}}}


def _precedence(image: str) -> dict[str, Any]:
    return {"spec": {"priorityLevelConfiguration": {"name": "global-default"},
                     "matchingPrecedence": {"nginx": 5000, "busybox": 5001, "redis": 5002}[image]}}


@pytest.mark.parametrize("group,plural,ns,content", [
    ("", "podtemplates", "n", _template),
    ("networking.k8s.io", "ingressclasses", "", _parameters),
    ("flowcontrol.apiserver.k8s.io", "flowschemas", "", _precedence),
])
def test_two_threads_updating_through_one_strategy_keep_their_own_generation(
        group: str, plural: str, ns: str, content: Callable[[str], dict[str, Any]]) -> None:
    registry = Registry(Optimistic())
    registry.namespaces.create({"metadata": {"name": "n"}})
    store = registry.content(plural) if not group else registry.group(group, plural)
    for name in ("a", "b"):
        obj = {"metadata": {"name": name, **({"namespace": ns} if ns else {})}, **content("nginx")}
        store.strategy.default(obj)
        store.create(obj)
    store.update(ns, "b", transform=lambda o: {**o, **content("busybox")})  # b at generation 2
    inside, go_on = threading.Event(), threading.Event()
    got: dict[str, Any] = {}

    def hold(new: dict[str, Any], old: dict[str, Any]) -> None:  # between prepare_for_update and the bump
        inside.set()
        assert go_on.wait(10)

    def change_a() -> None:  # a's template (spec) changes: generation 1 → 2
        try:
            got["a"] = store.update(ns, "a", transform=lambda o: {**o, **content("redis")}, validate_admit=hold)
        except Exception as e:  # noqa: BLE001 - shown by the assertion below
            got["a"] = e

    t = threading.Thread(target=change_a)
    t.start()
    assert inside.wait(10)
    # meanwhile, a labels-only update of b (generation stays 2) through the same strategy
    got["b"] = store.update(ns, "b", transform=lambda o: {**o, "metadata": {**o["metadata"], "labels": {"x": "y"}}})
    go_on.set()
    t.join(10)
    assert not t.is_alive()
    assert got["b"]["metadata"]["generation"] == 2
    assert isinstance(got["a"], dict), got["a"]
    assert got["a"]["metadata"]["generation"] == 2


def test_custom_resource_generation_kept_per_thread() -> None:
    """registry/crd.py `CustomResourceStrategy` decides the generation in `prepare_for_update` and sets it in
    `canonicalize`: kept per thread, as a rehearsal (registry/rehearsed.py) computes one write in its thread while
    the event loop commits another through the same strategy, even on the memory store."""
    from conformance.reference_server.registry.crd import CustomResourceStrategy

    strategy = CustomResourceStrategy(Registry(MemoryStore()).content("configmaps").info, None, False)
    held = ({"metadata": {"name": "a", "generation": 7}, "spec": {"x": 2}},  # a spec change at generation 7
            {"metadata": {"name": "a", "generation": 7}, "spec": {"x": 1}})
    meanwhile = ({"metadata": {"name": "b", "generation": 3, "labels": {"x": "y"}}, "spec": {"x": 1}},  # metadata
                 {"metadata": {"name": "b", "generation": 3}, "spec": {"x": 1}})
    assert interleaved(strategy, held, meanwhile) == (3, 8)
