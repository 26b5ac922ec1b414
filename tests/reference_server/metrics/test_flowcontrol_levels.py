"""API Priority and Fairness' per-level families (metrics/flowcontrol_levels.py): execution times, the timing-ratio
histograms, the borrowing statistics, the R/S gauges and the queue sets' counts, with upstream's names, HELP texts,
labels and buckets (`k8s.io/apiserver/pkg/util/flowcontrol/metrics/metrics.go` v0.33.1), read by our strict reader,
prometheus_client's parser and `kubectl get --raw /metrics`."""
from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace

import pytest
import requests

from typing import Iterator

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.flowcontrol import borrowing as borrowing_module
from conformance.reference_server.flowcontrol import queueset as queueset_module
from conformance.reference_server.flowcontrol.limits import LevelLimits
from conformance.reference_server.flowcontrol.queueset import QueueSet
from conformance.reference_server.flowcontrol.workestimate import ONE_SEAT, WorkEstimate
from conformance.reference_server.metrics.flowcontrol_levels import LevelMetrics
from conformance.reference_server.metrics.registry import Registry

from ..flowcontrol.test_flowcontrol import _Clock
from ..test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture
from .exposition import parse
from .test_metrics_families import buckets, one, scrape, series, server  # noqa: F401 - server: a fixture

LEVELS = {"catch-all", "exempt", "global-default", "leader-election", "node-high", "system", "workload-high",
          "workload-low"}
EXECUTION_BOUNDS = ["0", "0.005", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10", "15", "30", "+Inf"]
SEAT_BOUNDS = ["0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "0.95", "0.99", "1", "+Inf"]
DEMAND_BOUNDS = ["0.2", "0.4", "0.6", "0.8", "1", "1.2", "1.4", "1.7", "2", "2.8", "4", "6", "+Inf"]


def test_execution_seconds_and_level_families_over_http(server: RunningServer) -> None:
    """Requests are timed from dispatch to end (a watch until it is set
    up, `type="watch"`); every level has its seat utilization and demand histograms (nanoseconds as counts),
    its borrowing statistics and R."""
    for _ in range(3):
        assert requests.get(server.url + "/api/v1/namespaces").status_code == 200
    watched = requests.get(server.url + "/api/v1/namespaces?watch=1&timeoutSeconds=1")
    assert watched.status_code == 200
    fams, prom = scrape(server)

    ex = fams["apiserver_flowcontrol_request_execution_seconds"]
    assert ex.type == "histogram" and prom["apiserver_flowcontrol_request_execution_seconds"].type == "histogram"
    assert ex.help == ("[ALPHA] Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request "
                       "execution in the API Priority and Fairness subsystem")
    regular = [ls for ls, _ in series(ex, "_count") if ls["type"] == "regular"]
    assert regular, ex.samples
    labels = regular[0]
    assert set(labels) == {"priority_level", "flow_schema", "type"}
    assert one(ex, "_count", priority_level=labels["priority_level"], flow_schema=labels["flow_schema"],
               type="regular") >= 3
    assert buckets(ex, **{**labels}) == EXECUTION_BOUNDS
    assert one(ex, "_count", priority_level=labels["priority_level"], flow_schema=labels["flow_schema"],
               type="watch") >= 1

    seats = fams["apiserver_flowcontrol_priority_level_seat_utilization"]
    assert seats.type == "histogram"
    assert seats.help.startswith("[ALPHA] Observations, at the end of every nanosecond, of utilization of seats")
    assert {ls["priority_level"] for ls, _ in series(seats, "_count", phase="executing")} == LEVELS
    assert buckets(seats, priority_level="global-default") == SEAT_BOUNDS
    assert one(seats, "_count", priority_level="exempt") > 1e6  # nanoseconds since the level was made
    demand = fams["apiserver_flowcontrol_demand_seats"]
    assert {ls["priority_level"] for ls, _ in series(demand, "_count")} == LEVELS
    assert buckets(demand, priority_level="global-default") == DEMAND_BOUNDS
    assert set(series(demand, "_count")[0][0]) == {"priority_level"}

    for name in ("demand_seats_high_watermark", "demand_seats_average", "demand_seats_stdev",
                 "demand_seats_smoothed", "target_seats", "current_r"):
        fam = fams["apiserver_flowcontrol_" + name]
        assert fam.type == "gauge" and fam.help.startswith("[ALPHA] ")
        assert {ls["priority_level"] for _, ls, _ in fam.samples} == LEVELS, name
    assert fams["apiserver_flowcontrol_target_seats"].help == "[ALPHA] Seat allocation targets"
    fair = fams["apiserver_flowcontrol_seat_fair_frac"]
    assert fair.type == "gauge" and fair.value() > 0  # the seats cover every level's lower bound
    assert fams["apiserver_flowcontrol_current_r"].value(priority_level="exempt") == 0  # no queues: R stays


def test_watch_count_samples_of_writes(server: RunningServer) -> None:
    """`watch_count_samples`: each write's count of the watches it may notify (a GET is not sampled)."""
    name = f"wc-{uuid.uuid4().hex[:8]}"
    with requests.get(server.url + "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=5",
                      stream=True) as watch:
        assert watch.status_code == 200
        r = requests.post(server.url + "/api/v1/namespaces/default/configmaps",
                          json={"metadata": {"name": name}, "data": {"a": "b"}})
        assert r.status_code == 201, r.text
    requests.delete(f"{server.url}/api/v1/namespaces/default/configmaps/{name}")
    fam = scrape(server)[0]["apiserver_flowcontrol_watch_count_samples"]
    assert fam.type == "histogram"
    assert fam.help == "[ALPHA] count of watchers for mutating requests in API Priority and Fairness"
    counted = series(fam, "_count")
    assert counted and sum(n for _, n in counted) >= 2  # the create and the delete
    labels = counted[0][0]
    assert set(labels) == {"priority_level", "flow_schema"}
    assert buckets(fam, **labels) == ["0", "1", "10", "100", "1000", "10000", "+Inf"]
    assert sum(one(fam, "_sum", **ls) for ls, _ in counted) >= 1  # the open watch, seen by the create


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "apflevels", flavor="bare", authorization="rbac")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    c = _Clock()
    monkeypatch.setattr(borrowing_module, "time", c)
    monkeypatch.setattr(queueset_module, "time", c)
    return c


def _render(metrics: LevelMetrics) -> dict:
    reg = Registry()
    reg.add(*metrics.families())
    return parse(reg.render())


def test_timing_ratio_histograms_weigh_time_at_each_ratio(clock: _Clock) -> None:
    """Seat utilization: seats in use / the level's limit, weighted by nanoseconds; demand: seats in use and
    waiting over the same denominator (upstream's `ConcurrencyDenominator`, though its HELP says nominal)."""
    qs = QueueSet(LevelLimits("lvl", False, 4, 0, 4, queues=8, hand_size=2, queue_length_limit=10))
    fc = SimpleNamespace(queuesets={"lvl": qs}, levels={}, notes={}, executions=None)
    metrics = LevelMetrics(fc)

    async def run() -> None:
        first = qs.start(WorkEstimate(2), "fs", "a")  # 2 of 4 seats for 1 s
        clock.now += 1.0
        second = qs.start(WorkEstimate(2), "fs", "b")
        waiting = qs.start(WorkEstimate(2), "fs", "c")  # 4 in use, 2 waiting for 2 s
        clock.now += 2.0
        qs.finish(first)
        qs.finish(second)
        assert qs.running(waiting)
        qs.finish(waiting)
        clock.now += 1.0  # idle for 1 s

    asyncio.run(run())
    fams = _render(metrics)
    seats = fams["apiserver_flowcontrol_priority_level_seat_utilization"]
    assert one(seats, "_count", priority_level="lvl", phase="executing") == 4e9
    cum = dict((ls["le"], v) for ls, v in series(seats, "_bucket", priority_level="lvl"))
    assert cum["0"] == 1e9 and cum["0.5"] == 2e9 and cum["1"] == 4e9  # idle 1 s, half 1 s, full 2 s
    assert one(seats, "_sum", priority_level="lvl") == 0.5 * 1e9 + 1.0 * 2e9
    demand = fams["apiserver_flowcontrol_demand_seats"]
    cum = dict((ls["le"], v) for ls, v in series(demand, "_bucket", priority_level="lvl"))
    assert cum["0.2"] == 1e9 and cum["0.6"] == 2e9 and cum["1.4"] == 2e9 and cum["1.7"] == 4e9  # 6/4 for 2 s
    ex = fams["apiserver_flowcontrol_request_execution_seconds"]
    assert one(ex, "_count", priority_level="lvl", flow_schema="fs", type="regular") == 3
    assert one(ex, "_sum", priority_level="lvl", flow_schema="fs", type="regular") == 3 + 2 + 0
    # the queued request: its queue's length when it joined, and the virtual times of its dispatch
    ql = fams["apiserver_flowcontrol_request_queue_length_after_enqueue"]
    assert buckets(ql, priority_level="lvl") == ["0", "10", "25", "50", "100", "250", "500", "1000", "+Inf"]
    assert one(ql, "_count", priority_level="lvl", flow_schema="fs") == 1
    assert one(ql, "_sum", priority_level="lvl", flow_schema="fs") == 1
    for name in ("dispatch_r", "latest_s"):
        assert series(fams["apiserver_flowcontrol_" + name], "", priority_level="lvl")
    bounds = fams["apiserver_flowcontrol_next_s_bounds"]
    assert {ls["bound"] for _, ls, _ in bounds.samples} == {"min", "max"}
    assert "apiserver_flowcontrol_next_discounted_s_bounds" in fams
    assert fams["apiserver_flowcontrol_current_r"].value(priority_level="lvl") > 0

    # a new limit starts a new denominator: the time before stays at the old ratio
    qs.set_current_limit(2)
    clock.now += 1.0
    qs.finish(qs.start(ONE_SEAT, "fs", "a"))  # at 1/2 for no time at all
    fams = _render(metrics)
    seats = fams["apiserver_flowcontrol_priority_level_seat_utilization"]
    assert one(seats, "_count", priority_level="lvl") == 5e9


def test_no_accommodation_counts_a_head_that_does_not_fit(clock: _Clock) -> None:
    """`AddDispatchWithNoAccommodation`: a dispatch attempt whose chosen head needs more seats than are free."""
    qs = QueueSet(LevelLimits("lvl", False, 4, 0, 4, queues=8, hand_size=2, queue_length_limit=10))
    fc = SimpleNamespace(queuesets={"lvl": qs}, levels={}, notes={}, executions=None)
    metrics = LevelMetrics(fc)

    async def run() -> None:
        running = qs.start(WorkEstimate(3), "fs", "a")
        wide = qs.start(WorkEstimate(4), "wide", "b")  # waits: 3 of 4 seats taken
        assert not qs.running(wide)
        qs.set_current_limit(4)  # a dispatch attempt: the head still does not fit
        qs.finish(running)
        assert qs.running(wide)

    asyncio.run(run())
    fam = _render(metrics)["apiserver_flowcontrol_request_dispatch_no_accommodation_total"]
    assert fam.type == "counter"
    assert fam.value(priority_level="lvl", flow_schema="wide") >= 2


def test_reset_starts_the_families_again(server: RunningServer) -> None:
    """`DELETE /metrics`: the histograms and counters start again (the level series come back with the time
    since the reset)."""
    requests.get(server.url + "/api/v1/namespaces")
    before = scrape(server)[0]["apiserver_flowcontrol_priority_level_seat_utilization"]
    assert requests.delete(server.url + "/metrics").status_code == 200
    after = scrape(server)[0]
    seats = after["apiserver_flowcontrol_priority_level_seat_utilization"]
    assert one(seats, "_count", priority_level="exempt") < one(before, "_count", priority_level="exempt")
    ex = after.get("apiserver_flowcontrol_request_execution_seconds")
    assert ex is None or all(v <= 1 for _, v in series(ex, "_count"))


def test_kubectl_reads_the_level_families(kube: Kube) -> None:  # noqa: F811 - kube: a fixture
    """`kubectl get --raw /metrics`: kubectl's own requests (exempt: `system:masters`) timed, every level's
    seat utilization written."""
    kube.ok("get", "ns", "default")
    fams = parse(kube.ok("get", "--raw", "/metrics"))
    assert one(fams["apiserver_flowcontrol_request_execution_seconds"], "_count", priority_level="exempt",
               flow_schema="exempt", type="regular") >= 1
    assert {ls["priority_level"] for ls, _ in
            series(fams["apiserver_flowcontrol_priority_level_seat_utilization"], "_count")} == LEVELS
    # exempt requests are estimated too (1.33's startRequest calls the estimator before its exempt check)
    assert one(fams["apiserver_flowcontrol_work_estimated_seats"], "_count", priority_level="exempt",
               flow_schema="exempt") >= 1
