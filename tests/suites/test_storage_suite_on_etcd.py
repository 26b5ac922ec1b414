"""The opt-in storage suite (`--etcd-endpoints`) against `nsconform serve --storage etcd` on a private etcd that
serves TLS and requires client certificates (as kubeadm's does), read through a non-default `--etcd-prefix` with
`--etcd-cacert/--etcd-cert/--etcd-key`, as a user would run it against a self-managed cluster."""
from __future__ import annotations

import json
import subprocess
import sys

import requests
from conformance.cli import main
from tests.reference_server.backends import need_etcd
from tests.reference_server.etcdtls import etcd_pki, tls_etcd  # noqa: F401 - fixtures
from tests.suites.serving import CHILD_ENV, serving

STORAGE_CLAUSES = {f"NS-STOR-00{i}" for i in range(1, 6)}


def test_storage_clauses_pass_on_the_etcd_backed_server(tmp_path, tls_etcd, etcd_pki):  # noqa: F811
    need_etcd()
    with serving(tmp_path, "--storage", "etcd", "--etcd-servers", tls_etcd.url, "--etcd-cafile", etcd_pki.ca,
                 "--etcd-certfile", etcd_pki.client_cert, "--etcd-keyfile", etcd_pki.client_key,
                 "--etcd-prefix", "/nsc-storage-suite") as url:
        proc = subprocess.run(
            [sys.executable, "-m", "conformance.cli", "run", "--server", url, "--profile", "kubernetes",
             "--etcd-endpoints", tls_etcd.url, "--etcd-cacert", etcd_pki.ca, "--etcd-cert", etcd_pki.client_cert,
             "--etcd-key", etcd_pki.client_key, "--etcd-prefix", "/nsc-storage-suite",
             "-n", "1", "--reports", str(tmp_path / "reports"), "--run-id", "storage", "--", "-m", "storage"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
            # a CA bundle in the environment must not replace --etcd-cacert (requests lets it, unless told)
            env={**CHILD_ENV, "REQUESTS_CA_BUNDLE": requests.certs.where()})
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    run = json.loads((tmp_path / "reports" / "storage" / "conformance.json").read_text())
    passed = {c["id"] for c in run["clauses"] if c["status"] == "passed"}
    assert STORAGE_CLAUSES <= passed, sorted(STORAGE_CLAUSES - passed)
    # the suite's API calls count in the endpoint coverage, from the clauses that made them
    rows = {row["endpoint"]: row for row in run["coverage"]}
    for endpoint, clauses in (("ns-create", {"NS-STOR-001", "NS-STOR-002", "NS-STOR-004"}),
                              ("content-create", {"NS-STOR-002", "NS-STOR-003", "NS-STOR-005"}),
                              ("ns-delete", {"NS-STOR-004"})):
        assert rows[endpoint]["hits"] > 0 and clauses <= set(rows[endpoint]["clauses"]), (endpoint, rows[endpoint])


def test_etcd_certificates_need_endpoints(capsys):
    assert main(["run", "--etcd-cert", "client.crt"]) == 2
    assert "--etcd-endpoints" in capsys.readouterr().err


def test_a_wrong_etcd_ca_is_one_line_before_any_test(tmp_path, tls_etcd, etcd_pki):  # noqa: F811
    proc = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--etcd-endpoints", tls_etcd.url,
         "--etcd-cacert", etcd_pki.wrong_ca, "--etcd-cert", etcd_pki.client_cert, "--etcd-key", etcd_pki.client_key,
         "--reports", str(tmp_path / "reports"), "--", "-m", "storage"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=CHILD_ENV)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stderr.strip() == (
        f"ERROR: --etcd-endpoints: etcd unreachable at {tls_etcd.url}: etcd's serving certificate is not trusted "
        "(unable to get local issuer certificate): give the CA that signed it with --etcd-cacert"), proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
