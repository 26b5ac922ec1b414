"""The shared message helpers as apimachinery prints them: `validation.RegexError`
(`pkg/util/validation/validation.go`) and `field.Error.Error()` (`pkg/util/validation/field/errors.go`)."""
from __future__ import annotations

from conformance.reference_server import apierrors as E
from conformance.reference_server.registry.validation import regex_error


def test_regex_error_with_and_without_examples():
    assert regex_error("m", "[a-z]+", "a", "b") == "m (e.g. 'a',  or 'b', regex used for validation is '[a-z]+')"
    assert regex_error("Invalid path", "[a-z]+") == "Invalid path (regex used for validation is '[a-z]+')"


def test_a_field_error_prints_its_path_even_when_empty():
    assert str(E.field_forbidden("spec", "no")) == "spec: Forbidden: no"
    assert str(E.field_forbidden("", "static pods cannot be resized")) == ": Forbidden: static pods cannot be resized"
    assert E.aggregate([E.field_required(""), E.field_required("a")]) == "[: Required value, a: Required value]"
