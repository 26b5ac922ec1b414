"""wire/goyaml.py: YAML read as go-yaml v2 reads it for sigs.k8s.io/yaml v1.4.0 (kube-apiserver's YAML bodies and
server-side apply configurations), where PyYAML's YAML 1.1 resolver differs."""
from __future__ import annotations

import pytest

from conformance.reference_server.wire.textdecode import BodyError, loads_yaml


@pytest.mark.parametrize(("text", "value"), [
    ("2001-12-14", "2001-12-14"),  # a timestamp stays its text (decode.go, for interface{})
    ("2001-12-14T21:59:43.10-05:00", "2001-12-14T21:59:43.10-05:00"),
    ("1:30", "1:30"),  # no sexagesimal
    ("y", True), ("N", False), ("on", True), ("Off", False), ("~", None), ("", None),
    ("1e3", 1000), ("1.5e3", 1500), ("1.5", 1.5), ("1e21", 1e21), (".5", 0.5), ("1e400", "1e400"),
    ("017", 15), ("0o17", 15), ("0x1F", 31), ("-0b101", -5), ("08", 8), ("1_000", 1000), ("+5", 5),
    ("18446744073709551615", 2 ** 64 - 1), ('"1e3"', "1e3"), ("'y'", "y"), ("!!binary aGVsbG8=", "hello"),
    ("NaN", "NaN"), ("yes please", "yes please"),
])
def test_scalars_resolve_as_go_yaml(text: str, value: object) -> None:
    got = loads_yaml(f"a: {text}\n".encode())["a"]
    assert got == value and type(got) is type(value), got


def test_keys_are_jsons_and_merges_still_merge() -> None:
    assert loads_yaml(b"{1: a, true: b, 1.5: c}") == {"1": "a", "true": "b", "1.5": "c"}
    assert loads_yaml(b"a: &x {b: 1}\nc: {<<: *x, d: 2}") == {"a": {"b": 1}, "c": {"b": 1, "d": 2}}
    with pytest.raises(ValueError, match=r"unsupported map key of type: %!s\(<nil>\), key: <nil>, value: \"d\""):
        loads_yaml(b"{null: d}")
    with pytest.raises(BodyError, match=r"^json: unsupported value: NaN$"):  # YAMLToJSON: a YAML body's
        loads_yaml(b"a: .nan")
    with pytest.raises(BodyError, match=r"^error converting YAML to JSON: json: unsupported value: -Inf$"):
        loads_yaml(b"a: [-.inf]", unmarshal=True)  # Unmarshal: an applied configuration's
