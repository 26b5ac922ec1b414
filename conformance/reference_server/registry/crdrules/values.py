"""A custom resource's values as its rules see them (`apiserver/pkg/cel/common/values.go` `UnstructuredToVal`):
property names escaped, numbers doubles, `date-time`/`date` strings timestamps, `duration` strings durations
(kube-openapi's `strfmt.ParseDuration`: godur.py's Go grammar, then strfmt's own), `byte` strings bytes, the
metadata of a resource root reduced to `name` and `generateName`."""
from __future__ import annotations

import base64
import binascii
import re
from datetime import datetime, timedelta, timezone
from typing import Any

from ...godur import DurationError, parse_duration
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


def _duration(text: str) -> timedelta:
    seconds, ns = divmod(_strfmt_duration(text), 10**9)
    return timedelta(seconds=seconds, microseconds=ns / 1000)


def _date(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)


def _date_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))


_FORMATS = {"date-time": _date_time, "date": _date, "duration": _duration,
            "byte": lambda text: base64.b64decode(text, validate=True)}
