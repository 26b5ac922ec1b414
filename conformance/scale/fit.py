"""Fit the measured curves and judge their growth (clause NS-SCALE-001).

Two models are fitted by least squares to (namespaces, seconds): logarithmic `a + b·ln n` and linear
`a + b·n`; the report names the better one (smaller residual) with its coefficients. The verdict does not
rest on the fit, which a noisy point can sway, but on the ratio the clause states: the median cost at
the last step over the median cost at the first, judged only when last/first ≥ `plan.JUDGED_RATIO`.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Iterable, Sequence

__all__ = ["fit_curve", "growth", "LIMIT"]

LIMIT = 2.0
"""Per-namespace operations at N may cost at most this many times their cost at the first step."""


def _least_squares(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float]:
    """(intercept, slope, residual sum of squares)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    a = my - slope * mx
    rss = sum((y - (a + slope * x)) ** 2 for x, y in zip(xs, ys))
    return a, slope, rss


def fit_curve(points: Iterable[tuple[int, float]]) -> dict[str, Any]:
    """{"model": "log"|"linear"|"flat", "a", "b", "formula"} of the better model (seconds, n namespaces)."""
    pts = [(float(n), float(s)) for n, s in points if n > 0 and s is not None]
    if len(pts) < 3:
        return {"model": "flat", "a": statistics.median(s for _, s in pts) if pts else 0.0, "b": 0.0,
                "formula": "too few points to fit"}
    ns, ys = [n for n, _ in pts], [s for _, s in pts]
    la, lb, lrss = _least_squares([math.log(n) for n in ns], ys)
    na, nb, nrss = _least_squares(ns, ys)
    if nrss < lrss and nb > 0:
        return {"model": "linear", "a": na, "b": nb,
                "formula": f"{na * 1e3:.3g} ms + {nb * 1e6:.3g} µs × n"}
    return {"model": "log", "a": la, "b": lb, "formula": f"{la * 1e3:.3g} ms + {lb * 1e3:.3g} ms × ln n"}


def growth(points: Sequence[tuple[int, float]], judged_ratio: int, *, judge: bool = True) -> dict[str, Any]:
    """The ratio of the last step's cost to the first's, and whether the clause judges it (`judge=False`:
    a reported operation, never judged)."""
    (n0, s0), (n1, s1) = points[0], points[-1]
    ratio = (s1 / s0) if s0 and s1 is not None and s0 > 0 else float("inf")
    judged = judge and n1 / n0 >= judged_ratio
    return {"first": n0, "last": n1, "ratio": round(ratio, 3), "judged": judged,
            "ok": (ratio <= LIMIT) if judged else None, "fit": fit_curve(points)}
