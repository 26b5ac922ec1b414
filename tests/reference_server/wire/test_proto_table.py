"""The committed declaration table agrees with the schemas kubectl itself encodes with."""

from __future__ import annotations

from pathlib import Path

from conformance.reference_server.wire import openapi_schemas, schema
from conformance.reference_server.wire._proto_table import MESSAGES
from tests.tools.proto_descriptors import ROOTS, extract_descriptors, table_from


def test_table_matches_kubectl_descriptors(kubectl: Path) -> None:
    from_binary = table_from(extract_descriptors(kubectl))
    assert from_binary == MESSAGES


def test_well_known_field_numbers() -> None:
    meta = schema.fields_by_name("meta.ObjectMeta")
    assert {n: meta[n].number for n in ("name", "generateName", "namespace", "selfLink", "uid",
                                        "resourceVersion", "generation", "creationTimestamp",
                                        "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
                                        "annotations", "ownerReferences", "finalizers", "managedFields")} == {
        "name": 1, "generateName": 2, "namespace": 3, "selfLink": 4, "uid": 5, "resourceVersion": 6,
        "generation": 7, "creationTimestamp": 8, "deletionTimestamp": 9, "deletionGracePeriodSeconds": 10,
        "labels": 11, "annotations": 12, "ownerReferences": 13, "finalizers": 14, "managedFields": 17}
    unknown = schema.fields_by_name("runtime.Unknown")
    assert [(f.name, f.number) for f in unknown.values()] == [
        ("typeMeta", 1), ("raw", 2), ("contentEncoding", 3), ("contentType", 4)]
    assert [(f.name, f.number) for f in schema.fields("core.Namespace")] == [
        ("metadata", 1), ("spec", 2), ("status", 3)]


def test_every_root_and_annotation_names_a_declared_field() -> None:
    assert all(root in MESSAGES for root in ROOTS)
    named = schema.KEEP_ZERO | schema.INLINE | set(openapi_schemas.PATCH_META)
    missing = [q for q in named
               if q.rsplit(".", 1)[0] not in MESSAGES or q.rsplit(".", 1)[1] not in schema.fields_by_name(q.rsplit(".", 1)[0])]
    assert missing == []
    assert all(m in MESSAGES for m in openapi_schemas.REQUIRED)
