"""flowcontrol.apiserver.k8s.io/v1 (registry/flowcontrol.py, controller/apf_config.py, http/priority_fairness.py):
the kinds with upstream's defaults, validation and strategies, the bootstrap configuration every kube-apiserver
makes and keeps, each FlowSchema's Dangling condition, and the X-Kubernetes-PF-* headers on the answers."""
from __future__ import annotations

import copy
from typing import Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded
from conformance.reference_server.registry.flowcontrol_bootstrap import (
    MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS)
from tests.reference_server.ownserver import own_server

from .conftest import WatchReader, status_of, unique

GV = "/apis/flowcontrol.apiserver.k8s.io/v1"
FS, PL = f"{GV}/flowschemas", f"{GV}/prioritylevelconfigurations"
TOKEN = "flowcontrol-admin-token"
FS_HEADER, PL_HEADER = "X-Kubernetes-PF-FlowSchema-UID", "X-Kubernetes-PF-PriorityLevel-UID"
ALL = {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": True, "namespaces": ["*"]}


own = own_server("A server of this module's own: these tests delete and change the bootstrap objects.",
                 flavor="bare", token=TOKEN)


@pytest.fixture(scope="module")
def admin() -> Iterator[requests.Session]:
    s = requests.Session()
    s.headers["Authorization"] = f"Bearer {TOKEN}"
    yield s
    s.close()


def _fs(name: str, pl: str = "global-default", **spec: object) -> dict:
    return {"metadata": {"name": name}, "spec": {"priorityLevelConfiguration": {"name": pl}, **spec}}


def _until(url: str, path: str, name: str, pred, what: str, headers: dict) -> dict:
    """The object once `pred` holds (a watch on it, from the version just read)."""
    r = requests.get(f"{url}{path}/{name}", headers=headers)
    if r.status_code == 200 and pred(r.json()):
        return r.json()
    rv = requests.get(f"{url}{path}", headers=headers).json()["metadata"]["resourceVersion"]
    with WatchReader(f"{url}{path}", {"fieldSelector": f"metadata.name={name}", "resourceVersion": rv},
                     headers) as w:
        events = w.until(lambda e: e["type"] in ("ADDED", "MODIFIED") and pred(e["object"]), 10, what)
    return events[-1]["object"]


def _dangling(obj: dict) -> dict | None:
    return next((c for c in obj.get("status", {}).get("conditions", []) if c["type"] == "Dangling"), None)


def test_served_on_every_backend(http, url):
    """CRUD, /status and the status reset on the shared servers (memory and etcd)."""
    name = unique("fs")
    r = http.post(url + FS, json={**_fs(name), "status": {"conditions": [{"type": "X", "status": "True"}]}})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["apiVersion"] == "flowcontrol.apiserver.k8s.io/v1" and body["kind"] == "FlowSchema"
    assert body["spec"]["matchingPrecedence"] == 1000 and body["metadata"]["generation"] == 1
    assert body["status"] == {} and "namespace" not in body["metadata"]
    status = {"conditions": [{"type": "Dangling", "status": "False", "reason": "Found", "message": "m"}]}
    current = http.get(f"{url}{FS}/{name}").json()
    r = http.put(f"{url}{FS}/{name}/status", json={**current, "spec": {"matchingPrecedence": 5}, "status": status})
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["matchingPrecedence"] == 1000  # /status keeps the spec
    unconditional = {**r.json(), "metadata": {"name": name}}  # the consumer may rewrite the condition meanwhile
    r = http.put(f"{url}{FS}/{name}", json={**unconditional, "spec": {**r.json()["spec"], "matchingPrecedence": 7},
                                            "status": {}})
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["generation"] == 2 and r.json()["spec"]["matchingPrecedence"] == 7
    assert _dangling(r.json())["status"] == "False"  # the main resource keeps the status
    assert http.delete(f"{url}{FS}/{name}").status_code == 200
    assert http.get(f"{url}{FS}/{name}").status_code == 404


def test_bootstrap_objects(own, admin):
    """Every bootstrap object, with its annotation and upstream's spec; every schema's level exists."""
    for path, objects in ((PL, MANDATORY_PRIORITY_LEVELS + SUGGESTED_PRIORITY_LEVELS),
                          (FS, MANDATORY_FLOW_SCHEMAS + SUGGESTED_FLOW_SCHEMAS)):
        items = {i["metadata"]["name"]: i for i in admin.get(own.url + path).json()["items"]}
        assert sorted(items) == sorted(o["metadata"]["name"] for o in objects)
        for o in objects:
            got = items[o["metadata"]["name"]]
            assert got["spec"] == o["spec"], o["metadata"]["name"]
            assert got["metadata"]["annotations"] == {"apf.kubernetes.io/autoupdate-spec": "true"}
    assert sorted(i["metadata"]["name"] for i in admin.get(own.url + FS).json()["items"]) == [
        "catch-all", "endpoint-controller", "exempt", "global-default", "kube-controller-manager", "kube-scheduler",
        "kube-system-service-accounts", "probes", "service-accounts", "system-leader-election", "system-node-high",
        "system-nodes", "workload-leader-election"]
    catch_all = _until(own.url, FS, "catch-all", _dangling, "Dangling condition", dict(admin.headers))
    assert _dangling(catch_all) | {"lastTransitionTime": ""} == {
        "type": "Dangling", "status": "False", "reason": "Found", "lastTransitionTime": "",
        "message": 'This FlowSchema references the PriorityLevelConfiguration object named "catch-all" and it exists'}
    exempt = admin.get(f"{own.url}{PL}/exempt").json()
    assert exempt["spec"] == {"type": "Exempt", "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0}}


def test_defaults(own, admin):
    name = unique("pl")
    r = admin.post(own.url + PL, json={"metadata": {"name": name}, "spec": {
        "type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {}}}}})
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["limited"] == {"nominalConcurrencyShares": 30, "lendablePercent": 0, "limitResponse": {
        "type": "Queue", "queuing": {"handSize": 8, "queues": 64, "queueLengthLimit": 50}}}
    r = admin.post(own.url + PL, json={"metadata": {"name": unique("pl")}, "spec": {
        "type": "Limited", "limited": {"nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}}}})
    assert r.status_code == 201 and r.json()["spec"]["limited"]["nominalConcurrencyShares"] == 0  # v1: zero allowed
    assert admin.delete(f"{own.url}{PL}/{name}").status_code == 200


FS_CASES = [
    (_fs("x", matchingPrecedence=1, distinguisherMethod={"type": "ByVerb"}),
     "[spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1, "
     "spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:\"ByVerb\"}: "
     "supported values: \"ByNamespace\", \"ByUser\"]"),
    ({"metadata": {"name": "x"}, "spec": {"matchingPrecedence": 10001}},
     "[spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000, "
     "spec.priorityLevelConfiguration.name: Required value: must reference a priority level]"),
    (_fs("x", rules=[{"subjects": [{"kind": "User"}]}]),
     "[spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User', "
     "spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty]"),
    (_fs("x", rules=[{"subjects": [{"kind": "ServiceAccount", "serviceAccount": {"name": "*"},
                                    "group": {"name": "g"}}],
                      "resourceRules": [{"verbs": ["get", "*"], "apiGroups": ["*", ""], "resources": ["pods"],
                                         "namespaces": ["Bad_NS"]}],
                      "nonResourceRules": [{"verbs": ["fetch"], "nonResourceURLs": ["/a*"]}]}]),
     "[spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service "
     "account, spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group', "
     "spec.rules[0].resourceRules[0].verbs: Invalid value: []string{\"get\", \"*\"}: if '*' is present, must not "
     "specify other verbs, spec.rules[0].resourceRules[0].apiGroups: Invalid value: []string{\"*\", \"\"}: if '*' is "
     "present, must not specify other api groups, spec.rules[0].resourceRules[0].namespaces[0]: Invalid value: "
     "\"Bad_NS\": each member of this list must be '*' or a DNS-1123 label; a lowercase RFC 1123 label must consist "
     "of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
     "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), "
     "spec.rules[0].nonResourceRules[0].verbs: Unsupported value: []string{\"fetch\"}: supported values: "
     "\"create\", \"delete\", \"deletecollection\", \"get\", \"list\", \"patch\", \"proxy\", \"update\", \"watch\", "
     "spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: \"/a*\": wildcard can only do suffix "
     "matching]"),
]
PL_CASES = [
    ({"metadata": {"name": "x"}, "spec": {"type": "Exempt", "limited": {}}},
     "[spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt', "
     "spec.limited: Forbidden: must be nil if the type is not Limited]"),
    ({"metadata": {"name": "x"}, "spec": {"type": "Limited"}},
     "spec.limited: Required value: must not be empty when type is Limited"),
    ({"metadata": {"name": "x"}, "spec": {"type": "Limited", "limited": {
        "nominalConcurrencyShares": -1, "lendablePercent": 101,
        "limitResponse": {"type": "Queue", "queuing": {"queues": 128, "handSize": 129, "queueLengthLimit": -1}}}}},
     "[spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer, "
     "spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be positive, "
     "spec.limited.limitResponse.queuing.handSize: Invalid value: 129: should not be greater than queues (128), "
     "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive]"),
    ({"metadata": {"name": "x"}, "spec": {"type": "Limited", "limited": {
        "limitResponse": {"type": "Queue", "queuing": {"queues": 1024, "handSize": 7}}}}},
     "spec.limited.limitResponse.queuing.handSize: Invalid value: 7: required entropy bits of deckSize 1024 and "
     "handSize 7 should not be greater than 60"),
    ({"metadata": {"name": "x"}, "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Drop"}}}},
     "spec.limited.limitResponse.type: Unsupported value: \"Drop\": supported values: \"Queue\", \"Reject\""),
]


@pytest.mark.parametrize("path, body, message", [(FS, b, m) for b, m in FS_CASES] + [(PL, b, m) for b, m in PL_CASES])
def test_validation(own, admin, path, body, message):
    r = admin.post(own.url + path, json=body)
    kind = "FlowSchema" if path == FS else "PriorityLevelConfiguration"
    assert status_of(r)["message"] == f'{kind}.flowcontrol.apiserver.k8s.io "x" is invalid: {message}'
    assert r.json()["reason"] == "Invalid" and r.status_code == 422


def test_mandatory_specs_are_fixed(own, admin):
    """catch-all's spec may not change at all; the exempt level's only in `spec.exempt`."""
    catch_all = admin.get(f"{own.url}{PL}/catch-all").json()
    changed = copy.deepcopy(catch_all)
    changed["spec"]["limited"]["nominalConcurrencyShares"] = 6
    msg = status_of(admin.put(f"{own.url}{PL}/catch-all", json=changed))["message"]
    assert msg.startswith('PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "catch-all" is invalid: spec: '
                          "Invalid value: ")
    assert msg.endswith(": spec of 'catch-all' must equal the fixed value")
    exempt = admin.get(f"{own.url}{PL}/exempt").json()
    exempt["spec"]["exempt"]["nominalConcurrencyShares"] = 5
    r = admin.put(f"{own.url}{PL}/exempt", json=exempt)
    assert r.status_code == 200, r.text
    assert admin.get(f"{own.url}{PL}/exempt").json()["spec"]["exempt"]["nominalConcurrencyShares"] == 5  # kept
    schema = admin.get(f"{own.url}{FS}/exempt").json()
    schema["spec"]["matchingPrecedence"] = 3
    assert status_of(admin.put(f"{own.url}{FS}/exempt", json=schema))["message"].endswith(
        ": spec of 'exempt' must equal the fixed value")


def test_deleted_bootstrap_objects_come_back(own, admin):
    """The config producer re-creates every missing bootstrap object (a new object: new uid)."""
    headers = dict(admin.headers)
    for path, name in ((FS, "catch-all"), (PL, "global-default")):
        uid = admin.get(f"{own.url}{path}/{name}").json()["metadata"]["uid"]
        assert admin.delete(f"{own.url}{path}/{name}").status_code == 200
        back = _until(own.url, path, name, lambda o, uid=uid: o["metadata"]["uid"] != uid, f"{name} re-created",
                      headers)
        assert back["metadata"]["annotations"] == {"apf.kubernetes.io/autoupdate-spec": "true"}


def test_suggested_spec_restored_unless_autoupdate_false(own, admin):
    headers = dict(admin.headers)
    level = admin.get(f"{own.url}{PL}/workload-low").json()
    level["spec"]["limited"]["nominalConcurrencyShares"] = 7
    assert admin.put(f"{own.url}{PL}/workload-low", json=level).status_code == 200
    restored = _until(own.url, PL, "workload-low", lambda o: o["spec"]["limited"]["nominalConcurrencyShares"] == 100,
                      "workload-low restored", headers)
    assert restored["metadata"]["generation"] == 3
    restored["spec"]["limited"]["nominalConcurrencyShares"] = 7
    restored["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"] = "false"
    r = admin.put(f"{own.url}{PL}/workload-low", json=restored)
    assert r.status_code == 200, r.text
    # an unrelated change later makes the producer look again: the level keeps the admin's value
    name = unique("pl")
    assert admin.post(own.url + PL, json={"metadata": {"name": name}, "spec": {
        "type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}}).status_code == 201
    _until(own.url, PL, name, lambda o: True, "new level", headers)
    assert admin.get(f"{own.url}{PL}/workload-low").json()["spec"]["limited"]["nominalConcurrencyShares"] == 7
    assert admin.delete(f"{own.url}{PL}/{name}").status_code == 200


def test_dangling_condition_follows_the_priority_level(own, admin):
    headers = dict(admin.headers)
    fs, pl = unique("fs"), unique("pl")
    assert admin.post(own.url + FS, json=_fs(fs, pl, rules=[{"subjects": [{"kind": "User", "user": {"name": "u"}}],
                                                             "nonResourceRules": [{"verbs": ["*"],
                                                                                   "nonResourceURLs": ["*"]}]}])
                      ).status_code == 201
    obj = _until(own.url, FS, fs, lambda o: (_dangling(o) or {}).get("status") == "True", "Dangling True", headers)
    assert _dangling(obj)["reason"] == "NotFound"
    assert _dangling(obj)["message"] == (f'This FlowSchema references the PriorityLevelConfiguration object named '
                                         f'"{pl}" but there is no such object')
    assert admin.post(own.url + PL, json={"metadata": {"name": pl}, "spec": {
        "type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}}).status_code == 201
    obj = _until(own.url, FS, fs, lambda o: (_dangling(o) or {}).get("status") == "False", "Dangling False", headers)
    assert _dangling(obj)["reason"] == "Found"
    rows = admin.get(own.url + FS, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}).json()["rows"]
    assert [r["cells"] for r in rows if r["cells"][0] == fs][0][1:4] + [r["cells"] for r in rows
                                                                        if r["cells"][0] == fs][0][5:] == [
        pl, 1000, "<none>", "False"]
    for path, name in ((FS, fs), (PL, pl)):
        assert admin.delete(f"{own.url}{path}/{name}").status_code == 200


def _headers(r: requests.Response) -> tuple[str | None, str | None]:
    return r.headers.get(FS_HEADER), r.headers.get(PL_HEADER)


def _uids(own: RunningServer, admin: requests.Session, fs: str, pl: str) -> tuple[str, str]:
    return (admin.get(f"{own.url}{FS}/{fs}").json()["metadata"]["uid"],
            admin.get(f"{own.url}{PL}/{pl}").json()["metadata"]["uid"])


def test_headers(own, admin):
    """The chosen schema's and level's UIDs on every classified answer: the admin (system:masters) is exempt,
    an anonymous probe too, any other anonymous request is global-default's; errors and watches carry them; a 401
    and a long-running request that is no watch carry none."""
    exempt = _uids(own, admin, "exempt", "exempt")
    assert _headers(admin.get(own.url + "/api/v1/namespaces")) == exempt
    assert _headers(admin.get(own.url + "/api/v1/namespaces/nope")) == exempt  # a 404
    assert _headers(requests.get(own.url + "/readyz")) == _uids(own, admin, "probes", "exempt")
    anonymous = requests.get(own.url + "/version")
    assert anonymous.status_code == 401 and _headers(anonymous) == (None, None)
    assert _headers(requests.get(own.url + "/api/v1/namespaces", headers={"Authorization": "Bearer wrong"})) == (
        None, None)
    assert _headers(admin.get(own.url + "/api/v1/namespaces/default/pods/p/log")) == (None, None)
    with WatchReader(own.url + "/api/v1/namespaces", {"timeoutSeconds": "1"},
                     {"Authorization": f"Bearer {TOKEN}"}) as w:
        assert (w.headers.get(FS_HEADER), w.headers.get(PL_HEADER)) == exempt


def test_headers_follow_the_configuration(http, url):
    """Without a token every request is anonymous (global-default); a new schema of lower matchingPrecedence
    takes over at once and gives way again when deleted (the decision cache is dropped on every change)."""
    def uid(path: str, name: str) -> str:
        return http.get(f"{url}{path}/{name}").json()["metadata"]["uid"]
    before = _headers(http.get(url + "/api/v1/namespaces/default/configmaps"))
    assert before == (uid(FS, "global-default"), uid(PL, "global-default"))
    name = unique("fs")
    rule = {"subjects": [{"kind": "Group", "group": {"name": "system:unauthenticated"}}],
            "resourceRules": [{"verbs": ["list"], "apiGroups": [""], "resources": ["configmaps"],
                               "namespaces": ["default"]}]}
    r = http.post(url + FS, json=_fs(name, "workload-low", matchingPrecedence=3, rules=[rule]))
    assert r.status_code == 201, r.text
    after = _headers(http.get(url + "/api/v1/namespaces/default/configmaps"))
    assert after == (r.json()["metadata"]["uid"], uid(PL, "workload-low"))
    assert _headers(http.get(url + "/api/v1/namespaces/kube-system/configmaps")) == before  # other namespace
    assert http.delete(f"{url}{FS}/{name}").status_code == 200
    assert _headers(http.get(url + "/api/v1/namespaces/default/configmaps")) == before


@pytest.mark.parametrize("path", [f"{PL}/catch-all", f"{PL}/exempt", f"{FS}/system-leader-election"])
def test_protobuf_answers(own, admin, path):
    """Typed clients ask for protobuf first: the same object (zero shares and percents kept)."""
    from conformance.reference_server.wire import protobuf

    r = admin.get(own.url + path, headers={"Accept": "application/vnd.kubernetes.protobuf, application/json"})
    assert r.headers["Content-Type"] == "application/vnd.kubernetes.protobuf"
    assert protobuf.decode_response(r.content) == admin.get(own.url + path).json()


def test_headers_with_rbac(tmp_path):
    """With authentication and RBAC: a user's request is classified after authentication and impersonation and
    before authorization (a 403 carries the headers), a service account's by its namespace (kube-system's accounts:
    kube-system-service-accounts; others: service-accounts), an impersonated user as the impersonated one."""
    users = tmp_path / "users.csv"
    users.write_text('alice-token,alice,1,"dev"\nsa-token,system:serviceaccount:kube-system:bot,2,'
                     '"system:serviceaccounts,system:serviceaccounts:kube-system"\n'
                     'app-token,system:serviceaccount:apps:web,3,"system:serviceaccounts,system:serviceaccounts:apps"\n')
    srv = start_embedded(authorization="rbac", users_file=str(users), flavor="bare")
    try:
        admin = {"Authorization": f"Bearer {srv.token}"}

        def uids(fs: str, pl: str) -> tuple[str, str]:
            return (requests.get(f"{srv.url}{FS}/{fs}", headers=admin).json()["metadata"]["uid"],
                    requests.get(f"{srv.url}{PL}/{pl}", headers=admin).json()["metadata"]["uid"])

        def get(token: str, path: str = "/api/v1/namespaces/default/configmaps", **headers: str) -> requests.Response:
            return requests.get(srv.url + path, headers={"Authorization": f"Bearer {token}", **headers})

        r = get("alice-token")
        assert r.status_code == 403 and _headers(r) == uids("global-default", "global-default")
        assert _headers(get("sa-token")) == uids("kube-system-service-accounts", "workload-high")
        assert _headers(get("app-token")) == uids("service-accounts", "workload-low")
        assert _headers(get(srv.token, **{"Impersonate-User": "system:kube-scheduler"})) == uids("kube-scheduler",
                                                                                                 "workload-high")
        r = get("alice-token", **{"Impersonate-User": "bob"})  # impersonation refused: before the filter
        assert r.status_code == 403 and _headers(r) == (None, None)
        assert _headers(get("nobody-token")) == (None, None)  # 401
    finally:
        srv.stop()
