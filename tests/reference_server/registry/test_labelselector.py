"""`labels.Parse` branch by branch (registry/labelselector.py). Every expectation below is what apimachinery
v0.33.0's `labels.Parse` and `Selector.Matches` answered for the same input (run with Go, patched only to build
with go1.19), over the label sets in `SETS`."""
from __future__ import annotations

import pytest

from conformance.reference_server.registry.labelselector import SelectorSyntaxError, parse

SETS = [{}, {"a": ""}, {"a": "x"}, {"a": "y"}, {"a": "5"}, {"a": "-3"}, {"b": ""}, {"a": "x", "b": "y"},
        {"in": "in"}]
URP = "unable to parse requirement: "


@pytest.mark.parametrize("selector, matched", [
    ("a in ()", ".1......."),  # `()` is the set {""}: present and empty
    ("a notin ()", "1.1111111"),
    ("a in (x,)", ".11....1."),  # a trailing, leading or doubled comma adds ""
    ("a in (,x)", ".11....1."),
    ("a in (x,,y)", ".111...1."),
    ("!a", "1.....1.1"),
    ("! a", "1.....1.1"),
    ("a=", ".1......."),
    ("a==", ".1......."),
    ("a!=", "1.1111111"),
    ("a", ".11111.1."),
    ("a=,b", "........."),
    ("a in (x),b", ".......1."),
    ("a=1,a=2", "........."),  # a key may repeat: every requirement holds
    ("a>4", "....1...."),  # gt / lt compare integers
    ("a<4", ".....1..."),
    ("in in (in)", "........1"),  # `in` where a key or a value is expected is an identifier
    ("notin notin (notin)", "111111111"),
    (" a = x ", "..1....1."),
    ("a=x\t", "..1....1."),
    ("a=x\x00,b", ".......1."),  # a NUL inside a word is skipped (Go's `read` returns 0 for it)...
    ("a=x \x00b", "..1....1."),  # ... and ends the selector where a token would start
    ("", "111111111"),
])
def test_matches_as_upstream(selector: str, matched: str) -> None:
    reqs = parse(selector)
    assert "".join("1" if all(r.matches(s) for r in reqs) else "." for s in SETS) == matched


LABEL_VALUE_RULE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                    "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                    "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


@pytest.mark.parametrize("selector, error", [
    ("a in (x,,)", URP + "found ')', expected: ',', or identifier"),  # 1.33 reads `,,` as one piece
    ("a in (,,)", URP + "found ')', expected: ',', or identifier"),
    ("a in (x y)", URP + "found 'y', expected: ',' or ')'"),
    ("a in (x=)", URP + "found '=', expected: ',' or ')'"),
    ("a in (=)", URP + "found '=', expected: ',', ')' or identifier"),
    ("a in (x,=)", URP + "found '=', expected: ',', or identifier"),
    ("a in (x", URP + "found '', expected: ',' or ')'"),
    ("a in", URP + "found '' expected: '('"),
    ("a in x", URP + "found 'x' expected: '('"),
    ("!a=b", "found '=', expected: ',' or 'end of string'"),
    ("!", URP + "found '', expected: identifier"),
    ("a in (x) b", "found 'b', expected: ',' or 'end of string'"),
    ("a=b,", "found '', expected: identifier after ','"),
    (",a", "found ',', expected: !, identifier, or 'end of string'"),
    ("a,,b", "found ',', expected: identifier after ','"),
    ("a>x", URP + "values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer"),
    ("a>", URP + "values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer"),
    ("a>-4", URP + 'values[0][a]: Invalid value: "-4": ' + LABEL_VALUE_RULE),
    ("a b", URP + "found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("a!b", URP + "found '!', expected: in, notin, =, ==, !=, gt, lt"),
    ("a=b=c", "found '=', expected: ',' or 'end of string'"),
    ("a=!", URP + "found '!', expected: identifier"),
    ("a=)", URP + "found ')', expected: identifier"),
    ("a=(b)", URP + "found '(', expected: identifier"),
    ("a===", URP + "found '=', expected: identifier"),
    ("a in (zz$,b)", URP + 'values[1][a]: Invalid value: "zz$": ' + LABEL_VALUE_RULE),
])
def test_refusals_as_upstream(selector: str, error: str) -> None:
    with pytest.raises(SelectorSyntaxError) as e:
        parse(selector)
    assert str(e.value) == error


def test_key_length_counts_bytes() -> None:
    """`IsQualifiedName` measures Go's `len`, the UTF-8 bytes: 40 `é` are 80 bytes, over 63."""
    with pytest.raises(SelectorSyntaxError) as e:
        parse("é" * 40)
    assert str(e.value).startswith(URP + f'<nil>: Invalid value: "{"é" * 40}": name part must be no more than 63 '
                                         "characters; name part must consist of")
