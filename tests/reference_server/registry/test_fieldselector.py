"""`fields.ParseSelector` (registry/fieldselector.py). The expectations are apimachinery v0.33.0's answers for the
same inputs (`Selector.Requirements()` in its sorted order, or its error)."""
from __future__ import annotations

import pytest

from conformance.reference_server.registry.fieldselector import escape_value, parse, term_text
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


def test_terms_sort_by_their_bytes() -> None:
    """`sort.StringSlice` compares bytes: a query's byte that is not UTF-8 (surrogate-escaped, 0xff) sorts after
    U+E000 (0xee 0x80 0x80), which code points would put first."""
    assert [t.field for t in parse("\udcff=1,\ue000=2")] == ["\ue000", "\udcff"]


@pytest.mark.parametrize("value, escaped", [("a", "a"), ("a,b", "a\\,b"), ("a=b", "a\\=b"), ("\\", "\\\\")])
def test_escape_value_reads_back(value: str, escaped: str) -> None:
    """`EscapeValue`, and `hasTerm.String` (`field=escaped`): parsed again, the same term."""
    assert escape_value(value) == escaped
    (term,) = parse(f"f={escaped}")
    assert term.value == value and term_text(term) == f"f={escaped}"
