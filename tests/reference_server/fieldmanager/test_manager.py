"""The field manager on plain objects: Update entries, apply merge and pruning, conflicts, force."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.apierrors import StatusError
from conformance.reference_server.fieldmanager import FieldManager

CM = FieldManager("ConfigMap", "v1")
DEPLOY = FieldManager("Deployment", "apps/v1", zero={"spec": {}, "status": {}}, ignored={"": frozenset({"status"})})


def cm(data: dict[str, str] | None = None, **meta: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", **meta}}
    if data is not None:
        out["data"] = data
    return out


def stored(obj: dict[str, Any]) -> dict[str, Any]:
    """As the registry stores it: with a uid (an existing object)."""
    obj["metadata"]["uid"] = "u1"
    return obj


def fields(obj: dict[str, Any]) -> dict[tuple[str, str], Any]:
    return {(e["manager"], e["operation"]): e["fieldsV1"] for e in obj["metadata"].get("managedFields", [])}


def test_create_records_what_the_creator_set() -> None:
    out = CM.update(None, cm({"a": "1"}, labels={"l": "v"}), "kubectl-create")
    [entry] = out["metadata"]["managedFields"]
    assert list(entry) == ["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1"]
    assert entry["fieldsV1"] == {"f:data": {".": {}, "f:a": {}}, "f:metadata": {"f:labels": {".": {}, "f:l": {}}}}


def test_only_a_name_is_owned_by_nobody() -> None:
    assert "managedFields" not in CM.update(None, cm(), "m")["metadata"]


def test_update_moves_ownership_of_changed_fields() -> None:
    live = stored(CM.update(None, cm({"a": "1", "b": "1"}), "one"))
    out = CM.update(live, cm({"a": "2", "b": "1"}), "two")
    assert fields(out) == {("one", "Update"): {"f:data": {".": {}, "f:b": {}}},
                           ("two", "Update"): {"f:data": {"f:a": {}}}}


def test_update_without_managed_fields_does_not_start_tracking() -> None:
    """skipNonAppliedManager: an object nobody tracked stays untracked until someone applies."""
    assert "managedFields" not in CM.update(stored(cm({"a": "1"})), cm({"a": "2"}), "m")["metadata"]


def test_apply_creates_owns_and_prunes_what_it_no_longer_applies() -> None:
    first = stored(CM.apply(None, cm({"a": "1", "b": "1"}), "mgr", False))
    assert first["data"] == {"a": "1", "b": "1"}
    assert fields(first) == {("mgr", "Apply"): {"f:data": {"f:a": {}, "f:b": {}}}}
    second = CM.apply(first, cm({"a": "1"}), "mgr", False)
    assert second["data"] == {"a": "1"}  # b: applied before, not now, owned by nobody else ⇒ removed


def test_apply_keeps_what_another_manager_also_owns() -> None:
    first = stored(CM.apply(None, cm({"a": "1"}), "one", False))
    shared = stored(CM.apply(first, cm({"a": "1"}), "two", False))  # same value: shared, no conflict
    assert set(fields(shared)) == {("one", "Apply"), ("two", "Apply")}
    out = CM.apply(shared, cm({}), "one", False)
    assert out["data"] == {"a": "1"} and set(fields(out)) == {("two", "Apply")}


def test_conflict_is_upstreams_409() -> None:
    live = stored(CM.update(None, cm({"key": "v"}), "mgr"))
    with pytest.raises(StatusError) as err:
        CM.apply(live, cm({"key": "other"}), "kubectl", False)
    st = err.value.status
    assert (st["code"], st["reason"]) == (409, "Conflict")
    assert st["message"] == 'Apply failed with 1 conflict: conflict with "mgr" using v1: .data.key'
    assert st["details"] == {"causes": [{"reason": "FieldManagerConflict", "message": 'conflict with "mgr" using v1',
                                         "field": ".data.key"}]}


def test_several_conflicts_are_listed_per_manager() -> None:
    live = stored(CM.update(None, cm({"a": "1", "b": "1"}), "zed"))
    live = stored(CM.apply(live, cm({"c": "1"}), "amy", False))
    with pytest.raises(StatusError) as err:
        CM.apply(live, cm({"a": "2", "b": "2", "c": "2"}), "me", False)
    assert err.value.status["message"] == ('Apply failed with 3 conflicts: conflicts with "amy":\n- .data.c\n'
                                           'conflicts with "zed" using v1:\n- .data.a\n- .data.b')


def test_force_takes_ownership() -> None:
    live = stored(CM.update(None, cm({"key": "v", "other": "o"}), "mgr"))
    out = CM.apply(live, cm({"key": "mine"}), "kubectl", True)
    assert out["data"] == {"key": "mine", "other": "o"}
    assert fields(out) == {("kubectl", "Apply"): {"f:data": {"f:key": {}}},
                           ("mgr", "Update"): {"f:data": {".": {}, "f:other": {}}}}


def deployment(containers: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"template": {"spec": {"containers": containers}}}}


def test_containers_merge_by_name_and_ports_by_port_and_protocol() -> None:
    live = stored(DEPLOY.apply(None, deployment([{"name": "app", "image": "a", "ports": [{"containerPort": 80}]}]),
                               "one", False))
    spec = fields(live)[("one", "Apply")]["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert spec == {'k:{"name":"app"}': {".": {}, "f:image": {}, "f:name": {}, "f:ports": {
        'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}}}}
    out = DEPLOY.apply(live, deployment([{"name": "side", "image": "s"}]), "two", False)
    assert [c["name"] for c in out["spec"]["template"]["spec"]["containers"]] == ["app", "side"]


def test_apply_status_through_the_main_resource_is_not_owned() -> None:
    obj = deployment([{"name": "app", "image": "a"}]) | {"status": {"replicas": 3}}
    assert "f:status" not in fields(DEPLOY.apply(None, obj, "m", False))[("m", "Apply")]


@pytest.mark.parametrize("config, message", [
    (cm() | {"apiVersion": "v2"}, "Incorrect version specified in apply patch. Specified patch version: v2, "
                                  "expected: v1"),
    (cm(managedFields=[]), "metadata.managedFields must be nil"),
])
def test_bad_apply_configurations_are_400(config: dict[str, Any], message: str) -> None:
    with pytest.raises(StatusError) as err:
        CM.apply(None, config, "m", False)
    assert (err.value.status["code"], err.value.status["message"]) == (400, message)


def test_kubectl_apply_refreshes_the_client_side_annotation() -> None:
    """lastAppliedUpdater: kubectl's server-side apply keeps an existing last-applied annotation in step."""
    ann = "kubectl.kubernetes.io/last-applied-configuration"
    live = stored(CM.update(None, cm({"a": "1"}, annotations={ann: "{}"}), "kubectl-client-side-apply"))
    out = CM.apply(live, cm({"a": "2"}), "kubectl", True)
    assert out["metadata"]["annotations"][ann] == \
        '{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"c"}}\n'
