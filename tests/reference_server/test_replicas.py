"""Several `nsconform serve --storage etcd` processes on one etcd behave as one API server (issue 16): writes
acknowledged by one are seen by the others, one replica at a time runs the controllers under the
kube-controller-manager Lease and another takes over after kill -9, no acknowledged write is lost when a replica
dies or all restart, and a client whose watch outlives the history (compaction) is told 410 and re-lists."""
from __future__ import annotations

import threading
import time

import pytest
import requests

from conformance.reference_server.storage.etcdclient import EtcdClient

from .backends import need_etcd, unique_prefix
from .conftest import WatchReader
from .replicas import lease_spec, start_replicas, until

pytestmark = pytest.mark.usefixtures("etcd_process")


@pytest.fixture
def http():
    s = requests.Session()
    yield s
    s.close()


@pytest.fixture
def cluster(etcd_process):
    """`cluster(n)`: n replicas on one fresh key prefix of the session's etcd; all killed at teardown."""
    need_etcd()
    started = []
    prefix = unique_prefix()

    def start(n: int):
        rs = start_replicas(n, [etcd_process.url], prefix)
        started.extend(rs)
        return rs
    yield start
    for r in started:
        r.kill()


def _ns(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _cm(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": name}}


def test_one_api_server_one_controller_manager_and_failover_after_kill_9(cluster, http):
    a, b, c = cluster(3)
    # exactly one holds the Lease, and every replica sees the same holder
    holder = until(lambda: lease_spec(http, a.url).get("holderIdentity"), "a Lease holder")
    assert holder in {a.identity, b.identity, c.identity}
    assert {lease_spec(http, r.url).get("holderIdentity") for r in (a, b, c)} == {holder}
    # a write acknowledged by one is in the others' GET, LIST and WATCH at once, with the same resourceVersion
    rv0 = http.get(f"{c.url}/api/v1/namespaces", timeout=10).json()["metadata"]["resourceVersion"]
    with WatchReader(f"{c.url}/api/v1/namespaces", {"resourceVersion": rv0}) as w:
        r = http.post(f"{a.url}/api/v1/namespaces", json=_ns("nsc-replicas-one"), timeout=10)
        assert r.status_code == 201, r.text
        rv = r.json()["metadata"]["resourceVersion"]
        got = http.get(f"{b.url}/api/v1/namespaces/nsc-replicas-one", timeout=10)
        assert got.status_code == 200 and got.json()["metadata"]["resourceVersion"] == rv
        listed = http.get(f"{c.url}/api/v1/namespaces", timeout=10).json()
        assert rv in {i["metadata"]["resourceVersion"] for i in listed["items"]
                      if i["metadata"]["name"] == "nsc-replicas-one"}
        ev = w.until(lambda e: e["object"]["metadata"]["name"] == "nsc-replicas-one", what="ADDED on c")[-1]
        assert ev["type"] == "ADDED" and ev["object"]["metadata"]["resourceVersion"] == rv
    # kill -9 the leader: another replica takes the Lease (one more transition) and runs the namespace controller
    leader = next(r for r in (a, b, c) if r.identity == holder)
    rest = [r for r in (a, b, c) if r is not leader]
    transitions = lease_spec(http, rest[0].url).get("leaseTransitions", 0)
    leader.kill()
    http.post(f"{rest[0].url}/api/v1/namespaces/nsc-replicas-one/configmaps", json=_cm("x"), timeout=10)
    assert http.delete(f"{rest[1].url}/api/v1/namespaces/nsc-replicas-one", timeout=10).status_code == 200
    spec = until(lambda: (s := lease_spec(http, rest[0].url)).get("holderIdentity") in
                 {r.identity for r in rest} and s, "a surviving replica holding the Lease", timeout=30)
    assert spec["leaseTransitions"] == transitions + 1
    until(lambda: http.get(f"{rest[1].url}/api/v1/namespaces/nsc-replicas-one", timeout=10).status_code == 404,
          "the namespace deleted by the new leader's controller", timeout=30)


def test_no_acknowledged_write_lost_to_kill_9_or_a_restart_and_410_then_relist(cluster, http, etcd_process):
    a, b = cluster(2)
    ns = "nsc-replicas-two"
    assert http.post(f"{a.url}/api/v1/namespaces", json=_ns(ns), timeout=10).status_code == 201
    acked: dict[str, str] = {}  # name → resourceVersion of every 201
    refused: list[str] = []  # what else a replica answered (shown if b's writes do not all land)
    lock = threading.Lock()

    def write(replica, tag: str, count: int) -> None:
        s = requests.Session()
        for i in range(count):
            started = time.monotonic()
            try:
                r = s.post(f"{replica.url}/api/v1/namespaces/{ns}/configmaps", json=_cm(f"{tag}-{i}"), timeout=10)
            except requests.RequestException as e:
                refused.append(f"{tag}-{i}: {type(e).__name__} after {time.monotonic() - started:.1f} s: {e}")
                return  # killed: this write may or may not have happened; only acknowledged ones count
            if r.status_code != 201:
                refused.append(f"{tag}-{i}: {r.status_code} {r.text[:300]}")
            if r.status_code == 201:
                with lock:
                    acked[r.json()["metadata"]["name"]] = r.json()["metadata"]["resourceVersion"]
    # a stream of writes to a, killed with kill -9 while its writer is still going, and to b throughout
    on_a = threading.Thread(target=write, args=(a, "a", 400))
    on_a.start()
    until(lambda: sum(1 for n in list(acked) if n.startswith("a-")) >= 10, "10 writes acknowledged by a")
    a.kill()
    on_a.join(30)
    write(b, "b", 20)
    assert sum(1 for n in acked if n.startswith("b-")) == 20, (refused[-5:], "b said:", b.output()[-10:])

    def stored(replica) -> dict[str, str]:
        items = http.get(f"{replica.url}/api/v1/namespaces/{ns}/configmaps", timeout=10).json()["items"]
        return {i["metadata"]["name"]: i["metadata"]["resourceVersion"] for i in items}
    on_b = stored(b)
    assert {n: on_b.get(n) for n in acked} == acked, "an acknowledged write is missing or changed"
    # a client watching b, which b's death cuts off after a write the client has not seen yet
    list_rv = http.get(f"{b.url}/api/v1/namespaces/{ns}/configmaps", timeout=10).json()["metadata"]["resourceVersion"]
    write(b, "missed", 1)
    on_b = stored(b)
    b.kill()
    # etcd compacts while no replica runs, then every replica restarts: everything is still there, same versions
    client = EtcdClient([etcd_process.url])
    client.compact(int(client.status()["header"]["revision"]))
    client.close()
    c, = cluster(1)  # (one is enough to show nothing was lost; each start costs seconds of CI)
    assert stored(c) == on_b
    assert http.post(f"{c.url}/api/v1/namespaces/{ns}/configmaps", json=_cm("after"), timeout=10).status_code == 201
    # the client resumes its watch from the last version it saw: too old, 410 Expired; it re-lists and watches on
    with WatchReader(f"{c.url}/api/v1/namespaces/{ns}/configmaps", {"resourceVersion": list_rv}) as w:
        events = w.rest(timeout=10)
    assert [(e["type"], e["object"].get("code"), e["object"].get("reason")) for e in events] == \
        [("ERROR", 410, "Expired")], events
    relisted = http.get(f"{c.url}/api/v1/namespaces/{ns}/configmaps", timeout=10).json()
    assert {"missed-0", "after"} <= {i["metadata"]["name"] for i in relisted["items"]}
    with WatchReader(f"{c.url}/api/v1/namespaces/{ns}/configmaps",
                     {"resourceVersion": relisted["metadata"]["resourceVersion"]}) as w:
        assert http.post(f"{c.url}/api/v1/namespaces/{ns}/configmaps", json=_cm("later"),
                         timeout=10).status_code == 201
        ev = w.until(lambda e: e["object"]["metadata"]["name"] == "later", what="ADDED later")[-1]
        assert ev["type"] == "ADDED"


def test_three_member_etcd_loses_a_member_then_quorum_and_recovers(tmp_path, http):
    """One member down during writes: nothing acknowledged is lost. Two down: no quorum, every write is a 5xx
    with a `Status` body (kube-apiserver: an etcd error it cannot interpret is a 500 InternalError-style Status,
    an unreachable etcd a 504 Timeout). Both back: writes succeed, nothing acknowledged lost."""
    need_etcd()
    from .replicas import EtcdCluster, Replica
    etcd = EtcdCluster(str(tmp_path))
    replica = None
    try:
        replica = Replica(etcd.urls, unique_prefix()).ready()
        ns = "nsc-replicas-three"
        # etcd's short election timeout (500 ms) can lapse on a loaded machine even with every member up: the
        # namespace is created once it is stored (409: an attempt that failed was stored after all)
        until(lambda: http.post(f"{replica.url}/api/v1/namespaces", json=_ns(ns), timeout=30).status_code in (201, 409),
              "the namespace created", timeout=30, every=0.2)
        acked: dict[str, str] = {}

        def write(name: str) -> requests.Response:
            r = http.post(f"{replica.url}/api/v1/namespaces/{ns}/configmaps", json=_cm(name), timeout=30)
            if r.status_code == 201:
                acked[name] = r.json()["metadata"]["resourceVersion"]
            return r
        for i in range(10):
            write(f"before-{i}")
        etcd.stop("m0")
        for i in range(10):  # if m0 led, etcd elects another leader meanwhile: a write may fail then, as on a cluster
            r = write(f"one-down-{i}")
            assert r.status_code == 201 or (r.status_code >= 500 and r.json()["kind"] == "Status"), r.text
        attempt = iter(range(10 ** 6))  # a fresh name per attempt: a failed write may still have been stored
        until(lambda: write(f"one-down-last-{next(attempt)}").status_code == 201,
              "a write with 2 of 3 members (quorum)", timeout=30, every=0.2)
        etcd.stop("m1")
        r = write("no-quorum")
        assert 500 <= r.status_code < 600, (r.status_code, r.text)
        body = r.json()
        assert body["kind"] == "Status" and body["status"] == "Failure" and body["code"] == r.status_code, body
        etcd.start("m0")
        etcd.start("m1")
        until(lambda: write(f"recovered-{next(attempt)}").status_code == 201,
              "a write acknowledged after recovery", timeout=60, every=0.2)
        items = http.get(f"{replica.url}/api/v1/namespaces/{ns}/configmaps", timeout=30).json()["items"]
        stored = {i["metadata"]["name"]: i["metadata"]["resourceVersion"] for i in items}
        assert {n: stored.get(n) for n in acked} == acked, "an acknowledged write is missing or changed"
    finally:
        if replica is not None:
            replica.kill()
        etcd.close()
