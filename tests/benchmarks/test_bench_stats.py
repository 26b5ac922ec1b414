"""Smoke test of the benchmark script's pure parts (no servers, no processes, no network)."""
from __future__ import annotations

import json
import math

import pytest

from benchmarks import stats
from benchmarks.run import ROWS, SUMMARY


def test_percentile_interpolates_and_handles_edges():
    assert stats.percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert stats.percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert stats.percentile([5.0], 99) == 5.0
    assert stats.percentile(list(range(101)), 99) == pytest.approx(99.0)
    assert math.isnan(stats.percentile([], 50))
    with pytest.raises(ValueError):
        stats.percentile([1.0], 101)


def test_summarize_and_ratio():
    s = stats.summarize([1.0, 2.0, 3.0])
    assert (s["n"], s["min"], s["p50"], s["max"], s["mean"]) == (3, 1.0, 2.0, 3.0, 2.0)
    assert math.isnan(stats.summarize([])["p50"])
    assert stats.ratio(1.0, 4.0) == 0.25
    assert stats.ratio(1.0, 0.0) is None and stats.ratio(None, 1.0) is None and stats.ratio(float("nan"), 1) is None


def test_targets():
    t = stats.TARGETS
    assert t["suite_floor_ratio"].met(3.0) is True and t["suite_floor_ratio"].met(3.01) is False
    assert t["server_ceiling_ratio"].met(0.5) is True and t["server_ceiling_ratio"].met(0.49) is False
    assert t["delete_10k_s"].met(2.0) is False and t["watch_p99_ms"].met(9.9) is True
    assert t["list_scaling_ratio"].met(None) is None


def test_derive_and_final_json_has_exactly_the_keys():
    fig = {"suite_wall_s": 2.0, "suite_wall_counted_s": 1.5, "suite_requests": 1000, "single_request_s": 0.0005,
           "server_rps_get": 5000.0, "ceiling_rps_get": 10000.0, "list_s_10": 0.001, "list_s_10000": 0.0012,
           "delete_10k_s": 1.0, "watch_p99_ms": float("nan"), "rss_mb_per_10k": 20.0, "extra": "ignored"}
    stats.derive(fig)
    assert fig["request_floor_s"] == pytest.approx(0.5)
    assert fig["suite_floor_ratio"] == pytest.approx(3.0)  # the counted run's wall over the floor
    assert fig["server_ceiling_ratio"] == pytest.approx(0.5)
    assert fig["list_scaling_ratio"] == pytest.approx(1.2)
    line = stats.final_json(fig)
    out = json.loads(line)
    assert list(out) == list(stats.JSON_KEYS)
    assert out["watch_p99_ms"] is None and out["suite_wall_xdist_s"] is None
    assert "\n" not in line


def test_table_marks_targets():
    text = stats.format_table([("delete_10k_s", 3.5, "s"), ("watch_p99_ms", 4.0, "ms"), ("suite_requests", 12, ""),
                               ("list_scaling_ratio", None, "")])
    lines = {ln.split()[0]: ln for ln in text.splitlines()[2:]}
    assert lines["delete_10k_s"].rstrip().endswith("NO")
    assert lines["watch_p99_ms"].rstrip().endswith("yes")
    assert lines["list_scaling_ratio"].rstrip().endswith("n/a")
    assert "12" in lines["suite_requests"]


def test_every_json_key_is_a_table_row_and_pytest_summary_parses():
    rows = {k for k, _ in ROWS}
    assert set(stats.JSON_KEYS) <= rows
    m = SUMMARY.search("183 passed, 2 skipped in 1.93s")
    assert m and float(m.group(2)) == 1.93


def test_cluster_phase_floor_and_parsers():
    from benchmarks.run import _durations, _root_cause_first, delay_floor

    out = ("===== slowest durations =====\n"
           "10.20s call     conformance/suites/test_lifecycle.py::test_a[pods]\n"
           "5.01s teardown conformance/suites/test_lifecycle.py::test_a[pods]\n"
           "4.90s call     conformance/suites/test_phase.py::test_b\n"
           "0.01s call     conformance/suites/test_naming.py::test_c\n"
           "5.10s setup    conformance/suites/test_content.py::test_d[pods]\n"
           "0.02s call     conformance/suites/test_content.py::test_d[pods]\n")
    calls = _durations(out)
    assert calls == {"conformance/suites/test_lifecycle.py::test_a[pods]": 10.2,
                     "conformance/suites/test_phase.py::test_b": 4.9,
                     "conformance/suites/test_naming.py::test_c": 0.01,
                     "conformance/suites/test_content.py::test_d[pods]": pytest.approx(5.12)}  # a module fixture's wait
    # whole delays only (10.2 s -> two passes), plus one delay for the teardown reaper
    assert delay_floor(calls, 5.0) == 20.0
    assert delay_floor(calls, 5.0, workers=4) == 15.0  # the longest test bounds it
    assert delay_floor({}, 5.0) == 5.0
    console = ("x\n===== nsconform: failing clauses =====\n13 clauses failed; 12 of them depend on NS-FIN-001, "
               "which failed.\n...\n===== FAILURES =====\n")
    assert _root_cause_first(console, "NS-FIN-001")
    assert not _root_cause_first(console, "NS-PHA-003")
    assert not _root_cause_first("===== FAILURES =====\n", "NS-FIN-001")


def test_cluster_phase_is_opt_in():
    from benchmarks.run import DEFAULT_SKIP, PHASES

    assert "cluster" in PHASES and "cluster" in DEFAULT_SKIP
