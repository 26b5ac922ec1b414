"""godur.parse_duration against Go's own table (src/time/time_test.go `parseDurationTests`,
`parseDurationErrorTests`), and Go's exact error texts."""
from __future__ import annotations

import pytest

from conformance.reference_server.goport.godur import DurationError, parse_duration

NS, US, MS, S, M, H = 1, 1_000, 1_000_000, 1_000_000_000, 60_000_000_000, 3_600_000_000_000

PARSE = [
    # simple
    ("0", 0), ("5s", 5 * S), ("30s", 30 * S), ("1478s", 1478 * S),
    # sign
    ("-5s", -5 * S), ("+5s", 5 * S), ("-0", 0), ("+0", 0),
    # decimal
    ("5.0s", 5 * S), ("5.6s", 5 * S + 600 * MS), ("5.s", 5 * S), (".5s", 500 * MS), ("1.0s", 1 * S),
    ("1.00s", 1 * S), ("1.004s", 1 * S + 4 * MS), ("1.0040s", 1 * S + 4 * MS), ("100.00100s", 100 * S + 1 * MS),
    # different units
    ("10ns", 10 * NS), ("11us", 11 * US), ("12µs", 12 * US), ("12μs", 12 * US), ("13ms", 13 * MS),
    ("14s", 14 * S), ("15m", 15 * M), ("16h", 16 * H),
    # composite durations
    ("3h30m", 3 * H + 30 * M), ("10.5s4m", 4 * M + 10 * S + 500 * MS), ("-2m3.4s", -(2 * M + 3 * S + 400 * MS)),
    ("1h2m3s4ms5us6ns", 1 * H + 2 * M + 3 * S + 4 * MS + 5 * US + 6 * NS),
    ("39h9m14.425s", 39 * H + 9 * M + 14 * S + 425 * MS),
    # large value
    ("52763797000ns", 52763797000 * NS),
    # more than 9 digits after decimal point, golang.org/issue/6617
    ("0.3333333333333333333h", 20 * M),
    # 1<<53+1 cannot be stored precisely in a float64
    ("9007199254740993ns", (1 << 53) + 1),
    # largest duration that can be represented by int64 in nanoseconds
    ("9223372036854775807ns", (1 << 63) - 1), ("9223372036854775.807us", (1 << 63) - 1),
    ("9223372036s854ms775us807ns", (1 << 63) - 1),
    ("-9223372036854775808ns", -1 << 63), ("-9223372036854775.808us", -1 << 63),
    ("-9223372036s854ms775us808ns", -1 << 63),
    # largest negative round trip value, golang.org/issue/48629
    ("-2562047h47m16.854775808s", -1 << 63),
    # huge string; issue 15011
    ("0.100000000000000000000h", 6 * M),
    # the first overflow check in leadingFraction
    ("0.830103483285477580700h", 49 * M + 48 * S + 372539827 * NS),
]

ERRORS = [  # (input, what Go's error contains); "\udcXX" is the invalid byte 0xXX (surrogateescape)
    ("", '""'), ("3", '"3"'), ("-", '"-"'), ("s", '"s"'), (".", '"."'), ("-.", '"-."'), (".s", '".s"'),
    ("+.s", '"+.s"'), ("1d", '"1d"'), ("\udc85\udc85", r'"\x85\x85"'), ("\udcffff", r'"\xffff"'),
    ("hello \udcffff world", r'"hello \xffff world"'), ("\ufffd", r'"\xef\xbf\xbd"'),
    ("\ufffd hello \ufffd world", r'"\xef\xbf\xbd hello \xef\xbf\xbd world"'),
    # overflow
    ("9223372036854775810ns", '"9223372036854775810ns"'), ("9223372036854775808ns", '"9223372036854775808ns"'),
    ("-9223372036854775809ns", '"-9223372036854775809ns"'), ("9223372036854776us", '"9223372036854776us"'),
    ("3000000h", '"3000000h"'), ("9223372036854775.808us", '"9223372036854775.808us"'),
    ("9223372036854ms775us808ns", '"9223372036854ms775us808ns"'),
]


@pytest.mark.parametrize("text,want", PARSE)
def test_parses_as_go(text, want):
    assert parse_duration(text) == want


@pytest.mark.parametrize("text,quoted", ERRORS)
def test_refuses_as_go(text, quoted):
    with pytest.raises(DurationError) as exc:
        parse_duration(text)
    assert quoted in str(exc.value)


@pytest.mark.parametrize("text,message", [
    ("", 'time: invalid duration ""'),
    ("x1s", 'time: invalid duration "x1s"'),
    ("3", 'time: missing unit in duration "3"'),
    ("1s2", 'time: missing unit in duration "1s2"'),
    ("1d", 'time: unknown unit "d" in duration "1d"'),
    ("1 s", 'time: unknown unit " s" in duration "1 s"'),
    ('1"\\', 'time: unknown unit "\\"\\\\" in duration "1\\"\\\\"'),
    ("1é", 'time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"'),
    ("3000000h", 'time: invalid duration "3000000h"'),
])
def test_error_texts_are_gos(text, message):
    with pytest.raises(DurationError) as exc:
        parse_duration(text)
    assert str(exc.value) == message


def test_a_duration_error_is_a_value_error():
    assert issubclass(DurationError, ValueError)
