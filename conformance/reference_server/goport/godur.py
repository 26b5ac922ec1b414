"""Go's `time.ParseDuration` (src/time/format.go, the same in Go 1.19 to 1.24): the one duration grammar the
server reads wherever kube-apiserver calls it: a `?timeout=` (`WithRequestDeadline`), cel-go's duration literals
(cel/validators.py) and, under strfmt's own grammar, a CRD's `format: duration` strings (registry/crdrules/values.py).

`[-+]?` then `0`, or one or more `<digits>[.<digits>]<unit>` (either digit run may be empty, not both), units
`ns us µs μs ms s m h`; the total in nanoseconds must fit an int64 (`-9223372036854775808ns` does, its positive
does not). Errors carry Go's words and its `quote` (non-ASCII and control bytes as `\\xNN`)."""
from __future__ import annotations

_MAX = 1 << 63
UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 1_000_000_000,
         "m": 60_000_000_000, "h": 3_600_000_000_000}
_DIGITS = frozenset("0123456789")


class DurationError(ValueError):
    """`time.ParseDuration`'s error; its text is Go's."""


def quote(s: str) -> str:
    """time's `quote`: `"`-quoted, `"` and `\\` escaped, each byte of a non-ASCII or control character as `\\xNN`."""
    out = ['"']
    for c in s:
        if c >= "\x80" or c < " ":
            try:
                raw = c.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # a lone surrogate Go could not hold: its utf8.RuneError
                raw = b"\xef\xbf\xbd"
            out.append("".join(f"\\x{b:02x}" for b in raw))
        else:
            out.append("\\" + c if c in '"\\' else c)
    out.append('"')
    return "".join(out)


def _invalid(orig: str) -> DurationError:
    return DurationError("time: invalid duration " + quote(orig))


def parse_duration(s: str) -> int:
    """`time.ParseDuration`: the duration in nanoseconds, or DurationError with Go's message."""
    orig = s
    neg = False
    if s and s[0] in "-+":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise _invalid(orig)
    d, i, n = 0, 0, len(s)
    while i < n:
        c = s[i]
        if c != "." and c not in _DIGITS:
            raise _invalid(orig)
        # leadingInt: [0-9]*, refused past 1<<63
        start, v = i, 0
        while i < n and s[i] in _DIGITS:
            if v > _MAX // 10:
                raise _invalid(orig)
            v = v * 10 + ord(s[i]) - 48
            if v > _MAX:
                raise _invalid(orig)
            i += 1
        pre = i != start
        # leadingFraction: (\.[0-9]*)?, precision dropped (not refused) once it would overflow
        f, scale, post = 0, 1.0, False
        if i < n and s[i] == ".":
            i += 1
            start, overflow = i, False
            while i < n and s[i] in _DIGITS:
                if not overflow:
                    y = f * 10 + ord(s[i]) - 48
                    if f > (_MAX - 1) // 10 or y > _MAX:
                        overflow = True
                    else:
                        f, scale = y, scale * 10
                i += 1
            post = i != start
        if not pre and not post:
            raise _invalid(orig)
        start = i
        while i < n and s[i] != "." and s[i] not in _DIGITS:
            i += 1
        if i == start:
            raise DurationError("time: missing unit in duration " + quote(orig))
        u = s[start:i]
        unit = UNITS.get(u)
        if unit is None:
            raise DurationError(f"time: unknown unit {quote(u)} in duration {quote(orig)}")
        if v > _MAX // unit:
            raise _invalid(orig)
        v *= unit
        if f > 0:
            v += int(float(f) * (float(unit) / scale))  # float64, as Go: nanosecond-exact for fractions of hours
            if v > _MAX:
                raise _invalid(orig)
        d += v
        if d > _MAX:
            raise _invalid(orig)
    if neg:
        return -d
    if d > _MAX - 1:
        raise _invalid(orig)
    return d


__all__ = ["DurationError", "UNITS", "parse_duration", "quote"]
