"""gotime.py: Go 1.24's `time.Parse(time.RFC3339, s)` (format.go's general parser, which its fast path falls back
to) with its errors, and `t.UTC().Format(time.RFC3339)` as `metav1.Time.ToUnstructured` writes it."""
from __future__ import annotations

import pytest

from conformance.reference_server.goport.gotime import (
    TimeError,
    format_rfc3339_micro_utc,
    format_rfc3339_utc,
    is_zero,
    parse_rfc3339,
    parse_rfc3339_micro,
)
from conformance.reference_server.wire.gotypes import time_error

LAYOUT = '"2006-01-02T15:04:05Z07:00"'


@pytest.mark.parametrize("text,utc", [
    ("2020-01-02T03:04:05Z", "2020-01-02T03:04:05Z"),
    ("2020-01-02T03:04:05.999999999999+01:30", "2020-01-02T01:34:05Z"),  # fraction dropped, offset applied
    ("2020-01-02T3:04:05,5-24:00", "2020-01-03T03:04:05Z"),  # one-digit hour, `,` fraction, a 24 h offset
    ("2020-12-31T23:30:00-00:60", "2021-01-01T00:30:00Z"),  # minutes to 60
    ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"),
    ("0000-01-01T00:00:00+01:00", "-0001-12-31T23:00:00Z"),  # appendInt's sign and width
    ("9999-12-31T23:00:00-01:00", "10000-01-01T00:00:00Z"),
])
def test_parse_and_format(text: str, utc: str) -> None:
    unix, _ = parse_rfc3339(text)
    assert format_rfc3339_utc(unix) == utc


def test_zero_time() -> None:
    assert is_zero(*parse_rfc3339("0001-01-01T00:00:00Z"))
    assert is_zero(*parse_rfc3339("0001-01-01T01:00:00+01:00"))
    assert not is_zero(*parse_rfc3339("0001-01-01T00:00:00.5Z"))


@pytest.mark.parametrize("text,error", [
    ("x", f'parsing time "x" as {LAYOUT}: cannot parse "x" as "2006"'),
    ("", f'parsing time "" as {LAYOUT}: cannot parse "" as "2006"'),
    ("2020-01-01T00:00:00", f'parsing time "2020-01-01T00:00:00" as {LAYOUT}: cannot parse "" as "Z07:00"'),
    ("2020-01-01 00:00:00Z", f'parsing time "2020-01-01 00:00:00Z" as {LAYOUT}: cannot parse " 00:00:00Z" as "T"'),
    ("2020-1-01T00:00:00Z", f'parsing time "2020-1-01T00:00:00Z" as {LAYOUT}: cannot parse "1-01T00:00:00Z" as "01"'),
    ("2020-01-01T00:00:00z", f'parsing time "2020-01-01T00:00:00z" as {LAYOUT}: cannot parse "z" as "Z07:00"'),
    ("2020-01-01T00:00:00+0100",
     f'parsing time "2020-01-01T00:00:00+0100" as {LAYOUT}: cannot parse "+0100" as "Z07:00"'),
    ("2020-13-01T00:00:00Z", 'parsing time "2020-13-01T00:00:00Z": month out of range'),
    ("2021-02-29T00:00:00Z", 'parsing time "2021-02-29T00:00:00Z": day out of range'),
    ("2020-01-01T24:00:00Z", 'parsing time "2020-01-01T24:00:00Z": hour out of range'),
    ("2020-01-01T00:00:60Z", 'parsing time "2020-01-01T00:00:60Z": second out of range'),
    ("2020-01-01T00:00:00+25:00", 'parsing time "2020-01-01T00:00:00+25:00": time zone offset hour out of range'),
    ("2020-01-01T00:00:00Zjunk", 'parsing time "2020-01-01T00:00:00Zjunk": extra text: "junk"'),
    ("20é0-01-01T00:00:00Z",
     f'parsing time "20\\xc3\\xa90-01-01T00:00:00Z" as {LAYOUT}: cannot parse "20\\xc3\\xa90-01-01T00:00:00Z" as '
     '"2006"'),
])
def test_errors(text: str, error: str) -> None:
    with pytest.raises(TimeError) as e:
        parse_rfc3339(text)
    assert str(e.value) == error
    assert time_error(text) == error  # every metav1.Time a body holds is read so (wire/gotypes.py)


def test_micro_time_names_its_layout() -> None:
    """`MicroTime.UnmarshalJSON` parses with `RFC3339Micro`."""
    assert time_error("x", micro=True) == \
        'parsing time "x" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "x" as "2006"'


MICRO = '"2006-01-02T15:04:05.000000Z07:00"'


@pytest.mark.parametrize("text,utc", [
    ("2020-01-02T03:04:05.000000Z", "2020-01-02T03:04:05.000000Z"),
    ("2020-01-02T03:04:05.123456+01:30", "2020-01-02T01:34:05.123456Z"),
    ("2020-01-02T03:04:05,000001Z", "2020-01-02T03:04:05.000001Z"),  # `,` as the fraction's point
    ("2020-01-02T03:04:05.+12345Z", "2020-01-02T03:04:05.012345Z"),  # format.go `atoi` takes a sign
])
def test_micro_parse_and_format(text: str, utc: str) -> None:
    """metav1.MicroTime: `time.Parse(RFC3339Micro)` in, `t.UTC().Format(RFC3339Micro)` out (micro_time.go)."""
    assert format_rfc3339_micro_utc(*parse_rfc3339_micro(text)) == utc


@pytest.mark.parametrize("text,error", [
    # `stdFracSecond0` needs exactly the layout's six digits: none, fewer or more are refused
    ("2020-01-01T00:00:00Z", f'parsing time "2020-01-01T00:00:00Z" as {MICRO}: cannot parse "Z" as ".000000"'),
    ("2020-01-01T00:00:00.5Z", f'parsing time "2020-01-01T00:00:00.5Z" as {MICRO}: cannot parse ".5Z" as ".000000"'),
    ("2020-01-01T00:00:00.1234567Z",
     f'parsing time "2020-01-01T00:00:00.1234567Z" as {MICRO}: cannot parse "7Z" as "Z07:00"'),
    ("2020-01-01T00:00:00.-12345Z", 'parsing time "2020-01-01T00:00:00.-12345Z": fractional second out of range'),
    ("x", f'parsing time "x" as {MICRO}: cannot parse "x" as "2006"'),
    ("2020-13-01T00:00:00.000000Z", 'parsing time "2020-13-01T00:00:00.000000Z": month out of range'),
])
def test_micro_errors(text: str, error: str) -> None:
    with pytest.raises(TimeError) as e:
        parse_rfc3339_micro(text)
    assert str(e.value) == error
    assert time_error(text, micro=True) == error
