"""The sensitivity runs: one pytest process per (deviation, profile), `jobs` at a time.

Each process is forked from a warm fork server (forkserver.py; `NSCONFORM_FORKSERVER=0`: a fresh
`python -m pytest` each time), loads no pytest plugin but the harness and xdist, and shares a private
bytecode cache with the others: start-up was most of a selected-clause run's CPU.

Each run is an ordinary conformance run of the suites against an embedded reference server started with
one deliberate deviation (`--nsconform-deviate NAME`), restricted to the tests of the clauses the deviation
declares (`-p conformance.sensitivity.select`), or the whole suite with `full`. Its `conformance.json`
(Contract 5) says which tests failed. A clean run per profile (no deviation) must pass; a test that fails
on the clean server never counts as having caught a deviation.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

__all__ = ["Run", "TestResult", "plan_runs", "run_all", "schedule", "previous_durations", "pytest_argv",
           "read_results", "deviation_profiles", "coverage", "judge", "short_name", "short_names", "SELECT_PLUGIN",
           "PROFILES"]

SELECT_PLUGIN = "conformance.sensitivity.select"
PROFILES = ("kubernetes", "design")


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class

    nodeid: str
    outcome: str                       # passed | failed | skipped
    clauses: tuple[str, ...] = ()
    category: str | None = None        # violation | timeout | harness (failures only)
    message: str = ""


@dataclass
class Run:
    run_id: str
    profile: str
    deviation: str | None              # None: the clean run
    clauses: tuple[str, ...]           # the clauses whose tests are selected; () = the whole suite
    declared: tuple[str, ...] = ()     # the clauses the deviation declares for this profile
    report_dir: Path | None = None
    returncode: int | None = None
    duration_s: float = 0.0
    tests: dict[str, TestResult] = field(default_factory=dict)
    error: str = ""                    # why the run produced no usable result
    output_tail: str = ""
    caught_by: list[TestResult] = field(default_factory=list)
    also_failed: list[TestResult] = field(default_factory=list)   # failures outside the declared clauses
    status: str = "pending"            # clean: passed|failed|error; deviation: caught|missed|error
    flavor: str | None = None          # the embedded server's cluster flavour (specificity runs); None: default

    @property
    def failed(self) -> list[TestResult]:
        return [t for t in self.tests.values() if t.outcome == "failed"]

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "profile": self.profile, "deviation": self.deviation,
                "selected_clauses": list(self.clauses) or "all", "declared_clauses": list(self.declared),
                "status": self.status, "returncode": self.returncode, "duration_s": round(self.duration_s, 3),
                "report": str(self.report_dir / "conformance.json") if self.report_dir else None,
                "tests": {"total": len(self.tests), "failed": len(self.failed),
                          "passed": sum(t.outcome == "passed" for t in self.tests.values()),
                          "skipped": sum(t.outcome == "skipped" for t in self.tests.values())},
                "caught_by": [_test_dict(t) for t in self.caught_by],
                "also_failed": [_test_dict(t) for t in self.also_failed],
                "failed": [_test_dict(t) for t in self.failed] if self.deviation is None else [],
                "error": self.error or None}


def _test_dict(t: TestResult) -> dict[str, Any]:
    return {"nodeid": t.nodeid, "clauses": list(t.clauses), "category": t.category, "message": t.message}


# --------------------------------------------------------------------------------------------- planning
def deviation_profiles(dev: Any, catalogue: Mapping[str, Any]) -> tuple[str, ...]:
    """The profiles a deviation is run in: its own `profiles` when it declares them, else every profile
    at least one of its clauses applies to."""
    own = tuple(getattr(dev, "profiles", ()) or ())
    if own:
        return tuple(p for p in PROFILES if p in own)
    clauses = [catalogue[c] for c in dev.clauses if c in catalogue]
    return tuple(p for p in PROFILES if any(c.applies_to(p) for c in clauses))


def plan_runs(deviations: Sequence[Any], catalogue: Mapping[str, Any], profiles: Sequence[str], *,
              full: bool = False, clean_clauses: Sequence[str] | None = None, run_prefix: str = "sens") -> list[Run]:
    """Clean run per profile first (whole suite, or only `clean_clauses`), then deviation × profile."""
    runs: list[Run] = []
    for p in profiles:
        sel = () if full or clean_clauses is None else tuple(c for c in clean_clauses if catalogue[c].applies_to(p))
        if clean_clauses is not None and not full and not sel:
            continue
        runs.append(Run(run_id=f"{run_prefix}-{p}-clean", profile=p, deviation=None, clauses=sel))
    for dev in deviations:
        devp = deviation_profiles(dev, catalogue)
        if not devp and not full:  # declares no clause: nothing to run, counts as missed
            p = profiles[0] if profiles else PROFILES[0]
            runs.append(Run(run_id=f"{run_prefix}-{p}-{dev.name}", profile=p, deviation=dev.name, clauses=(),
                            status="error", error="declares no clause (run it with --full to see what fails)"))
            continue
        for p in devp or PROFILES:
            if p not in profiles:
                continue
            declared = tuple(c for c in dev.clauses if c in catalogue and catalogue[c].applies_to(p))
            runs.append(Run(run_id=f"{run_prefix}-{p}-{dev.name}", profile=p, deviation=dev.name,
                            clauses=() if full else declared, declared=declared))
    return runs


def pytest_argv(run: Run, reports: Path, *, timeout_scale: float, extra: Sequence[str] = (),
                authorization: str | None = None) -> list[str]:
    argv = [sys.executable, "-m", "pytest", "--pyargs", "conformance.suites", "-p", "no:cacheprovider",
            *unused_plugins(), "-p", SELECT_PLUGIN, "-q", "-rN", "--color=no", "--profile", run.profile,
            "--nsconform-reports", str(reports), "--run-id", run.run_id, "--timeout-scale", repr(timeout_scale)]
    if authorization:  # rbac: the scope suites' authorization tests skip without it (nothing else changes)
        argv += ["--nsconform-authorization", authorization]
    if run.clauses:
        argv += ["--nsconform-select-clauses", ",".join(run.clauses)]
    if run.deviation is None and run.clauses:
        # a clean run of extension clauses only: the extension asked for, its gate left off — the
        # embedded server does not serve it, and its tests must skip with the reason, not fail
        from ..clauses import by_id
        cat = by_id()
        exts = {str(cat[c].extra.get("extension") or "") for c in run.clauses if c in cat}
        if len(exts) == 1 and "" not in exts:
            argv += ["--extension", exts.pop()]
    if run.deviation:
        argv += ["--nsconform-deviate", run.deviation]
        from ..reference_server.deviations import EXTENSION_DEVIATIONS
        ext = EXTENSION_DEVIATIONS.get(run.deviation)
        if ext:  # an extension's bug shows only with its feature gate on and its clauses asked for
            argv += ["--extension", ext, "--nsconform-feature-gates", "NamespaceInitializers=true"]
        from ..reference_server.deviations import RUN_OPTIONS
        argv += list(RUN_OPTIONS.get(run.deviation, ()))  # an opt-in suite its clauses need (e.g. --scale)
    if run.flavor:
        argv += ["--nsconform-flavor", run.flavor]
    return argv + list(extra)


USED_PLUGIN_DISTS = frozenset({"nsconform", "pytest-xdist"})
"""The only installed pytest plugins a run needs: the harness, and xdist for `-n` (specificity)."""


@functools.lru_cache(maxsize=None)
def unused_plugins() -> tuple[str, ...]:
    """`-p no:NAME` for every other installed pytest11 plugin (Schemathesis, Hypothesis, allure-pytest, anyio...):
    a run uses none of them, and importing them (Hypothesis alone: ~1 s of CPU) was most of each run's start-up.
    Blocking by name, not PYTEST_DISABLE_PLUGIN_AUTOLOAD, keeps the harness package's assertion rewriting as it is."""
    from importlib.metadata import entry_points

    names = {ep.name for ep in entry_points(group="pytest11")
             if ep.dist is None or ep.dist.name.lower() not in USED_PLUGIN_DISTS}
    names.discard("nsconform")
    return tuple(a for n in sorted(names) for a in ("-p", f"no:{n}"))


_WORK: list[str] = []
_WORK_LOCK = threading.RLock()


def _workdir() -> Path:
    """This process's private scratch directory (removed at exit): the bytecode cache, the runs' output."""
    with _WORK_LOCK:  # the runs start from a thread pool
        if not _WORK:
            path = tempfile.mkdtemp(prefix="nsconform-runs-")
            atexit.register(shutil.rmtree, path, ignore_errors=True)
            _WORK.append(path)
        return Path(_WORK[0])


def pycache_dir() -> str:
    """One private bytecode cache for every run of this process. Without it, under PYTHONDONTWRITEBYTECODE
    (common in containers) each run compiled, and assertion-rewrote, every module it imports from source
    again; with it only the first run does."""
    path = _workdir() / "pycache"
    path.mkdir(exist_ok=True)
    return str(path)


def child_env() -> dict[str, str]:
    """The environment of a run's pytest process: bytecode written, but only to `pycache_dir()` (never next to
    the user's sources); writes are atomic (CPython and pytest both write-then-rename), so parallel runs share it."""
    env = dict(os.environ)
    env.pop("NSCONFORM_SELECT_CLAUSES", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache_dir()
    # the fork server's runs have the reference server imported already: in-thread costs them nothing more
    env.setdefault("NSCONFORM_EMBEDDED_PROCESS", "0")
    return env


# --------------------------------------------------------------------------------------------- results
def read_results(path: Path) -> dict[str, TestResult]:
    """nodeid → result, from a Contract 5 `conformance.json` (a test listed under several clauses once)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, TestResult] = {}
    ext = [c for e in (data.get("extensions") or {}).values() for c in e.get("clauses") or []]
    for clause in (data.get("clauses") or []) + ext:
        cid = clause.get("id")
        for t in clause.get("tests") or []:
            nodeid = t.get("nodeid")
            if not nodeid:
                continue
            r = out.get(nodeid)
            if r is None:
                r = out[nodeid] = TestResult(nodeid=nodeid, outcome=str(t.get("outcome") or "skipped"),
                                             category=t.get("category"), message=str(t.get("message") or ""))
            if cid and cid not in r.clauses:
                r.clauses = r.clauses + (cid,)
    for t in data.get("unmapped_tests") or []:
        if isinstance(t, dict) and t.get("nodeid") and t["nodeid"] not in out:
            out[t["nodeid"]] = TestResult(nodeid=t["nodeid"], outcome=str(t.get("outcome") or "skipped"),
                                          category=t.get("category"), message=str(t.get("message") or ""))
    return out


_PARAM = re.compile(r"^(?P<fn>[^\[]+)(?:\[(?P<param>.*)\])?$")


def short_name(nodeid: str) -> str:
    """`test_content.py::test_x[pods]` → `test_x[pods]`."""
    return nodeid.rsplit("::", 1)[-1]


def short_names(tests: Iterable[TestResult | str]) -> list[str]:
    """Short names, the parametrised cases of one function folded: `test_x (5)`."""
    groups: dict[str, list[str]] = {}
    for t in tests:
        name = short_name(t.nodeid if isinstance(t, TestResult) else t)
        m = _PARAM.match(name)
        fn = m.group("fn") if m else name
        groups.setdefault(fn, []).append(name)
    out = []
    for fn, names in groups.items():
        out.append(names[0] if len(names) == 1 else f"{fn} ({len(names)})")
    return out


def judge(run: Run, clean_failures: set[str]) -> None:
    """Set `status`, `caught_by`, `also_failed` from the run's tests (idempotent)."""
    run.caught_by, run.also_failed = [], []
    if run.error:
        run.status = "error"
        return
    if run.deviation is None:
        run.status = "failed" if run.failed or run.returncode not in (0, None) else "passed"
        if run.status == "failed" and not run.failed and not run.error:
            run.error = f"pytest exit status {run.returncode}"
        return
    declared = set(run.declared)
    for t in run.failed:
        if t.nodeid in clean_failures:
            continue  # fails on the clean server too: proves nothing about the deviation
        (run.caught_by if declared & set(t.clauses) else run.also_failed).append(t)
    run.status = "caught" if run.caught_by else "missed"


# --------------------------------------------------------------------------------------------- execution
def execute(run: Run, reports: Path, *, timeout_scale: float, run_timeout: float,
            extra: Sequence[str] = (), authorization: str | None = None) -> Run:
    run.report_dir = reports / run.run_id
    shutil.rmtree(run.report_dir, ignore_errors=True)  # never read a previous sensitivity run's report
    argv = pytest_argv(run, reports, timeout_scale=timeout_scale, extra=extra, authorization=authorization)
    started = time.monotonic()
    run.returncode, output = _spawn(argv, run.run_id, run_timeout)
    if run.returncode is None:
        run.error = f"timed out after {run_timeout:.0f} s"
    run.duration_s = time.monotonic() - started
    run.output_tail = "\n".join(output.strip().splitlines()[-25:])
    report = run.report_dir / "conformance.json"
    if not run.error:
        if run.returncode not in (0, 1):
            run.error = f"pytest exit status {run.returncode}"
        elif not report.is_file():
            run.error = f"no report at {report}"
        else:
            try:
                run.tests = read_results(report)
            except (OSError, ValueError) as exc:
                run.error = f"unreadable report {report}: {exc}"
    return run


FORKSERVER_ENV = "NSCONFORM_FORKSERVER"
"""Set to 0 to start every run as a fresh `python -m pytest` process instead of forking the fork server."""
_FORKSERVER: list[Any] = []  # [ForkServer] once started, [None] when unavailable


def _fork_server() -> Any:
    with _WORK_LOCK:
        if not _FORKSERVER:
            server = None
            if os.environ.get(FORKSERVER_ENV, "1") != "0":
                from .forkserver import ForkServer, ForkServerError
                try:
                    server = ForkServer(child_env())
                    atexit.register(server.close)
                except (ForkServerError, OSError):
                    server = None
            _FORKSERVER.append(server)
        return _FORKSERVER[0]


def _spawn(argv: Sequence[str], name: str, timeout: float) -> tuple[int | None, str]:
    """Run `python -m pytest ARGS` (argv): (exit status or None on timeout, its output). Forked from the warm
    fork server when there is one (runs start in a fraction of the CPU), else a fresh subprocess."""
    from .forkserver import ForkServerError

    server = _fork_server() if list(argv[:3]) == [sys.executable, "-m", "pytest"] else None
    if server is not None and server.alive:
        out = _workdir() / f"{name}.{threading.get_ident()}.out"
        try:
            rc = server.run(argv[3:], out, timeout)
            return rc, out.read_text(encoding="utf-8", errors="replace") if out.is_file() else ""
        except ForkServerError:
            pass  # gone: this and the later runs start as subprocesses
        finally:
            out.unlink(missing_ok=True)
    try:
        proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=child_env(),
                              timeout=timeout, stdin=subprocess.DEVNULL)
        return proc.returncode, proc.stdout or ""
    except subprocess.TimeoutExpired as exc:
        out_b = exc.stdout or b""
        return None, out_b.decode(errors="replace") if isinstance(out_b, bytes) else out_b


def previous_durations(summary: Path) -> dict[str, float]:
    """run id → seconds, from an earlier `sensitivity.json` (used to start the slowest runs first)."""
    try:
        data = json.loads(summary.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out: dict[str, float] = {}
    runs = list(data.get("clean") or []) + [r for d in data.get("deviations") or [] for r in d.get("runs") or []]
    for r in runs:
        if isinstance(r, dict) and r.get("run_id") and isinstance(r.get("duration_s"), (int, float)):
            out[r["run_id"]] = float(r["duration_s"])
    return out


def schedule(runs: Sequence[Run], hints: Mapping[str, float]) -> list[Run]:
    """Clean runs first (their failures decide what counts), then the slowest known runs first, so the
    long waits of timeout-caught deviations overlap with the short runs instead of trailing at the end."""
    return sorted(runs, key=lambda r: (r.deviation is not None, -hints.get(r.run_id, 2.0)))


def run_all(runs: list[Run], reports: Path, *, jobs: int, timeout_scale: float, run_timeout: float,
            on_done: Callable[[Run, int, int], None] | None = None, extra: Sequence[str] = (),
            authorization: str | None = None, hints: Mapping[str, float] | None = None) -> list[Run]:
    """Execute every run, `jobs` at a time, then judge them (deviation runs against their profile's
    clean run). `on_done(run, index, total)` is called as each finishes (from the calling thread)."""
    reports.mkdir(parents=True, exist_ok=True)
    lock = threading.Lock()
    total = len(runs)
    done = 0
    clean_failed: dict[str, set[str]] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        order = schedule([r for r in runs if not r.error], hints or {})
        futures = [pool.submit(execute, r, reports, timeout_scale=timeout_scale, run_timeout=run_timeout,
                               extra=extra, authorization=authorization) for r in order]
        for fut in as_completed(futures):
            run = fut.result()
            with lock:
                done += 1
                if run.deviation is None:
                    judge(run, set())
                    clean_failed[run.profile] = {t.nodeid for t in run.failed}
                else:  # provisional when the profile's clean run is still going; judged again below
                    judge(run, clean_failed.get(run.profile, set()))
                if on_done is not None:
                    on_done(run, done, total)
    for r in runs:
        if r.error and r.returncode is None and not r.duration_s and on_done is not None:
            done += 1
            on_done(r, done, total)
    clean = {r.profile: {t.nodeid for t in r.failed} for r in runs if r.deviation is None}
    for r in runs:
        if r.deviation is not None:
            judge(r, clean.get(r.profile, set()))
    return runs


# --------------------------------------------------------------------------------------------- coverage
def coverage(catalogue: Mapping[str, Any], deviations: Mapping[str, Any], unbreakable: Mapping[str, str],
             profiles: Sequence[str] = PROFILES) -> dict[str, Any]:
    """Which catalogue clauses (per profile) no deviation breaks and no UNBREAKABLE entry explains."""
    problems: list[str] = []
    covered: dict[str, set[str]] = {p: set() for p in profiles}
    for dev in deviations.values():
        unknown = [c for c in dev.clauses if c not in catalogue]
        if unknown:
            problems.append(f"deviation {dev.name} declares unknown clause(s) {', '.join(unknown)}")
        if not dev.clauses:
            problems.append(f"deviation {dev.name} declares no clause")
        devp = deviation_profiles(dev, catalogue)
        for c in dev.clauses:
            if c in catalogue:
                for p in profiles:
                    if p in devp and catalogue[c].applies_to(p):
                        covered[p].add(c)
    for cid, reason in unbreakable.items():
        if cid not in catalogue:
            problems.append(f"UNBREAKABLE names unknown clause {cid}")
        if not str(reason).strip():
            problems.append(f"UNBREAKABLE {cid} gives no reason")
    uncovered = {p: [cid for cid, c in catalogue.items() if c.applies_to(p) and cid not in covered[p]
                     and cid not in unbreakable] for p in profiles}
    both = sorted(c for c in unbreakable if any(c in covered[p] for p in profiles))
    return {"uncovered": uncovered, "problems": problems, "covered_and_unbreakable": both,
            "covered": {p: sorted(v) for p, v in covered.items()}}
