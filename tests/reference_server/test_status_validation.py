"""registry/status_validation.py: each kind's `Validate<Kind>StatusUpdate` (pkg/apis/{apps,batch,policy,core}/
validation), as a client meets it through `/status`: a 422 with upstream's paths and messages."""
from __future__ import annotations

import json

import pytest

from conformance.reference_server.registry.status_validation import (parse_ip_sloppy, status_defaults,
                                                                     validate_status_update)

from .conftest import status_of
from .test_http_subresources import MERGE, _make


def _msgs(kind, new_status, old_status=None, *, spec=None, old_spec=None):
    new = {"spec": spec or {}, "status": new_status}
    old = {"spec": old_spec if old_spec is not None else (spec or {}), "status": old_status or {}}
    status_defaults(kind, new)
    return [str(e) for e in validate_status_update(kind, new, old, [])]


def test_apps_counts():
    assert _msgs("Deployment", {"replicas": 1, "readyReplicas": 2, "availableReplicas": 3, "updatedReplicas": -1}) == [
        "status.updatedReplicas: Invalid value: -1: must be greater than or equal to 0",
        "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
        "status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas",
        "status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas"]
    assert _msgs("Deployment", {}, {"collisionCount": 2}) == [
        "status.collisionCount: Invalid value: 0: cannot be decremented"]
    assert _msgs("ReplicaSet", {"replicas": 1, "fullyLabeledReplicas": 2}) == [
        "status.fullyLabeledReplicas: Invalid value: 2: cannot be greater than status.replicas"]
    assert _msgs("StatefulSet", {"replicas": 2, "readyReplicas": 1, "availableReplicas": 2}) == [
        "status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas"]
    assert _msgs("DaemonSet", {"numberReady": -1, "collisionCount": 1}, {"collisionCount": 3}) == [
        "status.numberReady: Invalid value: -1: must be greater than or equal to 0",
        "status.collisionCount: Invalid value: 1: cannot be decremented"]
    assert _msgs("Deployment", {"replicas": 3, "readyReplicas": 2, "availableReplicas": 2, "updatedReplicas": 3}) == []


def test_job_pdb_counts():
    assert _msgs("Job", {"active": -1, "ready": -2, "uncountedTerminatedPods": {"succeeded": ["a", ""],
                                                                                 "failed": ["a"]}}) == [
        "status.active: Invalid value: -1: must be greater than or equal to 0",
        "status.ready: Invalid value: -2: must be greater than or equal to 0",
        'status.uncountedTerminatedPods.succeeded[1]: Invalid value: "": must not be empty',
        'status.uncountedTerminatedPods.failed[0]: Duplicate value: "a"']
    assert _msgs("PodDisruptionBudget", {"disruptionsAllowed": -1}) == [
        "status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0"]


def test_pod_status_rules():
    never = {"restartPolicy": "Never", "containers": [{"name": "c"}]}
    done = {"containerStatuses": [{"name": "c", "state": {"terminated": {"exitCode": 0}}}], "qosClass": "BestEffort"}
    again = {"containerStatuses": [{"name": "c", "state": {"running": {}}}], "qosClass": "BestEffort"}
    assert _msgs("Pod", again, done, spec=never) == [
        "status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"]
    assert _msgs("Pod", again, done, spec=never | {"restartPolicy": "Always"}) == []
    assert _msgs("Pod", {"qosClass": "Guaranteed", "conditions": [{"type": "Ready"}, {"type": "bad type"}],
                         "nominatedNodeName": "Node_1"}, {"qosClass": "BestEffort"})[:3] == [
        'metadata.conditions[1].Type: Invalid value: "bad type": name part must consist of alphanumeric characters, '
        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        'status.nominatedNodeName: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        'status.qosClass: Invalid value: "Guaranteed": field is immutable']


def test_pod_ips():
    assert _msgs("Pod", {"podIPs": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}]}) == [
        'status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.1"}, core.PodIP{IP:"10.0.0.2"}}: may specify '
        "no more than one IP for each IP family"]
    # field.Duplicate(path, podIP) / (path, hostIP): the internal struct, printed by `ErrorBody` as Go's `%#v`
    assert _msgs("Pod", {"podIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}, {"ip": "10.0.0.1"}]}) == [
        'status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.1"}, core.PodIP{IP:"fd00::1"}, '
        'core.PodIP{IP:"10.0.0.1"}}: may specify no more than one IP for each IP family',
        'status.podIPs[2]: Duplicate value: core.PodIP{IP:"10.0.0.1"}']
    assert _msgs("Pod", {"hostIP": "10.0.0.1", "hostIPs": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.1"}]}) == [
        'status.hostIPs[1]: Duplicate value: core.HostIP{IP:"10.0.0.1"}',
        'status.hostIPs: Invalid value: []core.HostIP{core.HostIP{IP:"10.0.0.1"}, core.HostIP{IP:"10.0.0.1"}}: may '
        "specify no more than one IP for each IP family"]
    # IsValidIPForLegacyField with StrictIPCIDRValidation off (1.33): legacy forms pass, to be warned of
    assert _msgs("Pod", {"podIP": "010.0.0.1"}) == []
    assert _msgs("Pod", {"hostIP": "::ffff:10.0.0.1", "hostIPs": [{"ip": "::ffff:10.0.0.1"}]}) == []
    assert _msgs("Pod", {"podIPs": [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}]}) == []
    assert _msgs("Pod", {"hostIPs": [{"ip": "nope"}]}) == [
        'status.hostIPs[0].ip: Invalid value: "nope": must be equal to `hostIP`',
        'status.hostIPs[0]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']
    converted = {"status": {"podIP": "10.0.0.9", "podIPs": [{"ip": "10.0.0.1"}]}}
    status_defaults("Pod", converted)  # Convert_v1_PodStatus_To_core_PodStatus: podIP is authoritative
    assert converted["status"] == {"podIP": "10.0.0.9", "podIPs": [{"ip": "10.0.0.9"}]}


def test_service_load_balancer_status():
    lb = {"type": "LoadBalancer"}
    assert _msgs("Service", {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}, spec={"type": "ClusterIP"}) == [
        "status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"]
    assert _msgs("Service", {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}, spec=lb) == []  # ipMode: VIP
    assert _msgs("Service", {"loadBalancer": {"ingress": [{"ip": "x", "ipMode": "Bad"}, {"ipMode": "VIP"},
                                                          {"hostname": "1.2.3.4"}]}}, spec=lb) == [
        'status.loadBalancer.ingress[0].ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or '
        "2001:db8::ffff)",
        'status.loadBalancer.ingress[0].ipMode: Unsupported value: "Bad": supported values: "Proxy", "VIP"',
        "status.loadBalancer.ingress[1].ipMode: Forbidden: may not be specified when `ip` is not set",
        'status.loadBalancer.ingress[2].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address']
    # an address already stored is not checked again (IsValidIPForLegacyField's validOldIPs)
    assert _msgs("Service", {"loadBalancer": {"ingress": [{"ip": "x", "ipMode": "VIP"}]}},
                 {"loadBalancer": {"ingress": [{"ip": "x"}]}}, spec=lb) == []


@pytest.mark.parametrize("text, ok", [("1.2.3.4", True), ("001.2.3.4", True), ("256.1.1.1", False), ("::1", True),
                                      ("fe80::1%eth0", False), ("1.2.3", False), ("", False)])
def test_parse_ip_sloppy(text, ok):
    assert (parse_ip_sloppy(text) is not None) is ok


def test_status_writes_answer_422(http, url, namespaces):
    """Through the API: PUT and PATCH on /status refuse what the kind's status validation refuses."""
    ns = namespaces.create()["metadata"]["name"]
    path, dep = _make(http, url, ns, "apps", "deployments")
    st = status_of(http.patch(f"{path}/status", data=json.dumps({"status": {"replicas": 1, "readyReplicas": 2}}),
                              headers=MERGE))
    assert st["code"] == 422 and st["reason"] == "Invalid"
    assert st["message"] == ('Deployment.apps "obj" is invalid: status.readyReplicas: Invalid value: 2: cannot be '
                             "greater than status.replicas")
    assert st["details"]["causes"] == [{"reason": "FieldValueInvalid", "message": "Invalid value: 2: cannot be "
                                        "greater than status.replicas", "field": "status.readyReplicas"}]
    path, svc = _make(http, url, ns, "", "services")
    svc["status"] = {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}
    st = status_of(http.put(f"{path}/status", json=svc))
    assert st["code"] == 422 and st["message"] == (
        'Service "obj" is invalid: status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is '
        "'LoadBalancer'")
    path, pod = _make(http, url, ns, "", "pods")
    r = http.patch(f"{path}/status", data=json.dumps({"status": {"podIP": "10.1.2.3"}}), headers=MERGE)
    assert r.status_code == 200 and r.json()["status"]["podIPs"] == [{"ip": "10.1.2.3"}], r.text
    st = status_of(http.patch(f"{path}/status", data=json.dumps({"status": {"podIP": "", "podIPs": [
        {"ip": "10.0.0.1"}, {"ip": "10.0.0.1"}]}}), headers=MERGE))
    assert st["code"] == 422 and st["message"] == (
        'Pod "obj" is invalid: [status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.1"}, '
        'core.PodIP{IP:"10.0.0.1"}}: may specify no more than one IP for each IP family, status.podIPs[1]: Duplicate '
        'value: core.PodIP{IP:"10.0.0.1"}]')
    assert st["details"]["causes"][1] == {"reason": "FieldValueDuplicate", "field": "status.podIPs[1]",
                                          "message": 'Duplicate value: core.PodIP{IP:"10.0.0.1"}'}


# ---- Job: validateJobStatus / ValidateJobStatusUpdate with 1.33's options ------------------------------------
T0, T1 = "2026-01-02T03:04:05Z", "2026-01-02T03:04:00Z"
COMPLETE, FAILED = {"type": "Complete", "status": "True"}, {"type": "Failed", "status": "True"}
TARGET, CRITERIA = {"type": "FailureTarget", "status": "True"}, {"type": "SuccessCriteriaMet", "status": "True"}


def test_job_terminal_conditions():
    started = {"startTime": T0}
    assert _msgs("Job", started | {"conditions": [COMPLETE, FAILED]}, started) == [
        "status.conditions: Invalid value: cannot set Complete=True and Failed=true conditions",
        "status.completionTime: Required value: completionTime is required for Complete jobs",
        "status.conditions: Invalid value: cannot set Failed=True condition without the FailureTarget=true condition",
        "status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true "
        "condition"]
    # what the Job controller writes: FailureTarget with Failed, SuccessCriteriaMet with Complete
    assert _msgs("Job", started | {"conditions": [TARGET, FAILED]}, started) == []
    assert _msgs("Job", started | {"conditions": [CRITERIA, COMPLETE], "completionTime": T0}, started) == []
    assert _msgs("Job", {"conditions": [TARGET, FAILED], "active": 2, "ready": 3,
                         "uncountedTerminatedPods": {"failed": ["u1"]}}, {"active": 2}) == [
        "status.active: Invalid value: 2: active>0 is invalid for finished job",
        "status.startTime: Required value: startTime is required for finished job",
        'status.uncountedTerminatedPods: Invalid value: batch.UncountedTerminatedPods{Succeeded:[]types.UID(nil), '
        'Failed:[]types.UID{"u1"}}: uncountedTerminatedPods needs to be empty for finished job',
        "status.ready: Invalid value: 3: cannot set more ready pods than active"]
    # a terminal condition never goes back; SuccessCriteriaMet neither
    assert _msgs("Job", {"conditions": [], "startTime": T0}, {"conditions": [TARGET, FAILED], "startTime": T0}) == [
        "status.conditions: Invalid value: cannot disable the terminal Failed=True condition",
        "status.conditions: Invalid value: cannot disable the terminal FailureTarget=True condition"]
    assert _msgs("Job", {"conditions": [CRITERIA, FAILED, TARGET]}, {"conditions": [CRITERIA]}) == [
        "status.startTime: Required value: startTime is required for finished job",
        "status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and Failed=true conditions",
        "status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"]


def test_job_times_and_counters():
    assert _msgs("Job", {"startTime": T0, "completionTime": T1, "failed": 1, "succeeded": 0},
                 {"startTime": T0, "failed": 2, "succeeded": 1}) == [
        "status.completionTime: Invalid value: 2026-01-02 03:04:00 +0000 UTC: cannot set completionTime when there "
        "is no Complete=True condition",
        "status.completionTime: Invalid value: 2026-01-02 03:04:00 +0000 UTC: completionTime cannot be set before "
        "startTime",
        "status.failed: Invalid value: 1: cannot decrease the failed counter",
        "status.succeeded: Invalid value: 0: cannot decrease the succeeded counter"]
    done = {"conditions": [CRITERIA, COMPLETE], "startTime": T1, "completionTime": T1}
    assert _msgs("Job", done | {"completionTime": T0}, done) == [
        "status.completionTime: Invalid value: 2026-01-02 03:04:05 +0000 UTC: completionTime cannot be mutated"]
    assert _msgs("Job", {}, {"startTime": T0}) == [
        "status.startTime: Required value: startTime cannot be removed for unsuspended job"]
    assert _msgs("Job", {}, {"startTime": T0}, spec={"suspend": True}) == []
    # rules about a field judge only a write that changes it: an odd status stays writable elsewhere
    odd = {"completionTime": T0, "active": 1, "ready": 2}
    assert _msgs("Job", odd | {"failed": 1}, odd) == []


def test_job_indexes():
    indexed = {"completionMode": "Indexed", "completions": 5, "parallelism": 5, "backoffLimitPerIndex": 1}
    assert _msgs("Job", {"completedIndexes": "1,3-2,7", "failedIndexes": "0-2"}, spec=indexed) == [
        'status.completedIndexes: Invalid value: "1,3-2,7": error parsing completedIndexes: non-increasing order, '
        "previous: 3, current: 2",
        'status.failedIndexes: Invalid value: "0-2": failedIndexes and completedIndexes overlap at index: 1']
    assert _msgs("Job", {"completedIndexes": "x"}, spec=indexed) == [
        'status.completedIndexes: Invalid value: "x": error parsing completedIndexes: cannot convert string to '
        'integer for index: "x"']
    assert _msgs("Job", {"completedIndexes": "0,9"}, spec=indexed) == [
        'status.completedIndexes: Invalid value: "0,9": error parsing completedIndexes: too large index: "9"']
    assert _msgs("Job", {"completedIndexes": "1", "failedIndexes": ""}, spec={"completions": 5}) == [
        'status.completedIndexes: Invalid value: "1": cannot set non-empty completedIndexes when non-indexed '
        "completion mode",
        'status.failedIndexes: Invalid value: "": cannot set non-null failedIndexes when backoffLimitPerIndex is null']
    # an Indexed Job with completions == parallelism may lose succeeded pods (it can be scaled down)
    assert _msgs("Job", {"succeeded": 1}, {"succeeded": 3}, spec=indexed) == []


def test_job_status_rules_answer_422(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    path, _ = _make(http, url, ns, "batch", "jobs")
    st = status_of(http.patch(f"{path}/status", data=json.dumps({"status": {"completedIndexes": "0"}}),
                              headers=MERGE))
    assert st["code"] == 422 and st["reason"] == "Invalid"
    assert st["message"] == ('Job.batch "obj" is invalid: status.completedIndexes: Invalid value: "0": cannot set '
                             "non-empty completedIndexes when non-indexed completion mode")
