"""Endpoint coverage: which rows of the profile's endpoint table the run reached, and from which clauses.

APISnoop-style, but measured from the exchanges the client recorded (their `endpoint` field), not audit logs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable


@dataclass
class Hit:
    """One recorded request, reduced to what coverage needs."""
    endpoint: str | None
    method: str
    path: str
    clauses: tuple[str, ...] = ()


@dataclass
class _Tally:
    hits: int = 0
    clauses: set[str] = field(default_factory=set)


def hits_from_exchanges(exchanges: Iterable[dict[str, Any]], clauses: Iterable[str]) -> list[Hit]:
    cl = tuple(clauses)
    return [Hit(ex.get("endpoint"), str(ex.get("method", "")), str(ex.get("path", "")).split("?")[0], cl)
            for ex in exchanges]


def build_coverage(rows: list[dict[str, Any]], hits: Iterable[Hit], profile: str | None
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(coverage rows in table order, requests that matched no row of this profile's table)."""
    tallies = {row["id"]: _Tally() for row in rows}
    unmatched: dict[tuple[str | None, str, str], int] = {}
    for hit in hits:
        tally = tallies.get(hit.endpoint) if hit.endpoint else None
        if tally is None:
            key = (hit.endpoint, hit.method, hit.path)
            unmatched[key] = unmatched.get(key, 0) + 1
            continue
        tally.hits += 1
        tally.clauses.update(hit.clauses)
    coverage = [{"endpoint": row["id"], "method": row.get("method"), "path": row.get("path"), "profile": profile,
                 "hits": tallies[row["id"]].hits, "clauses": sorted(tallies[row["id"]].clauses)} for row in rows]
    extra = [{"endpoint": ep, "method": m, "path": p, "hits": n}
             for (ep, m, p), n in sorted(unmatched.items(), key=lambda kv: (-kv[1], kv[0][1], kv[0][2]))]
    return coverage, extra


def uncovered(run: dict[str, Any]) -> list[dict[str, Any]]:
    """Coverage rows of a run document that no request reached."""
    return [row for row in run.get("coverage", []) if not row.get("hits")]


def coverage_failures(run: dict[str, Any]) -> list[str]:
    """One message per endpoint never reached; empty when every row was hit (a coverage clause passes)."""
    return [f"{row.get('method')} {row.get('path')} (endpoint {row.get('endpoint')}) was never requested"
            for row in uncovered(run)]


def summary(run: dict[str, Any]) -> dict[str, int]:
    rows = run.get("coverage", [])
    hit = sum(1 for r in rows if r.get("hits"))
    return {"endpoints": len(rows), "hit": hit, "uncovered": len(rows) - hit}
