"""`apiserver_flowcontrol_priority_level_request_utilization` and `_read_vs_write_current_requests`
(metrics/flowcontrol_levels.py, flowcontrol/readwrite.py): upstream's names, HELP texts, labels and buckets
(`k8s.io/apiserver/pkg/util/flowcontrol/metrics/metrics.go` v0.33.1), nanoseconds at each ratio: a level's
requests executing over its `ConcurrencyDenominator` and waiting over its queues' capacity; the filter's requests by
phase and read-only/mutating kind over 1."""
from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.flowcontrol.limits import LevelLimits
from conformance.reference_server.flowcontrol.queueset import QueueSet
from conformance.reference_server.flowcontrol.workestimate import WorkEstimate
from conformance.reference_server.metrics.flowcontrol_levels import LevelMetrics
from tests.reference_server.ownserver import own_server

from ..test_http_priority_fairness import _Held
from .test_flowcontrol_levels import _render, clock  # noqa: F401 - clock: a fixture
from .test_metrics_families import buckets, one, scrape, series

UTILIZATION_BOUNDS = ["0", "0.001", "0.003", "0.01", "0.03", "0.1", "0.25", "0.5", "0.75", "1", "+Inf"]
READ_WRITE_BOUNDS = ["0", "0.001", "0.01", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "0.95",
                     "0.99", "1", "+Inf"]
UTILIZATION = "apiserver_flowcontrol_priority_level_request_utilization"
READ_WRITE = "apiserver_flowcontrol_read_vs_write_current_requests"


def test_request_utilization_weighs_time_at_each_ratio(clock) -> None:  # noqa: F811 - clock: a fixture
    """One request executing on a level of 4 seats for 1 s, then two (each 2 seats) with one waiting in 8 queues
    of 10 for 2 s: executing at 1/4 then 2/4, waiting at 1/80; a wide request counts once."""
    qs = QueueSet(LevelLimits("lvl", False, 4, 0, 4, queues=8, hand_size=2, queue_length_limit=10))
    fc = SimpleNamespace(queuesets={"lvl": qs}, levels={}, notes={}, executions=None)
    metrics = LevelMetrics(fc)

    async def run() -> None:
        first = qs.start(WorkEstimate(2), "fs", "a")
        clock.now += 1.0
        second = qs.start(WorkEstimate(2), "fs", "b")
        waiting = qs.start(WorkEstimate(2), "fs", "c")
        clock.now += 2.0
        qs.finish(first)
        qs.finish(second)
        qs.finish(waiting)
        clock.now += 1.0

    asyncio.run(run())
    fam = _render(metrics)[UTILIZATION]
    assert fam.type == "histogram"
    assert fam.help == ("[ALPHA] Observations, at the end of every nanosecond, of number of requests (as a fraction "
                        "of the relevant limit) waiting or in any stage of execution (but only initial stage for "
                        "WATCHes)")
    assert buckets(fam, phase="executing", priority_level="lvl") == UTILIZATION_BOUNDS
    executing = dict((ls["le"], v) for ls, v in series(fam, "_bucket", phase="executing", priority_level="lvl"))
    assert executing["0"] == 1e9 and executing["0.25"] == 2e9 and executing["0.5"] == 4e9
    assert one(fam, "_sum", phase="executing", priority_level="lvl") == 0.25 * 1e9 + 0.5 * 2e9
    waiting = dict((ls["le"], v) for ls, v in series(fam, "_bucket", phase="waiting", priority_level="lvl"))
    assert waiting["0"] == 2e9 and waiting["0.01"] == 2e9 and waiting["0.03"] == 4e9
    assert one(fam, "_sum", phase="waiting", priority_level="lvl") == pytest.approx(2e9 / 80)


server = own_server(max_requests_inflight=1, max_mutating_requests_inflight=0)


def _held_time(server: RunningServer) -> float:
    """The nanoseconds the executing mutating series spent at a count of at least 1."""
    fam = scrape(server)[0][READ_WRITE]
    cum = dict((ls["le"], v) for ls, v in series(fam, "_bucket", phase="executing", request_kind="mutating"))
    return cum["+Inf"] - cum["0"]


def test_read_vs_write_counts_requests_by_phase_and_kind(server: RunningServer) -> None:
    """The four series from the start; a held POST is an executing mutating request (count 1, above the last
    bucket's bound); the scrape itself is an executing read-only one."""
    fams, prom = scrape(server)
    fam = fams[READ_WRITE]
    assert fam.type == "histogram" and prom[READ_WRITE].type == "histogram"
    assert fam.help == ("[ALPHA] Observations, at the end of every nanosecond, of the number of requests (as a "
                        "fraction of the relevant limit) waiting or in regular stage of execution")
    assert {(ls["phase"], ls["request_kind"]) for ls, _ in series(fam, "_count")} == {
        ("waiting", "readOnly"), ("waiting", "mutating"), ("executing", "readOnly"), ("executing", "mutating")}
    assert buckets(fam, phase="waiting", request_kind="mutating") == READ_WRITE_BOUNDS
    before = _held_time(server)
    assert requests.post(server.url + "/api/v1/namespaces", json={"metadata": {"name": "rw-held"}}).status_code \
        == 201
    held = _Held(server, "/api/v1/namespaces/rw-held/configmaps")
    try:
        deadline = time.monotonic() + 30
        while _held_time(server) - before < 1e6:  # the held request has executed for a millisecond at least
            assert time.monotonic() < deadline, "the held POST never counted as executing"
    finally:
        assert held.finish() == 201
    fam = scrape(server)[0][READ_WRITE]
    cum = dict((ls["le"], v) for ls, v in series(fam, "_bucket", phase="executing", request_kind="mutating"))
    assert cum["+Inf"] - cum["1"] == 0  # never two at once here; the time at 1 sits in the `le="1"` bucket
    read = dict((ls["le"], v) for ls, v in series(fam, "_bucket", phase="executing", request_kind="readOnly"))
    assert read["+Inf"] > read["0"]  # the scrapes
