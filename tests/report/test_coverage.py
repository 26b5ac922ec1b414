"""Endpoint coverage from exchanges."""

from __future__ import annotations

import report_samples as s

from conformance.report.coverage import Hit, build_coverage, coverage_failures, uncovered


def test_hits_and_clauses_per_row() -> None:
    run = s.sample_run()
    rows = {r["endpoint"]: r for r in run["coverage"]}
    assert rows["ns-create"]["hits"] == 4
    assert rows["ns-create"]["clauses"] == ["NS-CT-001", "NS-ER-001", "NS-FIN-001", "NS-FZ-001", "NS-PH-001"]
    assert rows["ns-finalize"]["clauses"] == ["NS-FIN-002"]
    assert all(r["profile"] == "kubernetes" for r in run["coverage"])
    assert [r["endpoint"] for r in uncovered(run)] == ["ns-status-patch", "cm-create"]


def test_unmatched_requests_are_listed() -> None:
    run = s.sample_run()
    assert run["coverage_unmatched"] == [{"endpoint": None, "method": "POST",
                                          "path": "/api/v1/namespaces/nsc-fz-1/finalize", "hits": 1}]


def test_coverage_failures_messages() -> None:
    msgs = coverage_failures(s.sample_run())
    assert msgs == ["PATCH /api/v1/namespaces/{name}/status (endpoint ns-status-patch) was never requested",
                    "POST /api/v1/namespaces/{ns}/configmaps (endpoint cm-create) was never requested"]
    full, _ = build_coverage([s.ENDPOINTS[0]], [Hit("ns-create", "POST", "/api/v1/namespaces", ("A",))], "kubernetes")
    assert coverage_failures({"coverage": full}) == []
