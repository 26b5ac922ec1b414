"""Go's `time.Parse(time.RFC3339, s)` and `t.UTC().Format(time.RFC3339)` (src/time/format.go, Go 1.24), as
apimachinery's `metav1.Time` reads a JSON string (`UnmarshalJSON`) and writes one back (`ToUnstructured`, the
unstructured converter's path: runtime/converter.go).

`Parse` tries an RFC 3339 fast path and falls back to the general layout parser, which accepts everything the fast
path does, with the same result, and more: a one-digit hour, a fraction after `,`, offsets to `24:60`. So only the
general parser is followed here, with its errors (`parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse
"x" as "2006"`, `...: month out of range`, `...: extra text: "x"`), element by element over the value's bytes.
`Format` writes the UTC civil time with second precision: the fraction is dropped, a year below 0 is written
`-0001`, one past 9999 with all its digits (`Time.MarshalJSON` would refuse those; the converter does not)."""
from __future__ import annotations

from .godur import quote

RFC3339 = "2006-01-02T15:04:05Z07:00"
RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"  # metav1.RFC3339Micro: a MicroTime's layout (micro_time.go)
ZERO_UNIX = -62135596800  # Go's zero Time (January 1, year 1, 00:00:00 UTC) in Unix seconds: `IsZero`

# The layout's chunks: (literal prefix, element); the element's name is what an error quotes.
_CHUNKS = (("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05"), ("", "Z07:00"))
_MICRO_CHUNKS = _CHUNKS[:6] + (("", ".000000"), _CHUNKS[6])  # `stdFracSecond0`: exactly six digits


class TimeError(ValueError):
    """`time.ParseError`; its text is Go's."""


def _error(value: bytes, elem_value: bytes, elem: str, message: str = "", layout: str = RFC3339) -> TimeError:
    """`newParseError(layout, value, elem, elemValue, message).Error()`."""
    text = value.decode("utf-8", "surrogateescape")
    if message:
        return TimeError(f"parsing time {quote(text)}{message}")
    return TimeError(f"parsing time {quote(text)} as {quote(layout)}: cannot parse "
                     f"{quote(elem_value.decode('utf-8', 'surrogateescape'))} as {quote(elem)}")


def _digit(b: bytes, i: int) -> bool:
    return len(b) > i and 48 <= b[i] <= 57


def _getnum(b: bytes, fixed: bool) -> tuple[int, bytes] | None:
    """format.go `getnum`: one or two digits (two when `fixed`)."""
    if not _digit(b, 0):
        return None
    if not _digit(b, 1):
        return None if fixed else (b[0] - 48, b[1:])
    return (b[0] - 48) * 10 + b[1] - 48, b[2:]


def days_in(month: int, year: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (any year)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def _civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


def parse_rfc3339(text: str) -> tuple[int, int]:
    """`time.Parse(time.RFC3339, text)`: (Unix seconds, nanoseconds); `TimeError` with Go's words otherwise."""
    unix, nsec, _ = parse_rfc3339_zone(text)
    return unix, nsec


def parse_rfc3339_micro(text: str) -> tuple[int, int]:
    """`time.Parse(metav1.RFC3339Micro, text)` (a MicroTime's `UnmarshalJSON`): the general parser with a fixed
    six-digit fraction (`2024-01-01T00:00:00Z` is refused: `cannot parse "Z" as ".000000"`)."""
    unix, nsec, _ = parse_rfc3339_zone(text, RFC3339_MICRO)
    return unix, nsec


def parse_rfc3339_zone(text: str, layout: str = RFC3339) -> tuple[int, int, int]:
    """`parse_rfc3339` (or, with `RFC3339_MICRO`, `parse_rfc3339_micro`) and the offset the text names, in
    seconds east of UTC."""
    whole = text.encode("utf-8", "surrogateescape")
    value = whole
    micro = layout == RFC3339_MICRO
    year = month = day = hour = minute = sec = nsec = offset = 0

    for prefix, elem in (_MICRO_CHUNKS if micro else _CHUNKS):
        if not value.startswith(prefix.encode()):  # `skip`: the value from the first byte that differs
            rest = value
            for c in prefix.encode():
                if not rest or rest[0] != c:
                    break
                rest = rest[1:]
            raise _error(whole, rest, prefix, layout=layout)
        value = value[len(prefix):]
        hold, bad, out_of_range = value, False, ""
        if elem == "2006":
            if len(value) < 4 or not _digit(value, 0) or not all(48 <= c <= 57 for c in value[:4]):
                bad = True
            else:
                year, value = int(value[:4]), value[4:]
        elif elem in ("01", "02", "15", "04", "05"):
            got = _getnum(value, elem != "15")
            if got is None:
                bad = True
            else:
                n, value = got
                if elem == "01":
                    month, out_of_range = n, "month" if not 1 <= n <= 12 else ""
                elif elem == "02":
                    day = n  # checked against the month once parsed
                elif elem == "15":
                    hour, out_of_range = n, "hour" if n >= 24 else ""
                elif elem == "04":
                    minute, out_of_range = n, "minute" if n >= 60 else ""
                else:
                    sec, out_of_range = n, "second" if n >= 60 else ""
                    if not (out_of_range or micro) and len(value) >= 2 and value[:1] in (b".", b",") \
                            and _digit(value, 1):
                        n = 2  # a fraction the layout does not have: `parseNanoseconds`, digits past 9 dropped
                        while _digit(value, n):
                            n += 1
                        digits = value[1:min(n, 10)]
                        nsec = int(digits) * 10 ** (9 - len(digits))
                        value = value[n:]
        elif elem == ".000000":  # `parseNanoseconds(value, 7)`: `.` or `,`, then `atoi` (a sign allowed)
            got = _go_atoi(value[1:7]) if len(value) >= 7 and value[:1] in (b".", b",") else None
            if got is None:
                bad = True
            elif got < 0:
                out_of_range = "fractional second"
            else:
                nsec, value = got * 1000, value[7:]
        elif value[:1] == b"Z":
            value = value[1:]
        elif len(value) < 6 or value[3:4] != b":":
            bad = True
        else:
            sign, hh, mm, value = value[:1], _getnum(value[1:3], True), _getnum(value[4:6], True), value[6:]
            hours = hh[0] if hh is not None else 0
            minutes = mm[0] if mm is not None else 0
            bad = hh is None or mm is None or sign not in (b"+", b"-")
            out_of_range = "time zone offset hour" if hours > 24 else \
                "time zone offset minute" if minutes > 60 else ""
            offset = (hours * 60 + minutes) * 60 * (-1 if sign == b"-" else 1)
        if out_of_range:
            raise _error(whole, value, elem, f": {out_of_range} out of range", layout)
        if bad:
            raise _error(whole, hold, elem, layout=layout)
    if value:
        raise _error(whole, value, "", f": extra text: {quote(value.decode('utf-8', 'surrogateescape'))}")
    if not 1 <= day <= days_in(month, year):
        raise _error(whole, value, "", ": day out of range")
    unix = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + sec - offset
    return unix, nsec, offset


def _go_atoi(b: bytes) -> int | None:
    """format.go `atoi`: an optional sign, then digits only."""
    sign, digits = (b[:1], b[1:]) if b[:1] in (b"+", b"-") else (b"", b)
    if not digits or not all(48 <= c <= 57 for c in digits):
        return None
    return -int(digits) if sign == b"-" else int(digits)


def format_rfc3339_micro_utc(unix: int, nsec: int) -> str:
    """`t.UTC().Format(metav1.RFC3339Micro)` (a MicroTime's `MarshalJSON`): six digits, truncated."""
    return format_rfc3339_utc(unix)[:-1] + f".{nsec // 1000:06d}Z"


def format_rfc3339_utc(unix: int) -> str:
    """`t.UTC().Format(time.RFC3339)` (the fraction dropped; format.go `appendInt` for the year)."""
    days, secs = divmod(unix, 86400)
    y, m, d = _civil_from_days(days)
    year = f"-{-y:04d}" if y < 0 else f"{y:04d}"
    return f"{year}-{m:02d}-{d:02d}T{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}Z"


def is_zero(unix: int, nsec: int) -> bool:
    """`Time.IsZero`."""
    return unix == ZERO_UNIX and nsec == 0
