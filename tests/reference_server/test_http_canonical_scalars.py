"""A `resource.Quantity` and a `metav1.Time` are answered and stored as Go holds them: `Quantity.MarshalJSON` writes
the canonical `String()` (`1000m` is `1`, `1024Mi` is `1Gi`, `0.5` is `500m`: apimachinery quantity.go), `Time`'s
`t.UTC().Format(time.RFC3339)` (time.go: UTC, to the second), whatever form the client sent."""
from __future__ import annotations

from typing import Any

APPLY = {"Content-Type": "application/apply-patch+yaml"}
MERGE = {"Content-Type": "application/merge-patch+json"}


def _pod(name: str, cpu: str, memory: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [
        {"name": "c", "image": "i", "resources": {"limits": {"cpu": cpu, "memory": memory},
                                                  "requests": {"cpu": "0.5", "memory": " 0.5Gi"}}}]}}


def test_quantities_are_answered_and_stored_canonical(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/pods"
    r = http.post(base, json=_pod("p", "1000m", "1024Mi"))
    assert r.status_code == 201, r.text
    want = {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "512Mi"}}
    assert r.json()["spec"]["containers"][0]["resources"] == want
    assert http.get(f"{base}/p").json()["spec"]["containers"][0]["resources"] == want
    r = http.post(f"{url}/api/v1/namespaces/{ns}/resourcequotas",
                  json={"metadata": {"name": "q"}, "spec": {"hard": {"pods": "10000m", "requests.storage": "2048Mi"}}})
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["hard"] == {"pods": "10", "requests.storage": "2Gi"}
    r = http.patch(f"{url}/api/v1/namespaces/{ns}/resourcequotas/q", json={"spec": {"hard": {"pods": "1e1"}}},
                   headers=MERGE)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["hard"]["pods"] == "10"  # DecimalExponent: `1e1` is `10`
    # ParseQuantity's int64 path keeps the text when its digits do not end in 000 and its scale is a multiple of 3
    r = http.patch(f"{url}/api/v1/namespaces/{ns}/resourcequotas/q", headers=MERGE,
                   json={"spec": {"hard": {"requests.cpu": "1.500", "limits.cpu": "+2", "requests.memory": "1000"}}})
    assert r.status_code == 200, r.text
    hard = r.json()["spec"]["hard"]
    assert (hard["requests.cpu"], hard["limits.cpu"], hard["requests.memory"]) == ("1.500", "+2", "1k")


def test_a_quantity_sent_as_a_json_number_is_read_from_its_bytes(http, url, namespaces):
    """quantity.go `UnmarshalJSON`: a JSON number's bytes are parsed as a quantity's text (`1.5` is `1500m`,
    `1e3` and `2.50e-1` kept: `ParseQuantity` keeps a text whose digits and scale look canonical, `1.500` too)."""
    ns = namespaces.create()["metadata"]["name"]
    body = ('{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","resources":'
            '{"limits":{"cpu":1.5,"memory":1e3},"requests":{"cpu":2.50e-1,"memory":100}}}]}}')
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", data=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "1500m", "memory": "1e3"},
                                                              "requests": {"cpu": "2.50e-1", "memory": "100"}}


def test_a_time_is_answered_in_utc_to_the_second(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    event = {"metadata": {"name": "e"}, "involvedObject": {"kind": "Pod", "name": "p", "namespace": ns},
             "reason": "R", "message": "m", "firstTimestamp": "2024-01-01T01:00:00.5+01:00",
             "lastTimestamp": "2024-01-01T00:00:01.999Z"}
    r = http.post(f"{url}/api/v1/namespaces/{ns}/events", json=event)
    assert r.status_code == 201, r.text
    got = r.json()
    assert (got["firstTimestamp"], got["lastTimestamp"]) == ("2024-01-01T00:00:00Z", "2024-01-01T00:00:01Z")


def test_a_server_side_apply_stores_quantities_canonical(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    body = (f"apiVersion: v1\nkind: ResourceQuota\nmetadata: {{name: q, namespace: {ns}}}\n"
            "spec: {hard: {pods: 10000m, requests.memory: 1024Mi}}\n")
    r = http.patch(f"{url}/api/v1/namespaces/{ns}/resourcequotas/q", data=body, headers=APPLY,
                   params={"fieldManager": "m"})
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["hard"] == {"pods": "10", "requests.memory": "1Gi"}
    r = http.patch(f"{url}/api/v1/namespaces/{ns}/resourcequotas/q", data=body, headers=APPLY,
                   params={"fieldManager": "m"})
    assert r.status_code == 200 and r.json()["spec"]["hard"] == {"pods": "10", "requests.memory": "1Gi"}, r.text


def test_a_micro_time_is_answered_in_utc_with_six_digits(http, url, namespaces):
    """micro_time.go: `UnmarshalJSON` parses `RFC3339Micro` (six fraction digits, any offset), `MarshalJSON`
    writes it in UTC; a MicroTime without its six digits is the decoder's 400."""
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"
    r = http.post(base, json={"metadata": {"name": "l"}, "spec": {"renewTime": "2024-01-01T01:00:00.123456+01:00"}})
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["renewTime"] == "2024-01-01T00:00:00.123456Z"
    assert http.get(f"{base}/l").json()["spec"]["renewTime"] == "2024-01-01T00:00:00.123456Z"
    r = http.post(base, json={"metadata": {"name": "m"}, "spec": {"acquireTime": "2024-01-01T00:00:00Z"}})
    assert r.status_code == 400, r.text
    assert r.json()["message"] == (
        'Lease in version "v1" cannot be handled as a Lease: parsing time "2024-01-01T00:00:00Z" as '
        '"2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"')
