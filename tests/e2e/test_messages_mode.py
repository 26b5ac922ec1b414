"""`--messages warn`: an implementation that words its errors its own way is told so, not failed for it;
the report says the messages were not compared."""
from __future__ import annotations

import json

from . import _procs

DEVIATION = "terminating-conflict-message"  # NS-LIF-008: right code and reason, kube-apiserver's message not


def test_message_only_deviation_fails_exact_and_warns_under_warn(tmp_path):
    def run(run_id: str, *options: str):
        return _procs.run(["run", "--deviate", DEVIATION, "--reports", str(tmp_path / "r"), "--run-id", run_id,
                           *options, "--", "-k", "test_create_while_terminating_conflicts"], cwd=tmp_path)

    exact = run("exact")
    assert exact.returncode == 1, exact.stdout[-3000:] + exact.stderr[-3000:]
    assert "message: expected 'object is being deleted: namespaces" in exact.stdout

    warn = run("warn", "--messages", "warn")
    assert warn.returncode == 0, warn.stdout[-3000:] + warn.stderr[-3000:]
    assert "Status messages: warn only" in warn.stdout  # the header says how this run compared
    assert "MessageMismatch" in warn.stdout and "object is being deleted" in warn.stdout
    doc = json.loads((tmp_path / "r" / "warn" / "conformance.json").read_text())
    assert doc["messages"] == "warn"
    assert "Status messages were not compared" in (tmp_path / "r" / "warn" / "conformance.md").read_text()
    assert "not compared (--messages warn)" in (tmp_path / "r" / "warn" / "conformance.html").read_text()
