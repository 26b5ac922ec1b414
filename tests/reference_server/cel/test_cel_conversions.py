"""cel-go's conversions with Go's parsing (cel/libs/conversions.py, the rewrite in cel/desugar.py) and its
evaluation errors' words (cel/engine.py `error_text`).

The tables' expectations are Go's own: cel-go v0.23.2 `common/types/string_test.go` `TestStringConvertToType`
(its rows first), then the standard library's answers (`strconv.ParseInt/ParseUint/ParseFloat/ParseBool`,
`time.ParseDuration`, `time.Parse(time.RFC3339, ...)`, `fmt.Sprintf("%g")`, `Time.Format(time.RFC3339Nano)`)
as printed by a Go program; the time-zone offset bounds (24 hours, 60 minutes) are Go 1.20+'s `parse` (the
Go that kube-apiserver 1.33 is built with)."""
from __future__ import annotations

import datetime
import math

import pytest

from conformance.reference_server.cel import EvalError, compile_expression
from conformance.reference_server.cel.desugar import desugar
from conformance.reference_server.cel.libs import conversions as conv
from conformance.reference_server.cel.libs.values import LibraryError

UTC = datetime.timezone.utc


def _or_error(fn, value):
    try:
        return fn(value)
    except LibraryError as exc:
        return ("error", str(exc))


INT_ERR = ("error", "type conversion error from 'string' to 'int'")
UINT_ERR = ("error", "type conversion error from 'string' to 'uint'")
DOUBLE_ERR = ("error", "type conversion error from 'string' to 'double'")
BOOL_ERR = ("error", "type conversion error from 'string' to 'bool'")
DURATION_ERR = ("error", "type conversion error from 'string' to 'google.protobuf.Duration'")
TIMESTAMP_ERR = ("error", "type conversion error from 'string' to 'google.protobuf.Timestamp'")


@pytest.mark.parametrize("text, want", [
    ("-1", -1), ("1", 1), ("+1", 1), ("-0", 0), ("+0", 0), ("01", 1), ("9223372036854775807", 9223372036854775807),
    ("-9223372036854775808", -9223372036854775808), ("9223372036854775808", INT_ERR),
    ("-9223372036854775809", INT_ERR), ("0x10", INT_ERR), ("1_000", INT_ERR), (" 1", INT_ERR), ("1.0", INT_ERR),
    ("", INT_ERR), ("1e3", INT_ERR), ("+", INT_ERR), ("-", INT_ERR), ("٣", INT_ERR), ("0b1", INT_ERR),
])
def test_int_of_string_is_strconv_parse_int(text: str, want) -> None:
    assert _or_error(conv.go_int, text) == want


@pytest.mark.parametrize("text, want", [
    ("1", "1"), ("01", "1"), ("18446744073709551615", "18446744073709551615"), ("18446744073709551616", UINT_ERR),
    ("+1", UINT_ERR), ("+0", UINT_ERR), ("-0", UINT_ERR), ("-1", UINT_ERR), ("0x10", UINT_ERR), ("1_000", UINT_ERR),
    ("", UINT_ERR),
])
def test_uint_of_string_is_strconv_parse_uint(text: str, want) -> None:
    assert _or_error(conv.go_uint, text) == want


@pytest.mark.parametrize("text, want", [
    ("2.5", 2.5), ("1", 1.0), ("+1", 1.0), ("1e3", 1000.0), ("1E3", 1000.0), (".5", 0.5), ("5.", 5.0),
    ("1.e2", 100.0), ("00012", 12.0), ("-0", -0.0), ("inf", math.inf), ("+Inf", math.inf),
    ("-infinity", -math.inf), ("Infinity", math.inf), ("0x1p-2", 0.25), ("0x1.8p1", 3.0), ("0X_1p0", 1.0),
    ("1_000.5", 1000.5), ("1e1_0", 1e10), ("1e-400", 0.0), ("2e-324", 0.0), ("4e-324", 5e-324),
    ("1.7976931348623157e308", 1.7976931348623157e308),
    ("1.7976931348623159e308", DOUBLE_ERR), ("1e400", DOUBLE_ERR), ("-1e400", DOUBLE_ERR), ("+nan", DOUBLE_ERR),
    ("-NaN", DOUBLE_ERR), ("infinit", DOUBLE_ERR), ("infinityy", DOUBLE_ERR), ("0x10", DOUBLE_ERR),
    ("0x1", DOUBLE_ERR), ("0x", DOUBLE_ERR), ("0x.p1", DOUBLE_ERR), ("1__0", DOUBLE_ERR), ("_1", DOUBLE_ERR),
    ("1_", DOUBLE_ERR), ("1_e2", DOUBLE_ERR), (".", DOUBLE_ERR), ("", DOUBLE_ERR), (" 1", DOUBLE_ERR),
    ("1 ", DOUBLE_ERR), ("e5", DOUBLE_ERR), ("1e", DOUBLE_ERR), ("1e+", DOUBLE_ERR), ("0b1", DOUBLE_ERR),
    ("0o7", DOUBLE_ERR), ("١", DOUBLE_ERR),
])
def test_double_of_string_is_strconv_parse_float(text: str, want) -> None:
    got = _or_error(conv.go_double, text)
    assert got == want and (not isinstance(want, float) or math.copysign(1, got) == math.copysign(1, want))


def test_double_of_nan_strings() -> None:
    assert math.isnan(conv.go_double("NaN")) and math.isnan(conv.go_double("nan"))


@pytest.mark.parametrize("text, want", [
    ("false", False), ("true", True), ("True", True), ("TRUE", True), ("t", True), ("T", True), ("1", True),
    ("0", False), ("f", False), ("F", False), ("FALSE", False), ("False", False),
    ("yes", BOOL_ERR), ("tRue", BOOL_ERR), ("", BOOL_ERR), (" true", BOOL_ERR),
])
def test_bool_of_string_is_strconv_parse_bool(text: str, want) -> None:
    assert _or_error(conv.go_bool, text) == want


@pytest.mark.parametrize("text, want", [
    ("1h5s", "3605s0ns"), ("1µs", "0s1000ns"), ("1μs", "0s1000ns"), ("+0", "0s0ns"), ("-1.5h", "-5400s0ns"),
    ("9223372036854775807ns", "9223372036s854775807ns"), ("-9223372036854775808ns", "-9223372036s854775808ns"),
    ("33hmhh9", DURATION_ERR), ("1", DURATION_ERR),
    ("1d", DURATION_ERR), ("", DURATION_ERR), ("2562047h47m16.854775808s", DURATION_ERR),
])
def test_duration_of_string_is_time_parse_duration(text: str, want) -> None:
    assert _or_error(conv.go_duration, text) == want


@pytest.mark.parametrize("text, want", [
    ("2017-01-01T00:00:00Z", (1483228800, 0, 0)),
    ("2006-01-02T15:04:05.999999999Z", (1136214245, 999999999, 0)),
    ("2006-01-02T15:04:05.1234567891Z", (1136214245, 123456789, 0)),
    ("2006-01-02T15:04:05+01:00", (1136210645, 0, 3600)), ("2006-01-02T15:04:05-07:30", (1136241245, 0, -27000)),
    ("2006-01-02T15:04:05,5Z", (1136214245, 500000000, 0)), ("2006-01-02T1:04:05Z", (1136163845, 0, 0)),
    ("2006-01-02T15:04:05+23:59", (1136127905, 0, 86340)), ("2006-01-02T15:04:05-00:00", (1136214245, 0, 0)),
    ("0000-01-01T00:00:00Z", (-62167219200, 0, 0)), ("2004-02-29T00:00:00Z", (1078012800, 0, 0)),
    ("2000-02-29T00:00:00Z", (951782400, 0, 0)), ("9999-12-31T23:59:59-01:00", (253402304399, 0, -3600)),
    # Go 1.20+: offsets up to 24 hours and 60 minutes are read
    ("2006-01-02T15:04:05+24:00", (1136127845, 0, 86400)), ("2006-01-02T15:04:05+01:60", (1136207045, 0, 7200)),
    ("2006-01-02T15:04:05+25:00", None), ("2006-01-02T15:04:05+01:61", None),
    ("2006-01-02t15:04:05z", None), ("2006-01-02T15:04:05z", None), ("2006-01-02 15:04:05Z", None),
    ("2006-01-02T15:04:05", None), ("2006-01-02T15:04:05.Z", None), ("2006-1-02T15:04:05Z", None),
    ("2006-01-2T15:04:05Z", None), ("2006-01-02T15:4:05Z", None), ("2006-02-30T15:04:05Z", None),
    ("2100-02-29T00:00:00Z", None), ("2006-13-02T15:04:05Z", None), ("2006-01-00T15:04:05Z", None),
    ("2006-01-02T24:00:00Z", None), ("2006-01-02T15:60:00Z", None), ("2006-01-02T15:04:60Z", None),
    ("2006-01-02T15:04:05+0100", None), ("2006-01-02T15:04:05Zjunk", None), ("+2006-01-02T15:04:05Z", None),
    ("١٢٣٤-01-02T15:04:05Z", None), ("x", None),
])
def test_timestamp_of_string_is_time_parse_rfc3339(text: str, want) -> None:
    assert conv.parse_rfc3339(text) == want


@pytest.mark.parametrize("text, want", [
    ("2006-01-02T15:04:05.5+01:00", "2006-01-02T15:04:05.500000000+01:00"),
    ("2006-01-02T1:04:05Z", "2006-01-02T01:04:05Z"), ("2006-01-02T15:04:05+24:00", "2006-01-01T15:04:05Z"),
    ("0000-12-31T23:30:00-01:00", "0001-01-01T00:30:00Z"),
    ("0000-01-01T00:00:00Z", ("error", "timestamp overflow")),
    ("0001-01-01T00:00:00+01:00", ("error", "timestamp overflow")),
    ("10000-01-01T00:00:00Z", TIMESTAMP_ERR),
])
def test_timestamp_is_handed_to_cel_rust_in_a_form_it_reads_exactly(text: str, want) -> None:
    assert _or_error(conv.go_timestamp, text) == want


@pytest.mark.parametrize("value, want", [
    (1.0, "1"), (1.5, "1.5"), (1e21, "1e+21"), (1e20, "1e+20"), (123456789.0, "1.23456789e+08"), (1e6, "1e+06"),
    (999999.0, "999999"), (0.0001, "0.0001"), (1e-05, "1e-05"), (-0.0, "-0"), (math.inf, "+Inf"),
    (-math.inf, "-Inf"), (math.nan, "NaN"), (1234567.125, "1.234567125e+06"), (True, "true"), (7, "7"),
    (b"hello", "hello"), (b"\xff", ("error", "invalid UTF-8 in bytes, cannot convert to string")),
    (datetime.timedelta(hours=1, seconds=1.5), "3601.5s"), (datetime.timedelta(microseconds=-1), "-0.000001s"),
    (datetime.timedelta(0), "0s"),
    (datetime.datetime(2006, 1, 2, 15, 4, 5, 500000, tzinfo=datetime.timezone(datetime.timedelta(hours=1))),
     "2006-01-02T15:04:05.5+01:00"),
    (datetime.datetime(2006, 1, 2, 15, 4, 5, tzinfo=UTC), "2006-01-02T15:04:05Z"),
    ([1], ("error", "no such overload: string(list)")),
])
def test_string_prints_as_go(value, want) -> None:
    assert _or_error(conv.go_string, value) == want


# ---- through the engine: each of these read or failed otherwise with cel-rust's own conversions ------------
def run(expression: str, **activation):
    try:
        return compile_expression(expression, activation).evaluate(activation)
    except EvalError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("expression, s, want", [
    ("duration(s) == duration('1us')", "1µs", True),
    ("duration(s) == duration('0s')", "+0", True),
    ("duration(s) == duration('1ns')", "1ns", True),  # nanoseconds kept
    ("duration(s)", "33hmhh9", DURATION_ERR),
    ("timestamp(s) == timestamp('2006-01-02T01:04:05Z')", "2006-01-02T1:04:05Z", True),
    ("timestamp(s)", "2006-01-02t15:04:05z", TIMESTAMP_ERR),
    ("timestamp(s)", "0000-01-01T00:00:00Z", ("error", "timestamp overflow")),
    ("string(timestamp(s))", "2006-01-02T15:04:05.5+01:00", "2006-01-02T15:04:05.5+01:00"),
    ("string(duration(s))", "1h1.5s", "3601.5s"),
    ("uint(s)", "+1", UINT_ERR),
    ("int(s)", "0x10", INT_ERR),
    ("double(s)", "1e400", DOUBLE_ERR),
    ("double(s) == 1000.5", "1_000.5", True),
    ("bool(s)", "T", True),
    ("string(double(s))", "1e21", "1e+21"),
])
def test_conversions_of_values_read_as_cel_go(expression: str, s: str, want) -> None:
    assert run(expression, s=s) == want


@pytest.mark.parametrize("expression, want", [
    ("duration('1µs') == duration('1000ns')", True),
    ("timestamp('2006-01-02T15:04:05,5+24:00') == timestamp('2006-01-01T15:04:05.5Z')", True),
    ("string(1.5e10)", "1.5e+10"),
    ("int(3.7) == 3 && int(-3.7) == -3", True),
    ("int(1e19)", ("error", "integer overflow")),
    ("uint(-1)", ("error", "unsigned integer overflow")),
    ("uint(-0.5)", ("error", "unsigned integer overflow")),
    ("timestamp(12) == timestamp('1970-01-01T00:00:12Z')", True),
    ("timestamp(253402300800)", ("error", "timestamp overflow")),
    ("duration(5)", ("error", "type conversion error from 'int' to 'google.protobuf.Duration'")),
    # cel-rust reads a duration's numbers as float64s: past 2^53 ns a literal is handed over exactly
    ("duration('691763h871ms') - duration('691763h') == duration('871ms')", True),
    ("duration('-0.5104093h10m') == duration('-2437473480us')", True),
    ("int(timestamp('2006-01-02T15:04:05.5Z')) == 1136214245", True),  # cel-rust had no int(timestamp)
    ("int(duration('1.5s')) == 1500000000", True),  # nor int(duration)
])
def test_conversions_of_literals_read_as_cel_go(expression: str, want) -> None:
    assert run(expression) == want


def test_literals_of_the_target_type_and_plain_strings_are_left_to_cel_rust() -> None:
    """The rewrite costs a Python call: none where cel-rust's answer is cel-go's."""
    for expression in ("int(1) + uint(1u) > 0u", "double(1.5) > 0.0", "duration('1h') > duration('5m')",
                       "timestamp('2006-01-02T15:04:05Z') < timestamp('2007-01-02T15:04:05.5+01:00')",
                       "string('a') + string(1)"):
        assert desugar(expression) is None, expression
    exact = ("(type(__ea) == type(duration('0s')) ? string(__ea.getSeconds()) + ' ' + string(__ea - "
             "duration(string(__ea.getSeconds()) + 's')) : type(__ea) == type(timestamp('1970-01-01T00:00:00Z')) ? "
             "string(__ea) : '')")  # a duration's or timestamp's exact text (libs/arith.py)
    assert desugar("int(x) > 0") == f"int([x].map(__ea, __go_int(__ea, {exact}))[0]) > 0"
    assert desugar("string(x)") == f"[x].map(__ea, __go_string(__ea, {exact}))[0]"
    assert desugar("double(x)") == "double(__go_double(x))"


@pytest.mark.parametrize("expression, want", [
    ("n % z", "modulus by zero"), ("n / z", "division by zero"),
    ("big + 1", "integer overflow"), ("-big - 2", "integer overflow"), ("big * 2", "integer overflow"),
    ("(-big - 1) / -1", "integer overflow"), ("(-big - 1) % -1", "integer overflow"),
    ("18446744073709551615u + 1u", "unsigned integer overflow"), ("3u - 5u", "unsigned integer overflow"),
    ("timestamp('9999-12-31T23:59:59Z') + duration('1s')", "timestamp overflow"),
    ("timestamp('0001-01-01T00:00:00Z') - duration('1s')", "timestamp overflow"),
    ("'a' + n", "no such overload"), ("m['x']", "no such key: x"), ("l[5]", "index out of bounds: 5"),
])
def test_evaluation_errors_in_cel_gos_words(expression: str, want: str) -> None:
    got = run(expression, n=7, z=0, big=9223372036854775807, m={"a": 1}, l=[1, 2])
    assert got == ("error", want)


@pytest.mark.parametrize("expression, message", [  # cel-go v0.23.2: the dispatch over a conversion's overloads
    ("int(dyn([]))", "no such overload: int(list)"),
    ("int(dyn(true))", "no such overload: int(bool)"),
    ("uint(dyn({}))", "no such overload: uint(map)"),
    ("double(dyn(duration('1s')))", "no such overload: double(google.protobuf.Duration)"),
    ("duration(dyn(1.5))", "no such overload: duration(double)"),
    ("timestamp(dyn([]))", "no such overload: timestamp(list)"),
    ("bool(dyn(1))", "no such overload: bool(int)"),
    ("string(dyn([]))", "no such overload: string(list)"),
    ("string(quantity('1'))", "no such overload: string(kubernetes.Quantity)"),
    ("int(quantity('1'))", "no such overload: int(kubernetes.Quantity)"),
    ("bytes(dyn(1))", "no such overload: bytes(int)"),
])
def test_a_conversion_no_overload_takes(expression: str, message: str) -> None:
    with pytest.raises(EvalError) as exc:
        compile_expression(expression, ()).evaluate({})
    assert str(exc.value) == message
