"""Go's `%#v` (wire/gosyntax.py): expected texts derived from go/src/fmt/print.go `printValue`/`printArg`/
`handleMethods`/`fmtPointer`/`fmtBytes`, format.go `fmtQ`, and time/format.go `Time.GoString`."""
from __future__ import annotations

import pytest

from conformance.reference_server.wire import gosyntax
from conformance.reference_server.wire._godescribed_table import DESCRIBED_GO_KINDS
from conformance.reference_server.wire._gokinds_table import GO_KINDS
from conformance.reference_server.wire.gosyntax import ADDRESS, STRUCTS, go_time, sharp_v, time_string

REF = {"apiVersion": "v1", "kind": "Pod", "name": "x", "uid": "6f1c", "controller": True}


@pytest.mark.parametrize("value,go_type,want", [
    # a struct: its type, every field `Name:value` in declaration order, absent ones zero; a set pointer nested
    (REF, "v1.OwnerReference", 'v1.OwnerReference{APIVersion:"v1", Kind:"Pod", Name:"x", UID:"6f1c", '
                               f'Controller:(*bool)({ADDRESS}), BlockOwnerDeletion:(*bool)(nil)}}'),
    ({}, "v1.OwnerReference", 'v1.OwnerReference{APIVersion:"", Kind:"", Name:"", UID:"", '
                              'Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}'),
    # a false bool pointer is still a set pointer
    ({"blockOwnerDeletion": False}, "v1.OwnerReference",
     'v1.OwnerReference{APIVersion:"", Kind:"", Name:"", UID:"", Controller:(*bool)(nil), '
     f'BlockOwnerDeletion:(*bool)({ADDRESS})}}'),
    # a slice of structs: each element with its type again
    ([REF, {"kind": "Job"}], "[]v1.OwnerReference",
     '[]v1.OwnerReference{v1.OwnerReference{APIVersion:"v1", Kind:"Pod", Name:"x", UID:"6f1c", '
     f'Controller:(*bool)({ADDRESS}), BlockOwnerDeletion:(*bool)(nil)}}, v1.OwnerReference{{APIVersion:"", '
     'Kind:"Job", Name:"", UID:"", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}}'),
    # nil and empty slices and maps
    (None, "[]string", "[]string(nil)"),
    ([], "[]string", "[]string{}"),
    (["a", 'b"\t'], "[]string", '[]string{"a", "b\\"\\t"}'),
    (None, "map[string]string", "map[string]string(nil)"),
    ({}, "map[string]string", "map[string]string{}"),
    # map keys sorted (fmtsort), `key:value` without a space, pairs joined by `, `
    ({"b": "2", "a": "1", "B": "3"}, "map[string]string", 'map[string]string{"B":"3", "a":"1", "b":"2"}'),
    # a struct holding a map and a nil slice of structs
    ({"matchLabels": {"app": "web"}}, "v1.LabelSelector",
     'v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, '
     'MatchExpressions:[]v1.LabelSelectorRequirement(nil)}'),
    ({"matchExpressions": [{"key": "k", "operator": "In", "values": ["a"]}]}, "v1.LabelSelector",
     'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{'
     'v1.LabelSelectorRequirement{Key:"k", Operator:"In", Values:[]string{"a"}}}}'),
    # a pointer at the top: `&` and the struct; nested, or to a scalar: its type and address
    (REF, "*v1.OwnerReference", '&v1.OwnerReference{APIVersion:"v1", Kind:"Pod", Name:"x", UID:"6f1c", '
                                f'Controller:(*bool)({ADDRESS}), BlockOwnerDeletion:(*bool)(nil)}}'),
    ([REF], "[]*v1.OwnerReference", f"[]*v1.OwnerReference{{(*v1.OwnerReference)({ADDRESS})}}"),
    ([None], "[]*v1.OwnerReference", "[]*v1.OwnerReference{(*v1.OwnerReference)(nil)}"),
    ({"a": []}, "*map[string][]string", '&map[string][]string{"a":[]string{}}'),
    (None, "*v1.OwnerReference", "(*v1.OwnerReference)(nil)"),
    ("x", "*string", f"(*string)({ADDRESS})"),
    # integers signed in decimal, unsigned in hex; floats as strconv's 'g' shortest
    ([1, -2], "[]int32", "[]int32{1, -2}"),
    ([1, 255], "[]uint16", "[]uint16{0x1, 0xff}"),
    ([0.5, 1e21, 3.0], "[]float64", "[]float64{0.5, 1e+21, 3}"),
    ({"2": "b", "10": "a"}, "map[int32]string", 'map[int32]string{2:"b", 10:"a"}'),
    # bytes: `[]byte` at the top (printArg's own case), `[]uint8` anywhere else; JSON's base64 decoded
    ("AQIK", "[]byte", "[]byte{0x1, 0x2, 0xa}"),
    (["AQI="], "[][]byte", "[][]uint8{[]uint8{0x1, 0x2}}"),
    (None, "[]byte", "[]byte(nil)"),
    ("AQI=", "[]uint8", "[]byte{0x1, 0x2}"),
    ({"a": "AQI="}, "map[string][]byte", 'map[string][]uint8{"a":[]uint8{0x1, 0x2}}'),
    # named string types print as strings (no type name)
    (["u1"], "[]types.UID", '[]types.UID{"u1"}'),
    # strconv.Quote, not JSON: a non-ASCII letter kept, a control byte escaped
    (["é\x01"], "[]string", '[]string{"é\\x01"}'),
])
def test_sharp_v(value, go_type: str, want: str) -> None:
    assert sharp_v(value, go_type) == want


def test_time_go_string() -> None:
    """`metav1.Time` is printed by its promoted `time.Time.GoString`: decoded times are `Local()`; the zero time
    is UTC; a nil `*metav1.Time` nested in a struct panics in GoString, which `catchPanic` prints `<nil>`."""
    assert go_time("2024-02-03T04:05:06Z") == "time.Date(2024, time.February, 3, 4, 5, 6, 0, time.Local)"
    assert go_time("2024-02-03T04:05:06.5+01:00") == \
        "time.Date(2024, time.February, 3, 3, 5, 6, 500000000, time.Local)"
    assert go_time(None) == "time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)"
    assert sharp_v(None, "*v1.Time") == "<nil>"  # printArg's handleMethods runs at the top too
    assert sharp_v([None, "2024-02-03T04:05:06Z"], "[]*v1.Time") == \
        "[]*v1.Time{<nil>, time.Date(2024, time.February, 3, 4, 5, 6, 0, time.Local)}"


def test_time_string() -> None:
    """`time.Time.String`: `2006-01-02 15:04:05.999999999 -0700 MST` (trailing zeros of the fraction dropped)."""
    assert time_string("2026-01-02T03:04:05Z") == "2026-01-02 03:04:05 +0000 UTC"
    assert time_string("2026-01-02T03:04:05.120000Z") == "2026-01-02 03:04:05.12 +0000 UTC"
    assert time_string("2026-01-02T03:04:05+02:00") == "2026-01-02 01:04:05 +0000 UTC"
    assert time_string(None) == "0001-01-01 00:00:00 +0000 UTC"


def test_struct_holding_a_struct_by_value() -> None:
    """A field held by value prints its struct in full (type and fields); a pointer to one only its address."""
    assert sharp_v({"attacher": "a", "source": {"inlineVolumeSpec": {}}}, "storage.VolumeAttachmentSpec") == (
        'storage.VolumeAttachmentSpec{Attacher:"a", Source:storage.VolumeAttachmentSource{'
        f'PersistentVolumeName:(*string)(nil), InlineVolumeSpec:(*core.PersistentVolumeSpec)({ADDRESS})}}, '
        'NodeName:""}')


def _kind(go_type: str) -> str:
    """The reflect kind `_gokinds_table.py` names a Go type by."""
    if go_type == gosyntax.TIME:
        return "struct"
    if go_type.startswith("*"):
        return "pointer"
    if go_type.startswith("[]"):
        return "slice"
    if go_type.startswith("map["):
        return "map"
    if go_type in STRUCTS:
        return "struct"
    base = gosyntax.NAMED_SCALARS.get(go_type, go_type)
    return {"string": "string", "bool": "bool"}.get(base, "number")


TABLE_KEYS = [
    ("v1.OwnerReference", "meta.OwnerReference"),
    ("v1.LabelSelector", "meta.LabelSelector"),
    ("v1.LabelSelectorRequirement", "meta.LabelSelectorRequirement"),
    ("apiextensions.CustomResourceDefinitionVersion", "CustomResourceDefinition.CustomResourceDefinitionVersion"),
    ("apiextensions.CustomResourceColumnDefinition", "CustomResourceDefinition.CustomResourceColumnDefinition"),
    ("apiextensions.SelectableField", "CustomResourceDefinition.SelectableField"),
    ("core.ObjectReference", "core.ObjectReference"),
    ("core.EventSource", "core.EventSource"),
    ("storage.VolumeAttachmentSpec", "storage.VolumeAttachmentSpec"),
    ("storage.VolumeAttachmentSource", "storage.VolumeAttachmentSource"),
    ("core.Taint", "core.Taint"),
    ("batch.PodFailurePolicy", "batch.PodFailurePolicy"),
    ("batch.PodFailurePolicyRule", "batch.PodFailurePolicyRule"),
    ("batch.PodFailurePolicyOnExitCodesRequirement", "batch.PodFailurePolicyOnExitCodesRequirement"),
    ("batch.PodFailurePolicyOnPodConditionsPattern", "batch.PodFailurePolicyOnPodConditionsPattern"),
    ("batch.SuccessPolicy", "batch.SuccessPolicy"),
    ("batch.SuccessPolicyRule", "batch.SuccessPolicyRule"),
]


def test_every_struct_is_checked_against_a_table() -> None:
    assert {g for g, _ in TABLE_KEYS} == set(STRUCTS)


@pytest.mark.parametrize("go_name,table_key", TABLE_KEYS)
def test_structs_agree_with_the_wire_tables(go_name: str, table_key: str) -> None:
    """The hand-copied structs have the generated tables' fields, in their order, of the same reflect kind."""
    table = GO_KINDS.get(table_key) or DESCRIBED_GO_KINDS[table_key]
    assert [(j, _kind(t)) for _, j, t in STRUCTS[go_name]] == [(j, k.split(",")[0]) for j, k in table.items()]
