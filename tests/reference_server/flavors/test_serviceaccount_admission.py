"""The ServiceAccount admission plugin as upstream's plugin/pkg/admission/serviceaccount/admission.go: the
projected `kube-api-access-xxxxx` token volume (TokenVolumeSource) mounted in every container, skipped when
automount is off on the pod or its account, the deprecated `spec.serviceAccount` alias, pull secrets."""
from __future__ import annotations

import re
from typing import Iterator

import pytest
import requests

from conformance.reference_server.admission.serviceaccount import mount_service_account_token
from conformance.reference_server.embedded import start_embedded

from ..conftest import WatchReader, unique

MOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_VOLUME = {
    "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace",
                                    "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
    ],
    "defaultMode": 420,
}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, requests.Session]]:
    """The default flavour: its ServiceAccount controller and admission plugin (the shared server is `bare`)."""
    srv = start_embedded(flavor="default")
    yield srv.url, requests.Session()
    srv.stop()


@pytest.fixture
def url(served):
    return served[0]


@pytest.fixture
def http(served):
    return served[1]


@pytest.fixture
def ns(http, url):
    """A namespace whose `default` ServiceAccount exists (the controller makes it; the plugin requires it)."""
    name = unique("sa")
    assert http.post(f"{url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    path = f"{url}/api/v1/namespaces/{name}/serviceaccounts"
    with WatchReader(path, {"fieldSelector": "metadata.name=default"}) as w:
        w.until(lambda e: e["type"] == "ADDED", 20, "ServiceAccount default")
    return name


def _pod(name, **spec):
    return {"metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "pause"}], **spec}}


def test_token_volume_mounted_in_every_container(http, url, ns):
    body = _pod("p", initContainers=[{"name": "i", "image": "pause"}],
                containers=[{"name": "c", "image": "pause"},
                            {"name": "d", "image": "pause", "volumeMounts": [{"name": "own", "mountPath": MOUNT}]}],
                volumes=[{"name": "own", "emptyDir": {}}])
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=body)
    assert r.status_code == 201, r.text
    spec = r.json()["spec"]
    own, token = spec["volumes"]
    assert own["name"] == "own"
    assert re.fullmatch(r"kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}", token["name"]), token["name"]
    assert token["projected"] == TOKEN_VOLUME
    mount = {"name": token["name"], "readOnly": True, "mountPath": MOUNT}
    assert spec["initContainers"][0]["volumeMounts"] == [mount]
    assert spec["containers"][0]["volumeMounts"] == [mount]
    assert spec["containers"][1]["volumeMounts"] == [{"name": "own", "mountPath": MOUNT}]  # its own wins
    assert spec["serviceAccountName"] == spec["serviceAccount"] == "default"
    stored = http.get(f"{url}/api/v1/namespaces/{ns}/pods/p").json()["spec"]
    assert stored["volumes"] == spec["volumes"]


def test_automount_off_on_pod_or_account(http, url, ns):
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=_pod("off", automountServiceAccountToken=False))
    assert r.status_code == 201, r.text
    assert "volumes" not in r.json()["spec"] and "volumeMounts" not in r.json()["spec"]["containers"][0]
    sa = {"metadata": {"name": "quiet"}, "automountServiceAccountToken": False,
          "imagePullSecrets": [{"name": "reg"}]}
    assert http.post(f"{url}/api/v1/namespaces/{ns}/serviceaccounts", json=sa).status_code == 201
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=_pod("quiet", serviceAccountName="quiet"))
    assert r.status_code == 201, r.text
    spec = r.json()["spec"]
    assert "volumes" not in spec and spec["imagePullSecrets"] == [{"name": "reg"}]
    # the pod's preference wins over the account's
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods",
                  json=_pod("loud", serviceAccountName="quiet", automountServiceAccountToken=True,
                            imagePullSecrets=[{"name": "mine"}]))
    spec = r.json()["spec"]
    assert spec["volumes"][0]["projected"] == TOKEN_VOLUME and spec["imagePullSecrets"] == [{"name": "mine"}]


def test_deprecated_service_account_alias(http, url, ns):
    sa = {"metadata": {"name": "legacy"}}
    assert http.post(f"{url}/api/v1/namespaces/{ns}/serviceaccounts", json=sa).status_code == 201
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=_pod("p", serviceAccount="legacy"))
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["serviceAccountName"] == r.json()["spec"]["serviceAccount"] == "legacy"
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json=_pod("q", serviceAccount="absent"))
    assert r.status_code == 403
    assert r.json()["message"].endswith(f'error looking up service account {ns}/absent: serviceaccount "absent" '
                                        f'not found')


def test_existing_token_volume_is_reused():
    spec = {"containers": [{"name": "c"}], "volumes": [{"name": "kube-api-access-abcde", "projected": {}}]}
    mount_service_account_token(spec)
    assert spec["volumes"] == [{"name": "kube-api-access-abcde", "projected": {}}]
    assert spec["containers"][0]["volumeMounts"] == [
        {"name": "kube-api-access-abcde", "readOnly": True, "mountPath": MOUNT}]


def test_a_default_account_a_moment_late_is_waited_for():
    """getServiceAccount looks `default` up 10 times 100-200 ms apart: a pod sent right after its namespace,
    while the controller is half a second late, is admitted (not refused) after that wait."""
    import dataclasses

    from conformance.reference_server.flavors.catalogue import DEFAULT

    srv = start_embedded(flavor=dataclasses.replace(DEFAULT, name="sa-late", service_account_delay=(0.5, 0.5)))
    try:
        http = requests.Session()
        name = unique("sa")
        assert http.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
        r = http.post(f"{srv.url}/api/v1/namespaces/{name}/pods", json=_pod("p"))
        assert r.status_code == 201, r.text
    finally:
        srv.stop()
