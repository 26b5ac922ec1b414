"""Compare two runs clause by clause; a regression is a clause that passed in A and failed or went untested in B."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

REGRESSED_TO = {"failed", "untested"}


@dataclass(frozen=True)
class Change:
    clause: str
    group: str
    before: str          # status in A ("absent" when A has no such clause)
    after: str           # status in B ("absent" → treated as untested)

    @property
    def kind(self) -> str:
        if self.before == "passed" and self.after in REGRESSED_TO | {"absent"}:
            return "REGRESSED"
        if self.after == "passed" and self.before != "passed":
            return "fixed"
        return "changed"


def compare(a: dict[str, Any], b: dict[str, Any]) -> list[Change]:
    """Every clause whose status differs between run A and run B, in B's order then A-only clauses."""
    sa = {c["id"]: c for c in a.get("clauses", [])}
    sb = {c["id"]: c for c in b.get("clauses", [])}
    order = list(sb) + [cid for cid in sa if cid not in sb]
    changes = []
    for cid in order:
        before = sa.get(cid, {}).get("status", "absent")
        after = sb.get(cid, {}).get("status", "absent")
        if before != after:
            group = (sb.get(cid) or sa.get(cid) or {}).get("group", "")
            changes.append(Change(cid, group, before, after))
    return changes


def regressions(changes: list[Change]) -> list[Change]:
    return [c for c in changes if c.kind == "REGRESSED"]


def format_table(changes: list[Change], a: dict[str, Any], b: dict[str, Any]) -> str:
    """A plain-text table for terminals and CI logs."""
    head = (f"A: {a.get('run_id')} ({a.get('target', {}).get('url', '?')}, exit {a.get('exit_status')})\n"
            f"B: {b.get('run_id')} ({b.get('target', {}).get('url', '?')}, exit {b.get('exit_status')})\n")
    if not changes:
        return head + "No clause changed status.\n"
    rows = [("CLAUSE", "GROUP", "A", "B", "CHANGE")] + [(c.clause, c.group, c.before, c.after, c.kind)
                                                         for c in changes]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    n_reg = len(regressions(changes))
    tail = f"{len(changes)} clause(s) changed, " + (f"{n_reg} regressed." if n_reg else "no regression.")
    return head + "\n".join(lines) + "\n" + tail + "\n"
