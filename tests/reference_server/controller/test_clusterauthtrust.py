"""controller/clusterauthtrust.py: `kube-system/extension-apiserver-authentication`
(pkg/controlplane/controller/clusterauthenticationtrust): the keys per configured authenticator, the merge with the
stored data, nothing at all for a plain-HTTP server (bearer tokens only), a TLS server's client CA kept written."""
from __future__ import annotations

import pytest

from conformance.reference_server.admission.admitted import ControllerWrites
from conformance.reference_server.controller import clusterauthtrust as T
from conformance.reference_server.controller.reads import get_or_none
from conformance.reference_server.server import build_context
from tests.tools import certs

CA = certs.ca("ca-1").cert_pem.decode()
CA2 = certs.ca("ca-2").cert_pem.decode()
DIRECT = ControllerWrites(None, "")


def test_keys_per_configured_authenticator():
    assert T.configmap_data(T.AuthenticationInfo()) == {}
    assert T.configmap_data(T.AuthenticationInfo(client_ca_pem=CA)) == {"client-ca-file": CA}
    rh = T.RequestHeader(CA2, username_headers=("X-Remote-User",), group_headers=("X-Remote-Group",),
                         extra_headers_prefix=("X-Remote-Extra-",), allowed_names=("front-proxy-client",))
    assert T.configmap_data(T.AuthenticationInfo(CA, rh)) == {
        "client-ca-file": CA, "requestheader-client-ca-file": CA2,
        "requestheader-username-headers": '["X-Remote-User"]', "requestheader-uid-headers": "null",
        "requestheader-group-headers": '["X-Remote-Group"]',
        "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]',
        "requestheader-allowed-names": '["front-proxy-client"]'}


def test_nothing_configured_writes_nothing():
    registry = build_context(flavor="bare").registry
    T.sync(registry, T.AuthenticationInfo(), DIRECT)
    assert get_or_none(registry.content("configmaps"), "kube-system", T.CONFIGMAP_NAME) is None


def test_a_client_ca_is_written_and_merged_with_the_stored_one():
    registry = build_context(flavor="bare").registry
    T.sync(registry, T.AuthenticationInfo(client_ca_pem=CA), DIRECT)
    store = registry.content("configmaps")
    assert store.get("kube-system", T.CONFIGMAP_NAME)["data"] == {"client-ca-file": CA}
    T.sync(registry, T.AuthenticationInfo(client_ca_pem=CA2), DIRECT)  # another replica's CA: both kept
    assert store.get("kube-system", T.CONFIGMAP_NAME)["data"] == {"client-ca-file": CA + CA2}
    rv = store.get("kube-system", T.CONFIGMAP_NAME)["metadata"]["resourceVersion"]
    T.sync(registry, T.AuthenticationInfo(), DIRECT)  # nothing configured: the stored data stays as it is
    assert store.get("kube-system", T.CONFIGMAP_NAME)["metadata"]["resourceVersion"] == rv


def test_the_server_writes_none(http, url):
    assert http.get(f"{url}/api/v1/namespaces/kube-system/configmaps/{T.CONFIGMAP_NAME}").status_code == 404


def test_a_tls_server_writes_its_client_ca_back_when_the_configmap_is_deleted_or_edited():
    """The controller's informer: a deleted or edited ConfigMap is synced again at once (not after the minute)."""
    import time

    import requests

    from conformance.reference_server.embedded import start_embedded

    import secrets

    token = secrets.token_hex(16)  # (a one-letter token would be masked in every later log line of this process)
    srv = start_embedded(tls=True, token=token)
    path = f"{srv.url}/api/v1/namespaces/kube-system/configmaps/{T.CONFIGMAP_NAME}"
    kw = {"verify": srv.ca_file, "headers": {"Authorization": f"Bearer {token}"}, "timeout": 10}

    def wait_for(predicate) -> dict:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            r = requests.get(path, **kw)
            if r.status_code == 200 and predicate(r.json()):
                return r.json()
        raise AssertionError("the ConfigMap was not written back")

    try:
        want = {"client-ca-file": open(srv.ca_file, encoding="utf-8").read()}
        assert requests.get(path, **kw).json()["data"] == want
        assert requests.delete(path, **kw).status_code == 200
        assert wait_for(lambda cm: True)["data"] == want
        cm = requests.get(path, **kw).json()
        cm["data"] = {"other": "x"}
        assert requests.put(path, json=cm, **kw).status_code == 200
        assert wait_for(lambda cm: "client-ca-file" in cm["data"])["data"] == want  # (`other` dropped, as upstream)
    finally:
        srv.stop()


def test_stored_bundles_are_parsed_filtered_and_re_encoded():
    registry = build_context(flavor="bare").registry
    store = registry.content("configmaps")
    expired = certs.leaf(certs.ca("old"), days=(-30, -1)).cert_pem.decode()
    store.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": T.CONFIGMAP_NAME,
                  "namespace": "kube-system"}, "data": {"client-ca-file": "# a comment\n" + CA + expired + CA}})
    T.sync(registry, T.AuthenticationInfo(client_ca_pem=CA2), DIRECT)
    assert store.get("kube-system", T.CONFIGMAP_NAME)["data"] == {"client-ca-file": CA + CA2}


def test_stored_data_that_does_not_parse_fails_the_sync_and_stays():
    registry = build_context(flavor="bare").registry
    store = registry.content("configmaps")
    store.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": T.CONFIGMAP_NAME,
                  "namespace": "kube-system"}, "data": {"client-ca-file": "edited"}})
    with pytest.raises(ValueError, match="data does not contain any valid RSA or ECDSA certificates"):
        T.sync(registry, T.AuthenticationInfo(client_ca_pem=CA), DIRECT)
    assert store.get("kube-system", T.CONFIGMAP_NAME)["data"] == {"client-ca-file": "edited"}


def test_the_kind_flavour_publishes_kubeadms_front_proxy_settings():
    """kubeadm gives kube-apiserver a front-proxy CA and the `--requestheader-*` flags; a kind cluster's
    ConfigMap holds them beside the client CA (what aggregated API servers read)."""
    import requests

    from conformance.reference_server.embedded import start_embedded

    srv = start_embedded(tls=True, flavor="kind")
    try:
        data = requests.get(f"{srv.url}/api/v1/namespaces/kube-system/configmaps/{T.CONFIGMAP_NAME}",
                            verify=srv.ca_file, timeout=10).json()["data"]
        assert {k: v for k, v in data.items() if not k.endswith("-file")} == {
            "requestheader-allowed-names": '["front-proxy-client"]', "requestheader-username-headers": '["X-Remote-User"]',
            "requestheader-uid-headers": "null", "requestheader-group-headers": '["X-Remote-Group"]',
            "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]'}
        front_proxy_ca = data["requestheader-client-ca-file"]
        assert front_proxy_ca.startswith("-----BEGIN CERTIFICATE-----") and front_proxy_ca != data["client-ca-file"]
        directory = srv.server.tls.directory
    finally:
        srv.stop()
    import os
    assert not os.path.exists(directory)  # the front-proxy CA removed with the server's other files
