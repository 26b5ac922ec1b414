"""The etcd backend on a TLS etcd with client-certificate authentication (`--etcd-cafile/--etcd-certfile/
--etcd-keyfile`), as kubeadm runs etcd: create, get and watch through the server; a wrong CA, a missing client
certificate or an unreadable file is one clear line from `nsconform serve`, never a traceback."""
from __future__ import annotations

import json

import pytest
import requests

from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.storage.backends import StorageConfig
from conformance.reference_server.storage.etcdclient import EtcdClient, unb64

from .backends import unique_prefix
from .etcdtls import etcd_pki, tls_etcd  # noqa: F401 - fixtures


def test_server_on_a_tls_etcd_creates_gets_and_watches(tls_etcd, etcd_pki):  # noqa: F811
    assert tls_etcd.url.startswith("https://")
    prefix = unique_prefix()
    srv = start_embedded(flavor="bare", storage=StorageConfig(
        "etcd", (tls_etcd.url,), prefix, etcd_pki.ca, etcd_pki.client_cert, etcd_pki.client_key))
    try:
        base = srv.url + "/api/v1/namespaces"
        r = requests.post(base, json={"metadata": {"name": "tls-a"}})
        assert r.status_code == 201, r.text
        rv = r.json()["metadata"]["resourceVersion"]
        with requests.get(base, params={"watch": "true", "resourceVersion": rv, "timeoutSeconds": "10"},
                          stream=True, timeout=15) as w:
            cm = {"metadata": {"name": "c"}, "data": {"k": "v"}}
            assert requests.post(base + "/tls-a/configmaps", json=cm).status_code == 201
            assert requests.post(base, json={"metadata": {"name": "tls-b"}}).status_code == 201
            event = json.loads(next(line for line in w.iter_lines() if line))
        assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "tls-b")
        got = requests.get(base + "/tls-a/configmaps/c")
        assert got.status_code == 200 and got.json()["data"] == {"k": "v"}
        # it is in etcd, read back with the client certificate, at kube-apiserver's key
        etcd = EtcdClient([tls_etcd.url], ca_file=etcd_pki.ca, cert_file=etcd_pki.client_cert,
                          key_file=etcd_pki.client_key)
        kvs = etcd.range(prefix + "/configmaps/tls-a/c")["kvs"]
        etcd.close()
        assert json.loads(unb64(kvs[0]["value"]))["data"] == {"k": "v"}
    finally:
        srv.stop()


@pytest.mark.parametrize("files, said", [
    (("wrong_ca", "client_cert", "client_key"),
     "etcd's serving certificate is not trusted (unable to get local issuer certificate): "
     "is the CA file the one that signed it?"),
    (("ca", None, None), "TLS handshake failed: etcd refused the connection; does it require a client "
                         "certificate (certificate and key files) signed by its trusted CA?"),
])
def test_serve_on_a_tls_etcd_with_wrong_credentials_is_one_line(tls_etcd, etcd_pki, files, said,  # noqa: F811
                                                                 capsys):
    from conformance.reference_server.serve import main

    argv = ["--port", "0", "--storage", "etcd", "--etcd-servers", tls_etcd.url]
    for flag, attr in zip(("--etcd-cafile", "--etcd-certfile", "--etcd-keyfile"), files):
        if attr:
            argv += [flag, getattr(etcd_pki, attr)]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"nsconform serve: error: cannot reach etcd at {tls_etcd.url}: {said}\n"


def test_serve_with_an_unreadable_certificate_file_names_it(tmp_path, capsys):
    from conformance.reference_server.serve import main

    missing = str(tmp_path / "ca.crt")
    assert main(["--port", "0", "--storage", "etcd", "--etcd-servers", "https://127.0.0.1:1",
                 "--etcd-cafile", missing]) == 2
    assert capsys.readouterr().err == f"nsconform serve: error: etcd CA file {missing}: No such file or directory\n"
