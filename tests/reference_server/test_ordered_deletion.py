"""OrderedNamespaceDeletion (controller/ordered_deletion.py): pods first, nothing else while a pod remains;
the flavour decides (`Flavor.ordered_namespace_deletion`); pods in their grace period bring the namespace back
when the estimate runs out."""
from __future__ import annotations

import dataclasses
import datetime as dt
import json

import requests

from conformance.reference_server.controller.ordered_deletion import deletion_phases, pods_estimate, requeue_after
from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.flavors.catalogue import BARE, FLAVORS

from .conftest import WatchReader, unique

MERGE = {"Content-Type": "application/merge-patch+json"}
HOLD = "example.com/hold"
POD = {"spec": {"containers": [{"name": "c", "image": "pause"}]}}
ALL_OK = ("All content successfully removed")


def conds(ns: dict) -> dict[str, tuple[str, str, str]]:
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in ns.get("status", {}).get("conditions", [])}


def _fill(http: requests.Session, url: str, name: str, pod: dict) -> None:
    base = f"{url}/api/v1/namespaces/{name}"
    assert http.post(f"{base}/pods", json=pod).status_code == 201
    assert http.post(f"{base}/configmaps", json={"metadata": {"name": "cm"}}).status_code == 201


def _release_pod(http: requests.Session, url: str, name: str) -> None:
    http.patch(f"{url}/api/v1/namespaces/{name}/pods/p", data=json.dumps({"metadata": {"finalizers": None}}),
               headers=MERGE)


def test_every_flavour_imitates_1_33_or_later():
    assert all(f.ordered_namespace_deletion for f in FLAVORS.values())


class _Store:
    def __init__(self, plural: str, group: str = ""):
        self.info = type("Info", (), {"plural": plural})()
        self.group = group


def test_pods_come_first_only_when_ordered():
    stores = [_Store("configmaps"), _Store("pods"), _Store("pods", "metrics.k8s.io"), _Store("secrets")]
    first, rest = deletion_phases(stores, ordered=True)
    assert first == [stores[1]] and rest == [stores[0], stores[2], stores[3]]
    assert deletion_phases(stores, ordered=False) == [stores]
    assert deletion_phases([stores[0]], ordered=True) == [[stores[0]]]


def test_pods_estimate_counts_from_the_namespace_deletion():
    pods = [{"spec": {"terminationGracePeriodSeconds": 30}, "status": {"phase": "Pending"}},
            {"spec": {"terminationGracePeriodSeconds": 90}, "status": {"phase": "Failed"}}]  # terminal: not counted
    t0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    assert pods_estimate(pods, "2026-01-01T00:00:00Z", t0 + dt.timedelta(seconds=29)) == 30
    assert pods_estimate(pods, "2026-01-01T00:00:00Z", t0 + dt.timedelta(seconds=30)) == 0
    assert requeue_after(30) == 16 and requeue_after(0) == 1


def test_a_remaining_pod_holds_every_other_kind(http, url, namespaces, watch):
    """Upstream returns early while pods remain: the ConfigMap is not even marked, and the conditions carry no
    content totals (NamespaceContentRemaining stays False); once the pod goes, the rest is deleted."""
    name = namespaces.create()["metadata"]["name"]
    _fill(http, url, name, {"metadata": {"name": "p", "finalizers": [HOLD]}, **POD})
    w = watch(f"{url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}"})
    w.next()
    try:
        http.delete(f"{url}/api/v1/namespaces/{name}")
        ns = w.until(lambda e: "NamespaceDeletionContentFailure" in conds(e["object"]), what="conditions")[-1]["object"]
        assert conds(ns)["NamespaceContentRemaining"] == ("False", "ContentRemoved", ALL_OK)
        assert conds(ns)["NamespaceFinalizersRemaining"] == ("False", "ContentRemoved", ALL_OK)
        assert http.get(f"{url}/api/v1/namespaces/{name}/pods/p").json()["metadata"]["deletionTimestamp"]
        cm = http.get(f"{url}/api/v1/namespaces/{name}/configmaps/cm")
        assert cm.status_code == 200 and "deletionTimestamp" not in cm.json()["metadata"]
    finally:
        _release_pod(http, url, name)
    w.until(lambda e: e["type"] == "DELETED", what="namespace removed once the pod went")
    assert http.get(f"{url}/api/v1/namespaces/{name}/configmaps/cm").status_code == 404


def test_without_the_gate_everything_goes_in_one_pass():
    srv = start_embedded(flavor=dataclasses.replace(BARE, ordered_namespace_deletion=False))
    http = requests.Session()
    name = unique("unordered")
    try:
        assert http.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
        _fill(http, srv.url, name, {"metadata": {"name": "p", "finalizers": [HOLD]}, **POD})
        with WatchReader(f"{srv.url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}"}) as w:
            w.next()
            http.delete(f"{srv.url}/api/v1/namespaces/{name}")
            ns = w.until(lambda e: conds(e["object"]).get("NamespaceContentRemaining", ("",))[0] == "True",
                         what="content remaining")[-1]["object"]
            assert conds(ns)["NamespaceContentRemaining"][2] == "Some resources are remaining: pods. has 1 resource instances"
            assert http.get(f"{srv.url}/api/v1/namespaces/{name}/configmaps/cm").status_code == 404
            _release_pod(http, srv.url, name)
            w.until(lambda e: e["type"] == "DELETED", what="namespace removed")
    finally:
        http.close()
        srv.stop()


def test_a_bound_pod_past_its_grace_period_is_reported(http, url, namespaces, watch):
    """A pod bound to a node stays for its grace period (the kubelet would confirm); within it the controller
    only waits; once the estimate has run out (looked at again after estimate/2 + 1 s) a pod still there with
    nothing holding it is upstream's `unexpected items still remain` content failure."""
    name = namespaces.create()["metadata"]["name"]
    pod = {"metadata": {"name": "p"}, "spec": {**POD["spec"], "nodeName": "gone", "terminationGracePeriodSeconds": 1}}
    _fill(http, url, name, pod)
    w = watch(f"{url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}"})
    w.next()
    try:
        http.delete(f"{url}/api/v1/namespaces/{name}")
        failed = w.until(lambda e: conds(e["object"]).get("NamespaceDeletionContentFailure", ("",))[0] == "True",
                         timeout=15, what="content failure")[-1]["object"]
        assert conds(failed)["NamespaceDeletionContentFailure"] == (
            "True", "ContentDeletionFailed", "Failed to delete all resource types, 1 remaining: unexpected items "
            f"still remain in namespace: {name} for gvr: /v1, Resource=pods")
        assert http.get(f"{url}/api/v1/namespaces/{name}/configmaps/cm").status_code == 200
    finally:
        http.delete(f"{url}/api/v1/namespaces/{name}/pods/p", params={"gracePeriodSeconds": "0"})
    w.until(lambda e: e["type"] == "DELETED", what="namespace removed once the pod was force-deleted")
