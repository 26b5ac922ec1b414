"""Durations and timestamps of a custom resource's fields to the nanosecond (cel/exacttime.py, its rewrite in
cel/desugar.py, registry/crdrules/values.py): cel-go holds `strfmt.ParseDateTime`'s and `strfmt.ParseDuration`'s
values with nanoseconds (apiserver `pkg/cel/common/values.go`); Python's datetime stops at the microsecond, so a
finer value crosses as its exact text and the rule reads it through cel-rust's `timestamp()`/`duration()`."""
from __future__ import annotations

import datetime
from typing import Any

import pytest

from conformance.reference_server.cel import EvalError, compile_expression
from conformance.reference_server.cel.budget import Budget
from conformance.reference_server.cel.exacttime import cost_view, mark
from conformance.reference_server.cel.parser import parse
from conformance.reference_server.cel.runtimecost import tracked_cost
from conformance.reference_server.registry.crdrules.values import time_paths, to_cel

SCHEMA = {"type": "object", "properties": {
    "t1": {"type": "string", "format": "date-time"}, "t2": {"type": "string", "format": "date-time"},
    "d": {"type": "string", "format": "duration"}, "name": {"type": "string"},
    "ts": {"type": "array", "items": {"type": "string", "format": "date-time"}},
    "ds": {"type": "object", "additionalProperties": {"type": "string", "format": "duration"}},
    "items": {"type": "array", "items": {"type": "object", "properties": {
        "at": {"type": "string", "format": "date-time"}}}}}}
OBJECT = {"t1": "2024-01-01T00:00:00.000000100Z", "t2": "2024-01-01T00:00:00.000000600Z", "d": "1ns",
          "ts": ["2024-01-01T00:00:00.000000001Z", "2024-01-01T00:00:00Z"], "ds": {"a": "1500ns", "b": "2s"},
          "items": [{"at": "2024-01-01T00:00:00.000000700+01:00"}], "name": "x"}


def run(expression: str, obj: dict[str, Any] = OBJECT) -> Any:
    value = to_cel(obj, SCHEMA)
    try:
        program = compile_expression(expression, ("self", "oldSelf"), True, time_paths(SCHEMA))
        return program.evaluate({"self": value, "oldSelf": value})
    except EvalError as exc:
        return f"error: {exc}"


@pytest.mark.parametrize("expression", [
    "self.t2 > self.t1",
    "self.t2 != self.t1",
    "self.t2 - self.t1 == duration('500ns')",
    "string(self.t1) == '2024-01-01T00:00:00.0000001Z'",
    "self.d == duration('1ns')",
    "string(self.d) == '0.000000001s'",  # cel-go: `FormatFloat(d.Seconds(), 'f', -1, 64) + "s"`
    "self.ts[0] < self.ts[1] == false",
    "self.ts.all(t, t <= self.t1)",
    "self.ts.exists_one(t, string(t) == '2024-01-01T00:00:00.000000001Z')",
    "self.ds['a'] == duration('1500ns')",
    "self.ds.all(k, self.ds[k] >= duration('1500ns'))",
    "self.ds.all(k, v, v >= duration('1500ns'))",
    "self.items.all(i, string(i.at) == '2024-01-01T00:00:00.0000007+01:00')",
    "self.items[0].at > self.t2 == false",
    "has(self.t1) && self.name == 'x'",
    "type(self.d) == google.protobuf.Duration && type(self.t1) == google.protobuf.Timestamp",
    "self.t1 + duration('500ns') == self.t2",
])
def test_fields_keep_their_nanoseconds(expression):
    assert run(expression) is True


def test_values_to_the_microsecond_stay_python_values():
    """A value without finer digits crosses as before (a `datetime`, a `timedelta`); only finer ones as text."""
    value = to_cel(OBJECT, SCHEMA)
    assert value["t1"] == "2024-01-01T00:00:00.000000100Z" and value["d"] == "0s1ns"
    assert value["ts"][1] == datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    assert value["ds"] == {"a": "0s1500ns", "b": datetime.timedelta(seconds=2)}
    assert run("self.ts[1] == timestamp('2024-01-01T00:00:00Z') && self.ds.b == duration('2s')") is True


def test_time_paths_follow_the_schema():
    assert time_paths(SCHEMA) == frozenset({(("t1",), "timestamp"), (("t2",), "timestamp"), (("d",), "duration"),
                                            (("ts", "#"), "timestamp"), (("ds", "*"), "duration"),
                                            (("items", "#", "at"), "timestamp")})
    assert time_paths({"type": "string", "format": "date-time"}) == frozenset({((), "timestamp")})
    assert time_paths({"type": "string", "format": "date"}) == frozenset()


def test_only_reads_of_such_fields_are_marked():
    """A presence test, a string field, a whole list and a shadowing variable read no time."""
    tree = parse("has(self.t1) && self.name == '' && size(self.ts) > 0 && [1].all(self, self > 0) && self.d > "
                 "duration('0s')")
    marks, held = mark(tree, time_paths(SCHEMA))
    assert sorted(marks.values()) == ["duration"]
    assert id(tree) in held


def test_a_rule_on_the_field_itself():
    program = compile_expression("self > timestamp('2024-01-01T00:00:00.0000001Z')", ("self",), True,
                                 time_paths({"type": "string", "format": "date-time"}))
    at = to_cel("2024-01-01T00:00:00.000000101Z", {"type": "string", "format": "date-time"})
    assert program.evaluate({"self": at}) is True


def test_an_optional_old_self_is_followed():
    """`optionalOldSelf: true` makes `oldSelf` `optional.of(__oldSelf)` (registry/crdrules/compiler.py): its
    `value()` and `orValue(self)` lead to the same fields."""
    rule = "(optional.of(__oldSelf)).value().t1 < self.t2 && (optional.of(__oldSelf)).orValue(self).t1 < self.t2"
    value = to_cel(OBJECT, SCHEMA)
    program = compile_expression(rule, ("self", "__oldSelf"), True, time_paths(SCHEMA))
    assert program.evaluate({"self": value, "__oldSelf": value}) is True


@pytest.mark.parametrize("expression", [
    "timestamp('2024-01-01T00:00:00.000000001Z') in self.ts",
    "!(timestamp('2024-01-01T00:00:00Z') + duration('2ns') in self.ts)",
    "self.ts == [timestamp('2024-01-01T00:00:00.000000001Z'), timestamp('2024-01-01T00:00:00Z')]",
    "size(self.ts) == 2 && self.ts.size() == 2",
])
def test_a_list_of_times_read_whole(expression):
    assert run(expression) is True


@pytest.mark.parametrize("expression", [
    "self.?t2.value() > self.t1",
    "self.?t2.orValue(timestamp('2000-01-01T00:00:00Z')) > self.t1",
    "self.?missing.orValue(timestamp('2000-01-01T00:00:00Z')) < self.t1",
    "self.?ts[?0].value() < self.t1",
    "self.?t1.hasValue()",
])
def test_an_optional_field_value_is_read_exactly(expression):
    assert run(expression) is True


def _pair(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    return {"self": to_cel(new, SCHEMA), "oldSelf": to_cel(old, SCHEMA)}


@pytest.mark.parametrize("expression, old, new, expected", [
    # the same instant at another offset: cel-go's `Equal` of timestamps compares instants
    ("self == oldSelf", OBJECT, {**OBJECT, "t1": "2024-01-01T01:00:00.000000100+01:00"}, True),
    ("self != oldSelf", OBJECT, {**OBJECT, "t1": "2024-01-01T01:00:00.000000100+01:00"}, False),
    ("self == oldSelf", OBJECT, {**OBJECT, "t1": "2024-01-01T00:00:00.000000101Z"}, False),
    ("self == oldSelf", OBJECT, {**OBJECT, "name": "y"}, False),
    ("self.items == oldSelf.items", OBJECT, {**OBJECT, "items": [{"at": "2023-12-31T23:00:00.000000700Z"}]}, True),
    ("self.ds == oldSelf.ds", OBJECT, {**OBJECT, "ds": {"a": "1.5us", "b": "2000ms"}}, True),
    ("self.ds == oldSelf.ds", OBJECT, {**OBJECT, "ds": {"a": "1501ns", "b": "2s"}}, False),
    ("self.ts == oldSelf.ts", OBJECT, {**OBJECT, "ts": ["2024-01-01T01:00:00.000000001+01:00",
                                                        "2024-01-01T00:00:00Z"]}, True),
    ("self == oldSelf", OBJECT, OBJECT, True),
])
def test_values_holding_such_fields_compare_as_cel_go(expression, old, new, expected):
    program = compile_expression(expression, ("self", "oldSelf"), True, time_paths(SCHEMA))
    assert program.evaluate(_pair(old, new)) is expected


def test_the_runtime_cost_walk_prices_such_fields_as_timestamps():
    """`self.t1 == oldSelf.t1`: two identifiers, two selections and a comparison of timestamps, 1 each: 5 (a
    comparison of their 30-character texts would be 1 + 0.1 x 30)."""
    program = compile_expression("self.t1 == oldSelf.t1", ("self", "oldSelf"), True, time_paths(SCHEMA))
    activation = _pair(OBJECT, OBJECT)
    assert tracked_cost(program.expression, cost_view(activation, program.times)) == 5
    b = Budget(5)
    assert b.evaluate(program, activation) is True
    assert b.spent == 5
