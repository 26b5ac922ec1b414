"""flowcontrol/workestimate.py: the seats of a list by the stored count and where it is served from, of a write
by its watch fan-out, the level's maximum (values worked out from upstream's width.go, list_work_estimator.go and
mutating_work_estimator.go at k8s.io/apiserver v0.33.1)."""
from __future__ import annotations

import copy

from conformance.reference_server.auth.rbac import request_attributes
from conformance.reference_server.flowcontrol import (ONE_SEAT, ObjectCounts, WatchTracker, WorkEstimate,
                                                      WorkEstimator, concurrency_limits)
from conformance.reference_server.registry.flowcontrol_bootstrap import (MANDATORY_PRIORITY_LEVELS,
                                                                         SUGGESTED_PRIORITY_LEVELS)


def _estimator(counts: dict[tuple[str, str], int]) -> tuple[WorkEstimator, WatchTracker]:
    watches = WatchTracker()
    return WorkEstimator(ObjectCounts(lambda g, r: counts.get((g, r)), lambda: 1), watches), watches


def _estimate(est: WorkEstimator, method: str, path: str, query: dict[str, str] | None = None,
              max_seats: int = 0) -> WorkEstimate:
    query = query or {}
    return est.estimate(request_attributes(method, path, query), query, max_seats)


def test_list_seats_follow_the_stored_count_and_the_source():
    est, _ = _estimator({("", "configmaps"): 250, ("apps", "deployments"): 5000})
    cms = "/api/v1/namespaces/a/configmaps"
    assert _estimate(est, "GET", cms) == WorkEstimate(3)  # consistent read, from the cache: every stored one
    assert _estimate(est, "GET", cms, {"limit": "10"}) == WorkEstimate(3)  # the cache still reads them all
    assert _estimate(est, "GET", cms, {"resourceVersion": "0"}) == WorkEstimate(3)
    assert _estimate(est, "GET", cms, {"limit": "10", "continue": "x"}) == WorkEstimate(1)  # etcd: 2 × 10
    assert _estimate(est, "GET", cms, {"limit": "60", "resourceVersion": "5"}) == WorkEstimate(2)  # 2 × 60
    assert _estimate(est, "GET", cms, {"limit": "60", "resourceVersion": "5", "labelSelector": "a=b"}) \
        == WorkEstimate(4)  # 250 + 60
    assert _estimate(est, "GET", cms, {"resourceVersionMatch": "Exact", "resourceVersion": "5"}) \
        == WorkEstimate(5)  # 2 × 250
    assert _estimate(est, "GET", cms, {"fieldSelector": "metadata.name=x"}) == ONE_SEAT  # a get in storage
    assert _estimate(est, "GET", cms, {"limit": "x"}) == WorkEstimate(10)  # does not decode: the maximum
    # `strconv.ParseInt("")` fails too: an empty limit or timeoutSeconds is as refused as the handler refuses it
    assert _estimate(est, "GET", cms, {"limit": ""}) == WorkEstimate(10)
    assert _estimate(est, "GET", cms, {"timeoutSeconds": ""}) == WorkEstimate(10)
    assert _estimate(est, "GET", "/apis/apps/v1/deployments") == WorkEstimate(10)  # capped
    assert _estimate(est, "GET", "/apis/apps/v1/deployments", max_seats=8) == WorkEstimate(8)  # the level's
    assert _estimate(est, "GET", "/apis/metrics.k8s.io/v1beta1/pods") == ONE_SEAT  # no count: aggregated
    assert _estimate(est, "GET", cms, {"watch": "1"}) == ONE_SEAT  # WatchList is off in 1.33
    assert _estimate(est, "GET", cms + "/x") == ONE_SEAT


def test_level_max_seats_are_upstreams():
    """`max(1, min(ceil(0.15 × nominal), nominal / handSize))` for queuing levels: 10 at the default 600 seats for
    the big ones (capped by the estimator), global-default's 49 seats / 6 = 8; Reject levels have none."""
    limits = concurrency_limits(copy.deepcopy(MANDATORY_PRIORITY_LEVELS + SUGGESTED_PRIORITY_LEVELS), 600)
    assert {n: lim.max_seats for n, lim in limits.items()} == {
        "exempt": 0, "catch-all": 0, "global-default": 8, "leader-election": 4, "node-high": 15, "system": 12,
        "workload-high": 15, "workload-low": 37}


def test_writes_pay_for_their_watch_fan_out():
    est, watches = _estimator({})
    cm = "/api/v1/namespaces/a/configmaps"
    watch = request_attributes("GET", cm, {"watch": "1"})
    forgets = [watches.register(watch, {}) for _ in range(9)]
    assert _estimate(est, "POST", cm) == ONE_SEAT  # 9 watches: below 10
    everywhere = request_attributes("GET", "/api/v1/configmaps", {"watch": "1"})
    forgets += [watches.register(everywhere, {}) for _ in range(16)]
    assert _estimate(est, "POST", cm) == WorkEstimate(1, 3, 5_000_000)  # 25 watches: 3 seats for 5 ms
    assert _estimate(est, "POST", "/api/v1/namespaces/b/configmaps") == WorkEstimate(1, 2, 5_000_000)  # 16
    assert _estimate(est, "POST", cm, max_seats=2) == WorkEstimate(1, 2, 7_500_000)  # reshaped: same work
    assert _estimate(est, "GET", cm + "/x") == ONE_SEAT  # reads make no event
    for forget in forgets:
        forget()
    assert watches.counts == {} and _estimate(est, "DELETE", cm + "/x") == ONE_SEAT
    pods = request_attributes("GET", "/api/v1/pods", {"watch": "1"})
    assert watches.register(pods, {"fieldSelector": "spec.nodeName=n1"}) is None  # indexed: not counted
    assert watches.register(pods, {"fieldSelector": "spec.nodeName="}) is not None
    token = request_attributes("POST", "/api/v1/namespaces/a/serviceaccounts/default/token")
    assert est.estimate(token, {}, 0) == ONE_SEAT
