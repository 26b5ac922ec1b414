"""Group `coverage`: every endpoint-table row of the profile is exercised by the run.

Under xdist no single test sees every request, so the report judges this clause from the whole run's
recorded exchanges (conformance.report.coverage.evaluate_coverage_clauses) and fails the run when a row
was never requested; this test only anchors the clause in the suite.
"""

from __future__ import annotations

import pytest


@pytest.mark.clause("NS-COV-001")
@pytest.mark.skip(reason="judged by the report from the whole run's endpoint coverage")
def test_every_endpoint_row_exercised():
    """Anchor for NS-COV-001; the verdict is the report's `nsconform::endpoint-coverage` entry."""
