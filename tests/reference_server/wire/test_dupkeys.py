"""wire/dupkeys.py against sigs.k8s.io/json's and go-yaml v2's own cases (kubernetes_patch_test.go
`TestDisallowDuplicateFields`, goyaml.v2/decode.go `setMapIndex`)."""
from __future__ import annotations

import json

from conformance.reference_server.wire import dupkeys
from conformance.reference_server.wire.goyaml import GoYAMLLoader
from conformance.reference_server.wire.textdecode import loads_json_once, loads_yaml_once


def test_untyped_matches_sigs_json():
    """kubernetes_patch_test.go: "duplicate typed" and "duplicate untyped map" (map[string]interface{})."""
    tree = dupkeys.json_pairs(b'{"a":1,"a":2,"a":3,"b":4,"b":5,"b":6,"C":7,"C":8,"C":9,"e":[{"f":1,"f":1}]}')
    assert dupkeys.untyped_errors(tree) == ['duplicate field "a"', 'duplicate field "b"', 'duplicate field "C"',
                                            'duplicate field "e[0].f"']
    tree = dupkeys.json_pairs(b'{"a":"","b":"","a":"","b":"","c":{"c":"","c":""},"d":{"e":{"f":1,"f":1}},'
                              b'"e":[{"g":1,"g":1}]}')
    assert dupkeys.untyped_errors(tree) == ['duplicate field "a"', 'duplicate field "b"', 'duplicate field "c.c"',
                                            'duplicate field "d.e.f"', 'duplicate field "e[0].g"']


def test_typed_skips_unknown_and_raw_fields():
    schema = {"kind": None, "metadata": {"name": None, "labels": None, "managedFields": {"fieldsV1": None}},
              "data": None}
    tree = dupkeys.json_pairs(b'{"kind":"A","bogus":{"x":1,"x":2},"bogus":1,"kind":"B","metadata":{"labels":'
                              b'{"k":"1","k":"2"},"managedFields":[{"fieldsV1":{"f:a":{},"f:a":{}}}]},'
                              b'"data":{"d":1,"d":2}}')
    assert dupkeys.typed_errors(tree, schema) == ['unknown field "bogus"', 'duplicate field "kind"',
                                                  'duplicate field "metadata.labels.k"', 'duplicate field "data.d"']
    assert dupkeys.typed_errors(tree, schema, frozenset({"data"}))[-1] == 'duplicate field "metadata.labels.k"'


def test_at_most_100_errors_each_once():
    body = "{" + ",".join(f'"k{i}":1,"k{i}":2,"k{i}":3' for i in range(150)) + "}"
    errors = dupkeys.untyped_errors(dupkeys.json_pairs(body.encode()))
    assert len(errors) == 100 and errors[0] == 'duplicate field "k0"' and errors[-1] == 'duplicate field "k99"'


def test_json_patch_operations():
    tree = dupkeys.json_pairs(b'[{"op":"add","op":"add","x":1,"value":{"a":{"b":1,"b":2}}}]')
    assert dupkeys.typed_errors(tree, dupkeys.JSON_PATCH_OP) == [
        'duplicate field "[0].op"', 'unknown field "[0].x"', 'duplicate field "[0].value.a.b"']


def test_yaml_lines_and_order():
    """The line the repeated value starts on; a value's own repeats before its key's (decoded first); keys
    compared as go-yaml resolves them; a merged map's keys set into the map (`d.merge`)."""
    text = "a: 1\nb:\n  c: 1\n  c: 2\na:\n  x: 1\n  x: 2\n1: one\n'1': two\nbase: &b {m: 1}\nd:\n  <<: *b\n  m: 2\n"
    assert dupkeys.yaml_error(text, GoYAMLLoader) == (
        'yaml: unmarshal errors:\n  line 4: key "c" already set in map\n  line 7: key "x" already set in map\n'
        '  line 6: key "a" already set in map\n  line 13: key "m" already set in map')
    assert dupkeys.yaml_error("a: 1\nb: 2\n", GoYAMLLoader) is None
    assert dupkeys.yaml_error("1: a\n1: b\ntrue: c\ntrue: d\n", GoYAMLLoader) == (
        "yaml: unmarshal errors:\n  line 2: key 1 already set in map\n  line 4: key true already set in map")


def test_yaml_warnings_split_as_rest_go():
    error = 'yaml: unmarshal errors:\n  line 4: key "c" already set in map\n  line 7: key "x" already set in map'
    assert dupkeys.yaml_warnings(error) == ['line 4: key "c" already set in map', 'line 7: key "x" already set in map']
    assert dupkeys.yaml_warnings("error converting YAML to JSON: " + error)[0] == 'line 4: key "c" already set in map'
    assert dupkeys.yaml_warnings('duplicate field "a"') == ['duplicate field "a"']


def test_readers_tell_a_repeat():
    """The value is Python's (the last one kept, in the first one's place); only a repeat is flagged."""
    assert loads_json_once(b'{"a":1,"b":{"c":1},"a":2}') == ({"a": 2, "b": {"c": 1}}, True)
    assert loads_json_once(b'{"a":1,"b":{"c":1,"c":3}}') == ({"a": 1, "b": {"c": 3}}, True)
    assert loads_json_once(json.dumps({"a": [{"b": 1}]}).encode()) == ({"a": [{"b": 1}]}, False)
    assert loads_yaml_once(b"a: 1\na: 2\n") == ({"a": 2}, True)
    assert loads_yaml_once(b"a: 1\nb: [1, 1]\n") == ({"a": 1, "b": [1, 1]}, False)


def test_yaml_aliases_named_at_each_alias_found_once():
    """go-yaml decodes an aliased node again at each alias (its repeats named each time); found once here, and
    the error bounded (`MAX_YAML_LINES`) where go-yaml's is not."""
    text = "a: &x {k: 1, k: 2}\nb: *x\n"
    assert dupkeys.yaml_error(text, GoYAMLLoader) == ('yaml: unmarshal errors:\n  line 1: key "k" already set in map'
                                                      '\n  line 1: key "k" already set in map')
    text = "a: &x {k: 1, k: 2}\nb: &y [" + ", ".join(["*x"] * 40) + "]\nc: [" + ", ".join(["*y"] * 40) + "]\n"
    error = dupkeys.yaml_error(text, GoYAMLLoader)
    assert error is not None and error.count("\n") == dupkeys.MAX_YAML_LINES


def test_go_typed_value_merges_structs_and_maps():
    """A CRD's Go types: a repeated struct merged into the first, a map's keys added (each value decoded anew),
    a custom `UnmarshalJSON`'s value (`default`: `JSON`) replaced."""
    from conformance.reference_server.wire import crdtypes
    tree = dupkeys.json_pairs(b'{"spec":{"names":{"plural":"p"},"versions":[{"name":"v1","schema":{"openAPIV3Schema":'
                              b'{"properties":{"a":{"type":"string"}},"default":{"x":1},"properties":{"b":{}},'
                              b'"default":{"y":2}}}}],"names":{"kind":"K"}}}')
    value = dupkeys.go_typed_value(tree, {}, "CustomResourceDefinition", crdtypes.STRUCTS)
    assert value["spec"]["names"] == {"plural": "p", "kind": "K"}
    schema = value["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert schema["properties"] == {"a": {"type": "string"}, "b": {}} and schema["default"] == {"y": 2}
    assert dupkeys.go_typed_errors(tree, {}, "CustomResourceDefinition", crdtypes.STRUCTS) == [
        'duplicate field "spec.versions[0].schema.openAPIV3Schema.properties"',
        'duplicate field "spec.versions[0].schema.openAPIV3Schema.default"', 'duplicate field "spec.names"']


def test_lone_surrogates_in_pairs():
    """Keys and strings as `loads_json` reads them (a lone surrogate: U+FFFD), objects still pairs."""
    tree = dupkeys.json_pairs(b'{"a\\ud800":{"b":"\\udc00","b":1},"a\\ud800":2}')
    assert dupkeys.untyped_errors(tree) == ['duplicate field "a\ufffd.b"', 'duplicate field "a\ufffd"']
    assert dupkeys.plain(tree) == {"a\ufffd": 2}
