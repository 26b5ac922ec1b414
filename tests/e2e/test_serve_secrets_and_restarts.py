"""Issue 13 (items 5 and 8) on the real `nsconform serve` process: the token comes from a file (never in
argv), no log line holds it even for a malformed request carrying it, and a --cert-dir keeps the CA, so a
kubeconfig written by the first run still works after a restart."""
from __future__ import annotations

import socket
import urllib.parse

import requests
import yaml

from . import _procs

SECRET = "s3cr3t-t0k3n-from-file"


def _serve(tmp_path, *extra: str):
    proc = _procs.start(["serve", "--port", "0", "-v", "--token-file", str(tmp_path / "token"),
                         "--cert-dir", str(tmp_path / "certs"), *extra], cwd=tmp_path)
    out, err = _procs.LineReader(proc.stdout), _procs.LineReader(proc.stderr)
    url = out.wait_for("listening on", timeout=15).rsplit(" ", 1)[-1].strip()
    return proc, out, err, url


def test_token_file_cert_dir_and_masked_logs(tmp_path):
    (tmp_path / "token").write_text(SECRET + "\n")
    kubeconfig = tmp_path / "kubeconfig"
    proc, out, err, url = _serve(tmp_path, "--write-kubeconfig", str(kubeconfig))
    try:
        out.wait_for("kubeconfig written", timeout=10)
        with open(f"/proc/{proc.pid}/cmdline", "rb") as fh:
            assert SECRET.encode() not in fh.read()
        ca = yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]["certificate-authority-data"]
        import base64
        (tmp_path / "ca.crt").write_bytes(base64.b64decode(ca))
        ok = requests.get(f"{url}/api/v1/namespaces", headers={"Authorization": f"Bearer {SECRET}"},
                          verify=str(tmp_path / "ca.crt"), timeout=10)
        assert ok.status_code == 200
        assert requests.get(f"{url}/api/v1/namespaces", verify=str(tmp_path / "ca.crt"),
                            timeout=10).status_code == 401
        import ssl
        u = urllib.parse.urlsplit(url)
        ctx = ssl.create_default_context(cafile=str(tmp_path / "ca.crt"))
        with socket.create_connection((u.hostname, u.port), timeout=10) as raw, \
                ctx.wrap_socket(raw, server_hostname=u.hostname) as c:
            c.sendall(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                      + SECRET.encode() + b"\x01x\r\n\r\n")
            answer = c.recv(4096)
        assert answer.split(b"\r\n", 1)[0].endswith(b"400 Bad Request") and SECRET.encode() not in answer
    finally:
        _procs.stop(proc)
    logs = err.rest() + out.rest()
    assert SECRET not in logs, logs
    _procs.no_traceback(logs)

    proc, out, err, url = _serve(tmp_path)  # a restart: the kubeconfig's CA still verifies the server
    try:
        r = requests.get(f"{url}/version", headers={"Authorization": f"Bearer {SECRET}"},
                         verify=str(tmp_path / "ca.crt"), timeout=10)
        assert r.status_code == 200
    finally:
        _procs.stop(proc)
