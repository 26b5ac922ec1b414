"""authentication.k8s.io/v1 (SelfSubjectReview, TokenReview), serviceaccounts/token (TokenRequest), the
`default/kubernetes` Service and the empty node list of a cluster without nodes."""
from __future__ import annotations

import base64
import json

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


def test_a_token_for_another_audience_is_not_the_api_servers(http, url, namespaces):
    """jwt.go: a TokenRequest for audience "vault" makes a token whose default TokenReview (the API server's
    audiences) fails; a review asking for "vault" authenticates it and grants just that audience."""
    ns = namespaces.create()["metadata"]["name"]
    http.post(f"{url}/api/v1/namespaces/{ns}/serviceaccounts", json={"metadata": {"name": "bot"}})
    token = _token(http, url, ns, "bot", audiences=["vault"]).json()["status"]["token"]

    def review(**spec):
        return http.post(f"{url}/apis/authentication.k8s.io/v1/tokenreviews", json={
            "apiVersion": AUTHN, "kind": "TokenReview", "spec": {"token": token, **spec}}).json()["status"]

    assert review() == {"user": {}}
    granted = review(audiences=["other", "vault"])
    assert granted["authenticated"] is True and granted["audiences"] == ["vault"]


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


def test_issuer_discovery_serves_the_key_that_verifies_tokens(http, url, namespaces):
    """pkg/routes/openidmetadata.go: an OIDC client finds the JWKS and verifies a TokenRequest's RS256 token."""
    from .auth.test_tokens import _verify_with_jwks

    conf = http.get(f"{url}/.well-known/openid-configuration")
    assert conf.status_code == 200 and conf.headers["Content-Type"] == "application/json"
    assert conf.headers["Cache-Control"] == "public, max-age=3600"
    host = url.split("://", 1)[1]
    assert conf.json() == {"issuer": "https://kubernetes.default.svc.cluster.local",
                           "jwks_uri": f"https://{host}/openid/v1/jwks", "response_types_supported": ["id_token"],
                           "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"]}
    keys = http.get(f"{url}/openid/v1/jwks")
    assert keys.status_code == 200 and keys.headers["Content-Type"] == "application/jwk-set+json"
    assert keys.headers["Cache-Control"] == "public, max-age=3600"
    ns = namespaces.create()["metadata"]["name"]
    sa = http.post(f"{url}/api/v1/namespaces/{ns}/serviceaccounts", json={"metadata": {"name": "bot"}}).json()
    token = _token(http, url, ns, "bot", audiences=["vault"]).json()["status"]["token"]
    claims = _verify_with_jwks(token, keys.json())
    assert claims["aud"] == ["vault"] and claims["kubernetes.io"]["serviceaccount"]["uid"] == sa["metadata"]["uid"]
    assert http.post(f"{url}/openid/v1/jwks").status_code == 405


def test_bound_token_requests(http, url, namespaces):
    """token.go: bound to a Pod running as the ServiceAccount or a Secret; invalid once the object is gone."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}"
    http.post(f"{base}/serviceaccounts", json={"metadata": {"name": "bot"}})
    pod = http.post(f"{base}/pods", json={"metadata": {"name": "p"}, "spec": {
        "serviceAccountName": "bot", "containers": [{"name": "c", "image": "busybox"}]}}).json()
    http.post(f"{base}/pods", json={"metadata": {"name": "other"}, "spec": {
        "containers": [{"name": "c", "image": "busybox"}]}})
    secret = http.post(f"{base}/secrets", json={"metadata": {"name": "s"}}).json()

    r = _token(http, url, ns, "bot", boundObjectRef={"apiVersion": "v1", "kind": "Pod", "name": "p"},
               expirationSeconds=3607)
    assert r.status_code == 201
    body = r.json()
    assert body["spec"]["boundObjectRef"] == {"apiVersion": "v1", "kind": "Pod", "name": "p"}
    claims = json.loads(base64.urlsafe_b64decode(body["status"]["token"].split(".")[1] + "=="))
    assert claims["kubernetes.io"]["pod"] == {"name": "p", "uid": pod["metadata"]["uid"]}
    assert claims["kubernetes.io"]["warnafter"] == claims["iat"] + 3607  # kubelet's 3607 s: a year, warns after
    assert claims["exp"] == claims["iat"] + 365 * 24 * 3600
    pod_token = body["status"]["token"]
    other_audience = _token(http, url, ns, "bot", boundObjectRef={"apiVersion": "v1", "kind": "Pod", "name": "p"},
                            expirationSeconds=3607, audiences=["vault"]).json()["status"]["token"]
    claims = json.loads(base64.urlsafe_b64decode(other_audience.split(".")[1] + "=="))
    assert claims["exp"] == claims["iat"] + 3607 and "warnafter" not in claims["kubernetes.io"]  # not the API's
    secret_token = _token(http, url, ns, "bot", boundObjectRef={
        "apiVersion": "v1", "kind": "Secret", "name": "s", "uid": secret["metadata"]["uid"]}).json()["status"]["token"]

    def review(token):
        return http.post(f"{url}/apis/authentication.k8s.io/v1/tokenreviews",
                         json={"apiVersion": AUTHN, "kind": "TokenReview", "spec": {"token": token}}).json()["status"]

    user = review(pod_token)["user"]
    assert user["extra"]["authentication.kubernetes.io/pod-name"] == ["p"]
    assert review(secret_token)["authenticated"] is True

    st = status_of(_token(http, url, ns, "bot", boundObjectRef={"apiVersion": "v1", "kind": "Pod", "name": "other"}))
    assert st["code"] == 400 and st["message"] == (
        'cannot bind token for serviceaccount "bot" to pod running with different serviceaccount name.')
    st = status_of(_token(http, url, ns, "bot", boundObjectRef={"apiVersion": "v1", "kind": "ConfigMap", "name": "c"}))
    assert st["code"] == 400 and st["message"] == "cannot bind token to object of type /v1, Kind=ConfigMap"
    st = status_of(_token(http, url, ns, "bot", boundObjectRef={"apiVersion": "v1", "kind": "Secret", "name": "gone"}))
    assert st["code"] == 404 and st["message"] == 'secrets "gone" not found'
    st = status_of(_token(http, url, ns, "bot", boundObjectRef={"apiVersion": "v1", "kind": "Secret", "name": "s",
                                                                "uid": "0000"}))
    assert st["code"] == 409 and st["message"] == (
        'Operation cannot be fulfilled on Secret "s": the UID in the bound object reference (0000) does not match '
        'the UID in record. The object might have been deleted and then recreated')

    http.delete(f"{base}/secrets/s")
    assert review(secret_token) == {"user": {}}
    http.delete(f"{base}/pods/p", params={"gracePeriodSeconds": "0"})
    assert http.get(f"{base}/pods/p").status_code == 404
    assert review(pod_token) == {"user": {}}


def test_servers_sharing_a_key_file_accept_each_others_tokens(etcd_process, tmp_path):
    """Two servers on one etcd with one `--service-account-key-file`: a token one issues authenticates at the
    other, and both serve the same JWKS (kube-apiserver replicas share --service-account-signing-key-file)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from conformance.reference_server.embedded import start_embedded
    from conformance.reference_server.storage.backends import StorageConfig

    from .backends import unique_prefix

    key = tmp_path / "sa.key"
    key.write_bytes(rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    storage = StorageConfig("etcd", (etcd_process.url,), unique_prefix())
    a = start_embedded(flavor="bare", storage=storage, service_account_key_file=str(key), leader_elect=False)
    b = start_embedded(flavor="bare", storage=storage, service_account_key_file=str(key), leader_elect=False)
    try:
        with requests.Session() as http:
            http.post(f"{a.url}/api/v1/namespaces/default/serviceaccounts", json={"metadata": {"name": "bot"}})
            token = _token(http, a.url, "default", "bot").json()["status"]["token"]
            review = http.post(f"{b.url}/apis/authentication.k8s.io/v1/tokenreviews", json={
                "apiVersion": AUTHN, "kind": "TokenReview", "spec": {"token": token}}).json()
            assert review["status"]["user"]["username"] == "system:serviceaccount:default:bot"
            assert http.get(f"{a.url}/openid/v1/jwks").json() == http.get(f"{b.url}/openid/v1/jwks").json()
    finally:
        a.stop()
        b.stop()


def test_service_account_issuers(tmp_path, capsys):
    """`--service-account-issuer` (repeatable): the first is every token's `iss` and the discovery document's
    issuer; the issuers are the API server's audiences, so a TokenRequest and a TokenReview default to them;
    a non-https first issuer leaves the discovery endpoints unserved (404); a refused issuer stops `serve`
    with one line."""
    from conformance.reference_server import serve
    from conformance.reference_server.embedded import start_embedded

    issuers = ["https://issuer.example/a", "https://kubernetes.default.svc.cluster.local"]
    srv = start_embedded(flavor="bare", service_account_issuers=issuers)
    plain = start_embedded(flavor="bare", service_account_issuers=["kubernetes"])
    try:
        with requests.Session() as http:
            http.post(f"{srv.url}/api/v1/namespaces/default/serviceaccounts", json={"metadata": {"name": "bot"}})
            body = _token(http, srv.url, "default", "bot").json()
            assert body["spec"]["audiences"] == issuers
            claims = json.loads(base64.urlsafe_b64decode(body["status"]["token"].split(".")[1] + "=="))
            assert claims["iss"] == issuers[0] and claims["aud"] == issuers
            review = http.post(f"{srv.url}/apis/authentication.k8s.io/v1/tokenreviews", json={
                "apiVersion": AUTHN, "kind": "TokenReview", "spec": {"token": body["status"]["token"]}}).json()
            assert review["status"]["authenticated"] is True and review["status"]["audiences"] == issuers
            assert http.get(f"{srv.url}/.well-known/openid-configuration").json()["issuer"] == issuers[0]
            for path in ("/.well-known/openid-configuration", "/openid/v1/jwks"):
                r = http.get(f"{plain.url}{path}")
                assert (r.status_code, r.text) == (404, "404 page not found\n")
            http.post(f"{plain.url}/api/v1/namespaces/default/serviceaccounts", json={"metadata": {"name": "bot"}})
            assert _token(http, plain.url, "default", "bot").json()["spec"]["audiences"] == ["kubernetes"]
    finally:
        srv.stop()
        plain.stop()
    assert serve.main(["--port", "0", "--service-account-issuer", "https://a", "--service-account-issuer",
                       "https://a"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ['nsconform serve: error: service-account-issuer "https://a" is already specified']


def _claims(token: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))


def test_node_bound_tokens_and_a_scheduled_pods_node(http, url, namespaces):
    """1.33's ServiceAccountTokenNodeBinding (a token bound to a Node, valid while that Node lives) and
    ServiceAccountTokenPodNodeInfo (a pod-bound token names the pod's node, its uid when the Node exists); the
    review's extra carries `node-name`/`node-uid` (serviceaccount/util.go)."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}"
    http.post(f"{base}/serviceaccounts", json={"metadata": {"name": "bot"}})
    node_name = f"node-{ns}"
    node = http.post(f"{url}/api/v1/nodes", json={"metadata": {"name": node_name}}).json()
    try:
        for pod, on in (("on-node", node_name), ("on-ghost", f"ghost-{ns}")):
            http.post(f"{base}/pods", json={"metadata": {"name": pod}, "spec": {
                "serviceAccountName": "bot", "nodeName": on, "containers": [{"name": "c", "image": "busybox"}]}})
        token = _token(http, url, ns, "bot", boundObjectRef={"apiVersion": "v1", "kind": "Pod", "name": "on-node"}
                       ).json()["status"]["token"]
        assert _claims(token)["kubernetes.io"]["node"] == {"name": node_name, "uid": node["metadata"]["uid"]}
        ghost = _token(http, url, ns, "bot", boundObjectRef={"apiVersion": "v1", "kind": "Pod", "name": "on-ghost"}
                       ).json()["status"]["token"]
        assert _claims(ghost)["kubernetes.io"]["node"] == {"name": f"ghost-{ns}"}

        r = _token(http, url, ns, "bot", boundObjectRef={"apiVersion": "v1", "kind": "Node", "name": node_name})
        assert r.status_code == 201, r.text
        node_token = r.json()["status"]["token"]
        assert _claims(node_token)["kubernetes.io"]["node"] == {"name": node_name, "uid": node["metadata"]["uid"]}

        def review(token):
            return http.post(f"{url}/apis/authentication.k8s.io/v1/tokenreviews",
                             json={"apiVersion": AUTHN, "kind": "TokenReview", "spec": {"token": token}}).json()["status"]
        extra = review(node_token)["user"]["extra"]
        assert extra["authentication.kubernetes.io/node-name"] == [node_name]
        assert extra["authentication.kubernetes.io/node-uid"] == [node["metadata"]["uid"]]
        extra = review(ghost)["user"]["extra"]
        assert extra["authentication.kubernetes.io/node-name"] == [f"ghost-{ns}"]
        assert "authentication.kubernetes.io/node-uid" not in extra

        st = status_of(_token(http, url, ns, "bot", boundObjectRef={"apiVersion": "v1", "kind": "Node",
                                                                    "name": f"absent-{ns}"}))
        assert st["code"] == 404 and st["message"] == f'nodes "absent-{ns}" not found'
    finally:
        http.delete(f"{url}/api/v1/nodes/{node_name}")
    assert review(node_token) == {"user": {}}  # its Node is gone
    assert review(token)["authenticated"] is True  # a pod-bound token's node is only read
