"""registry/crobjectmeta.py: an embedded resource's `metadata` decoded into a metav1.ObjectMeta and written back
as apiextensions-apiserver's `GetObjectMetaWithOptions` + `SetObjectMeta` do (then decoded once more, as the
storage codec reads the stored bytes)."""
from __future__ import annotations

import json

from conformance.reference_server.goport.gojsonnum import go_float, go_int
from conformance.reference_server.registry.crobjectmeta import decode_error, reprint


def _loads(text: str) -> dict:
    """A body as the request decoder reads it (Go's int64/float64 split, literals kept)."""
    return json.loads(text, parse_float=go_float, parse_int=go_int)


def test_numbers_go_through_encoding_json() -> None:
    meta = _loads('{"generation": 1.0, "deletionGracePeriodSeconds": 3e1}')
    assert decode_error(meta) is None
    assert reprint(meta) == {"deletionGracePeriodSeconds": 30, "generation": 1}
    assert type(reprint(meta)["generation"]) is int


def test_number_errors_quote_gos_text() -> None:
    field = "into Go struct field ObjectMeta.generation of type int64"
    assert decode_error(_loads('{"generation": 1e20}')) == \
        f"json: cannot unmarshal number 100000000000000000000 {field}"
    assert decode_error(_loads('{"generation": 99999999999999999999}')) == \
        f"json: cannot unmarshal number 100000000000000000000 {field}"
    assert decode_error(_loads('{"generation": 1.50}')) == f"json: cannot unmarshal number 1.5 {field}"
    assert decode_error(_loads('{"generation": 1e21}')) == f"json: cannot unmarshal number 1e+21 {field}"


def test_times_in_utc_with_second_precision() -> None:
    meta = {"creationTimestamp": "2020-01-02T03:04:05.5+01:00", "deletionTimestamp": "2020-01-02T03:04:05-00:30",
            "managedFields": [{"manager": "m", "time": "2020-01-01T00:00:00.123Z"}]}
    assert reprint(meta) == {"creationTimestamp": "2020-01-02T02:04:05Z",
                             "deletionTimestamp": "2020-01-02T03:34:05Z",
                             "managedFields": [{"manager": "m", "time": "2020-01-01T00:00:00Z"}]}


def test_zero_times() -> None:
    """The zero time is written null: `CoerceWithOptions` removes a zero `creationTimestamp`, the stored null of a
    pointer decodes as nil; a fraction past the zero time is written as the zero time, which the second decode
    makes null."""
    zero = "0001-01-01T00:00:00Z"
    assert reprint({"creationTimestamp": zero, "deletionTimestamp": zero, "managedFields": [{"time": zero}]}) == \
        {"managedFields": [{}]}
    assert reprint({"deletionTimestamp": "0001-01-01T00:00:00.5Z"}) == {"deletionTimestamp": None}


def test_nulls_empties_and_unknowns() -> None:
    meta = {"name": "p", "generateName": None, "labels": {"b": None, "a": "x"}, "annotations": {},
            "deletionGracePeriodSeconds": 0, "finalizers": [None], "ownerReferences": [
                {"uid": "u", "controller": None, "blockOwnerDeletion": False, "x": 1}, None],
            "managedFields": [{"fieldsV1": {"f:a": {}}, "operation": None}], "bogus": 1}
    assert decode_error(meta) is None
    assert json.dumps(reprint(meta)) == json.dumps({
        "deletionGracePeriodSeconds": 0,  # a set pointer, kept at zero
        "finalizers": [""],
        "labels": {"a": "x", "b": ""},
        "managedFields": [{"fieldsV1": {"f:a": {}}}],
        "name": "p",
        "ownerReferences": [{"apiVersion": "", "blockOwnerDeletion": False, "kind": "", "name": "", "uid": "u"},
                            {"apiVersion": "", "kind": "", "name": "", "uid": ""}]})


def test_time_errors() -> None:
    assert decode_error({"creationTimestamp": "2020-01-01T00:00:00"}) == \
        'parsing time "2020-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"'
    assert decode_error({"managedFields": [{"time": "2020-02-30T00:00:00Z"}]}) == \
        'parsing time "2020-02-30T00:00:00Z": day out of range'
