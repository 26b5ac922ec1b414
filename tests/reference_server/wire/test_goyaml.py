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


@pytest.mark.parametrize(("text", "error"), [
    # goyaml.v2/decode.go `(*parser).fail`: a scanner error's mark line (0-based) plus one, a parser error's as it is
    ("a: b\n c: d\n", "yaml: line 2: mapping values are not allowed in this context"),
    ("a: b: c\n", "yaml: mapping values are not allowed in this context"),  # line 0: none
    ("a:\n  - b\n c: d\n", "yaml: line 2: did not find expected key"),
    ("a: [b\n", "yaml: line 1: did not find expected ',' or ']'"),
    ("a: [b", "yaml: line 1: did not find expected ',' or ']'"),  # `fetch_stream_end` forces a new line
    ("a: \"b\" c\n", "yaml: did not find expected key"),  # a parser error on line 0
    ("a: b\nc\n", "yaml: line 3: could not find expected ':'"),
    ("%FOO\n---\na: b\n", "yaml: found unknown directive name"),
    ("a: \x07\n", "yaml: control characters are not allowed"),  # readerc.go: no mark
    ("a: *b\n", "yaml: unknown anchor 'b' referenced"),
    ("a: &b [1, *b]\n", "yaml: anchor 'b' value contains itself"),
    ("{[a]: 1}", 'yaml: invalid map key: []interface {}{"a"}'),
    ("a: !!int abc\n", "yaml: cannot decode !!str `abc` as a !!int"),  # resolve.go: an explicit tag must resolve
    ("a: !!int 1.5\n", "yaml: cannot decode !!float `1.5` as a !!int"),
    ("a: !!bool 5\n", "yaml: cannot decode !!int `5` as a !!bool"),
    ("a: !!null x\n", "yaml: cannot decode !!str `x` as a !!null"),
    ("{{b: [1, ~]}: 1}", "yaml: invalid map key: map[interface {}]interface {}{\"b\":[]interface {}{1, interface {}(nil)}}"),
])
def test_errors_are_go_yamls_yaml_to_json_returns_them_unmarshal_wraps_them(text: str, error: str) -> None:
    with pytest.raises(BodyError) as caught:
        loads_yaml(text.encode())
    assert str(caught.value) == error
    with pytest.raises(BodyError) as caught:
        loads_yaml(text.encode(), unmarshal=True)
    assert str(caught.value) == f"error converting YAML to JSON: {error}"


def test_the_first_document_only_and_unresolved_tags_ignored() -> None:
    """go-yaml v2 `unmarshal` parses one document; `resolve` leaves a tag it cannot resolve aside."""
    assert loads_yaml(b"a: 1\n---\n: : [\n") == {"a": 1}
    assert loads_yaml(b"a: 1\n...\nb: 2\n") == {"a": 1}
    assert loads_yaml(b"a: !foo 5\nb: !bar [1]\nc: !!set {x: ~}\n") == {"a": "5", "b": [1], "c": {"x": None}}
    assert loads_yaml(b"# nothing\n") is None
    assert loads_yaml(b'a: !!int "7"\nb: !!float 5\nc: !!bool yes\nd: !!null ~\ne: !!str 5\n') == {
        "a": 7, "b": 5, "c": True, "d": None, "e": "5"}


def test_an_anchor_defined_again_replaces_the_earlier_one() -> None:
    """decode.go `p.anchor`: `p.doc.anchors[anchor] = n`, so each alias names the latest definition before it
    (PyYAML's composer refused the second definition: `found duplicate anchor`)."""
    assert loads_yaml(b"a: &x 1\nb: *x\nc: &x {k: y}\nd: *x\n") == {"a": 1, "b": 1, "c": {"k": True}, "d": {"k": True}}
    with pytest.raises(BodyError, match=r"^yaml: anchor 'x' value contains itself$"):
        loads_yaml(b"a: &x 1\nb: &x [*x]\n")
    assert loads_yaml(b"a: &x [&x 1, *x]\n") == {"a": [1, 1]}  # the inner definition is the latest
