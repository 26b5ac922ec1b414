"""controller/tokencleaner.py: kube-controller-manager's bootstrap token cleaner (pkg/controller/bootstrap/
tokencleaner.go, cluster-bootstrap's GetExpiration): expired `bootstrap.kubernetes.io/token` Secrets in kube-system
deleted as `token-cleaner`, one not yet expired evaluated again when it expires; the kind flavour runs it."""
from __future__ import annotations

import base64
import math
import time
from datetime import datetime, timezone

import requests

from conformance.reference_server.admission.admitted import ControllerWrites
from conformance.reference_server.controller.bootstraptokens import get_expiration
from conformance.reference_server.controller.tokencleaner import TokenCleaner
from conformance.reference_server.embedded import start_embedded
from conformance.reference_server.flavors import FLAVORS
from conformance.reference_server.registry.store import ListOptions
from conformance.reference_server.server import build_context
from tests.reference_server.replicas import until

NOW = 1_700_000_000.0  # 2023-11-14T22:13:20Z


def _secret(name: str, expiration: str | None, type_: str = "bootstrap.kubernetes.io/token",
            ns: str = "kube-system") -> dict:
    data = {"token-id": name[-6:], "token-secret": "0123456789abcdef"}
    if expiration is not None:
        data["expiration"] = expiration
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": ns}, "type": type_,
            "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}}


def _rfc3339(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_get_expiration():
    assert get_expiration(_secret("bootstrap-token-aaaaaa", None), NOW) == (0.0, False)  # never expires
    assert get_expiration(_secret("bootstrap-token-aaaaaa", "2023-11-14T22:13:30Z"), NOW) == (10.0, False)
    assert get_expiration(_secret("bootstrap-token-aaaaaa", "2023-11-14T22:13:20Z"), NOW) == (0.0, True)
    assert get_expiration(_secret("bootstrap-token-aaaaaa", "2023-11-14T23:13:30+01:00"), NOW) == (10.0, False)
    assert get_expiration(_secret("bootstrap-token-aaaaaa", "tomorrow"), NOW) == (0.0, True)  # unparseable
    assert get_expiration(_secret("bootstrap-token-aaaaaa", "2023-11-15"), NOW) == (0.0, True)  # not RFC 3339


def test_sync_deletes_the_expired_only():
    registry = build_context(flavor="kind").registry
    secrets = registry.content("secrets")
    for s in (_secret("bootstrap-token-expire", "2023-11-14T00:00:00Z"),
              _secret("bootstrap-token-future", "2023-11-15T00:00:00Z"),
              _secret("bootstrap-token-always", None),
              _secret("opaque-old", "2023-11-14T00:00:00Z", type_="Opaque")):
        secrets.create(s)
    cleaner = TokenCleaner(registry, clock=lambda: NOW)
    cleaner.writes = ControllerWrites(None, "")
    assert cleaner.sync("bootstrap-token-expire") is None
    assert cleaner.sync("bootstrap-token-future") == 6400.0  # evaluated again then
    assert cleaner.sync("bootstrap-token-always") is None
    assert cleaner.sync("opaque-old") is None
    assert cleaner.sync("missing") is None
    names = {s["metadata"]["name"] for s in secrets.list("kube-system", ListOptions())["items"]}
    assert "bootstrap-token-expire" not in names
    assert {"bootstrap-token-future", "bootstrap-token-always", "opaque-old"} <= names


def test_only_kind_runs_it():
    assert FLAVORS["kind"].token_cleaner
    assert [n for n, f in FLAVORS.items() if f.token_cleaner] == ["kind"]


def test_the_kind_server_deletes_a_token_when_it_expires():
    srv = start_embedded(flavor="kind")
    try:
        url = f"{srv.url}/api/v1/namespaces/kube-system/secrets"
        expires = float(math.ceil(time.time()) + 2)
        assert requests.post(url, json=_secret("bootstrap-token-soon00", _rfc3339(expires)),
                             timeout=10).status_code == 201
        assert requests.post(url, json=_secret("bootstrap-token-past00", "2020-01-01T00:00:00Z"),
                             timeout=10).status_code == 201
        until(lambda: requests.get(f"{url}/bootstrap-token-past00", timeout=10).status_code == 404, "expired: deleted")
        until(lambda: requests.get(f"{url}/bootstrap-token-soon00", timeout=10).status_code == 404,
              "deleted once it expired", timeout=15)
        assert time.time() >= expires  # not before
        assert requests.get(f"{url}/bootstrap-token-abcdef", timeout=10).status_code == 200  # kind's: 24 h left
    finally:
        srv.stop()
