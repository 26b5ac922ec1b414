"""The scale suite end to end on the embedded server, small: steps, raw points in conformance.json (valid
against the schema), the SVG curves in the HTML, the "reported, not judged" skip below N/first = 1,000,
and every scale namespace gone afterwards."""

from __future__ import annotations

import json

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    pytester_dir = tmp_path_factory.mktemp("scale")
    import subprocess
    import sys

    reports = pytester_dir / "reports"
    proc = subprocess.run([sys.executable, "-m", "pytest", "--pyargs", "conformance.suites", "-p", "no:cacheprovider",
                           "-q", "-rs", "--scale", "3", "--scale-rounds", "2", "--run-id", "scale-small",
                           "--nsconform-reports", str(reports)],
                          cwd=pytester_dir, capture_output=True, text=True, timeout=300)
    return proc, reports / "scale-small"


def test_small_scale_run_is_reported_not_judged(small_run):
    proc, run_dir = small_run
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "reported, not judged: N/first = 3 < 1,000" in proc.stdout
    assert "deselected" in proc.stdout  # a --scale run is the scale suite alone
    run = json.loads((run_dir / "conformance.json").read_text())
    scale = run["scale"]
    assert [s["namespaces"] for s in scale["steps"]] == [1, 3]
    for step in scale["steps"]:
        for op in ("list", "get", "watch_start", "event_delivery", "cross_namespace_list"):
            assert len(step["samples_s"][op]) == (6 if step["namespaces"] == 1 else 2) and step["median_s"][op] > 0
        assert step["median_s"]["namespace_deletion"] > 0
    assert scale["growth"]["list"]["judged"] is False
    assert scale["removal"]["left"] == [] and scale["removal"]["skipped"]  # embedded: discarded with the server
    clause = next(c for c in run["clauses"] if c["id"] == "NS-SCALE-001")
    assert clause["status"] == "skipped"
    # the suite's API calls count in the endpoint coverage, attributed to its clause, like any suite's
    rows = {row["endpoint"]: row for row in run["coverage"]}
    for endpoint in ("ns-create", "ns-delete", "content-create", "content-list", "content-get", "content-watch",
                     "content-delete", "content-list-all"):
        assert rows[endpoint]["hits"] > 0 and "NS-SCALE-001" in rows[endpoint]["clauses"], (endpoint, rows[endpoint])

    from conformance.schemas import validate
    validate(run, "ConformanceRun")
    html = (run_dir / "conformance.html").read_text()
    assert "<svg" in html and "Per-namespace operations (judged), relative to GET /version" in html


def test_without_scale_the_suite_skips_with_the_option_to_use(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "pytest", "--pyargs", "conformance.suites.test_scale",
                           "-p", "no:cacheprovider", "-q", "-rs", "-k", "scale_log_n", "--nsconform-reports", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "opt-in: run with --scale N" in proc.stdout
