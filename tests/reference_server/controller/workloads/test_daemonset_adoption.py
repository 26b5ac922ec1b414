"""The DaemonSet controller's pods (controller/workloads/daemonset.py): orphans matching its selector adopted
(`ClaimPods`), its own released when they stop matching, pods without a target node kept, unbound pods of a node
that does not exist deleted (`getUnscheduledPodsWithoutNode`), out-of-date unavailable pods replaced by the rolling
update, and revisions a live pod names kept by `cleanupHistory`."""
from __future__ import annotations

from typing import Any

from conformance.reference_server.controller.workloads import DaemonSetController
from conformance.reference_server.controller.workloads.daemonset import scaled, target_node_name
from conformance.reference_server.registry import ListOptions

from .conftest import CONTAINERS, NS, apps, get, pods, template

LABELS = {"app": "agent"}


def _ds(reg, **spec: Any) -> dict[str, Any]:
    return apps(reg, "daemonsets", "ds", {"selector": {"matchLabels": LABELS}, "template": template(LABELS), **spec})


def _pod(reg, name: str, labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    return reg.content("pods").create({"metadata": {"name": name, "namespace": NS, "labels": labels or LABELS},
                                       "spec": {"containers": CONTAINERS, **spec}})


def _affinity(node: str) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}


def _by_name(reg) -> dict[str, dict[str, Any]]:
    return {p["metadata"]["name"]: p for p in pods(reg)}


def _events(reg) -> list[tuple[str, str]]:
    return sorted((e["reason"], e["message"]) for e in reg.content("events").list(NS, ListOptions())["items"])


def test_an_orphan_without_a_target_node_is_adopted_and_kept_then_released(reg):
    ds = _ds(reg)
    _pod(reg, "orphan")
    _pod(reg, "other", {"app": "else"})
    c = DaemonSetController(reg)
    c.sync(NS, "ds")
    got = _by_name(reg)
    assert got["orphan"]["metadata"]["ownerReferences"] == [
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds", "uid": ds["metadata"]["uid"], "controller": True,
         "blockOwnerDeletion": True}]
    assert "ownerReferences" not in got["other"]["metadata"]
    c.sync(NS, "ds")  # no target node: neither deleted nor counted
    assert set(_by_name(reg)) == {"orphan", "other"} and _events(reg) == []
    assert get(reg, "daemonsets", "ds")["status"]["desiredNumberScheduled"] == 0

    def relabel(cur: dict[str, Any]) -> dict[str, Any]:
        cur["metadata"]["labels"] = {"app": "gone"}
        return cur
    reg.content("pods").update(NS, "orphan", transform=relabel)
    c.sync(NS, "ds")
    assert "ownerReferences" not in _by_name(reg)["orphan"]["metadata"]


def test_an_unbound_pod_for_a_missing_node_is_deleted_a_bound_old_one_replaced(reg):
    _ds(reg)
    reg.cluster("nodes").create({"metadata": {"name": "real"}})
    _pod(reg, "for-missing", affinity=_affinity("missing"))
    _pod(reg, "for-real", affinity=_affinity("real"))
    c = DaemonSetController(reg)
    c.sync(NS, "ds")  # manage deletes; the rolling update waits for the next sync
    assert set(_by_name(reg)) == {"for-real"}
    assert _events(reg) == [("SuccessfulDelete", "Deleted pod: for-missing")]
    _pod(reg, "bound-old", nodeName="missing")
    c.sync(NS, "ds")  # bound, out of date, not available: replaced (the real node's pod too)
    left = _by_name(reg)  # a bound pod's deletion is graceful (its kubelet would finish it)
    assert set(left) == {"bound-old"} and left["bound-old"]["metadata"]["deletionTimestamp"]
    assert ("SuccessfulDelete", "Deleted pod: bound-old") in _events(reg)


def test_a_pod_of_the_current_revision_stays(reg):
    _ds(reg)
    c = DaemonSetController(reg)
    c.sync(NS, "ds")
    rev = reg.group("apps", "controllerrevisions").list(NS, ListOptions())["items"][0]
    current = rev["metadata"]["labels"]["controller-revision-hash"]
    _pod(reg, "current", {**LABELS, "controller-revision-hash": current}, nodeName="missing")
    c.sync(NS, "ds")
    assert set(_by_name(reg)) == {"current"}


def test_a_pod_of_the_template_generation_stays_and_the_generation_counts_template_changes(reg):
    gen = "deprecated.daemonset.template.generation"
    assert apps(reg, "daemonsets", "zero", {"selector": {"matchLabels": {"x": "y"}}, "template": template({"x": "y"})},
                )["metadata"]["annotations"] == {gen: "1"}
    ds = reg.group("apps", "daemonsets").create({"metadata": {"name": "ds", "namespace": NS, "annotations": {gen: "7"}},
                                                 "spec": {"selector": {"matchLabels": LABELS},
                                                          "template": template(LABELS)}})
    assert ds["metadata"]["annotations"][gen] == "7"

    def touch(cur: dict[str, Any]) -> dict[str, Any]:
        cur["metadata"]["annotations"][gen] = "100"  # the writer's value is ignored
        cur["spec"]["minReadySeconds"] = 5
        return cur
    assert reg.group("apps", "daemonsets").update(NS, "ds", transform=touch)["metadata"]["annotations"][gen] == "7"
    _pod(reg, "gen7", {**LABELS, "pod-template-generation": "7"}, nodeName="missing")
    c = DaemonSetController(reg)
    c.sync(NS, "ds")
    c.sync(NS, "ds")
    assert set(_by_name(reg)) == {"gen7"} and not _by_name(reg)["gen7"]["metadata"].get("deletionTimestamp")


def test_target_node_and_scaled_values():
    assert target_node_name({"spec": {"nodeName": "a", "affinity": _affinity("b")}}) == "a"
    assert target_node_name({"spec": {"affinity": _affinity("b")}}) == "b"
    two = _affinity("b")
    two["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchFields"][0][
        "values"] = ["b", "c"]
    assert target_node_name({"spec": {"affinity": two}}) == "" and target_node_name({"spec": {}}) == ""
    assert (scaled(1, 0), scaled("25%", 0), scaled("25%", 5), scaled(None, 3)) == (1, 0, 2, 0)
