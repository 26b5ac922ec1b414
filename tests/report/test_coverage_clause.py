"""The coverage clause is judged by the report from the whole run's coverage table."""
from __future__ import annotations

from conformance.report.coverage import COVERAGE_NODEID, evaluate_coverage_clauses


def _run(hits: list[int]) -> dict:
    return {"clauses": [{"id": "NS-COV-001", "group": "coverage", "status": "skipped",
                         "tests": [{"nodeid": "t::placeholder", "outcome": "skipped"}]},
                        {"id": "NS-X-001", "group": "phase", "status": "passed", "tests": []}],
            "coverage": [{"endpoint": f"row-{i}", "method": "GET", "path": f"/p/{i}", "hits": h}
                         for i, h in enumerate(hits)],
            "summary": {"clauses": {"failed": 0, "passed": 1, "skipped": 1, "untested": 0}}}


def test_every_row_hit_passes():
    run = _run([1, 3])
    assert evaluate_coverage_clauses(run, full_run=True) is False
    assert run["clauses"][0]["status"] == "passed"
    assert run["summary"]["clauses"]["passed"] == 2


def test_unreached_row_fails_and_names_it():
    run = _run([1, 0])
    assert evaluate_coverage_clauses(run, full_run=True) is True
    clause = run["clauses"][0]
    assert clause["status"] == "failed"
    synthetic = [t for t in clause["tests"] if t["nodeid"] == COVERAGE_NODEID]
    assert synthetic and "GET /p/1" in synthetic[0]["message"]
    assert run["summary"]["clauses"]["failed"] == 1


def test_partial_run_is_not_judged():
    run = _run([0, 0])
    assert evaluate_coverage_clauses(run, full_run=False) is False
    assert run["clauses"][0]["status"] == "skipped"


def test_judging_twice_keeps_one_verdict():
    run = _run([1, 0])
    evaluate_coverage_clauses(run, full_run=True)
    evaluate_coverage_clauses(run, full_run=True)
    assert sum(t["nodeid"] == COVERAGE_NODEID for t in run["clauses"][0]["tests"]) == 1


def test_passed_verdict_has_a_string_message():
    # Regression: the passed verdict carried "message": None, which the ConformanceRun schema rejects, so
    # `nsconform report` / `report --compare` refused every full run's conformance.json (exit 2).
    run = _run([1, 3])
    evaluate_coverage_clauses(run, full_run=True)
    synthetic = [t for t in run["clauses"][0]["tests"] if t["nodeid"] == COVERAGE_NODEID]
    assert synthetic[0]["outcome"] == "passed" and synthetic[0]["message"] == ""
