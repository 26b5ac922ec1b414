"""The product passes on the bundled server: the whole conformance suite, both profiles, through the CLI a
user types, with every artefact written and agreeing with the exit code."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

@pytest.mark.parametrize("profile", ["kubernetes", "design"])
def test_nsconform_run_passes_on_embedded_server(tmp_path, profile):
    proc = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--profile", profile, "--authorization", "rbac",
         "--reports", str(tmp_path / "reports"), "--run-id", f"ci-{profile}"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    run_dir = tmp_path / "reports" / f"ci-{profile}"
    for artefact in ("conformance.json", "conformance.html", "conformance.md", "junit.xml"):
        assert (run_dir / artefact).is_file(), f"{artefact} missing in {sorted(p.name for p in run_dir.iterdir())}"
    assert any((run_dir / "allure-results").glob("*-result.json"))
    run = json.loads((run_dir / "conformance.json").read_text())
    assert run["exit_status"] == 0
    assert run["target"]["profile"] == profile
    failed = [c["id"] for c in run["clauses"] if c["status"] == "failed"]
    assert not failed, failed
    assert run["summary"]["clauses"]["passed"] > 0
