"""The product passes on the etcd-backed server too: `nsconform serve --storage etcd --etcd-servers embedded`
(a real etcd, started by the server) as a separate process, the kubernetes profile's whole suite run against it
through `--server`, as a user would against a cluster."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conformance.reference_server.storage.etcdprocess import etcd_binary


def test_nsconform_run_passes_on_the_etcd_backed_server(tmp_path):
    if etcd_binary() is None:  # CI installs it (.ci/run): there its absence fails
        (pytest.fail if os.environ.get("CI") else pytest.skip)("etcd is not installed (apt-get install etcd-server)")
    env = {**{k: v for k, v in os.environ.items() if k not in ("NSCONFORM_TOKEN", "KUBECONFIG")},
           "PYTHONUNBUFFERED": "1"}
    log = tmp_path / "serve.log"
    serve = subprocess.Popen(
        [sys.executable, "-m", "conformance.cli", "serve", "--port", "0", "--storage", "etcd",
         "--etcd-servers", "embedded", "--etcd-data-dir", str(tmp_path / "etcd"), "--authorization", "rbac",
         "--token", "etcd-suite-token"],
        cwd=tmp_path, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        url = _listening(serve, log)
        proc = subprocess.run(
            [sys.executable, "-m", "conformance.cli", "run", "--server", url, "--token", "etcd-suite-token",
             "--profile", "kubernetes", "--include-disruptive", "-n", "2", "--reports", str(tmp_path / "reports"),
             "--run-id", "etcd"],
            capture_output=True, text=True, timeout=900, cwd=tmp_path, env=env)
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
        run = json.loads((tmp_path / "reports" / "etcd" / "conformance.json").read_text())
        failed = [c["id"] for c in run["clauses"] if c["status"] == "failed"]
        assert not failed, failed
        assert run["summary"]["clauses"]["passed"] > 0
    finally:
        if serve.poll() is None:
            serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(20)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait()


def _listening(serve: subprocess.Popen, log, timeout: float = 60.0) -> str:
    """The URL `serve` prints once it listens; fails with its output when it exits or hangs first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in log.read_text().splitlines():
            if "listening on" in line:
                return line.rsplit(" ", 1)[-1].strip()
        if serve.poll() is not None:
            break
        time.sleep(0.05)
    pytest.fail(f"nsconform serve --storage etcd did not start: {log.read_text()[-2000:]}")
