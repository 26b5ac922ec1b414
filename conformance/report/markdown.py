"""The run summary as Markdown for CI logs and pull-request comments (GitHub-flavoured tables)."""

from __future__ import annotations

from typing import Any

from . import coverage as cov
from .model import STATUSES, core_ran, failing_clauses, groups, root_cause_summary


def _cell(value: Any) -> str:
    """A table cell: one line, pipes escaped."""
    return " ".join(str("" if value is None else value).split()).replace("|", "\\|")


def _block(text: str) -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}\n{text.strip()}\n{fence}"


def render_markdown(run: dict[str, Any], *, max_failures: int = 50) -> str:
    target = run.get("target") or {}
    version = target.get("version") or {}
    sc = run.get("summary", {}).get("clauses", {})
    st = run.get("summary", {}).get("tests", {})
    verdict = "✅ conformant" if run.get("exit_status") == 0 else f"❌ not conformant (exit {run.get('exit_status')})"
    if not core_ran(run):
        verdict = "extensions only (no core conformance verdict)"
    lines = [f"# nsconform: {verdict}", "",
             f"Target `{target.get('url', '?')}` ({target.get('kind', '?')}), profile `{run.get('profile')}`, "
             f"server {version.get('gitVersion', 'unknown') if isinstance(version, dict) else version}, "
             f"run `{run.get('run_id')}`, {float(run.get('duration_s') or 0):.1f} s."
             + (" Status messages were not compared (`--messages warn`)." if run.get("messages") == "warn" else ""), "",
             "Clauses: " + ", ".join(f"**{sc.get(s, 0)} {s}**" if s == "failed" else f"{sc.get(s, 0)} {s}"
                                     for s in STATUSES)
             + f". Tests: {st.get('passed', 0)} passed, {st.get('failed', 0)} failed, {st.get('skipped', 0)} skipped.",
             "", "| Group | " + " | ".join(STATUSES) + " |", "|---|" + "---:|" * len(STATUSES)]
    for name, counts in groups(run):
        lines.append(f"| {_cell(name)} | " + " | ".join(str(counts.get(s, 0)) for s in STATUSES) + " |")
    failing = failing_clauses(run)
    if failing:
        lines += ["", f"## Failing clauses ({len(failing)})", "", f"**{root_cause_summary(run)}**", ""]
        for c in failing[:max_failures]:
            lines += [f"### {c['id']} ({c.get('severity')}, {c.get('group')})", "",
                      f"> {_cell(c.get('requirement'))}", ""]
            for t in c.get("tests", []):
                if t.get("outcome") != "failed":
                    continue
                last = (t.get("exchanges") or [None])[-1]
                seen = (f" — last request `{last.get('method')} {last.get('path')}` → {last.get('status')}"
                        if last else "")
                lines += [f"- `{t['nodeid']}` [{t.get('category')}]{seen}", "",
                          _block(t.get("message") or "failed"), ""]
        if len(failing) > max_failures:
            lines.append(f"... and {len(failing) - max_failures} more failing clauses (see conformance.html).")
    lines += _extensions(run)
    s = cov.summary(run)
    lines += ["", "## Endpoint coverage", "", f"{s['hit']} of {s['endpoints']} endpoints requested."]
    missing = cov.uncovered(run)
    if missing:
        lines += ["", "Never requested:", ""]
        lines += [f"- `{r.get('method')} {r.get('path')}` ({r.get('endpoint')})" for r in missing]
    return "\n".join(lines).rstrip() + "\n"


def _extensions(run: dict[str, Any]) -> list[str]:
    """Opt-in extensions, each in its own section: not part of core conformance."""
    lines: list[str] = []
    for name, ext in (run.get("extensions") or {}).items():
        counts = (ext.get("summary") or {}).get("clauses") or {}
        lines += ["", f"## Extension `{name}` (opt-in; not part of core conformance)", "",
                  "Clauses: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES) + ".", "",
                  "| Clause | Status | Requirement |", "|---|---|---|"]
        for c in ext.get("clauses") or []:
            note = "; ".join(t.get("message") or "" for t in c.get("tests", []) if t.get("outcome") != "passed")
            lines.append(f"| {c['id']} | {c.get('status')} | {_cell(c.get('requirement'))}"
                         + (f" — {_cell(note)[:300]}" if note else "") + " |")
    return lines
