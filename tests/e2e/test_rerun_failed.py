"""`nsconform run --rerun-failed`: a CI job that has the report (not pytest's cache) reruns what failed."""
from __future__ import annotations

import json

from conformance.report.rerun import failed_nodeids

from . import _procs

DEVIATION = "accept-unqualified-finalizers"  # breaks NS-FIN-006 only; its tests fail at once


def _tests(run_dir) -> dict[str, str]:
    run = json.loads((run_dir / "conformance.json").read_text())
    return {t["nodeid"]: t["outcome"] for c in run["clauses"] for t in c["tests"]
            if not t["nodeid"].startswith("nsconform::")}  # the run's own coverage verdict is not a suite test


def test_rerun_failed_runs_exactly_the_failed_tests(tmp_path):
    reports = tmp_path / "r"
    first = _procs.run(["run", "--reports", str(reports), "--run-id", "first", "--deviate", DEVIATION,
                        "--", "-k", "finalizer"], cwd=tmp_path)
    assert first.returncode == 1, first.stdout[-3000:] + first.stderr[-3000:]
    failed = failed_nodeids(json.loads((reports / "first" / "conformance.json").read_text()))
    assert failed

    # Default source: the latest run under --reports; the bug is still there, so they fail again.
    again = _procs.run(["run", "--reports", str(reports), "--run-id", "again", "--deviate", DEVIATION,
                        "--rerun-failed"], cwd=tmp_path)
    assert again.returncode == 1, again.stdout[-3000:] + again.stderr[-3000:]
    assert f"rerunning the {len(failed)} failed test(s) of run first" in again.stdout
    assert _tests(reports / "again") == {n: "failed" for n in failed}

    # Fixed server: the same tests pass, and a partial run does not judge endpoint coverage.
    fixed = _procs.run(["run", "--reports", str(reports), "--run-id", "fixed",
                        "--rerun-failed", str(reports / "first")], cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout[-3000:] + fixed.stderr[-3000:]
    assert _tests(reports / "fixed") == {n: "passed" for n in failed}

    nothing = _procs.run(["run", "--reports", str(reports), "--rerun-failed"], cwd=tmp_path)
    assert nothing.returncode == 0 and "had no failed test: nothing to rerun" in nothing.stdout, nothing.stdout


def test_rerun_failed_without_a_report_is_one_clear_line(tmp_path):
    res = _procs.run(["run", "--reports", str(tmp_path / "none"), "--rerun-failed"], cwd=tmp_path, timeout=60)
    assert res.returncode == 2
    assert res.stdout == ""
    assert res.stderr.startswith("nsconform: --rerun-failed: ") and res.stderr.count("\n") == 1, res.stderr
