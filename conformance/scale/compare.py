"""`nsconform report --compare A B`: the scale curves of two runs side by side.

Informative only: the clause's status change (NS-SCALE-001 passed → failed) is what `--compare` counts
as a regression; this table says by how much each operation moved, step by step, and how its growth
from first step to last changed."""

from __future__ import annotations

from typing import Any

__all__ = ["scale_table"]


def _medians(run: dict[str, Any]) -> dict[int, dict[str, float | None]]:
    return {int(s["namespaces"]): dict(s.get("median_s") or {}) for s in (run.get("scale") or {}).get("steps") or []}


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v * 1e3:.3g}"


def scale_table(a: dict[str, Any], b: dict[str, Any]) -> str:
    """Empty when neither run measured scale; else a plain-text table (ms, B/A) per operation and step."""
    ma, mb = _medians(a), _medians(b)
    if not ma and not mb:
        return ""
    if not ma or not mb:
        which = "A" if ma else "B"
        return f"\nScale: only run {which} measured scale (--scale); nothing to compare.\n"
    ops = list(dict.fromkeys([*((a.get("scale") or {}).get("judged_operations") or []),
                              *((a.get("scale") or {}).get("reported_operations") or []),
                              *(op for m in (ma, mb) for s in m.values() for op in s)]))
    steps = sorted(set(ma) & set(mb))
    rows = [("OPERATION", "NAMESPACES", "A ms", "B ms", "B/A")]
    for op in ops:
        for n in steps:
            va, vb = ma[n].get(op), mb[n].get(op)
            ratio = f"{vb / va:.2f}" if va and vb else "-"
            rows.append((op, f"{n:,}", _ms(va), _ms(vb), ratio))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    ga, gb = (a.get("scale") or {}).get("growth") or {}, (b.get("scale") or {}).get("growth") or {}
    growth = [f"  {op}: A {ga[op]['ratio']}× ({ga[op]['fit']['model']}), B {gb[op]['ratio']}× "
              f"({gb[op]['fit']['model']})" for op in ops if op in ga and op in gb]
    head = (f"\nScale: A {a['scale'].get('n'):,} namespaces × {a['scale'].get('objects')} objects, "
            f"B {b['scale'].get('n'):,} × {b['scale'].get('objects')}; steps both measured:\n")
    tail = ("\nGrowth first step → last:\n" + "\n".join(growth) + "\n") if growth else "\n"
    return head + "\n".join(lines) + "\n" + tail
