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
    written = [{"type": "X", "status": "", "lastTransitionTime": None}]  # NamespaceCondition as Go writes it
    assert out["spec"]["finalizers"] == ["kubernetes"] and out["status"]["conditions"] == written
    out = reg.namespaces.update("", "a", dict(ns, status={}), strategy=reg.namespaces.finalize_strategy)
    assert out["spec"]["finalizers"] == ["example.com/x"] and out["status"]["conditions"] == written


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
                       "limitranges", "endpoints", "events",
                       "persistentvolumeclaims", "podtemplates", "replicationcontrollers",  # registry/kinds.py
                       "daemonsets", "deployments", "replicasets", "statefulsets",
                       "controllerrevisions", "cronjobs", "jobs", "networkpolicies", "poddisruptionbudgets", "leases", "endpointslices",
                       "ingresses", "csistoragecapacities",
                       "horizontalpodautoscalers",  # registry/autoscaling.py (its storage version only)
                       "rolebindings", "roles"]  # served whatever the authorization mode (registry._install_rbac)
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


def test_list_pages_are_one_snapshot(reg):
    for n in "abcd":
        create(reg, n)
    page = reg.namespaces.list(None, ListOptions(limit=2))
    create(reg, "bb")  # sorts into the next page's range
    reg.namespaces.delete("", "d", DeleteOptions())  # gone after the first page
    rest = reg.namespaces.list(None, ListOptions(limit=10, continue_token=page["metadata"]["continue"]))
    assert [i["metadata"]["name"] for i in rest["items"]] == ["c", "d"]
    assert rest["metadata"]["resourceVersion"] == page["metadata"]["resourceVersion"]


def test_expired_continue_carries_a_token_for_the_remainder(reg):
    for n in "abc":
        create(reg, n)
    page = reg.namespaces.list(None, ListOptions(limit=1))
    create(reg, "d")
    reg.store.compact()
    with pytest.raises(StatusError) as e:
        reg.namespaces.list(None, ListOptions(limit=1, continue_token=page["metadata"]["continue"]))
    assert e.value.code == 410 and e.value.status["reason"] == "Expired"
    token = e.value.status["metadata"]["continue"]
    rest = reg.namespaces.list(None, ListOptions(continue_token=token))
    assert [i["metadata"]["name"] for i in rest["items"]] == ["b", "c", "d"]  # the latest state after `a`


def test_list_resource_version_semantics(reg):
    create(reg, "a")
    rv = reg.store.current_rv()
    create(reg, "b")
    names = lambda lst: [i["metadata"]["name"] for i in lst["items"]]  # noqa: E731
    assert names(reg.namespaces.list(None, ListOptions(resource_version=str(rv),
                                                       resource_version_match="Exact"))) == ["a"]
    assert names(reg.namespaces.list(None, ListOptions(resource_version=str(rv), limit=5))) == ["a"]  # legacy
    assert names(reg.namespaces.list(None, ListOptions(resource_version=str(rv),
                                                       resource_version_match="NotOlderThan"))) == ["a", "b"]
    assert names(reg.namespaces.list(None, ListOptions(resource_version=str(rv)))) == ["a", "b"]
    reg.store.compact()
    assert names(reg.namespaces.list(None, ListOptions(resource_version=str(rv)))) == ["a", "b"]  # no 410
    with pytest.raises(StatusError) as e:
        reg.namespaces.list(None, ListOptions(resource_version=str(rv), resource_version_match="Exact"))
    assert e.value.code == 410 and e.value.message == "The resourceVersion for the provided list is too old."
    token = reg.namespaces.list(None, ListOptions(limit=1))["metadata"]["continue"]
    with pytest.raises(StatusError) as e:
        reg.namespaces.list(None, ListOptions(continue_token=token, resource_version=str(rv)))
    assert e.value.code == 400 and e.value.message == "specifying resource version is not allowed when using continue"
    reg.namespaces.list(None, ListOptions(continue_token=token, resource_version="0"))


def test_list_option_errors_are_all_reported(reg):
    with pytest.raises(StatusError) as e:
        reg.namespaces.list(None, ListOptions(resource_version_match="Newest", continue_token="x"))
    assert e.value.code == 422
    assert e.value.message == (
        'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden '
        'unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when '
        'continue is provided, resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", '
        '"NotOlderThan", ""]')
