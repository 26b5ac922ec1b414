"""Which tests `nsconform run --rerun-failed` selects from an earlier run's conformance.json."""
from __future__ import annotations

import pytest

from conformance.report.rerun import failed_nodeids, suite_selector


def test_failed_nodeids_once_each_in_report_order() -> None:
    run = {"clauses": [
        {"id": "A", "tests": [{"nodeid": "test_a.py::t1", "outcome": "failed"},
                              {"nodeid": "test_a.py::t2", "outcome": "passed"}]},
        {"id": "B", "tests": [{"nodeid": "test_a.py::t1", "outcome": "failed"},  # a test of two clauses
                              {"nodeid": "test_b.py::t3[x-y]", "outcome": "failed"},
                              {"nodeid": "test_b.py::t4", "outcome": "skipped"}]}],
        "unmapped_tests": [{"nodeid": "test_c.py::t5", "outcome": "failed"}]}
    assert failed_nodeids(run) == ["test_a.py::t1", "test_b.py::t3[x-y]", "test_c.py::t5"]
    assert failed_nodeids({"clauses": [], "unmapped_tests": []}) == []


@pytest.mark.parametrize("nodeid", ["test_phase.py::test_x[a-b]", "../test_phase.py::test_x[a-b]",
                                    "conformance/suites/test_phase.py::test_x[a-b]",
                                    "lib/python3.11/site-packages/conformance/suites/test_phase.py::test_x[a-b]"])
def test_selector_ignores_the_rootdir_the_run_had(nodeid: str) -> None:
    assert suite_selector(nodeid) == "conformance.suites.test_phase::test_x[a-b]"
