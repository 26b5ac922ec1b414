"""The CEL engine (reference_server/cel/): cel-go-shaped compile errors, undeclared names, the Kubernetes library
functions, evaluation errors in cel-go's words, and the lazy load (the server's import does not load it)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conformance.reference_server.cel import CompileError, EvalError, compile_detail, compile_expression
from conformance.reference_server.cel.budget import Budget
from conformance.reference_server.cel.environments import declared


def test_syntax_error_in_cel_go_layout() -> None:
    detail = compile_detail("object.x ==", declared())
    assert detail is not None and detail.startswith("compilation failed: ERROR: <input>:1:12: Syntax error: ")
    assert detail.endswith("\n | object.x ==\n | ...........^")


@pytest.mark.parametrize("expression, names, name, caret", [
    ("params.x == 1", declared(), "params", " | ^"),
    ("object.a == variables.b", declared(params=True), "variables", " | ............^"),
    ("authorizer.group('') != null", declared(authorizer=False), "authorizer", " | ^"),
])
def test_undeclared_reference(expression: str, names: frozenset[str], name: str, caret: str) -> None:
    with pytest.raises(CompileError) as exc:
        compile_expression(expression, names)
    assert str(exc.value).startswith(f"ERROR: <input>:1:{caret.count('.') + 1}: undeclared reference to '{name}' "
                                     "(in container '')")
    assert str(exc.value).endswith(caret)


def test_macro_variables_and_declared_names_compile() -> None:
    names = declared(params=True, variables=True)
    for expression in ("object.data.all(k, k.startsWith('a'))", "[1, 2].exists(x, x == params.n)",
                       "has(object.metadata.labels) && variables.v", "request.operation == 'CREATE'",
                       "namespaceObject.metadata.name != '' && oldObject == null"):
        assert compile_detail(expression, names) is None, expression


@pytest.mark.parametrize("expression, value", [
    ("[1, 2, 3].isSorted() && ![2, 1].isSorted()", True),
    ("[1, 2, 3].sum()", 6),
    ("[3, 1, 2].min() + [3, 1, 2].max()", 4),
    ("[1, 2, 1].indexOf(1) * 10 + [1, 2, 1].lastIndexOf(1)", 2),
    ("'abcb'.indexOf('b') * 10 + 'abcb'.lastIndexOf('b')", 13),
    ("'abc 123 def 456'.find('[0-9]+')", "123"),
    ("'abc 123 def 456'.findAll('[0-9]+')", ["123", "456"]),
    ("'abab'.find('(ab)+')", "abab"),
    ("'aaaa'.find('(a+)+b')", ""),  # nested repetition: Go's linear time, no backtracking
    ("'ab'.find('a|ab') + '-' + 'baaacaa'.findAll('a*').join(',')", "a-,aaa,aa"),  # leftmost-first; Go's empty matches
    ("'a\\n'.matches('^a$') || !'a'.matches('^a$')", False),  # Go's `$` is the end of the text
    ("'a.b'.matches('^\\\\Qa.b\\\\E$') && !'axb'.matches('^\\\\Qa.b\\\\E$')", True),  # Go-only \\Q...\\E
    ("matches('\u0663', '^\\\\d$') || 'x1'.matches('^\\\\pL\\\\d$') == false", False),  # Go's ASCII \\d; \\pL
    ("'a,b,c'.split(',').join('-')", "a-b-c"),
    ("' Ab '.trim().lowerAscii() + 'x'.upperAscii()", "abX"),
    ("'hello'.substring(1, 3) + 'hello'.charAt(4) + 'aaa'.replace('a', 'b', 2)", "elobba"),
])
def test_library_functions(expression: str, value: object) -> None:
    assert compile_expression(expression, declared()).evaluate({}) == value


@pytest.mark.parametrize("expression, message", [
    ("object.missing == 1", "no such key: missing"),
    ("1 / 0 == 1", "division by zero"),
    ("[1].min() == [].min()", "min called on empty list"),
    ("'abc'.find(object.p) == ''", "Illegal regular expression: error parsing regexp: missing closing ]: `[`"),
    ("'abc'.matches(object.p)", "error parsing regexp: missing closing ]: `[`"),
])
def test_evaluation_errors(expression: str, message: str) -> None:
    with pytest.raises(EvalError) as exc:
        compile_expression(expression, declared()).evaluate({"object": {"p": "["}})
    assert message in str(exc.value)


def test_server_import_does_not_load_the_engine() -> None:
    code = ("import sys, conformance.reference_server.server; "
            "print(any(m == 'cel' or m.startswith('cel.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_limits_keep_the_process_alive() -> None:
    """cel-rust recurses on the AST and holds the GIL: oversized or deep expressions are refused before parsing,
    and a comprehension whose tracked cost passes kube-apiserver's per-call limit is cancelled (cel/budget.py)."""
    assert "expression code point size exceeds limit: size: 100001, limit 100000" in (
        compile_detail("'" + "x" * 99_999 + "'", declared()) or "")
    # a chain deeper than cel-go's parser recursion limit: its words; a flat one cel-go reads but cel-rust could
    # not: this server's operator limit
    assert compile_detail("object" + ".a" * 20_000, declared()) == \
        "compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded"
    flat = "[" + ", ".join(["object.a.b"] * 1_100) + "]"
    assert "operators, more than this server's limit" in (compile_detail(flat, declared()) or "")
    nested = compile_expression("object.x.all(a, object.x.all(b, object.x.all(c, a + b + c >= 0)))", declared())
    with pytest.raises(EvalError, match="operation cancelled: actual cost limit exceeded"):
        Budget().evaluate(nested, {"object": {"x": list(range(200))}}, None)
    assert Budget().evaluate(nested, {"object": {"x": list(range(10))}}, None) is True
