"""A custom resource's values as its rules see them (`apiserver/pkg/cel/common/values.go` `UnstructuredToVal`):
property names escaped, numbers doubles, `date-time`/`date` strings timestamps, `duration` strings durations
(`strfmt.ParseDuration`), `byte` strings bytes, the metadata of a resource root reduced to `name` and
`generateName`."""
from __future__ import annotations

import base64
import binascii
import re
from datetime import datetime, timedelta, timezone
from typing import Any

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


_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
_GO_DURATION = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")
_WORD_DURATION = re.compile(r"^\s*(\d+)\s*(d|w|day|days|week|weeks)\s*$")


def _duration(text: str) -> timedelta:
    """strfmt.ParseDuration: Go's `time.ParseDuration`, else `<n> d|w`."""
    sign, rest = (-1, text[1:]) if text.startswith("-") else (1, text.removeprefix("+"))
    if rest == "0":
        return timedelta(0)
    seconds, pos = 0.0, 0
    for m in _GO_DURATION.finditer(rest):
        if m.start() != pos or m.group(1) in ("", "."):
            break
        seconds, pos = seconds + float(m.group(1)) * _GO_UNITS[m.group(2)], m.end()
    else:
        if pos == len(rest) and pos:
            return timedelta(seconds=sign * seconds)
    word = _WORD_DURATION.match(text)
    if word:
        return timedelta(days=int(word.group(1)) * (7 if word.group(2).startswith("w") else 1))
    raise ValueError(text)


def _date(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)


def _date_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))


_FORMATS = {"date-time": _date_time, "date": _date, "duration": _duration,
            "byte": lambda text: base64.b64decode(text, validate=True)}
