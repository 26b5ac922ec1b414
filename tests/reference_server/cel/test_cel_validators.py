"""cel/validators.py's literal validators: Go's `time.ParseDuration` (godur.py) decides durations, its int64 edges
included; timestamps and int literals are judged as cel-go's `evalCall` does, by the conversion itself."""
from __future__ import annotations

import pytest

from conformance.reference_server.cel.environments import BOOL, compile_detail, declared
from conformance.reference_server.cel.validators import valid_duration


@pytest.mark.parametrize("text", ["0", "-0", ".5s", "5.s", "9223372036854775807ns", "-9223372036854775808ns",
                                  "-2562047h47m16.854775808s", "12μs", "0.830103483285477580700h"])
def test_go_durations_are_valid(text: str) -> None:
    assert valid_duration(text)


@pytest.mark.parametrize("text", ["", "1", ".s", "1d", "9223372036854775808ns", "١s", "1s ", " 1s", "+-1s"])
def test_what_go_refuses_is_invalid(text: str) -> None:
    assert not valid_duration(text)


def test_the_largest_duration_literal_compiles() -> None:
    expression = "duration('9223372036854775807ns') > duration('-9223372036854775808ns')"
    assert compile_detail(expression, declared(), BOOL) is None


def test_a_non_ascii_digit_is_an_invalid_literal() -> None:
    detail = compile_detail("duration('١s') > duration('0')", declared(), BOOL)
    assert detail is not None and "invalid duration argument" in detail


@pytest.mark.parametrize("expression, valid", [
    ("timestamp('2006-01-02T1:04:05Z')", True),  # Go's `parse`: a one-digit hour (stdHour)
    ("timestamp('2006-01-02T15:04:05,5Z')", True),  # a comma before the fraction
    ("timestamp('2006-01-02T15:04:05+24:00')", True),  # Go 1.20+: offsets to 24 hours
    ("timestamp('0000-12-31T23:30:00-01:00')", True),  # year 1 in UTC
    ("timestamp('0001-01-01T00:00:00+01:00')", False),  # year 0 in UTC: `timestamp overflow`
    ("timestamp('2006-01-02t15:04:05z')", False),
    ("timestamp(1)", True), ("timestamp(253402300799)", True),
    ("timestamp(253402300800)", False),  # evalCall: Unix seconds past year 9999
    ("duration(1)", False),  # declared (IntToDuration), but `Int.ConvertToType` has no duration case
])
def test_timestamp_and_int_literals_are_judged_by_evaluating_the_call(expression: str, valid: bool) -> None:
    """cel-go's `formatValidator` evaluates the call on its literal (`cel/validator.go` `evalCall`)."""
    detail = compile_detail(expression, declared())
    fn = expression.split("(")[0]
    assert (detail is None) == valid, detail
    assert valid or f"invalid {fn} argument" in str(detail)
