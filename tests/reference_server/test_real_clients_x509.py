"""Client certificates end to end (kube-apiserver's `--client-ca-file`, kind's admin kubeconfig): kubectl 1.33,
lightkube, the official Python client, the harness and `requests` against a TLS server, as on a kind cluster.

Upstream: staging/src/k8s.io/apiserver/pkg/authentication/request/x509/x509.go, pkg/kubeapiserver/authenticator/
config.go (the union: certificate, then tokens, anonymous only when nothing failed), kubeadm's admin.conf
(CN `kubernetes-admin`, O `kubeadm:cluster-admins`, bound to `cluster-admin`), the cluster-authentication-trust
controller (`kube-system/extension-apiserver-authentication`'s `client-ca-file`).
"""
from __future__ import annotations

import base64
import hashlib
import os
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.oid import ExtendedKeyUsageOID

from conformance.reference_server.embedded import RunningServer, start_embedded
from tests.tools import certs
from tests.tools import kubectl as kubectl_tool

SSR = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
SSR_BODY = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "Unauthorized",
                "reason": "Unauthorized", "code": 401}


@pytest.fixture(scope="module")
def kind(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningServer, Path]]:
    """A kind-flavoured RBAC server over TLS (no --token: its kubeconfig is kind's, a client certificate)."""
    srv = start_embedded(tls=True, authorization="rbac", flavor="kind")
    kubeconfig = tmp_path_factory.mktemp("x509") / "kubeconfig"
    srv.write_kubeconfig(str(kubeconfig))
    try:
        yield srv, kubeconfig
    finally:
        srv.stop()


def _admin_files(kubeconfig: Path) -> tuple[str, str]:
    user = yaml.safe_load(kubeconfig.read_text())["users"][0]["user"]
    d = kubeconfig.parent
    (d / "admin.crt").write_bytes(base64.b64decode(user["client-certificate-data"]))
    (d / "admin.key").write_bytes(base64.b64decode(user["client-key-data"]))
    return str(d / "admin.crt"), str(d / "admin.key")


def _session(srv: RunningServer, cert: tuple[str, str] | None = None, token: str | None = None) -> requests.Session:
    s = requests.Session()
    s.trust_env = False
    s.verify = srv.ca_file
    s.cert = cert
    if token:
        s.headers["Authorization"] = f"Bearer {token}"
    return s


def _whoami(s: requests.Session, srv: RunningServer) -> requests.Response:
    return s.post(srv.url + SSR, json=SSR_BODY, timeout=10)


def test_kubeconfig_holds_a_kubeadm_admin_certificate(kind) -> None:
    _, kubeconfig = kind
    config = yaml.safe_load(kubeconfig.read_text())
    user = config["users"][0]["user"]
    assert sorted(user) == ["client-certificate-data", "client-key-data"]
    cert = x509.load_pem_x509_certificate(base64.b64decode(user["client-certificate-data"]))
    assert cert.subject.rfc4514_string() == "CN=kubernetes-admin,O=kubeadm:cluster-admins"
    assert list(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        ExtendedKeyUsageOID.CLIENT_AUTH]
    cluster = config["clusters"][0]["cluster"]
    ca = x509.load_pem_x509_certificate(base64.b64decode(cluster["certificate-authority-data"]))
    cert.verify_directly_issued_by(ca)  # kubeadm: one CA serves and authenticates clients


def test_self_subject_review_shows_the_certificates_user_groups_and_credential_id(kind) -> None:
    srv, kubeconfig = kind
    cert = _admin_files(kubeconfig)
    r = _whoami(_session(srv, cert), srv)
    assert r.status_code == 201, r.text
    der = x509.load_pem_x509_certificate(Path(cert[0]).read_bytes()).public_bytes(serialization.Encoding.DER)
    assert r.json()["status"]["userInfo"] == {
        "username": "kubernetes-admin", "groups": ["kubeadm:cluster-admins", "system:authenticated"],
        "extra": {"authentication.kubernetes.io/credential-id": ["X509SHA256=" + hashlib.sha256(der).hexdigest()]}}
    # kubeadm:cluster-admins is bound to cluster-admin (kubeadm's ClusterRoleBinding): the certificate administers
    assert _session(srv, cert).get(srv.url + "/api/v1/namespaces/kube-system/secrets", timeout=10).status_code == 200


@pytest.mark.parametrize("make", ["untrusted", "expired", "server-auth-only"])
def test_a_certificate_that_does_not_verify_is_401_without_a_token_and_ignored_with_one(kind, tmp_path, make) -> None:
    srv, _ = kind
    root = x509.load_pem_x509_certificate(Path(srv.ca_file).read_bytes())
    other = certs.ca("other")
    bad = {"untrusted": lambda: certs.leaf(other),
           "expired": lambda: certs.leaf(other, days=(-10, -2)),
           "server-auth-only": lambda: certs.leaf(other, usages=(ExtendedKeyUsageOID.SERVER_AUTH,))}[make]()
    if make != "untrusted":  # signed by the server's CA: only its validity or usage is wrong
        bad = _signed_by_server_ca(srv, root, make)
    files = bad.files(tmp_path, make)
    r = _whoami(_session(srv, files), srv)
    assert (r.status_code, r.json()) == (401, UNAUTHORIZED)
    r = _whoami(_session(srv, files, srv.token), srv)  # the union goes on to the bearer token
    assert r.status_code == 201 and r.json()["status"]["userInfo"]["username"] == "system:admin"


def _signed_by_server_ca(srv: RunningServer, root: Any, make: str) -> certs.Pair:
    """A leaf signed with the server's own CA key (from its TLS state), expired or for server auth only."""
    tls = srv.server.tls
    ca = certs.Pair(serialization.load_pem_private_key(tls.ca_key_pem, None), root)
    if make == "expired":
        return certs.leaf(ca, days=(-10, -2))
    return certs.leaf(ca, usages=(ExtendedKeyUsageOID.SERVER_AUTH,))


def test_no_certificate_is_the_token_or_anonymous_as_before(kind) -> None:
    srv, _ = kind
    assert _whoami(_session(srv, token=srv.token), srv).json()["status"]["userInfo"]["username"] == "system:admin"
    r = _session(srv).get(srv.url + "/api/v1/namespaces", timeout=10)
    assert r.status_code == 403 and 'User "system:anonymous" cannot list resource' in r.json()["message"]


def test_extension_apiserver_authentication_publishes_the_client_ca(kind) -> None:
    srv, _ = kind
    r = _session(srv, token=srv.token).get(
        srv.url + "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication", timeout=10)
    assert r.status_code == 200, r.text
    cm = r.json()
    assert cm["data"]["client-ca-file"] == Path(srv.ca_file).read_text()
    assert cm["data"]["requestheader-allowed-names"] == '["front-proxy-client"]'  # kubeadm's front proxy (kind)
    assert [m["manager"] for m in cm["metadata"]["managedFields"]] == ["kube-apiserver"]


def test_the_official_client_authenticates_with_the_kubeconfigs_certificate(kind) -> None:
    from kubernetes import client, config

    _, kubeconfig = kind
    api = config.new_client_from_config(str(kubeconfig))
    try:
        review = client.AuthenticationV1Api(api).create_self_subject_review(
            client.V1SelfSubjectReview(api_version="authentication.k8s.io/v1", kind="SelfSubjectReview"))
        assert review.status.user_info.username == "kubernetes-admin"
        names = [ns.metadata.name for ns in client.CoreV1Api(api).list_namespace().items]
        assert {"default", "kube-system"} <= set(names)
    finally:
        api.close()


def test_lightkube_authenticates_with_the_kubeconfigs_certificate(kind) -> None:
    lightkube = pytest.importorskip("lightkube")
    from lightkube.config.kubeconfig import KubeConfig
    from lightkube.resources.authentication_v1 import SelfSubjectReview
    from lightkube.resources.core_v1 import Namespace

    _, kubeconfig = kind
    client = lightkube.Client(KubeConfig.from_file(str(kubeconfig)))
    review = client.create(SelfSubjectReview())
    assert (review.status.userInfo.username, review.status.userInfo.groups) == (
        "kubernetes-admin", ["kubeadm:cluster-admins", "system:authenticated"])
    assert client.get(Namespace, "kube-system").metadata.name == "kube-system"


# ---- kubectl 1.33 with kind's kind of kubeconfig -------------------------------------------------------------

def _kubectl(kubeconfig: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    binary = kubectl_tool.get_kubectl()
    if binary is None:
        pytest.skip(f"kubectl 1.33 unavailable: {kubectl_tool.LAST_ERROR}")
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "KUBECONFIG": str(kubeconfig)}
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=60, env=env, check=False)


def test_kubectl_auth_whoami_get_ns_and_can_i_with_the_client_certificate(kind, tmp_path) -> None:
    _, kubeconfig = kind
    der = x509.load_pem_x509_certificate(Path(_admin_files(kubeconfig)[0]).read_bytes()).public_bytes(
        serialization.Encoding.DER)
    whoami = _kubectl(kubeconfig, tmp_path, "auth", "whoami")
    assert (whoami.returncode, whoami.stderr) == (0, "")
    assert whoami.stdout == (
        "ATTRIBUTE                                           VALUE\n"
        "Username                                            kubernetes-admin\n"
        "Groups                                              [kubeadm:cluster-admins system:authenticated]\n"
        "Extra: authentication.kubernetes.io/credential-id   "
        f"[X509SHA256={hashlib.sha256(der).hexdigest()}]\n")
    get = _kubectl(kubeconfig, tmp_path, "get", "ns", "kube-system", "-o", "name")
    assert (get.returncode, get.stdout, get.stderr) == (0, "namespace/kube-system\n", "")
    can = _kubectl(kubeconfig, tmp_path, "auth", "can-i", "*", "*", "--all-namespaces")
    assert (can.returncode, can.stdout) == (0, "yes\n")


def test_kubectl_with_an_untrusted_certificate_is_unauthorized(kind, tmp_path) -> None:
    """client-go answers the CertificateRequest with its certificate whatever CAs the server names (its
    `GetClientCertificate` callback), so the union's x509 error is kubectl's 401, as on a kind cluster."""
    _, kubeconfig = kind
    bad = certs.leaf(certs.ca("other"), "mallory", ("system:masters",))
    config = yaml.safe_load(kubeconfig.read_text())
    config["users"][0]["user"] = {"client-certificate-data": base64.b64encode(bad.cert_pem).decode(),
                                  "client-key-data": base64.b64encode(bad.key_pem).decode()}
    other = tmp_path / "kubeconfig"
    other.write_text(yaml.safe_dump(config))
    proc = _kubectl(other, tmp_path, "get", "ns", "default")
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.endswith("error: You must be logged in to the server (the server has asked for the client to "
                                "provide credentials)\n"), proc.stderr


def test_the_handshake_names_the_client_ca_and_serves_no_ca_in_its_chain(kind) -> None:
    """Go's `ClientCAs`: the CertificateRequest lists the CA's subject; the served chain is the leaf alone."""
    import shutil

    srv, _ = kind
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command")
    host = srv.url.split("//", 1)[1]
    out = subprocess.run(["openssl", "s_client", "-connect", host, "-tls1_2", "-showcerts"], input="",
                         capture_output=True, text=True, timeout=30, check=False).stdout
    assert out[out.index("Acceptable client certificate CA names"):].split("\n")[1] == "CN = nsconform-ca"
    assert out.count("-----BEGIN CERTIFICATE-----") == 1


def test_the_harness_connects_with_the_certificate_kubeconfig(kind) -> None:
    """`nsconform run --kubeconfig` against a kind-like kubeconfig (conformance/client/config.py)."""
    from conformance.client.config import from_kubeconfig

    _, kubeconfig = kind
    conn = from_kubeconfig(str(kubeconfig))
    try:
        r = conn.session.post(conn.base_url + SSR, json=SSR_BODY, timeout=10)
        assert r.json()["status"]["userInfo"]["username"] == "kubernetes-admin"
        assert conn.session.get(conn.base_url + "/api/v1/namespaces/kube-system", timeout=10).status_code == 200
    finally:
        conn.close()


def test_a_user_certificate_issued_through_a_csr_authenticates(kind, tmp_path) -> None:
    """The documented way to add a user: a CSR for `kubernetes.io/kube-apiserver-client`, `kubectl certificate
    approve`, the cluster signer (the server's CA, kube-controller-manager's csrsigning) signs, and the certificate
    authenticates as its CN and O."""
    import time

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    srv, kubeconfig = kind
    key = ec.generate_private_key(ec.SECP256R1())
    request = x509.CertificateSigningRequestBuilder().subject_name(x509.Name([
        x509.NameAttribute(NameOID.COMMON_NAME, "jane"), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "devs")]))
    pem = request.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)
    manifest = tmp_path / "csr.yaml"
    manifest.write_text(yaml.safe_dump({
        "apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": "jane"},
        "spec": {"request": base64.b64encode(pem).decode(), "signerName": "kubernetes.io/kube-apiserver-client",
                 "usages": ["client auth"]}}))
    assert _kubectl(kubeconfig, tmp_path, "create", "-f", str(manifest)).returncode == 0
    approve = _kubectl(kubeconfig, tmp_path, "certificate", "approve", "jane")
    assert (approve.returncode, approve.stdout) == (0, "certificatesigningrequest.certificates.k8s.io/jane approved\n"), approve.stderr
    admin = _session(srv, _admin_files(kubeconfig))
    deadline, issued = time.monotonic() + 30, ""
    while not issued and time.monotonic() < deadline:  # the signer is a controller: poll with a timeout
        got = admin.get(srv.url + "/apis/certificates.k8s.io/v1/certificatesigningrequests/jane", timeout=10).json()
        issued = got.get("status", {}).get("certificate", "")
    assert issued, "the CSR was not signed"
    (tmp_path / "jane.crt").write_bytes(base64.b64decode(issued))
    (tmp_path / "jane.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))
    r = _whoami(_session(srv, (str(tmp_path / "jane.crt"), str(tmp_path / "jane.key"))), srv)
    assert r.json()["status"]["userInfo"]["username"] == "jane"
    assert r.json()["status"]["userInfo"]["groups"] == ["devs", "system:authenticated"]


# ---- a leaf signed by an intermediate the client sends (x509.go: Intermediates from PeerCertificates[1:]) ------

def _intermediate_and_leaf(srv: RunningServer) -> tuple[certs.Pair, certs.Pair]:
    """An intermediate CA signed with the server's CA key, and a leaf (CN ivy, O devs) it signs."""
    root = certs.Pair(serialization.load_pem_private_key(srv.server.tls.ca_key_pem, None),
                      x509.load_pem_x509_certificate(Path(srv.ca_file).read_bytes()))
    inter = certs.ca("nsconform-intermediate", issuer=root)
    return inter, certs.leaf(inter, "ivy", ("devs",))


def _kubeconfig_with(kubeconfig: Path, tmp_path: Path, cert_pem: bytes, key_pem: bytes) -> Path:
    config = yaml.safe_load(kubeconfig.read_text())
    config["users"][0]["user"] = {"client-certificate-data": base64.b64encode(cert_pem).decode(),
                                  "client-key-data": base64.b64encode(key_pem).decode()}
    path = tmp_path / "kubeconfig-chain"
    path.write_text(yaml.safe_dump(config))
    return path


def test_a_leaf_signed_by_an_intermediate_the_client_sends_authenticates(kind, tmp_path) -> None:
    srv, _ = kind
    inter, leaf = _intermediate_and_leaf(srv)
    cert_file, key_file = leaf.files(tmp_path, "ivy")
    Path(cert_file).write_bytes(leaf.cert_pem + inter.cert_pem)  # what the client sends: leaf, then intermediate
    session = _session(srv, (cert_file, key_file))
    for _ in range(2):  # the second request on the same connection reads the chain kept for it
        r = _whoami(session, srv)
        assert r.status_code == 201, r.text
        assert r.json()["status"]["userInfo"]["username"] == "ivy"
        assert r.json()["status"]["userInfo"]["groups"] == ["devs", "system:authenticated"]


def test_a_leaf_whose_intermediate_is_not_sent_is_401(kind, tmp_path) -> None:
    """Upstream verifies with the bundle as roots and only the peer's certificates as intermediates."""
    srv, _ = kind
    _, leaf = _intermediate_and_leaf(srv)
    r = _whoami(_session(srv, leaf.files(tmp_path, "ivy-alone")), srv)
    assert (r.status_code, r.json()) == (401, UNAUTHORIZED)


def test_kubectl_and_the_official_client_send_the_intermediate_of_a_kubeconfig(kind, tmp_path) -> None:
    """client-certificate-data holding leaf + intermediate: client-go and urllib3 both send the chain."""
    from kubernetes import client, config

    srv, kubeconfig = kind
    inter, leaf = _intermediate_and_leaf(srv)
    chained = _kubeconfig_with(kubeconfig, tmp_path, leaf.cert_pem + inter.cert_pem, leaf.key_pem)
    whoami = _kubectl(chained, tmp_path, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
    assert (whoami.returncode, whoami.stdout, whoami.stderr) == (0, "ivy", "")
    api = config.new_client_from_config(str(chained))
    try:
        review = client.AuthenticationV1Api(api).create_self_subject_review(
            client.V1SelfSubjectReview(api_version="authentication.k8s.io/v1", kind="SelfSubjectReview"))
        assert review.status.user_info.username == "ivy"
    finally:
        api.close()
    alone = _kubeconfig_with(kubeconfig, tmp_path, leaf.cert_pem, leaf.key_pem)
    proc = _kubectl(alone, tmp_path, "auth", "whoami")
    assert proc.returncode == 1 and "You must be logged in to the server" in proc.stderr, proc.stderr
