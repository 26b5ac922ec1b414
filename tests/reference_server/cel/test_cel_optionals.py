"""cel-go's optional syntax over cel-rust (reference_server/cel/optionals.py): `.?`, `[?`, optional list elements
and map entries, chains after an optional qualifier (`attributes.go` applyQualifiers), and their types at compile
time."""
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
