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
    out = CM.apply(shared, cm(), "one", False)
    assert out["data"] == {"a": "1"} and set(fields(out)) == {("two", "Apply")}


def test_an_applied_empty_map_is_owned() -> None:
    """smd v4.6.0 typed/tofieldset.go `visitMapItems`: a map of no fields in an applied configuration (typed from
    the unstructured patch, nothing omitted) is a leaf of its field set."""
    out = CM.apply(None, cm({}, labels={}), "m", False)
    assert fields(out) == {("m", "Apply"): {"f:data": {}, "f:metadata": {"f:labels": {}}}}


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
    (cm() | {"apiVersion": "v2"}, "invalid object type: /v2, Kind=ConfigMap"),
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


def _updated_by(n: int, *, version_of: Any = lambda i: "v1") -> dict[str, Any]:
    """A ConfigMap whose key kN was last written by manager mN (mN older than mN+1), plus an applier."""
    from conformance.reference_server.fieldmanager.managed import Entry, encode
    from conformance.reference_server.fieldmanager import fieldpath as fp
    entries = [Entry(f"m{i:02d}", "Update", version_of(i), "", f"2020-01-01T00:00:{i:02d}Z",
                     frozenset({(fp.field("data"), fp.field(f"k{i}"))})) for i in range(n)]
    entries.append(Entry("applier", "Apply", "v1", "", "2019-01-01T00:00:00Z",
                         frozenset({(fp.field("data"), fp.field("applied"))})))
    obj = stored(cm({**{f"k{i}": "1" for i in range(n)}, "applied": "1"}))
    obj["metadata"]["managedFields"] = encode(entries)
    return obj


def test_update_managers_are_capped_at_ten_with_ancient_changes() -> None:
    """capmanagers.go: the 11th Update manager folds the two oldest of a version into `ancient-changes`."""
    live = _updated_by(10)
    new = _updated_by(10)
    new["data"]["k-new"] = "1"
    out = CM.update(live, new, "newcomer")
    entries = out["metadata"]["managedFields"]
    updaters = [e for e in entries if e["operation"] == "Update"]
    assert len(updaters) == 10
    names = [e["manager"] for e in updaters]
    assert "m00" not in names and "m01" not in names and "ancient-changes" in names and "newcomer" in names
    bucket = next(e for e in updaters if e["manager"] == "ancient-changes")
    assert bucket["fieldsV1"] == {"f:data": {"f:k0": {}, "f:k1": {}}}
    assert bucket["time"] == "2020-01-01T00:00:01Z"  # the time of the newer entry merged in
    assert [e["manager"] for e in entries if e["operation"] == "Apply"] == ["applier"]  # appliers never count


def test_update_managers_are_bucketed_per_api_version() -> None:
    """A version's oldest entry waits for a second one of the same version before becoming its bucket."""
    live = _updated_by(11, version_of=lambda i: "v1" if i % 2 else "v1beta1")
    new = _updated_by(11, version_of=lambda i: "v1" if i % 2 else "v1beta1")
    new["data"]["k-new"] = "1"
    out = CM.update(live, new, "newcomer")
    updaters = [e for e in out["metadata"]["managedFields"] if e["operation"] == "Update"]
    assert len(updaters) == 10
    buckets = {e["apiVersion"]: e["fieldsV1"] for e in updaters if e["manager"] == "ancient-changes"}
    # m00 (v1beta1), m01 (v1) are first of their versions; m02 (v1beta1) merges into m00's bucket; m03 with m01
    assert buckets == {"v1beta1": {"f:data": {"f:k0": {}, "f:k2": {}}}, "v1": {"f:data": {"f:k1": {}, "f:k3": {}}}}


def test_ten_update_managers_are_left_alone() -> None:
    live = _updated_by(9)
    new = _updated_by(9)
    new["data"]["k-new"] = "1"
    out = CM.update(live, new, "newcomer")
    assert "ancient-changes" not in [e["manager"] for e in out["metadata"]["managedFields"]]


WIDGET_SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "protocol"],
              "items": {"type": "object", "properties": {"name": {"type": "string"},
                                                         "protocol": {"type": "string", "default": "TCP"},
                                                         "port": {"type": "integer"}}}},
    "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
    "args": {"type": "array", "items": {"type": "string"}},
    "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                 "additionalProperties": {"type": "string"}}}}}}
WIDGET = FieldManager("Widget", "example.com/v1", builtin=False, crd_schema=WIDGET_SCHEMA)


def widget(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


def test_custom_resource_lists_follow_the_crd_schema() -> None:
    """x-kubernetes-list-type map/set lists are shared item by item; a list without a type stays atomic; a
    map-type atomic map is owned whole; a map key's default fills an item that omits it."""
    first = stored(WIDGET.apply(None, widget({"ports": [{"name": "a", "port": 1}], "tags": ["x"], "args": ["1"],
                                              "selector": {"k": "v"}}), "one", False))
    assert fields(first)[("one", "Apply")] == {"f:spec": {
        "f:ports": {'k:{"name":"a","protocol":"TCP"}': {".": {}, "f:name": {}, "f:port": {}}},
        "f:tags": {"v:\"x\"": {}}, "f:args": {}, "f:selector": {}}}
    second = WIDGET.apply(first, widget({"ports": [{"name": "b", "port": 2}], "tags": ["y"]}), "two", False)
    assert second["spec"]["ports"] == [{"name": "a", "port": 1}, {"name": "b", "port": 2}]
    assert second["spec"]["tags"] == ["x", "y"]
    with pytest.raises(StatusError) as exc:  # atomic list: one owner at a time
        WIDGET.apply(first, widget({"args": ["2"]}), "two", False)
    assert exc.value.status["message"] == 'Apply failed with 1 conflict: conflict with "one": .spec.args'
    with pytest.raises(StatusError) as exc:  # atomic map: the whole selector conflicts
        WIDGET.apply(first, widget({"selector": {"other": "v"}}), "two", False)
    assert exc.value.status["message"] == 'Apply failed with 1 conflict: conflict with "one": .spec.selector'


def test_custom_resource_metadata_is_object_meta() -> None:
    first = stored(WIDGET.apply(None, {**widget({}), "metadata": {"name": "w", "finalizers": ["a/x"]}}, "one", False))
    out = WIDGET.apply(first, {**widget({}), "metadata": {"name": "w", "finalizers": ["b/y"]}}, "two", False)
    assert out["metadata"]["finalizers"] == ["a/x", "b/y"]  # a set, as ObjectMeta's


def test_an_applied_key_its_map_does_not_declare_owns_itself() -> None:
    """smd v4.6.0 typed/tofieldset.go `visitMapItems`: a key `FindField` does not find (under
    `x-kubernetes-preserve-unknown-fields` or `additionalProperties`) is in the field set whatever its value, so an
    object there owns its `.`; a declared field's object does not."""
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "known": {"type": "object", "properties": {"a": {"type": "integer"}}},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "byName": {"type": "object", "additionalProperties": {
            "type": "object", "properties": {"b": {"type": "integer"}}}}}}}}
    gadget = FieldManager("Gadget", "example.com/v1", builtin=False, crd_schema=schema)
    spec = {"known": {"a": 1}, "free": {"x": {"y": {"z": 1}}, "n": 1}, "byName": {"k": {"b": 2}}}
    out = gadget.apply(None, {**widget(spec), "kind": "Gadget"}, "m", False)
    assert fields(out)[("m", "Apply")] == {"f:spec": {
        "f:known": {"f:a": {}},
        "f:free": {"f:x": {".": {}, "f:y": {".": {}, "f:z": {}}}, "f:n": {}},
        "f:byName": {"f:k": {".": {}, "f:b": {}}}}}
