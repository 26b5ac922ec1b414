"""Admission webhooks on `pods/eviction` (http/eviction.py): a CREATE of the `policy/v1` Eviction on the `pods`
resource's `eviction` subresource, as upstream's create handler admits it; a denial keeps the pod."""
from __future__ import annotations

import requests

from .test_admission_webhooks import Hook, hook, ns, server  # noqa: F401 - the fixtures, per module
from .webhookconfig import configure, reviews, unconfigure


def test_eviction_reaches_webhooks_and_a_denial_keeps_the_pod(server, hook: Hook, ns):
    base = f"{server.url}/api/v1/namespaces/{ns}"
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    assert requests.post(f"{base}/pods", json=pod).status_code == 201
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p"},
                "deleteOptions": {"gracePeriodSeconds": 0}}
    cfg = f"evict-deny-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/deny", hook.ca_bundle,
              ["pods/eviction"])
    try:
        hook.reviews.clear()
        r = requests.post(f"{base}/pods/p/eviction", json=eviction)
        assert r.status_code == 403, r.text
        assert r.json()["message"] == f'admission webhook "{cfg}.example.com" denied the request: no configmaps ' \
                                      "named deny-me"
        [review] = reviews(hook, ns)
        assert (review["operation"], review["kind"], review["resource"], review["subResource"], review["name"],
                review["object"]["deleteOptions"], review["options"]["kind"]) == (
            "CREATE", {"group": "policy", "version": "v1", "kind": "Eviction"},
            {"group": "", "version": "v1", "resource": "pods"}, "eviction", "p", {"gracePeriodSeconds": 0},
            "CreateOptions")
        assert requests.get(f"{base}/pods/p").status_code == 200
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
    assert requests.post(f"{base}/pods/p/eviction", json=eviction).status_code == 201
    assert requests.get(f"{base}/pods/p").status_code == 404
