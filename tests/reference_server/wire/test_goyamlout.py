"""wire/goyamlout.py: go-yaml v2's writing of the JSON Go wrote (sigs.k8s.io/yaml `JSONToYAML`)."""
from __future__ import annotations

import pytest

import conformance.reference_server.goport.gojsonnum  # noqa: F401 - (import order: gojsonnum before wire)
from conformance.reference_server.wire.goyamlout import dumps, plain_ok


def test_keys_sorted_as_go_yamls_key_list() -> None:
    keys = ["b", "a10", "a2", "a", "_x", "1", "10", "2", "a02", "Z"]
    out = dumps({k: 1 for k in keys}).decode()
    assert [line.split(":")[0].strip('"') for line in out.splitlines()] == \
        ["_x", "1", "2", "10", "Z", "a", "a2", "a02", "a10", "b"]  # (`_`: no digits, 0 < 1)


@pytest.mark.parametrize("text,plain", [
    ("abc", True), ("214", False), ("1e3", False), ("0x1F", False), ("1_000", False), (".5", False), ("y", False),
    ("on", False), ("NULL", False), ("~", False), ("", False), ("<<", False), ("1:30", False), ("-", True),
    ("2026-11-24T22:16:57Z", False), ("2026-1-2", False), ("2026-02-30", True), ("2026-11-24 22:16:57", False),
    ("12:30:45", False), ("1.2.3", True), (".inf", False), ("a: b", True),
])
def test_strings_plain_where_go_yaml_reads_them_back(text: str, plain: bool) -> None:
    assert plain_ok(text) is plain


def test_scalars_and_blocks() -> None:
    assert dumps({"a": [], "b": {}, "c": None, "d": True, "e": 1.5, "f": 1e-07, "g": 2, "h": ["x", {"i": 1}],
                  "j": "x\n\n", "k": "no newline\nat end"}) == (
        b'a: []\nb: {}\nc: null\nd: true\ne: 1.5\nf: 1e-07\ng: 2\nh:\n- x\n- i: 1\nj: |+\n  x\n\nk: |-\n'
        b'  no newline\n  at end\n')
