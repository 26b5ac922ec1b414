"""The opt-in storage suite (`--etcd-endpoints`) against `nsconform serve --storage etcd` on a private etcd, read
through a non-default `--etcd-prefix`, as a user would run it against a self-managed cluster."""
from __future__ import annotations

import json
import subprocess
import sys

from conformance.cli import main
from tests.reference_server.backends import etcd_process, need_etcd  # noqa: F401 - the fixture
from tests.suites.serving import CHILD_ENV, serving

STORAGE_CLAUSES = {f"NS-STOR-00{i}" for i in range(1, 6)}


def test_storage_clauses_pass_on_the_etcd_backed_server(tmp_path, etcd_process):  # noqa: F811
    need_etcd()
    with serving(tmp_path, "--storage", "etcd", "--etcd-servers", etcd_process.url,
                 "--etcd-prefix", "/nsc-storage-suite") as url:
        proc = subprocess.run(
            [sys.executable, "-m", "conformance.cli", "run", "--server", url, "--profile", "kubernetes",
             "--etcd-endpoints", etcd_process.url, "--etcd-prefix", "/nsc-storage-suite",
             "-n", "1", "--reports", str(tmp_path / "reports"), "--run-id", "storage", "--", "-m", "storage"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path, env=CHILD_ENV)
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    run = json.loads((tmp_path / "reports" / "storage" / "conformance.json").read_text())
    passed = {c["id"] for c in run["clauses"] if c["status"] == "passed"}
    assert STORAGE_CLAUSES <= passed, sorted(STORAGE_CLAUSES - passed)


def test_etcd_certificates_need_endpoints(capsys):
    assert main(["run", "--etcd-cert", "client.crt"]) == 2
    assert "--etcd-endpoints" in capsys.readouterr().err
