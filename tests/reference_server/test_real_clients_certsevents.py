"""kubectl 1.33 and the official client meet CertificateSigningRequests and events.k8s.io/v1 as on a kind cluster:
`apply -f` of a CSR, `certificate approve|deny` (typed: protobuf through `/approval`), `get csr` with printers.go's
columns, the issued certificate verifying against the cluster CA the kubeconfig publishes; `get
events.v1.events.k8s.io` and `kubectl events` (core/v1) showing one event written in the new API."""
from __future__ import annotations

import base64
import datetime as dt
import re
import time
import uuid
from pathlib import Path
from typing import Iterator

import pytest
import yaml
from cryptography import x509

from .test_http_certificates import request_pem
from .test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture

CSR_YAML = """\
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {{name: {name}}}
spec:
  request: {request}
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [client auth]
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "certsevents", flavor="bare")


def cells(stdout: str) -> list[list[str]]:
    return [re.split(r" {2,}", ln.rstrip()) for ln in stdout.strip("\n").split("\n")]


def issued(kube: Kube, name: str, timeout: float = 10) -> dict:
    """The CSR once it has a certificate or a Failed condition (a watch, polling as fallback)."""
    deadline = time.monotonic() + timeout
    while True:
        csr = kube.get(f"/apis/certificates.k8s.io/v1/certificatesigningrequests/{name}").json()
        st = csr.get("status") or {}
        if st.get("certificate") or any(c["type"] == "Failed" for c in st.get("conditions", [])):
            return csr
        assert time.monotonic() < deadline, f"no certificate for {name}; last seen {st}"
        with kube.http.get(kube.server.url + "/apis/certificates.k8s.io/v1/certificatesigningrequests", stream=True,
                           params={"watch": "1", "fieldSelector": f"metadata.name={name}", "timeoutSeconds": "2",
                                   "resourceVersion": csr["metadata"]["resourceVersion"]}, timeout=10) as w:
            next(w.iter_lines(), None)  # the next change (or the watch's end)


def test_kubectl_csr_approve_get_and_certificate(kube: Kube, tmp_path: Path) -> None:
    ok, no = f"csr-{uuid.uuid4().hex[:6]}", f"csr-{uuid.uuid4().hex[:6]}"
    manifest = tmp_path / "csr.yaml"
    manifest.write_text("---\n".join(
        CSR_YAML.format(name=n, request=base64.b64encode(request_pem(n, ("devs",))).decode()) for n in (ok, no)))
    try:
        assert kube.ok("apply", "-f", str(manifest)) == (
            f"certificatesigningrequest.certificates.k8s.io/{ok} created\n"
            f"certificatesigningrequest.certificates.k8s.io/{no} created\n")
        assert kube.ok("certificate", "approve", ok) == f"certificatesigningrequest.certificates.k8s.io/{ok} approved\n"
        assert kube.ok("certificate", "deny", no) == f"certificatesigningrequest.certificates.k8s.io/{no} denied\n"
        csr = issued(kube, ok)
        cert = x509.load_pem_x509_certificate(base64.b64decode(csr["status"]["certificate"]))
        config = yaml.safe_load(kube.kubeconfig.read_text())
        ca = x509.load_pem_x509_certificate(base64.b64decode(config["clusters"][0]["cluster"][
            "certificate-authority-data"]))
        cert.verify_directly_issued_by(ca)  # the cluster CA the kubeconfig publishes signed it
        assert cert.subject.rfc4514_string() == f"O=devs,CN={ok}"
        # 24 h asked, within the signer's year: now - 5 min to now + 24 h - 5 min (the CA outlives it)
        assert cert.not_valid_after_utc - cert.not_valid_before_utc == dt.timedelta(hours=24)
        rows = cells(kube.ok("get", "csr", ok, no))
        assert rows[0] == ["NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION"]
        assert [r[0:1] + r[2:] for r in rows[1:]] == [
            [ok, "kubernetes.io/kube-apiserver-client", "system:admin", "24h", "Approved,Issued"],
            [no, "kubernetes.io/kube-apiserver-client", "system:admin", "24h", "Denied"]]
        err = kube.fails("certificate", "approve", no)
        assert err == f'error: certificate signing request "{no}" is already Denied\n'  # kubectl's own check
    finally:
        kube.run("delete", "csr", ok, no, "--ignore-not-found")


def test_kubectl_events_in_both_apis(kube: Kube, tmp_path: Path) -> None:
    ns = f"ev-{uuid.uuid4().hex[:6]}"
    kube.ok("create", "namespace", ns)
    try:
        event = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "e1", "namespace": ns},
                 "eventTime": "2026-01-02T03:04:05.000000Z", "reportingController": "example.com/ctl",
                 "reportingInstance": "ctl-1", "action": "Reconcile", "reason": "Synced", "type": "Normal",
                 "note": "all good", "regarding": {"kind": "ConfigMap", "name": "cm", "namespace": ns,
                                                   "apiVersion": "v1"}}
        manifest = tmp_path / "event.yaml"
        manifest.write_text(yaml.safe_dump(event))
        assert kube.ok("create", "-f", str(manifest)) == "event.events.k8s.io/e1 created\n"
        rows = cells(kube.ok("get", "events.v1.events.k8s.io", "-n", ns))
        assert rows[0] == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
        assert rows[1][1:] == ["Normal", "Synced", "configmap/cm", "all good"]
        rows = cells(kube.ok("events", "-n", ns))  # kubectl events reads core/v1: the same stored event
        assert rows[0] == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
        assert rows[1][1:] == ["Normal", "Synced", "ConfigMap/cm", "all good"]
        got = yaml.safe_load(kube.ok("get", "event", "e1", "-n", ns, "-o", "yaml"))  # core/v1 (the preferred ev)
        assert (got["apiVersion"], got["message"], got["reportingComponent"]) == ("v1", "all good", "example.com/ctl")
    finally:
        kube.run("delete", "ns", ns, "--wait=false")


def test_official_client_certificates_and_events(served: Kube) -> None:
    from kubernetes import client, config

    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    certs, events = client.CertificatesV1Api(api_client), client.EventsV1Api(api_client)
    core = client.CoreV1Api(api_client)
    name, ns = f"csr-{uuid.uuid4().hex[:6]}", f"ev-{uuid.uuid4().hex[:6]}"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    try:
        csr = certs.create_certificate_signing_request(client.V1CertificateSigningRequest(
            metadata=client.V1ObjectMeta(name=name), spec=client.V1CertificateSigningRequestSpec(
                request=base64.b64encode(request_pem(name)).decode(), signer_name="kubernetes.io/kube-apiserver-client",
                usages=["client auth", "digital signature"])))
        assert csr.spec.username == "system:admin" and "system:masters" in csr.spec.groups
        csr.status = client.V1CertificateSigningRequestStatus(conditions=[client.V1CertificateSigningRequestCondition(
            type="Approved", status="True", reason="ByTest", message="approved by the official client")])
        approved = certs.replace_certificate_signing_request_approval(name, csr)
        assert approved.status.conditions[0].last_update_time is not None
        done = issued(served, name)
        assert done["status"]["certificate"]
        status = certs.read_certificate_signing_request_status(name)
        assert base64.b64decode(status.status.certificate).startswith(b"-----BEGIN CERTIFICATE-----")
        ev = events.create_namespaced_event(ns, client.EventsV1Event(
            # a MicroTime must carry six fraction digits (`RFC3339Micro`); this client re-writes the string through
            # `datetime.isoformat()`, which drops a zero fraction, so a real cluster too needs a non-zero one here
            metadata=client.V1ObjectMeta(name="e1"), event_time="2026-01-02T03:04:05.123456Z",
            reporting_controller="example.com/ctl", reporting_instance="ctl-1", action="Reconcile", reason="Synced",
            type="Normal", note="from the official client",
            regarding=client.V1ObjectReference(kind="Pod", name="p", namespace=ns)))
        assert ev.note == "from the official client" and ev.deprecated_source is not None
        listed = events.list_namespaced_event(ns)
        assert [e.metadata.name for e in listed.items] == ["e1"]
        assert core.read_namespaced_event("e1", ns).message == "from the official client"
    finally:
        certs.delete_certificate_signing_request(name)
        core.delete_namespace(ns)
