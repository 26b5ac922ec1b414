"""Admission webhooks on the connect subresources (http/connect.py): `ConnectResource` admits a CONNECT of the
options object (`PodExecOptions`, ...) before the REST's Connect, so a webhook's denial comes before the
`does not have a host assigned` refusal; `pods/log` is a get and is never admitted."""
from __future__ import annotations

import requests

from .test_admission_webhooks import hook, ns, server  # noqa: F401 - the fixtures, per module
from .webhookconfig import configure, reviews, unconfigure


def test_connect_reaches_webhooks_with_the_options_object(server, hook, ns):
    base = f"{server.url}/api/v1/namespaces/{ns}/pods"
    r = requests.post(base, json={"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "x"}]}})
    assert r.status_code == 201, r.text
    cfg = f"connect-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle,
              ["pods/exec", "pods/log", "pods/proxy"], )
    try:
        r = requests.post(f"{base}/p/exec", params={"command": ["ls", "-l"], "stdout": "true", "container": "c"})
        assert r.status_code == 400 and r.json()["message"] == "pod p does not have a host assigned", r.text
        assert requests.get(f"{base}/p/log").status_code == 204
        assert requests.get(f"{base}/p/proxy/metrics").status_code == 400
        got = [q for q in reviews(hook, ns) if q["operation"] == "CONNECT"]  # getRequestOptions: "/" + the rest
        assert [(q["subResource"], q["kind"]["kind"], q["name"]) for q in got] == [
            ("exec", "PodExecOptions", "p"), ("proxy", "PodProxyOptions", "p")]
        assert got[0]["object"] == {"kind": "PodExecOptions", "apiVersion": "v1", "stdout": True, "container": "c",
                                    "command": ["ls", "-l"]}
        assert got[1]["object"]["path"] == "/metrics" and got[0]["oldObject"] is None
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
    cfg = f"deny-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/deny", hook.ca_bundle, ["pods/exec"])
    try:
        r = requests.get(f"{base}/p/exec", params={"command": "ls"})
        assert r.status_code == 403, r.text
        assert r.json()["message"].startswith(f'admission webhook "{cfg}.example.com" denied the request')
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
