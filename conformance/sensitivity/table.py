"""Text and markdown rendering of a sensitivity run: progress lines, the table, the last line."""

from __future__ import annotations

from typing import Sequence

from .runner import Run, short_names

__all__ = ["progress_line", "rows", "text_table", "markdown_table", "last_line", "HEADERS"]

HEADERS = ("deviation", "profile", "clauses", "caught by", "time")
OUTSIDE_SHOWN = 4


def _secs(s: float) -> str:
    return f"{s:.1f}s"


def progress_line(run: Run, index: int, total: int) -> str:
    width = len(str(total))
    what = run.deviation or "(clean)"
    head = f"[{index:>{width}}/{total}] {run.status:<7} {what} ({run.profile}) {_secs(run.duration_s)}"
    if run.deviation is None:
        if run.status == "passed":
            passed = sum(t.outcome == "passed" for t in run.tests.values())
            return f"{head}: {passed} passed, {len(run.tests) - passed} skipped, none failed"
        if run.error:
            return f"{head}: {run.error}"
        return f"{head}: failed {', '.join(short_names(run.failed))}"
    if run.error:
        return f"{head}: {run.error}"
    if run.caught_by:
        return f"{head}: {', '.join(short_names(run.caught_by))}"
    return f"{head}: no test of {', '.join(run.declared) or 'its clauses'} failed"


def _caught_cell(run: Run) -> str:
    if run.error:
        return f"ERROR: {run.error}"
    if not run.caught_by:
        return "MISSED"
    text = ", ".join(short_names(run.caught_by))
    if run.also_failed:  # --full: failures outside the declared clauses (all of them in sensitivity.json)
        names = short_names(run.also_failed)
        more = f", +{len(names) - OUTSIDE_SHOWN} more" if len(names) > OUTSIDE_SHOWN else ""
        text += f"  (+ outside its clauses: {', '.join(names[:OUTSIDE_SHOWN])}{more})"
    return text


def rows(runs: Sequence[Run]) -> list[tuple[str, ...]]:
    out = []
    for r in runs:
        if r.deviation is None:
            clean = "all passed" if r.status == "passed" else (
                f"ERROR: {r.error}" if r.error else "FAILED: " + ", ".join(short_names(r.failed)))
            out.append(("(clean)", r.profile, ", ".join(r.clauses) if r.clauses else "all", clean,
                        _secs(r.duration_s)))
        else:
            out.append((r.deviation, r.profile, ", ".join(r.declared), _caught_cell(r), _secs(r.duration_s)))
    return out


def text_table(runs: Sequence[Run]) -> str:
    """Columns padded to their widest cell; the last column (time) right-aligned."""
    body = rows(runs)
    widths = [max([len(h)] + [len(row[i]) for row in body]) for i, h in enumerate(HEADERS)]

    def line(cells: Sequence[str]) -> str:
        padded = [c.ljust(widths[i]) for i, c in enumerate(cells[:-1])] + [cells[-1].rjust(widths[-1])]
        return "  ".join(padded).rstrip()

    return "\n".join([line(HEADERS), line(["-" * w for w in widths])] + [line(r) for r in body])


def _md(cell: str) -> str:
    return cell.replace("|", "\\|")


def markdown_table(runs: Sequence[Run]) -> str:
    out = ["| " + " | ".join(HEADERS) + " |", "|" + "|".join(" --- " for _ in HEADERS) + "|"]
    for row in rows(runs):
        out.append("| " + " | ".join(_md(c) for c in row) + " |")
    return "\n".join(out)


def last_line(caught: int, total: int) -> str:
    return f"caught {caught}/{total} deviations"
