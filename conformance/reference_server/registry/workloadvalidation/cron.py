"""`cron.ParseStandard` of github.com/robfig/cron/v3 (v3.0.1, parser.go), which a CronJob's schedule must pass:
five fields (minute, hour, day of month, month, day of week) or a descriptor (`@hourly`, `@every 1h30m`, ...),
an optional `TZ=`/`CRON_TZ=` prefix; each error in the library's words, which kube-apiserver shows as is
(`validateScheduleFormat` of pkg/apis/batch/validation/validation.go)."""
from __future__ import annotations

import zoneinfo

from ...goport.godur import DurationError, parse_duration
from ...goport.gonet.strconv import quote

_MONTHS = {n: i + 1 for i, n in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                           "nov", "dec"))}
_DOW = {n: i for i, n in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
# (min, max, names) of minute, hour, dom, month, dow
_BOUNDS = ((0, 59, None), (0, 23, None), (1, 31, None), (1, 12, _MONTHS), (0, 6, _DOW))
_DESCRIPTORS = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
_INT32_MAX = (1 << 63) - 1  # strconv.Atoi is 64-bit


class CronError(ValueError):
    """The parser's error; its text is robfig/cron's."""


def load_location_error(name: str) -> str | None:
    """`time.LoadLocation(name)`'s error text, or None when the zone exists (Go reads the same tz database)."""
    if name in ("", "UTC", "Local"):
        return None
    try:
        if ".." in name or name.startswith("/") or "\\" in name:
            raise ValueError
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return f"unknown time zone {name}"
    return None


def _atoi(expr: str) -> int:
    """`mustParseInt` (strconv.Atoi, then no negatives)."""
    body = expr[1:] if expr[:1] in "+-" else expr
    if not body or not body.isascii() or not body.isdigit():
        raise CronError(f"failed to parse int from {expr}: strconv.Atoi: parsing {quote(expr)}: invalid syntax")
    num = int(expr)
    if not -_INT32_MAX - 1 <= num <= _INT32_MAX:
        raise CronError(f"failed to parse int from {expr}: strconv.Atoi: parsing {quote(expr)}: value out of range")
    if num < 0:
        raise CronError(f"negative number ({num}) not allowed: {expr}")
    return num


def _int_or_name(expr: str, names: dict[str, int] | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _atoi(expr)


def _range(expr: str, low: int, high: int, names: dict[str, int] | None) -> None:
    """`getRange`."""
    range_and_step = expr.split("/")
    low_high = range_and_step[0].split("-")
    if low_high[0] in ("*", "?"):
        start, end = low, high
    else:
        start = _int_or_name(low_high[0], names)
        if len(low_high) == 1:
            end = start
        elif len(low_high) == 2:
            end = _int_or_name(low_high[1], names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    step = 1
    if len(range_and_step) == 2:
        step = _atoi(range_and_step[1])
        if len(low_high) == 1:  # "N/step" means "N-max/step"
            end = high
    elif len(range_and_step) > 2:
        raise CronError(f"too many slashes: {expr}")
    if start < low:
        raise CronError(f"beginning of range ({start}) below minimum ({low}): {expr}")
    if end > high:
        raise CronError(f"end of range ({end}) above maximum ({high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")


def _descriptor(spec: str) -> None:
    if spec in _DESCRIPTORS:
        return
    if spec.startswith("@every "):
        try:
            parse_duration(spec[len("@every "):])
        except DurationError as exc:
            raise CronError(f"failed to parse duration {spec}: {exc}") from None
        return
    raise CronError(f"unrecognized descriptor: {spec}")


def parse_standard(spec: str) -> None:
    """Raise CronError with the library's message when `spec` does not parse."""
    if not spec:
        raise CronError("empty spec string")
    if spec.startswith("TZ=") or spec.startswith("CRON_TZ="):
        i, eq = spec.find(" "), spec.find("=")
        name = spec[eq + 1:i] if i >= 0 else spec[eq + 1:]
        problem = load_location_error(name)
        if problem:
            raise CronError(f"provided bad location {name}: {problem}")
        spec = spec[i:].strip() if i >= 0 else ""
    if spec.startswith("@"):
        _descriptor(spec)
        return
    fields = spec.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    for text, (low, high, names) in zip(fields, _BOUNDS):
        for expr in (e for e in text.split(",") if e):
            _range(expr, low, high, names)


__all__ = ["CronError", "load_location_error", "parse_standard"]
