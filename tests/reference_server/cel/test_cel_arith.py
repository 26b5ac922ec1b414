"""cel-go's arithmetic where cel-rust's differs (cel/libs/arith.py, the rewrites in cel/desugar.py, the engine's
second run in cel/engine.py): nanoseconds kept through the conversions, overflow checks of int negation and of
durations, `duration + timestamp` and `-duration`, uint products, lists indexed by doubles, fields of scalars.

The rows are cel-go v0.23.2's own where it has them (`common/types/duration_test.go` `TestDurationOperators`,
`timestamp_test.go` `TestTimestampOperators`, `int_test.go` `TestIntNegate`, `uint_test.go` `TestUintMultiply`,
`interpreter/interpreter_test.go` `index_list_int_*_type_index`, `invalid_presence_test_on_*`), else read from
its sources (`overflow.go`, `list.go` `IndexOrError`, `interpreter/attributes.go` `refQualify`); and, end to
end, a CRD rule's message as a client reads it."""
from __future__ import annotations

import datetime
from typing import Any

import pytest
import requests

from conformance.reference_server.cel import EvalError, compile_expression
from conformance.reference_server.cel.desugar import EXACT, desugar
from conformance.reference_server.cel.libs import arith

from tests.reference_server.test_crd_rules import gadget, refused, served, spec_schema, srv  # noqa: F401  (the module's server)

MIN_INT, MAX_INT = -(1 << 63), (1 << 63) - 1


def run(expression: str, **activation: Any) -> Any:
    try:
        return compile_expression(expression, activation).evaluate(activation)
    except EvalError as exc:
        return ("error", str(exc))


def overflow(text: str = "integer overflow") -> tuple[str, str]:
    return ("error", text)


@pytest.mark.parametrize("expression, want", [
    ("string(duration('1.000000001s'))", "1.000000001s"),
    ("string(duration('-1.000000001s'))", "-1.000000001s"),
    ("string(duration('1ms1us1ns'))", "0.001001001s"),
    ("int(duration('1ns'))", 1),
    ("int(duration('-1.000000001s'))", -1000000001),
    ("int(duration('9223372036854775807ns'))", MAX_INT),
    ("string(timestamp('2020-01-01T00:00:00.123456789Z'))", "2020-01-01T00:00:00.123456789Z"),
    ("string(timestamp('2020-01-01T00:00:00.1234567+01:00'))", "2020-01-01T00:00:00.1234567+01:00"),
    ("string(duration(duration('1s1ns')))", "1.000000001s"),
    ("string(timestamp(timestamp('2020-01-01T00:00:00.000000001Z')))", "2020-01-01T00:00:00.000000001Z"),
    ("int(timestamp('1969-12-31T23:59:59.999999999Z'))", -1),  # `t.Unix()`: the second it falls in
])
def test_durations_and_timestamps_keep_nanoseconds_through_the_conversions(expression: str, want: Any) -> None:
    assert run(expression) == want


def test_a_variables_duration_keeps_its_nanoseconds() -> None:
    assert run("string(duration(s))", s="1s1ns") == "1.000000001s"
    for nanos in (7, -7, 5575806193180437216, -7048155917072976835, MAX_INT, MIN_INT + 1):  # cel-rust's string()
        assert run("int(duration(s + 'ns'))", s=str(nanos)) == nanos                    # rounds past 2^62 ns


@pytest.mark.parametrize("expression, want", [
    ("-(-9223372036854775807 - 1)", overflow()),  # TestIntNegate
    ("-x", overflow()),
    ("-(x + 1)", MAX_INT),
    ("--x", MIN_INT),  # cel-go's parser drops a pair of `-`
    ("[x].map(i, -i)", overflow()),
    ("-(1u)", ("error", "no such overload")),  # uint has no negation
])
def test_negating_the_least_int_overflows(expression: str, want: Any) -> None:
    assert run(expression, x=MIN_INT) == want


@pytest.mark.parametrize("expression, want", [
    # TestDurationOperators
    ("duration('9223372036854775807ns') + duration('1ns')", overflow()),
    ("duration('9223372036854775807ns') + duration('1s')", overflow()),
    ("duration('-9223372036854775807ns') + duration('-2ns')", overflow()),
    ("duration('9223372036854775807ns') - duration('-1ns')", overflow()),
    ("duration('2562047h') + duration('2562047h')", overflow()),
    ("string(duration('1.5s') - duration('3s1ns'))", "-1.500000001s"),
    # TestTimestampOperators
    ("timestamp(253402300799) - timestamp(-62135596800)", overflow()),  # DateMinusDateDurationOverflow
    ("timestamp(100) - timestamp(1) == duration('99s')", True),
    ("timestamp(3506) - duration('1h') == timestamp(-94)", True),
    ("timestamp(-62135596800) - duration('1s')", overflow("timestamp overflow")),
    ("string(timestamp('0001-01-01T00:00:00.000000002Z') - duration('-999999999ns'))",
     "0001-01-01T00:00:01.000000001Z"),  # MinTimestampSubMinusOneViaNanos
    ("string(timestamp('1970-01-01T00:00:02.000000001Z') - timestamp('1970-01-01T00:00:00.999999999Z'))",
     "1.000000002s"),  # TimeWithNanosPositive
    ("timestamp('9999-12-31T23:59:59.999999999Z') + duration('1ns')", overflow("timestamp overflow")),
    ("string(timestamp('2020-01-01T00:00:00Z') - duration('1ns'))", "2019-12-31T23:59:59.999999999Z"),
    ("string(timestamp('2020-01-01T00:00:00.5+01:30') + duration('1h'))", "2020-01-01T01:00:00.5+01:30"),
])
def test_durations_stop_at_int64_nanoseconds_and_timestamps_at_year_9999(expression: str, want: Any) -> None:
    assert run(expression) == want


@pytest.mark.parametrize("expression, want", [
    ("duration('1h') + timestamp('2020-01-01T00:00:00Z') == timestamp('2020-01-01T01:00:00Z')", True),
    ("string(duration('1ns') + timestamp('2020-01-01T00:00:00Z'))", "2020-01-01T00:00:00.000000001Z"),
    ("-dyn(duration('1s1ns')) == duration('-1s1ns')", True),  # `-_` declares int and double only: dyn
    ("string(-dyn(duration('1.5s')))", "-1.5s"),
    ("-dyn(duration('-9223372036854775807ns')) == duration('9223372036854775807ns')", True),
    ("timestamp(1) + timestamp(2)", ("error", "no such overload")),
    ("duration('1s') - timestamp(2)", ("error", "no such overload")),
])
def test_duration_plus_timestamp_and_negated_durations_are_computed(expression: str, want: Any) -> None:
    assert run(expression) == want


def test_durations_from_variables_add_exactly() -> None:
    assert run("string(duration(a) + duration(b))", a="1s1ns", b="1ns") == "1.000000002s"
    assert run("string(timestamp(t) - duration(a))", t="2020-01-01T00:00:00Z", a="1ns") == \
        "2019-12-31T23:59:59.999999999Z"


@pytest.mark.parametrize("expression, want", [
    ("9223372036854775807u * 3u", ("error", "unsigned integer overflow")),  # TestUintMultiply
    ("4294967296u * 4294967296u", ("error", "unsigned integer overflow")),
    ("9223372036854775807u * 2u == 18446744073709551614u", True),
    ("4294967296 * 4294967296", ("error", "integer overflow")),
])
def test_a_uint_product_overflows_in_uint_words(expression: str, want: Any) -> None:
    assert run(expression) == want


@pytest.mark.parametrize("expression, want", [
    ("[7, 8, 9][dyn(0.0)] == 7", True),  # index_list_int_double_type_index
    ("[7, 8, 9][dyn(0.1)] == 7", ("error", "unsupported index value 0.1 in list")),
    ("[7, 8, 9][dyn(5.0)]", ("error", "index out of bounds: 5")),
    ("l[d]", 8),
    ("l[d + 0.5]", ("error", "unsupported index value 1.5 in list")),
])
def test_a_list_indexed_by_a_whole_double_reads_it(expression: str, want: Any) -> None:
    assert run(expression, l=[7, 8, 9], d=1.0) == want


@pytest.mark.parametrize("expression, want", [
    ("x.foo", ("error", "no such key: foo")),
    ("s.foo", ("error", "no such key: foo")),
    ("m.a.b", ("error", "no such key: b")),
    ("has(x.foo)", False),  # invalid_presence_test_on_int_literal, without EnableErrorOnBadPresenceTest
    ("has(m.a.b)", False),
    ("has(m.a)", True),
    ("l.foo", ("error", "unsupported index type 'string' in list")),
    ("has(l.foo)", ("error", "unsupported index type 'string' in list")),  # invalid_presence_test_on_list
    ("m.a + 1", 2),
])
def test_a_field_of_a_scalar_is_no_such_key(expression: str, want: Any) -> None:
    assert run(expression, x=1, s="abc", m={"a": 1}, l=[1]) == want


def test_the_common_path_keeps_cel_rusts_operators() -> None:
    """Only conversions and negations are rewritten in an expression that makes no durations; the rest waits for
    cel-rust to refuse an operation."""
    for expression in ("self.a + 1 < self.b * 2", "self.items[0].name == 'x'", "has(self.a) && self.a - 1 > 0"):
        assert desugar(expression) is None, expression
    assert desugar("self.a - 1 > 0", EXACT) is not None


@pytest.mark.parametrize("text, nanos", [
    ("0s", 0), ("1ns", 1), ("1.5µs", 1500), ("1.000000001s", 1000000001), ("2562047h47m16.854775807s", MAX_INT),
    ("-5124095h34m33.709551615s", -1),  # cel-rust prints a negative duration's two's complement
    ("-5124095h34m32.709551616s", -1_000_000_000),
    ("5575806193 180.437216ms", 5575806193180437216),  # desugar.py's: whole seconds, then the rest
    ("-5575806193 -5124095h34m33.5291144s", -5575806193180437216),
])
def test_cel_rusts_duration_text_reads_exactly(text: str, nanos: int) -> None:
    assert arith.exact_nanos(text) == nanos


def test_a_timestamp_moved_keeps_its_offset_and_drops_one_past_a_day() -> None:
    assert arith.timestamp_text(0, 5, 3600) == "1970-01-01T01:00:00.000000005+01:00"
    assert arith.timestamp_text(0, 0, 90000) == "1970-01-01T00:00:00Z"
    assert isinstance(run("timestamp('2020-01-01T00:00:00Z') + duration('1h')"), datetime.datetime)


def test_a_crd_rule_sees_cel_gos_arithmetic(srv):  # noqa: F811
    """A client reads cel-go's overflow and nanoseconds in the rule's message."""
    coll = served(srv, spec_schema({"window": {"type": "string", "maxLength": 32}}, [
        {"rule": "duration(self.window) + duration('2562047h') > duration('0s')"},
        {"rule": "self.window != '1s1ns'", "messageExpression": "string(duration(self.window))"},
    ]))
    message, _ = refused(requests.post(coll, json=gadget(coll, "g1", {"window": "2562047h"})))
    assert message == ('spec: Invalid value: "object": integer overflow evaluating rule: '
                       "duration(self.window) + duration('2562047h') > duration('0s')")
    message, _ = refused(requests.post(coll, json=gadget(coll, "g1", {"window": "1s1ns"})))
    assert message == 'spec: Invalid value: "object": 1.000000001s'


def test_a_crd_rule_over_duration_fields_checks_their_sum(srv):  # noqa: F811
    """`format: duration` fields are durations to a rule (no `duration()` in it): their sum past int64
    nanoseconds is cel-go's `integer overflow`."""
    coll = served(srv, spec_schema({"a": {"type": "string", "format": "duration", "maxLength": 32},
                                    "b": {"type": "string", "format": "duration", "maxLength": 32}},
                                   [{"rule": "self.a + self.b != self.a"}]))
    message, _ = refused(requests.post(coll, json=gadget(coll, "g1", {"a": "2562047h", "b": "2562047h"})))
    assert message == 'spec: Invalid value: "object": integer overflow evaluating rule: self.a + self.b != self.a'
    assert requests.post(coll, json=gadget(coll, "g1", {"a": "1h", "b": "1s"})).status_code == 201
