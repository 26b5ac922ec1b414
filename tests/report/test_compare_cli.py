"""`nsconform report DIR` and `nsconform report --compare A B`: outputs and exit codes."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
import report_samples as s

from conformance.report.cli import main
from conformance.report.compare import compare, regressions
from conformance.report.writer import link_latest, write_run


def _write(tmp_path: Path, name: str, run: dict) -> Path:
    d = tmp_path / "reports" / name
    write_run(run, d)
    return d


def _with_status(run: dict, clause: str, status: str) -> dict:
    run = copy.deepcopy(run)
    for c in run["clauses"]:
        if c["id"] == clause:
            c["status"] = status
    return run


def test_compare_no_change_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path, "a", s.sample_run())
    b = _write(tmp_path, "b", s.sample_run())
    assert main(["--compare", str(a), str(b)]) == 0
    assert "No clause changed status." in capsys.readouterr().out


def test_compare_regression_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = s.sample_run()
    a = _write(tmp_path, "a", base)
    worse = _with_status(_with_status(base, "NS-PH-001", "failed"), "NS-FIN-001", "passed")
    worse["clauses"] = [c for c in worse["clauses"] if c["id"] != "NS-NM-001"]  # passed in A, absent in B
    b = _write(tmp_path, "b", worse)
    assert main(["report", "--compare", str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "NS-PH-001" in out and "REGRESSED" in out and "fixed" in out
    assert "3 clause(s) changed, 2 regressed." in out
    kinds = {c.clause: c.kind for c in compare(base, worse)}
    assert kinds == {"NS-PH-001": "REGRESSED", "NS-FIN-001": "fixed", "NS-NM-001": "REGRESSED"}


def test_compare_untested_counts_as_regression() -> None:
    base = s.sample_run()
    assert [c.clause for c in regressions(compare(base, _with_status(base, "NS-PH-001", "untested")))] == ["NS-PH-001"]
    assert regressions(compare(base, _with_status(base, "NS-PH-001", "skipped"))) == []


def test_missing_or_invalid_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no conformance.json" in err
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "conformance.json").write_text("{not json")
    assert main(["--compare", str(bad), str(bad)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    (bad / "conformance.json").write_text(json.dumps({"run_id": "x"}))
    assert main([str(bad)]) == 2
    assert "not a conformance.json document" in capsys.readouterr().err


def test_rerender_from_reports_dir_means_latest(tmp_path: Path) -> None:
    run_dir = _write(tmp_path, "20260101-x", s.sample_run())
    link_latest(tmp_path / "reports", run_dir)
    (run_dir / "conformance.html").unlink()
    (run_dir / "conformance.md").unlink()
    assert main([str(tmp_path / "reports")]) == 0
    assert (run_dir / "conformance.html").is_file() and (run_dir / "conformance.md").is_file()
    assert os.readlink(tmp_path / "reports" / "latest") == "20260101-x"
