"""API Priority and Fairness enforced (http/priority_fairness.py over flowcontrol/): a priority level of one seat
(`--max-requests-inflight 1 --max-mutating-requests-inflight 0`: every limited level gets one; with
`borrowingLimitPercent: 0` it borrows none), held by a request
whose body the test sends only when it chooses (the handler reads the body inside the seat, as upstream's does);
Reject answers 429 at once, Queue queues then dispatches, a full queue or a passed wait deadline answers 429,
a watch holds its seat only while it is set up, and the exempt admin is never limited."""
from __future__ import annotations

import socket
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded

from .conftest import WatchReader

GV = "/apis/flowcontrol.apiserver.k8s.io/v1"
FS_HEADER, PL_HEADER = "X-Kubernetes-PF-FlowSchema-UID", "X-Kubernetes-PF-PriorityLevel-UID"
DUMP = "/debug/api_priority_and_fairness/dump_priority_levels"
ALICE = {"Authorization": "Bearer alice-token"}
BOB = {"Authorization": "Bearer bob-token"}
_BODY = b'{"metadata": {"generateName": "held-"}}'


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    users = tmp_path_factory.mktemp("apf") / "users.csv"
    users.write_text('alice-token,alice,1,"dev"\nbob-token,bob,2,"dev"\n')  # bob: no RBAC binding
    server = start_embedded(authorization="rbac", users_file=str(users), flavor="bare", max_requests_inflight=1,
                            max_mutating_requests_inflight=0)
    admin = {"Authorization": f"Bearer {server.token}"}
    binding = {"metadata": {"name": "alice-admin"}, "subjects": [{"kind": "User", "name": "alice"}],
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"}}
    assert requests.post(server.url + "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", json=binding,
                         headers=admin).status_code == 201
    for ns in ("t-reject", "t-queue"):
        assert requests.post(server.url + "/api/v1/namespaces", json={"metadata": {"name": ns}},
                             headers=admin).status_code == 201
    for name, response, method in (("t-reject", {"type": "Reject"}, None),
                                   ("t-queue", {"type": "Queue", "queuing": {"queues": 1, "handSize": 1,
                                                                             "queueLengthLimit": 1}}, "ByUser")):
        pl = {"metadata": {"name": name}, "spec": {"type": "Limited", "limited": {
            "nominalConcurrencyShares": 1, "borrowingLimitPercent": 0, "limitResponse": response}}}  # 1 seat
        assert requests.post(server.url + GV + "/prioritylevelconfigurations", json=pl,
                             headers=admin).status_code == 201
        rule = {"subjects": [{"kind": "User", "user": {"name": "alice"}}, {"kind": "User", "user": {"name": "bob"}}],
                "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"],
                                   "namespaces": [name]}]}
        fs = {"metadata": {"name": name}, "spec": {"priorityLevelConfiguration": {"name": name},
                                                   "matchingPrecedence": 100, "rules": [rule]}}
        if method:
            fs["spec"]["distinguisherMethod"] = {"type": method}
        assert requests.post(server.url + GV + "/flowschemas", json=fs, headers=admin).status_code == 201
    yield server
    server.stop()


def _admin(srv: RunningServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {srv.token}"}


def _level(srv: RunningServer, name: str) -> dict[str, str]:
    """The level's row of the debug dump (column → value)."""
    lines = requests.get(srv.url + DUMP, headers=_admin(srv)).text.splitlines()
    header = [c.strip() for c in lines[0].split(",")]
    row = next(line for line in lines[1:] if line.split(",")[0] == name)
    return dict(zip(header, (c.strip() for c in row.split(","))))


def _until_level(srv: RunningServer, name: str, column: str, value: str, timeout: float = 10.0) -> None:
    """Poll the dump (each request is the pace: nothing else to watch) until the level's column reads value."""
    deadline = time.monotonic() + timeout
    row = _level(srv, name)
    while row[column] != value:
        assert time.monotonic() < deadline, f"{name}: {column} never became {value}; last seen {row}"
        row = _level(srv, name)


class _Held:
    """A POST whose body is not all sent: it holds its seat until `finish()`."""

    def __init__(self, srv: RunningServer, path: str, token: str = "alice-token"):
        u = urllib.parse.urlsplit(srv.url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=30)
        self.sock.sendall((f"POST {path} HTTP/1.1\r\nHost: {u.netloc}\r\nAuthorization: Bearer {token}\r\n"
                           f"Content-Type: application/json\r\nContent-Length: {len(_BODY)}\r\n\r\n").encode()
                          + _BODY[:-1])

    def finish(self) -> int:
        self.sock.sendall(_BODY[-1:])
        status = int(self.sock.recv(4096).split(b" ", 2)[1])
        self.sock.close()
        return status


def _uids(srv: RunningServer, name: str) -> tuple[str, str]:
    return tuple(requests.get(f"{srv.url}{GV}/{kind}/{name}", headers=_admin(srv)).json()["metadata"]["uid"]
                 for kind in ("flowschemas", "prioritylevelconfigurations"))  # type: ignore[return-value]



def test_reject_answers_429_at_once_exempt_never_limited(srv):
    path = "/api/v1/namespaces/t-reject/configmaps"
    held = _Held(srv, path)
    try:
        _until_level(srv, "t-reject", "ExecutingRequests", "1")
        r = requests.get(srv.url + path, headers=ALICE)
        assert r.status_code == 429
        assert r.text == "Too many requests, please try again later.\n"  # Go's http.Error, not a Status
        assert r.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert r.headers["Retry-After"] == "1" and r.headers["X-Content-Type-Options"] == "nosniff"
        assert (r.headers[FS_HEADER], r.headers[PL_HEADER]) == _uids(srv, "t-reject")
        assert _level(srv, "t-reject")["RejectedRequests"] == "1"
        assert requests.get(srv.url + path, headers=_admin(srv)).status_code == 200  # system:masters: exempt
        assert requests.get(srv.url + "/api/v1/namespaces/default/configmaps", headers=ALICE).status_code == 200
    finally:
        assert held.finish() == 201
    assert requests.get(srv.url + path, headers=ALICE).status_code == 200  # the seat is free again


def test_queue_dispatches_in_turn_then_full_queue_and_deadline_reject(srv):
    path = "/api/v1/namespaces/t-queue/configmaps"
    held = _Held(srv, path)
    with ThreadPoolExecutor(1) as pool:
        try:
            _until_level(srv, "t-queue", "ExecutingRequests", "1")
            queued = pool.submit(requests.get, srv.url + path, headers=ALICE)
            _until_level(srv, "t-queue", "WaitingRequests", "1")
            full = requests.get(srv.url + path, headers=ALICE)  # seats taken, its queue at queueLengthLimit
            assert full.status_code == 429 and full.headers["Retry-After"]
        finally:
            assert held.finish() == 201
        r = queued.result(timeout=30)
        assert r.status_code == 200 and (r.headers[FS_HEADER], r.headers[PL_HEADER]) == _uids(srv, "t-queue")
    held = _Held(srv, path + "?x=1")
    try:
        _until_level(srv, "t-queue", "ExecutingRequests", "1")
        started = time.monotonic()
        r = requests.get(srv.url + path, params={"timeout": "1s"}, headers=ALICE)  # waits a quarter: 0.25 s
        # (a quarter of --request-timeout's 60 s would be 15 s; the margin is for a loaded machine)
        assert r.status_code == 429 and time.monotonic() - started < 5
        row = _level(srv, "t-queue")  # upstream counts a wait past its deadline as rejected and cancelled
        assert (row["RejectedRequests"], row["TimedoutRequests"], row["CancelledRequests"]) == ("2", "0", "1")
    finally:
        assert held.finish() == 201


def test_watch_holds_its_seat_only_while_set_up(srv):
    path = "/api/v1/namespaces/t-reject/configmaps"
    with WatchReader(srv.url + path, {"timeoutSeconds": "30"}, ALICE) as w:
        assert w.status == 200
        assert requests.get(srv.url + path, headers=ALICE).status_code == 200  # the watch gave its seat back
    held = _Held(srv, path)
    try:
        _until_level(srv, "t-reject", "ExecutingRequests", "1")
        with WatchReader(srv.url + path, {"timeoutSeconds": "30"}, ALICE) as w:
            assert w.status == 429  # no seat to set it up with
    finally:
        assert held.finish() == 201


def test_filter_runs_before_authorization(srv):
    """`DefaultBuildHandlerChain`: WithPriorityAndFairness wraps WithAuthorization, so a request the authorizer
    refuses is classified and seated first: its 403 carries the headers and counts as dispatched, and with the
    level's seat taken it gets the 429, not the 403."""
    path = "/api/v1/namespaces/t-reject/configmaps"
    before = int(_level(srv, "t-reject")["DispatchedRequests"])
    r = requests.get(srv.url + path, headers=BOB)
    assert r.status_code == 403 and (r.headers[FS_HEADER], r.headers[PL_HEADER]) == _uids(srv, "t-reject")
    assert int(_level(srv, "t-reject")["DispatchedRequests"]) == before + 1
    held = _Held(srv, path)
    try:
        _until_level(srv, "t-reject", "ExecutingRequests", "1")
        r = requests.get(srv.url + path, headers=BOB)
        assert r.status_code == 429 and r.text == "Too many requests, please try again later.\n"
    finally:
        assert held.finish() == 201


def test_dump_lists_every_level(srv):
    text = requests.get(srv.url + DUMP, headers=_admin(srv)).text
    assert text.startswith("PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests,")
    names = [line.split(",")[0] for line in text.splitlines()[1:]]
    assert names == sorted(names) and {"exempt", "catch-all", "t-reject", "t-queue"} <= set(names)
    exempt = _level(srv, "exempt")  # counted (upstream gives exempt levels a queue set without queues)
    assert exempt["ActiveQueues"] == "0" and int(exempt["ExecutingRequests"]) >= 1  # this very request
    assert requests.get(srv.url + DUMP, headers=ALICE).status_code == 200  # alice is cluster-admin here


def test_serve_flags():
    """kube-apiserver's flag names; a negative value or no seats at all is refused with one clear line."""
    import argparse

    from conformance.reference_server import serve
    from conformance.reference_server.server import ReferenceServer

    p = argparse.ArgumentParser()
    serve.add_arguments(p)
    args = p.parse_args(["--max-requests-inflight", "7", "--max-mutating-requests-inflight", "3"])
    hardening = serve._hardening(args)
    assert (hardening["max_requests_inflight"], hardening["max_mutating_requests_inflight"]) == (7, 3)
    with pytest.raises(ValueError, match="--max-requests-inflight can not be negative value"):
        ReferenceServer(max_requests_inflight=-1)
    with pytest.raises(ValueError, match="must be positive"):
        ReferenceServer(max_requests_inflight=0, max_mutating_requests_inflight=0)


def test_a_fractional_timeout_bounds_the_queue_wait(srv):
    """`?timeout=.5s` is Go's grammar (godur.py): the wait ends at a quarter of it, not of --request-timeout.
    (Last in the module: it adds to t-queue's counts.)"""
    path = "/api/v1/namespaces/t-queue/configmaps"
    held = _Held(srv, path + "?x=2")
    try:
        _until_level(srv, "t-queue", "ExecutingRequests", "1")
        started = time.monotonic()
        r = requests.get(srv.url + path, params={"timeout": ".5s"}, headers=ALICE)
        assert r.status_code == 429 and time.monotonic() - started < 5  # 0.125 s, not 60 s's quarter: 15 s
    finally:
        assert held.finish() == 201
