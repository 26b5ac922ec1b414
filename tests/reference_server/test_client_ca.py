"""`--client-ca-file`, the generated admin certificate and kubeconfig, and client certificates on an always-allow
server (the token check of `http/app.py`), in the serve options and `--cert-dir`.

Upstream: kube-apiserver's `--client-ca-file` (staging/src/k8s.io/apiserver/pkg/server/options/authentication.go),
x509.go and config.go's union (a certificate that fails is a 401 unless a token authenticates; AlwaysAllow
authorizes, it does not skip authentication), kubeadm's admin.conf / super-admin.conf subjects.
"""
from __future__ import annotations

import argparse
import base64
import secrets
from pathlib import Path

import pytest
import requests
import yaml
from cryptography import x509

from conformance.reference_server import serve
from conformance.reference_server.embedded import RunningServer, start_embedded
from tests.tools import certs

# long random tokens: the server masks every token in its logs, process-wide (logmask.protect)
TOKEN, ROOT = secrets.token_hex(16), secrets.token_hex(16)
SSR = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
SSR_BODY = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}


def _post(srv: RunningServer, cert: tuple[str, str] | None = None, token: str | None = None) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.post(srv.url + SSR, json=SSR_BODY, verify=srv.ca_file, cert=cert, headers=headers, timeout=10)


def _kubeconfig_user(srv: RunningServer, tmp_path: Path) -> dict:
    srv.write_kubeconfig(str(tmp_path / "kc"))
    return yaml.safe_load((tmp_path / "kc").read_text())["users"][0]["user"]


def _admin_files(user: dict, tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "a.crt").write_bytes(base64.b64decode(user["client-certificate-data"]))
    (tmp_path / "a.key").write_bytes(base64.b64decode(user["client-key-data"]))
    return str(tmp_path / "a.crt"), str(tmp_path / "a.key")


def test_always_allow_with_token_accepts_the_admin_certificate_instead(tmp_path) -> None:
    srv = start_embedded(tls=True, token=TOKEN)
    try:
        assert _kubeconfig_user(srv, tmp_path) == {"token": TOKEN}  # --token given: the identity asked for
        admin = srv.server.tls
        cert = certs.Pair(None, x509.load_pem_x509_certificate(admin.admin_cert_pem))
        (tmp_path / "a.crt").write_bytes(admin.admin_cert_pem)
        (tmp_path / "a.key").write_bytes(admin.admin_key_pem)
        r = _post(srv, (str(tmp_path / "a.crt"), str(tmp_path / "a.key")))
        assert r.status_code == 201, r.text
        assert r.json()["status"]["userInfo"]["username"] == "kubernetes-super-admin"  # not kind: system:masters
        assert cert.cert.subject.rfc4514_string() == "CN=kubernetes-super-admin,O=system:masters"
        assert _post(srv).status_code == 401  # neither certificate nor token, as before
        assert _post(srv, token=TOKEN).json()["status"]["userInfo"]["username"] == "system:admin"
        bad = certs.leaf(certs.ca("other")).files(tmp_path, "bad")
        assert _post(srv, bad).status_code == 401
        assert _post(srv, bad, TOKEN).status_code == 201
    finally:
        srv.stop()


def test_always_allow_without_token_refuses_only_a_failed_certificate(tmp_path) -> None:
    srv = start_embedded(tls=True)
    try:
        user = _kubeconfig_user(srv, tmp_path)
        assert sorted(user) == ["client-certificate-data", "client-key-data"]  # kind's kind of kubeconfig
        admin = _admin_files(user, tmp_path)
        r = _post(srv, admin)
        assert r.json()["status"]["userInfo"]["groups"] == ["system:masters", "system:authenticated"]
        # API Priority and Fairness classifies by the certificate's user too: system:masters is `exempt`
        exempt = requests.get(srv.url + "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt", verify=srv.ca_file,
                              timeout=10).json()["metadata"]["uid"]
        r = requests.get(srv.url + "/api/v1/namespaces", verify=srv.ca_file, cert=admin, timeout=10)
        assert r.headers["X-Kubernetes-PF-FlowSchema-UID"] == exempt
        r = requests.get(srv.url + "/api/v1/namespaces", verify=srv.ca_file, timeout=10)
        assert r.headers["X-Kubernetes-PF-FlowSchema-UID"] != exempt
        assert _post(srv).json()["status"]["userInfo"]["username"] == "system:anonymous"
        expired = certs.leaf(certs.ca("other"), days=(-9, -1)).files(tmp_path, "old")
        r = _post(srv, expired)
        assert (r.status_code, r.json()["reason"]) == (401, "Unauthorized")
        assert requests.get(srv.url + "/healthz", verify=srv.ca_file, cert=expired, timeout=10).status_code == 401
    finally:
        srv.stop()


def test_anonymous_auth_false_over_tls_needs_a_certificate_or_the_token(tmp_path) -> None:
    srv = start_embedded(tls=True, anonymous_auth=False)
    try:
        assert _post(srv).status_code == 401
        assert _post(srv, _admin_files(_kubeconfig_user(srv, tmp_path), tmp_path)).status_code == 201
    finally:
        srv.stop()


def test_client_ca_file_names_another_ca(tmp_path) -> None:
    ca = certs.ca("corp-ca")
    (tmp_path / "ca.pem").write_bytes(ca.cert_pem)
    srv = start_embedded(client_ca_file=str(tmp_path / "ca.pem"), authorization="rbac", token=ROOT)
    try:
        assert srv.url.startswith("https://")  # --client-ca-file implies TLS
        jane = certs.leaf(ca, "jane", ("devs",)).files(tmp_path, "jane")
        r = _post(srv, jane)
        assert r.json()["status"]["userInfo"]["username"] == "jane"
        assert _kubeconfig_user(srv, tmp_path) == {"token": ROOT}  # no key of that CA: no admin certificate
        cm = requests.get(srv.url + "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication",
                          verify=srv.ca_file, headers={"Authorization": f"Bearer {ROOT}"}, timeout=10).json()
        assert cm["data"] == {"client-ca-file": ca.cert_pem.decode()}
        assert srv.server.tls.admin_cert_pem == b""
    finally:
        srv.stop()


def test_a_client_ca_file_without_certificates_stops_the_start(tmp_path) -> None:
    (tmp_path / "ca.pem").write_text("nothing here\n")
    with pytest.raises(ValueError, match="data does not contain any valid RSA or ECDSA certificates"):
        start_embedded(client_ca_file=str(tmp_path / "ca.pem"))


def test_cert_dir_keeps_the_admin_certificate(tmp_path) -> None:
    d = str(tmp_path / "pki")
    first = start_embedded(cert_dir=d, flavor="kind")
    try:
        user = _kubeconfig_user(first, tmp_path)
    finally:
        first.stop()
    assert (tmp_path / "pki" / "admin.crt").exists() and (tmp_path / "pki" / "admin.key").stat().st_mode & 0o077 == 0
    second = start_embedded(cert_dir=d, flavor="kind")
    try:
        (tmp_path / "again").mkdir()
        assert _kubeconfig_user(second, tmp_path / "again") == user  # the same certificate and key
        r = _post(second, _admin_files(user, tmp_path))
        assert r.json()["status"]["userInfo"]["username"] == "kubernetes-admin"
    finally:
        second.stop()


def test_serve_option() -> None:
    p = argparse.ArgumentParser()
    serve.add_arguments(p)
    assert serve._hardening(p.parse_args(["--client-ca-file", "/x.pem"]))["client_ca_file"] == "/x.pem"
    assert serve._hardening(p.parse_args([]))["client_ca_file"] is None


def test_serve_refuses_an_unreadable_client_ca_file(tmp_path, capsys) -> None:
    assert serve.main(["--client-ca-file", str(tmp_path / "missing.pem"), "--port", "0"]) == 2
    assert "nsconform serve: error:" in capsys.readouterr().err


def test_front_proxy_user_and_the_published_configuration(tmp_path) -> None:
    from conformance.reference_server.auth.requestheader import RequestHeaderConfig

    proxy_ca = certs.ca("front-proxy-ca")
    (tmp_path / "fp.pem").write_bytes(proxy_ca.cert_pem)
    config = RequestHeaderConfig(str(tmp_path / "fp.pem"), ("front-proxy-client",), ("X-Remote-User",),
                                 ("X-Remote-Uid",), ("X-Remote-Group",), ("X-Remote-Extra-",))
    srv = start_embedded(tls=True, authorization="rbac", token=ROOT, request_header=config)
    try:
        proxy = certs.leaf(proxy_ca, "front-proxy-client", ()).files(tmp_path, "proxy")
        r = requests.post(srv.url + SSR, json=SSR_BODY, verify=srv.ca_file, cert=proxy, timeout=10,
                          headers={"X-Remote-User": "jane", "X-Remote-Uid": "42", "X-Remote-Group": "system:masters",
                                   "X-Remote-Extra-Reason": "audit"})
        assert r.status_code == 201, r.text
        assert r.json()["status"]["userInfo"] == {"username": "jane", "uid": "42",
                                                  "groups": ["system:masters", "system:authenticated"],
                                                  "extra": {"reason": ["audit"]}}
        r = requests.post(srv.url + SSR, json=SSR_BODY, verify=srv.ca_file, cert=proxy, timeout=10)
        assert r.status_code == 401  # no user header: the x509 authenticator (the server's CA) refuses the proxy's
        cm = requests.get(srv.url + "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication",
                          verify=srv.ca_file, headers={"Authorization": f"Bearer {ROOT}"}, timeout=10).json()
        assert cm["data"] == {
            "client-ca-file": Path(srv.ca_file).read_text(),
            "requestheader-allowed-names": '["front-proxy-client"]',
            "requestheader-client-ca-file": proxy_ca.cert_pem.decode(),
            "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]',
            "requestheader-group-headers": '["X-Remote-Group"]',
            "requestheader-uid-headers": '["X-Remote-Uid"]',
            "requestheader-username-headers": '["X-Remote-User"]'}
    finally:
        srv.stop()


def test_serve_front_proxy_options() -> None:
    p = argparse.ArgumentParser()
    serve.add_arguments(p)
    args = p.parse_args(["--requestheader-client-ca-file", "/fp.pem", "--requestheader-allowed-names", "a,b",
                         "--requestheader-allowed-names", "c", "--requestheader-username-headers", "X-Remote-User",
                         "--requestheader-group-headers", "X-Remote-Group",
                         "--requestheader-extra-headers-prefix", "X-Remote-Extra-"])
    config = serve._hardening(args)["request_header"]
    assert (config.client_ca_file, config.allowed_names, config.username_headers, config.uid_headers,
            config.group_headers, config.extra_headers_prefix) == (
        "/fp.pem", ("a", "b", "c"), ("X-Remote-User",), (), ("X-Remote-Group",), ("X-Remote-Extra-",))
    assert serve._hardening(p.parse_args(["--requestheader-username-headers", "X"]))["request_header"] is None
