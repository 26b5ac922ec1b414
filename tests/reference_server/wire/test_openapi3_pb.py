"""`wire/openapi3_pb.py`: each `/openapi/v3/<group-version>` document as gnostic's `openapi.v3.Document`, judged
by the descriptor kubectl 1.33 embeds (`tests/tools/openapiv3_descriptor.py`): the bytes parse with it,
re-serialise to the same bytes (fields in number order, as protobuf-go writes them), and read back to the JSON
document."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from google.protobuf import any_pb2, descriptor_pool, message_factory

from conformance.reference_server.http.respond import dumps
from conformance.reference_server.wire import openapi3_pb
from conformance.reference_server.wire._openapiv3_table import MESSAGES
from conformance.reference_server.wire.kinds import DEFAULT_KINDS
from conformance.reference_server.wire.openapi import openapi_v3_documents
from tests.tools.openapiv3_descriptor import extract, table

from .test_openapi_model import served_group_kinds


@pytest.fixture(scope="module")
def descriptor(kubectl: Path) -> Any:
    return extract(kubectl)


@pytest.fixture(scope="module")
def Document(descriptor: Any) -> Any:  # noqa: N802 - a message class
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(any_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(descriptor)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("openapi.v3.Document"))


def test_table_matches_kubectl_descriptor(descriptor: Any) -> None:
    assert table(descriptor) == MESSAGES


def _back(msg: Any) -> Any:
    """The JSON value a message was parsed from (the inverse of gnostic's parse, for the shapes used here)."""
    name = msg.DESCRIPTOR.name
    if name == "Any":
        return yaml.safe_load(msg.yaml)
    if name == "DefaultType":
        which = msg.WhichOneof("oneof")
        return getattr(msg, which) if which else {}
    if name == "ItemsItem":
        assert len(msg.schema_or_reference) == 1
        return _back(msg.schema_or_reference[0])
    if msg.DESCRIPTOR.oneofs:
        value = getattr(msg, msg.WhichOneof(msg.DESCRIPTOR.oneofs[0].name))
        return value if isinstance(value, bool) else _back(value)
    out: dict[str, Any] = {}
    for field, value in msg.ListFields():
        if field.is_repeated and field.message_type is not None and field.message_type.name.startswith("Named"):
            out.update({n.name: _back(n.value) for n in value})
        else:
            key = "$ref" if field.name == "_ref" else re.sub(r"_(\w)", lambda m: m.group(1).upper(), field.name)
            if field.message_type is None:
                out[key] = list(value) if field.is_repeated else value
            elif field.is_repeated:
                out[key] = [_back(v) for v in value]
            else:
                out[key] = _back(value)
    return out


GROUP_VERSIONS = ("api/v1", "apis/apps/v1", "apis/rbac.authorization.k8s.io/v1", "apis/autoscaling/v2")


@pytest.fixture(scope="module")
def documents() -> dict[str, dict[str, Any]]:
    docs = openapi_v3_documents([*DEFAULT_KINDS, *served_group_kinds()])
    return {k: json.loads(dumps(docs[k])) for k in GROUP_VERSIONS}  # as served: the JSON bytes' order


@pytest.mark.parametrize("key", GROUP_VERSIONS)
def test_document_reads_back_as_the_json(key: str, documents: dict[str, Any], Document: Any) -> None:  # noqa: N803
    doc = documents[key]
    raw = openapi3_pb.document(doc)
    msg = Document.FromString(raw)
    assert msg.SerializeToString() == raw
    assert msg.openapi == "3.0.0" and msg.info.title == "Kubernetes"
    assert _back(msg) == _without_empty_lists(doc)


@pytest.mark.parametrize("key", ("apis/apiextensions.k8s.io/v1", "apis/apiregistration.k8s.io/v1"))
def test_crd_and_apiservice_documents_read_back_as_the_json(key: str, kinds: list[Any],
                                                            Document: Any) -> None:  # noqa: N803
    """Their definitions (wire/jsonkindschemas.py): `JSON` with no type, `default` false, 0 and "" as `Any`s."""
    doc = json.loads(dumps(openapi_v3_documents(kinds)[key]))
    raw = openapi3_pb.document(doc)
    assert _back(Document.FromString(raw)) == _without_empty_lists(doc)


def _without_empty_lists(value: Any) -> Any:
    """An empty repeated field is no bytes at all: `"parameters": []` reads back as absent."""
    if isinstance(value, dict):
        return {k: _without_empty_lists(v) for k, v in value.items() if v != []}
    if isinstance(value, list):
        return [_without_empty_lists(v) for v in value]
    return value


def test_oneofs_and_zero_values(Document: Any) -> None:  # noqa: N803
    schemas = {"A": {"type": "object", "additionalProperties": False, "default": "",
                     "properties": {"n": {"type": "integer", "default": 0, "minimum": 0, "nullable": False},
                                    "r": {"$ref": "#/components/schemas/B", "description": "d"},
                                    "e": {"enum": ["x", 1, None], "x-kubernetes-map-type": "atomic"}}}}
    msg = Document.FromString(openapi3_pb.document({"openapi": "3.0.0", "info": {}, "components": {
        "schemas": schemas}}))
    a = msg.components.schemas.additional_properties[0].value.schema
    assert a.additional_properties.WhichOneof("oneof") == "boolean" and a.additional_properties.boolean is False
    assert a.default.WhichOneof("oneof") == "string" and a.default.string == ""
    n = a.properties.additional_properties[0].value.schema
    assert n.default.WhichOneof("oneof") == "number" and not n.HasField("discriminator")
    assert a.properties.additional_properties[1].value.reference._ref == "#/components/schemas/B"
    e = a.properties.additional_properties[2].value.schema
    assert [yaml.safe_load(v.yaml) for v in e.enum] == ["x", 1, None]
    assert msg.HasField("info") and not msg.HasField("paths")
