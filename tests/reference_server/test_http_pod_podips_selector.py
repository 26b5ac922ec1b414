"""Pods' `status.podIPs` field label: pkg/apis/core/v1/conversion.go accepts it (since dual-stack), but
pkg/registry/core/pod/strategy.go `ToSelectableFields` never sets it ("TODO: add podIPs as a downward API value(s)"),
so `fields.Set.Get` reads "" for every pod: `status.podIPs=` selects them all, `status.podIPs=<an IP>` none, even the
pod holding that IP (kubernetes#94756, closed unmerged, shows a 2020 cluster answering so)."""
from __future__ import annotations

import requests

from .conftest import NamespaceFactory


def _listed(http: requests.Session, path: str, selector: str) -> list[str]:
    r = http.get(path, params={"fieldSelector": selector})
    assert r.status_code == 200, (selector, r.text)
    return sorted(i["metadata"]["name"] for i in r.json()["items"])


def test_status_pod_ips_is_accepted_and_always_empty(http: requests.Session, url: str, namespaces: NamespaceFactory) -> None:
    ns = namespaces.create("ips")["metadata"]["name"]
    pods = f"{url}/api/v1/namespaces/{ns}/pods"
    made = http.post(pods, json={"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}})
    assert made.status_code == 201, made.text
    pod = made.json()
    pod["status"] = {"podIP": "10.0.0.7", "podIPs": [{"ip": "10.0.0.7"}]}
    r = http.put(f"{pods}/p/status", json=pod)
    assert r.status_code == 200, r.text
    assert _listed(http, pods, "status.podIP=10.0.0.7") == ["p"]
    assert _listed(http, pods, "status.podIPs=10.0.0.7") == []
    assert _listed(http, pods, "status.podIPs=") == ["p"]
    assert _listed(http, pods, "status.podIPs!=10.0.0.7") == ["p"]
