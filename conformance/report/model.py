"""Build the Contract 5 document (`conformance.json`) from the catalogue, the test results and the target.

Pure function of its inputs, so the same code serves the live plugin, `nsconform report` and the tests.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

from conformance import __version__

from .masking import mask_exchange, scrub

STATUSES = ("failed", "passed", "skipped", "untested")
SEVERITY_ORDER = {"critical": 0, "major": 1, "minor": 2}


def clause_status(outcomes: Iterable[str]) -> str:
    """failed if any test failed; passed if none failed and one passed; skipped if all skipped; untested if none."""
    seen = set(outcomes)
    if not seen:
        return "untested"
    if "failed" in seen:
        return "failed"
    if "passed" in seen:
        return "passed"
    return "skipped"


def _test_entry(test: dict[str, Any], secrets: tuple[str, ...]) -> dict[str, Any]:
    failed = test.get("outcome") == "failed"
    entry = {"nodeid": test["nodeid"], "outcome": test.get("outcome", "skipped"),
             "duration_s": round(float(test.get("duration_s") or 0.0), 4),
             "message": test.get("message") or "", "category": test.get("category") if failed else None,
             "phase": test.get("phase", "call"),
             "exchanges": [mask_exchange(e, secrets) for e in test.get("exchanges") or []] if failed else []}
    if failed and test.get("namespace_state"):
        entry["namespace_state"] = test["namespace_state"]
    return entry


def build_run(*, catalogue: list[dict[str, Any]], tests: list[dict[str, Any]], target: dict[str, Any] | None,
              run_id: str, started: str, duration_s: float, exit_status: int, profile: str | None = None,
              coverage: list[dict[str, Any]] | None = None, unmatched: list[dict[str, Any]] | None = None,
              secrets: Iterable[str] = (), messages: str = "exact") -> dict[str, Any]:
    """The run document. Clauses not applicable to `profile` are left out unless a test claimed them."""
    secrets = tuple(s for s in secrets if s)
    by_clause: dict[str, list[dict[str, Any]]] = {}
    unmapped: list[dict[str, Any]] = []
    for test in tests:
        entry = _test_entry(test, secrets)
        ids = list(dict.fromkeys(test.get("clauses") or []))
        if not ids:
            unmapped.append(entry)
        for cid in ids:
            by_clause.setdefault(cid, []).append(entry)

    known = {c["id"] for c in catalogue}
    clauses: list[dict[str, Any]] = []
    extensions: dict[str, list[dict[str, Any]]] = {}
    for c in catalogue:
        applies = not profile or not c.get("profiles") or profile in c["profiles"]
        if not applies and c["id"] not in by_clause:
            continue
        if c.get("extension") and c["id"] not in by_clause:
            continue  # an extension that was not asked for is not part of the run
        clause_tests = by_clause.get(c["id"], [])
        into = extensions.setdefault(str(c["extension"]), []) if c.get("extension") else clauses
        into.append({"id": c["id"], "group": c.get("group") or "ungrouped",
                     "requirement": c.get("requirement") or "",
                     "source": c.get("source") or "", "severity": c.get("severity") or "major",
                     "profiles": c.get("profiles") or [], "depends_on": list(c.get("depends_on") or []),
                     "status": clause_status(t["outcome"] for t in clause_tests), "tests": clause_tests})
    for cid in by_clause:
        if cid not in known:
            clause_tests = by_clause[cid]
            clauses.append({"id": cid, "group": "unknown", "requirement": "(not in the clause catalogue)",
                            "source": "", "severity": "major", "profiles": [],
                            "status": clause_status(t["outcome"] for t in clause_tests), "tests": clause_tests})

    clause_counts = Counter(c["status"] for c in clauses)
    ext_ids = {c["id"] for cs in extensions.values() for c in cs}
    core_tests = [t for t in tests if not (t.get("clauses") and set(t["clauses"]) <= ext_ids)]
    test_counts = Counter(t.get("outcome", "skipped") for t in core_tests)
    cov = coverage or []
    run = {
        "harness": {"name": "nsconform", "version": __version__},
        "run_id": run_id, "started": started, "duration_s": round(float(duration_s), 3),
        "target": dict(target or {}), "profile": profile, "messages": messages, "exit_status": int(exit_status),
        "summary": {
            "clauses": {s: clause_counts.get(s, 0) for s in STATUSES} | {"total": len(clauses)},
            "tests": {s: test_counts.get(s, 0) for s in ("passed", "failed", "skipped")} | {"total": len(core_tests)},
            "categories": dict(Counter(t["category"] for t in tests
                                       if t.get("outcome") == "failed" and t.get("category"))),
            "coverage": {"endpoints": len(cov), "hit": sum(1 for r in cov if r.get("hits")),
                         "uncovered": sum(1 for r in cov if not r.get("hits"))},
        },
        "clauses": clauses,
        "root_causes": root_causes(clauses),
        # opt-in extensions (`--extension NAME`): never counted in `summary` nor in the core verdict
        "extensions": {name: {"summary": {"clauses": {s: Counter(c["status"] for c in cs).get(s, 0) for s in STATUSES}
                                          | {"total": len(cs)}}, "clauses": cs}
                       for name, cs in extensions.items()},
        "unmapped_tests": unmapped,
        "coverage": cov,
        "coverage_unmatched": unmatched or [],
    }
    return scrub(run, secrets)


def groups(run: dict[str, Any]) -> list[tuple[str, dict[str, int]]]:
    """Per clause group: counts of each status, in first-seen order."""
    out: dict[str, dict[str, int]] = {}
    for c in run.get("clauses", []):
        counts = out.setdefault(c.get("group") or "ungrouped", {s: 0 for s in STATUSES})
        counts[c.get("status", "untested")] = counts.get(c.get("status", "untested"), 0) + 1
    return list(out.items())


def core_ran(run: dict[str, Any]) -> bool:
    """Did any core (non-extension) test run? An `--extension` run has no core verdict."""
    return bool(run.get("summary", {}).get("tests", {}).get("total")) or not run.get("extensions")


def extension_clauses(run: dict[str, Any]) -> list[dict[str, Any]]:
    """Every clause of the run's extensions (for readers such as sensitivity that want all results)."""
    return [c for ext in (run.get("extensions") or {}).values() for c in ext.get("clauses") or []]


def failing_clauses(run: dict[str, Any]) -> list[dict[str, Any]]:
    """Failed clauses: probable root causes (failed clauses others depend on) first, then most severe first
    (catalogue order within a severity)."""
    failed = [c for c in run.get("clauses", []) if c.get("status") == "failed"]
    roots = run.get("root_causes")
    if roots is None:
        roots = root_causes(run.get("clauses", []))
    rank = {r["id"]: i for i, r in enumerate(r for r in roots if r["dependents"])}
    return sorted(failed, key=lambda c: (rank.get(c["id"], len(rank)),
                                         SEVERITY_ORDER.get(c.get("severity", "major"), 1)))


def root_causes(clauses: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Failed clauses that no other failed clause explains, each with the failed clauses that depend on it
    (directly or through other failed clauses, per the catalogue's `depends_on`), most dependents first.

    [{"id": "NS-FIN-001", "dependents": ["NS-FIN-002", ...]}]; a failed clause with a failed ancestor is
    listed under that ancestor's root, not on its own. Dependents still failed on their own evidence: this
    only says where to look first."""
    by_id = {c["id"]: c for c in clauses}
    failed = [c["id"] for c in clauses if c.get("status") == "failed"]
    failed_set = set(failed)

    def failed_ancestors(cid: str) -> set[str]:
        # Through failed clauses only: a dependency that passed was not broken by what it depends on.
        seen: set[str] = set()
        stack = [d for d in (by_id.get(cid) or {}).get("depends_on") or [] if d in failed_set]
        while stack:
            dep = stack.pop()
            if dep in seen or dep == cid:
                continue
            seen.add(dep)
            stack.extend(d for d in (by_id.get(dep) or {}).get("depends_on") or [] if d in failed_set)
        return seen

    ancestors = {cid: failed_ancestors(cid) for cid in failed}
    roots = [cid for cid in failed if not ancestors[cid]]
    out = [{"id": r, "dependents": [cid for cid in failed if r in ancestors[cid]]} for r in roots]
    out.sort(key=lambda e: -len(e["dependents"]))  # stable: catalogue order among equals
    return out


def root_cause_summary(run: dict[str, Any]) -> str:
    """One sentence naming the probable root cause first, e.g. "13 clauses failed; 12 of them depend on
    NS-FIN-001, which failed." Empty when nothing failed."""
    clauses = run.get("clauses", [])
    failed = [c for c in clauses if c.get("status") == "failed"]
    if not failed:
        return ""
    roots = run.get("root_causes")
    if roots is None:
        roots = root_causes(clauses)
    total = f"{len(failed)} clause{'s' if len(failed) != 1 else ''} failed"
    explained = [r for r in roots if r["dependents"]]
    if not explained:
        return total + "."
    parts = [f"{len(r['dependents'])} of them {'depends' if len(r['dependents']) == 1 else 'depend'} on {r['id']}, "
             "which failed" for r in explained[:3]]
    return f"{total}; " + "; ".join(parts) + "."
