"""events.k8s.io/v1 Events (registry/eventsview.py, eventsv1.py): one storage with core/v1 events, upstream's
conversion both ways (reads, lists, watches, patches), ValidateEventCreate/Update for the new API, its table."""
from __future__ import annotations

from typing import Any

from conformance.reference_server import eventsv1

from .conftest import status_of

V1 = "/apis/events.k8s.io/v1"
NOW = "2026-01-02T03:04:05.123456Z"


def v1_event(name: str, ns: str, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name, "namespace": ns},
            "eventTime": NOW, "reportingController": "example.com/ctl", "reportingInstance": "ctl-1",
            "action": "Reconcile", "reason": "Synced", "type": "Normal", "note": "all good",
            "regarding": {"kind": "Pod", "namespace": ns, "name": "p", "apiVersion": "v1"}, **extra}


def test_created_in_v1_read_in_both(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(f"{url}{V1}/namespaces/{ns}/events", json=v1_event("e1", ns, series={
        "count": 2, "lastObservedTime": NOW}, related={"kind": "Node", "name": "n"}))
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["apiVersion"] == "events.k8s.io/v1"
    assert {k: v for k, v in created.items() if k != "metadata"} == {
        "kind": "Event", "apiVersion": "events.k8s.io/v1", "eventTime": NOW,
        "series": {"count": 2, "lastObservedTime": NOW}, "reportingController": "example.com/ctl",
        "reportingInstance": "ctl-1", "action": "Reconcile", "reason": "Synced",
        "regarding": {"kind": "Pod", "namespace": ns, "name": "p", "apiVersion": "v1"},
        "related": {"kind": "Node", "name": "n"}, "note": "all good", "type": "Normal", "deprecatedSource": {},
        "deprecatedFirstTimestamp": None, "deprecatedLastTimestamp": None}
    core = http.get(f"{url}/api/v1/namespaces/{ns}/events/e1").json()
    assert core["metadata"] == created["metadata"]
    assert (core["message"], core["reportingComponent"], core["involvedObject"]["name"], core["source"],
            core["firstTimestamp"], core["series"]["count"]) == ("all good", "example.com/ctl", "p", {}, None, 2)
    assert [i["metadata"]["name"] for i in http.get(f"{url}{V1}/namespaces/{ns}/events").json()["items"]] == ["e1"]


def test_core_events_seen_in_v1(http, url, namespaces, watch):
    ns = namespaces.create()["metadata"]["name"]
    listed = http.get(f"{url}{V1}/namespaces/{ns}/events").json()
    assert (listed["kind"], listed["apiVersion"], listed["items"]) == ("EventList", "events.k8s.io/v1", [])
    w = watch(f"{url}{V1}/namespaces/{ns}/events", {"resourceVersion": listed["metadata"]["resourceVersion"]})
    core = {"metadata": {"name": "old", "namespace": ns}, "involvedObject": {"kind": "Pod", "name": "p",
                                                                             "namespace": ns},
            "reason": "Started", "message": "hello", "source": {"component": "kubelet", "host": "n1"},
            "firstTimestamp": "2026-01-02T03:04:05Z", "lastTimestamp": "2026-01-02T03:05:05Z", "count": 3,
            "type": "Normal"}
    assert http.post(f"{url}/api/v1/namespaces/{ns}/events", json=core).status_code == 201
    ev = w.until(lambda e: e["type"] == "ADDED", what="the core event in v1")[-1]["object"]
    assert (ev["apiVersion"], ev["note"], ev["regarding"]["name"], ev["deprecatedSource"], ev["deprecatedCount"],
            ev["deprecatedFirstTimestamp"], ev["deprecatedLastTimestamp"], ev["eventTime"]) == (
        "events.k8s.io/v1", "hello", "p", {"component": "kubelet", "host": "n1"}, 3, "2026-01-02T03:04:05Z",
        "2026-01-02T03:05:05Z", None)
    assert "message" not in ev and "involvedObject" not in ev
    # a merge patch in the new API changes the stored core event (an old event: only metadata may change)
    r = http.patch(f"{url}{V1}/namespaces/{ns}/events/old", json={"metadata": {"labels": {"a": "b"}}},
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text
    assert http.get(f"{url}/api/v1/namespaces/{ns}/events/old").json()["metadata"]["labels"] == {"a": "b"}
    r = http.patch(f"{url}{V1}/namespaces/{ns}/events/old", json={"note": "changed"},
                   headers={"Content-Type": "application/merge-patch+json"})
    assert status_of(r)["message"] == ('Event.events.k8s.io "old" is invalid: message: Invalid value: "changed": '
                                       "field is immutable")
    r = http.delete(f"{url}{V1}/namespaces/{ns}/events/old")
    assert r.status_code == 200
    assert http.get(f"{url}/api/v1/namespaces/{ns}/events/old").status_code == 404


def test_validation_of_the_new_api(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(f"{url}{V1}/namespaces/{ns}/events", json={"metadata": {"name": "e"}})
    # an event without eventTime is an "old" one to legacyValidateEvent: its namespace must match the object's
    assert status_of(r)["message"] == ('Event.events.k8s.io "e" is invalid: [involvedObject.namespace: Invalid '
                                       'value: "": does not match event.namespace, eventTime: Required value, type: '
                                       'Invalid value: "": has invalid value: ]')
    body = v1_event("e", ns, reportingController="", action="", deprecatedCount=2, type="Odd",
                    series={"count": 1}, deprecatedSource={"component": "x"})
    r = http.post(f"{url}{V1}/namespaces/{ns}/events", json=body)
    assert [(c["field"], c["message"]) for c in status_of(r)["details"]["causes"]] == [
        ("reportingController", "Required value"),
        ("reportingController", 'Invalid value: "": name part must be non-empty'),
        ("reportingController", "Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or "
                                "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
                                "'my.name',  or '123-abc', regex used for validation is "
                                "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
        ("action", "Required value"),
        ("series.count", 'Invalid value: "": should be at least 2'),
        ("series.lastObservedTime", "Required value"),
        ("type", 'Invalid value: "": has invalid value: Odd'),
        ("count", 'Invalid value: "": needs to be unset'),
        ("source", 'Invalid value: "": needs to be unset')]
    r = http.post(f"{url}{V1}/namespaces/{ns}/events", json=v1_event("e", ns, regarding={"kind": "Node",
                                                                                         "name": "n"}))
    assert status_of(r)["message"] == ('Event.events.k8s.io "e" is invalid: involvedObject.namespace: Invalid value: '
                                       '"": does not match event.namespace')


def test_table_and_conversion_round_trip(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    assert http.post(f"{url}{V1}/namespaces/{ns}/events", json=v1_event("e1", ns)).status_code == 201
    table = http.get(f"{url}{V1}/namespaces/{ns}/events",
                     headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}).json()
    assert [c["name"] for c in table["columnDefinitions"]][:4] == ["Last Seen", "Type", "Reason", "Object"]
    assert table["rows"][0]["cells"][1:7] == ["Normal", "Synced", "pod/p", "", "example.com/ctl, ctl-1", "all good"]
    assert table["rows"][0]["cells"][8:] == [1, "e1"]
    stored = http.get(f"{url}/api/v1/namespaces/{ns}/events/e1").json()
    assert eventsv1.to_core(eventsv1.to_v1(stored)) == stored


def test_field_selectors_take_the_v1_labels(http, url, namespaces):
    """pkg/apis/events/v1/conversion.go `AddFieldLabelConversionsForEvent` (1.33): `regarding.*`, `reason`, `type`,
    `reportingController` and the metadata labels select as their core fields do; a core/v1 label such as
    `involvedObject.name` or `source` is `field label not supported`."""
    ns = namespaces.create()["metadata"]["name"]
    for name, regarding, controller in (("a", "p1", "example.com/one"), ("b", "p2", "example.com/two")):
        event = v1_event(name, ns, reportingController=controller)
        event["regarding"]["name"] = regarding
        r = http.post(f"{url}{V1}/namespaces/{ns}/events", json=event)
        assert r.status_code == 201, r.text

    def selected(selector: str) -> list[str]:
        r = http.get(f"{url}{V1}/namespaces/{ns}/events", params={"fieldSelector": selector})
        assert r.status_code == 200, r.text
        return [i["metadata"]["name"] for i in r.json()["items"]]

    assert selected("regarding.name=p2") == ["b"]
    assert selected("reportingController=example.com/one") == ["a"]
    assert selected("regarding.kind=Pod,reason=Synced,type=Normal,regarding.uid=") == ["a", "b"]
    assert selected("regarding.fieldPath!=,metadata.name=a") == []
    for label in ("involvedObject.name", "source", "reportingComponent", "note"):
        r = http.get(f"{url}{V1}/namespaces/{ns}/events", params={"fieldSelector": f"{label}=x"})
        assert (r.status_code, status_of(r)["message"]) == (400, f"field label not supported: {label}")
    r = http.get(f"{url}/api/v1/namespaces/{ns}/events", params={"fieldSelector": "reportingComponent=example.com/two"})
    assert [i["metadata"]["name"] for i in r.json()["items"]] == ["b"]
