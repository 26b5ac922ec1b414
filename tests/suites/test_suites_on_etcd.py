"""The product passes on the etcd-backed server too: `nsconform serve --storage etcd --etcd-servers embedded`
(a real etcd, started by the server) as a separate process, the kubernetes profile's whole suite run against it
through `--server`, as a user would against a cluster."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.reference_server.backends import need_etcd
from tests.suites.serving import CHILD_ENV, serving


def test_nsconform_run_passes_on_the_etcd_backed_server(tmp_path):
    need_etcd()
    with serving(tmp_path, "--storage", "etcd", "--etcd-servers", "embedded", "--etcd-data-dir",
                 str(tmp_path / "etcd"), "--authorization", "rbac", "--token", "etcd-suite-token") as url:
        proc = subprocess.run(
            [sys.executable, "-m", "conformance.cli", "run", "--server", url, "--token", "etcd-suite-token",
             "--profile", "kubernetes", "--include-disruptive", "-n", "2", "--reports", str(tmp_path / "reports"),
             "--run-id", "etcd"],
            capture_output=True, text=True, timeout=900, cwd=tmp_path, env=CHILD_ENV)
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    run = json.loads((tmp_path / "reports" / "etcd" / "conformance.json").read_text())
    failed = [c["id"] for c in run["clauses"] if c["status"] == "failed"]
    assert not failed, failed
    assert run["summary"]["clauses"]["passed"] > 0
