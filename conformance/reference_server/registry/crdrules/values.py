"""A custom resource's values as its rules see them (`apiserver/pkg/cel/common/values.go` `UnstructuredToVal`):
property names escaped, numbers doubles, `date-time`/`date` strings timestamps, `duration` strings durations
(kube-openapi's `strfmt.ParseDuration`: godur.py's Go grammar, then strfmt's own), `byte` strings bytes, the
metadata of a resource root reduced to `name` and `generateName`.

A timestamp or duration with digits finer than a microsecond (Python's `datetime`/`timedelta` stop there) is
handed over as the exact text cel-rust's `timestamp()`/`duration()` read, and `time_paths` tells the rule's
compiler where such values may be (cel/exacttime.py converts them where the rule reads them)."""
from __future__ import annotations

import base64
import binascii
import re
from datetime import datetime, timedelta, timezone
from typing import Any

from ...cel.exacttime import ITEMS, VALUES, TimePaths
from ...cel.libs.arith import rust_duration, timestamp_text
from ...cel.libs.conversions import parse_rfc3339
from ...goport.godur import DurationError, parse_duration
from .compiler import escape


def to_cel(value: Any, schema: Any, resource_root: bool = False) -> Any:
    """`UnstructuredToVal`: property names escaped, numbers doubles, date-time strings timestamps, the metadata
    of a resource root reduced to `name` and `generateName`."""
    if not isinstance(schema, dict) or value is None:
        return value
    if isinstance(value, dict):
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        extra = schema.get("additionalProperties")
        root = resource_root or bool(schema.get("x-kubernetes-embedded-resource"))
        out: dict[str, Any] = {}
        for k, v in value.items():
            if root and k == "metadata" and isinstance(v, dict):
                out[k] = {m: v[m] for m in ("name", "generateName") if m in v}
            elif k in props:
                escaped = escape(k)
                if escaped is not None:
                    out[escaped] = to_cel(v, props[k])
            elif isinstance(extra, dict):
                out[k] = to_cel(v, extra)
            else:
                out[k] = v
        return out
    if isinstance(value, list):
        return [to_cel(v, schema.get("items")) for v in value]
    if schema.get("type") == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if schema.get("type") == "string" and isinstance(value, str) and schema.get("format") in _FORMATS:
        try:
            return _FORMATS[schema["format"]](value)
        except (ValueError, binascii.Error):
            return value  # upstream: an error value, which fails the rules that read it
    return value


# kube-openapi's strfmt (`pkg/validation/strfmt/duration.go` at c8a335a9a2ff, the version 1.33 pins): Go's grammar,
# else every `<digits>\s*<letters>` found anywhere in the string (not anchored: `1.5d` is `5d`, `-1d` is `1d`, unknown
# units are skipped), each unit matched case-blind to a variant, or to a prefix of the group's last variant
_STRFMT_UNITS = ((("ns", "nano"), 1), (("us", "µs", "micro"), 1_000), (("ms", "milli"), 1_000_000),
                 (("s", "sec"), 10**9), (("m", "min"), 60 * 10**9), (("h", "hr", "hour"), 3_600 * 10**9),
                 (("d", "day"), 86_400 * 10**9), (("w", "wk", "week"), 604_800 * 10**9))
_STRFMT_MATCHER = re.compile(r"([0-9]+)[\t\n\f\r ]*([A-Za-zµ]+)")  # RE2's \d and \s are ASCII


def _int64(n: int) -> int:
    """Go's int64 arithmetic wraps."""
    return (n + (1 << 63)) % (1 << 64) - (1 << 63)


def _strfmt_duration(text: str) -> int:
    """`strfmt.ParseDuration`, in nanoseconds."""
    try:
        return parse_duration(text)
    except DurationError:
        pass
    total, ok = 0, False
    for digits, word in _STRFMT_MATCHER.findall(text):
        factor = int(digits)
        if factor >= 1 << 63:
            raise ValueError(f'strconv.Atoi: parsing "{digits}": value out of range')
        unit = word.lower()
        for variants, ns in _STRFMT_UNITS:
            for i, variant in enumerate(variants):
                if (i == len(variants) - 1 and unit.startswith(variant)) or variant == unit:
                    ok = True
                    total = _int64(total + _int64(factor * ns))
    if not ok:
        raise ValueError(f"unable to parse {text} as duration")
    return total


strfmt_duration = _strfmt_duration  # for the schema's `format: duration` check (registry/crformats.py)


def _duration(text: str) -> timedelta | str:
    """A `timedelta`, or the exact text of a duration with digits finer than a microsecond."""
    nanos = _strfmt_duration(text)
    if nanos % 1000:
        return rust_duration(nanos)
    return timedelta(microseconds=nanos // 1000)


def _date(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)


def _date_time(text: str) -> datetime | str:
    """A `datetime`, or the exact text of an RFC 3339 time with digits finer than a microsecond."""
    exact = parse_rfc3339(text) if _FINE.search(text) else None
    if exact is not None and exact[1] % 1000:
        return timestamp_text(*exact)
    return datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))


_EXACT_KINDS = {"date-time": "timestamp", "duration": "duration"}
_FINE = re.compile(r"[.,][0-9]{7}")  # a fraction finer than microseconds (else the datetime is exact)


def time_paths(schema: Any, resource_root: bool = False) -> TimePaths:
    """The paths (cel/exacttime.py's steps, as `to_cel` names them) from a node to its `date-time` and `duration`
    fields: where a value may come as an exact text."""
    out: set[tuple[tuple[str, ...], str]] = set()
    todo: list[tuple[Any, tuple[str, ...], bool]] = [(schema, (), resource_root)]
    while todo:
        node, path, root = todo.pop()
        if not isinstance(node, dict):
            continue
        if node.get("type") == "string" and node.get("format") in _EXACT_KINDS:
            out.add((path, _EXACT_KINDS[node["format"]]))
            continue
        root = root or bool(node.get("x-kubernetes-embedded-resource"))
        props = node.get("properties")
        for k, sub in (props.items() if isinstance(props, dict) else ()):
            escaped = escape(k)
            if escaped is not None and not (root and k == "metadata"):
                todo.append((sub, path + (escaped,), False))
        todo.append((node.get("additionalProperties"), path + (VALUES,), False))
        todo.append((node.get("items"), path + (ITEMS,), False))
    return frozenset(out)


_FORMATS = {"date-time": _date_time, "date": _date, "duration": _duration,
            "byte": lambda text: base64.b64decode(text, validate=True)}
