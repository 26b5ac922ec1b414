"""controller/legacytokentracking.py: `kube-system/kube-apiserver-legacy-service-account-token-tracking`
(pkg/controlplane/controller/legacytokentracking/controller.go): created with today's UTC date, a date that does
not parse rewritten, a deleted one recreated no sooner than the 30-minute creation limiter allows."""
from __future__ import annotations

from conformance.reference_server.controller.legacytokentracking import (
    CONFIGMAP_NAME,
    LegacyTokenTrackingController,
    since,
)
from conformance.reference_server.registry.store import DeleteOptions
from conformance.reference_server.server import build_context
from tests.reference_server.replicas import until

T0 = 1_700_000_000.0  # 2023-11-14T22:13:20Z


def _controller():
    registry = build_context(flavor="bare").registry
    now = [T0]
    return registry, now, LegacyTokenTrackingController(registry, clock=lambda: now[0])


def test_created_with_the_utc_date():
    registry, _, c = _controller()
    assert c.sync() == 0.0
    cm = registry.content("configmaps").get("kube-system", CONFIGMAP_NAME)
    assert cm["data"] == {"since": "2023-11-14"} == {"since": since(T0)}
    assert [m["manager"] for m in cm["metadata"]["managedFields"]] == ["kube-apiserver"]


def test_a_date_that_does_not_parse_is_rewritten_a_good_one_kept():
    registry, now, c = _controller()
    store = registry.content("configmaps")
    c.sync()
    cm = store.get("kube-system", CONFIGMAP_NAME)
    store.update("kube-system", CONFIGMAP_NAME, {**cm, "data": {"since": "2023-1-5", "x": "y"}})
    now[0] += 86400
    c.sync()
    assert store.get("kube-system", CONFIGMAP_NAME)["data"] == {"since": "2023-11-15", "x": "y"}
    rv = store.get("kube-system", CONFIGMAP_NAME)["metadata"]["resourceVersion"]
    c.sync()
    assert store.get("kube-system", CONFIGMAP_NAME)["metadata"]["resourceVersion"] == rv


def test_a_deleted_configmap_waits_for_the_creation_limiter():
    registry, now, c = _controller()
    store = registry.content("configmaps")
    c.sync()
    store.delete("kube-system", CONFIGMAP_NAME, DeleteOptions())
    now[0] += 60
    assert c.sync() == 29 * 60  # the limiter's token is back 30 minutes after the first creation
    now[0] += 29 * 60
    assert c.sync() == 0.0
    assert store.get("kube-system", CONFIGMAP_NAME)["data"] == {"since": since(now[0])}


def test_the_server_writes_it(http, url):
    def read():
        r = http.get(f"{url}/api/v1/namespaces/kube-system/configmaps/{CONFIGMAP_NAME}")
        return r.json() if r.status_code == 200 else None
    cm = until(read, "the legacy token tracking ConfigMap", timeout=10)
    assert list(cm["data"]) == ["since"] and len(cm["data"]["since"]) == 10
