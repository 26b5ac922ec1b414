"""`nsconform report DIR --allure-html`: Allure 3 (npm `allure`, via npx) renders one small run's
allure-results. Skips only where Node/npx is missing or the npm registry does not answer."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

_SCRIPT = Path(sys.executable).with_name("nsconform")
NSCONFORM = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "conformance.cli"]
SUBSET = "test_other_verbs_on_finalize_rejected"


def _nsconform(args: list[str], cwd: Path, env: dict[str, str] | None = None,
               timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*NSCONFORM, *args], cwd=cwd, env=env or dict(os.environ), capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cwd = tmp_path_factory.mktemp("allure-run")
    proc = _nsconform(["run", "--reports", "reports", "--run-id", "small", "--", "-k", SUBSET, "-q"], cwd)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return cwd / "reports" / "small"


def test_allure3_renders_the_run(run_dir: Path, tmp_path: Path) -> None:
    if shutil.which("npx") is None:
        pytest.skip("Node.js/npx is not installed here")
    out = tmp_path / "allure"
    proc = _nsconform(["report", str(run_dir), "--allure-html", "--allure-output", str(out)], run_dir)
    if proc.returncode != 0 and any(e in proc.stderr for e in ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED",
                                                               "ETIMEDOUT", "did not finish")):
        pytest.skip(f"the npm registry did not answer: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    index = out / "index.html"
    assert index.is_file() and f"wrote {index}" in proc.stdout
    assert "<html" in index.read_text(errors="replace").lower()
    # Allure 3 writes the results it read next to the page; ours are the subset's tests
    data = "".join(p.read_text(errors="replace") for p in out.rglob("*.json"))
    assert SUBSET in data


def test_without_node_one_clear_line(run_dir: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    env = {**os.environ, "PATH": str(bare)}
    proc = _nsconform(["report", str(run_dir), "--allure-html"], run_dir, env=env, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs Node.js" in lines[0] and "npx" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_allure_results_is_one_line(run_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("allure-results", "allure-report"))
    proc = _nsconform(["report", str(copy), "--allure-html"], tmp_path, timeout=120)
    assert proc.returncode == 2 and "no allure-results here" in proc.stderr, proc.stderr


def test_the_config_gives_allure3_our_categories_and_the_clause_tree(tmp_path: Path) -> None:
    import json

    from conformance.report.allure_html import allure_config

    (tmp_path / "categories.json").write_text(json.dumps([
        {"name": "Timed out", "matchedStatuses": ["failed"], "messageRegex": "(?s).*WaitTimeout.*"},
        {"name": "Violation", "matchedStatuses": ["failed"]}]))
    config = allure_config(tmp_path, "nsconform x")
    assert config["name"] == "nsconform x"
    assert config["plugins"]["awesome"]["options"]["groupBy"] == ["epic", "feature", "story"]
    timed_out, violation = config["categories"]
    assert timed_out["messageRegex"] == r"[\s\S]*WaitTimeout[\s\S]*"  # JavaScript has no (?s)
    assert violation == {"name": "Violation", "matchedStatuses": ["failed"]}
    assert "categories" not in allure_config(tmp_path / "none", "n")
