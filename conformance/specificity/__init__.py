"""`nsconform specificity`: prove the suites raise no false alarm on clusters that legitimately differ.

The mirror of `nsconform sensitivity`: there every deliberate bug must make a test fail; here the whole
suite runs, per profile, against the reference server in each cluster flavour (reference_server/flavors:
controllers writing into new namespaces, admission webhooks, an IAM authorizer, slow deletion, late
watches). Every test must pass, or skip. A flavour with a failed (or broken) run is a false alarm: a
healthy cluster of that kind would fail the suites.

Each run is an ordinary conformance run (the sensitivity runner's `execute`) with `--nsconform-flavor`,
`-n <flavour's suite_jobs>` workers; its report lands in `<reports>/specificity/<run-id>/`, the summary in
`<reports>/specificity.{json,md}`. The last line is `false alarms: K of N flavours`.

Exit status: 0 when every flavour passed, 1 otherwise, 2 on usage errors.
"""
from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from conformance.argtypes import OneLineParser, positive_float, positive_int
from conformance.progress import Progress
from conformance.sensitivity.runner import PROFILES, Run, execute, judge, short_names

__all__ = ["build_parser", "main", "plan", "run_plan", "false_alarms", "last_line", "text_table"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
SHOWN = 4  # failed tests named in a table cell (all of them above the table and in specificity.json)
Execute = Callable[..., Run]


@dataclass
class FlavorRun:
    """One (flavour, profile) run and the workers it uses."""

    run: Run
    jobs: int


def build_parser() -> OneLineParser:
    p = OneLineParser(prog="nsconform specificity", usage="nsconform specificity [options] [-- PYTEST-ARGS...]",
                      description="Run the whole suite against the reference server in each cluster flavour; "
                                  "every test must pass or skip.")
    p.add_argument("--flavor", action="append", default=None, metavar="NAME",
                   help="only this flavour (repeatable; default: all)")
    p.add_argument("--profile", action="append", choices=PROFILES, default=None,
                   help="only this profile (repeatable; default: both)")
    p.add_argument("-j", "--jobs", type=positive_int, default=1, metavar="N",
                   help="runs at the same time (default 1: each run already uses the flavour's workers)")
    p.add_argument("-n", "--workers", type=positive_int, default=None, metavar="N",
                   help="pytest workers per run (default: the flavour's `suite_jobs`)")
    p.add_argument("--reports", default="reports", metavar="DIR",
                   help="reports directory (default: reports): DIR/specificity/<run-id>/, DIR/specificity.{json,md}")
    p.add_argument("--timeout-scale", type=positive_float, default=1.0, metavar="X",
                   help="wait timeouts × X (default 1: the flavours are slow on purpose)")
    p.add_argument("--run-timeout", type=positive_float, default=1200.0, metavar="S",
                   help="give up a single run after S seconds (default 1200)")
    p.add_argument("--authorization", choices=("rbac", "always-allow"), default="rbac",
                   help="authorization mode of the embedded servers (default rbac: the managed flavour's webhook "
                        "authorizer only shows with it)")
    p.add_argument("--list", action="store_true", help="list the flavours and what they imitate")
    return p


def plan(flavors: Sequence[Any], profiles: Sequence[str], workers: int | None = None) -> list[FlavorRun]:
    """One whole-suite run per flavour and profile."""
    return [FlavorRun(Run(run_id=f"spec-{p}-{f.name}", profile=p, deviation=None, clauses=(), flavor=f.name),
                      workers or max(1, int(getattr(f, "suite_jobs", 1) or 1)))
            for f in flavors for p in profiles]


def run_plan(runs: Sequence[FlavorRun], reports: Path, *, jobs: int, timeout_scale: float, run_timeout: float,
             authorization: str | None = "rbac", extra: Sequence[str] = (),
             on_done: Callable[[Run, int, int], None] | None = None,
             execute_run: Execute = execute) -> list[Run]:
    """Execute the runs (`jobs` at a time) and judge each as a clean run: passed, failed or error."""
    reports.mkdir(parents=True, exist_ok=True)
    done = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(execute_run, fr.run, reports, timeout_scale=timeout_scale, run_timeout=run_timeout,
                               extra=[*(["-n", str(fr.jobs)] if fr.jobs > 1 else []), *extra],
                               authorization=authorization) for fr in runs]
        for fut in as_completed(futures):
            run = fut.result()
            judge(run, set())
            done += 1
            if on_done is not None:
                on_done(run, done, len(runs))
    return [fr.run for fr in runs]


def false_alarms(runs: Sequence[Run]) -> tuple[int, int, dict[str, bool]]:
    """(flavours with a false alarm, flavours, {flavour: clean}); a flavour is clean when all its runs passed."""
    per: dict[str, bool] = {}
    for r in runs:
        name = r.flavor or "default"
        per[name] = per.get(name, True) and r.status == "passed"
    return sum(not ok for ok in per.values()), len(per), per


def last_line(alarms: int, total: int) -> str:
    return f"false alarms: {alarms} of {total} flavours"


def _cell(r: Run) -> str:
    if r.error:
        return f"ERROR: {r.error}"
    if r.status == "passed":
        return "all passed"
    names = short_names(r.failed)
    more = f", +{len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return "FAILED: " + ", ".join(names[:SHOWN]) + more


def rows(runs: Sequence[Run]) -> list[tuple[str, ...]]:
    out = []
    for r in runs:
        counts = {o: sum(t.outcome == o for t in r.tests.values()) for o in ("passed", "failed", "skipped")}
        out.append((r.flavor or "default", r.profile, str(counts["passed"]), str(counts["failed"]),
                    str(counts["skipped"]), f"{r.duration_s:.1f}s", _cell(r)))
    return out


HEADERS = ("flavor", "profile", "passed", "failed", "skipped", "time", "result")


def text_table(runs: Sequence[Run]) -> str:
    body = rows(runs)
    widths = [max(len(h), *(len(row[i]) for row in body)) if body else len(h) for i, h in enumerate(HEADERS)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(HEADERS, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in body]
    return "\n".join(lines)


def markdown_table(runs: Sequence[Run]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows(runs)]
    return "\n".join(lines)


def _print_list(flavors: dict[str, Any]) -> None:
    for f in flavors.values():
        print(f"{f.name}: {f.summary}")
        for s in f.sources:
            print(f"    - {s.behaviour}\n      ({s.where})")


def main(argv: Sequence[str] | None = None, *, execute_run: Execute = execute) -> int:
    from conformance.reference_server.flavors import FLAVORS

    args = list(sys.argv[1:] if argv is None else argv)
    passthrough: list[str] = []
    if "--" in args:
        i = args.index("--")
        args, passthrough = args[:i], args[i + 1:]
    try:
        ns = build_parser().parse_args(args)
    except SystemExit as exc:
        return EXIT_OK if exc.code in (0, None) else EXIT_USAGE
    if ns.list:
        _print_list(FLAVORS)
        return EXIT_OK
    names = list(dict.fromkeys(ns.flavor or FLAVORS))
    unknown = [n for n in names if n not in FLAVORS]
    if unknown:
        print(f"nsconform specificity: unknown flavor(s): {', '.join(unknown)}; known: {', '.join(FLAVORS)}",
              file=sys.stderr)
        return EXIT_USAGE
    profiles = tuple(p for p in PROFILES if p in (ns.profile or PROFILES))
    runs = plan([FLAVORS[n] for n in names], profiles, ns.workers)
    reports = Path(ns.reports).resolve()
    print(f"specificity: {len(names)} flavour(s) × {len(profiles)} profile(s), {ns.jobs} run(s) at a time; "
          f"reports in {reports / 'specificity'}", flush=True)
    started_at = datetime.now(timezone.utc)
    t0 = time.monotonic()

    progress = Progress(len(runs))

    def on_done(run: Run, i: int, total: int) -> None:
        progress.done(f"{run.flavor} ({run.profile})", run.status, run.duration_s,
                      f"[{i}/{total}] {run.status:<7} {run.flavor} ({run.profile}) {run.duration_s:.1f}s"
                      + (f": {run.error}" if run.error else
                         f": failed {', '.join(short_names(run.failed))}" if run.failed else ""))

    try:
        done = run_plan(runs, reports / "specificity", jobs=ns.jobs, timeout_scale=ns.timeout_scale,
                        run_timeout=ns.run_timeout, authorization=ns.authorization, extra=passthrough,
                        on_done=on_done, execute_run=execute_run)
    except KeyboardInterrupt:
        progress.finish()
        print("nsconform specificity: interrupted", file=sys.stderr)
        return EXIT_USAGE
    progress.finish()
    wall = time.monotonic() - t0
    for r in done:
        if r.status != "passed":
            print(f"\n--- {r.run_id}: {r.status}{': ' + r.error if r.error else ''}")
            for t in r.failed:
                print(f"  {t.nodeid}: {t.message.splitlines()[0] if t.message else t.category}")
            if r.error and r.output_tail:
                print("\n".join("  " + ln for ln in r.output_tail.splitlines()))
    print()
    print(text_table(done))
    print()
    alarms, total, per = false_alarms(done)
    exit_status = EXIT_FAILED if alarms else EXIT_OK
    _write_summary(reports, done, per, ns, started_at, wall, alarms, total, exit_status)
    print(f"wall time {wall:.1f}s; summary: {reports / 'specificity.md'}")
    print(last_line(alarms, total))
    return exit_status


def _write_summary(reports: Path, runs: Sequence[Run], per: dict[str, bool], ns: Any, started_at: datetime,
                   wall: float, alarms: int, total: int, exit_status: int) -> None:
    reports.mkdir(parents=True, exist_ok=True)
    data = {"started": started_at.isoformat(), "duration_s": round(wall, 3), "exit_status": exit_status,
            "false_alarms": alarms, "flavours": total, "clean": per,
            "options": {"profiles": ns.profile or list(PROFILES), "flavors": ns.flavor or "all",
                        "timeout_scale": ns.timeout_scale, "authorization": ns.authorization, "jobs": ns.jobs,
                        "workers": ns.workers},
            "runs": [{**r.to_dict(), "flavor": r.flavor, "failed": [
                {"nodeid": t.nodeid, "clauses": list(t.clauses), "category": t.category, "message": t.message}
                for t in r.failed]} for r in runs]}
    (reports / "specificity.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    md = ["# nsconform specificity", "", f"Started {started_at.isoformat(timespec='seconds')}, wall time "
          f"{wall:.1f} s.", "", markdown_table(runs), "", f"`{last_line(alarms, total)}`", ""]
    (reports / "specificity.md").write_text("\n".join(md), encoding="utf-8")
