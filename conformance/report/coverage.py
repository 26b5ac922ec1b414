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


COVERAGE_NODEID = "nsconform::endpoint-coverage"


def evaluate_coverage_clauses(run: dict[str, Any], *, full_run: bool) -> bool:
    """Decide the `coverage` group's clauses from the run's own coverage table; True when one failed.

    Only the whole run can judge coverage (under xdist no single test sees every request), so the report
    decides it. A partial run (-k, -m, deselection) cannot miss rows by the server's fault: it is skipped.
    """
    failures = coverage_failures(run)
    failed = False
    for clause in run.get("clauses", []):
        if clause.get("group") != "coverage":
            continue
        if not full_run:
            outcome, message = "skipped", "partial run: endpoint coverage is judged only when every suite runs"
        elif failures:
            outcome, message, failed = "failed", "; ".join(failures), True
        else:
            outcome, message = "passed", ""  # a string (schema): None made `nsconform report` reject full runs
        clause["tests"] = [t for t in clause["tests"] if t.get("nodeid") != COVERAGE_NODEID]
        clause["tests"].append({"nodeid": COVERAGE_NODEID, "outcome": outcome, "duration_s": 0.0,
                                "message": message, "category": "violation" if outcome == "failed" else None,
                                "phase": "call", "exchanges": []})
        outcomes = {t["outcome"] for t in clause["tests"]}
        clause["status"] = ("failed" if "failed" in outcomes else "passed" if "passed" in outcomes
                            else "skipped")
    counts = run.get("summary", {}).get("clauses")
    if counts is not None:
        for status in ("failed", "passed", "skipped", "untested"):
            counts[status] = sum(1 for c in run["clauses"] if c["status"] == status)
    return failed


def summary(run: dict[str, Any]) -> dict[str, int]:
    rows = run.get("coverage", [])
    hit = sum(1 for r in rows if r.get("hits"))
    return {"endpoints": len(rows), "hit": hit, "uncovered": len(rows) - hit}
