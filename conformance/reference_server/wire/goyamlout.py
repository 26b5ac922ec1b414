"""YAML answers as kube-apiserver writes them: apimachinery's `runtime/serializer/json/json.go` `doEncode` with
`Yaml: true` is `json.Marshal` then sigs.k8s.io/yaml v1.4.0 `JSONToYAML`: go-yaml v2 (its fork `goyaml.v2`)
reads the JSON into `interface{}` and writes it again (`encode.go`, `sorter.go`, `resolve.go`, `emitterc.go`).

What that gives, where PyYAML's own dumper differs:
- map keys sorted as `keyList.Less` sorts strings: rune by rune, a letter before anything else, runs of digits
  compared as numbers (`a2` before `a10`);
- a string is plain only where go-yaml's resolver would read it back as a string (`resolve("", s)` is `!!str`,
  and not a base-60 float such as `1:30`); else double-quoted (`"214"`, `"true"`, `"y"`, `""`, `"null"`, `"<<"`,
  `"1e3"`, and a timestamp such as `"2026-11-24T22:16:57Z"`, which PyYAML single-quotes); a string holding a
  newline is a literal block (`|`, `|-`, `|+`); the emitter (libyaml's, which PyYAML's also ports) falls back to
  single quotes where plain text would not read back (`': x'`) and to double quotes where neither does;
- numbers as go-yaml reads JSON's (gojsonnum.yaml_float_text), 80 columns, two-space indentation with a
  sequence inside a mapping not indented, non-ASCII text as is, no `---` and no closing `...`.
"""
from __future__ import annotations

import functools
import io
import math
import re
from typing import Any

from yaml.emitter import Emitter
from yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)

from ..goport.gojsonnum import yaml_float_text
from ..goport.gonet.strconv import valid_text
from .goyaml import _FLOAT, _MAP, _hint, _parse_int

_BASE60 = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")  # encode.go `base60float`
_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:([Tt])([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})"
                        r"(?:[.,][0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2})|( )([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})"
                        r"(?:[.,][0-9]+)?)?")
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_PLAIN = (True, True)
_QUOTED = (False, True)


def _is_timestamp(s: str) -> bool:
    """`parseTimestamp`: one of `allowedTimestampFormats` parses with Go's `time.Parse` (its range checks)."""
    found = _TIMESTAMP.fullmatch(s)
    if found is None:
        return False
    g = found.groups()
    year, month, day = int(g[0]), int(g[1]), int(g[2])
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not 1 <= month <= 12 or not 1 <= day <= _DAYS[month - 1] + (month == 2 and leap):
        return False
    clock = g[4:7] if g[3] else g[8:11] if g[7] else None
    return clock is None or int(clock[0]) < 24 and int(clock[1]) < 60 and int(clock[2]) < 60


def plain_ok(s: str) -> bool:
    """`stringv`'s `canUsePlain`: go-yaml's `resolve("", s)` reads `s` back as a string, and it is no base-60
    float."""
    if s in _MAP or s == "<<":
        return False
    hint = _hint(s)
    if hint == ".":
        return not (_FLOAT.fullmatch(s) and math.isfinite(float(s)))
    if hint in ("D", "S"):
        plain = s.replace("_", "")
        if _parse_int(plain) is not None or _FLOAT.fullmatch(plain) and math.isfinite(float(plain)):
            return False
        if hint == "D" and _is_timestamp(s):
            return False
    return not (s[:1] in "+-0123456789" and ":" in s and _BASE60.fullmatch(s))


def _key_cmp(a: str, b: str) -> int:
    """`keyList.Less` for two strings, as a comparison."""
    for i in range(min(len(a), len(b))):
        x, y = a[i], b[i]
        if x == y:
            continue
        xl, yl = x.isalpha(), y.isalpha()
        if xl and yl:
            return -1 if x < y else 1
        if xl or yl:
            return 1 if xl else -1
        an = bn = 0
        if x == "0" or y == "0":
            j = i - 1
            while j >= 0 and a[j].isdecimal():
                if a[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(a) and a[ai].isdecimal():
            an = an * 10 + ord(a[ai]) - 48
            ai += 1
        bi = i
        while bi < len(b) and b[bi].isdecimal():
            bn = bn * 10 + ord(b[bi]) - 48
            bi += 1
        if an != bn:
            return -1 if an < bn else 1
        if ai != bi:
            return -1 if ai < bi else 1
        return -1 if x < y else 1
    return (len(a) > len(b)) - (len(a) < len(b))


_KEY = functools.cmp_to_key(_key_cmp)


def _scalar(text: str, implicit: tuple[bool, bool] = _PLAIN, style: str | None = None) -> ScalarEvent:
    return ScalarEvent(None, None, implicit, text, style=style)


def _string(s: str) -> ScalarEvent:
    s = valid_text(s)  # a byte that is not UTF-8 (a query value's): U+FFFD, as go-yaml reads json.Marshal's `\ufffd`
    if "\n" in s:
        return _scalar(s, _QUOTED, "|")
    if plain_ok(s):
        return _scalar(s)
    return _scalar(s, _QUOTED, '"')


def _events(value: Any, out: list[Any]) -> None:
    if isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, dict):
        out.append(MappingStartEvent(None, None, True, flow_style=False))
        for key in sorted((str(k) for k in value), key=_KEY):
            out.append(_string(key))
            _events(value[key], out)
        out.append(MappingEndEvent())
    elif isinstance(value, (list, tuple)):
        out.append(SequenceStartEvent(None, None, True, flow_style=False))
        for item in value:
            _events(item, out)
        out.append(SequenceEndEvent())
    elif value is None:
        out.append(_scalar("null"))
    elif isinstance(value, bool):
        out.append(_scalar("true" if value else "false"))
    elif isinstance(value, int):
        out.append(_scalar(str(int(value))))
    elif isinstance(value, float):
        out.append(_scalar(_float_text(value)))
    else:
        raise TypeError(f"cannot write {type(value).__name__} as YAML")


def _float_text(f: float) -> str:
    """A JSON number go-yaml read as a float (or an int), as it writes it; NaN or an infinity (no JSON number:
    `json.Marshal` would have failed) as go-yaml's own words."""
    if math.isnan(f):
        return ".nan"
    _, text = yaml_float_text(f)
    return text if math.isfinite(f) or text not in ("+Inf", "-Inf", "null") else (".inf" if f > 0 else "-.inf")


def dumps(obj: Any) -> bytes:
    """`JSONToYAML(json.Marshal(obj))`."""
    events: list[Any] = [StreamStartEvent(encoding=None), DocumentStartEvent(explicit=False)]
    _events(obj, events)
    events.append(DocumentEndEvent(explicit=False))
    stream = io.StringIO()
    emitter = Emitter(stream, indent=2, width=80, allow_unicode=True)
    for event in events:
        emitter.emit(event)
    emitter.open_ended = False  # `encoder.finish`: no `...` after a kept (`|+`) block
    emitter.emit(StreamEndEvent())
    return stream.getvalue().encode("utf-8")


__all__ = ["dumps", "plain_ok"]
