"""`wire/goautoneg.py`: munnerz/goautoneg's `ParseAccept` (what kube-apiserver 1.33 and kube-openapi vendor). The
expected orders were read from that code run with Go's `sort.Sort`."""
from __future__ import annotations

import pytest

from conformance.reference_server.wire.goautoneg import parse_accept


def ids(header: str) -> list[str]:
    return [c.params["id"] for c in parse_accept(header)]


def test_a_concrete_type_may_come_before_a_wildcard_of_higher_q() -> None:
    """goautoneg's `Less` is not a strict weak order: which clause wins depends on the pairs Go compares."""
    assert ids("*/*;q=0.9;id=a, text/html;q=0.5;id=b") == ["b", "a"]
    assert ids("text/html;q=0.5;id=a, */*;q=0.9;id=b") == ["b", "a"]


def test_more_than_twelve_clauses_take_go_pdqsort() -> None:
    types = ["*/*", "a/b", "a/*", "c/d", "*/*", "e/f", "a/*", "g/h", "*/*", "i/j", "k/*", "l/m", "*/*", "n/o", "p/q",
             "r/*", "*/*", "s/t", "u/v", "w/x"]
    header = ", ".join(f"{t};id={i}" + (";q=0.5" if i % 3 == 0 else "") for i, t in enumerate(types))
    assert ids(header) == ["11", "1", "19", "5", "17", "7", "14", "13", "3", "18", "9", "10", "2", "15", "6", "8",
                           "16", "4", "12", "0"]


@pytest.mark.parametrize("header, clauses", [
    ("Application/JSON", [("Application", "JSON", 1.0, {})]),
    ('application / json ;Pretty="1"; as = Table', [("application", "json", 1.0, {"Pretty": '"1"', "as": "Table"})]),
    ("*", [("*", "*", 1.0, {})]),
    ("*/", [("*", "*", 1.0, {})]),
    ("text", []), ("application/", []), ("a/b/c", []), (",,", []), ("", []),
    ("a/b/", [("a", "b", 1.0, {})]),
    ("a/b;x;y=;z=1=2;w=1=", [("a", "b", 1.0, {"w": "1"})]),
    ("a/b;q=0.5;q=1", [("a", "b", 1.0, {})]),
    ("a/b;q= 0.5", [("a", "b", 0.0, {})]),  # (the value is not trimmed: unparsable, 0)
    ("a/b;q=0.1", [("a", "b", 0.10000000149011612, {})]),  # (ParseFloat(s, 32))
    ("a/b\t", [("a", "b\t", 1.0, {})]),  # only spaces are trimmed
])
def test_parse(header: str, clauses: list[tuple[str, str, float, dict[str, str]]]) -> None:
    assert [(c.type, c.subtype, c.q, c.params) for c in parse_accept(header)] == clauses
