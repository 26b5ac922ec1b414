"""authentication.k8s.io/v1 (SelfSubjectReview, TokenReview), serviceaccounts/token (TokenRequest), the
`default/kubernetes` Service and the empty node list of a cluster without nodes."""
from __future__ import annotations

import requests

from .conftest import status_of

AUTHN = "authentication.k8s.io/v1"


def _token(http, url, ns, sa, **spec):
    return http.post(f"{url}/api/v1/namespaces/{ns}/serviceaccounts/{sa}/token",
                     json={"apiVersion": AUTHN, "kind": "TokenRequest", "spec": spec})


def test_token_request_review_and_identity(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    sa = http.post(f"{url}/api/v1/namespaces/{ns}/serviceaccounts", json={"metadata": {"name": "bot"}}).json()
    r = _token(http, url, ns, "bot")
    assert r.status_code == 201
    body = r.json()
    assert body["spec"]["expirationSeconds"] == 3600 and body["metadata"]["name"] == "bot"
    token = body["status"]["token"]
    review = http.post(f"{url}/apis/authentication.k8s.io/v1/tokenreviews",
                       json={"apiVersion": AUTHN, "kind": "TokenReview", "spec": {"token": token}}).json()
    assert review["status"]["authenticated"] is True
    assert review["status"]["user"]["username"] == f"system:serviceaccount:{ns}:bot"
    assert review["status"]["user"]["uid"] == sa["metadata"]["uid"]
    who = requests.post(f"{url}/apis/authentication.k8s.io/v1/selfsubjectreviews", headers={
        "Authorization": f"Bearer {token}"}, json={"apiVersion": AUTHN, "kind": "SelfSubjectReview"}, timeout=10)
    assert who.status_code == 201
    assert who.json()["status"]["userInfo"]["groups"] == ["system:serviceaccounts", f"system:serviceaccounts:{ns}",
                                                          "system:authenticated"]
    # once the ServiceAccount is gone, its tokens no longer authenticate
    http.delete(f"{url}/api/v1/namespaces/{ns}/serviceaccounts/bot")
    review = http.post(f"{url}/apis/authentication.k8s.io/v1/tokenreviews",
                       json={"apiVersion": AUTHN, "kind": "TokenReview", "spec": {"token": token}}).json()
    assert review["status"] == {"user": {}}


def test_token_request_errors(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    st = status_of(_token(http, url, ns, "nobody"))
    assert st["code"] == 404 and st["message"] == 'serviceaccounts "nobody" not found'
    http.post(f"{url}/api/v1/namespaces/{ns}/serviceaccounts", json={"metadata": {"name": "bot"}})
    st = status_of(_token(http, url, ns, "bot", expirationSeconds=60))
    assert st["code"] == 422 and st["message"] == (
        'TokenRequest.authentication.k8s.io "bot" is invalid: spec.expirationSeconds: Invalid value: 60: may not '
        'specify a duration less than 10 minutes')
    st = status_of(http.post(f"{url}/apis/authentication.k8s.io/v1/tokenreviews",
                             json={"apiVersion": AUTHN, "kind": "TokenReview", "spec": {}}))
    assert st["code"] == 400 and st["message"] == "token is required for TokenReview in authentication"
    assert http.get(f"{url}/api/v1/namespaces/{ns}/serviceaccounts/bot/token").status_code == 405


def test_kubernetes_service_and_nodes(http, url):
    svc = http.get(f"{url}/api/v1/namespaces/default/services/kubernetes").json()
    assert svc["spec"]["clusterIP"] == "10.96.0.1" and svc["spec"]["ports"][0]["port"] == 443
    assert svc["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}
    nodes = http.get(f"{url}/api/v1/nodes").json()
    assert nodes["kind"] == "NodeList" and nodes["items"] == []
    st = status_of(http.get(f"{url}/api/v1/nodes/n1"))
    assert st["code"] == 404 and st["message"] == 'nodes "n1" not found'
    res = {r["name"]: r for r in http.get(f"{url}/api/v1").json()["resources"]}
    assert res["nodes"]["namespaced"] is False and res["serviceaccounts/token"]["kind"] == "TokenRequest"
    groups = {r["name"] for r in http.get(f"{url}/apis/authentication.k8s.io/v1").json()["resources"]}
    assert groups == {"selfsubjectreviews", "tokenreviews"}
