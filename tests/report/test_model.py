"""The run document: clause status rules, summary counts, profile filtering, schema validity."""

from __future__ import annotations

import report_samples as s

from conformance.report.model import build_run, clause_status, failing_clauses, groups
from conformance.schemas import validate


def test_clause_status_rules() -> None:
    assert clause_status([]) == "untested"
    assert clause_status(["passed", "passed"]) == "passed"
    assert clause_status(["passed", "failed", "skipped"]) == "failed"
    assert clause_status(["skipped", "skipped"]) == "skipped"
    assert clause_status(["skipped", "passed"]) == "passed"


def test_sample_run_statuses_and_summary() -> None:
    run = s.sample_run()
    status = {c["id"]: c["status"] for c in run["clauses"]}
    assert status["NS-FIN-001"] == "failed"
    assert status["NS-FIN-002"] == "passed"
    assert status["NS-LC-002"] == "skipped"
    assert status["NS-COV-001"] == "untested"
    assert status["NS-ER-001"] == "failed"  # one passing and one failing test ⇒ failed
    assert "NS-DSG-001" not in status        # design-only clause, not applicable to the kubernetes profile
    assert run["summary"]["clauses"] == {"failed": 5, "passed": 5, "skipped": 1, "untested": 1, "total": 12}
    assert run["summary"]["tests"] == {"passed": 6, "failed": 4, "skipped": 1, "total": 11}
    assert run["summary"]["categories"] == {"violation": 2, "timeout": 1, "harness": 1}
    assert [t["nodeid"] for t in run["unmapped_tests"]] == ["conformance/suites/test_misc.py::test_without_clause"]
    validate(run, "ConformanceRun")


def test_contract5_keys_present() -> None:
    run = s.sample_run()
    for key in ("harness", "run_id", "started", "duration_s", "target", "exit_status", "summary", "clauses", "coverage"):
        assert key in run
    clause = run["clauses"][0]
    assert {"id", "group", "requirement", "source", "severity", "status", "tests"} <= clause.keys()
    test = clause["tests"][0]
    assert {"nodeid", "outcome", "duration_s", "message", "category", "exchanges"} <= test.keys()
    row = run["coverage"][0]
    assert {"endpoint", "method", "path", "profile", "hits", "clauses"} <= row.keys()


def test_exchanges_kept_only_for_failures() -> None:
    run = s.sample_run()
    for clause in run["clauses"]:
        for t in clause["tests"]:
            if t["outcome"] != "failed":
                assert t["exchanges"] == [] and t["category"] is None
    fin = next(c for c in run["clauses"] if c["id"] == "NS-FIN-001")
    assert len(fin["tests"][0]["exchanges"]) == 2


def test_unknown_clause_is_reported_not_dropped() -> None:
    run = build_run(catalogue=s.CATALOGUE, tests=[{"nodeid": "t::x", "outcome": "passed", "clauses": ["NS-NEW-9"]}],
                    target=s.TARGET, run_id="r", started="2026-01-01T00:00:00+00:00", duration_s=1, exit_status=0,
                    profile="kubernetes")
    new = next(c for c in run["clauses"] if c["id"] == "NS-NEW-9")
    assert new["status"] == "passed" and new["group"] == "unknown"


def test_failing_clauses_most_severe_first_and_groups() -> None:
    run = s.sample_run()
    sev = [c["severity"] for c in failing_clauses(run)]
    assert sev == sorted(sev, key={"critical": 0, "major": 1, "minor": 2}.get)
    g = dict(groups(run))
    assert g["finalizers"] == {"failed": 1, "passed": 1, "skipped": 0, "untested": 0}


def test_packaged_catalogue_and_endpoint_table_load() -> None:
    from conformance.report.catalogue import CLAUSE_KEYS, endpoint_rows, load_clauses

    clauses = load_clauses()
    assert clauses and all(set(CLAUSE_KEYS) == c.keys() for c in clauses)
    assert all(c["severity"] in ("critical", "major", "minor") for c in clauses)
    rows = endpoint_rows("kubernetes")
    assert rows and all(r["id"] and r["method"] and r["path"] for r in rows)
    assert all("kubernetes" in r["profiles"] for r in rows)
