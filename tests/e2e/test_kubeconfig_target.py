"""Done when: `nsconform run --kubeconfig` against a cluster look-alike (`nsconform serve --tls --token
--authorization rbac --write-kubeconfig`) gives the same verdict, clause by clause, as a run on the embedded
server; leaks no credential into the reports; and leaves no namespace behind."""
from __future__ import annotations

import json
from pathlib import Path

from . import _procs


def _statuses(run_dir: Path) -> dict[str, str]:
    doc = json.loads((run_dir / "conformance.json").read_text())
    return {c["id"]: c["status"] for c in doc["clauses"]}


def test_kubeconfig_run_matches_embedded_run(served, clean_run, tmp_path):
    # --include-disruptive: the served server is throw-away, so NS-IMM-002 (really deleting `default`) runs
    # as it does on the embedded server, and the verdicts are comparable clause by clause.
    # -n 1: the verdicts are what is compared here; the other e2e runs use the cluster default (-n 4).
    res = _procs.run(["run", "--kubeconfig", str(served.kubeconfig), "--include-disruptive", "-n", "1",
                      "--reports", str(tmp_path / "r"), "--run-id", "kc"], cwd=tmp_path)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    _procs.no_traceback(res.stderr)
    kc_dir = tmp_path / "r" / "kc"
    doc = json.loads((kc_dir / "conformance.json").read_text())
    assert doc["exit_status"] == 0
    assert doc["target"]["kind"] == "kubeconfig" and doc["target"]["url"] == served.url

    emb, kc = _statuses(clean_run), _statuses(kc_dir)
    assert kc.keys() == emb.keys()
    assert {cid: (emb[cid], kc[cid]) for cid in emb if emb[cid] != kc[cid]} == {}
    assert "failed" not in kc.values()

    cmp = _procs.run(["report", "--compare", str(clean_run), str(kc_dir)], cwd=tmp_path, timeout=60)
    assert cmp.returncode == 0, cmp.stdout + cmp.stderr
    _procs.no_traceback(cmp.stderr)

    # No credential in any artefact (reports, junit, allure results).
    files = [p for p in (tmp_path / "r").rglob("*") if p.is_file()]
    assert len(files) > 4
    leaked = [str(p) for p in files if served.token.encode() in p.read_bytes()]
    assert leaked == []
    assert served.token not in res.stdout + res.stderr

    # Nothing left on the server (a namespace still finishing its termination may take a moment).
    _procs.poll(lambda: served.managed() == [], timeout=15, what="no managed-by=nsconform namespace left")
