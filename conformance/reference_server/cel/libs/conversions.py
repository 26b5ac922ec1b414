"""cel-go's type conversions of strings, and of values to strings, with Go's own parsing and printing, where
cel-rust's differ (cel-go v0.23.2 `common/types/string.go` `ConvertToType`, `double.go`, `duration.go`,
`timestamp.go`; the Go standard library they call: `strconv.ParseInt`/`ParseUint`/`ParseFloat`/`ParseBool`,
`time.ParseDuration`, `time.Parse(time.RFC3339, ...)` as `src/time/format.go` of Go 1.24 reads it,
`fmt.Sprintf("%g")`, `time.RFC3339Nano`).

desugar.py rewrites `int(x)`, `uint(x)`, `double(x)`, `duration(x)`, `timestamp(x)` to `int(__go_int(x))`...
when `x` is not a literal (a literal is judged when the expression compiles, validators.py): a string is parsed
here and handed back in a form cel-rust reads exactly (seconds and nanoseconds for durations, a normalised RFC 3339
text for timestamps), so an error is cel-go's `type conversion error from 'string' to '<type>'` and what Go reads
is read.
`string(x)` becomes `__go_string(x)` (Go's printing of doubles, durations and timestamps); `bool(x)`, which
cel-rust lacks, is defined here. Any other value passes through unchanged."""
from __future__ import annotations

import datetime
import math
import re
from decimal import Decimal
from typing import Any

from ...goport.godur import DurationError, parse_duration
from ...goport.gofmt import format_float
from ...goport.gostrconv import parse_float as go_parse_float
from ...goport.gotime import TimeError, parse_rfc3339_zone
from .arith import MAX_UNIX, MIN_UNIX, exact_nanos, exact_time, rust_duration, timestamp_text
from .net import to_string as _library_string
from .values import LibraryError, runtime_type, type_name

_INT64 = 1 << 63
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _conversion_error(to: str) -> LibraryError:
    return LibraryError(f"type conversion error from 'string' to '{to}'")


_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_UINT = re.compile(r"[0-9]+", re.ASCII)


# the Python types of the values each conversion has an overload for (cel-go v0.23.2 common/stdlib/standard.go);
# a uint crosses as an int
_TAKES: dict[str, tuple[type, ...]] = {
    "int": (int, float, str, datetime.datetime, datetime.timedelta), "uint": (int, float, str),
    "double": (int, float, str), "duration": (datetime.timedelta, int, str),
    "timestamp": (datetime.datetime, int, str), "bool": (bool, str), "bytes": (bytes, str)}


def _guard(name: str, value: Any) -> None:
    """cel-go's dispatch over a conversion's overloads: a value none takes is `no such overload: <name>(<type>)`
    (`MaybeNoSuchOverload`, common/decls/decls.go); a bool is no number here."""
    takes = _TAKES[name]
    if not isinstance(value, takes) or isinstance(value, bool) and bool not in takes:
        raise LibraryError(f"no such overload: {name}({runtime_type(value)})")


def go_int(value: Any, exact: str = "") -> Any:
    """`int(x)`: of a string `strconv.ParseInt(s, 10, 64)`, an optional sign and decimal digits within int64; of a
    double `doubleToInt64Checked` (truncated, `integer overflow` outside int64); of a uint beyond int64 an
    overflow; of a timestamp its Unix seconds, of a duration its nanoseconds (cel-rust has neither), read from
    `exact`, cel-rust's own text of them (arith.py)."""
    _guard("int", value)
    if exact and isinstance(value, datetime.datetime):
        return exact_time(exact)[0]
    if exact and isinstance(value, datetime.timedelta):
        return exact_nanos(exact)
    if isinstance(value, float):
        if math.isnan(value) or not -9.223372036854775808e18 < value < 9.223372036854775808e18:
            raise LibraryError("integer overflow")
        return int(value)
    if isinstance(value, int) and value >= _INT64:
        raise LibraryError("integer overflow")
    if isinstance(value, datetime.datetime):  # `Timestamp.ConvertToType(IntType)`: `t.Unix()`
        return (value - _EPOCH) // datetime.timedelta(seconds=1)
    if isinstance(value, datetime.timedelta):  # `Duration.ConvertToType(IntType)`: nanoseconds
        return value // datetime.timedelta(microseconds=1) * 1000
    if not isinstance(value, str):
        return value
    if not _INT.fullmatch(value):
        raise _conversion_error("int")
    n = int(value)
    if not -_INT64 <= n < _INT64:
        raise _conversion_error("int")
    return n


def go_uint(value: Any) -> Any:
    """`uint(x)`: of a string `strconv.ParseUint(s, 10, 64)`, decimal digits (no sign) within uint64; of a double
    `doubleToUint64Checked`, of an int `int64ToUint64Checked` (`unsigned integer overflow` when negative or beyond
    uint64); handed back as text, which `uint()` reads."""
    _guard("uint", value)
    if isinstance(value, float):
        if math.isnan(value) or not 0 <= value < 1.8446744073709551616e19:
            raise LibraryError("unsigned integer overflow")
        return str(int(value))
    if isinstance(value, int):
        if value < 0:
            raise LibraryError("unsigned integer overflow")
        return str(value)
    if not isinstance(value, str):
        return value
    if not _UINT.fullmatch(value) or int(value) >= 1 << 64:
        raise _conversion_error("uint")
    return str(int(value))


def parse_float(text: str) -> float:
    """`strconv.ParseFloat(s, 64)` (gostrconv.py); ValueError where Go's returns an error (syntax, or a value
    beyond float64: an underflow is 0 without an error, as Go's)."""
    value, ok = go_parse_float(text, 64)
    if not ok:
        raise ValueError(text)
    return value


def go_double(value: Any) -> Any:
    _guard("double", value)
    if not isinstance(value, str):
        return value
    try:
        return parse_float(value)
    except ValueError:
        raise _conversion_error("double") from None


_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def go_bool(value: Any) -> bool:
    """`bool(x)`: `strconv.ParseBool` of a string; a bool itself."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise _conversion_error("bool")
    raise LibraryError(f"no such overload: bool({runtime_type(value)})")


def go_duration(value: Any, exact: str = "") -> Any:
    """`time.ParseDuration`, as nanoseconds cel-rust reads exactly; an int is declared (`IntToDuration`) but
    `Int.ConvertToType` has no duration case: an error. A duration itself is handed back as its `exact` text."""
    _guard("duration", value)
    if exact and isinstance(value, datetime.timedelta):
        return rust_duration(exact_nanos(exact))
    if isinstance(value, int):
        raise LibraryError("type conversion error from 'int' to 'google.protobuf.Duration'")
    if not isinstance(value, str):
        return value
    try:
        return rust_duration(parse_duration(value))
    except DurationError:
        raise _conversion_error("google.protobuf.Duration") from None


def parse_rfc3339(text: str) -> tuple[int, int, int] | None:
    """Go's reading of `text` as RFC 3339 (`time.Parse(time.RFC3339, s)`: gotime.py): (Unix seconds, nanoseconds,
    offset in seconds), or None."""
    try:
        return parse_rfc3339_zone(text)
    except TimeError:
        return None


def go_timestamp(value: Any, exact: str = "") -> Any:
    """`time.Parse(time.RFC3339, s)` within cel-go's range, as RFC 3339 text cel-rust reads exactly (the offset
    kept where cel-rust can hold it); an int is Unix seconds; a timestamp itself is handed back as its `exact`
    text."""
    _guard("timestamp", value)
    if exact and isinstance(value, datetime.datetime):
        return timestamp_text(*exact_time(exact))
    if isinstance(value, int):
        unix, nanos, offset = value, 0, 0
    elif not isinstance(value, str):
        return value
    else:
        parsed = parse_rfc3339(value)
        if parsed is None:
            raise _conversion_error("google.protobuf.Timestamp")
        unix, nanos, offset = parsed
    if not MIN_UNIX <= unix <= MAX_UNIX:
        raise LibraryError("timestamp overflow")
    return timestamp_text(unix, nanos, offset)


def _fixed(f: float) -> str:
    """`strconv.FormatFloat(f, 'f', -1, 64)`: the shortest digits, without an exponent."""
    text = format(Decimal(repr(f)), "f")
    return text[:-2] if text.endswith(".0") else text


def duration_string(d: datetime.timedelta | int) -> str:
    """cel-go's `string(duration)`: `strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"` (of a timedelta or of
    nanoseconds)."""
    total = d // datetime.timedelta(microseconds=1) * 1000 if isinstance(d, datetime.timedelta) else d
    seconds = int(math.copysign(abs(total) // 1_000_000_000, total))  # Go's `d / Second` truncates
    nanos = total - seconds * 1_000_000_000
    return _fixed(float(seconds) + float(nanos) / 1e9) + "s"


def timestamp_string(t: datetime.datetime) -> str:
    """`t.Format(time.RFC3339Nano)`: the fraction's trailing zeros dropped, `Z` for a zero offset."""
    text = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
    if t.microsecond:
        text += f".{t.microsecond:06d}".rstrip("0")
    offset = t.utcoffset() or datetime.timedelta(0)
    if not offset:
        return text + "Z"
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    return f"{text}{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def go_string(value: Any, exact: str = "") -> str:
    """`string(x)`: Go's printing of each CEL value cel-go converts (a duration's or timestamp's from `exact`,
    cel-rust's own text of it)."""
    if exact and isinstance(value, datetime.datetime):
        return timestamp_text(*exact_time(exact), nano_format=True)
    if exact and isinstance(value, datetime.timedelta):
        return duration_string(exact_nanos(exact))
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, datetime.datetime):
        return timestamp_string(value)
    if isinstance(value, datetime.timedelta):
        return duration_string(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise LibraryError("invalid UTF-8 in bytes, cannot convert to string") from None
    if type_name(value):
        return _library_string(value)  # `string(<IP>)`, `string(<CIDR>)`
    raise LibraryError(f"no such overload: string({runtime_type(value)})")


def go_bytes(value: Any) -> Any:
    """`bytes(x)` of a value it has an overload for, handed back for cel-rust to convert (a string's UTF-8)."""
    _guard("bytes", value)
    return value


# the conversion functions whose non-literal argument desugar.py hands to the Go reading first
WRAPPED = {"int": "__go_int", "uint": "__go_uint", "double": "__go_double", "duration": "__go_duration",
           "timestamp": "__go_timestamp", "bytes": "__go_bytes"}
REPLACED = {"string": "__go_string"}

FUNCTIONS = {"__go_int": go_int, "__go_uint": go_uint, "__go_double": go_double, "__go_duration": go_duration,
             "__go_timestamp": go_timestamp, "__go_string": go_string, "__go_bytes": go_bytes, "bool": go_bool}
