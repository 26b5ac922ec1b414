"""certificates.k8s.io/v1 CertificateSigningRequests (registry/certificates.py, controller/csrsigning.py): the
requester written into spec, status only through /approval and /status, validation in upstream's words and
order, the signer's certificate and its Failed condition, discovery and tables."""
from __future__ import annotations

import base64
import datetime as dt
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from conformance.reference_server.controller.csrsigning import SigningCA, duration, sign, signer_error
from conformance.reference_server.tls import generate

from .conftest import WatchReader, status_of, unique

GROUP = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
CLIENT = "kubernetes.io/kube-apiserver-client"


def request_pem(cn: str = "alice", orgs: tuple[str, ...] = ("dev",), dns: tuple[str, ...] = ()) -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)] +
                     [x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in orgs])
    builder = x509.CertificateSigningRequestBuilder().subject_name(name)
    if dns:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in dns]), critical=False)
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)


def csr_body(name: str, *, usages: list[str] | None = None, signer: str = CLIENT, pem: bytes | None = None,
             **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest", "metadata": {"name": name},
            "spec": {"request": base64.b64encode(pem or request_pem()).decode(), "signerName": signer,
                     "usages": usages if usages is not None else ["client auth"], **spec}}


@pytest.fixture
def csrs(http, url):
    made: list[str] = []

    def create(body: dict[str, Any]) -> dict[str, Any]:
        r = http.post(url + GROUP, json=body)
        assert r.status_code == 201, r.text
        made.append(body["metadata"]["name"])
        return r.json()
    yield create
    for name in made:
        http.delete(f"{url}{GROUP}/{name}")


def approve(http, url, csr: dict[str, Any], ctype: str = "Approved") -> Any:
    body = {**csr, "status": {"conditions": [{"type": ctype, "reason": "Test", "message": "by the test"}]}}
    return http.put(f"{url}{GROUP}/{csr['metadata']['name']}/approval", json=body)


def until(url: str, name: str, rv: str, pred: Any, what: str) -> dict[str, Any]:
    with WatchReader(url + GROUP, {"fieldSelector": f"metadata.name={name}", "resourceVersion": rv}) as w:
        return w.until(lambda e: pred(e["object"]), 10, what)[-1]["object"]


def test_create_records_the_requester_and_clears_status(http, url, csrs):
    body = csr_body(unique("csr"), expirationSeconds=3600, username="mallory", groups=["system:masters"])
    body["status"] = {"conditions": [{"type": "Approved", "status": "True"}]}
    got = csrs(body)
    # no token on this server: the anonymous user is the requester (upstream: request.UserFrom(ctx))
    assert got["spec"]["username"] == "system:anonymous"
    assert got["spec"]["groups"] == ["system:unauthenticated"]
    assert got["status"] == {}
    assert got["spec"]["expirationSeconds"] == 3600 and got["spec"]["signerName"] == CLIENT
    # a plain update keeps spec and status: neither approval nor a certificate can come that way
    changed = {**got, "spec": {**got["spec"], "usages": ["server auth"]},
               "status": {"certificate": base64.b64encode(b"x").decode()}}
    changed["metadata"] = {**got["metadata"], "labels": {"a": "b"}}
    r = http.put(f"{url}{GROUP}/{got['metadata']['name']}", json=changed)
    assert r.status_code == 200, r.text
    assert r.json()["spec"] == got["spec"] and r.json()["status"] == {} and r.json()["metadata"]["labels"] == {"a": "b"}


def test_validation_errors_in_upstream_order(http, url):
    body = csr_body("bad", usages=["nope", "client auth", "client auth"], signer="example", expirationSeconds=599,
                    pem=b"junk")
    r = http.post(url + GROUP, json=body)
    st = status_of(r)
    assert r.status_code == 422 and st["reason"] == "Invalid"
    assert [(c["field"], c["reason"]) for c in st["details"]["causes"]] == [
        ("spec.request", "FieldValueInvalid"), ("spec.usages[0]", "FieldValueNotSupported"),
        ("spec.usages[2]", "FieldValueDuplicate"), ("spec.signerName", "FieldValueInvalid"),
        ("spec.expirationSeconds", "FieldValueInvalid")]
    assert st["message"].startswith(
        'CertificateSigningRequest.certificates.k8s.io "bad" is invalid: [spec.request: Invalid value: '
        "[]byte{0x6a, 0x75, 0x6e, 0x6b}: PEM block type must be CERTIFICATE REQUEST, spec.usages[0]: Unsupported "
        'value: "nope": supported values: "any", "cert sign", "client auth",')
    assert st["message"].endswith(
        'spec.usages[2]: Duplicate value: "client auth", spec.signerName: Invalid value: "example": must be a fully '
        "qualified domain and path of the form 'example.com/signer-name', spec.expirationSeconds: Invalid value: 599: "
        "may not specify a duration less than 600 seconds (10 minutes)]")
    r = http.post(url + GROUP, json=csr_body("bad", usages=[], signer="kubernetes.io/legacy-unknown"))
    assert status_of(r)["message"] == (
        'CertificateSigningRequest.certificates.k8s.io "bad" is invalid: [spec.usages: Required value, '
        'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via '
        "this API version]")
    r = http.post(url + GROUP, json=csr_body("bad", signer="example/x"))
    assert status_of(r)["message"] == ('CertificateSigningRequest.certificates.k8s.io "bad" is invalid: '
                                       'spec.signerName: Invalid value: "example": should be a domain with at least '
                                       "two segments separated by dots")


def test_approval_subresource_conditions(http, url, csrs):
    got = csrs(csr_body(unique("csr"), signer="example.com/nobody"))
    name = got["metadata"]["name"]
    r = http.put(f"{url}{GROUP}/{name}/status", json={**got, "status": {"conditions": [
        {"type": "Approved", "status": "True"}]}})
    assert status_of(r)["message"] == (f'CertificateSigningRequest.certificates.k8s.io "{name}" is invalid: '
                                       'status.conditions: Forbidden: updates may not add a condition of type '
                                       '"Approved"')
    r = http.put(f"{url}{GROUP}/{name}/approval", json={**got, "status": {"conditions": [
        {"type": "Approved"}, {"type": "Denied"}]}})
    assert status_of(r)["message"] == (f'CertificateSigningRequest.certificates.k8s.io "{name}" is invalid: '
                                       'status.conditions[1].type: Invalid value: "Denied": Approved and Denied '
                                       "conditions are mutually exclusive")
    r = http.put(f"{url}{GROUP}/{name}/approval", json={**got, "status": {"conditions": [
        {"type": "Approved", "status": "False"}]}})
    assert 'status.conditions[0].status: Unsupported value: "False": supported values: "True"' in r.json()["message"]
    r = approve(http, url, got)
    assert r.status_code == 200, r.text
    cond = r.json()["status"]["conditions"]
    assert [(c["type"], c["status"], c["reason"]) for c in cond] == [("Approved", "True", "Test")]
    assert cond[0]["lastUpdateTime"] and cond[0]["lastTransitionTime"]
    again = r.json()
    again["status"]["conditions"] = []
    r = http.put(f"{url}{GROUP}/{name}/approval", json=again)
    assert status_of(r)["message"].endswith('status.conditions: Forbidden: updates may not remove a condition of '
                                            'type "Approved"')
    # /status sets the certificate once; it cannot then be changed
    cert = base64.b64encode(SigningCA.generate().cert.public_bytes(serialization.Encoding.PEM)).decode()
    current = http.get(f"{url}{GROUP}/{name}").json()
    r = http.put(f"{url}{GROUP}/{name}/status", json={**current, "status": {**current["status"],
                                                                          "certificate": cert}})
    assert r.status_code == 200, r.text
    assert r.json()["status"]["certificate"] == cert
    other = base64.b64encode(b"x").decode()
    body = r.json()
    r = http.put(f"{url}{GROUP}/{name}/status", json={**body, "status": {**body["status"], "certificate": other}})
    assert status_of(r)["details"]["causes"][0]["field"] == "status.certificate"


def test_signer_issues_an_approved_client_certificate(http, url, csrs):
    got = csrs(csr_body(unique("csr"), usages=["digital signature", "client auth"], expirationSeconds=3600,
                        pem=request_pem("alice", ("dev", "ops"))))
    name = got["metadata"]["name"]
    r = approve(http, url, got)
    assert r.status_code == 200
    done = until(url, name, r.json()["metadata"]["resourceVersion"], lambda o: o["status"].get("certificate"),
                 "a certificate")
    cert = x509.load_pem_x509_certificate(base64.b64decode(done["status"]["certificate"]))
    assert cert.subject.rfc4514_string() == "O=ops,O=dev,CN=alice"
    assert cert.not_valid_after_utc - cert.not_valid_before_utc == dt.timedelta(minutes=65)  # short: no end backdate
    assert list(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        ExtendedKeyUsageOID.CLIENT_AUTH]
    assert cert.extensions.get_extension_for_class(x509.KeyUsage).value.digital_signature
    assert not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    r = http.get(url + GROUP, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    row = next(r for r in r.json()["rows"] if r["cells"][0] == name)
    assert [c["name"] for c in r.json()["columnDefinitions"]] == ["Name", "Age", "SignerName", "Requestor",
                                                                  "RequestedDuration", "Condition"]
    assert row["cells"][2:] == [CLIENT, "system:anonymous", "60m", "Approved,Issued"]


def test_signer_fails_a_request_its_signer_refuses(http, url, csrs):
    got = csrs(csr_body(unique("csr"), usages=["server auth"]))
    r = approve(http, url, got)
    done = until(url, got["metadata"]["name"], r.json()["metadata"]["resourceVersion"],
                 lambda o: len(o["status"].get("conditions", [])) == 2, "the Failed condition")
    failed = done["status"]["conditions"][1]
    assert (failed["type"], failed["status"], failed["reason"], failed["message"]) == (
        "Failed", "True", "SignerValidationFailure", "invalid usage for client certificate: server auth")
    assert "certificate" not in done["status"]


def test_denied_and_unknown_signers_are_left_alone(http, url, csrs):
    denied = csrs(csr_body(unique("csr")))
    assert approve(http, url, denied, "Denied").status_code == 200
    other = csrs(csr_body(unique("csr"), signer="example.com/signer"))
    r = approve(http, url, other)
    # a write after both: once the signer has handled it, it has handled the two earlier ones (one work queue)
    last = csrs(csr_body(unique("csr"), usages=["key encipherment", "client auth"]))
    rv = approve(http, url, last).json()["metadata"]["resourceVersion"]
    until(url, last["metadata"]["name"], rv, lambda o: o["status"].get("certificate"), "a certificate")
    for name in (denied["metadata"]["name"], other["metadata"]["name"]):
        st = http.get(f"{url}{GROUP}/{name}").json()["status"]
        assert "certificate" not in st and len(st["conditions"]) == 1
    assert r.status_code == 200


def test_discovery_and_short_name(http, url):
    res = http.get(url + "/apis/certificates.k8s.io/v1").json()["resources"]
    assert [(r["name"], r.get("shortNames"), r["namespaced"]) for r in res] == [
        ("certificatesigningrequests", ["csr"], False), ("certificatesigningrequests/approval", None, False),
        ("certificatesigningrequests/status", None, False)]


KUBELET_CN = "system:node:n1"


@pytest.mark.parametrize("signer, cn, orgs, dns, usages, expected", [
    ("kubernetes.io/kube-apiserver-client", "a", ("x",), (), ["client auth"], ""),
    ("kubernetes.io/kube-apiserver-client", "a", ("x",), (), ["digital signature"],
     "missing required usage for client certificate: client auth"),
    ("kubernetes.io/kube-apiserver-client-kubelet", KUBELET_CN, ("system:nodes",), (),
     ["digital signature", "client auth"], ""),
    ("kubernetes.io/kube-apiserver-client-kubelet", KUBELET_CN, ("x",), (), ["client auth"],
     "subject organization is not system:nodes"),
    ("kubernetes.io/kube-apiserver-client-kubelet", KUBELET_CN, ("system:nodes",), ("n1",), ["client auth"],
     "DNS subjectAltNames are not allowed"),
    ("kubernetes.io/kube-apiserver-client-kubelet", KUBELET_CN, ("system:nodes",), (), ["client auth"],
     "usages did not match [client auth digital signature key encipherment]"),
    ("kubernetes.io/kubelet-serving", KUBELET_CN, ("system:nodes",), ("n1",),
     ["digital signature", "key encipherment", "server auth"], ""),
    ("kubernetes.io/kubelet-serving", KUBELET_CN, ("system:nodes",), (), ["server auth"],
     "DNS or IP subjectAltName is required"),
    ("kubernetes.io/kubelet-serving", "n1", ("system:nodes",), ("n1",), ["digital signature", "server auth"],
     "subject common name does not begin with system:node:"),
])
def test_signer_rules(signer, cn, orgs, dns, usages, expected):
    req = x509.load_pem_x509_csr(request_pem(cn, orgs, dns))
    assert signer_error(signer, req, usages) == expected


def test_durations_and_the_ca_end():
    assert duration(None) == dt.timedelta(hours=8760) and duration(10**9) == dt.timedelta(hours=8760)
    assert duration(600) == dt.timedelta(minutes=10) and duration(86400) == dt.timedelta(days=1)
    ca = SigningCA.generate()
    req = x509.load_pem_x509_csr(request_pem(dns=("a.example.com",)))
    at = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    cert = x509.load_pem_x509_certificate(sign(ca, req, ["client auth"], 86400, at))
    cert.verify_directly_issued_by(ca.cert)
    assert (cert.not_valid_before_utc, cert.not_valid_after_utc) == (at - dt.timedelta(minutes=5),
                                                                      at + dt.timedelta(days=1, minutes=-5))
    assert cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.DNSName) == ["a.example.com"]
    tls = generate()  # the TLS server's CA: a throw-away one lives 7 days
    try:
        server_ca = SigningCA(tls.ca_pem, tls.ca_key_pem)
    finally:
        tls.cleanup()
    long = x509.load_pem_x509_certificate(sign(server_ca, req, ["client auth"], None, at))
    long.verify_directly_issued_by(server_ca.cert)
    assert long.not_valid_after_utc == server_ca.cert.not_valid_after_utc  # never after the CA's own end


def test_subject_restriction_refuses_system_masters(http, url):
    """CertificateSubjectRestriction: after validation (a 422 comes first), a 403 for the client signer only."""
    pem = request_pem("root", ("system:masters",))
    r = http.post(url + GROUP, json=csr_body("masters", pem=pem))
    st = status_of(r)
    assert (r.status_code, st["reason"], st["message"]) == (
        403, "Forbidden", 'certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of '
                          "kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed")
    assert st["details"] == {"name": "masters", "group": "certificates.k8s.io", "kind": "certificatesigningrequests"}
    assert http.post(url + GROUP, json=csr_body("masters", pem=pem, usages=[])).status_code == 422
    name = unique("csr")
    r = http.post(url + GROUP, json=csr_body(name, pem=pem, signer="example.com/other"))
    assert r.status_code == 201, r.text
    http.delete(f"{url}{GROUP}/{name}")
