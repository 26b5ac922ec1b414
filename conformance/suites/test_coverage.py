"""Group `coverage`: every endpoint-table row of the profile is exercised by the run."""

from __future__ import annotations

import pytest


@pytest.mark.clause("NS-COV-001")
@pytest.mark.skip(reason="evaluated by the report")
def test_every_endpoint_row_exercised():
    """Placeholder: the report computes endpoint coverage from the recorded exchanges (Contract 5)."""
    raise AssertionError("evaluated by the report")
