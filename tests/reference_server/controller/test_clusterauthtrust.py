"""controller/clusterauthtrust.py: `kube-system/extension-apiserver-authentication`
(pkg/controlplane/controller/clusterauthenticationtrust): the keys per configured authenticator, and nothing at all
for this server's configuration (bearer tokens only)."""
from __future__ import annotations

from conformance.reference_server.admission.admitted import ControllerWrites
from conformance.reference_server.controller import clusterauthtrust as T
from conformance.reference_server.controller.reads import get_or_none
from conformance.reference_server.server import build_context

CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
CA2 = "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n"
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
