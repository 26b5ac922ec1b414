"""The csrapproving controller (controller/csrapproving.py): a kubelet client CSR whose requester may create
`certificatesigningrequests/nodeclient` (or `selfnodeclient`, for its own node) is approved `AutoApproved` with
upstream's message and then signed; one whose requester may not, or that is not a node client request, stays
pending."""
from __future__ import annotations

import base64
from typing import Any, Iterator

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from conformance.reference_server.auth.rbac import RBACAuthorizer, StaticRbacSource
from conformance.reference_server.controller.csrapproving import decide
from conformance.reference_server.embedded import RunningServer, start_embedded

from ..conftest import WatchReader

G = "rbac.authorization.k8s.io"
CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
KUBELET = "kubernetes.io/kube-apiserver-client-kubelet"
USAGES = ["digital signature", "client auth"]
NODE_MSG = "Auto approving kubelet client certificate after SubjectAccessReview."
SELF_MSG = "Auto approving self kubelet client certificate after SubjectAccessReview."


def request_pem(cn: str = "system:node:n1", orgs: tuple[str, ...] = ("system:nodes",)) -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)] +
                     [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs])
    pem = x509.CertificateSigningRequestBuilder().subject_name(name).sign(key, hashes.SHA256())
    return base64.b64encode(pem.public_bytes(serialization.Encoding.PEM)).decode()


def csr(name: str, *, user: str = "", groups: tuple[str, ...] = (), signer: str = KUBELET,
        usages: list[str] = USAGES, **kw: Any) -> dict[str, Any]:
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": name},
            "spec": {"request": request_pem(**kw), "signerName": signer, "usages": usages, "username": user,
                     "groups": list(groups)}}


def _role(name: str, subresource: str) -> dict[str, Any]:
    return {"kind": "ClusterRole", "metadata": {"name": name}, "rules": [
        {"apiGroups": ["certificates.k8s.io"], "resources": [f"certificatesigningrequests/{subresource}"],
         "verbs": ["create"]}]}


def _binding(role: str, group: str) -> dict[str, Any]:
    return {"kind": "ClusterRoleBinding", "metadata": {"name": role},
            "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": role},
            "subjects": [{"kind": "Group", "name": group}]}


AUTHZ = RBACAuthorizer(StaticRbacSource([
    _role("nodeclient", "nodeclient"), _binding("nodeclient", "system:bootstrappers"),
    _role("selfnodeclient", "selfnodeclient"), _binding("selfnodeclient", "system:nodes")]))


@pytest.mark.parametrize("body, expected", [
    (csr("a", user="system:bootstrap:abc", groups=("system:bootstrappers",)), (NODE_MSG, ["nodeclient"])),
    (csr("b", user="system:node:n1", groups=("system:nodes",)), (SELF_MSG, ["selfnodeclient"])),
    # another node's name: not "self", and system:nodes may not create nodeclient
    (csr("c", user="system:node:n2", groups=("system:nodes",)), (None, ["nodeclient"])),
    (csr("d", user="bob"), (None, ["nodeclient"])),
    # not a node client request: nothing recognised, nothing tried
    (csr("e", user="system:bootstrap:abc", groups=("system:bootstrappers",), orgs=("x",)), (None, [])),
    (csr("f", user="system:bootstrap:abc", groups=("system:bootstrappers",), usages=["client auth"]), (None, [])),
    (csr("g", user="system:bootstrap:abc", groups=("system:bootstrappers",),
         signer="kubernetes.io/kube-apiserver-client"), (None, [])),
])
def test_recognizers_and_reviews(body, expected):
    assert decide(body, AUTHZ) == expected
    done = {**body, "status": {"conditions": [{"type": "Denied", "status": "True"}]}}
    assert decide(done, AUTHZ) == (None, [])  # decided already: left alone


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[RunningServer]:
    users = tmp_path_factory.mktemp("csrapprove") / "users.csv"
    users.write_text('boot-token,system:bootstrap:abc,1,"system:bootstrappers"\nbob-token,bob,2,"dev"\n')
    srv = start_embedded(authorization="rbac", users_file=str(users), flavor="bare")
    admin = {"Authorization": f"Bearer {srv.token}"}
    may_create = {"kind": "ClusterRole", "metadata": {"name": "csr-creator"}, "rules": [
        {"apiGroups": ["certificates.k8s.io"], "resources": ["certificatesigningrequests"],
         "verbs": ["create", "get", "list", "watch"]}]}
    # the bootstrap policy's role, bound as kubeadm's `kubeadm:node-autoapprove-bootstrap` binds it
    autoapprove = _binding("kubeadm:node-autoapprove-bootstrap", "system:bootstrappers")
    autoapprove["roleRef"]["name"] = "system:certificates.k8s.io:certificatesigningrequests:nodeclient"
    for body in (may_create, _binding("csr-creator", "system:authenticated"), autoapprove):
        kind = "clusterroles" if body["kind"] == "ClusterRole" else "clusterrolebindings"
        r = requests.post(f"{srv.url}/apis/{G}/v1/{kind}", json={"apiVersion": f"{G}/v1", **body}, headers=admin,
                          timeout=10)
        assert r.status_code == 201, r.text
    yield srv
    srv.stop()


def test_a_permitted_kubelet_csr_is_approved_then_signed_another_stays_pending(server):
    def post(token: str, name: str) -> dict[str, Any]:
        r = requests.post(server.url + CSRS, json=csr(name), headers={"Authorization": f"Bearer {token}"},
                          timeout=10)
        assert r.status_code == 201, r.text
        return r.json()
    pending = post("bob-token", "from-bob")  # first: the controller's one worker takes it first
    approved = post("boot-token", "from-bootstrap")
    assert approved["spec"]["username"] == "system:bootstrap:abc"
    headers = {"Authorization": f"Bearer {server.token}"}
    with WatchReader(server.url + CSRS, {"fieldSelector": "metadata.name=from-bootstrap",
                                         "resourceVersion": approved["metadata"]["resourceVersion"]},
                     headers=headers) as w:
        got = w.until(lambda e: bool((e["object"].get("status") or {}).get("certificate")), 10,
                      "the certificate")[-1]["object"]
    cond = got["status"]["conditions"]
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in cond] == [
        ("Approved", "True", "AutoApproved", NODE_MSG)]
    assert cond[0]["lastUpdateTime"] and cond[0]["lastTransitionTime"]
    cert = x509.load_pem_x509_certificate(base64.b64decode(got["status"]["certificate"]))
    assert cert.subject.rfc4514_string() == "O=system:nodes,CN=system:node:n1"
    r = requests.get(f"{server.url}{CSRS}/from-bob", headers=headers, timeout=10)
    assert r.status_code == 200 and r.json()["metadata"]["resourceVersion"] == pending["metadata"]["resourceVersion"]
    assert r.json()["status"] == {}
