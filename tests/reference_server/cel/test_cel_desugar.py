"""What reference_server/cel/desugar.py rewrites for cel-rust: cel-go's optional syntax (`.?`, `[?`, optional list
elements and map entries, chains after an optional qualifier as `attributes.go` applyQualifiers, their types at
compile time) and the two-variable comprehensions of `ext/comprehensions.go`."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.cel import EvalError, compile_detail, compile_expression
from conformance.reference_server.cel.environments import declared

OBJECT = {"object": {"spec": {"a": 1, "l": [1, 2]}, "metadata": {"labels": {"x": "y"}}}}


@pytest.mark.parametrize("expression, value", [
    ("object.?spec.a.orValue(5)", 1),
    ("object.?spec.b.orValue(5)", 5),
    ("object.?nope.a.orValue(7)", 7),  # a qualifier after an optional one is optional too
    ("object.spec.?a.hasValue() && !object.spec.?b.hasValue()", True),
    ("object.metadata.labels[?'x'].orValue('none') + object.metadata.labels[?'z'].orValue('none')", "ynone"),
    ("object.spec.l[?5].orValue(0) + object.spec.l[?1].value()", 2),
    ("object.?spec.?l[?0].orValue(9)", 1),
    ("[1, ?object.?spec.zz, ?optional.of(3)]", [1, 3]),
    ("{'a': 1, ?'b': object.?spec.a, ?'c': optional.none()}", {"a": 1, "b": 1}),
    ("object.?spec.a.or(optional.of(2)).value() == 1 && optional.none().or(optional.of(2)).value() == 2", True),
    ("(object.?spec.a.orValue(0) + 1) * 2 == 4 ? 'yes' : 'no'", "yes"),
    ("has(object.?spec.a) && !has(object.?spec.b) && !has(object.?nope.a) && has(object.?metadata.?labels.x)", True),
])
def test_optional_syntax(expression: str, value: Any) -> None:
    assert compile_expression(expression, declared()).evaluate(OBJECT) == value


def test_optional_errors_and_types() -> None:
    with pytest.raises(EvalError, match="optional"):
        compile_expression("[?1]", declared()).evaluate({})
    assert compile_detail("object.?spec.a.orValue(5) == 1", declared(), ("bool",)) is None
    assert compile_detail("object.?spec.a", declared(), ("bool",)) == \
        "must evaluate to bool but got optional_type(dyn)"
    assert compile_detail("object.?spec.", declared()) is not None  # still a syntax error


TWO = {"object": {"data": {"a": "1", "b": "22"}, "l": [10, 20, 30]}}


@pytest.mark.parametrize("expression, value", [
    ("object.data.all(k, v, size(v) == size(k) || k == 'b')", True),
    ("object.l.exists(i, v, i == 1 && v == 20) && !object.l.exists(i, v, i == v)", True),
    ("object.l.existsOne(i, v, v > 15 && i < 2) && object.l.exists_one(i, v, v == 30)", True),
    ("object.l.transformList(i, v, v + i)", [10, 21, 32]),
    ("object.l.transformList(i, v, i > 0, v * 2)", [40, 60]),
    ("object.data.transformMap(k, v, k + v)", {"a": "a1", "b": "b22"}),
    ("object.data.transformMap(k, v, k != 'a', size(v))", {"b": 2}),
    ("object.l.transformMapEntry(i, v, {string(i): v})", {"0": 10, "1": 20, "2": 30}),
    ("object.data.all(k, v, object.l.all(v, v > 0))", True),  # an inner macro's variable shadows `v`
    ("object.l.all(i, v, object.data.exists(k, v, v == '1'))", True),
])
def test_two_variable_comprehensions(expression: str, value: Any) -> None:
    assert compile_expression(expression, declared()).evaluate(TWO) == value


def test_transform_map_entry_refuses_a_repeated_key() -> None:
    with pytest.raises(EvalError, match="insert failed: key x already exists"):
        compile_expression("object.l.transformMapEntry(i, v, {'x': v})", declared()).evaluate(TWO)
    assert compile_detail("object.data.all(k, v, v.size() > 0)", declared(), ("bool",)) is None


def test_a_long_rewritten_expression_stays_within_cel_rusts_parser_limits() -> None:
    """The rewrite keeps the operators' own text (no parentheses added per level, which cel-rust's parser, limited
    to 96 levels, would refuse: `Recursion limit of 96 exceeded` about a text the user never wrote)."""
    expression = " && ".join(f"object.?spec.a{i}.orValue(1) == 1 && type(object.spec) == map" for i in range(60))
    assert compile_detail(expression, declared(), ("bool",)) is None
    assert compile_expression(expression, declared()).evaluate(OBJECT) is True
