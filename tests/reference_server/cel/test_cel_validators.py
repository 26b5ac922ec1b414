"""cel/validators.py's duration literals: Go's `time.ParseDuration` (godur.py) decides, its int64 edges included."""
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
