"""Pods right after their namespace (issue 10, finding 2): upstream's ServiceAccount admission refuses a pod
until kube-controller-manager has created the namespace's `default` ServiceAccount; the harness waits for it
(as the e2e framework's WaitForDefaultServiceAccountInNamespace does) and sends the create again, but only
when refused for that reason, so a server without a ServiceAccount controller costs nothing."""

from __future__ import annotations

import threading

import pytest

from conformance.fixtures.service_account import DefaultServiceAccountWait, missing_default_service_account
from conformance.wait import WaitTimeout, Waiter

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"containers": [{"name": "c", "image": "pause"}]}}


def _ns(client, name):
    assert client.post("/api/v1/namespaces", {"metadata": {"name": name}}).status_code == 201


def _pod_posts(fake, ns):
    return [r for r in fake.requests if r[0] == "POST" and r[1] == f"/api/v1/namespaces/{ns}/pods"]


@pytest.fixture
def sa_client(client):
    client.add_refusal_handler(DefaultServiceAccountWait(Waiter(client, poll_interval=0.1)))
    return client


def test_pod_create_waits_for_default_service_account(fake, sa_client):
    fake.service_account_admission = True
    _ns(sa_client, "fresh")
    sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default", "namespace": "fresh"}}
    timer = threading.Timer(0.3, lambda: fake.call(fake.put_object, "serviceaccounts", "fresh", sa, "ADDED"))
    timer.start()
    try:
        resp = sa_client.post("/api/v1/namespaces/fresh/pods", POD)
    finally:
        timer.join()
    assert resp.status_code == 201, resp.text
    assert len(_pod_posts(fake, "fresh")) == 2


def test_no_service_account_admission_costs_nothing(fake, sa_client):
    _ns(sa_client, "plain")
    assert sa_client.post("/api/v1/namespaces/plain/pods", POD).status_code == 201
    assert len(_pod_posts(fake, "plain")) == 1
    assert not [r for r in fake.requests if "serviceaccounts" in r[1]]


def test_service_account_that_never_comes_says_so(fake, client):
    """A short wait of its own, not a small `--timeout-scale`: that would shrink each request's timeout as well,
    and a loaded machine's slow answer would end the test as unreachable instead."""
    client.add_refusal_handler(DefaultServiceAccountWait(Waiter(client, poll_interval=0.05), timeout=0.5))
    fake.service_account_admission = True
    _ns(client, "never")
    with pytest.raises(WaitTimeout) as exc:
        client.post("/api/v1/namespaces/never/pods", POD)
    assert "ServiceAccount never/default" in str(exc.value)


@pytest.mark.parametrize("message, expected", [
    ('pods "p" is forbidden: error looking up service account ns1/default: serviceaccount "default" not found', True),
    ('pods "p" is forbidden: service account ns1/default was not found, retry after the service account is created',
     True),
    ('pods "p" is forbidden: error looking up service account ns1/other: serviceaccount "other" not found', False),
    ('pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1', False),
    ('pods "p" is forbidden: error looking up service account ns2/default: serviceaccount "default" not found',
     False),
])
def test_only_the_default_service_account_refusal_matches(message, expected):
    assert missing_default_service_account("ns1", message) is expected


def test_the_reference_servers_refusal_is_waited_out(recorder):
    """Against the real refusal (the reference server's ServiceAccount admission, its controller 3 s late: later
    than the plugin's own ~1-2 s of look-ups), as a suite's `api` client meets it on a cluster: the pod create
    is refused once, then succeeds."""
    import dataclasses

    from conformance.client.api import KubeClient
    from conformance.reference_server.embedded import start_embedded
    from conformance.reference_server.flavors.catalogue import DEFAULT

    srv = start_embedded(flavor=dataclasses.replace(DEFAULT, name="late-sa", service_account_delay=(3.0, 3.0)))
    client = KubeClient(srv.url, profile="kubernetes", recorder=recorder, timeout=10.0)
    try:
        client.add_refusal_handler(DefaultServiceAccountWait(Waiter(client)))
        assert client.post("/api/v1/namespaces", {"metadata": {"name": "late"}}).status_code == 201
        first = client.session.post(f"{srv.url}/api/v1/namespaces/late/pods", json=POD)
        assert first.status_code == 403 and missing_default_service_account("late", first.json()["message"])
        resp = client.post("/api/v1/namespaces/late/pods", {**POD, "metadata": {"name": "q"}})
        assert resp.status_code == 201, resp.text
    finally:
        client.close()
        srv.stop()
