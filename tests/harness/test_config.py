"""Connection building from kubeconfigs (through the official loader), in-cluster and --server."""

from __future__ import annotations

import base64
import datetime as dt
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest
import requests
import yaml

from conformance.client import TargetError
from conformance.client.config import from_kubeconfig, from_server, resolve


def _write_kubeconfig(path: Path, server: str, user: dict, *, contexts=("main",), current="main",
                      cluster_extra: dict | None = None) -> Path:
    doc = {
        "apiVersion": "v1", "kind": "Config", "current-context": current,
        "clusters": [{"name": "c", "cluster": {"server": server, **(cluster_extra or {})}}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": n, "context": {"cluster": "c", "user": "u"}} for n in contexts],
    }
    path.write_text(yaml.safe_dump(doc))
    return path


def _self_signed(tmp_path: Path) -> tuple[Path, Path, bytes]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "nsconform-test")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + dt.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM)
    cert_path, key_path = tmp_path / "client.crt", tmp_path / "client.key"
    cert_path.write_bytes(pem)
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path, pem


def test_token_user_talks_to_server(tmp_path, fake):
    fake.token = "s3cret-token"
    kc = _write_kubeconfig(tmp_path / "kc", fake.url, {"token": "s3cret-token"})
    conn = from_kubeconfig(str(kc))
    assert conn.base_url == fake.url and conn.kind == "kubeconfig" and conn.context == "main"
    assert "s3cret-token" in conn.secrets
    assert conn.session.get(conn.base_url + "/version").status_code == 200


def test_client_certificate_files_mapped_to_session(tmp_path):
    cert, key, _ = _self_signed(tmp_path)
    kc = _write_kubeconfig(tmp_path / "kc", "https://127.0.0.1:6443",
                           {"client-certificate": str(cert), "client-key": str(key)})
    conn = from_kubeconfig(str(kc))
    assert conn.session.cert == (str(cert), str(key))
    assert conn.session.auth is None


def test_ca_data_becomes_verify_file(tmp_path):
    _, _, pem = _self_signed(tmp_path)
    kc = _write_kubeconfig(tmp_path / "kc", "https://127.0.0.1:6443", {"token": "t"},
                           cluster_extra={"certificate-authority-data": base64.b64encode(pem).decode()})
    conn = from_kubeconfig(str(kc))
    assert isinstance(conn.session.verify, str)
    assert Path(conn.session.verify).read_bytes() == pem


def test_insecure_cluster_disables_verification(tmp_path):
    kc = _write_kubeconfig(tmp_path / "kc", "https://127.0.0.1:6443", {"token": "t"},
                           cluster_extra={"insecure-skip-tls-verify": True})
    assert from_kubeconfig(str(kc)).session.verify is False


def test_explicit_context_is_used(tmp_path):
    kc = _write_kubeconfig(tmp_path / "kc", "https://127.0.0.1:6443", {"token": "t"}, contexts=("a", "b"),
                           current="a")
    assert from_kubeconfig(str(kc), context="b").context == "b"


def test_unknown_context_one_line(tmp_path):
    kc = _write_kubeconfig(tmp_path / "kc", "https://127.0.0.1:6443", {"token": "t"}, contexts=("a", "b"),
                           current="a")
    with pytest.raises(TargetError) as exc:
        from_kubeconfig(str(kc), context="nope")
    msg = str(exc.value)
    assert "\n" not in msg and "'nope' not found" in msg and "a, b" in msg


@pytest.mark.parametrize("content, expect", [
    ("clusters: [unclosed\n  - x: :", "not valid YAML"),
    ("", "file is empty"),
    ("just a string", "kubeconfig"),
    ("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n", "defines no contexts"),
])
def test_malformed_kubeconfig_one_line(tmp_path, content, expect):
    kc = tmp_path / "kc"
    kc.write_text(content)
    with pytest.raises(TargetError) as exc:
        from_kubeconfig(str(kc))
    assert expect in str(exc.value) and "\n" not in str(exc.value)


def test_missing_kubeconfig_one_line(tmp_path):
    with pytest.raises(TargetError, match="file not found"):
        from_kubeconfig(str(tmp_path / "absent"))


def _exec_script(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "cred.py"
    script.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_exec_plugin_token(tmp_path, fake):
    fake.token = "from-exec"
    script = _exec_script(tmp_path, """
        import json
        print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                          "status": {"token": "from-exec"}}))
    """)
    kc = _write_kubeconfig(tmp_path / "kc", fake.url, {"exec": {
        "apiVersion": "client.authentication.k8s.io/v1", "command": str(script), "interactiveMode": "Never"}})
    conn = from_kubeconfig(str(kc))
    assert "from-exec" in conn.secrets
    assert conn.session.get(conn.base_url + "/version").status_code == 200


def test_exec_plugin_failure_one_line(tmp_path):
    script = _exec_script(tmp_path, """
        import sys
        sys.stderr.write("no credentials for you\\n")
        sys.exit(3)
    """)
    kc = _write_kubeconfig(tmp_path / "kc", "https://127.0.0.1:6443", {"exec": {
        "apiVersion": "client.authentication.k8s.io/v1", "command": str(script), "interactiveMode": "Never"}})
    with pytest.raises(TargetError) as exc:
        from_kubeconfig(str(kc))
    assert "exec credential plugin failed" in str(exc.value) and "\n" not in str(exc.value)


def test_server_options(fake):
    conn = from_server(fake.url + "/", token="tok", insecure=True)
    assert conn.base_url == fake.url and conn.session.verify is False and conn.secrets == ("tok",)
    prep = conn.session.prepare_request(requests.Request("GET", conn.base_url + "/version"))
    assert prep.headers["Authorization"] == "Bearer tok"


def test_resolve_rules(tmp_path):
    assert resolve() is None  # no target: the embedded server
    with pytest.raises(TargetError, match="--token needs --server"):
        resolve(token="x")
    with pytest.raises(TargetError, match="cannot be combined"):
        resolve(server="http://x", kubeconfig="k")
    with pytest.raises(TargetError, match="http"):
        resolve(server="ftp://x")


def test_default_kubeconfig_from_env(tmp_path, monkeypatch, fake):
    kc = _write_kubeconfig(tmp_path / "kc", fake.url, {"token": "t"})
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(tmp_path / "missing"), str(kc)]))
    assert from_kubeconfig().base_url == fake.url


@pytest.fixture
def sni_server(tmp_path):
    """An HTTPS server whose certificate names only `api.nsconform.test`, reached at 127.0.0.1."""
    import http.server
    import threading

    from conformance.reference_server.tls import generate

    tls = generate(hosts=("api.nsconform.test",))

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = b'{"gitVersion": "v1.33.0"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.socket = tls.ssl_context().wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"https://127.0.0.1:{httpd.server_address[1]}", tls
    finally:
        httpd.shutdown()
        httpd.server_close()
        tls.cleanup()


def test_tls_server_name_is_used_for_sni_and_verification(tmp_path, sni_server):
    import base64

    import requests

    from conformance.client.api import KubeClient

    url, tls = sni_server
    ca = {"certificate-authority-data": base64.b64encode(tls.ca_pem).decode()}
    plain = from_kubeconfig(str(_write_kubeconfig(tmp_path / "plain", url, {"token": "t"}, cluster_extra=ca)))
    with pytest.raises(requests.exceptions.SSLError):  # the certificate does not name 127.0.0.1
        plain.session.get(url + "/version", timeout=10)

    named = from_kubeconfig(str(_write_kubeconfig(tmp_path / "named", url, {"token": "t"},
                                                  cluster_extra={**ca, "tls-server-name": "api.nsconform.test"})))
    assert named.session.get(url + "/version", timeout=10).json()["gitVersion"] == "v1.33.0"
    stream_session = KubeClient(named.base_url, session=named.session)._stream_session()  # watches' own pool
    assert stream_session.get(url + "/version", timeout=10).status_code == 200
