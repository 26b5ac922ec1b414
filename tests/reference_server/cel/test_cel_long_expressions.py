"""Long expressions and cel-rust panics: cel-go's generated parser (slow in Python) is spared where this
server's parser reads an expression, a very long one that does not parse is refused at once, and a panic in
cel-rust is a refusal or an evaluation error, never an escape."""
from __future__ import annotations

import pytest

from conformance.reference_server.cel import engine, syntax


def _list(n: int, tail: str = "") -> str:
    return "[" + ",".join(str(i) for i in range(n)) + tail + "]"


def test_a_long_expression_this_parser_reads_skips_cel_gos(monkeypatch):
    expression = _list(1_000)
    assert len(expression) > engine.SYNTAX_ALWAYS

    def slow(*_a, **_k):
        raise AssertionError("cel-go's parser was asked")

    monkeypatch.setattr(syntax, "parse", slow)
    assert engine.compile_expression(expression, []) is not None


def test_a_short_expression_is_judged_by_cel_go():
    with pytest.raises(engine.CompileError) as err:
        engine.compile_expression("[1,,2]", [])
    assert str(err.value).startswith("ERROR: <input>:1:4: Syntax error: mismatched input ',' expecting ']'")


def test_a_mid_length_broken_expression_gets_cel_gos_words():
    expression = _list(600, ",,")
    assert engine.SYNTAX_ALWAYS < len(expression) <= engine.SYNTAX_AT_MOST
    with pytest.raises(engine.CompileError) as err:
        engine.compile_expression(expression, [])
    assert "Syntax error: extraneous input ','" in str(err.value)


def test_a_very_long_broken_expression_is_refused_in_this_servers_words(monkeypatch):
    """cel-rust panics formatting this one's error (pyo3's PanicException, a BaseException)."""
    expression = _list(15_000, ",,")
    assert len(expression) > engine.SYNTAX_AT_MOST
    monkeypatch.setattr(syntax, "parse", lambda *_a, **_k: pytest.fail("cel-go's parser was asked"))
    with pytest.raises(engine.CompileError) as err:
        engine.compile_expression(expression, [])
    assert str(err.value) == f"ERROR: <input>:-1:0: Syntax error: unexpected ',' at {len(expression) - 2}"


def test_a_panic_in_cel_rust_is_a_refusal(monkeypatch):
    PanicException = type("PanicException", (BaseException,), {})

    class Native:
        def compile(self, source: str):
            raise PanicException("Formatting argument out of range")

    monkeypatch.setattr(engine, "native", lambda: Native())
    with pytest.raises(ValueError, match="could not be compiled"):
        engine._native_compile("1 + 1")


def test_a_panic_while_evaluating_is_an_evaluation_error():
    PanicException = type("PanicException", (BaseException,), {})
    program = engine.compile_expression("1 + 1", [])

    class Panicking:
        def execute(self, activation):
            raise PanicException("index out of bounds")

    program._program = Panicking()
    with pytest.raises(engine.EvalError, match="internal error"):
        program.evaluate({})
