"""Replicas starting together on one empty etcd all find it unseeded; the losers of the race must start anyway."""
import pytest

from conformance.reference_server import apierrors as E
from conformance.reference_server.registry import Registry
from conformance.reference_server.server import _ensure
from conformance.reference_server.storage import MemoryStore


def test_an_initial_object_another_replica_created_first_is_fine():
    registry = Registry(MemoryStore())
    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    _ensure(lambda: registry.namespaces.create(dict(body)))
    _ensure(lambda: registry.namespaces.create(dict(body)))  # the second replica's attempt: 409, ignored
    assert registry.store.count("namespaces", None) == 1


def test_other_errors_still_stop_the_start():
    def refused():
        raise E.not_found("namespaces", "default")

    with pytest.raises(E.StatusError):
        _ensure(refused)
