"""Pure helpers: percentiles, summaries, targets, the table and the final JSON line.

Nothing here touches the network, a process or the clock, so `tests/benchmarks/` can check it quickly.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

# The keys of the last output line, in order (the lead's scripts read exactly these).
JSON_KEYS: tuple[str, ...] = (
    "suite_wall_s", "suite_wall_xdist_s", "suite_requests", "request_floor_s", "suite_floor_ratio",
    "server_rps_get", "ceiling_rps_get", "server_ceiling_ratio", "list_scaling_ratio", "delete_10k_s",
    "watch_p99_ms", "rss_mb_per_10k",
    "suite_delay5_s", "suite_delay5_floor_s", "suite_delay5_xdist_s", "suite_delay5_xdist_floor_s",
    "suite_onebug_s", "suite_onebug_floor_s", "suite_onebug_xdist_s", "suite_onebug_xdist_floor_s",
    "etcd_rps_get", "etcd_get_ratio", "etcd_rps_list10", "etcd_rps_create_delete", "etcd_delete_10k_s",
    "replicas_rps_get_1", "replicas_rps_get_3", "replicas_get_ratio",
    "suite_wall_installed_s",
    "loop_stall_ms",
)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile (`q` in 0..100) of a non-empty sequence; NaN when empty."""
    if not values:
        return math.nan
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile {q} outside 0..100")
    xs = sorted(values)
    if len(xs) == 1:
        return float(xs[0])
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    frac = pos - lo
    return float(xs[lo] + (xs[hi] - xs[lo]) * frac)


def median(values: Sequence[float]) -> float:
    return percentile(values, 50.0)


def summarize(values: Sequence[float]) -> dict[str, float]:
    """n, min, p50, p90, p99, max, mean of `values` (NaN fields when empty)."""
    n = len(values)
    return {
        "n": n,
        "min": float(min(values)) if n else math.nan,
        "p50": percentile(values, 50),
        "p90": percentile(values, 90),
        "p99": percentile(values, 99),
        "max": float(max(values)) if n else math.nan,
        "mean": (sum(values) / n) if n else math.nan,
    }


def ratio(num: float | None, den: float | None) -> float | None:
    """num/den, or None when either is missing, NaN or the denominator is not positive."""
    if num is None or den is None or not _finite(num) or not _finite(den) or den <= 0:
        return None
    return num / den


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


@dataclass(frozen=True)
class Target:
    """A figure's goal: `op` is one of <=, <, >=, >."""

    key: str
    op: str
    bound: float

    def met(self, value: float | None) -> bool | None:
        if value is None or not _finite(value):
            return None
        ops: dict[str, Callable[[float, float], bool]] = {
            "<=": lambda a, b: a <= b, "<": lambda a, b: a < b,
            ">=": lambda a, b: a >= b, ">": lambda a, b: a > b}
        return ops[self.op](value, self.bound)

    def text(self) -> str:
        return f"{self.op} {_num(self.bound)}"


TARGETS: dict[str, Target] = {t.key: t for t in (
    Target("suite_floor_ratio", "<=", 3.0),
    Target("server_ceiling_ratio", ">=", 0.5),
    Target("server_ceiling_ratio_raw", ">=", 0.5),
    Target("wrk_server_ceiling_ratio", ">=", 0.5),
    Target("cpu_ceiling_ratio", ">=", 0.5),
    Target("list_scaling_ratio", "<=", 1.3),
    Target("delete_10k_s", "<", 2.0),
    Target("watch_p99_ms", "<", 10.0),
    Target("suite_delay5_s", "<=", 90.0),
    Target("suite_delay5_xdist_s", "<=", 45.0),
    Target("suite_onebug_s", "<=", 120.0),
    Target("etcd_get_ratio", ">=", 0.5),
    Target("etcd_delete_10k_s", "<", 5.0),
    Target("replicas_get_ratio", ">=", 1.5),
)}


def _num(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            return "-"
        a = abs(x)
        if a >= 1000:
            return f"{x:,.0f}"
        if a >= 100:
            return f"{x:.1f}"
        if a >= 1:
            return f"{x:.2f}"
        if a == 0:
            return "0"
        return f"{x:.3g}"
    return str(x)


def format_table(rows: Iterable[tuple[str, Any, str]], targets: dict[str, Target] = TARGETS) -> str:
    """Rows of (metric, value, unit/note) → an aligned text table with target and met? columns."""
    body = []
    for metric, value, note in rows:
        t = targets.get(metric)
        met = t.met(value) if t else None
        body.append((metric, _num(value), note, t.text() if t else "", "" if t is None else
                     {True: "yes", False: "NO", None: "n/a"}[met]))
    head = ("metric", "value", "unit / how", "target", "met?")
    widths = [max(len(head[i]), *(len(r[i]) for r in body)) if body else len(head[i]) for i in range(5)]
    line = lambda r: "  ".join(c.ljust(widths[i]) if i != 1 else c.rjust(widths[i]) for i, c in enumerate(r))  # noqa: E731
    out = [line(head), "  ".join("-" * w for w in widths)]
    out += [line(r).rstrip() for r in body]
    return "\n".join(out)


def final_json(figures: dict[str, Any]) -> str:
    """One JSON object with exactly `JSON_KEYS` (missing or non-finite figures become null)."""
    out: dict[str, Any] = {}
    for k in JSON_KEYS:
        v = figures.get(k)
        if isinstance(v, float):
            v = round(v, 4) if math.isfinite(v) else None
        elif v is not None and not isinstance(v, (int, bool)):
            v = None
        out[k] = v
    return json.dumps(out, separators=(", ", ": "))


def derive(figures: dict[str, Any]) -> dict[str, Any]:
    """Fill the ratio figures from the measured ones (in place; returns `figures`)."""
    floor = None
    if figures.get("suite_requests") is not None and figures.get("single_request_s") is not None:
        floor = figures["suite_requests"] * figures["single_request_s"]
    figures["request_floor_s"] = floor
    figures["suite_floor_ratio"] = ratio(figures.get("suite_wall_counted_s", figures.get("suite_wall_s")), floor)
    floor_in = None
    if figures.get("suite_requests") is not None and figures.get("single_request_inproc_s") is not None:
        floor_in = figures["suite_requests"] * figures["single_request_inproc_s"]
    figures["suite_floor_ratio_embedded"] = ratio(figures.get("suite_wall_s"), floor_in)
    figures["server_ceiling_ratio"] = ratio(figures.get("server_rps_get"), figures.get("ceiling_rps_get"))
    figures["list_scaling_ratio"] = ratio(figures.get("list_s_10000"), figures.get("list_s_10"))
    return figures
