"""Borrowing between priority levels: every 10 s the server's seats are re-divided by each level's smoothed seat
demand (`apf_controller.go` `updateBorrowingLocked` and `seatDemandStats`, `conc_alloc.go`
`computeConcurrencyAllocation`, `fairqueuing/integrator.go`, k8s.io/apiserver v0.33.1).

- A level's seat demand (seats in use + seats its waiting requests ask for) is integrated over time; each period
  gives its average, standard deviation and high watermark; `smoothed` becomes `max(avg + stddev, 0.977 ×
  smoothed + 0.023 × (avg + stddev))` (a half-life of 5 minutes).
- Exempt levels keep `max(minCL, high watermark)`, taken off the total (the sum of the nominal limits).
- Each other level gets between `max(minCL, min(nominal, high watermark))` and its `maxCL`, in proportion to its
  target `max(that lower bound, smoothed)`, the proportion chosen so that the limits sum to what is left
  (`computeConcurrencyAllocation`); when what is left does not cover the lower bounds, each gets its minCL plus
  a share of the rest.

A level's current limit (`currentCL`) is what its QueueSet dispatches up to until the next period.
"""
from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

BORROWING_ADJUSTMENT_PERIOD = 10.0     # borrowingAdjustmentPeriod
SEAT_DEMAND_SMOOTHING_COEFFICIENT = 0.977
MIN_TARGET = 0.001
_EPSILON = 0.0000001


def _monotonic() -> float:
    return time.monotonic()


class IntegratorResults(NamedTuple):
    duration: float
    average: float
    deviation: float
    maximum: float


class SeatDemand:
    """`fairqueuing.integrator`: x (seats in use + seats waiting) integrated over time since the last reset, and
    x's extremes.

    The time is kept per (seats in use, seats waiting, requests executing, requests waiting) state, keyed
    `in_use | waiting << 32 | requests << 64` (`requests`: executing | waiting << 32; one dict update per change):
    `reset` sums x and x² over it, and the same segments feed the timing-ratio histograms of
    metrics/flowcontrol_levels.py (`priority_level_seat_utilization`, `demand_seats`,
    `priority_level_request_utilization`) through `take`, each with the ratios' denominators it was spent under
    (`epoch` closes a segment when they change)."""
    __slots__ = ("_clock", "_last", "_max", "state", "times", "_period", "_unread")

    def __init__(self, clock: Callable[[], float] | None = None):
        self._clock = clock if clock is not None else _monotonic
        self._last = self._clock()
        self._max = 0
        self.state = 0  # in_use | waiting << 32 | requests << 64
        self.times: defaultdict[int, float] = defaultdict(float)  # state → seconds spent in it, this segment
        self._period: list[dict[int, float]] = []  # closed segments of this period (since `reset`)
        self._unread: list[list[Any]] = []  # [denominator or None (not known yet), segment], not yet `take`n

    @property
    def x(self) -> int:
        state = self.state
        return (state & 0xFFFFFFFF) + ((state >> 32) & 0xFFFFFFFF)

    def _close(self) -> dict[int, float]:
        """End the current segment at now (the current state's time counted) and start another."""
        now = self._clock()
        times = self.times
        times[self.state] += now - self._last
        self._last = now
        self.times = defaultdict(float)
        self._period.append(times)
        if len(self._unread) >= 512:  # a server nobody scrapes (some 80 minutes of resets): the oldest dropped
            del self._unread[0]
        self._unread.append([None, times])
        return times

    def set(self, x: int, now: float | None = None) -> None:
        """`Set`: x from now on (`now`: the caller's reading of the same clock, saving a second one)."""
        self.note(int(x), 0, now)

    def note(self, in_use: int, waiting: int, now: float | None = None, requests: int = 0) -> None:
        """x = in_use + waiting from now on; the previous state's time counted. `requests`: the level's
        executing | waiting << 32 request counts."""
        if now is None:
            now = self._clock()
        self.times[self.state] += now - self._last
        self._last = now
        self.state = in_use | waiting << 32 | requests << 64
        x = in_use + waiting
        if x > self._max:
            self._max = x

    def epoch(self, denominator: Any) -> None:
        """The ratios' denominators change (`SetDenominator`): the time so far was spent under `denominator`."""
        self._close()
        for segment in self._unread:
            if segment[0] is None:
                segment[0] = denominator

    def take(self, denominator: Any) -> list[tuple[Any, dict[int, float]]]:
        """Every segment's (denominator, times) since the last `take` (the current one's, up to now, under
        `denominator`); they are forgotten here."""
        self._close()
        out = [(denominator if den is None else den, times) for den, times in self._unread]
        self._unread = []
        return out

    def reset(self) -> IntegratorResults:
        """`Reset`: this period's results; the next period starts at the current value."""
        self._close()
        t = ix = ixx = 0.0
        for segment in self._period:
            for state, dt in segment.items():
                x = (state & 0xFFFFFFFF) + ((state >> 32) & 0xFFFFFFFF)
                t += dt
                ix += x * dt
                ixx += x * x * dt
        self._period = []
        if t > 0:
            avg = ix / t
            variance = ixx / t - avg * avg
            dev = math.sqrt(variance) if variance >= 0 else math.nan
        else:
            avg = dev = math.nan
        results = IntegratorResults(t, avg, dev, self._max)
        self._max = self.x
        return results


@dataclass
class DemandStats:
    """`seatDemandStats`."""
    avg: float = 0.0
    std_dev: float = 0.0
    high_watermark: int = 0
    smoothed: float = 0.0

    def update(self, obs: IntegratorResults) -> None:
        self.high_watermark = int(_go_round(obs.maximum))
        if obs.duration <= 0:
            return
        deviation = 0.0 if math.isnan(obs.deviation) else obs.deviation
        self.avg, self.std_dev = obs.average, deviation
        envelope = obs.average + deviation
        k = SEAT_DEMAND_SMOOTHING_COEFFICIENT
        self.smoothed = max(envelope, k * self.smoothed + (1 - k) * envelope)


def _go_round(x: float) -> float:
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


class AllocItem(NamedTuple):
    target: float
    lower: float
    upper: float


def allocate(required: int, items: list[AllocItem]) -> tuple[list[float], float]:
    """`computeConcurrencyAllocation`: allocations between each item's bounds, proportional to its target
    (at least `MIN_TARGET`) where the bounds allow, summing to `required`; and the proportion. ValueError when
    the bounds cannot sum to it."""
    if required < 0:
        raise ValueError("negative sums are not supported")
    low_sum = high_sum = target_sum = 0.0
    rel: list[tuple[float, float, float]] = []  # (target, lower / target, upper / target)
    for item in items:
        if item.lower < 0 or item.target < item.lower or item.upper < item.lower:
            raise ValueError(f"bad allocation item {item}")
        target = max(item.target, MIN_TARGET)
        low_sum += item.lower
        high_sum += item.upper
        target_sum += target
        rel.append((target, item.lower / target, item.upper / target))
    lb_max = max((r[1] for r in rel), default=-math.inf)
    lb_min = min((r[1] for r in rel), default=math.inf)
    ub_max = max((r[2] for r in rel), default=-math.inf)
    ub_min = min((r[2] for r in rel), default=math.inf)
    if lb_max > 1:
        raise ValueError("a lower bound above its target")
    if low_sum - required > _EPSILON:
        raise ValueError(f"lower bounds sum to {low_sum}, which is higher than the required sum of {required}")
    if required - high_sum > _EPSILON:
        raise ValueError(f"upper bounds sum to {high_sum}, which is lower than the required sum of {required}")
    if required == 0:
        return [0.0] * len(items), 0.0
    if low_sum - required > -_EPSILON:
        return [item.lower for item in items], lb_min
    if required - high_sum > -_EPSILON:
        return [item.upper for item in items], ub_max
    fair = required / target_sum
    if lb_max <= fair <= ub_min:
        return [r[0] * fair for r in rel], fair
    # the bound-constrained problem: walk the relative bounds in ascending order
    bounds = sorted([(r[1], i, True) for i, r in enumerate(rel)] + [(r[2], i, False) for i, r in enumerate(rel)],
                    key=lambda b: b[0])
    sum_so_far = low_sum
    fair = lb_min
    sensitive_sum = delta_sum = 0.0
    sensitive = delta = 0
    nxt = 0
    while sum_so_far < required:
        while True:
            sensitive_sum += delta_sum
            sensitive += delta
            if nxt >= len(bounds):
                raise ValueError("impossible: ran out of bounds to consider in bound-constrained problem")
            next_bound, idx, lower = bounds[nxt]
            delta, delta_sum = (1, rel[idx][0]) if lower else (-1, -rel[idx][0])
            nxt += 1
            if next_bound > fair:
                break
        if sensitive == 0:
            fair = next_bound
            continue
        next_prop = fair + (required - sum_so_far) / sensitive_sum
        if next_prop <= next_bound:
            fair = next_prop
            break
        sum_so_far += (next_bound - fair) * sensitive_sum
        fair = next_bound
    return [max(item.lower, min(item.upper, fair * r[0])) for item, r in zip(items, rel)], fair


class LevelDemand(NamedTuple):
    """What the re-division needs of one level."""
    exempt: bool
    nominal: int
    min_cl: int
    max_cl: int
    current_cl: int
    stats: DemandStats


def current_limits(nominal_sum: int, levels: dict[str, LevelDemand],
                   notes: dict[str, float] | None = None) -> dict[str, int]:
    """`updateBorrowingLocked`'s division (the stats already updated): each level's new current limit.
    `notes`, when given, receives what upstream's metrics note: each level's seat target by name
    (`target_seats`; an exempt level's is the first non-exempt level's, as upstream's `items[idx]` with idx 0)
    and the fair fraction under `""` (`seat_fair_frac`: 0 when the seats do not cover the lower bounds)."""
    items: list[AllocItem] = []
    index: dict[str, int] = {}
    exempt_cl: dict[str, int] = {}
    min_sum = min_current_sum = 0
    remaining = nominal_sum
    for name, lv in levels.items():
        hw = lv.stats.high_watermark
        if lv.exempt:
            exempt_cl[name] = max(lv.min_cl, hw)
            remaining -= exempt_cl[name]
            continue
        min_current = max(lv.min_cl, min(lv.nominal, hw))
        index[name] = len(items)
        items.append(AllocItem(max(float(min_current), lv.stats.smoothed), float(min_current), float(lv.max_cl)))
        min_sum += lv.min_cl
        min_current_sum += min_current
    allocs: list[float] = []
    share = fair = 0.0
    if remaining <= min_sum:
        pass
    elif remaining <= min_current_sum:
        share = (remaining - min_sum) / (min_current_sum - min_sum)
    else:
        try:
            allocs, fair = allocate(nominal_sum, items)
        except ValueError:  # upstream logs it and keeps the current limits
            allocs = [float(levels[name].current_cl) for name in index]
    if notes is not None:
        notes[""] = fair
        first = items[0].target if items else 0.0
        for name in levels:
            notes[name] = items[index[name]].target if name in index else first
    out: dict[str, int] = {}
    for name, lv in levels.items():
        if lv.exempt:
            out[name] = exempt_cl[name]
        elif remaining <= min_sum:
            out[name] = lv.min_cl
        elif remaining <= min_current_sum:
            min_current = max(lv.min_cl, min(lv.nominal, lv.stats.high_watermark))
            out[name] = lv.min_cl + int(_go_round((min_current - lv.min_cl) * share))
        else:
            out[name] = int(_go_round(allocs[index[name]]))
    return out


__all__ = ["AllocItem", "BORROWING_ADJUSTMENT_PERIOD", "DemandStats", "LevelDemand", "SeatDemand", "allocate",
           "current_limits"]
