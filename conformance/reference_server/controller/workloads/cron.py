"""The standard cron schedule syntax the CronJob controller reads (`github.com/robfig/cron/v3`, `ParseStandard`):
five fields (minute, hour, day of month, month, day of week) of `*`, `?`, numbers, names (JAN-DEC, SUN-SAT),
ranges `a-b`, steps `/n` and lists, or a descriptor (@yearly/@annually, @monthly, @weekly, @daily/@midnight,
@hourly) or `@every <Go duration>` (robfig's `ConstantDelaySchedule`: the delay rounded down to whole seconds, at
least one). Day of month and day of week combine as robfig's `dayMatches`: both must match when either is `*`,
else either may. Times are wall-clock times of the schedule's zone (`spec.timeZone`, else UTC: the zone of
kube-controller-manager in kind). `TZ=` prefixes are refused (upstream's CronJob validation refuses them).
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

MONTHS = {m: i + 1 for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}
DAYS = {d: i for i, d in enumerate("sun mon tue wed thu fri sat".split())}
DESCRIPTORS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
               "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
BOUNDS = ((0, 59, {}), (0, 23, {}), (1, 31, {}), (1, 12, MONTHS), (0, 6, DAYS))
MAX_STEPS = 100_000  # robfig gives up after five years; this bounds the walk likewise


class ScheduleError(ValueError):
    pass


@dataclass(frozen=True)
class Schedule:
    minutes: frozenset[int]
    hours: frozenset[int]
    dom: frozenset[int]
    months: frozenset[int]
    dow: frozenset[int]
    dom_star: bool
    dow_star: bool

    def day_matches(self, t: _dt.datetime) -> bool:
        dom_ok = t.day in self.dom
        dow_ok = (t.isoweekday() % 7) in self.dow
        if self.dom_star or self.dow_star:
            return dom_ok and dow_ok
        return dom_ok or dow_ok

    def next_after(self, t: _dt.datetime) -> _dt.datetime | None:
        """The first scheduled minute strictly after `t` (a naive wall-clock time), or None within the bound."""
        t = t.replace(second=0, microsecond=0) + _dt.timedelta(minutes=1)
        for _ in range(MAX_STEPS):
            if t.month not in self.months:
                t = (t.replace(day=1, hour=0, minute=0) + _dt.timedelta(days=32)).replace(day=1)
            elif not self.day_matches(t):
                t = t.replace(hour=0, minute=0) + _dt.timedelta(days=1)
            elif t.hour not in self.hours:
                t = t.replace(minute=0) + _dt.timedelta(hours=1)
            elif t.minute not in self.minutes:
                t += _dt.timedelta(minutes=1)
            else:
                return t
        return None


@dataclass(frozen=True)
class EverySchedule:
    """`@every <duration>`: `ConstantDelaySchedule.Next`, `t + delay - t.Nanosecond()`."""

    delay: _dt.timedelta

    def next_after(self, t: _dt.datetime) -> _dt.datetime | None:
        return t.replace(microsecond=0) + self.delay


def _every(text: str) -> EverySchedule:
    """`cron.Every`: a delay under a second is one second, else it is rounded down to whole seconds."""
    from ...goport.godur import DurationError, parse_duration
    try:
        nanos = parse_duration(text)
    except DurationError as exc:
        raise ScheduleError(f"failed to parse duration @every {text}: {exc}") from None
    return EverySchedule(_dt.timedelta(seconds=max(1, nanos // 1_000_000_000)))


def _field(text: str, lo: int, hi: int, names: dict[str, int]) -> tuple[frozenset[int], bool]:
    out: set[int] = set()
    star = False
    for part in text.split(","):
        rng, _, step_s = part.partition("/")
        step = 1
        if step_s:
            if not step_s.isdigit() or int(step_s) == 0:
                raise ScheduleError(f"bad step in {part!r}")
            step = int(step_s)
        if rng in ("*", "?"):
            start, end = lo, hi
            star = star or not step_s
        else:
            a, dash, b = rng.partition("-")
            start = _value(a, names)
            end = _value(b, names) if dash else (hi if step_s else start)
        if start < lo or end > hi or start > end:
            raise ScheduleError(f"{part!r} is out of range [{lo}, {hi}]")
        out.update(range(start, end + 1, step))
    return frozenset(out), star


def _value(text: str, names: dict[str, int]) -> int:
    low = text.lower()
    if low in names:
        return names[low]
    if not text.isdigit():
        raise ScheduleError(f"failed to parse int from {text}")
    return int(text)


def parse(spec: str) -> "Schedule | EverySchedule":
    """`cron.ParseStandard`; raises ScheduleError."""
    spec = spec.strip()
    if spec.startswith("@every "):
        return _every(spec[len("@every "):])
    if spec.startswith("@"):
        if spec not in DESCRIPTORS:
            raise ScheduleError(f"unrecognized descriptor: {spec}")
        spec = DESCRIPTORS[spec]
    fields = spec.split()
    if len(fields) != 5:
        raise ScheduleError(f"expected exactly 5 fields, found {len(fields)}: {fields}")
    parsed = [_field(f, lo, hi, names) for f, (lo, hi, names) in zip(fields, BOUNDS)]
    dow = frozenset(d % 7 for d in parsed[4][0])
    return Schedule(parsed[0][0], parsed[1][0], parsed[2][0], parsed[3][0], dow, parsed[2][1], parsed[4][1])
