"""`wire/openapi_pb.py`: the v2 document as gnostic's `openapi.v2.Document` (field numbers of
`openapiv2/OpenAPIv2.proto`), read back here with a minimal protobuf wire reader."""
from __future__ import annotations

import struct
from typing import Any

import yaml

from conformance.reference_server.wire import openapi_pb
from conformance.reference_server.wire.kinds import DEFAULT_KINDS
from conformance.reference_server.wire.openapi import openapi_v2
from tests.tools.kubectl import read_varint


def fields(data: bytes) -> dict[int, list[Any]]:
    """Field number → values (int for varint, bytes for length-delimited and fixed64)."""
    out: dict[int, list[Any]] = {}
    i = 0
    while i < len(data):
        key, i = read_varint(data, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value: Any
            value, i = read_varint(data, i)
        elif wire == 2:
            size, i = read_varint(data, i)
            value, i = data[i:i + size], i + size
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        else:
            raise AssertionError(f"unexpected wire type {wire}")
        out.setdefault(num, []).append(value)
    return out


def named(data: list[bytes]) -> dict[str, bytes]:
    """gnostic `Named*` entries (name = 1, value = 2)."""
    return {fields(d)[1][0].decode(): fields(d).get(2, [b""])[0] for d in data}


def extensions(data: list[bytes]) -> dict[str, Any]:
    return {k: yaml.safe_load(fields(v)[2][0].decode()) for k, v in named(data).items()}


def test_document_round_trip():
    doc = openapi_v2(DEFAULT_KINDS)
    top = fields(openapi_pb.document(doc))
    assert top[1] == [b"2.0"]
    info = fields(top[2][0])
    assert info[1] == [b"Kubernetes"] and info[2] == [doc["info"]["version"].encode()]
    definitions = named(fields(top[9][0])[1])
    assert set(definitions) == set(doc["definitions"])
    pod = fields(definitions["io.k8s.api.core.v1.Pod"])
    assert extensions(pod[31])["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    props = named(fields(pod[25][0])[1])
    assert list(props) == list(doc["definitions"]["io.k8s.api.core.v1.Pod"]["properties"])
    assert fields(props["spec"])[1] == [b"#/definitions/io.k8s.api.core.v1.PodSpec"]
    containers = fields(named(fields(fields(definitions["io.k8s.api.core.v1.PodSpec"])[25][0])[1])["containers"])
    assert fields(containers[22][0])[1] == [b"array"]  # TypeItem
    assert extensions(containers[31]) == {"x-kubernetes-patch-merge-key": "name",
                                          "x-kubernetes-patch-strategy": "merge", "x-kubernetes-list-type": "map",
                                          "x-kubernetes-list-map-keys": ["name"]}
    item = fields(fields(containers[23][0])[1][0])  # ItemsItem.schema[0]
    assert item[1] == [b"#/definitions/io.k8s.api.core.v1.Container"]
    assert fields(definitions["io.k8s.api.core.v1.Container"])[19] == [b"name"]  # required


def test_paths_operations_and_parameters():
    doc = openapi_v2(DEFAULT_KINDS)
    top = fields(openapi_pb.document(doc))
    paths = named(fields(top[8][0])[2])
    assert set(paths) == set(doc["paths"])
    item = fields(paths["/api/v1/namespaces/{namespace}/pods/{name}"])
    patch = fields(item[8][0])
    assert patch[5] == [b"patchCoreV1NamespacedPod"]
    assert extensions(patch[13]) == {"x-kubernetes-action": "patch",
                                     "x-kubernetes-group-version-kind": {"group": "", "kind": "Pod",
                                                                         "version": "v1"}}
    items = [fields(p) for p in patch[8]]  # ParametersItem: parameter (1) or json_reference (2)
    refs = [fields(i[2][0])[1][0].decode() for i in items if 2 in i]
    assert refs == ["#/parameters/body-78PwaGsr", "#/parameters/fieldManager-7c6nTn1T", "#/parameters/force-tOGGb0Yi"]
    query = [fields(fields(fields(i[1][0])[2][0])[3][0]) for i in items if 1 in i]  # Parameter.non_body.query
    assert [q[4][0] for q in query] == [b"dryRun", b"fieldValidation"]  # kept inline, as upstream keeps them
    assert [q[3][0].split(b" ")[0] for q in query] == [b"When", b"fieldValidation"]  # upstream's descriptions
    assert all(q[2] == [b"query"] and q[20] == [1] for q in query)  # in, uniqueItems
    item_params = [fields(p) for p in item[9]]
    name = fields(fields(fields(item_params[0][1][0])[2][0])[4][0])  # the path's `name`: PathParameterSubSchema
    assert name[4] == [b"name"] and name[1] == [1] and name[3] == [b"name of the Pod"]  # name, required, description
    assert [fields(i[2][0])[1][0] for i in item_params[1:]] == [b"#/parameters/namespace-vgWSWtn3",
                                                                 b"#/parameters/pretty-tJGM1-ng"]
    shared = named(fields(top[10][0])[1])  # ParameterDefinitions: NamedParameter
    assert set(shared) == set(doc["parameters"])
    body = fields(fields(shared["body-78PwaGsr"])[1][0])  # Parameter.body_parameter
    assert body[2] == [b"body"] and body[4] == [1]
    assert fields(body[5][0])[1] == [b"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"]
    pretty = fields(fields(fields(shared["pretty-tJGM1-ng"])[2][0])[3][0])
    assert pretty[4] == [b"pretty"] and pretty[3][0].startswith(b"If 'true', then the output is pretty printed")
    responses = named(fields(patch[9][0])[1])
    ok = fields(fields(responses["200"])[1][0])
    assert ok[1] == [b"OK"]
    security = fields(top[13][0])
    assert fields(named(security[1])["BearerToken"])[2]


def test_scalars():
    s = fields(openapi_pb.schema({"type": "number", "maximum": 1.5, "minLength": 3, "uniqueItems": True,
                                  "default": {"a": 1}, "enum": ["x", "y"], "additionalProperties": False}))
    assert struct.unpack("<d", s[7][0]) == (1.5,) and s[12] == [3] and s[16] == [1]
    assert yaml.safe_load(fields(s[5][0])[2][0]) == {"a": 1}
    assert [yaml.safe_load(fields(e)[2][0]) for e in s[20]] == ["x", "y"]
    assert s[21] == [b"\x10\x00"]  # AdditionalPropertiesItem.boolean = false
    assert openapi_pb.schema({"minLength": -1})[:2] == b"\x60\xff"  # int64 -1: ten-byte varint
