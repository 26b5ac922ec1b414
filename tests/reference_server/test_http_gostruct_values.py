"""A `field.Error` whose bad value is a Go struct, or a slice of them, prints it as Go's `%#v` does
(apimachinery field/errors.go `ErrorBody`; wire/gosyntax.py): owner references (apimachinery
api/validation/objectmeta.go `ValidateOwnerReferences`) and a CRD's versions (apiextensions-apiserver
validation.go `ValidateCustomResourceDefinitionSpec`, the internal versions after the v1 conversion's hoisting)."""
from __future__ import annotations

from typing import Any

import requests

from .conftest import unique

ADDR = "0xc000000000"  # a set pointer's address: a stand-in, upstream's differs per request
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def _cause(r: requests.Response, field: str) -> str:
    assert r.status_code == 422, r.text
    return next(c["message"] for c in r.json()["details"]["causes"] if c["field"] == field)


def test_event_owner_printed_as_the_go_struct(http: requests.Session, url: str, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    ref = {"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u-1", "blockOwnerDeletion": False}
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps",
                  json={"metadata": {"name": "cm", "ownerReferences": [ref]}})
    assert _cause(r, "metadata.ownerReferences") == (
        'Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u-1", '
        f'Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)({ADDR})}}: '
        "/v1, Kind=Event is disallowed from being an owner")


def test_two_controllers_print_the_go_slice(http: requests.Session, url: str, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    refs = [{"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "u", "controller": True},
            {"apiVersion": "apps/v1", "kind": "Deployment", "name": "b", "uid": "v", "controller": True,
             "blockOwnerDeletion": True}]
    r = http.post(f"{url}/api/v1/namespaces/{ns}/configmaps",
                  json={"metadata": {"name": "cm", "ownerReferences": refs}})
    assert r.json()["message"] == (
        'ConfigMap "cm" is invalid: metadata.ownerReferences: Invalid value: []v1.OwnerReference{'
        'v1.OwnerReference{APIVersion:"v1", Kind:"ConfigMap", Name:"a", UID:"u", '
        f'Controller:(*bool)({ADDR}), BlockOwnerDeletion:(*bool)(nil)}}, '
        'v1.OwnerReference{APIVersion:"apps/v1", Kind:"Deployment", Name:"b", UID:"v", '
        f'Controller:(*bool)({ADDR}), BlockOwnerDeletion:(*bool)({ADDR})}}}}: '
        'Only one reference can have Controller set to true. Found "true" in references for ConfigMap/a and '
        'Deployment/b')


def _crd(versions: list[dict[str, Any]]) -> dict[str, Any]:
    group = f"{unique('g')}.example.com"
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"things.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "things", "kind": "Thing"},
                     "versions": versions}}


SCHEMA = {"openAPIV3Schema": {"type": "object"}}
OTHER = {"openAPIV3Schema": {"type": "object", "properties": {"a": {"type": "string"}}}}


def test_crd_versions_with_identical_schemas_print_them_hoisted(http: requests.Session, url: str) -> None:
    """The v1 conversion moves a schema every version has alike to `spec.validation`: the versions' are nil."""
    body = _crd([{"name": "v1", "served": True, "storage": True, "schema": SCHEMA},
                 {"name": "v2", "served": False, "storage": True, "schema": SCHEMA}])
    r = http.post(url + CRDS, json=body)
    zero = ("Deprecated:false, DeprecationWarning:(*string)(nil), "
            "Schema:(*apiextensions.CustomResourceValidation)(nil), "
            "Subresources:(*apiextensions.CustomResourceSubresources)(nil), "
            "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), "
            "SelectableFields:[]apiextensions.SelectableField(nil)")
    assert _cause(r, "spec.versions") == (
        "Invalid value: []apiextensions.CustomResourceDefinitionVersion{"
        f'apiextensions.CustomResourceDefinitionVersion{{Name:"v1", Served:true, Storage:true, {zero}}}, '
        f'apiextensions.CustomResourceDefinitionVersion{{Name:"v2", Served:false, Storage:true, {zero}}}}}: '
        "must have exactly one version marked as storage version")


def test_crd_versions_that_differ_keep_their_fields(http: requests.Session, url: str) -> None:
    column = {"name": "A", "type": "string", "jsonPath": ".a", "priority": 1}
    body = _crd([{"name": "v1", "served": True, "storage": False, "schema": SCHEMA,
                  "subresources": {"status": {}}},
                 {"name": "v2", "served": True, "storage": False, "schema": OTHER, "deprecated": True,
                  "deprecationWarning": "old", "additionalPrinterColumns": [column],
                  "subresources": {"status": {}}}])
    r = http.post(url + CRDS, json=body)
    assert _cause(r, "spec.versions") == (
        "Invalid value: []apiextensions.CustomResourceDefinitionVersion{"
        'apiextensions.CustomResourceDefinitionVersion{Name:"v1", Served:true, Storage:false, Deprecated:false, '
        f"DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)({ADDR}), "
        "Subresources:(*apiextensions.CustomResourceSubresources)(nil), "
        "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), "
        "SelectableFields:[]apiextensions.SelectableField(nil)}, "
        'apiextensions.CustomResourceDefinitionVersion{Name:"v2", Served:true, Storage:false, Deprecated:true, '
        f"DeprecationWarning:(*string)({ADDR}), Schema:(*apiextensions.CustomResourceValidation)({ADDR}), "
        "Subresources:(*apiextensions.CustomResourceSubresources)(nil), "
        "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition{"
        'apiextensions.CustomResourceColumnDefinition{Name:"A", Type:"string", Format:"", Description:"", '
        'Priority:1, JSONPath:".a"}}, SelectableFields:[]apiextensions.SelectableField(nil)}}: '
        "must have exactly one version marked as storage version")


def test_crd_without_versions(http: requests.Session, url: str) -> None:
    r = http.post(url + CRDS, json=_crd([]))
    assert _cause(r, "spec.versions") == ("Invalid value: []apiextensions.CustomResourceDefinitionVersion{}: "
                                          "must have exactly one version marked as storage version")


MERGE = {"Content-Type": "application/merge-patch+json"}
EVENTS = "/apis/events.k8s.io/v1"


def _causes(r: requests.Response) -> dict[str, str]:
    assert r.status_code == 422, r.text
    return {c["field"]: c["message"] for c in r.json()["details"]["causes"]}


def test_events_v1_immutable_structs_and_times(http: requests.Session, url: str, namespaces) -> None:
    """events/v1 `ValidateEventUpdate`'s `ValidateImmutableField` of the internal `core.Event`'s fields: an
    `ObjectReference` or `EventSource` as `%#v` of the struct, a `metav1.Time`/`MicroTime` by `String()`."""
    ns = namespaces.create()["metadata"]["name"]
    event = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e", "namespace": ns},
             "eventTime": "2026-01-02T03:04:05.123400Z", "reportingController": "example.com/ctl",
             "reportingInstance": "ctl-1", "action": "Reconcile", "reason": "Synced", "type": "Normal",
             "regarding": {"kind": "Pod", "namespace": ns, "name": "p", "apiVersion": "v1"}}
    assert http.post(f"{url}{EVENTS}/namespaces/{ns}/events", json=event).status_code == 201
    r = http.patch(f"{url}{EVENTS}/namespaces/{ns}/events/e", headers=MERGE, json={
        "regarding": {"name": "q", "uid": "u-2"}, "related": {"kind": "Node", "name": "n1"},
        "deprecatedSource": {"host": "h"}, "deprecatedFirstTimestamp": "2026-01-02T03:04:05Z",
        "eventTime": "2026-01-02T03:04:06.500000Z"})
    causes = _causes(r)
    assert causes["involvedObject"] == (
        f'Invalid value: core.ObjectReference{{Kind:"Pod", Namespace:"{ns}", Name:"q", UID:"u-2", APIVersion:"v1", '
        'ResourceVersion:"", FieldPath:""}: field is immutable')
    assert causes["related"] == ('Invalid value: core.ObjectReference{Kind:"Node", Namespace:"", Name:"n1", UID:"", '
                                 'APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable')
    assert causes["source"] == 'Invalid value: core.EventSource{Component:"", Host:"h"}: field is immutable'
    assert causes["firstTimestamp"] == "Invalid value: 2026-01-02 03:04:05 +0000 UTC: field is immutable"
    assert causes["eventTime"] == "Invalid value: 2026-01-02 03:04:06.5 +0000 UTC: field is immutable"


def test_volume_attachment_spec_immutable(http: requests.Session, url: str) -> None:
    name = unique("va")
    va = {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": name},
          "spec": {"attacher": "csi.example.com", "nodeName": "n1", "source": {"persistentVolumeName": "pv1"}}}
    path = f"{url}/apis/storage.k8s.io/v1/volumeattachments"
    assert http.post(path, json=va).status_code == 201
    try:
        r = http.patch(f"{path}/{name}", headers=MERGE, json={"spec": {"nodeName": "n2"}})
        assert _causes(r)["spec"] == (
            'Invalid value: storage.VolumeAttachmentSpec{Attacher:"csi.example.com", '
            f'Source:storage.VolumeAttachmentSource{{PersistentVolumeName:(*string)({ADDR}), '
            'InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"n2"}: field is immutable')
    finally:
        http.delete(f"{path}/{name}")


def test_csi_storage_capacity_topology_immutable(http: requests.Session, url: str, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    path = f"{url}/apis/storage.k8s.io/v1/namespaces/{ns}/csistoragecapacities"
    cap = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity", "metadata": {"name": "c"},
           "storageClassName": "sc", "nodeTopology": {"matchLabels": {"zone": "a"}}}
    assert http.post(path, json=cap).status_code == 201
    r = http.patch(f"{path}/c", headers=MERGE, json={"nodeTopology": {"matchLabels": {"zone": "b", "rack": "1"}},
                                                      "storageClassName": "other"})
    assert r.json()["message"] == (
        'CSIStorageCapacity.storage.k8s.io "c" is invalid: [nodeTopology: Invalid value: v1.LabelSelector{'
        'MatchLabels:map[string]string{"rack":"1", "zone":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: '
        'field is immutable, storageClassName: Invalid value: "other": field is immutable]')
    r = http.patch(f"{path}/c", headers=MERGE, json={"nodeTopology": None})
    assert _causes(r)["nodeTopology"] == 'Invalid value: "null": field is immutable'


def test_job_pod_failure_policy_immutable(http: requests.Session, url: str, namespaces) -> None:
    """`ValidateImmutableField(spec.PodFailurePolicy, ...)`: the `*batch.PodFailurePolicy` dereferenced, its rules'
    `OnExitCodes` pointers as addresses, the defaulted condition status shown."""
    ns = namespaces.create()["metadata"]["name"]
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {
        "suspend": True, "podFailurePolicy": {"rules": [{"action": "FailJob",
                                                         "onExitCodes": {"operator": "In", "values": [1]}}]},
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}
    path = f"{url}/apis/batch/v1/namespaces/{ns}/jobs"
    r = http.post(path, json=job)
    assert r.status_code == 201, r.text
    rules = r.json()["spec"]["podFailurePolicy"]["rules"] + [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]
    r = http.patch(f"{path}/j", headers=MERGE, json={"spec": {"podFailurePolicy": {"rules": rules}}})
    assert _causes(r)["spec.podFailurePolicy"] == (
        "Invalid value: batch.PodFailurePolicy{Rules:[]batch.PodFailurePolicyRule{batch.PodFailurePolicyRule{"
        f'Action:"FailJob", OnExitCodes:(*batch.PodFailurePolicyOnExitCodesRequirement)({ADDR}), '
        "OnPodConditions:[]batch.PodFailurePolicyOnPodConditionsPattern(nil)}, batch.PodFailurePolicyRule{"
        'Action:"Ignore", OnExitCodes:(*batch.PodFailurePolicyOnExitCodesRequirement)(nil), '
        "OnPodConditions:[]batch.PodFailurePolicyOnPodConditionsPattern{batch.PodFailurePolicyOnPodConditionsPattern{"
        'Type:"DisruptionTarget", Status:"True"}}}}}: field is immutable')
