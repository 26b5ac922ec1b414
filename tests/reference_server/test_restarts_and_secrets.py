"""Issue 13, items 5 and 8: credentials kept out of argv and logs, anonymous requests refusable, and a
--cert-dir whose CA survives a restart (a kubeconfig written earlier keeps working)."""
from __future__ import annotations

import os

import requests

from conformance.reference_server.embedded import start_embedded


def test_cert_dir_keeps_the_ca_across_restarts(tmp_path):
    d = str(tmp_path / "certs")
    first = start_embedded(tls=True, cert_dir=d)
    try:
        ca_pem = first.server.tls.ca_pem
        kubeconfig_ca = first.ca_file
        assert requests.get(f"{first.url}/version", verify=kubeconfig_ca).status_code == 200
    finally:
        first.stop()
    assert sorted(os.listdir(d)) == ["admin.crt", "admin.key", "apiserver.crt", "apiserver.key", "ca.crt", "ca.key"]
    assert all(os.stat(os.path.join(d, f)).st_mode & 0o077 == 0 for f in os.listdir(d))
    saved = str(tmp_path / "old-ca.crt")
    with open(saved, "wb") as fh:
        fh.write(ca_pem)
    second = start_embedded(tls=True, cert_dir=d)
    try:
        assert second.server.tls.ca_pem == ca_pem
        assert requests.get(f"{second.url}/version", verify=saved).status_code == 200
    finally:
        second.stop()
    assert os.path.exists(os.path.join(d, "ca.key"))  # stop() never removes a --cert-dir


def test_cert_dir_replaces_a_broken_serving_certificate(tmp_path):
    d = tmp_path / "certs"
    start_embedded(tls=True, cert_dir=str(d)).stop()
    ca = (d / "ca.crt").read_bytes()
    (d / "apiserver.crt").write_bytes(b"garbage")
    srv = start_embedded(tls=True, cert_dir=str(d))
    try:
        assert (d / "ca.crt").read_bytes() == ca
        assert requests.get(f"{srv.url}/version", verify=str(d / "ca.crt")).status_code == 200
    finally:
        srv.stop()


def test_anonymous_auth_false_refuses_requests_without_credentials(tmp_path):
    srv = start_embedded(authorization="rbac", anonymous_auth=False)
    try:
        r = requests.get(f"{srv.url}/api/v1/namespaces")
        assert r.status_code == 401 and r.json()["reason"] == "Unauthorized"
        ok = requests.get(f"{srv.url}/api/v1/namespaces", headers={"Authorization": f"Bearer {srv.token}"})
        assert ok.status_code == 200
    finally:
        srv.stop()
    on = start_embedded(authorization="rbac")
    try:  # the default, as upstream: anonymous is system:anonymous, refused by RBAC with a 403
        assert requests.get(f"{on.url}/api/v1/namespaces").status_code == 403
    finally:
        on.stop()
