"""The Go and process collectors' families (metrics/goruntime.py, metrics/process.py): client_golang v1.22's
names, HELP texts, types and labels, values from this process, read by our strict reader and prometheus_client."""
from __future__ import annotations

import gc

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded
from conformance.reference_server.metrics.goruntime import GO_VERSION, GcPauses, read_status
from tests.reference_server.ownserver import own_server

from .exposition import Family, parse

GO_FAMILIES = {  # client_golang v1.22 `NewGoCollector()` with its default options: name -> type
    "go_gc_duration_seconds": "summary", "go_gc_gogc_percent": "gauge", "go_gc_gomemlimit_bytes": "gauge",
    "go_goroutines": "gauge", "go_info": "gauge", "go_memstats_alloc_bytes": "gauge",
    "go_memstats_alloc_bytes_total": "counter", "go_memstats_buck_hash_sys_bytes": "gauge",
    "go_memstats_frees_total": "counter", "go_memstats_gc_sys_bytes": "gauge", "go_memstats_heap_alloc_bytes": "gauge",
    "go_memstats_heap_idle_bytes": "gauge", "go_memstats_heap_inuse_bytes": "gauge",
    "go_memstats_heap_objects": "gauge", "go_memstats_heap_released_bytes": "gauge",
    "go_memstats_heap_sys_bytes": "gauge", "go_memstats_last_gc_time_seconds": "gauge",
    "go_memstats_mallocs_total": "counter", "go_memstats_mcache_inuse_bytes": "gauge",
    "go_memstats_mcache_sys_bytes": "gauge", "go_memstats_mspan_inuse_bytes": "gauge",
    "go_memstats_mspan_sys_bytes": "gauge", "go_memstats_next_gc_bytes": "gauge",
    "go_memstats_other_sys_bytes": "gauge", "go_memstats_stack_inuse_bytes": "gauge",
    "go_memstats_stack_sys_bytes": "gauge", "go_memstats_sys_bytes": "gauge", "go_sched_gomaxprocs_threads": "gauge",
    "go_threads": "gauge"}
PROCESS_FAMILIES = {"process_cpu_seconds_total", "process_max_fds", "process_network_receive_bytes_total",
                    "process_network_transmit_bytes_total", "process_open_fds", "process_resident_memory_bytes",
                    "process_start_time_seconds", "process_virtual_memory_bytes", "process_virtual_memory_max_bytes"}


server = own_server(flavor="bare")


def scrape(server: RunningServer) -> tuple[str, dict[str, Family]]:
    r = requests.get(server.url + "/metrics")
    assert r.status_code == 200
    return r.text, parse(r.text)


def test_go_collector_families_names_types_and_help(server: RunningServer) -> None:
    text, fams = scrape(server)
    assert {n: f.type for n, f in fams.items() if n.startswith("go_")} == GO_FAMILIES
    assert fams["go_goroutines"].help == "Number of goroutines that currently exist."  # raw: no stability prefix
    assert fams["go_gc_gogc_percent"].help == (
        "Heap size target percentage configured by the user, otherwise 100. This value is set by the GOGC environment "
        "variable, and the runtime/debug.SetGCPercent function. Sourced from /gc/gogc:percent.")
    assert fams["go_memstats_sys_bytes"].help == \
        "Number of bytes obtained from system. Equals to /memory/classes/total:byte."  # (sic: upstream's `byte`)
    assert "go_info{version=\"go1.24.2\"} 1\n" in text
    assert "go_gc_gomemlimit_bytes 9.223372036854776e+18\n" in text
    assert fams["go_gc_gogc_percent"].value() == 100
    quantiles = [ls["quantile"] for n, ls, _ in fams["go_gc_duration_seconds"].samples if n == "go_gc_duration_seconds"]
    assert quantiles == ["0", "0.25", "0.5", "0.75", "1"]
    assert {n for n, _, _ in fams["go_gc_duration_seconds"].samples} == {
        "go_gc_duration_seconds", "go_gc_duration_seconds_sum", "go_gc_duration_seconds_count"}
    prometheus_client = pytest.importorskip("prometheus_client.parser")
    parsed = {f.name: f for f in prometheus_client.text_string_to_metric_families(text)}
    assert parsed["go_gc_duration_seconds"].type == "summary" and parsed["go_memstats_mallocs"].type == "counter"


def test_go_values_follow_this_process(server: RunningServer) -> None:
    _, before = scrape(server)
    status = read_status()
    assert before["go_threads"].value() >= 2  # the server's loop thread and this test's
    assert before["go_goroutines"].value() > before["go_threads"].value() - 1  # threads + the loop's tasks
    assert before["go_memstats_heap_alloc_bytes"].value() > 0 and status["RssAnon"] > 0
    assert before["go_memstats_sys_bytes"].value() >= before["go_memstats_heap_sys_bytes"].value()
    assert before["go_memstats_heap_sys_bytes"].value() == (before["go_memstats_heap_inuse_bytes"].value()
                                                           + before["go_memstats_heap_idle_bytes"].value())
    assert before["go_sched_gomaxprocs_threads"].value() >= 1
    gc.collect()  # a pause of the cyclic collector: counted, and its end time
    _, after = scrape(server)
    def pauses(fams: dict[str, Family]) -> float:
        return next(v for n, _, v in fams["go_gc_duration_seconds"].samples if n == "go_gc_duration_seconds_count")
    assert pauses(after) > pauses(before)
    assert after["go_memstats_last_gc_time_seconds"].value() >= before["go_memstats_last_gc_time_seconds"].value() > 0
    assert after["go_memstats_mallocs_total"].value() >= before["go_memstats_mallocs_total"].value()
    assert after["go_memstats_frees_total"].value() >= before["go_memstats_frees_total"].value()


def test_delete_metrics_leaves_the_raw_collectors() -> None:
    """`DELETE /metrics` resets component-base's metrics, not the raw Go and process collectors."""
    srv = start_embedded(flavor="bare")
    try:
        assert requests.delete(srv.url + "/metrics").status_code == 200
        _, fams = scrape(srv)
        assert set(GO_FAMILIES) <= set(fams) and PROCESS_FAMILIES <= set(fams)
    finally:
        srv.stop()


def test_process_collector_families(server: RunningServer) -> None:
    _, fams = scrape(server)
    assert {n for n in fams if n.startswith("process_")} == PROCESS_FAMILIES
    assert fams["process_virtual_memory_max_bytes"].help == "Maximum amount of virtual memory available in bytes."
    assert fams["process_network_receive_bytes_total"].type == "counter"
    assert fams["process_network_transmit_bytes_total"].help == "Number of bytes sent by the process over the network."
    assert fams["process_max_fds"].value() > 0  # an unlimited soft limit is procfs' MaxUint64, never -1
    assert fams["process_virtual_memory_max_bytes"].value() > 0


def test_gc_pause_quantiles_as_read_gc_stats() -> None:
    pauses = GcPauses()
    assert [v for _, v in pauses.quantiles()] == [0.0] * 5
    pauses.recent.extend([5.0, 1.0, 4.0, 2.0, 3.0])  # what each "stop" appends, here with known values
    assert pauses.quantiles() == [(0.0, 1.0), (0.25, 2.0), (0.5, 3.0), (0.75, 4.0), (1.0, 5.0)]


def test_go_version_is_the_version_endpoints(server: RunningServer) -> None:
    assert requests.get(server.url + "/version").json()["goVersion"] == GO_VERSION
