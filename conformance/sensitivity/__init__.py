"""`nsconform sensitivity`: prove the suites can fail (mutation testing with the reference server as mutant).

For each profile, the suites first run against a clean embedded reference server (every test must pass).
Then, for every deliberate deviation (`conformance.reference_server.deviations.DEVIATIONS`) and every
profile it applies to, the tests of the clauses the deviation declares it breaks run against a server
with that deviation switched on (`--full`: the whole suite). A deviation is caught when at least one of
those tests fails (and passes on the clean server). Every run is an ordinary conformance run whose report
lands in `<reports>/sensitivity/<run-id>/`; the summary goes to `<reports>/sensitivity.{json,md}`.

Before running anything the catalogue is checked: every clause (per profile) must be declared by some
deviation or listed in `deviations.UNBREAKABLE` with a reason.

Exit status: 0 when the clean runs passed, every deviation was caught and the catalogue is covered; 1
otherwise; 2 on usage errors.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from .runner import PROFILES, Run, coverage, deviation_profiles, plan_runs, previous_durations, run_all, short_names
from .table import last_line, markdown_table, progress_line, text_table
from conformance.argtypes import OneLineParser, positive_float, positive_int
from conformance.progress import Progress

__all__ = ["main", "build_parser", "summarise"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2




def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="nsconform sensitivity", usage="nsconform sensitivity [options] [-- PYTEST-ARGS...]",
        description="Run the suites against the reference server with each deliberate deviation and check "
                    "that some test of the clauses it breaks fails.")
    p.add_argument("-j", "--jobs", type=positive_int, default=2 * (os.cpu_count() or 1), metavar="N",
                   help="runs in parallel (default: twice the number of cores: a run needs about a second of CPU, "
                        "and the deviations caught by a timeout spend the rest of theirs waiting)")
    p.add_argument("--full", action="store_true", help="run the whole suite per deviation, not only its clauses' tests")
    p.add_argument("--profile", action="append", choices=PROFILES, default=None,
                   help="only this profile (repeatable; default: both)")
    p.add_argument("--deviation", action="append", default=None, metavar="NAME",
                   help="only this deviation (repeatable; the clean run then covers only its clauses' tests)")
    p.add_argument("--reports", default="reports", metavar="DIR",
                   help="reports directory (default: reports): DIR/sensitivity/<run-id>/, DIR/sensitivity.{json,md}")
    p.add_argument("--timeout-scale", type=positive_float, default=0.1, metavar="X",
                   help="wait timeouts of the suites × X (default 0.1: the embedded server is fast, and a deviation "
                        "that makes a test wait should fail it quickly)")
    p.add_argument("--run-timeout", type=positive_float, default=300.0, metavar="S",
                   help="give up a single run after S seconds (default 300)")
    p.add_argument("--authorization", choices=("rbac", "always-allow"), default="rbac",
                   help="authorization mode of the embedded servers (default rbac, so the RBAC scope clauses are "
                        "checked too)")
    p.add_argument("--list", action="store_true", help="list deviations, their clauses and the unbreakable clauses")
    return p


def _load() -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    from .. import clauses as C
    from ..reference_server import deviations as D

    catalogue = C.by_id()
    return catalogue, dict(D.DEVIATIONS), dict(getattr(D, "UNBREAKABLE", {}) or {})


def _print_list(catalogue: dict[str, Any], devs: dict[str, Any], unbreakable: dict[str, str]) -> None:
    for d in devs.values():
        profiles = ", ".join(deviation_profiles(d, catalogue)) or "-"
        print(f"{d.name}  [{profiles}]  {', '.join(d.clauses) or '(no clause)'}")
        print(f"    {d.description}")
    if unbreakable:
        print("unbreakable clauses:")
        for cid, reason in unbreakable.items():
            print(f"  {cid}: {reason}")


def summarise(runs: Sequence[Run]) -> tuple[int, int, dict[str, bool]]:
    """(caught, total, {deviation: caught}); a deviation is caught when caught in every profile it ran in."""
    per: dict[str, bool] = {}
    for r in runs:
        if r.deviation is not None:
            per[r.deviation] = per.get(r.deviation, True) and r.status == "caught"
    return sum(per.values()), len(per), per


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = list(sys.argv[1:] if argv is None else argv)
    passthrough: list[str] = []
    if "--" in args:
        i = args.index("--")
        args, passthrough = args[:i], args[i + 1:]
    try:
        ns = parser.parse_args(args)
    except SystemExit as exc:
        return EXIT_OK if exc.code in (0, None) else EXIT_USAGE
    try:
        catalogue, devs, unbreakable = _load()
    except Exception as exc:  # noqa: BLE001 - a broken catalogue is a usage problem, said in one line
        print(f"nsconform sensitivity: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if ns.list:
        _print_list(catalogue, devs, unbreakable)
        return EXIT_OK
    profiles = tuple(p for p in PROFILES if p in (ns.profile or PROFILES))
    restricted = bool(ns.deviation) or set(profiles) != set(PROFILES)
    if ns.deviation:
        unknown = [n for n in ns.deviation if n not in devs]
        if unknown:
            print(f"nsconform sensitivity: unknown deviation(s): {', '.join(unknown)}; "
                  f"known: {', '.join(devs)}", file=sys.stderr)
            return EXIT_USAGE
        chosen = [devs[n] for n in dict.fromkeys(ns.deviation)]
    else:
        chosen = list(devs.values())

    cov = coverage(catalogue, devs, unbreakable, profiles)
    uncovered = {p: ids for p, ids in cov["uncovered"].items() if ids}
    for problem in cov["problems"]:
        print(f"catalogue problem: {problem}")
    for p, ids in uncovered.items():
        print(f"clauses no deviation breaks ({p}), neither listed as unbreakable: {', '.join(ids)}")
    coverage_failed = bool(cov["problems"] or uncovered)

    clean_clauses = None
    if ns.deviation:
        clean_clauses = list(dict.fromkeys(c for d in chosen for c in d.clauses if c in catalogue))
    runs = plan_runs(chosen, catalogue, profiles, full=ns.full, clean_clauses=clean_clauses)
    reports = Path(ns.reports).resolve()
    n_dev = sum(r.deviation is not None for r in runs)
    print(f"sensitivity: {len(chosen)} deviation(s), {n_dev} deviation run(s) + "
          f"{len(runs) - n_dev} clean run(s), {ns.jobs} at a time; reports in {reports / 'sensitivity'}",
          flush=True)
    started_at = datetime.now(timezone.utc)
    t0 = time.monotonic()

    progress = Progress(len(runs))

    def on_done(run: Run, i: int, total: int) -> None:
        progress.done(f"{run.deviation or '(clean)'} ({run.profile})", run.status, run.duration_s,
                      progress_line(run, i, total))

    try:
        run_all(runs, reports / "sensitivity", jobs=ns.jobs, timeout_scale=ns.timeout_scale,
                run_timeout=ns.run_timeout, on_done=on_done, extra=passthrough, authorization=ns.authorization,
                hints=previous_durations(reports / "sensitivity.json"))
    except KeyboardInterrupt:
        progress.finish()
        print("nsconform sensitivity: interrupted", file=sys.stderr)
        return EXIT_USAGE
    progress.finish()
    wall = time.monotonic() - t0

    clean_ok = all(r.status == "passed" for r in runs if r.deviation is None)
    caught, total, per = summarise(runs)
    for r in runs:
        if r.error or (r.deviation is None and r.status != "passed"):
            print(f"\n--- {r.run_id}: {r.status}{': ' + r.error if r.error else ''}")
            if r.deviation is None:
                for t in r.failed:
                    print(f"  {t.nodeid}: {t.message.splitlines()[0] if t.message else t.category}")
            if r.output_tail and r.error:
                print("\n".join("  " + ln for ln in r.output_tail.splitlines()))
    print()
    print(text_table(runs))
    print()
    missed = [n for n, ok in per.items() if not ok]
    if missed:
        print(f"missed: {', '.join(missed)}")
    if not clean_ok:
        print("the clean run failed: the suites do not pass against the reference server")
    if coverage_failed:
        n = len({c for ids in uncovered.values() for c in ids})
        print(f"catalogue not covered: {n} clause(s) no deviation breaks and not listed as unbreakable, "
              f"{len(cov['problems'])} problem(s) (see the top of this output)"
              + (" — not counted: restricted run" if restricted else ""))
    failed = (not clean_ok) or bool(missed) or (coverage_failed and not restricted)
    exit_status = EXIT_FAILED if failed else EXIT_OK
    _write_summary(reports, runs, chosen, catalogue, unbreakable, cov, ns, started_at, wall, caught, total,
                   exit_status)
    print(f"wall time {wall:.1f}s; summary: {reports / 'sensitivity.md'}")
    print(last_line(caught, total))
    return exit_status


def _write_summary(reports: Path, runs: Sequence[Run], chosen: Sequence[Any], catalogue: dict[str, Any],
                   unbreakable: dict[str, str], cov: dict[str, Any], ns: argparse.Namespace, started_at: datetime,
                   wall: float, caught: int, total: int, exit_status: int) -> None:
    from .. import __version__ as version  # type: ignore[attr-defined]

    reports.mkdir(parents=True, exist_ok=True)
    by_dev: dict[str, list[Run]] = {}
    for r in runs:
        if r.deviation is not None:
            by_dev.setdefault(r.deviation, []).append(r)
    data = {
        "harness": {"name": "nsconform", "version": version},
        "started": started_at.isoformat(), "duration_s": round(wall, 3),
        "options": {"jobs": ns.jobs, "full": ns.full, "profiles": ns.profile or list(PROFILES),
                    "deviations": ns.deviation or "all", "timeout_scale": ns.timeout_scale,
                    "authorization": ns.authorization},
        "exit_status": exit_status, "caught": caught, "total": total,
        "clean": [r.to_dict() for r in runs if r.deviation is None],
        "deviations": [{"name": d.name, "description": d.description, "clauses": list(d.clauses),
                        "profiles": list(deviation_profiles(d, catalogue)),
                        "caught": bool(by_dev.get(d.name)) and all(r.status == "caught" for r in by_dev[d.name]),
                        "runs": [r.to_dict() for r in by_dev.get(d.name, [])]} for d in chosen],
        "coverage": {"uncovered": cov["uncovered"], "problems": cov["problems"],
                     "unbreakable": unbreakable},
    }
    (reports / "sensitivity.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    md = ["# nsconform sensitivity", "",
          f"Started {started_at.isoformat(timespec='seconds')}, wall time {wall:.1f} s, {ns.jobs} job(s)"
          + (", whole suite per deviation" if ns.full else "") + ".", "",
          markdown_table(runs), ""]
    if unbreakable:
        md += ["## Clauses no deviation can break", ""]
        md += [f"- **{cid}**: {reason}" for cid, reason in unbreakable.items()]
        md.append("")
    unc = {p: ids for p, ids in cov["uncovered"].items() if ids}
    if unc or cov["problems"]:
        md += ["## Catalogue not covered", ""]
        md += [f"- {p}: {', '.join(ids)}" for p, ids in unc.items()] + [f"- {x}" for x in cov["problems"]]
        md.append("")
    md += [f"`{last_line(caught, total)}`", ""]
    (reports / "sensitivity.md").write_text("\n".join(md), encoding="utf-8")


__all__ += ["short_names"]
