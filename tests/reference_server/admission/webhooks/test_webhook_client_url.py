"""The URL the webhook client posts to (admission/webhooks/client.py `target`): Go's `url.Parse` of
`clientConfig.url`, rebuilt as the rest client does: scheme, the host as Go escapes it, the cleaned path, and
`?timeout=`."""
from __future__ import annotations

import pytest

from conformance.reference_server.admission.webhooks.client import target


@pytest.mark.parametrize("url, posted", [
    ("https://hooks.example.com/validate", "https://hooks.example.com/validate?timeout=10s"),
    ("https://hooks.example.com", "https://hooks.example.com/?timeout=10s"),
    ("https://hooks.example.com//a/./b/../c", "https://hooks.example.com/a/c?timeout=10s"),
    ("https://[::1]:8443/x", "https://[::1]:8443/x?timeout=10s"),
    ("https://hello.%e4%b8%96%e7%95%8c.example/x", "https://hello.%E4%B8%96%E7%95%8C.example/x?timeout=10s"),
    ("https://hooks.example.com/a%20b", "https://hooks.example.com/a%20b?timeout=10s"),
])
def test_posted_url(url, posted):
    assert target({"clientConfig": {"url": url}}) == (posted, None)


def test_timeout_and_service():
    hook = {"timeoutSeconds": 75, "clientConfig": {"service": {"name": "s", "namespace": "n", "path": "/p"}}}
    assert target(hook) == ("https://s.n.svc:443/p?timeout=1m15s", "s.n.svc:443")
