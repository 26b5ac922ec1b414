"""Replicas starting together on one empty etcd all find it unseeded; the losers of the race must start anyway."""
import pytest

from conformance.reference_server import apierrors as E
from conformance.reference_server.registry import Registry
from conformance.reference_server.server import KUBERNETES_SERVICE, _ensure, _exists
from conformance.reference_server.storage import MemoryStore


def test_an_initial_object_another_replica_created_first_is_fine():
    registry = Registry(MemoryStore())
    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    exists = lambda: _exists(registry, "namespaces", "", "default")  # noqa: E731
    _ensure(lambda: registry.namespaces.create(dict(body)), exists)
    _ensure(lambda: registry.namespaces.create(dict(body)), exists)  # the second replica's attempt: 409, ignored
    assert registry.store.count("namespaces", None) == 1


def test_the_kubernetes_service_whose_ip_the_winner_took_is_fine():
    """The loser's create is refused by the allocator (422: 10.96.0.1 is allocated), not by the name (409)."""
    registry = Registry(MemoryStore())
    registry.namespaces.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}})
    services = registry.content("services")
    exists = lambda: _exists(registry, "services", "default", "kubernetes")  # noqa: E731
    _ensure(lambda: services.create(KUBERNETES_SERVICE), exists)
    other = {**KUBERNETES_SERVICE, "metadata": {**KUBERNETES_SERVICE["metadata"], "name": "kubernetes-too"}}
    with pytest.raises(E.StatusError) as refused:
        services.create(other)
    assert refused.value.code == 422  # what a loser sees when its copy is checked before its name
    _ensure(lambda: services.create(other), exists)  # the object (the winner's) exists: fine
    assert services.get("default", "kubernetes")["spec"]["clusterIP"] == KUBERNETES_SERVICE["spec"]["clusterIP"]


def test_other_errors_still_stop_the_start():
    def refused():
        raise E.not_found("namespaces", "default")

    with pytest.raises(E.StatusError):
        _ensure(refused, lambda: False)


def test_the_kubernetes_service_whose_ip_the_winner_holds_before_its_service_is_stored_is_fine():
    """The winner writes the IPAddress first and its Service after: a loser between the two finds no Service,
    only the taken address. It starts anyway (the periodic sync finds the winner's Service later)."""
    registry = Registry(MemoryStore())
    registry.namespaces.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}})
    services = registry.content("services")
    winner_mid_write = {**KUBERNETES_SERVICE, "metadata": {**KUBERNETES_SERVICE["metadata"], "name": "held"}}
    services.create(winner_mid_write)  # only its address matters here
    _ensure(lambda: services.create(KUBERNETES_SERVICE), lambda: _exists(registry, "services", "default", "kubernetes"))
    assert not _exists(registry, "services", "default", "kubernetes")


def test_an_invalid_service_still_stops_the_start():
    def refused():
        raise E.invalid("Service", "kubernetes", [E.FieldError("FieldValueInvalid", "spec.ports", "Invalid value")])

    with pytest.raises(E.StatusError):
        _ensure(refused, lambda: False)
