"""CRDs' and APIServices' managedFields, server-side apply and strategic-merge patch, in upstream's shapes: a new
CRD's status written by kube-apiserver's naming and establishing controllers (`customresourcedefinitions/status`,
manager `kube-apiserver`), their `status.conditions` keyed by type (`fieldmanager/jsonkinds.py`).

A server of its own: the objects here change `/apis`."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from tests.reference_server.ownserver import own_server

from .conftest import WatchReader, unique
from .crds import create_crd, schemaless_crd, wait_crd

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from tests.tools import kubectl as kubectl_tool  # noqa: E402

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
CONDITION = {".": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:reason": {}, "f:status": {}, "f:type": {}}


srv = own_server()


def crd(group: str, plural: str = "widgets", kind: str = "Widget", **names: Any) -> dict[str, Any]:
    body = schemaless_crd(group, plural, kind)
    body["spec"]["names"].update(names)
    return body


def entries(obj: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(e["manager"], e["operation"], e.get("subresource", "")): e["fieldsV1"]
            for e in obj["metadata"]["managedFields"]}


def established(obj: dict[str, Any]) -> bool:
    return any(c["type"] == "Established" and c["status"] == "True" for c in obj["status"]["conditions"] or [])


def test_crd_create_answers_upstreams_empty_status_then_the_controllers_write_it(srv):
    http, group = requests.Session(), f"{unique('g')}.example.com"
    with WatchReader(srv.url + CRDS, {"fieldSelector": f"metadata.name=widgets.{group}"}) as w:
        r = create_crd(http, srv.url, crd(group), headers={"User-Agent": "kubectl-create/v1.33.1"})
        assert r.status_code == 201, r.text
        # strategy.go PrepareForCreate: the zero status, as v1 encodes it, with the storage version stored
        assert r.json()["status"] == {"conditions": None, "acceptedNames": {"plural": "", "kind": ""},
                                      "storedVersions": ["v1"]}
        events = w.until(lambda e: established(e["object"]), what="Established")
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "MODIFIED"]
    installing = events[1]["object"]["status"]
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in installing["conditions"]] == [
        ("NamesAccepted", "True", "NoConflicts", "no conflicts found"),
        ("Established", "False", "Installing", "the initial names have been accepted")]
    assert installing["acceptedNames"] == {"plural": "widgets", "singular": "widget", "kind": "Widget",
                                           "listKind": "WidgetList"}
    done = events[2]["object"]["status"]["conditions"][1]
    assert (done["status"], done["reason"], done["message"]) == ("True", "InitialNamesAccepted",
                                                                 "the initial names have been accepted")
    # managedFields as a kind 1.33 cluster shows them
    assert entries(http.get(f"{srv.url}{CRDS}/widgets.{group}").json()) == {
        ("kubectl-create", "Update", ""): {"f:spec": {
            "f:conversion": {".": {}, "f:strategy": {}}, "f:group": {},
            "f:names": {"f:kind": {}, "f:listKind": {}, "f:plural": {}, "f:singular": {}},
            "f:scope": {}, "f:versions": {}}},
        ("kube-apiserver", "Update", "status"): {"f:status": {
            "f:acceptedNames": {"f:kind": {}, "f:listKind": {}, "f:plural": {}, "f:singular": {}},
            "f:conditions": {'k:{"type":"Established"}': CONDITION, 'k:{"type":"NamesAccepted"}': CONDITION}}}}


def test_crd_names_in_use_are_not_accepted_until_freed(srv):
    http, group = requests.Session(), f"{unique('g')}.example.com"
    first = create_crd(http, srv.url, crd(group, shortNames=["wd"]))
    assert first.status_code == 201, first.text
    second = http.post(srv.url + CRDS, json=crd(group, plural="gadgets", kind="Gadget", shortNames=["wd"]))
    assert second.status_code == 201, second.text
    got = wait_crd(http, srv.url, f"gadgets.{group}", lambda o: bool(o["status"]["conditions"]))["status"]
    names = {c["type"]: c for c in got["conditions"]}
    assert (names["NamesAccepted"]["status"], names["NamesAccepted"]["reason"],
            names["NamesAccepted"]["message"]) == ("False", "ShortNamesConflict", '"wd" is already in use')
    assert (names["Established"]["status"], names["Established"]["reason"]) == ("False", "NotAccepted")
    assert "shortNames" not in got["acceptedNames"] and got["acceptedNames"]["plural"] == "gadgets"
    # the first CRD gives the short name up: the naming controller reconsiders the group
    body = http.get(f"{srv.url}{CRDS}/widgets.{group}").json()
    body["spec"]["names"]["shortNames"] = ["wi"]
    assert http.put(f"{srv.url}{CRDS}/widgets.{group}", json=body).status_code == 200
    assert wait_crd(http, srv.url, f"gadgets.{group}")["status"]["acceptedNames"]["shortNames"] == ["wd"]


def test_apiservice_conditions_are_keyed_and_merged_by_type(srv):
    http = requests.Session()
    name = f"v1.{unique('a')}.example.com"
    body = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
            "spec": {"group": name[3:], "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10}}
    assert http.post(srv.url + APISERVICES, json=body, params={"fieldManager": "maker"}).status_code == 201
    path = f"{srv.url}{APISERVICES}/{name}"
    with WatchReader(srv.url + APISERVICES, {"fieldSelector": f"metadata.name={name}"}) as w:
        w.until(lambda e: bool((e["object"].get("status") or {}).get("conditions")), what="Available")
    # strategic merge: `patchStrategy:"merge" patchMergeKey:"type"` keeps the Available condition
    r = http.patch(f"{path}/status", data=json.dumps({"status": {"conditions": [{"type": "Extra", "status": "True"}]}}),
                   headers={"Content-Type": "application/strategic-merge-patch+json"}, params={"fieldManager": "p"})
    assert r.status_code == 200, r.text
    assert sorted(c["type"] for c in r.json()["status"]["conditions"]) == ["Available", "Extra"]
    got = entries(r.json())
    assert got[("kube-apiserver", "Update", "status")] == {
        "f:status": {"f:conditions": {".": {}, 'k:{"type":"Available"}': CONDITION}}}
    assert got[("p", "Update", "status")] == {
        "f:status": {"f:conditions": {'k:{"type":"Extra"}': {".": {}, "f:status": {}, "f:type": {}}}}}
    # server-side apply of one condition conflicts on that item's fields only
    apply = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
             "status": {"conditions": [{"type": "Available", "status": "False", "reason": "Mine"}]}}
    r = http.patch(f"{path}/status", data=json.dumps(apply), headers={"Content-Type": "application/apply-patch+yaml"},
                   params={"fieldManager": "applier"})
    assert r.status_code == 409
    assert r.json()["message"] == ('Apply failed with 2 conflicts: conflicts with "kube-apiserver" with subresource '
                                   '"status" using apiregistration.k8s.io/v1:\n- .status.conditions[type="Available"]'
                                   '.reason\n- .status.conditions[type="Available"].status')


def test_local_apiservices_status_entry(srv):
    got = entries(requests.get(f"{srv.url}{APISERVICES}/v1.apps").json())
    assert got[("kube-apiserver", "Update", "status")] == {
        "f:status": {"f:conditions": {".": {}, 'k:{"type":"Available"}': CONDITION}}}


def test_kubectl_server_side_apply_of_a_crd_twice(srv, tmp_path):
    kubectl = kubectl_tool.get_kubectl()
    if kubectl is None:
        pytest.skip(f"kubectl 1.33 unavailable: {kubectl_tool.LAST_ERROR}")
    group = f"{unique('g')}.example.com"
    manifest = tmp_path / "crd.json"

    def apply(manager: str, served: bool) -> subprocess.CompletedProcess[str]:
        body = crd(group)
        body["spec"]["versions"][0]["served"] = served
        manifest.write_text(json.dumps(body))
        return subprocess.run([str(kubectl), "--server", srv.url, "apply", "--server-side",
                               f"--field-manager={manager}", "-f", str(manifest)],
                              capture_output=True, text=True, timeout=60, check=False)
    first = apply("alpha", True)
    assert first.returncode == 0, first.stderr
    second = apply("beta", False)
    assert second.returncode == 1
    assert second.stderr.startswith('error: Apply failed with 1 conflict: conflict with "alpha": .spec.versions\n')
    got = entries(requests.get(f"{srv.url}{CRDS}/widgets.{group}").json())
    assert got[("alpha", "Apply", "")] == {"f:spec": {"f:group": {}, "f:names": {"f:kind": {}, "f:plural": {}},
                                                      "f:scope": {}, "f:versions": {}}}


def test_crd_strategic_patch_merges_finalizers_and_replaces_lists(srv):
    """ObjectMeta's `finalizers` merge (patchStrategy merge); the CRD's own lists have no patch strategy."""
    http, group = requests.Session(), f"{unique('g')}.example.com"
    body = crd(group, shortNames=["a1", "a2"])
    body["metadata"]["finalizers"] = ["example.com/keep"]
    assert create_crd(http, srv.url, body).status_code == 201
    path = f"{srv.url}{CRDS}/widgets.{group}"
    patch = {"metadata": {"finalizers": ["example.com/more"]}, "spec": {"names": {"shortNames": ["b1"]}}}
    r = http.patch(path, data=json.dumps(patch), headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["finalizers"] == ["example.com/more", "example.com/keep"]
    assert r.json()["spec"]["names"]["shortNames"] == ["b1"]
    r = http.patch(path, data=json.dumps({"metadata": {"finalizers": None}}),
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text


def _crd_with_a_held_instance(srv: RunningServer) -> tuple[requests.Session, str, str, str]:
    """An Established CRD with one instance `w` held by a finalizer of its own: the session, the CRD's group, the
    instances' collection URL and the CRD's URL."""
    http, group = requests.Session(), f"{unique('g')}.example.com"
    assert create_crd(http, srv.url, crd(group)).status_code == 201
    ns = unique("ns")
    assert http.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": ns}}).status_code == 201
    coll = f"{srv.url}/apis/{group}/v1/namespaces/{ns}/widgets"
    held = {"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w", "finalizers": ["example.com/x"]}}
    assert http.post(coll, json=held).status_code == 201
    path = f"{srv.url}{CRDS}/widgets.{group}"
    return http, group, coll, path


def test_crd_finalizer_writes_as_kube_apiserver(srv):
    http, group, coll, path = _crd_with_a_held_instance(srv)
    with WatchReader(srv.url + CRDS, {"fieldSelector": f"metadata.name=widgets.{group}"}) as w:
        assert http.delete(path).status_code == 200
        got = w.until(lambda e: any(c["type"] == "Terminating" and c["reason"] == "InstanceDeletionInProgress"
                                    for c in e["object"]["status"]["conditions"] or []), what="Terminating")[-1]
    status_managers = {e["manager"] for e in got["object"]["metadata"]["managedFields"] if e.get("subresource")}
    assert status_managers == {"kube-apiserver"}
    assert http.patch(f"{coll}/w", data=json.dumps({"metadata": {"finalizers": None}}),
                      headers={"Content-Type": "application/merge-patch+json"}).status_code == 200


def _terminating(obj: dict[str, Any]) -> tuple[str, str, str] | None:
    c = next((c for c in (obj.get("status") or {}).get("conditions") or [] if c["type"] == "Terminating"), None)
    return (c["status"], c["reason"], c["message"]) if c else None


def _delete_held_crd(http: requests.Session, path: str, then: tuple[str, str, str]) -> dict[str, Any]:
    """DELETE a CRD that a finalizer of its own also holds: the cleanup finalizer goes, with `then` written in
    the same update, and the CRD stays (its other finalizer); that finalizer is then removed."""
    assert http.delete(path).status_code == 200
    name = path.rsplit("/", 1)[1]
    got = wait_crd(http, path.rsplit("/", 1)[0].split("/apis/")[0], name,
                   lambda o: o["metadata"].get("finalizers") == ["example.com/keep"])
    assert http.patch(path, data=json.dumps({"metadata": {"finalizers": None}}),
                      headers={"Content-Type": "application/merge-patch+json"}).status_code == 200
    assert _terminating(got) == then
    return got


def test_crd_finalizer_writes_instance_deletion_completed_with_the_finalizers_removal(srv):
    """`crd_finalizer.go`: the outcome's condition and the finalizer's removal are one `UpdateStatus`."""
    http, group = requests.Session(), f"{unique('g')}.example.com"
    body = crd(group)
    body["metadata"]["finalizers"] = ["example.com/keep"]
    assert create_crd(http, srv.url, body).status_code == 201
    _delete_held_crd(http, f"{srv.url}{CRDS}/widgets.{group}",
                     ("False", "InstanceDeletionCompleted", "removed all instances"))


def test_crd_finalizer_skips_a_crd_never_established(srv):
    """A CRD whose names conflict (its kind is another CRD's) is never Established: no instance to delete."""
    http, group = requests.Session(), f"{unique('g')}.example.com"
    assert create_crd(http, srv.url, crd(group)).status_code == 201
    body = crd(group, plural="gadgets")  # kind Widget: taken
    body["metadata"]["finalizers"] = ["example.com/keep"]
    assert http.post(f"{srv.url}{CRDS}", json=body).status_code == 201
    wait_crd(http, srv.url, f"gadgets.{group}", lambda o: any(
        c["type"] == "NamesAccepted" and c["status"] == "False" for c in o["status"]["conditions"] or []))
    _delete_held_crd(http, f"{srv.url}{CRDS}/gadgets.{group}",
                     ("False", "NeverEstablished", "resource was never established"))


def test_crd_finalizer_gives_up_waiting_for_held_instances_after_its_minute(srv, monkeypatch):
    """Instances held by their own finalizers: upstream polls a minute, then writes `InstanceDeletionCheck`
    and retries with backoff; once they go, the CRD goes."""
    from conformance.reference_server.controller import crd_finalizer
    monkeypatch.setattr(crd_finalizer, "INSTANCE_WAIT", 0.5)
    http, group, coll, path = _crd_with_a_held_instance(srv)
    assert http.delete(path).status_code == 200
    got = wait_crd(http, srv.url, f"widgets.{group}", lambda o: (_terminating(o) or ("",))[0:2] == (
        "True", "InstanceDeletionCheck"))
    assert _terminating(got)[2] == ("could not confirm zero CustomResources remaining: "
                                    "timed out waiting for the condition")
    with WatchReader(srv.url + CRDS, {"fieldSelector": f"metadata.name=widgets.{group}"}) as w:
        assert http.patch(f"{coll}/w", data=json.dumps({"metadata": {"finalizers": None}}),
                          headers={"Content-Type": "application/merge-patch+json"}).status_code == 200
        w.until(lambda e: e["type"] == "DELETED", what="CRD gone")


@pytest.mark.parametrize("annotation, condition", [
    ("https://github.com/kubernetes/enhancements/pull/1111",
     ("True", "ApprovedAnnotation", "approved in https://github.com/kubernetes/enhancements/pull/1111")),
    ("unapproved, testing only", ("False", "UnapprovedAnnotation", 'not approved: "unapproved, testing only"')),
])
def test_protected_group_approval_condition(srv, annotation, condition):
    http, group = requests.Session(), f"{unique('g')}.k8s.io"
    body = crd(group)
    body["metadata"]["annotations"] = {"api-approved.kubernetes.io": annotation}
    assert create_crd(http, srv.url, body).status_code == 201
    approval = "KubernetesAPIApprovalPolicyConformant"
    got = wait_crd(http, srv.url, f"widgets.{group}",
                   lambda o: established(o) and any(c["type"] == approval for c in o["status"]["conditions"]))
    conds = {c["type"]: (c["status"], c["reason"], c["message"]) for c in got["status"]["conditions"]}
    assert conds["KubernetesAPIApprovalPolicyConformant"] == condition and established(got)
    [status] = [e for e in got["metadata"]["managedFields"] if e.get("subresource") == "status"]
    assert 'k:{"type":"KubernetesAPIApprovalPolicyConformant"}' in status["fieldsV1"]["f:status"]["f:conditions"]


@pytest.mark.parametrize("annotations, message", [
    ({}, 'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval '
         'annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'),
    ({"api-approved.kubernetes.io": "yes"},
     'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval '
     'annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see '
     'https://github.com/kubernetes/enhancements/pull/1111'),
])
def test_protected_group_needs_the_approval_annotation(srv, annotations, message):
    group = f"{unique('g')}.kubernetes.io"
    body = crd(group)
    body["metadata"]["annotations"] = annotations
    r = create_crd(requests, srv.url, body)
    assert r.status_code == 422, r.text
    assert r.json()["message"] == (f'CustomResourceDefinition.apiextensions.k8s.io "widgets.{group}" is invalid: '
                                   f'{message}')
