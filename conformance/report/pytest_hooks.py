"""`ReportPlugin`: collects every test report on the controller and writes the run directory at session end.

Wiring (done by `conformance/plugin.py` `_register_report_plugins`)::

    rp = ReportPlugin(config, run_id=run_id)          # controller only; run_id optional (else --run-id, else generated)
    config.pluginmanager.register(rp, "nsconform-report")
    rp.add_secret(*secrets)                           # every credential the harness knows (embedded token, ...)
    config.pluginmanager.register(AllureEnricher(config, secrets=[token]), "nsconform-allure")  # every process

Input per test: `report.nsconform = {"clauses": [...], "exchanges": [...]}` on any phase report (Contract 2;
exchanges from every phase count for coverage, those of failed tests are kept in conformance.json), else the
`("clause", id)` items of `report.user_properties`. A coverage clause can use `coverage_failures(rp.build(0))`.

Options read (defined by the harness): `--nsconform-reports` (dest `nsconform_reports`, default `reports`),
`--run-id` (dest `run_id`), `--kubeconfig`/`--token` (only to learn secrets to mask), `--profile` (fallback),
`--junitxml` and `--alluredir` (pytest / allure-pytest's own).
"""

from __future__ import annotations

import os
import secrets as _random
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from .allure import scrub_results, write_allure_metadata
from .catalogue import catalogue_path, endpoint_rows, load_clauses
from .coverage import Hit, build_coverage, coverage_failures, evaluate_coverage_clauses, hits_from_exchanges
from .model import build_run
from .outcome import crash_message, describe_failure
from .writer import HTML_NAME, copy_junit, link_latest, write_run

_RANK = {"skipped": 0, "passed": 1, "failed": 2}


@dataclass
class _TestState:
    nodeid: str
    outcome: str = "skipped"
    phase: str = "setup"
    duration_s: float = 0.0
    message: str = ""
    category: str | None = None
    clauses: list[str] = field(default_factory=list)
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    namespace_state: str = ""

    def as_dict(self) -> dict[str, Any]:
        out = {"nodeid": self.nodeid, "outcome": self.outcome, "phase": self.phase, "duration_s": self.duration_s,
               "message": self.message, "category": self.category, "clauses": self.clauses,
               "exchanges": self.exchanges}
        if self.namespace_state:
            out["namespace_state"] = self.namespace_state
        return out


def _opt(config: pytest.Config, name: str) -> Any:
    try:
        return config.getoption(name, default=None)
    except (ValueError, AttributeError):
        return None


def kubeconfig_secrets(path: str | os.PathLike[str] | None) -> set[str]:
    """Tokens, passwords and key data of every user in a kubeconfig (to mask them, never to use them)."""
    found: set[str] = set()
    if not path:
        return found
    for one in str(path).split(os.pathsep):
        try:
            import yaml
            doc = yaml.safe_load(Path(one).read_text(encoding="utf-8")) or {}
        except Exception:  # noqa: BLE001 - unreadable kubeconfig: nothing to learn
            continue
        for user in doc.get("users") or []:
            u = (user or {}).get("user") or {}
            for key in ("token", "password", "client-key-data", "client-certificate-data"):
                if isinstance(u.get(key), str):
                    found.add(u[key])
            token_file = u.get("tokenFile")
            if token_file:
                try:
                    found.add(Path(token_file).read_text(encoding="utf-8").strip())
                except OSError:
                    pass
    return {s for s in found if s}


def config_secrets(config: pytest.Config) -> set[str]:
    """Secrets learnt from the run's options: --token / $NSCONFORM_TOKEN and the kubeconfig's users."""
    found = {v for v in (_opt(config, "token"), os.environ.get("NSCONFORM_TOKEN")) if v}
    return found | kubeconfig_secrets(_opt(config, "kubeconfig") or os.environ.get("KUBECONFIG"))


class ReportPlugin:
    """Collects setup/call/teardown reports per test and writes `<reports>/<run-id>/` at session finish."""

    def __init__(self, config: pytest.Config, *, run_id: str | None = None,
                 catalogue: list[dict[str, Any]] | None = None, endpoints: list[dict[str, Any]] | None = None,
                 target: dict[str, Any] | None = None) -> None:
        self.config = config
        self._run_id = run_id
        self._catalogue = catalogue
        self._endpoints = endpoints
        self.target = target
        self._tests: dict[str, _TestState] = {}
        self._pending_hits: list[tuple[str, list[dict[str, Any]]]] = []  # attributed to clauses at the end
        self._secrets: set[str] = config_secrets(config)
        self.started = datetime.now(timezone.utc)
        self._t0 = time.monotonic()
        self.run: dict[str, Any] | None = None
        self.written: list[Path] = []
        self.error: str | None = None
        self._deselected = 0

    # --- identity and places ----------------------------------------------------------------------------
    @property
    def run_id(self) -> str:
        if not self._run_id:
            self._run_id = _opt(self.config, "run_id") or (
                self.started.strftime("%Y%m%dT%H%M%SZ") + "-" + _random.token_hex(3))
        return self._run_id

    @property
    def reports_dir(self) -> Path:
        base = Path(_opt(self.config, "nsconform_reports") or "reports")
        return base if base.is_absolute() else Path(self.config.invocation_params.dir) / base

    @property
    def run_dir(self) -> Path:
        return self.reports_dir / self.run_id

    def add_secret(self, *values: str | None) -> None:
        """Strings that must never appear in an artefact (tokens, passwords)."""
        self._secrets.update(v for v in values if v)

    # --- collection ------------------------------------------------------------------------------------
    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self._deselected += len(items)

    @property
    def full_run(self) -> bool:
        """Every collected suite test was selected: only then can endpoint coverage be judged."""
        opt = self.config.option
        return not (self._deselected or getattr(opt, "nsconform_extensions", None) or getattr(opt, "keyword", "") or getattr(opt, "markexpr", "")
                    or getattr(opt, "lf", False) or getattr(opt, "deselect", None)
                    or any("::" in str(a) for a in self.config.args))  # single tests named (--rerun-failed)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        state = self._tests.setdefault(report.nodeid, _TestState(report.nodeid))
        state.duration_s += float(getattr(report, "duration", 0.0) or 0.0)
        data = getattr(report, "nsconform", None)
        clause_ids: list[str] = []
        if isinstance(data, dict):
            clause_ids.extend(str(c) for c in data.get("clauses") or [])
            exchanges = [e for e in data.get("exchanges") or [] if isinstance(e, dict)]
            state.exchanges.extend(exchanges)
            if isinstance(data.get("namespace_state"), str):
                state.namespace_state = data["namespace_state"]
        else:
            exchanges = []
        for prop in getattr(report, "user_properties", None) or []:
            if isinstance(prop, (tuple, list)) and len(prop) == 2 and prop[0] == "clause":
                clause_ids.append(str(prop[1]))
        for cid in clause_ids:
            if cid not in state.clauses:
                state.clauses.append(cid)
        if exchanges:
            self._pending_hits.append((report.nodeid, exchanges))
        if isinstance(getattr(report, "nsconform_scale", None), dict):
            self._scale = report.nsconform_scale  # the scale suite's raw points (conformance.json "scale")
        self._record_outcome(state, report)

    def _announce_failure(self, state: _TestState) -> None:
        """Say what failed as soon as it fails, so a long run shows its failures while it is still moving."""
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        if tr is None or hasattr(self.config, "workerinput"):
            return
        from conformance.console import cut

        clauses = ", ".join(state.clauses) or "no clause"
        first = (state.message or "").strip().splitlines()[0] if state.message else ""
        if getattr(getattr(tr, "_tw", None), "width_of_current_line", 0):
            tr._tw.line()  # finish pytest's progress line first
        # A terminal's width; a log (CI, a pipe) gets a wider line, still cut at a word boundary.
        width = int(getattr(getattr(tr, "_tw", None), "fullwidth", 120) or 120) - 1
        width = max(width, 60) if getattr(tr, "isatty", False) else max(width, 200)
        tr.write_line(cut(f"FAILED [{clauses}] {state.nodeid.split('::', 1)[-1]} ({state.category}): {first}",
                          width), red=True)

    def _record_outcome(self, state: _TestState, report: pytest.TestReport) -> None:
        when, outcome = report.when, report.outcome
        if hasattr(report, "wasxfail") and outcome == "skipped":  # xfail ⇒ skipped; non-strict xpass ⇒ passed
            state.message = f"xfail: {report.wasxfail}" if report.wasxfail else "xfail"
        if outcome == "failed":
            if state.outcome != "failed":  # the first failure is the one that explains the test
                state.message, state.category = describe_failure(report)
                state.outcome, state.phase = "failed", when or "call"
                self._announce_failure(state)
            return
        if outcome == "skipped" and when in ("setup", "call") and state.outcome != "failed":
            if not state.message:
                state.message = crash_message(report.longrepr)
            state.outcome, state.phase = "skipped", when
        elif outcome == "passed" and when == "call" and state.outcome != "failed":
            state.outcome, state.phase = "passed", "call"

    # --- output ----------------------------------------------------------------------------------------
    def _target(self) -> dict[str, Any]:
        if self.target is not None:
            return dict(self.target)
        try:
            from conformance.target import TARGET_KEY
            target = self.config.stash.get(TARGET_KEY, None)
        except Exception:  # noqa: BLE001 - harness not there yet, or no target resolved (collect-only)
            target = None
        if target is None:
            return {"url": None, "kind": "unknown", "context": None, "profile": _opt(self.config, "profile"),
                    "version": {}}
        return dict(target.describe() if hasattr(target, "describe") else target)

    def build(self, exit_status: int) -> dict[str, Any]:
        """The run document as it would be written now."""
        target = self._target()
        profile = target.get("profile") or _opt(self.config, "profile")
        catalogue = self._catalogue if self._catalogue is not None else load_clauses(catalogue_path(self.config))
        rows = self._endpoints if self._endpoints is not None else endpoint_rows(profile)
        hits: list[Hit] = []
        for nodeid, exchanges in self._pending_hits:
            hits.extend(hits_from_exchanges(exchanges, self._tests[nodeid].clauses))
        coverage, unmatched = build_coverage(rows, hits, profile)
        tests = [t.as_dict() for t in self._tests.values()]
        run = build_run(catalogue=catalogue, tests=tests, target=target, run_id=self.run_id,
                        started=self.started.isoformat(timespec="seconds"),
                        duration_s=time.monotonic() - self._t0, exit_status=exit_status, profile=profile,
                        coverage=coverage, unmatched=unmatched, secrets=self._secrets,
                        messages=_opt(self.config, "nsconform_messages") or "exact")
        evaluate_coverage_clauses(run, full_run=self.full_run)
        teardown = _teardown_summary(self.config)
        if teardown is not None:
            run["teardown"] = teardown
        if getattr(self, "_scale", None):
            run["scale"] = self._scale
        return run

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int):  # type: ignore[no-untyped-def]
        """After every other sessionfinish (junitxml included), so exit_status is the one pytest returns."""
        controller = not hasattr(self.config, "workerinput") and not self.config.option.collectonly
        run = None
        if controller and session.exitstatus == 0 and self._tests:
            try:  # the coverage clause fails the run like any other clause
                run = self.build(0)
                if any(c["status"] == "failed" for c in run["clauses"] if c.get("group") == "coverage"):
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED
            except Exception:  # noqa: BLE001 - a report bug must not change pytest's exit status
                run = None
        try:
            return (yield)
        finally:
            if controller:
                try:
                    self.write(int(session.exitstatus), run)
                except Exception as exc:  # noqa: BLE001 - a report bug must not change pytest's exit status
                    self.error = f"{type(exc).__name__}: {exc}"
                    sys.stderr.write(f"nsconform: could not write the reports to {self.run_dir}: {self.error}\n")

    def write(self, exit_status: int, run: dict[str, Any] | None = None) -> Path:
        """Write the reports; `run` is the document built to judge coverage (every test had reported by
        then), brought up to date here rather than built a second time."""
        if run is None:
            run = self.build(exit_status)
        else:
            run.update(exit_status=int(exit_status), duration_s=round(time.monotonic() - self._t0, 3))
        self.run = run
        run_dir = self.run_dir
        self.written = write_run(run, run_dir)
        junit = copy_junit(_opt(self.config, "xmlpath"), run_dir)
        if junit is not None:
            self.written.append(junit)
        link_latest(self.reports_dir, run_dir)
        alluredir = _opt(self.config, "allure_report_dir")
        if alluredir:
            self.written += write_allure_metadata(alluredir, run)
            scrub_results(alluredir, self._secrets)
        return run_dir

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any):  # type: ignore[no-untyped-def]
        """Outside pytest's own summary: the failing-clause table comes before any traceback, the report
        paths after the short test summary."""
        try:
            self._failing_table(terminalreporter)
        except Exception:  # noqa: BLE001 - a display problem must not lose the run's summary
            pass
        try:
            return (yield)
        finally:
            self._report_lines(terminalreporter)

    def _failing_table(self, terminalreporter: Any) -> None:
        if hasattr(self.config, "workerinput") or self.config.option.collectonly or not self.run:
            return
        from conformance.console import failing_table

        width = int(getattr(terminalreporter._tw, "fullwidth", 120) or 120) - 1
        width = max(width, 60) if getattr(terminalreporter, "isatty", False) else max(width, 160)
        lines = failing_table(self.run, width)
        if not lines:
            return
        terminalreporter.write_sep("=", "nsconform: failing clauses", red=True)
        terminalreporter.write_line(lines[0], red=True, bold=True)
        for line in lines[1:]:
            terminalreporter.write_line(line)

    def _report_lines(self, terminalreporter: Any) -> None:
        if hasattr(self.config, "workerinput") or self.config.option.collectonly:
            return
        terminalreporter.write_sep("-", "nsconform")
        if self.error:
            terminalreporter.write_line(f"reports NOT written: {self.error}", red=True)
        else:
            terminalreporter.write_line(f"report: {self.run_dir / HTML_NAME}")
        if self.run and any(c["status"] == "failed" for c in self.run["clauses"] if c.get("group") == "coverage"):
            terminalreporter.write_line("endpoint coverage clause failed:", red=True)
            for line in coverage_failures(self.run):
                terminalreporter.write_line(f"  {line}", red=True)


def _teardown_summary(config: pytest.Config) -> dict[str, Any] | None:
    """What the run's teardown left (conformance.teardown): still deleting, held, kept, swept."""
    try:
        from conformance.fixtures.reaper import TEARDOWN_KEY
    except ImportError:  # pragma: no cover
        return None
    return config.stash.get(TEARDOWN_KEY, None)
