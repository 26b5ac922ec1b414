"""cel-go's arithmetic where cel-rust's differs (cel-go v0.23.2 `common/types/overflow.go`, `int.go`, `uint.go`,
`duration.go`, `timestamp.go`, `list.go` `IndexOrError`, `interpreter/attributes.go` `refQualify`).

cel-rust holds durations and timestamps with nanoseconds (chrono) but hands them to Python as `timedelta` and
`datetime`, which keep microseconds; and a chrono duration reaches far past int64 nanoseconds, where cel-go's
`time.Duration` stops with `integer overflow`. So desugar.py gives these functions a duration or timestamp together
with cel-rust's own text of it (exact: `string()` of its whole seconds and of the rest), and reads their answer
back through cel-rust's `duration()` and `timestamp()` (`rust_duration`, `timestamp_text`), both exact:
- `exact_nanos` / `exact_time` read cel-rust's texts: a duration in Go's `Duration.String()` layout (cel-rust prints
  a negative one as `-` and the two's complement of its nanoseconds, and rounds past 2^62 ns: so its whole seconds
  come first), a timestamp in RFC 3339 with its offset;
- `time_arith`, `neg_duration`: `+`/`-` of durations and timestamps with cel-go's checks (`integer overflow` past
  int64 nanoseconds, `timestamp overflow` outside years 1 to 9999, `no such overload` for other pairs);
- `neg_int`: `-(<min int>)` is `integer overflow` (cel-rust wraps);
- `umul`: a uint product past uint64 is `unsigned integer overflow`;
- `list_index`: a list indexed by a whole double reads that element, else `unsupported index value <v> in list`;
- `no_field`, `has_field`: selecting a field of a value that is not a map is cel-go's `no such key: <field>`
  (`unsupported index type 'string' in list` for a list), and `has()` of it is false."""
from __future__ import annotations

import datetime
import re
from decimal import Decimal
from typing import Any

from ...goport.gofmt import format_float
from .values import LibraryError

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_UINT64_MAX = (1 << 64) - 1
_SECOND = 1_000_000_000
# cel-go's bounds of a timestamp (`minUnixTime`, `maxUnixTime`: years 1 to 9999 in UTC)
MIN_UNIX, MAX_UNIX = -62135596800, 253402300799
_UNITS = {"h": 3600 * _SECOND, "m": 60 * _SECOND, "s": _SECOND, "ms": 1_000_000, "µs": 1_000, "us": 1_000,
          "ns": 1}
_RUST_DURATION = re.compile(r"(-)?(?:([0-9]+)h)?(?:([0-9]+)m(?!s))?(?:([0-9]+(?:\.[0-9]+)?)(s|ms|µs|us|ns))?")


def _overflow() -> LibraryError:
    return LibraryError("integer overflow")


def _int64(n: int) -> int:
    """`n` when it fits int64, else cel-go's `integer overflow`."""
    if not _INT64_MIN <= n <= _INT64_MAX:
        raise _overflow()
    return n


def exact_nanos(text: str) -> int:
    """A duration's nanoseconds from cel-rust's `string()` of it, exact below 2^62 ns; or from `<seconds> <the
    rest's string()>` (desugar.py), exact throughout."""
    seconds, _, rest = text.rpartition(" ")
    if seconds:
        return int(seconds) * _SECOND + exact_nanos(rest)
    m = _RUST_DURATION.fullmatch(text)
    if not m or text in ("", "-"):
        raise LibraryError(f"cannot read the duration {text!r}")
    total = sum(int(m.group(g)) * _UNITS[u] for g, u in ((2, "h"), (3, "m")) if m.group(g))
    if m.group(4):
        total += int(Decimal(m.group(4)) * _UNITS[m.group(5)])
    if m.group(1):  # cel-rust prints a negative duration's two's complement after the sign
        return total - (1 << 64) if total > 1 << 63 else -total
    return total


def exact_time(text: str) -> tuple[int, int, int]:
    """A timestamp's (Unix seconds, nanoseconds, offset in seconds) from cel-rust's `string()` of it."""
    from .conversions import parse_rfc3339
    parsed = parse_rfc3339(text)
    if parsed is None:
        raise LibraryError(f"cannot read the timestamp {text!r}")
    return parsed


def rust_duration(nanos: int) -> str:
    """A duration's text cel-rust's `duration()` reads exactly: whole seconds, then nanoseconds (it reads each
    number as a float64, exact below 2^53)."""
    sign = "-" if nanos < 0 else ""
    seconds, rest = divmod(abs(nanos), _SECOND)
    return f"{sign}{seconds}s{rest}ns"


def _civil(unix: int) -> str:
    days, secs = divmod(unix, 86400)
    date = datetime.date(1970, 1, 1) + datetime.timedelta(days=days)
    return f"{date.isoformat()}T{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"


def timestamp_text(unix: int, nanos: int, offset: int = 0, nano_format: bool = False) -> str:
    """The RFC 3339 text of a timestamp in its offset's civil time: what cel-rust's `timestamp()` reads exactly
    (all nine digits of a fraction), or with `nano_format` Go's `time.RFC3339Nano` (trailing zeros dropped), which
    cel-go's `string(timestamp)` prints. An offset past what cel-rust holds is dropped (the instant is kept)."""
    if not (abs(offset) < 86400 and MIN_UNIX <= unix + offset <= MAX_UNIX):
        offset = 0
    frac = f".{nanos:09d}" if nanos else ""
    if nano_format:
        frac = frac.rstrip("0")
    if not offset:
        return f"{_civil(unix)}{frac}Z"
    sign = "-" if offset < 0 else "+"
    return f"{_civil(unix + offset)}{frac}{sign}{abs(offset) // 3600:02d}:{abs(offset) // 60 % 60:02d}"


def _is_time(value: Any) -> bool:
    return isinstance(value, datetime.datetime)


def _is_duration(value: Any) -> bool:
    return isinstance(value, datetime.timedelta)


def _add_time(unix: int, nanos: int, offset: int, duration: int) -> str:
    """`addTimeDurationChecked`: the instant moved by `duration` nanoseconds, within years 1 to 9999."""
    seconds, rest = divmod(unix * _SECOND + nanos + duration, _SECOND)
    if not MIN_UNIX <= seconds <= MAX_UNIX:
        raise LibraryError("timestamp overflow")
    return timestamp_text(seconds, rest, offset)


def time_arith(op: str, a: Any, a_text: str, b: Any, b_text: str) -> str:
    """`a + b` or `a - b` where one operand is a duration or a timestamp, as cel-go computes it: the result's text
    (desugar.py reads it as a timestamp when exactly one operand is one, else as a duration)."""
    if _is_duration(a) and _is_duration(b):
        x, y = exact_nanos(a_text), exact_nanos(b_text)
        return rust_duration(_int64(x + y if op == "+" else x - y))
    if op == "+" and (_is_duration(a) and _is_time(b) or _is_time(a) and _is_duration(b)):
        (unix, nanos, offset), d = (exact_time(b_text), exact_nanos(a_text)) if _is_duration(a) \
            else (exact_time(a_text), exact_nanos(b_text))
        return _add_time(unix, nanos, offset, d)
    if op == "-" and _is_time(a) and _is_duration(b):
        unix, nanos, offset = exact_time(a_text)
        return _add_time(unix, nanos, offset, _int64(-exact_nanos(b_text)))  # `negateDurationChecked` first
    if op == "-" and _is_time(a) and _is_time(b):  # `subtractTimeChecked`: seconds scaled, then nanoseconds
        (s1, n1, _), (s2, n2, _) = exact_time(a_text), exact_time(b_text)
        return rust_duration(_int64(_int64(_int64(s1 - s2) * _SECOND) + n1 - n2))
    raise LibraryError("no such overload")


def neg_duration(text: str) -> str:
    """`-d`: `negateDurationChecked`."""
    return rust_duration(_int64(-exact_nanos(text)))


def neg_int(value: int) -> int:
    """`-i`: `negateInt64Checked`."""
    return _int64(-value)


def umul(a: int, b: int) -> str:
    """`a * b` of uints: `multiplyUint64Checked`; the product as text, which cel-rust's `uint()` reads."""
    product = a * b
    if product > _UINT64_MAX:
        raise LibraryError("unsigned integer overflow")
    return str(product)


def list_index(index: float) -> int:
    """`IndexOrError` of a double: a whole one within int64 reads as that int."""
    if index == int(index) and -9.223372036854775808e18 < index < 9.223372036854775808e18:
        return int(index)
    raise LibraryError(f"unsupported index value {format_float(index)} in list")


def _not_a_field(value: Any, field: str) -> LibraryError:
    if isinstance(value, (list, tuple)):  # a string qualifier on a list: `IndexOrError` of a string
        return LibraryError("unsupported index type 'string' in list")
    return LibraryError(f"no such key: {field}")


def no_field(value: Any, field: str) -> Any:
    """`v.f` of a value that is not a map: `refQualify`'s `missingKey`."""
    raise _not_a_field(value, field)


def has_field(value: Any, field: str) -> bool:
    """`has(v.f)` of a value that is not a map: false (no error on a bad presence test, the default)."""
    if isinstance(value, (list, tuple)):
        raise _not_a_field(value, field)
    return False


FUNCTIONS = {"__time_arith": time_arith, "__neg_duration": neg_duration, "__neg_int": neg_int, "__umul": umul,
             "__list_index": list_index, "__no_field": no_field, "__has_field": has_field}
