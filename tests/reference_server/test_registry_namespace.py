"""Namespace strategies and REST at the registry level (no HTTP)."""
from __future__ import annotations

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.deviations import Deviations
from conformance.reference_server.registry import DeleteOptions, ListOptions, Registry
from conformance.reference_server.storage import MemoryStore


@pytest.fixture
def reg() -> Registry:
    return Registry(MemoryStore())


def create(reg, name, **spec):
    body = {"metadata": {"name": name}}
    if spec:
        body["spec"] = spec
    return reg.namespaces.create(body)


def test_prepare_for_create(reg):
    ns = reg.namespaces.create({"metadata": {"name": "a", "namespace": "x"}, "status": {"phase": "Terminating"},
                                "spec": {"finalizers": ["example.com/f"]}})
    assert ns["status"] == {"phase": "Active"} and ns["spec"]["finalizers"] == ["example.com/f", "kubernetes"]
    assert "namespace" not in ns["metadata"] and ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "a"}


def test_update_strategies(reg):
    ns = create(reg, "a")
    ns["spec"]["finalizers"] = ["example.com/x"]
    ns["status"]["phase"] = "Terminating"
    ns["metadata"]["labels"] = {"l": "v"}
    out = reg.namespaces.update("", "a", ns)
    assert out["spec"]["finalizers"] == ["kubernetes"] and out["status"]["phase"] == "Active"
    assert out["metadata"]["labels"] == {"l": "v", "kubernetes.io/metadata.name": "a"}
    ns["metadata"].pop("resourceVersion")  # unconditional from here on
    out = reg.namespaces.update("", "a", dict(ns, status={"phase": "Active", "conditions": [{"type": "X"}]}),
                                strategy=reg.namespaces.status_strategy)
    assert out["spec"]["finalizers"] == ["kubernetes"] and out["status"]["conditions"] == [{"type": "X"}]
    out = reg.namespaces.update("", "a", dict(ns, status={}), strategy=reg.namespaces.finalize_strategy)
    assert out["spec"]["finalizers"] == ["example.com/x"] and out["status"]["conditions"] == [{"type": "X"}]


def test_status_phase_defaulted_and_checked(reg):
    create(reg, "a")
    out = reg.namespaces.update("", "a", {"metadata": {"name": "a"}, "status": {}},
                                strategy=reg.namespaces.status_strategy)
    assert out["status"]["phase"] == "Active"
    reg.namespaces.delete("", "a", DeleteOptions())
    with pytest.raises(StatusError) as e:
        reg.namespaces.update("", "a", {"metadata": {"name": "a"}, "status": {}},
                              strategy=reg.namespaces.status_strategy)
    assert "may only be 'Terminating' if `deletionTimestamp` is not empty" in e.value.message


def test_delete_then_finalize_removes(reg):
    create(reg, "a")
    first = reg.namespaces.delete("", "a", DeleteOptions())
    assert first == (reg.namespaces.get("", "a"), False)
    ns = reg.namespaces.get("", "a")
    ns["spec"]["finalizers"] = []
    reg.namespaces.update("", "a", ns, strategy=reg.namespaces.finalize_strategy)
    with pytest.raises(StatusError) as e:
        reg.namespaces.get("", "a")
    assert e.value.code == 404


def test_generate_name_retries_on_collision(reg, monkeypatch):
    from conformance.reference_server.registry import meta
    names = iter(["g-aaaaa", "g-aaaaa", "g-bbbbb"])
    monkeypatch.setattr(meta, "generate_name", lambda base: next(names))
    assert reg.namespaces.create({"metadata": {"generateName": "g-"}})["metadata"]["name"] == "g-aaaaa"
    assert reg.namespaces.create({"metadata": {"generateName": "g-"}})["metadata"]["name"] == "g-bbbbb"
    monkeypatch.setattr(meta, "generate_name", lambda base: "g-aaaaa")
    with pytest.raises(StatusError) as e:
        reg.namespaces.create({"metadata": {"generateName": "g-"}})
    assert e.value.message.endswith("the server was not able to generate a unique name for the object")


def test_content_kinds_declared_once(reg):
    plurals = [s.info.plural for s in reg.namespaced()]
    assert plurals == ["configmaps", "secrets", "services", "serviceaccounts", "pods", "resourcequotas",
                       "limitranges", "events", "daemonsets", "deployments", "replicasets", "statefulsets",
                       "cronjobs", "jobs", "networkpolicies", "poddisruptionbudgets", "leases", "endpointslices"]
    assert all(s.info.namespaced for s in reg.namespaced())
    assert "finalize" in [s.info.plural for s in Registry(MemoryStore(), Deviations(["finalize-as-content"]))
                          .namespaced()]


def test_list_paging_expired_continue(reg):
    for n in "abc":
        create(reg, n)
    page = reg.namespaces.list(None, ListOptions(limit=1))
    create(reg, "d")
    reg.store.compact()
    with pytest.raises(StatusError) as e:
        reg.namespaces.list(None, ListOptions(limit=1, continue_token=page["metadata"]["continue"]))
    assert e.value.code == 410 and e.value.message.startswith("The provided continue parameter is too old")
