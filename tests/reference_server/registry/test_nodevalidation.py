"""A Node's validation on the wire (registry/nodevalidation.py): `ValidateNode` on create and update,
`ValidateNodeUpdate` on update and `nodes/status`, with kube-apiserver 1.33's causes, and kubectl's report."""
from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.reference_server.registry.nodevalidation import pod_cidr_errors, taint_struct
from tests.reference_server.test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture
from tests.reference_server.panics import assert_dropped

MERGE = {"Content-Type": "application/merge-patch+json"}
EFFECTS = 'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'
QNAME = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
         "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
         "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
               "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
BAD_CIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
ONE_PER_FAMILY = "may specify no more than one CIDR for each IP family"
NEGATIVE = "must be greater than or equal to 0"
POD_CIDR_FIXED = 'node updates may not change podCIDR except from "" to valid'
PROVIDER_FIXED = 'node updates may not change providerID except from "" to valid'


def _cause(reason: str, field: str, message: str) -> dict[str, str]:
    return {"reason": reason, "message": message, "field": field}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "nodevalidation", flavor="bare")


def _nodes(k: Kube) -> str:
    return f"{k.server.url}/api/v1/nodes"


def _name() -> str:
    return f"nv-{uuid.uuid4().hex[:8]}"


def _create(k: Kube, name: str, spec: dict[str, Any], status: dict[str, Any] | None = None) -> Any:
    return k.http.post(_nodes(k), json={"metadata": {"name": name}, "spec": spec, "status": status or {}})


def test_taints_resources_and_pod_cidrs_are_validated_on_create(served: Kube) -> None:
    name = _name()
    r = _create(served, name, {"taints": [{"key": "k", "effect": "Bad"}, {"key": "bad key", "value": "v!"},
                                          {"key": "k", "effect": "Bad", "timeAdded": "2024-01-01T00:00:00Z"}],
                               "podCIDRs": ["10.0.0.0/24", "10.1.0.0/24", "10.0.0.0/24"]},
                {"capacity": {"cpu": "-1"}, "allocatable": {"memory": "-2Gi"}})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["reason"] == "Invalid" and body["details"]["kind"] == "Node"
    cidrs = '[]string{"10.0.0.0/24", "10.1.0.0/24", "10.0.0.0/24"}'
    assert body["details"]["causes"] == [  # upstream's paths: the taints under metadata, capacity by Child
        _cause("FieldValueNotSupported", "metadata.taints[0].effect", f'Unsupported value: "Bad": {EFFECTS}'),
        _cause("FieldValueInvalid", "metadata.taints[1].key", f'Invalid value: "bad key": {QNAME}'),
        _cause("FieldValueInvalid", "metadata.taints[1].value", f'Invalid value: "v!": {LABEL_VALUE}'),
        _cause("FieldValueRequired", "metadata.taints[1].effect", "Required value"),
        _cause("FieldValueNotSupported", "metadata.taints[2].effect", f'Unsupported value: "Bad": {EFFECTS}'),
        _cause("FieldValueDuplicate", "metadata.taints[2]",
               # a set *metav1.Time is printed by its promoted GoString: decoded times are Local (UTC there)
               'Duplicate value: core.Taint{Key:"k", Value:"", Effect:"Bad", '
               'TimeAdded:time.Date(2024, time.January, 1, 0, 0, 0, 0, time.Local)}: '
               "taints must be unique by key and effect pair"),
        _cause("FieldValueInvalid", "status.capacity.cpu", f'Invalid value: "-1": {NEGATIVE}'),
        _cause("FieldValueInvalid", "status.allocatable.memory", f'Invalid value: "-2Gi": {NEGATIVE}'),
        _cause("FieldValueInvalid", "spec.podCIDRs", f"Invalid value: {cidrs}: {ONE_PER_FAMILY}"),
        _cause("FieldValueDuplicate", "spec.podCIDRs[2]", 'Duplicate value: "10.0.0.0/24"')]
    assert body["message"].startswith(f'Node "{name}" is invalid: [metadata.taints[0].effect: Unsupported value')
    assert served.http.get(f"{_nodes(served)}/{name}").status_code == 404


def test_a_pod_cidr_that_does_not_parse(served: Kube) -> None:
    r = _create(served, _name(), {"podCIDR": "10.0.0.0/33"})  # the conversion makes it podCIDRs[0]
    assert r.status_code == 422
    assert r.json()["details"]["causes"] == [
        _cause("FieldValueInvalid", "spec.podCIDRs[0]", f'Invalid value: "10.0.0.0/33": {BAD_CIDR}')]
    internal = ('Internal error: invalid PodCIDRs. failed to check with dual stack with error:failed to parse cidr '
                'value:"bogus" with error:invalid CIDR address: bogus')
    assert [str(e) for e in pod_cidr_errors(["10.0.0.0/24", "bogus"])] == [
        f'spec.podCIDRs[1]: Invalid value: "bogus": {BAD_CIDR}', f"spec.podCIDRs: {internal}",
        f'spec.podCIDRs: Invalid value: []string{{"10.0.0.0/24", "bogus"}}: {ONE_PER_FAMILY}']
    assert pod_cidr_errors(["10.0.0.0/24", "fd00::/64"]) == []  # one per family
    assert [e.field for e in pod_cidr_errors(["::ffff:10.0.0.0/120", "10.1.0.0/24"])] == ["spec.podCIDRs"]  # Go: v4


def test_an_update_keeps_pod_cidrs_provider_and_external_id(served: Kube) -> None:
    name = _name()
    r = _create(served, name, {"externalID": "e"})
    assert r.status_code == 201, r.text
    node = r.json()  # "" to a value is allowed, once
    node["spec"].update({"podCIDRs": ["10.0.0.0/24"], "providerID": "kind://docker/kind/n"})
    r = served.http.put(f"{_nodes(served)}/{name}", json=node)
    assert r.status_code == 200, r.text
    node = r.json()
    node["spec"] = {"podCIDR": "10.9.0.0/24", "podCIDRs": ["10.9.0.0/24"], "providerID": "other", "externalID": "f",
                    "taints": [{"key": "k", "effect": "NoSchedule"}, {"key": "k", "effect": "NoSchedule"}]}
    r = served.http.put(f"{_nodes(served)}/{name}", json=node)
    assert r.status_code == 422
    taint = 'core.Taint{Key:"k", Value:"", Effect:"NoSchedule", TimeAdded:<nil>}'
    dup = _cause("FieldValueDuplicate", "metadata.taints[1]",
                 f"Duplicate value: {taint}: taints must be unique by key and effect pair")
    assert r.json()["details"]["causes"] == [  # ValidateNode, then ValidateNodeUpdate (the taints again)
        dup, _cause("FieldValueForbidden", "spec.podCIDRs", f"Forbidden: {POD_CIDR_FIXED}"),
        _cause("FieldValueForbidden", "spec.providerID", f"Forbidden: {PROVIDER_FIXED}"), dup,
        _cause("FieldValueForbidden", "spec.externalID", "Forbidden: may not be updated")]
    r = served.http.patch(f"{_nodes(served)}/{name}", data=json.dumps({"spec": {"podCIDRs": None, "podCIDR": None}}),
                          headers=MERGE)
    assert r.status_code == 422
    assert r.json()["details"]["causes"] == [_cause("FieldValueForbidden", "spec.podCIDRs",
                                                    f"Forbidden: {POD_CIDR_FIXED}")]
    assert served.http.delete(f"{_nodes(served)}/{name}").status_code == 200


def test_status_writes_are_validated_by_validate_node_update(served: Kube) -> None:
    name = _name()
    address = {"type": "InternalIP", "address": "10.0.0.5"}
    r = _create(served, name, {}, {"addresses": [address, address]})
    assert r.status_code == 201, r.text  # ValidateNode does not look at the addresses
    status = f"{_nodes(served)}/{name}/status"
    r = served.http.patch(status, data=json.dumps({"status": {"capacity": {"pods": "1.5", "cpu": "2"}}}),
                          headers=MERGE)
    assert r.status_code == 422
    assert r.json()["details"]["causes"] == [
        _cause("FieldValueInvalid", "status.capacity.pods",
               # (upstream: the struct parsed from "1.5", `value:15, scale:-1`, `s:""`; here from its canonical
               # form, held from the decode on: README, Known gaps)
               'Invalid value: resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, '
               'd:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}: must be an integer'),
        _cause("FieldValueDuplicate", "status.addresses[1]",
               'Duplicate value: core.NodeAddress{Type:"InternalIP", Address:"10.0.0.5"}')]
    r = served.http.patch(status, data=json.dumps({"status": {"addresses": [address, {**address, "type": "Hostname"}],
                                                              "capacity": {"pods": "110"}}}), headers=MERGE)
    assert r.status_code == 200, r.text
    r = served.http.patch(status, data=json.dumps({"spec": {"podCIDRs": ["x"]}, "status": {}}), headers=MERGE)
    assert r.status_code == 200, r.text  # the spec is kept from storage, so never judged here
    assert "podCIDRs" not in r.json()["spec"]
    assert served.http.delete(f"{_nodes(served)}/{name}").status_code == 200


def test_taint_struct_is_gos_sharp_v() -> None:
    """A nil `*metav1.Time` field: fmt calls its promoted `GoString`, which panics; `catchPanic` prints `<nil>`
    (as a real cluster's `Duplicate value: core.Taint{..., TimeAdded:<nil>}` reads)."""
    assert taint_struct({"key": "a\u00e9", "effect": "NoExecute"}) == \
        'core.Taint{Key:"a\u00e9", Value:"", Effect:"NoExecute", TimeAdded:<nil>}'


def test_kubectl_reports_an_invalid_node(kube: Kube, tmp_path: Path) -> None:  # noqa: F811
    name = _name()
    manifest = tmp_path / "node.json"
    manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                                    "spec": {"podCIDRs": ["10.0.0.0/24", "10.1.0.0/24"],
                                             "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoRun"}]}}))
    proc = kube.run("create", "-f", str(manifest))
    assert proc.returncode == 1 and proc.stdout == "", proc
    assert proc.stderr == (
        f'The Node "{name}" is invalid: \n'
        f'* metadata.taints[0].effect: Unsupported value: "NoRun": {EFFECTS}\n'
        f'* spec.podCIDRs: Invalid value: []string{{"10.0.0.0/24", "10.1.0.0/24"}}: {ONE_PER_FAMILY}\n'), proc


TAINTS_KEY = "scheduler.alpha.kubernetes.io/taints"
AVOID_KEY = "scheduler.alpha.kubernetes.io/preferAvoidPods"


def _annotated(k: Kube, name: str, annotations: dict[str, str]) -> Any:
    return k.http.post(_nodes(k), json={"metadata": {"name": name, "annotations": annotations}})


def test_the_alpha_annotations_are_decoded_and_validated(served: Kube) -> None:
    avoid = {"preferAvoidPods": [{"podSignature": {}}, {"podSignature": {"podController": {"controller": False}}}]}
    r = _annotated(served, _name(), {TAINTS_KEY: '[{"Key": "a b"}, {"key": "a b", "EFFECT": ""}]',
                                     AVOID_KEY: json.dumps(avoid)})
    assert r.status_code == 422
    taints = f"metadata.annotations.{TAINTS_KEY}"
    assert r.json()["details"]["causes"] == [  # Go's encoding/json matches the internal type's fields by any case
        _cause("FieldValueInvalid", f"{taints}[0].key", f'Invalid value: "a b": {QNAME}'),
        _cause("FieldValueRequired", f"{taints}[0].effect", "Required value"),
        _cause("FieldValueInvalid", f"{taints}[1].key", f'Invalid value: "a b": {QNAME}'),
        _cause("FieldValueRequired", f"{taints}[1].effect", "Required value"),
        _cause("FieldValueDuplicate", f"{taints}[1]",
               'Duplicate value: core.Taint{Key:"a b", Value:"", Effect:"", TimeAdded:<nil>}: '
               "taints must be unique by key and effect pair"),
        _cause("FieldValueRequired", f"metadata.annotations.{AVOID_KEY}[0].PodSignature", "Required value"),
        _cause("FieldValueInvalid", f"metadata.annotations.{AVOID_KEY}[1].PodSignature.PodController.Controller",
               "Invalid value: false: must point to a controller")]


@pytest.mark.parametrize(("key", "value", "field", "error"), [
    (TAINTS_KEY, "nope", "metadata.annotations", "invalid character 'o' in literal null (expecting 'u')"),
    (TAINTS_KEY, "{}", "metadata.annotations", "json: cannot unmarshal object into Go value of type []core.Taint"),
    (TAINTS_KEY, '[{"key": 1}]', "metadata.annotations",
     "json: cannot unmarshal number into Go struct field Taint.Key of type string"),
    (TAINTS_KEY, '[{"effect": 1, "timeAdded": "yesterday"}]', "metadata.annotations",  # the Time's error wins
     'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'),
    (AVOID_KEY, '{"preferAvoidPods": [{"podSignature": {"podController": {"uid": 7}}}]}',
     "metadata.annotations.AvoidPods", ("json: cannot unmarshal number into Go struct field OwnerReference."
                                        "preferAvoidPods.podSignature.podController.uid of type types.UID")),
])
def test_an_annotation_go_cannot_decode(served: Kube, key: str, value: str, field: str, error: str) -> None:
    r = _annotated(served, _name(), {key: value})
    assert r.status_code == 422
    assert r.json()["details"]["causes"] == [_cause("FieldValueInvalid", field, f"Invalid value: {json.dumps(key)}: "
                                                                                f"{error}")]


def test_a_pod_controller_without_controller_panics_as_upstream(served: Kube) -> None:
    name = _name()  # validatePreferAvoidPodsEntry dereferences the nil *bool
    assert_dropped(lambda: _annotated(served, name,
                                      {AVOID_KEY: '{"preferAvoidPods": [{"podSignature": {"podController": {}}}]}'}))
    assert served.http.get(f"{_nodes(served)}/{name}").status_code == 404
    r = _annotated(served, name, {TAINTS_KEY: '[{"key": "k", "effect": "NoSchedule", "timeAdded": null}]',
                                  AVOID_KEY: "null"})
    assert r.status_code == 201, r.text
    r = served.http.patch(f"{_nodes(served)}/{name}/status", headers=MERGE,
                          data=json.dumps({"metadata": {"annotations": {TAINTS_KEY: "[1]"}}}))
    assert r.status_code == 422  # ValidateNodeUpdate checks them too
    assert r.json()["details"]["causes"] == [_cause(
        "FieldValueInvalid", "metadata.annotations",
        f'Invalid value: "{TAINTS_KEY}": json: cannot unmarshal number into Go value of type core.Taint')]
    assert served.http.delete(f"{_nodes(served)}/{name}").status_code == 200
