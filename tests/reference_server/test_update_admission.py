"""Admission on update (admission/classes.py, admission/certificates.py): Priority refuses a PriorityClass updated
to a second `globalDefault`; CertificateApproval and CertificateSigning (under `--authorization rbac`) ask for the
`approve` / `sign` verbs on the `signers` resource named by the CSR's signer or its domain's wildcard."""
from __future__ import annotations

import base64
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded

from .test_http_certificates import request_pem

G = "rbac.authorization.k8s.io"
CSRS = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
PCS = "/apis/scheduling.k8s.io/v1/priorityclasses"
SIGNER = "example.com/widgets"


def _as(srv: RunningServer, token: str):
    def call(method: str, path: str, body: Any = None, ctype: str | None = None) -> requests.Response:
        headers = {"Authorization": f"Bearer {token}"}
        if ctype:
            headers["Content-Type"] = ctype
            return requests.request(method, srv.url + path, data=body, timeout=10, headers=headers)
        return requests.request(method, srv.url + path, json=body, timeout=10, headers=headers)
    return call


def grant(admin: Any, name: str, rules: list[dict[str, Any]]) -> None:
    assert admin("POST", f"/apis/{G}/v1/clusterroles", {"metadata": {"name": name}, "rules": rules}).status_code == 201
    assert admin("POST", f"/apis/{G}/v1/clusterrolebindings", {
        "metadata": {"name": name}, "roleRef": {"apiGroup": G, "kind": "ClusterRole", "name": name},
        "subjects": [{"apiGroup": G, "kind": "User", "name": "carol"}]}).status_code == 201


@pytest.fixture(scope="module")
def rbac(tmp_path_factory) -> Iterator[RunningServer]:
    users = tmp_path_factory.mktemp("upd") / "users.csv"
    users.write_text('carol-token,carol,1,"dev"\n')
    srv = start_embedded(authorization="rbac", users_file=str(users))
    yield srv
    srv.stop()


def test_priority_class_updated_to_a_second_default_is_refused(rbac):
    admin = _as(rbac, rbac.token)
    assert admin("POST", PCS, {"metadata": {"name": "first"}, "value": 10, "globalDefault": True}).status_code == 201
    second = admin("POST", PCS, {"metadata": {"name": "second"}, "value": 20}).json()
    try:
        refusal = ('priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is already marked '
                   "as default. Only one default can exist")
        r = admin("PUT", f"{PCS}/second", {**second, "globalDefault": True})
        assert (r.status_code, r.json()["message"], r.json()["reason"]) == (403, refusal, "Forbidden"), r.text
        r = admin("PATCH", f"{PCS}/second", '{"globalDefault":true}', "application/merge-patch+json")
        assert (r.status_code, r.json()["message"]) == (403, refusal), r.text
        r = admin("PATCH", f"{PCS}/first", '{"description":"still the default"}', "application/merge-patch+json")
        assert r.status_code == 200, r.text  # the default class itself may be updated
    finally:
        admin("DELETE", f"{PCS}/first")
        admin("DELETE", f"{PCS}/second")


def test_approve_and_sign_need_their_verbs_on_the_signer(rbac):
    admin, carol = _as(rbac, rbac.token), _as(rbac, "carol-token")
    grant(admin, "csr-updater", [{"apiGroups": ["certificates.k8s.io"], "verbs": ["get", "update", "patch"],
                                  "resources": ["certificatesigningrequests/approval",
                                                "certificatesigningrequests/status"]}])
    body = {"metadata": {"name": "widget"}, "spec": {
        "request": base64.b64encode(request_pem()).decode(), "signerName": SIGNER, "usages": ["client auth"]}}
    csr = admin("POST", CSRS, body).json()
    try:
        approved = {**csr, "status": {"conditions": [{"type": "Approved", "status": "True", "reason": "R",
                                                      "message": "m"}]}}
        r = carol("PUT", f"{CSRS}/widget/approval", approved)
        assert r.status_code == 403, r.text
        assert (r.json()["message"], r.json()["details"]) == (
            f'certificatesigningrequests.certificates.k8s.io "widget" is forbidden: user not permitted to approve '
            f'requests with signerName "{SIGNER}"',
            {"name": "widget", "group": "certificates.k8s.io", "kind": "certificatesigningrequests"})
        failed = {**csr, "status": {"conditions": [{"type": "Failed", "status": "True", "reason": "R",
                                                    "message": "m"}]}}
        r = carol("PUT", f"{CSRS}/widget/status", failed)
        assert (r.status_code, r.json()["message"]) == (403, (
            f'certificatesigningrequests.certificates.k8s.io "widget" is forbidden: user not permitted to sign '
            f'requests with signerName "{SIGNER}"')), r.text
        assert carol("PUT", f"{CSRS}/widget/status", csr).status_code == 200  # nothing signed: no check
        grant(admin, "widget-approver", [{"apiGroups": ["certificates.k8s.io"], "resources": ["signers"],
                                          "verbs": ["approve"], "resourceNames": ["example.com/*"]}])
        r = carol("PUT", f"{CSRS}/widget/approval", approved)
        assert r.status_code == 200, r.text  # the domain's wildcard
    finally:
        admin("DELETE", f"{CSRS}/widget")
