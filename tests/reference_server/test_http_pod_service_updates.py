"""What an update may change in a Pod (`ValidatePodUpdate`) or a Service (`ValidateServiceUpdate`), with
upstream's 422 texts, on both storage backends (registry/pod_update.py, registry/service.py)."""
from __future__ import annotations

import json

import pytest

from .conftest import status_of

MERGE = {"Content-Type": "application/merge-patch+json"}
STRATEGIC = {"Content-Type": "application/strategic-merge-patch+json"}
POD = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
NOT_OTHER = ("pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
             "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
             "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n")


@pytest.fixture
def pod(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=POD)
    assert r.status_code == 201, r.text
    return f"{url}/api/v1/namespaces/{ns}/pods/p"


def _invalid(r, name, kind="Pod"):
    assert r.status_code == 422, r.text
    body = status_of(r)
    assert body["reason"] == "Invalid" and body["details"]["kind"] == kind and body["details"]["name"] == name
    return body


def test_pod_updates_that_are_allowed(http, pod):
    r = http.patch(pod, data=json.dumps({"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}}),
                   headers=STRATEGIC)
    assert r.status_code == 200 and r.json()["spec"]["containers"][0]["image"] == "nginx:2"
    r = http.patch(pod, data=json.dumps({"spec": {"activeDeadlineSeconds": 30}}), headers=MERGE)
    assert r.status_code == 200 and r.json()["spec"]["activeDeadlineSeconds"] == 30
    r = http.patch(pod, data=json.dumps({"spec": {"activeDeadlineSeconds": 10}}), headers=MERGE)
    assert r.status_code == 200
    tolerations = r.json()["spec"]["tolerations"] + [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]
    r = http.patch(pod, data=json.dumps({"spec": {"tolerations": tolerations}}), headers=MERGE)
    assert r.status_code == 200 and len(r.json()["spec"]["tolerations"]) == 3
    r = http.patch(pod, data=json.dumps({"metadata": {"labels": {"a": "b"}}}), headers=MERGE)
    assert r.status_code == 200
    r = http.put(pod, json=r.json())  # the object as read back: nothing changes
    assert r.status_code == 200, r.text


def test_pod_update_of_another_field_is_forbidden_with_upstreams_message(http, pod):
    r = http.patch(pod, data=json.dumps({"spec": {"restartPolicy": "Never"}}), headers=MERGE)
    body = _invalid(r, "p")
    assert body["message"].startswith('Pod "p" is invalid: spec: Forbidden: ' + NOT_OTHER)
    assert body["details"]["causes"][0]["field"] == "spec"
    assert body["details"]["causes"][0]["reason"] == "FieldValueForbidden"
    assert "RestartPolicy" in body["message"]
    assert http.get(pod).json()["spec"]["restartPolicy"] == "Always"


@pytest.mark.parametrize("patch, message", [
    ({"spec": {"containers": [{"name": "c", "image": "nginx"}, {"name": "d", "image": "x"}]}},
     'Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers'),
    ({"spec": {"tolerations": [{"key": "x", "operator": "Exists"}]}},
     'Pod "p" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its '
     "tolerationSeconds"),
    # ValidatePodUpdate: validatePodMetadataAndSpec's range (from 1), then the update rule's (from 0)
    ({"spec": {"activeDeadlineSeconds": -1}},
     'Pod "p" is invalid: [spec.activeDeadlineSeconds: Invalid value: -1: must be between 1 and 2147483647, '
     'inclusive, spec.activeDeadlineSeconds: Invalid value: -1: must be between 0 and 2147483647, inclusive]'),
])
def test_pod_update_errors(http, pod, patch, message):
    r = http.patch(pod, data=json.dumps(patch), headers=MERGE)
    assert _invalid(r, "p")["message"] == message


def test_pod_active_deadline_may_only_decrease(http, pod):
    assert http.patch(pod, data=json.dumps({"spec": {"activeDeadlineSeconds": 30}}), headers=MERGE).status_code == 200
    r = http.patch(pod, data=json.dumps({"spec": {"activeDeadlineSeconds": 60}}), headers=MERGE)
    assert _invalid(r, "p")["message"] == ('Pod "p" is invalid: spec.activeDeadlineSeconds: Invalid value: 60: must '
                                           "be less than or equal to previous value")
    r = http.patch(pod, data=json.dumps({"spec": {"activeDeadlineSeconds": None}}), headers=MERGE)
    assert _invalid(r, "p")["message"] == ('Pod "p" is invalid: spec.activeDeadlineSeconds: Invalid value: "null": '
                                           "must not update from a positive integer to nil value")


@pytest.fixture
def service(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(f"{url}/api/v1/namespaces/{ns}/services", json={"metadata": {"name": "s"},
                                                                  "spec": {"ports": [{"port": 80}]}})
    assert r.status_code == 201, r.text
    return f"{url}/api/v1/namespaces/{ns}/services/s", r.json()


@pytest.mark.parametrize("spec", [{"clusterIP": "10.96.0.99"}, {"clusterIPs": ["10.96.0.99"]},
                                  {"clusterIP": "10.96.0.99", "clusterIPs": ["10.96.0.99"]}])
def test_service_cluster_ip_is_immutable(http, service, spec):
    path, svc = service
    r = http.patch(path, data=json.dumps({"spec": spec}), headers=MERGE)
    assert _invalid(r, "s", "Service")["message"] == ('Service "s" is invalid: spec.clusterIPs[0]: Invalid value: '
                                                      '[]string{"10.96.0.99"}: may not change once set')
    assert http.get(path).json()["spec"]["clusterIP"] == svc["spec"]["clusterIP"]


def test_service_ip_families_are_immutable(http, service):
    path, _ = service
    r = http.patch(path, data=json.dumps({"spec": {"ipFamilies": ["IPv6"]}}), headers=MERGE)
    assert _invalid(r, "s", "Service")["message"] == ('Service "s" is invalid: spec.ipFamilies[0]: Invalid value: '
                                                      '[]core.IPFamily{"IPv6"}: may not change once set')


def test_service_updates_that_are_allowed(http, service):
    path, svc = service
    ip = svc["spec"]["clusterIP"]
    r = http.patch(path, data=json.dumps({"spec": {"ports": [{"port": 81}]}}), headers=MERGE)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["ports"] == [{"port": 81, "protocol": "TCP", "targetPort": 81}]
    assert r.json()["spec"]["clusterIP"] == ip
    r = http.patch(path, data=json.dumps({"spec": {"clusterIP": None, "clusterIPs": None}}), headers=MERGE)
    assert r.status_code == 200 and r.json()["spec"]["clusterIPs"] == [ip]  # omitted: kept
    r = http.patch(path, data=json.dumps({"spec": {"type": "NodePort"}}), headers=MERGE)
    assert r.status_code == 200 and 30000 <= r.json()["spec"]["ports"][0]["nodePort"] <= 32767
    r = http.patch(path, data=json.dumps({"spec": {"type": "ExternalName", "externalName": "x.example.com"}}),
                   headers=MERGE)
    assert r.status_code == 200, r.text
    assert "clusterIP" not in r.json()["spec"] and "nodePort" not in r.json()["spec"]["ports"][0]
