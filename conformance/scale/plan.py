"""Which namespace counts the scale suite measures at."""

from __future__ import annotations

__all__ = ["steps", "JUDGED_RATIO"]

JUDGED_RATIO = 1000
"""Growth is judged only when the last step is at least this many times the first (N/first ≥ 1,000)."""


def steps(n: int, first: int = 1) -> list[int]:
    """1, 3, 10, 30, 100, … up to `n` (and `n` itself): two points a decade, enough to tell a logarithmic
    curve from a linear one, cheap because measuring a step costs far less than creating its namespaces."""
    if n < first:
        raise ValueError(f"--scale {n} is below the first step {first}")
    out: list[int] = []
    decade = first
    while decade <= n:
        for k in (1, 3):
            v = decade * k
            if v <= n and v not in out:
                out.append(v)
        decade *= 10
    if out[-1] != n:
        out.append(n)
    return out
