"""The disruption controller (controller/disruption.py, upstream's disruption.go) one sync at a time: the status a
PodDisruptionBudget gets for a Deployment's pending pods, percentages over the controllers' scale, unmanaged pods,
controllers that cannot be found (failSafe's `SyncFailed`), Ready pods and `disruptedPods` expiry, and its Events."""
from __future__ import annotations

import datetime as _dt
from typing import Any, NamedTuple

import pytest

from conformance.reference_server.controller.disruption import (DisruptionController, SyncError, label_selector_string,
                                                                 scaled_value)
from conformance.reference_server.registry import ListOptions, Registry
from conformance.reference_server.storage import MemoryStore

NS = "pdb"


class Ev(NamedTuple):
    """A storage watch event, as the informers hand them to the controller."""
    type: str
    namespace: str
    name: str
    object: Any
LABELS = {"app": "web"}


def _reg() -> Registry:
    r = Registry(MemoryStore())
    r.namespaces.create({"metadata": {"name": NS}})
    return r


def _ref(obj: dict) -> dict:
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
            "uid": obj["metadata"]["uid"], "controller": True}


def _deployment(reg: Registry, replicas: int) -> dict:
    """A Deployment, its ReplicaSet and `replicas` pending pods, linked as the workload controllers link them."""
    template = {"metadata": {"labels": LABELS}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    dep = reg.group("apps", "deployments").create({"metadata": {"name": "web", "namespace": NS}, "spec": {
        "replicas": replicas, "selector": {"matchLabels": LABELS}, "template": template}})
    rs = reg.group("apps", "replicasets").create({"metadata": {"name": "web-1", "namespace": NS, "ownerReferences": [
        _ref(dep)]}, "spec": {"replicas": replicas, "selector": {"matchLabels": LABELS}, "template": template}})
    for i in range(replicas):
        _pod(reg, f"web-1-{i}", owner=rs)
    return dep


def _pod(reg: Registry, name: str, *, owner: dict | None = None, labels: dict | None = None) -> dict:
    meta = {"name": name, "namespace": NS, "labels": labels or LABELS}
    if owner is not None:
        meta["ownerReferences"] = [_ref(owner)]
    return reg.content("pods").create({"metadata": meta, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})


def _ready(reg: Registry, name: str) -> None:
    pods = reg.content("pods")

    def change(pod: dict) -> dict:
        pod["status"] = {**pod.get("status", {}), "phase": "Running",
                         "conditions": [{"type": "Ready", "status": "True"}]}
        return pod
    pods.update(NS, name, transform=change, strategy=pods.status_strategy)


def _pdb(reg: Registry, name: str = "b", **spec) -> dict:
    return reg.group("policy", "poddisruptionbudgets").create({"metadata": {"name": name, "namespace": NS}, "spec": {
        "selector": {"matchLabels": LABELS}, **spec}}, field_manager="kubectl-create")


def _get(reg: Registry, name: str = "b") -> dict:
    return reg.group("policy", "poddisruptionbudgets").get(NS, name)


def _events(reg: Registry) -> list[tuple[str, str, str, str]]:
    items = reg.content("events").list(NS, ListOptions())["items"]
    items.sort(key=lambda e: int(e["metadata"]["resourceVersion"]))
    return [(e["involvedObject"]["kind"], e["type"], e["reason"], e["message"]) for e in items]


def _condition(status: dict) -> tuple:
    (cond,) = status["conditions"]
    return cond["type"], cond["status"], cond.get("observedGeneration"), cond["reason"], cond["message"]


def test_deployment_with_two_pending_replicas_and_min_available_one():
    """What a kind cluster shows for `minAvailable: 1` over a Deployment's 2 pending pods."""
    reg = _reg()
    _deployment(reg, 2)
    _pdb(reg, minAvailable=1)
    assert DisruptionController(reg).sync((NS, "b")) is None
    pdb = _get(reg)
    status = pdb["status"]
    assert list(status) == ["observedGeneration", "disruptionsAllowed", "currentHealthy", "desiredHealthy",
                            "expectedPods", "conditions"]
    assert (status["observedGeneration"], status["disruptionsAllowed"], status["currentHealthy"],
            status["desiredHealthy"], status["expectedPods"]) == (1, 0, 0, 1, 2)
    assert _condition(status) == ("DisruptionAllowed", "False", 1, "InsufficientPods", "")
    assert status["conditions"][0]["lastTransitionTime"]
    assert [m["manager"] for m in pdb["metadata"]["managedFields"] if m.get("subresource") == "status"] == \
        ["kube-controller-manager"]
    # nothing changed: no second write
    DisruptionController(reg).sync((NS, "b"))
    assert _get(reg)["metadata"]["resourceVersion"] == pdb["metadata"]["resourceVersion"]


def test_percentages_and_max_unavailable_use_the_controllers_scale():
    reg = _reg()
    dep = _deployment(reg, 1)
    reg.group("apps", "deployments").update(NS, "web", transform=lambda d: {**d, "spec": {**d["spec"], "replicas": 3}})
    assert dep["spec"]["replicas"] == 1
    _pdb(reg, "pct", minAvailable="50%")
    _pdb(reg, "max", maxUnavailable="34%")
    c = DisruptionController(reg)
    for name in ("pct", "max"):
        c.sync((NS, name))
    pct, mx = _get(reg, "pct")["status"], _get(reg, "max")["status"]
    assert (pct["expectedPods"], pct["desiredHealthy"]) == (3, 2)  # ceil(1.5): the Deployment's 3, not 1 pod
    assert (mx["expectedPods"], mx["desiredHealthy"]) == (3, 1)  # 3 - ceil(1.02)


def test_bare_pods_with_a_percentage_are_unmanaged():
    """Upstream (since 1.26) leaves pods without a controller out with an `UnmanagedPods` Warning."""
    reg = _reg()
    _pod(reg, "bare")
    _pdb(reg, minAvailable="50%")
    DisruptionController(reg).sync((NS, "b"))
    status = _get(reg)["status"]
    assert (status["expectedPods"], status["desiredHealthy"], status["disruptionsAllowed"]) == (0, 0, 0)
    assert _condition(status)[3] == "InsufficientPods"
    assert _events(reg) == [("PodDisruptionBudget", "Warning", "UnmanagedPods",
                             "Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:"
                             "map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{},}) were "
                             "found to be unmanaged. As a result, the status of the PDB cannot be calculated "
                             "correctly, which may result in undefined behavior. To account for these pods please "
                             'set ".spec.minAvailable" field of the PDB to an integer value.')]


def test_label_selector_string_prints_expressions_as_gogo():
    assert label_selector_string({"matchExpressions": [{"key": "k", "operator": "In", "values": ["a", "b"]}]}) == \
        ("&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{"
         "LabelSelectorRequirement{Key:k,Operator:In,Values:[a b],},},}")


def test_a_missing_controller_fails_safe():
    reg = _reg()
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "gone", "uid": "u-1"}}
    _pod(reg, "orphan", owner=rs)
    _pdb(reg, maxUnavailable=1)
    DisruptionController(reg).sync((NS, "b"))
    status = _get(reg)["status"]
    assert status["disruptionsAllowed"] == 0
    assert _condition(status) == ("DisruptionAllowed", "False", None, "SyncFailed",
                                  'found no controllers for pod "orphan"')
    assert "observedGeneration" not in status["conditions"][0]  # failSafe keeps the status's own (0: omitted)
    assert _events(reg) == [("PodDisruptionBudget", "Warning", "CalculateExpectedPodCountFailed",
                             'Failed to calculate the number of expected pods: found no controllers for pod "orphan"')]


def test_an_owner_without_scale_fails_safe():
    reg = _reg()
    job = reg.group("batch", "jobs").create({"metadata": {"name": "j", "namespace": NS}, "spec": {
        "template": {"metadata": {"labels": LABELS}, "spec": {"restartPolicy": "Never",
                                                              "containers": [{"name": "c", "image": "busybox"}]}}}})
    _pod(reg, "j-1", owner=job)
    _pdb(reg, minAvailable="100%")
    DisruptionController(reg).sync((NS, "b"))
    assert _condition(_get(reg)["status"])[3:] == ("SyncFailed", "jobs.batch does not implement the scale subresource")


def test_ready_pods_and_disrupted_pods():
    reg = _reg()
    _deployment(reg, 3)
    for i in range(3):
        _ready(reg, f"web-1-{i}")
    _pdb(reg, minAvailable=1)
    c = DisruptionController(reg)
    c.sync((NS, "b"))
    status = _get(reg)["status"]
    assert (status["currentHealthy"], status["desiredHealthy"], status["disruptionsAllowed"]) == (3, 1, 2)
    assert _condition(status) == ("DisruptionAllowed", "True", 1, "SufficientPods", "")
    # an eviction recorded one pod a minute ago, another three minutes ago (expired)
    now = _dt.datetime.now(_dt.timezone.utc)
    fresh = (now - _dt.timedelta(seconds=60)).strftime("%Y-%m-%dT%H:%M:%SZ")
    old = (now - _dt.timedelta(seconds=180)).strftime("%Y-%m-%dT%H:%M:%SZ")
    store = reg.group("policy", "poddisruptionbudgets")
    store.update(NS, "b", transform=lambda p: {**p, "status": {**p["status"], "disruptedPods": {
        "web-1-0": fresh, "web-1-1": old}}}, strategy=store.status_strategy)
    recheck = c.sync((NS, "b"))
    assert recheck is not None and 50 <= recheck <= 61  # when the fresh entry expires
    status = _get(reg)["status"]
    assert status["disruptedPods"] == {"web-1-0": fresh}
    assert (status["currentHealthy"], status["disruptionsAllowed"]) == (2, 1)
    assert ("Pod", "Warning", "NotDeleted", f"Pod was expected by PDB {NS}/{NS} to be deleted but it wasn't") in \
        _events(reg)


def test_no_matching_pods():
    reg = _reg()
    _pdb(reg, minAvailable=1)
    DisruptionController(reg).sync((NS, "b"))
    status = _get(reg)["status"]
    assert (status["expectedPods"], status["desiredHealthy"], status["disruptionsAllowed"]) == (0, 1, 0)
    assert _events(reg) == [("PodDisruptionBudget", "Normal", "NoPods", "No matching pods found")]


def test_a_pod_selected_by_two_budgets_gets_a_warning():
    reg = _reg()
    c = DisruptionController(reg)
    for name in ("b", "a"):  # as the PDB informer hands them over
        c._on_pdb(Ev("ADDED", NS, name, _pdb(reg, name, minAvailable=1)))
    c._on_pod(Ev("ADDED", NS, "p", _pod(reg, "p")))
    assert sorted(c.keys._queued) == [(NS, "a"), (NS, "b")]  # both budgets are synced
    assert _events(reg) == [("Pod", "Warning", "MultiplePodDisruptionBudgets",
                             f'Pod "{NS}"/"p" matches multiple PodDisruptionBudgets.  Chose "a" arbitrarily.')]


def test_a_pending_recheck_does_not_hide_events():
    """The recheck of a `disruptedPods` entry waits in its own queue (upstream's `recheckQueue`): a change of the
    budget meanwhile is synced at once, not when the entry expires."""
    import asyncio

    async def until_observed(reg: Registry, generation: int) -> dict:
        for _ in range(300):  # poll, at most 3 s
            status = _get(reg).get("status", {})
            if status.get("observedGeneration") == generation:
                return status
            await asyncio.sleep(0.01)
        raise AssertionError(f"generation {generation} not observed: {_get(reg).get('status')}")

    async def run() -> None:
        reg = _reg()
        _deployment(reg, 2)
        for i in range(2):
            _ready(reg, f"web-1-{i}")
        when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        store = reg.group("policy", "poddisruptionbudgets")
        _pdb(reg, minAvailable=1)
        store.update(NS, "b", transform=lambda p: {**p, "status": {"disruptedPods": {"web-1-0": when}}},
                     strategy=store.status_strategy)
        c = DisruptionController(reg)
        c.start()
        try:
            assert (await until_observed(reg, 1))["disruptedPods"] == {"web-1-0": when}  # a recheck in ~120 s
            store.update(NS, "b", transform=lambda p: {**p, "spec": {**p["spec"], "minAvailable": 2}})
            status = await until_observed(reg, 2)
            assert (status["desiredHealthy"], status["currentHealthy"]) == (2, 1)
        finally:
            await c.stop()
    asyncio.run(run())


@pytest.mark.parametrize("value, error", [
    ("1_0%", 'invalid value "1_0%": strconv.Atoi: parsing "1_0": invalid syntax'),
    (" 5%", 'invalid value " 5%": strconv.Atoi: parsing " 5": invalid syntax'),
    ('a"b%', 'invalid value "a\\"b%": strconv.Atoi: parsing "a\\"b": invalid syntax'),
    ("\t%", 'invalid value "\\t%": strconv.Atoi: parsing "\\t": invalid syntax'),
    (f"{1 << 63}%", f'invalid value "{1 << 63}%": strconv.Atoi: parsing "{1 << 63}": value out of range'),
])
def test_a_percentage_atoi_refuses_is_quoted_as_intstr_does(value, error):
    """intstr.go `getIntOrPercentValueSafely`: `fmt.Errorf("invalid value %q: %v", ...)` of `strconv.Atoi`'s error
    (a Python int() would have taken `1_0` and ` 5`)."""
    with pytest.raises(SyncError) as exc:
        scaled_value(value, 10)
    assert str(exc.value) == f"invalid value for IntOrString: {error}"
