"""The field manager compares a built-in kind's objects as structured-merge-diff reflects the Go objects
(fieldmanager/reflected.py; upstream typeconverter.go `ObjectToTyped` → smd v4.6.0 `value.NewValueReflect`,
reflectcache.go `FieldCacheEntry.CanOmit`), a custom resource's as sent, an applied configuration as sent."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.fieldmanager import FieldManager
from conformance.reference_server.fieldmanager.scale import SCALE_FIELD_MANAGER, to_parent

POD = FieldManager("Pod", "v1", zero={"spec": {}, "status": {}}, ignored={"": frozenset({"status"})})
EVENT = FieldManager("Event", "v1")
ROLE = FieldManager("Role", "rbac.authorization.k8s.io/v1")
WIDGET = FieldManager("Widget", "example.com/v1", builtin=False)


def fields(obj: dict[str, Any]) -> dict[tuple[str, str], Any]:
    return {(e["manager"], e["operation"]): e["fieldsV1"] for e in obj["metadata"].get("managedFields", [])}


def pod(container: dict[str, Any], **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **meta},
            "spec": {"containers": [{"name": "c", "image": "i", **container}]}}


def test_empty_and_zero_omitempty_fields_of_a_body_are_not_owned() -> None:
    """`"labels": {}` (a map, omitempty) and `"stdin": false` (a bool, omitempty): `CanOmit`, not there; a
    container's `resources` (a struct held by value) is there, `{}`, on every container created (kubectl run's
    pods own `f:resources` on a kind cluster)."""
    out = POD.update(None, pod({"stdin": False, "workingDir": ""}, labels={}), "m")
    assert fields(out) == {("m", "Update"): {"f:spec": {"f:containers": {'k:{"name":"c"}': {
        ".": {}, "f:image": {}, "f:name": {}, "f:resources": {}}}}}}
    assert out["metadata"]["labels"] == {} and out["spec"]["containers"][0]["stdin"] is False  # (stored as Go does)


def test_a_zero_value_go_writes_anyway_is_on_both_sides() -> None:
    """An Event's `reportingComponent` (a string without omitempty) is `""` in `New()`'s object too."""
    ev = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}, "reason": "r", "reportingComponent": ""}
    assert fields(EVENT.update(None, ev, "m")) == {("m", "Update"): {"f:reason": {}}}


def test_an_empty_slice_without_omitempty_is_not_nil_when_decoded() -> None:
    """A Role's `rules` (no omitempty): `[]` decoded from JSON is an empty slice, not `New()`'s nil (`null`)."""
    def role(rules: Any) -> dict[str, Any]:
        return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r"},
                "rules": rules}
    assert fields(ROLE.update(None, role([]), "m")) == {("m", "Update"): {"f:rules": {}}}
    assert fields(ROLE.update(None, role(None), "m")) == {}


def test_emptying_labels_takes_the_map_from_its_owner() -> None:
    """An update's `"labels": {}` leaves the reflected object without `labels`: removed, so the manager that
    set them loses `f:labels` with its keys (as sent, the map was still there and kept its `.`)."""
    live = POD.update(None, pod({}, labels={"a": "1"}), "one")
    live["metadata"]["uid"] = "u1"
    out = POD.update(live, pod({}, labels={}), "two")
    assert "f:metadata" not in fields(out)[("one", "Update")]


def test_a_zero_omitempty_field_sent_again_changes_nothing() -> None:
    """An update that sends `"stdin": false` over a stored container without it: no change, nobody new owns it."""
    live = POD.update(None, pod({"stdin": True}), "one")
    live["metadata"]["uid"] = "u1"
    out = POD.update(live, pod({"stdin": False}), "two")
    assert ("two", "Update") not in fields(out)  # stdin: true → false is removed, not modified
    assert "f:stdin" not in fields(out)[("one", "Update")]["f:spec"]["f:containers"]['k:{"name":"c"}']


def test_a_custom_resource_is_compared_as_sent() -> None:
    """An unstructured object (`FromUnstructured`): nothing omitted."""
    cr = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": {}},
          "spec": {"on": False}}
    assert fields(WIDGET.update(None, cr, "m")) == {("m", "Update"): {
        "f:metadata": {"f:labels": {}}, "f:spec": {".": {}, "f:on": {}}}}


def test_an_applied_configuration_is_typed_as_sent() -> None:
    """`structuredMergeManager.Apply` types the patch from its unstructured map: `"stdin": false` and
    `"labels": {}` are owned by the applier."""
    out = POD.apply(None, pod({"stdin": False}, labels={}), "m", False)
    assert fields(out) == {("m", "Apply"): {"f:metadata": {"f:labels": {}}, "f:spec": {"f:containers": {
        'k:{"name":"c"}': {".": {}, "f:image": {}, "f:name": {}, "f:stdin": {}}}}}}


def test_scaling_to_zero_takes_replicas_from_its_owner_and_gives_them_to_nobody() -> None:
    """autoscaling/v1 `ScaleSpec.Replicas` is `int32,omitempty`: a Scale's `"replicas": 0` is not there once
    reflected, so the field is removed (its owner loses it), not modified (the scaler gains nothing)."""
    owned = [{"manager": "a", "operation": "Update", "apiVersion": "apps/v1", "time": "2026-01-01T00:00:00Z",
              "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}, "f:paused": {}}}}]
    live = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "d", "uid": "u", "managedFields": [
        {**owned[0], "fieldsV1": {"f:spec": {"f:replicas": {}}}}]}, "spec": {"replicas": 3}, "status": {"replicas": 3}}
    new = {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "d", "uid": "u"},
           "spec": {"replicas": 0}}
    out = SCALE_FIELD_MANAGER.update(live, new, "kubectl", "scale")
    assert "managedFields" not in out["metadata"]
    assert to_parent(owned, []) == [{**owned[0], "fieldsV1": {"f:spec": {"f:paused": {}}}}]


def test_a_second_applier_of_an_empty_omitempty_value_conflicts() -> None:
    """Upstream's known quirk (kubernetes/kubernetes#128924, an env var's `value: ""`): the live object, reflected,
    has no `value`, the merged one has the applied `""`: added, so it conflicts with the first applier's."""
    def env(manager: str, live: dict[str, Any] | None) -> dict[str, Any]:
        return POD.apply(live, pod({"env": [{"name": "X", "value": ""}]}), manager, False)
    first = env("one", None)
    first["metadata"]["uid"] = "u1"
    first["spec"]["containers"][0]["env"] = [{"name": "X"}]  # stored as Go writes it
    with pytest.raises(StatusError) as err:
        env("two", first)
    assert err.value.status["message"] == ('Apply failed with 1 conflict: conflict with "one": '
                                           '.spec.containers[name="c"].env[name="X"].value')
