"""`<string>.format(<list>)` (reference_server/cel/libs/strformat.py): the rows of cel-go v0.23's
`ext/strings_test.go` for the default locale, and its error texts."""
from __future__ import annotations

import pytest

from conformance.reference_server.cel import EvalError, compile_detail, compile_expression
from conformance.reference_server.cel.environments import declared


@pytest.mark.parametrize("expression, output", [
    ("'%o'.format([11]) + ' ' + '%o'.format([-11]) + ' ' + '%o'.format([uint(65535)])", "13 -13 177777"),
    ("'%x is 30 in hexadecimal'.format([30])", "1e is 30 in hexadecimal"),
    ("'%X'.format([30]) + '%x'.format([-30]) + '%X'.format([uint(6000)])", "1E-1e1770"),
    ("'%x'.format(['Hello world!'])", "48656c6c6f20776f726c6421"),
    ("'%X'.format([b'byte string'])", "6279746520737472696E67"),
    ("'%.6e'.format([1052.032911275])", "1.052033\u202f\u00d7\u202f10\u2070\u00b3"),
    ("'%e'.format([2.71828])", "2.718280\u202f\u00d7\u202f10\u2070\u2070"),
    ("'%f'.format([2.71828])", "2.718280"),
    ("'%s'.format([2.71]) + ' ' + '%s'.format([[2.71]])", "2.71 [2.710000]"),
    ("'%s'.format([0.000000002]) + ' ' + '%s'.format([[0.000000002]])", "2e-09 [0.000000]"),
    ("'%f %f %f'.format(['NaN', 'Infinity', '-Infinity'])", "NaN ∞ -∞"),
    ("'%s'.format([[double('NaN'), double('+Inf'), double('-Inf')]])", '["NaN", "+Inf", "-Inf"]'),
    ("'%d'.format([uint(64)]) + ' null: %s'.format([null]) + ' %s'.format([999999999999])",
     "64 null: null 999999999999"),
    ("'some bytes: %s'.format([b'xyz'])", "some bytes: xyz"),
    ("'%s'.format([timestamp('2023-02-03T23:31:20+00:00')])", "2023-02-03T23:31:20Z"),
    ("'%s'.format([duration('1h45m47s')])", "6347s"),
    ("'%s'.format([['abc', 3.14, null, [9, 8, 7, 6], timestamp('2023-02-03T23:31:20Z')]])",
     '["abc", 3.140000, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]'),
    ("'%s'.format([{'key1': b'xyz', 'key5': null, 'key2': duration('2h'), 'key4': true, 'key3': 2.71828}])",
     '{"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null}'),
    ("'true bool: %s, false bool: %s'.format([true, false])", "true bool: true, false bool: false"),
    ("'%.3f'.format([4.5]) + ' ' + '%.2f'.format([1234.5])", "4.500 1,234.50"),
    ("'%b %b %%'.format([true, 5])", "1 101 %"),
    ("strings.quote('%s %s').format(['hello', 'world'])", '"hello world"'),
    (r"""strings.quote('a\\b\n"c"\t')""", r'"a\\b\n\"c\"\t"'),
])
def test_format_clauses(expression: str, output: str) -> None:
    assert compile_expression(expression, declared()).evaluate({}) == output


@pytest.mark.parametrize("expression, message", [
    ("'%d'.format([1.5])", "error during formatting: decimal clause can only be used on integers, was given double"),
    ("'%s %s'.format([1])", "index 1 out of range"),
    ("'%z'.format([1])", 'could not parse formatting clause: unrecognized formatting clause "z"'),
    ("'%'.format([1])", "unexpected end of string"),
    ("'%x'.format([1.5])", ("error during formatting: only integers, byte buffers, and strings can be formatted as "
                            "hex, was given double")),
])
def test_format_errors(expression: str, message: str) -> None:
    with pytest.raises(EvalError) as exc:
        compile_expression(expression, declared()).evaluate({})
    assert str(exc.value) == message


@pytest.mark.parametrize("expression, issue", [  # cel-go's stringFormatValidator, at its positions
    ("'%d'.format(['a']) == ''", ("1:14: error during formatting: decimal clause can only be used on integers, "
                                  "was given string")),
    ("'%s'.format(['a', 1]) == ''", "1:12: too many arguments supplied to string.format (expected 1, got 2)"),
    ("'%s %s'.format(['a']) == ''", "1:15: index 1 out of range"),
    ("'%z'.format([1]) == ''", '1:12: could not parse formatting clause: unrecognized formatting clause "z"'),
    ("'%d'.format([1 + 'a']) == ''", "1:16: found no matching overload for '_+_' applied to '(int, string)'\n"),
])
def test_literal_format_strings_are_checked(expression: str, issue: str) -> None:
    detail = compile_detail(expression, declared())
    assert detail is not None and detail.startswith(f"compilation failed: ERROR: <input>:{issue}")
    assert detail.count("ERROR:") == 1


def test_format_arguments_of_unknown_type_pass() -> None:
    assert compile_detail("'%d %s'.format([object.x, [1, 'a']]) != ''", declared(), ("bool",)) is None


@pytest.mark.parametrize("expression, output", [
    ("'%s'.format([duration('1ns')])", "0.000000001s"),
    ("'%s, %s'.format([duration('1h') + duration('1ns'), timestamp('2024-01-01T00:00:00.000000001Z')])",
     "3600.000000001s, 2024-01-01T00:00:00.000000001Z"),
    ("'%s'.format([duration('1h45m47s')]) + ' ' + '%s'.format([7])", "6347s 7"),
])
def test_durations_and_timestamps_print_their_nanoseconds(expression: str, output: str) -> None:
    """cel-go prints a duration or timestamp argument by `string()` of it (`ext/formatting.go` `FormatString`),
    nanoseconds and all: desugar.py hands them over with cel-rust's exact texts (`format_exact`)."""
    assert compile_expression(expression, []).evaluate({}) == output
