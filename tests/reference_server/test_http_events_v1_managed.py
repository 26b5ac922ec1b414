"""managedFields of an Event written through both of its APIs (core/v1 and events.k8s.io/v1, one storage): each
entry keeps the apiVersion it was recorded in, and another version's write compares it in that version
(apimachinery v0.33 `managedfields/internal/versionconverter.go`: the object converted through its group's internal
version, which for events.k8s.io is core's `Event` (kubernetes `pkg/apis/events/register.go`), to the entry's
version). So a core/v1 entry owning `.message` conflicts with an events.k8s.io/v1 apply of `note`, and a core/v1
write of `message` takes `f:note` from an events.k8s.io/v1 entry. (registry/eventsview.py `share_converter`.)"""
from __future__ import annotations

import json
from typing import Any

from .test_http_events_v1 import V1, v1_event

APPLY = {"Content-Type": "application/apply-patch+yaml"}
MERGE = {"Content-Type": "application/merge-patch+json"}


def _apply(http: Any, path: str, body: dict[str, Any], manager: str, **params: str) -> Any:
    return http.patch(path, data=json.dumps(body), headers=APPLY, params={"fieldManager": manager, **params})


def _entries(obj: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    return [(e["manager"], e["operation"], e["apiVersion"], e["fieldsV1"]) for e in obj["metadata"]["managedFields"]]


def test_a_core_entry_conflicts_with_an_events_v1_apply_in_its_own_paths(http, url, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    core = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}, "message": "hello", "reason": "Started",
            "type": "Normal", "involvedObject": {"kind": "Pod", "name": "p", "namespace": ns}}
    r = _apply(http, f"{url}/api/v1/namespaces/{ns}/events/e", core, "a")
    assert r.status_code == 201, r.text
    assert _entries(r.json()) == [("a", "Apply", "v1", {
        "f:involvedObject": {}, "f:message": {}, "f:reason": {}, "f:type": {}})]  # (an atomic ObjectReference)
    r = _apply(http, f"{url}{V1}/namespaces/{ns}/events/e", {"apiVersion": "events.k8s.io/v1", "kind": "Event",
                                                              "metadata": {"name": "e"}, "note": "other"}, "b")
    assert r.status_code == 409, r.text
    st = r.json()
    assert st["message"] == 'Apply failed with 1 conflict: conflict with "a": .message'  # (an applier: no version)
    assert st["details"]["causes"] == [{"reason": "FieldManagerConflict", "message": 'conflict with "a"',
                                        "field": ".message"}]


def test_a_core_write_takes_the_renamed_field_from_an_events_v1_entry(http, url, namespaces) -> None:
    ns = namespaces.create()["metadata"]["name"]
    r = _apply(http, f"{url}{V1}/namespaces/{ns}/events/e", v1_event("e", ns), "b")
    assert r.status_code == 201, r.text
    [(manager, operation, version, fields)] = _entries(r.json())
    assert (manager, operation, version, fields["f:note"]) == ("b", "Apply", "events.k8s.io/v1", {})
    r = http.patch(f"{url}/api/v1/namespaces/{ns}/events/e", data=json.dumps({"message": "changed"}), headers=MERGE,
                   params={"fieldManager": "c"})
    assert r.status_code == 200, r.text
    assert r.json()["message"] == "changed"
    assert _entries(r.json()) == [("b", "Apply", "events.k8s.io/v1", {k: v for k, v in fields.items()
                                                                      if k != "f:note"}),
                                  ("c", "Update", "v1", {"f:message": {}})]
    # and back: an events.k8s.io/v1 apply of `note` by b conflicts with c's core `.message`
    r = _apply(http, f"{url}{V1}/namespaces/{ns}/events/e", v1_event("e", ns), "b")
    assert r.status_code == 409, r.text
    assert r.json()["message"] == 'Apply failed with 1 conflict: conflict with "c" using v1: .message'


def test_one_applier_through_both_apis(http, url, namespaces) -> None:
    """An applier's entry moves to the version of its last apply; what it applied before in the other version and
    no longer applies is pruned there (`Updater.prune` in the entry's own version)."""
    ns = namespaces.create()["metadata"]["name"]
    r = _apply(http, f"{url}{V1}/namespaces/{ns}/events/e", v1_event("e", ns, related={"kind": "Node", "name": "n"}),
               "b")
    assert r.status_code == 201, r.text
    core = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}, "eventTime": r.json()["eventTime"],
            "reportingComponent": "example.com/ctl", "reportingInstance": "ctl-1", "action": "Reconcile",
            "reason": "Synced", "type": "Normal", "message": "all good",
            "involvedObject": {"kind": "Pod", "namespace": ns, "name": "p", "apiVersion": "v1"}}
    r = _apply(http, f"{url}/api/v1/namespaces/{ns}/events/e", core, "b")
    assert r.status_code == 200, r.text
    assert "related" not in r.json()  # b applied it before (as events.k8s.io/v1's `related`), not now
    assert _entries(r.json()) == [("b", "Apply", "v1", {
        "f:action": {}, "f:eventTime": {}, "f:involvedObject": {}, "f:message": {}, "f:reason": {},
        "f:reportingComponent": {}, "f:reportingInstance": {}, "f:type": {}})]
