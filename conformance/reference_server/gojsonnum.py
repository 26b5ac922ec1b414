"""JSON numbers as Go holds and writes them, where Python's `json` differs.

Reading (upstream: k8s.io/apimachinery/pkg/util/json `Unmarshal` = sigs.k8s.io/json
`UnmarshalCaseSensitivePreserveInts`, `decodeState.convertNumber`; encoding/json `literalStore`): an integer is
an int64 when it fits, any other number a float64 from `strconv.ParseFloat(s, 64)`. A literal ParseFloat cannot
hold (`1e400`, an integer of 309 digits) is an `UnmarshalTypeError` worded with the literal as written
(`json: cannot unmarshal number 1e400 into Go value of type float64`); Python would read `inf` (later written
`Infinity`, which no client can read). `go_float` keeps such a literal, and any float literal Python would word
otherwise (`1e2` is `number 1e2` in Go's errors, not `100.0`), on a `GoFloat`.

Writing (encoding/json `floatEncoder.encode`, 64 bits): `strconv.AppendFloat(f, 'f', -1, 64)`, or 'e' below
1e-6 and from 1e21, with `e-09` cleaned to `e-9`: float64 2 is `2`, 1e20 `100000000000000000000`, 1e-7 `1e-7`,
where Python writes `2.0`, `1e+20`, `1e-07`. `encode` writes what Go writes; the fast C encoder's output is
re-encoded only when it holds a float Python words otherwise (`needs_go_floats`: searched for only once some
body held a float, so answers of a server that never read one cost what they did).
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from decimal import Decimal
from json.encoder import _make_iterencode, encode_basestring  # type: ignore[attr-defined]
from typing import Any

_INT64 = 2 ** 63


class GoFloat(float):
    """A decoded float64 with the literal it was written as (`literal`); `overflow`: ParseFloat refused it (the
    value is an infinity no Go decoder would hold, so it must never be stored)."""

    __slots__ = ("literal",)

    @property
    def overflow(self) -> bool:
        return math.isinf(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return _go_float_of, (float(self), self.literal)

    def __deepcopy__(self, memo: dict[int, Any]) -> GoFloat:
        return self


def _go_float_of(value: float, literal: str) -> GoFloat:
    out = GoFloat(value)
    out.literal = literal
    return out


_seen = [0]  # overflows decoded since start: until the first, no custom resource is walked for one


def overflow_seen() -> bool:
    """Has any body held a number no float64 holds? (Then `first_overflow` is worth its walk.)"""
    return _seen[0] > 0


def go_float(literal: str) -> float:
    """`parse_float` of `json.loads`: a float, or a `GoFloat` where Go's words of it differ from Python's (its
    literal in an error or a patched document, or its encoding: `2.0` is Go's `2`)."""
    f = float(literal)
    if math.isinf(f):
        _seen[0] += 1
    elif repr(f) == literal and not _python_differs(f):
        return f
    note_float(f)
    return _go_float_of(f, literal)


def go_int(literal: str) -> int | float:
    """`parse_int` of `json.loads`: an int64, else (ParseInt out of range) the float64 `ParseFloat` makes of it
    (a `GoFloat` keeping the digits), an overflow past its range (more than 309 digits: never given to `int()`,
    whose 4300-digit limit would refuse it otherwise than Go)."""
    if len(literal) < 19:
        return int(literal)
    if len(literal) <= 310:
        v = int(literal)
        if -_INT64 <= v < _INT64:
            return v
    f = float(literal)  # (inf past the float64 range)
    if math.isinf(f):
        _seen[0] += 1
    note_float(f)
    return _go_float_of(f, literal)


def first_overflow(v: Any) -> GoFloat | None:
    """The first number (document order) no float64 holds, or None."""
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, GoFloat) and x.overflow:
            return x
        if isinstance(x, dict):
            stack.extend(reversed(list(x.values())))
        elif isinstance(x, list):
            stack.extend(reversed(x))
    return None


def overflow_error(v: GoFloat) -> str:
    """`convertNumber`'s UnmarshalTypeError (no struct context: a value decoded into `interface{}`)."""
    return f"json: cannot unmarshal number {v.literal} into Go value of type float64"


def float_literal(f: float) -> str:
    """encoding/json's `floatEncoder` (64 bits); a NaN or an infinity (Go: `UnsupportedValueError`) is `null`."""
    if not math.isfinite(f):
        return "null"
    if f == 0:
        return "-0" if math.copysign(1, f) < 0 else "0"
    sign, digits, exp = Decimal(repr(float(f))).normalize().as_tuple()
    text, point = "".join(map(str, digits)), len(digits) + int(exp)
    if 1e-6 <= abs(f) < 1e21:
        out = ("0." + "0" * -point + text if point <= 0 else
               text + "0" * (point - len(text)) if point >= len(text) else text[:point] + "." + text[point:])
    else:
        e = point - 1
        out = text[0] + ("." + text[1:] if len(text) > 1 else "") + ("e-" if e < 0 else "e+") + \
            (f"{e:02d}" if e >= 0 else str(-e))  # `e-09` cleaned to `e-9`
    return ("-" if sign else "") + out


def _literal_or_go(f: float) -> str:
    """A patch's number as evanphx/json-patch keeps it (its raw bytes), else Go's."""
    return f.literal if isinstance(f, GoFloat) else float_literal(f)


def _default(o: Any) -> Any:
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def _iterencode(floatstr: Callable[[float], str]) -> Callable[[Any, int], Any]:
    return _make_iterencode(None, _default, encode_basestring, None, floatstr, ":", ",", False, False, True)


_GO = _iterencode(float_literal)
_RAW = _iterencode(_literal_or_go)
# Python's forms Go writes otherwise, each ending where a JSON number ends (a string rarely holds one so)
_SUSPECT = re.compile(r"[.eIN](?:0[,}\]]|\+(?:1[6-9]|20)[,}\]]|-0[0-9][,}\]]|nfinity[,}\]]|aN[,}\]])")


_floats = [False]  # has any body held a float Python writes otherwise? Until then no answer can hold one


def _python_differs(f: float) -> bool:
    """Does Python write `f` otherwise than Go (`2.0`, `1e-05`, `inf`)?"""
    r = repr(f)
    return r.endswith(".0") or ("e" in r or "n" in r) and float_literal(f) != r


def note_float(f: float) -> None:
    """A decoder read `f` (JSON, YAML): if Python writes it otherwise than Go, answers are checked for such
    floats from now on."""
    if not _floats[0] and _python_differs(f):
        _floats[0] = True


def needs_go_floats(text: str) -> bool:
    """Could `text` (compact JSON from Python's encoder) hold a float Go writes otherwise? (`2.0`, `1e+16` to
    `1e+20`, `1e-05`; and `Infinity`, `NaN`, which no client reads: written `null`.) Never before a body held
    such a float (`note_float`): a scan of every answer costs about as much as its encoding."""
    return _floats[0] and _SUSPECT.search(text) is not None


def encode(obj: Any, text: str | None = None) -> str:
    """Compact JSON of `obj` with Go's float formatting; `text`: Python's compact encoding of it, already made
    (answered as it is when it holds no float Python words otherwise)."""
    if text is None:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    if not needs_go_floats(text):
        return text
    return "".join(_GO(obj, 0))


def yaml_float_text(f: float) -> tuple[bool, str]:
    """A float64 in a YAML answer (sigs.k8s.io/yaml `JSONToYAML`: the JSON Go wrote, read by go-yaml v2 and
    written again): (is an int, text). JSON's integer text that an int64 or a uint64 holds is an int; any other
    number a float, written `strconv.FormatFloat(f, 'g', -1, 64)` (`.inf` never: not stored)."""
    text = float_literal(f)
    if "." not in text and "e" not in text and -_INT64 <= int(text) < 2 * _INT64:
        return True, text
    from .gofmt import format_float
    return False, format_float(f)


def encode_raw_literals(obj: Any) -> str:
    """Compact JSON with each decoded number as it was written (a patched document before Go decodes it)."""
    return "".join(_RAW(obj, 0))


__all__ = [
    "GoFloat",
    "encode",
    "encode_raw_literals",
    "first_overflow",
    "float_literal",
    "go_float",
    "go_int",
    "needs_go_floats",
    "note_float",
    "overflow_error",
    "overflow_seen",
    "yaml_float_text",
]
