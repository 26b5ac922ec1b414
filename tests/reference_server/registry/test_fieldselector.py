"""`fields.ParseSelector` (registry/fieldselector.py). The expectations are apimachinery v0.33.0's answers for the
same inputs (`Selector.Requirements()` in its sorted order, or its error)."""
from __future__ import annotations

import pytest

from conformance.reference_server.registry.fieldselector import parse
from conformance.reference_server.registry.labelselector import SelectorSyntaxError


@pytest.mark.parametrize("selector, terms", [
    ("metadata.name=a\\,b", [("metadata.name", "=", "a,b")]),  # an escaped comma is data
    ("a=\\\\", [("a", "=", "\\")]),
    ("a=\\=", [("a", "=", "=")]),
    ("a==b", [("a", "=", "b")]),
    ("a!=b", [("a", "!=", "b")]),
    ("metadata.name = x", [("metadata.name ", "=", " x")]),  # nothing is trimmed
    ("b=1,a=2", [("a", "=", "2"), ("b", "=", "1")]),  # sorted
    ("a=b,,c=d", [("a", "=", "b"), ("c", "=", "d")]),
    ("a!b=c", [("a!b", "=", "c")]),
    ("=", []), ("!=", []), ("==", []), (",", []), ("", []),  # no field and no value: `Everything()`
])
def test_terms_as_upstream(selector: str, terms: list[tuple[str, str, str]]) -> None:
    assert [(t.field, t.op, t.value) for t in parse(selector)] == terms


@pytest.mark.parametrize("selector, error", [
    ("metadata.name=a,b", "invalid selector: 'metadata.name=a,b'; can't understand 'b'"),
    ("x", "invalid selector: 'x'; can't understand 'x'"),
    ("a=b=c", "invalid field selector: unescaped character in value: 61"),
    ("a=!=b", "invalid field selector: unescaped character in value: 61"),
    ("z=1,a=b=c", "invalid field selector: unescaped character in value: 61"),
    ("a=\\q", "invalid field selector: invalid escape sequence: \\q"),
    ("a=b\\", "invalid field selector: invalid escape sequence: \\"),
])
def test_refusals_as_upstream(selector: str, error: str) -> None:
    with pytest.raises(SelectorSyntaxError) as e:
        parse(selector)
    assert str(e.value) == error
