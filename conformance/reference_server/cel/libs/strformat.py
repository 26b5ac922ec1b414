"""`<string>.format(<list>)` and `strings.quote(<string>)` of cel-go's strings extension at the version 1.33
enables (`ext.Strings(ext.StringsVersion(2))`, cel-go v0.23 `ext/formatting.go`, `ext/strings.go`): the clauses `%s`, `%d`, `%f`/`%.Nf`, `%e`, `%b`,
`%o`, `%x`/`%X` and `%%`, the default `en_US` locale's number output (golang.org/x/text: `,` grouping for `%f`,
`2.718280 × 10⁰⁰` for `%e`, whose precision cel-go passes as a width and so ignores), and its error texts.

Values print as cel-go prints them: doubles alone as `strconv.FormatFloat(f, 'g', -1, 64)`, inside lists and maps
with six decimals; strings, bytes, timestamps and durations inside lists and maps quoted as CEL literals; map
entries sorted by their printed key."""
from __future__ import annotations

import datetime
import json
import math
from collections.abc import Callable
from typing import Any

from ...goport.gofmt import format_float as go_float
from .arith import exact_nanos, exact_time
from .values import LibraryError, runtime_type

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


class _ExactDuration(datetime.timedelta):
    """A duration with its nanoseconds (`format_exact`): Python's own stops at the microsecond."""

    nanos: int


class _ExactTime(datetime.datetime):
    """A timestamp with the nanoseconds of its second (`format_exact`)."""

    nanos: int


def _duration(d: datetime.timedelta) -> str:
    nanos = d.nanos if isinstance(d, _ExactDuration) else d // datetime.timedelta(microseconds=1) * 1000
    seconds, frac = divmod(abs(nanos), 1_000_000_000)
    text = f"{seconds}" + (f".{frac:09d}".rstrip("0") if frac else "")
    return ("-" if nanos < 0 else "") + text + "s"


def _timestamp(t: datetime.datetime) -> str:
    nanos = t.nanos if isinstance(t, _ExactTime) else t.microsecond * 1000
    t = t.astimezone(datetime.timezone.utc)
    text = t.strftime("%Y-%m-%dT%H:%M:%S")
    if nanos:
        text += f".{nanos:09d}".rstrip("0")
    return text + "Z"


def format_string(v: Any) -> str:
    """`FormatString`: the `%s` clause."""
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_member(m) for m in v) + "]"
    if isinstance(v, dict):
        pairs = sorted((_key(k), _member(val)) for k, val in v.items())
        return "{" + ", ".join(f"{k}:{val}" for k, val in pairs) + "}"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return go_float(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, datetime.datetime):
        return _timestamp(v)
    if isinstance(v, datetime.timedelta):
        return _duration(v)
    raise _clause_error("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
                        f"types, durations, and timestamps, was given {runtime_type(v)}")


def _key(k: Any) -> str:
    if isinstance(k, (str, bool, int)):
        return _quoted(k, format_string(k))
    raise LibraryError(f"no formatting function for map key of type {runtime_type(k)}")


def _member(v: Any) -> str:
    """A list element or map value: `clauseForType`, then `quoteForCEL`."""
    if isinstance(v, float):
        text = "NaN" if math.isnan(v) else ("+Inf" if v > 0 else "-Inf") if math.isinf(v) else f"{v:.6f}"
        return json.dumps(text) if math.isnan(v) or math.isinf(v) else text
    if isinstance(v, datetime.datetime):
        return f'timestamp("{_timestamp(v)}")'
    if isinstance(v, datetime.timedelta):
        return f'duration("{_duration(v)}")'
    return _quoted(v, format_string(v))


def _quoted(v: Any, text: str) -> str:
    if isinstance(v, str):
        return json.dumps(text, ensure_ascii=False)
    if isinstance(v, bytes):
        return "b" + json.dumps(text, ensure_ascii=False)
    return text


def _integer(v: Any, clause: str) -> int:
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise _clause_error(f"{clause}, was given {runtime_type(v)}")


def _double(v: Any, clause: str) -> float:
    if isinstance(v, str) and v in ("NaN", "Infinity", "-Infinity"):
        return float(v.replace("Infinity", "inf"))
    if isinstance(v, float):
        return v
    raise _clause_error(f"{clause}, was given {runtime_type(v)}")


def _not_finite(f: float) -> str:
    """How golang.org/x/text prints NaN and the infinities ("" for a finite number)."""
    if math.isnan(f):
        return "NaN"
    return ("∞" if f > 0 else "-∞") if math.isinf(f) else ""


def _fixed(precision: int | None) -> Callable[[Any], str]:
    def clause(v: Any) -> str:
        f = _double(v, "fixed-point clause can only be used on doubles")
        return _not_finite(f) or f"{f:,.{6 if precision is None else precision}f}"
    return clause


def _scientific(v: Any) -> str:
    f = _double(v, "scientific clause can only be used on doubles")
    if _not_finite(f):
        return _not_finite(f)
    mantissa, _, exp = f"{f:.6e}".partition("e")
    e = int(exp)
    return f"{mantissa}\u202f×\u202f10" + (("-" if e < 0 else "") + f"{abs(e):02d}").translate(_SUPERSCRIPT)


def _hex(upper: bool) -> Callable[[Any], str]:
    def clause(v: Any) -> str:
        if isinstance(v, (str, bytes)):
            out = (v.encode() if isinstance(v, str) else v).hex()
        else:
            out = format(_integer(v, "only integers, byte buffers, and strings can be formatted as hex"), "x")
        return out.upper() if upper else out
    return clause


def _binary(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    return format(_integer(v, "only integers and bools can be formatted as binary"), "b")


class _ClauseError(LibraryError):
    pass


def _clause_error(message: str) -> _ClauseError:
    return _ClauseError(message)


def _clause(text: str) -> tuple[int, Callable[[Any], str]]:
    """`parseFormattingClause` on what follows a `%`: characters read and the clause."""
    i, precision = 0, None
    if text[:1] == ".":
        i = 1
        while i < len(text) and text[i].isascii() and text[i].isdigit():
            i += 1
        if i >= len(text):
            raise LibraryError("could not parse formatting clause: error while parsing precision: could not find "
                               "end of precision specifier")
        try:
            precision = int(text[1:i])
        except ValueError:
            raise LibraryError("could not parse formatting clause: error while parsing precision: error while "
                               f'converting precision to integer: strconv.Atoi: parsing "{text[1:i]}": invalid '
                               "syntax") from None
    verb = text[i]
    clauses: dict[str, Callable[[Any], str]] = {
        "s": format_string, "d": lambda v: str(_integer(v, "decimal clause can only be used on integers")),
        "f": _fixed(precision), "e": _scientific, "b": _binary, "x": _hex(False), "X": _hex(True),
        "o": lambda v: format(_integer(v, "octal clause can only be used on integers"), "o"),
    }
    if verb not in clauses:
        raise LibraryError(f'could not parse formatting clause: unrecognized formatting clause "{verb}"')
    return i + 1, clauses[verb]


# the types each clause takes, as cel-go's compile-time `stringFormatChecker` verifies them (dyn always passes)
CLAUSE_TYPES: dict[str, tuple[tuple[str, ...], str]] = {
    "d": (("int", "uint"), "decimal clause can only be used on integers"),
    "f": (("double", "string"), "fixed-point clause can only be used on doubles"),
    "e": (("double", "string"), "scientific clause can only be used on doubles"),
    "b": (("int", "uint", "bool"), "only integers and bools can be formatted as binary"),
    "x": (("int", "uint", "string", "bytes"), "only integers, byte buffers, and strings can be formatted as hex"),
    "o": (("int", "uint"), "octal clause can only be used on integers"),
    "s": (("list", "map", "int", "uint", "double", "bool", "string", "google.protobuf.Timestamp", "bytes",
           "google.protobuf.Duration", "type", "null_type"),
          ("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, "
           "and timestamps")),
}


def clause_verbs(fmt: str, count: int) -> list[str]:
    """The verbs of `fmt`'s clauses for `count` arguments, or LibraryError with `parseFormatString`'s error."""
    verbs, i = [], 0
    while i < len(fmt):
        if fmt[i] != "%":
            i += 1
            continue
        if fmt[i + 1:i + 2] == "%":
            i += 2
            continue
        if len(verbs) >= count:
            raise LibraryError(f"index {len(verbs)} out of range")
        if i + 1 >= len(fmt):
            raise LibraryError("unexpected end of string")
        read, _ = _clause(fmt[i + 1:])
        verbs.append(fmt[i + read].lower() if fmt[i + read] == "X" else fmt[i + read])
        i += 1 + read
    return verbs


def string_format(fmt: Any, args: Any) -> str:
    """`parseFormatString` with the runtime's clauses."""
    if not isinstance(fmt, str) or not isinstance(args, (list, tuple)):
        raise LibraryError("no such overload: format")
    out, i, index = [], 0, 0
    while i < len(fmt):
        if fmt[i] != "%":
            out.append(fmt[i])
            i += 1
            continue
        if fmt[i + 1:i + 2] == "%":
            out.append("%")
            i += 2
            continue
        if index >= len(args):
            raise LibraryError(f"index {index} out of range")
        if i + 1 >= len(fmt):
            raise LibraryError("unexpected end of string")
        read, clause = _clause(fmt[i + 1:])
        try:
            out.append(clause(args[index]))
        except _ClauseError as exc:
            raise LibraryError(f"error during formatting: {exc}") from None
        i += 1 + read
        index += 1
    return "".join(out)


def _exact(value: Any, text: str) -> Any:
    """A duration or timestamp from cel-rust's exact `text` of it (cel/desugar.py), else `value` itself."""
    if text and isinstance(value, datetime.timedelta):
        exact = _ExactDuration(microseconds=exact_nanos(text) // 1000)
        exact.nanos = exact_nanos(text)
        return exact
    if text and isinstance(value, datetime.datetime):
        unix, nanos, offset = exact_time(text)
        at = datetime.datetime.fromtimestamp(unix, datetime.timezone(datetime.timedelta(seconds=offset)))
        out = _ExactTime(at.year, at.month, at.day, at.hour, at.minute, at.second, nanos // 1000, at.tzinfo)
        out.nanos = nanos
        return out
    return value


def format_exact(fmt: Any, pairs: Any) -> str:
    """`fmt.format(args)` where desugar.py paired each argument with cel-rust's exact text of it (a duration or a
    timestamp; '' for others): printed to the nanosecond."""
    if not isinstance(pairs, (list, tuple)) or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs):
        return string_format(fmt, pairs)
    return string_format(fmt, [_exact(value, text) for value, text in pairs])


_QUOTE = str.maketrans({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                        "\v": "\\v", "\\": "\\\\", '"': '\\"'})


def quote(text: Any) -> str:
    """`strings.quote` (ext/strings.go `quote`): the string between double quotes, its escapes spelled out."""
    if not isinstance(text, str):
        raise LibraryError("no such overload: strings.quote")
    return '"' + text.translate(_QUOTE) + '"'


FUNCTIONS: dict[str, Callable[..., Any]] = {"format": string_format, "strings.quote": quote,
                                            "__format_exact": format_exact}
