"""`nsconform run --rerun-failed`: which tests of an earlier run to run again, read from its conformance.json
(pytest's own `--lf` needs a cache directory; a CI job has the report, not the cache)."""
from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

SUITES_PACKAGE = "conformance.suites"


def failed_nodeids(run: dict[str, Any]) -> list[str]:
    """Node ids of the tests that failed (in setup, call or teardown), each once, in report order."""
    found: dict[str, None] = {}
    for clause in run.get("clauses") or []:
        for test in clause.get("tests") or []:
            if test.get("outcome") == "failed":
                found[str(test["nodeid"])] = None
    for test in run.get("unmapped_tests") or []:
        if isinstance(test, dict) and test.get("outcome") == "failed":
            found[str(test["nodeid"])] = None
    return list(found)


def suite_selector(nodeid: str) -> str:
    """A node id as pytest printed it (relative to whatever rootdir that run had: `test_x.py::t`,
    `../test_x.py::t`, `conformance/suites/test_x.py::t[p]`) → `conformance.suites.test_x::t[p]` for
    `--pyargs`, which finds the installed suites from any directory."""
    file, sep, rest = nodeid.partition("::")
    module = PurePosixPath(file.replace("\\", "/")).stem
    return f"{SUITES_PACKAGE}.{module}{sep}{rest}"
