"""The scale curves as inline SVG (no script, no external asset): one panel for the judged per-namespace
operations, one for the reported ones, namespaces on a log axis, milliseconds on a linear axis from 0."""

from __future__ import annotations

import math
from html import escape
from typing import Any, Sequence

__all__ = ["svg_panels", "svg_plot"]

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")
NAMES = {"list": "LIST (one namespace)", "get": "GET", "watch_start": "watch start",
         "event_delivery": "event delivery", "cross_namespace_list": "LIST, all namespaces",
         "namespace_deletion": "namespace deletion"}


def _nice_max(v: float) -> float:
    if v <= 0:
        return 1.0
    exp = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if v <= m * exp:
            return m * exp
    return 10 * exp


def svg_plot(title: str, series: Sequence[tuple[str, Sequence[tuple[int, float]]]], *,
             width: int = 560, height: int = 300, limit: float | None = None, factor: float = 1e3,
             unit: str = "ms", axis: str = "median ms") -> str:
    """One panel: `series` = [(operation, [(namespaces, seconds), ...])]; `limit`: draw each judged
    series' allowance (limit × its first point) as a dotted line at the right edge."""
    left, right, top, bottom = 56, 190, 28, 40
    pw, ph = width - left - right, height - top - bottom
    xs = [n for _, pts in series for n, _ in pts if n > 0]
    ys = [s * factor for _, pts in series for _, s in pts if s is not None]
    if not xs or not ys:
        return ""
    lo, hi = math.log10(min(xs)), math.log10(max(xs))
    if hi - lo < 1e-9:
        hi = lo + 1
    ymax = _nice_max(max(ys + ([limit * pts[0][1] * factor for _, pts in series if pts and pts[0][1]]
                               if limit else [])) * 1.05)

    def X(n: float) -> float:
        return left + (math.log10(n) - lo) / (hi - lo) * pw

    def Y(ms: float) -> float:
        return top + ph - ms / ymax * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" '
           'style="font-family:sans-serif;font-size:11px;background:#fff">',
           f'<text x="{left}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>']
    for i in range(6):  # y grid
        v = ymax * i / 5
        y = Y(v)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v:g}</text>')
    decade = math.floor(lo)
    while decade <= math.ceil(hi):
        n = 10 ** decade
        if lo - 1e-9 <= decade <= hi + 1e-9:
            x = X(n)
            out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" stroke="#e5e5e5"/>')
            out.append(f'<text x="{x:.1f}" y="{top + ph + 14}" text-anchor="middle">{n:,}</text>')
        decade += 1
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 6}" text-anchor="middle">namespaces (log scale)</text>')
    out.append(f'<text x="12" y="{top + ph / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 12 {top + ph / 2:.1f})">{escape(axis)}</text>')
    for i, (op, pts) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        pts = [(n, s) for n, s in pts if n > 0 and s is not None]
        if not pts:
            continue
        path = " ".join(f"{X(n):.1f},{Y(s * factor):.1f}" for n, s in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for n, s in pts:
            out.append(f'<circle cx="{X(n):.1f}" cy="{Y(s * factor):.1f}" r="3" fill="{colour}">'
                       f'<title>{escape(NAMES.get(op, op))}: {s * factor:.3g} {escape(unit)} at {n:,} namespaces'
                       '</title></circle>')
        if limit:
            y = Y(limit * pts[0][1] * factor)
            out.append(f'<line x1="{left + pw - 40}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="{colour}" '
                       'stroke-dasharray="2,3"/>')
        ly = top + 14 + i * 16
        out.append(f'<line x1="{left + pw + 10}" y1="{ly - 4}" x2="{left + pw + 26}" y2="{ly - 4}" '
                   f'stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{left + pw + 30}" y="{ly}">{escape(NAMES.get(op, op))}</text>')
    if limit:
        ly = top + 14 + len(series) * 16 + 6
        out.append(f'<text x="{left + pw + 10}" y="{ly}" fill="#555">dotted: {limit:g}× first step</text>')
    out.append("</svg>")
    return "".join(out)


def svg_panels(scale: dict[str, Any]) -> list[str]:
    """The two panels of a run's `scale` section (empty when it holds no step)."""
    steps = scale.get("steps") or []
    if not steps:
        return []

    def series(ops: Sequence[str]) -> list[tuple[str, list[tuple[int, float]]]]:
        return [(op, [(s["namespaces"], (s.get("median_s") or {}).get(op)) for s in steps]) for op in ops
                if any((s.get("median_s") or {}).get(op) is not None for s in steps)]

    ops = scale.get("judged_operations") or ["list", "get", "watch_start", "event_delivery"]
    judged = [(op, [(s["namespaces"], (s.get("relative") or {}).get(op)) for s in steps]) for op in ops
              if any((s.get("relative") or {}).get(op) is not None for s in steps)]
    reported = series(scale.get("reported_operations") or ["cross_namespace_list", "namespace_deletion"])
    out = [svg_plot("Per-namespace operations (judged), relative to GET /version", judged,
                    limit=float(scale.get("limit") or 2.0), factor=1.0, unit="× GET /version",
                    axis="median × GET /version") if judged else "",
           svg_plot("Per-namespace operations, raw", series(ops))]
    if reported:
        out.append(svg_plot("Across namespaces and deletion (reported)", reported))
    return [p for p in out if p]
