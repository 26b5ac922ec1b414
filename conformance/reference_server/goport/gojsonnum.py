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

Raw JSON (upstream: apimachinery `runtime/extension.go`, `RawExtension.UnmarshalJSON` keeps the bytes sent and
`MarshalJSON` answers them, which encoding/json only compacts): a number inside a typed kind's `RawExtension`
(ControllerRevision `data`) is never converted, so `1e400`, `1e2` and `0.10` are answered as sent. `keep_literals`
marks such numbers (`RawFloat`: written as its literal); `loads_stored` reads an etcd value back with them (every
other float is stored in Go's words, so a stored literal in other words is a raw one).
"""
from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Callable
from decimal import Decimal
from json.encoder import _make_iterencode, encode_basestring  # type: ignore[attr-defined]
from typing import Any

from .gojsonhtml import escape_html

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


class RawFloat(GoFloat):
    """A number in a raw-JSON field (`RawExtension`), answered as its `literal` (Go keeps the bytes sent)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return _raw_float_of, (float(self), self.literal)


def _raw_float_of(value: float, literal: str) -> RawFloat:
    out = RawFloat(value)
    out.literal = literal
    _note_raw(out)
    return out


_RAW_REPRS_MAX = 64
_raw_reprs: set[str] = set()  # Python's text of the raw numbers made (what the C encoder writes for them)
_raw_all = [False]  # too many distinct ones: every answer that holds a float is re-encoded


def _note_raw(f: RawFloat) -> None:
    """Answers from now on look for `f` as Python writes it (`0.1` for a raw `0.10`)."""
    _floats[0] = True
    text = repr(float(f)) if math.isfinite(f) else "Infinity"
    if text not in _raw_reprs and not _raw_all[0]:
        if len(_raw_reprs) >= _RAW_REPRS_MAX:
            _raw_all[0] = True
        else:
            _raw_reprs.add(text)


def keep_literals(v: Any) -> Any:
    """A raw-JSON field's value with each number Go would not write as sent made a `RawFloat` (in place where it
    can be; the value itself when it is such a number)."""
    if isinstance(v, GoFloat):
        return v if type(v) is RawFloat else _raw_float_of(float(v), v.literal)
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, (dict, list, GoFloat)):
                v[k] = keep_literals(x)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            if isinstance(x, (dict, list, GoFloat)):
                v[i] = keep_literals(x)
    return v


def remarshal(v: Any) -> Any:
    """A raw-JSON field's value read by util/json and written again by encoding/json (the unstructured converter's
    round trip of a `RawExtension`: a strategic-merge patch, a server-side apply): each `RawFloat` a plain float
    (one no float64 holds stays as sent, never to be answered `null`), map keys sorted. A copy."""
    if isinstance(v, dict):
        return {k: remarshal(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [remarshal(x) for x in v]
    if type(v) is RawFloat and not v.overflow:
        return float(v)
    return _raw.plain(v)  # (a string or an integer held with its bytes: gojsonraw.py)


def _stored_float(literal: str) -> float:
    """`parse_float` of a stored value: a literal our writer would not have written is a raw one."""
    f = float(literal)
    if repr(f) == literal and not _python_differs(f) or float_literal(f) == literal:
        return f
    return _raw_float_of(f, literal)


_STORED = json.JSONDecoder(parse_float=_stored_float)


def loads_stored(raw: bytes | str) -> Any:
    """An etcd value as this server wrote it (`encode`), raw-JSON numbers as `RawFloat`s again, a `RawExtension`
    held with its stored bytes (gojsonraw.py)."""
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    obj = _STORED.decode(text)
    return _raw.loaded(text, obj) if _raw.KIND_MARK in text else obj


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
    """The first number (document order) no float64 holds, or None; a raw-JSON field's (`RawFloat`) is kept."""
    return _first(v, lambda x: isinstance(x, GoFloat) and x.overflow and type(x) is not RawFloat)


def raw_overflow(v: Any) -> RawFloat | None:
    """The first number no float64 holds that a raw-JSON field kept (document order), or None."""
    return _first(v, lambda x: type(x) is RawFloat and x.overflow)


def _first(v: Any, found: Callable[[Any], bool]) -> Any:
    stack = [v]
    while stack:
        x = stack.pop()
        if found(x):
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


def _go_or_raw(f: float) -> str:
    """encoding/json's words of a float, a raw-JSON number's own."""
    return f.literal if type(f) is RawFloat else float_literal(f)


def _literal_or_go(f: float) -> str:
    """A patch's number as evanphx/json-patch keeps it (its raw bytes), else Go's."""
    return f.literal if isinstance(f, GoFloat) else float_literal(f)


def _default(o: Any) -> Any:
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def _iterencode(floatstr: Callable[[float], str]) -> Callable[[Any, int], Any]:
    return _make_iterencode(None, _default, encode_basestring, None, floatstr, ":", ",", False, False, True)


_GO = _iterencode(_go_or_raw)
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
    if not _floats[0]:
        return False
    if _SUSPECT.search(text) is not None:
        return True
    return bool(_raw_reprs) and (_raw_all[0] or any(r in text for r in _raw_reprs))


def encode(obj: Any, text: str | None = None, html: bool = True) -> str:
    """Compact JSON of `obj` with Go's float formatting and HTML escapes (gojsonhtml.py); `text`: Python's compact encoding of it, already made
    (answered as it is when it holds no float Python words otherwise). A `RawExtension` held with its bytes
    (gojsonraw.py) is written as `MarshalJSON` answers them, compacted."""
    if text is None:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    if _raw.SEEN[0] and _raw.KIND_MARK in text:  # (a list lookup: answers of other kinds pay nothing more)
        return _raw.encode(obj, html)
    if needs_go_floats(text):
        text = "".join(_GO(obj, 0))
    return escape_html(text) if html else text


def yaml_float_text(f: float) -> tuple[bool, str]:
    """A float64 in a YAML answer (sigs.k8s.io/yaml `JSONToYAML`: the JSON Go wrote, read by go-yaml v2 and
    written again): (is an int, text). JSON's integer text that an int64 or a uint64 holds is an int; any other
    number a float, written `strconv.FormatFloat(f, 'g', -1, 64)`. A raw-JSON number is read from its literal:
    one no float64 holds is a string to go-yaml's resolver (`ParseFloat` fails), written plain (`1e400`)."""
    text = _go_or_raw(f)
    if (text.isdigit() or text[:1] == "-" and text[1:].isdigit()) and -_INT64 <= int(text) < 2 * _INT64:
        return True, text
    if math.isinf(f):
        return False, text
    from .gofmt import format_float
    out = format_float(f)  # (digits alone only for a raw `1e2`: go-yaml writes that 100 plain, as an int looks)
    return out.lstrip("-").isdigit(), out


def float32_value(f: float) -> float | None:
    """A number decoded into a Go `float32` field (encoding/json `literalStore`: `strconv.ParseFloat(s, 32)`),
    as encoding/json writes it back (`AppendFloat(f, 'f', -1, 32)`: the shortest digits float32 reads the same,
    `float32(0.1)` is `0.1`), held as the float64 of those digits; None when the float32 cannot hold it (ParseFloat
    refuses `1e39`: the decoder's `UnmarshalTypeError`)."""
    if math.isinf(f):
        return None
    try:
        single = struct.pack("<f", f)  # (the nearest float32; OverflowError past its range)
    except OverflowError:
        return None
    value = struct.unpack("<f", single)[0]
    if math.isinf(value):
        return None
    for digits in range(1, 10):
        shortest = float(f"{value:.{digits}g}")
        try:
            if struct.pack("<f", shortest) == single:
                return shortest
        except OverflowError:  # (fewer digits rounded up past the range)
            continue
    return value


def encode_raw_literals(obj: Any) -> str:
    """Compact JSON with each decoded number as it was written (a patched document before Go decodes it)."""
    return "".join(_RAW(obj, 0))


from . import gojsonraw as _raw  # (last: it reads this module's functions when called)

__all__ = [
    "GoFloat",
    "RawFloat",
    "encode",
    "encode_raw_literals",
    "first_overflow",
    "float32_value",
    "float_literal",
    "go_float",
    "go_int",
    "keep_literals",
    "loads_stored",
    "needs_go_floats",
    "note_float",
    "overflow_error",
    "overflow_seen",
    "raw_overflow",
    "remarshal",
    "yaml_float_text",
]
