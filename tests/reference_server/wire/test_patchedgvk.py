"""wire/patchedgvk.py: the JSON serializer's reading of a patched document's version and kind
(`SimpleMetaFactory.Interpret`, an `Unstructured`'s missing kind), in Go's words."""
from __future__ import annotations

import pytest

from conformance.reference_server.wire.patchedgvk import decode_error, interpret_error

PARSE = "couldn't get version/kind; json parse error: json: cannot unmarshal "


@pytest.mark.parametrize("doc, err", [
    ({"apiVersion": "v1", "kind": "ConfigMap"}, None),
    ({}, None),
    ({"apiVersion": None, "kind": None}, None),  # (`null` into a string: no error)
    ({"kind": 5}, PARSE + "number into Go struct field .kind of type string"),
    ({"kind": True, "apiVersion": ["x"]}, PARSE + "array into Go struct field .apiVersion of type string"),
    ({"KIND": {}}, PARSE + "object into Go struct field .kind of type string"),  # (fields matched in any case)
    ({"apiVersion": "a/b/c"}, "unexpected GroupVersion string: a/b/c"),
    ({"apiversion": "v1", "apiVersion": "a/b/c"}, None),  # (the last one read wins: keys sorted, as evanphx's)
    ({"apiVersion": "/"}, None),
])
def test_interpret(doc: dict, err: str | None) -> None:
    assert interpret_error(doc) == err


def test_a_custom_resource_needs_its_kind_and_quotes_the_patched_bytes() -> None:
    asked: list[int] = []

    def text() -> str:
        asked.append(1)
        return '{"apiVersion":"x/v1"}'
    assert decode_error({"apiVersion": "x/v1", "kind": "K"}, True, text) is None
    assert decode_error({"apiVersion": "x/v1"}, False, text) is None  # (a typed kind's own kind fills it)
    assert not asked
    assert decode_error({"apiVersion": "x/v1"}, True, text) == "Object 'Kind' is missing in '{\"apiVersion\":\"x/v1\"}'"
    assert decode_error({"apiVersion": "x/v1", "kind": ""}, True, text).startswith("Object 'Kind' is missing in ")
    assert decode_error({"kind": 1}, True, text).startswith(PARSE)  # (Interpret first)
