"""API Priority and Fairness with work estimates (flowcontrol/workestimate.py) and the queue and request dumps,
over HTTP: a LIST of a resource with many stored objects takes several seats, so a level with a seat free refuses
it (Reject) or queues it (Queue) where a one-seat request runs; a wide request waiting holds back the narrow ones
behind it; `dump_queues` and `dump_requests` show the seats, the work and the requests in upstream's layout.

Seats are held by POSTs whose body is not all sent (`_Held`, as in test_http_priority_fairness.py). The server has
9 seats (`--max-requests-inflight 9`), shared by two levels without borrowing: `t-two` (Reject, 2 seats) and
`t-seven` (Queue, one queue, 7 seats, so a request may take ceil(7 × 0.15) = 2 of them)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded

from .test_http_priority_fairness import ALICE, FS_HEADER, GV, PL_HEADER, _admin, _Held, _until_level

DUMP_QUEUES = "/debug/api_priority_and_fairness/dump_queues"
DUMP_REQUESTS = "/debug/api_priority_and_fairness/dump_requests"
CONFIGMAPS = 150  # 2 seats for a LIST of every configmap (one seat per 100 objects)


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    users = tmp_path_factory.mktemp("apfwork") / "users.csv"
    users.write_text('alice-token,alice,1,"dev"\n')
    server = start_embedded(authorization="rbac", users_file=str(users), flavor="bare", max_requests_inflight=9,
                            max_mutating_requests_inflight=0)
    admin = {"Authorization": f"Bearer {server.token}"}
    post = requests.Session()
    binding = {"metadata": {"name": "alice-admin"}, "subjects": [{"kind": "User", "name": "alice"}],
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"}}
    assert post.post(server.url + "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", json=binding,
                     headers=admin).status_code == 201
    for name, shares, response in (("t-two", 200_000, {"type": "Reject"}),
                                   ("t-seven", 700_000, {"type": "Queue", "queuing": {
                                       "queues": 1, "handSize": 1, "queueLengthLimit": 10}})):
        assert post.post(server.url + "/api/v1/namespaces", json={"metadata": {"name": name}},
                         headers=admin).status_code == 201
        pl = {"metadata": {"name": name}, "spec": {"type": "Limited", "limited": {
            "nominalConcurrencyShares": shares, "borrowingLimitPercent": 0, "limitResponse": response}}}
        assert post.post(server.url + GV + "/prioritylevelconfigurations", json=pl, headers=admin).status_code == 201
        rule = {"subjects": [{"kind": "User", "user": {"name": "alice"}}],
                "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": [name]}]}
        fs = {"metadata": {"name": name}, "spec": {"priorityLevelConfiguration": {"name": name},
                                                   "matchingPrecedence": 100, "rules": [rule]}}
        assert post.post(server.url + GV + "/flowschemas", json=fs, headers=admin).status_code == 201
    for i in range(CONFIGMAPS):
        assert post.post(server.url + "/api/v1/namespaces/t-two/configmaps", json={"metadata": {"name": f"cm-{i}"}},
                         headers=admin).status_code == 201
    yield server
    server.stop()


def _rows(text: str) -> list[dict[str, str]]:
    lines = text.splitlines()
    header = [c.strip() for c in lines[0].split(",")]
    return [dict(zip(header, (c.strip() for c in line.split(",")))) for line in lines[1:]]


def _held(srv: RunningServer, ns: str, n: int) -> list[_Held]:
    held = [_Held(srv, f"/api/v1/namespaces/{ns}/configmaps") for _ in range(n)]
    _until_level(srv, ns, "ExecutingRequests", str(n))
    return held


def test_a_wide_list_needs_its_seats_in_a_reject_level(srv):
    base = srv.url + "/api/v1/namespaces/t-two"
    held = _held(srv, "t-two", 1)  # one of the two seats
    try:
        assert requests.get(base + "/configmaps/cm-0", headers=ALICE).status_code == 200  # a GET: one seat
        assert requests.get(base + "/secrets", headers=ALICE).status_code == 200  # few stored: one seat
        assert requests.get(base + "/configmaps", params={"fieldSelector": "metadata.name=cm-1"},
                            headers=ALICE).status_code == 200  # a list by name is a get
        r = requests.get(base + "/configmaps", headers=ALICE)  # ~150 stored configmaps: two seats
        assert r.status_code == 429 and r.text == "Too many requests, please try again later.\n"
        assert requests.get(base + "/configmaps", params={"limit": "10", "continue": "x"},
                            headers=ALICE).status_code != 429  # from etcd, 2 × 10 objects: one seat
    finally:
        assert held[0].finish() == 201
    r = requests.get(base + "/configmaps", headers=ALICE)
    assert r.status_code == 200 and len(r.json()["items"]) >= CONFIGMAPS


def test_a_wide_list_waits_in_its_queue_and_holds_back_the_narrow(srv):
    cms = srv.url + "/api/v1/configmaps"
    held = _held(srv, "t-seven", 6)  # one seat of seven free
    with ThreadPoolExecutor(2) as pool:
        try:
            wide = pool.submit(requests.get, srv.url + "/api/v1/namespaces/t-seven/configmaps", headers=ALICE,
                               params={"resourceVersion": "0"})  # from the cache: every configmap, two seats
            _until_level(srv, "t-seven", "WaitingRequests", "1")
            narrow = pool.submit(requests.get, srv.url + "/api/v1/namespaces/t-seven/configmaps/x", headers=ALICE)
            _until_level(srv, "t-seven", "WaitingRequests", "2")  # a seat is free, but the wide one is first
            queue = next(r for r in _rows(requests.get(srv.url + DUMP_QUEUES, headers=_admin(srv)).text)
                         if r["PriorityLevelName"] == "t-seven")
            assert queue == {"PriorityLevelName": "t-seven", "Index": "0", "PendingRequests": "2",
                             "ExecutingRequests": "6", "SeatsInUse": "6", "NextDispatchR": queue["NextDispatchR"],
                             "InitialSeatsSum": "3", "MaxSeatsSum": "3", "TotalWorkSum": "0.00900000ss"}
            rows = [r for r in _rows(requests.get(srv.url + DUMP_REQUESTS, headers=_admin(srv)).text)
                    if r["PriorityLevelName"] == "t-seven"]
            waiting = [r for r in rows if r["RequestIndexInQueue"] != "-1"]
            assert [(r["RequestIndexInQueue"], r["InitialSeats"], r["StartTime"]) for r in waiting] == [
                ("0", "2", "0001-01-01T00:00:00Z"), ("1", "1", "0001-01-01T00:00:00Z")]
            assert sum(1 for r in rows if r["RequestIndexInQueue"] == "-1" and r["QueueIndex"] == "0") == 6
        finally:
            held[0].finish()
            assert wide.result(timeout=30).status_code == 200  # two seats free: the wide one first
            held[1].finish()
            assert narrow.result(timeout=30).status_code == 404
            for h in held[2:]:
                h.finish()
    assert requests.get(cms, headers=_admin(srv)).status_code == 200


def test_dump_requests_details_and_the_dumps_headers(srv):
    held = _held(srv, "t-two", 1)
    try:
        plain = requests.get(srv.url + DUMP_REQUESTS, headers=_admin(srv))
        detailed = requests.get(srv.url + DUMP_REQUESTS, params={"includeRequestDetails": "1"},
                                headers=_admin(srv))
    finally:
        assert held[0].finish() == 201
    for r in (plain, detailed, requests.get(srv.url + DUMP_QUEUES, headers=_admin(srv))):
        assert r.status_code == 200 and r.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert r.headers[FS_HEADER] and r.headers[PL_HEADER]  # classified (exempt) like any request
    assert plain.text.splitlines()[0].split() == [
        "PriorityLevelName,", "FlowSchemaName,", "QueueIndex,", "RequestIndexInQueue,", "FlowDistingsher,",
        "ArriveTime,", "InitialSeats,", "FinalSeats,", "AdditionalLatency,", "StartTime"]
    row = next(r for r in _rows(detailed.text) if r["PriorityLevelName"] == "t-two")
    assert {k: v for k, v in row.items() if k not in ("ArriveTime", "StartTime")} == {
        "PriorityLevelName": "t-two", "FlowSchemaName": "t-two", "QueueIndex": "-1", "RequestIndexInQueue": "-1",
        "FlowDistingsher": "", "InitialSeats": "1", "FinalSeats": "0", "AdditionalLatency": "0s",
        "UserName": "alice", "Verb": "create", "APIPath": "/api/v1/namespaces/t-two/configmaps",
        "Namespace": "t-two", "Name": "", "APIVersion": "v1", "Resource": "configmaps", "SubResource": ""}
    assert row["ArriveTime"].endswith("Z") and row["StartTime"] >= row["ArriveTime"]
    own = next(r for r in _rows(detailed.text) if r["APIPath"] == "/debug/api_priority_and_fairness/dump_requests")
    assert (own["PriorityLevelName"], own["QueueIndex"], own["Verb"]) == ("exempt", "-1", "get")
    header = plain.text.splitlines()[0]
    assert header.startswith("PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue, ")
    queues = requests.get(srv.url + DUMP_QUEUES, headers=_admin(srv)).text
    assert queues.splitlines()[0].split() == [
        "PriorityLevelName,", "Index,", "PendingRequests,", "ExecutingRequests,", "SeatsInUse,", "NextDispatchR,",
        "InitialSeatsSum,", "MaxSeatsSum,", "TotalWorkSum"]
    assert all(r["PriorityLevelName"] not in ("t-two", "exempt") for r in _rows(queues))  # no queues


def test_a_write_many_watches_see_takes_more_seats(srv):
    """`mutatingWorkEstimator`: 20 watches of the configmaps in t-two, so a create there takes 1 seat to run and
    ceil(20 / 10) = 2 for 5 ms after; both are reserved from the start, so t-two's two seats are taken. (Last in
    this module: its seats linger 5 ms after it ends.)"""
    from contextlib import ExitStack

    from .conftest import WatchReader

    base = srv.url + "/api/v1/namespaces/t-two/configmaps"
    with ExitStack() as stack:
        watches = [stack.enter_context(WatchReader(base, {"timeoutSeconds": "30"}, _admin(srv)))
                   for _ in range(20)]
        assert all(w.status == 200 for w in watches)
        held = _held(srv, "t-two", 1)
        try:
            row = next(r for r in _rows(requests.get(srv.url + DUMP_REQUESTS, headers=_admin(srv)).text)
                       if r["PriorityLevelName"] == "t-two")
            assert (row["InitialSeats"], row["FinalSeats"], row["AdditionalLatency"]) == ("1", "2", "5ms")
            assert requests.get(base + "/cm-0", headers=ALICE).status_code == 429  # no seat left for a GET
        finally:
            assert held[0].finish() == 201
