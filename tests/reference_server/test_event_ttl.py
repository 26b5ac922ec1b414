"""`--event-ttl` (kube-apiserver's, default 1 h): every Event, core/v1 or events.k8s.io/v1 (one storage), is written
with a lease of the ttl (pkg/registry/core/event/storage/storage.go `TTLFunc`) and disappears with a DELETED watch
event when it ends, on both backends; `etcd_lease_object_counts` records each lease's objects; a dry run takes no
lease; the flag parses as kube-apiserver's durations."""
from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded
from conformance.reference_server.serve import build_parser
from conformance.reference_server.server import EVENT_TTL

WATCH_SECONDS = 20  # the watch's own timeout: the events expire 2 s after their write (etcd's minimum lease)


@pytest.fixture
def short_ttl(storage_config: Any) -> Iterator[RunningServer]:
    srv = start_embedded(flavor="bare", storage=storage_config, leader_elect=False, event_ttl=1.0)
    try:
        yield srv
    finally:
        srv.stop()


def core_event(name: str, ns: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "involvedObject": {"kind": "ConfigMap", "namespace": ns, "name": "cm"},
            "reason": "Tested", "message": "expires", "type": "Normal"}


def v1_event(name: str, ns: str) -> dict[str, Any]:
    return {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name},
            "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/test",
            "reportingInstance": "test-1", "action": "Testing", "reason": "Tested", "type": "Normal",
            "regarding": {"kind": "ConfigMap", "namespace": ns, "name": "cm"}, "note": "expires"}


def test_events_of_both_apis_expire_with_a_deleted_watch_event(short_ttl: RunningServer, tmp_path: Path) -> None:
    from kubernetes import client, config, watch
    kc = tmp_path / "kc"
    short_ttl.write_kubeconfig(str(kc))
    api = client.CoreV1Api(config.new_client_from_config(str(kc)))
    ns = f"ttl-{uuid.uuid4().hex[:6]}"
    api.create_namespace({"metadata": {"name": ns}})
    rv = api.list_namespaced_event(ns).metadata.resource_version
    http = requests.Session()
    base = short_ttl.url
    r = http.post(f"{base}/api/v1/namespaces/{ns}/events", json=core_event("core", ns))
    assert r.status_code == 201, r.text
    r = http.post(f"{base}/apis/events.k8s.io/v1/namespaces/{ns}/events", json=v1_event("new", ns))
    assert r.status_code == 201, r.text
    r = http.post(f"{base}/api/v1/namespaces/{ns}/events?dryRun=All", json=core_event("dry", ns))
    assert r.status_code == 201, r.text
    cm = http.post(f"{base}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "cm"}})
    assert cm.status_code == 201, cm.text
    deleted = []
    for ev in watch.Watch().stream(api.list_namespaced_event, ns, resource_version=rv,
                                   timeout_seconds=WATCH_SECONDS):
        if ev["type"] == "DELETED":
            deleted.append(ev["object"].metadata.name)
            if len(deleted) == 2:
                break
    assert sorted(deleted) == ["core", "new"]
    assert api.list_namespaced_event(ns).items == []
    assert http.get(f"{base}/api/v1/namespaces/{ns}/configmaps/cm").status_code == 200  # no lease: kept
    metrics = http.get(f"{base}/metrics").text
    # two leases (reuse: int(5 % of 1 s) = 0 s, so none is reused); the second grant observed 2 (1 + its own call)
    assert 'etcd_lease_object_counts_bucket{le="10"} 2' in metrics, metrics[:200]
    assert "etcd_lease_object_counts_sum 3" in metrics


def test_the_default_ttl_is_an_hour_and_the_flags_parse_as_durations() -> None:
    args = build_parser().parse_args([])
    assert args.event_ttl == EVENT_TTL == 3600.0 and args.lease_reuse_duration_seconds == 60
    args = build_parser().parse_args(["--event-ttl", "1h30m", "--lease-reuse-duration-seconds", "10"])
    assert args.event_ttl == 5400.0 and args.lease_reuse_duration_seconds == 10
    with pytest.raises(Exception, match='--event-ttl: time: unknown unit "x" in duration "1x"'):
        build_parser().parse_args(["--event-ttl", "1x"])


def test_the_registry_hands_the_ttl_to_both_event_stores() -> None:
    from conformance.reference_server.server import build_context
    ctx = build_context(event_ttl=90.9)
    assert ctx.registry.content("events").ttl == 90  # uint64(ttl.Seconds())
    assert ctx.registry.group("events.k8s.io", "events").ttl == 90
    assert ctx.registry.content("configmaps").ttl == 0
    assert build_context().registry.content("events").ttl == 3600
