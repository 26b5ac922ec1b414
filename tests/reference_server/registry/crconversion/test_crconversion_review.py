"""The checks of a conversion webhook's answer (registry/crconversion/review.py, webhook_converter.go):
`getConvertedObjectsFromResponse` per review version, `restoreObjectMeta`'s label/annotation checks."""
from __future__ import annotations

import pytest

from conformance.reference_server.registry.crconversion import review

OBJ = {"apiVersion": "g.example.com/v1", "kind": "W", "metadata": {
    "name": "a", "namespace": "n", "uid": "u", "generation": 1, "labels": {"keep": "me"}}, "spec": {}}


def answer(sent: dict, **response: object) -> dict:
    return {"apiVersion": sent["apiVersion"], "kind": "ConversionReview",
            "response": {"uid": sent["request"]["uid"], "result": {"status": "Success"}, **response}}


def test_v1_checks_uid_and_kind_v1beta1_does_not() -> None:
    sent = review.request("v1", [OBJ], "g.example.com/v2")
    with pytest.raises(review.ConversionError) as err:
        review.converted_objects(sent, {**answer(sent), "apiVersion": "apiextensions.k8s.io/v1beta1"})
    assert str(err.value) == ("expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got "
                              "apiextensions.k8s.io/v1beta1, Kind=ConversionReview")
    beta = review.request("v1beta1", [OBJ], "g.example.com/v2")
    assert review.converted_objects(beta, answer(beta, uid="other", convertedObjects=[OBJ])) == [OBJ]


def test_failure_without_message() -> None:
    sent = review.request("v1", [OBJ], "g.example.com/v2")
    with pytest.raises(review.ConversionError) as err:
        review.converted_objects(sent, answer(sent, result={"status": "Failure"}))
    assert str(err.value) == "response.result.status was 'Failure', not 'Success'"
    with pytest.raises(review.ConversionError) as err:
        review.converted_objects(sent, {"apiVersion": sent["apiVersion"], "kind": "ConversionReview"})
    assert str(err.value) == "no response provided"


def test_restore_object_meta() -> None:
    converted = {**OBJ, "apiVersion": "g.example.com/v2",
                 "metadata": {**OBJ["metadata"], "generation": 7, "labels": {"new": "yes"}, "annotations": {"a": "b"}}}
    out = review.check_converted(OBJ, converted, "g.example.com/v2")
    assert out["metadata"] == {**OBJ["metadata"], "labels": {"new": "yes"}, "annotations": {"a": "b"}}
    bad = {**converted, "metadata": {**OBJ["metadata"], "labels": {"x": "not valid!"}}}
    with pytest.raises(review.ConversionError) as err:
        review.check_converted(OBJ, bad, "g.example.com/v2")
    assert str(err.value).startswith("conversion webhook for g.example.com/v1, Kind=W returned invalid metadata: "
                                     'metadata.labels: Invalid value: "not valid!": a valid label must be')
    gone = {**converted, "metadata": None}
    with pytest.raises(review.ConversionError) as err:
        review.check_converted(OBJ, {k: v for k, v in gone.items() if k != "metadata"}, "g.example.com/v2")
    # validateConvertedObject comes first: no metadata, no name
    assert str(err.value) == "conversion webhook for g.example.com/v1, Kind=W returned invalid object: must have " \
                             "the same name: a != "


def test_converted_annotations_are_judged_at_upstreams_path_by_their_bytes() -> None:
    """`restoreObjectMeta` calls `ValidateAnnotations` at `field.NewPath("metadata", "annotation")` (singular, as
    webhook_converter.go writes it); `ValidateAnnotationsSize` sums the keys' and values' bytes (Go's `len`), so
    140,000 two-byte characters are over the 256 KiB limit."""
    converted = {**OBJ, "apiVersion": "g.example.com/v2", "metadata": {**OBJ["metadata"], "annotations": {"a b": ""}}}
    with pytest.raises(review.ConversionError) as err:
        review.check_converted(OBJ, converted, "g.example.com/v2")
    assert str(err.value).startswith("conversion webhook for g.example.com/v1, Kind=W returned invalid metadata: "
                                     'metadata.annotation: Invalid value: "a b": name part must consist of')
    converted["metadata"]["annotations"] = {"a": "\u00e9" * 140_000}
    with pytest.raises(review.ConversionError) as err:
        review.check_converted(OBJ, converted, "g.example.com/v2")
    assert str(err.value) == ("conversion webhook for g.example.com/v1, Kind=W returned invalid metadata: "
                              "metadata.annotation: Too long: may not be more than 262144 bytes")
