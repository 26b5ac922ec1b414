"""registry/rehearsed.py: which writes may stall the loop (decided cheaply) and what a rehearsal remembers of a
custom resource's validation (its inputs: all the validation reads, and nothing that differs between a rehearsal
and its commit, such as managedFields' times)."""
from __future__ import annotations

from conformance.reference_server.apierrors import FieldError
from conformance.reference_server.registry import rehearsed
from conformance.reference_server.registry.crdrules import build


def test_large_objects_are_found_without_walking_all_of_them():
    assert not rehearsed.larger_than({"a": "x" * 100, "b": [1, 2, 3]}, 1024)
    assert rehearsed.larger_than({"a": "x" * 2000}, 1024)
    assert rehearsed.larger_than({"items": [{}] * 100}, 1024)  # 16 a list item
    assert not rehearsed.larger_than(None, 0)


def test_patterns_are_found_below_the_root_only_as_schema_keywords():
    assert rehearsed.has_patterns({"properties": {"spec": {"items": {"pattern": "^a$"}}}})
    assert rehearsed.has_patterns({"additionalProperties": {"allOf": [{"pattern": "b"}]}})
    assert not rehearsed.has_patterns({"properties": {"pattern": {"type": "string"}}})  # a field named so
    assert not rehearsed.has_patterns(None)


def test_costly_rules_by_their_estimates():
    cheap = build({"type": "object", "properties": {"s": {"type": "string", "maxLength": 10}},
                   "x-kubernetes-validations": [{"rule": "self.s.size() < 5"}]})
    heavy = build({"type": "object", "properties": {"l": {"type": "array", "maxItems": 1000, "items": {
        "type": "string", "maxLength": 1000}}},
        "x-kubernetes-validations": [{"rule": "self.l.all(x, self.l.all(y, x.size() >= 0))"}]})
    assert not rehearsed.costly(cheap)
    assert rehearsed.costly(heavy)
    assert not rehearsed.costly(None)


def test_the_inputs_leave_out_what_the_validation_does_not_read():
    a = {"metadata": {"name": "n", "uid": "1", "managedFields": [{"time": "t1"}]}, "spec": {"s": "x"}}
    b = {"metadata": {"name": "n", "uid": "2", "managedFields": [{"time": "t2"}]}, "spec": {"s": "x"}}
    assert rehearsed.custom_resource_inputs(a, None, []) == rehearsed.custom_resource_inputs(b, None, [])
    c = {**b, "spec": {"s": "y"}}
    assert rehearsed.custom_resource_inputs(a, None, []) != rehearsed.custom_resource_inputs(c, None, [])
    blocking = [FieldError("FieldValueRequired", "metadata.name", "Required value")]
    assert rehearsed.custom_resource_inputs(a, None, []) != rehearsed.custom_resource_inputs(a, None, blocking)
    assert rehearsed.unmanaged(a) == {"metadata": {"name": "n", "uid": "1"}, "spec": {"s": "x"}}
    assert a["metadata"]["managedFields"]  # not changed
