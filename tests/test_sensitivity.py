"""`nsconform sensitivity`: clause selection plugin, judging, coverage, rendering, and one real run."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conformance import clauses as C
from conformance.reference_server import deviations as D
from conformance.sensitivity import main, summarise
from conformance.sensitivity.runner import (Run, TestResult, coverage, deviation_profiles, judge, plan_runs,
                                            pytest_argv, read_results, schedule, short_names)
from conformance.sensitivity.table import last_line, markdown_table, progress_line, text_table

pytest_plugins = ["pytester"]

SERVER = Path(D.__file__).parent


# --------------------------------------------------------------------------------------------- selection plugin
SUITE = """
import pytest

@pytest.mark.clause("NS-A-001")
def test_a():
    pass

@pytest.mark.clause("NS-B-001", "NS-A-002")
@pytest.mark.parametrize("x", [1, 2])
def test_b(x):
    pass

@pytest.mark.clause("NS-C-001")
def test_c():
    pass

def test_unmarked():
    pass
"""


def test_select_keeps_only_tests_of_the_given_clauses(pytester):
    pytester.makepyfile(test_fake=SUITE)
    result = pytester.runpytest("-p", "conformance.sensitivity.select", "--nsconform-select-clauses", "NS-A-002",
                                "--nsconform-select-clauses", "NS-C-001", "-v")
    result.assert_outcomes(passed=3, deselected=2)
    result.stdout.fnmatch_lines(["*test_b?1? PASSED*", "*test_b?2? PASSED*", "*test_c PASSED*"])
    result.stdout.no_fnmatch_line("*test_a PASSED*")


def test_select_comma_separated_and_env(pytester, monkeypatch):
    pytester.makepyfile(test_fake=SUITE)
    result = pytester.runpytest("-p", "conformance.sensitivity.select", "--nsconform-select-clauses",
                                "NS-A-001,NS-B-001")
    result.assert_outcomes(passed=3, deselected=2)
    monkeypatch.setenv("NSCONFORM_SELECT_CLAUSES", "NS-C-001")
    result = pytester.runpytest("-p", "conformance.sensitivity.select")
    result.assert_outcomes(passed=1, deselected=4)


def test_select_without_ids_changes_nothing(pytester, monkeypatch):
    monkeypatch.delenv("NSCONFORM_SELECT_CLAUSES", raising=False)
    pytester.makepyfile(test_fake=SUITE)
    pytester.runpytest("-p", "conformance.sensitivity.select").assert_outcomes(passed=5)


def test_select_unknown_clause_deselects_everything(pytester):
    pytester.makepyfile(test_fake=SUITE)
    result = pytester.runpytest("-p", "conformance.sensitivity.select", "--nsconform-select-clauses", "NS-X-999")
    result.assert_outcomes(deselected=5)


# --------------------------------------------------------------------------------------------- judging
def _t(nodeid, outcome="failed", *clauses, category="violation"):
    return TestResult(nodeid=nodeid, outcome=outcome, clauses=tuple(clauses), category=category)


def _run(deviation, tests, declared=("NS-A-001",), profile="kubernetes", **kw):
    r = Run(run_id=f"sens-{profile}-{deviation}", profile=profile, deviation=deviation, clauses=declared,
            declared=declared, **kw)
    r.tests = {t.nodeid: t for t in tests}
    return r


def test_judge_caught_missed_and_outside():
    r = _run("d", [_t("t.py::test_a", "failed", "NS-A-001"), _t("t.py::test_b", "failed", "NS-B-001"),
                   _t("t.py::test_c", "passed", "NS-A-001")])
    judge(r, set())
    assert r.status == "caught"
    assert [t.nodeid for t in r.caught_by] == ["t.py::test_a"]
    assert [t.nodeid for t in r.also_failed] == ["t.py::test_b"]

    missed = _run("m", [_t("t.py::test_a", "passed", "NS-A-001")])
    judge(missed, set())
    assert missed.status == "missed" and not missed.caught_by


def test_judge_ignores_tests_failing_on_the_clean_server():
    r = _run("d", [_t("t.py::test_a", "failed", "NS-A-001")])
    judge(r, {"t.py::test_a"})
    assert r.status == "missed"


def test_judge_error_and_clean():
    r = _run("d", [], error="pytest exit status 4")
    judge(r, set())
    assert r.status == "error"
    clean = Run(run_id="c", profile="design", deviation=None, clauses=(), returncode=1)
    clean.tests = {"t.py::x": _t("t.py::x", "failed", "NS-A-001")}
    judge(clean, set())
    assert clean.status == "failed"
    ok = Run(run_id="c", profile="design", deviation=None, clauses=(), returncode=0)
    ok.tests = {"t.py::x": _t("t.py::x", "passed", "NS-A-001")}
    judge(ok, set())
    assert ok.status == "passed"


def test_summarise_needs_every_profile_caught():
    a1, a2 = _run("a", []), _run("a", [], profile="design")
    a1.status, a2.status = "caught", "missed"
    b = _run("b", [])
    b.status = "caught"
    caught, total, per = summarise([a1, a2, b])
    assert (caught, total) == (1, 2) and per == {"a": False, "b": True}


# --------------------------------------------------------------------------------------------- rendering
def test_short_names_fold_parametrised_cases():
    names = short_names(["test_x.py::test_a[pods]", "test_x.py::test_a[services]", "test_x.py::test_b",
                         "test_y.py::test_c[one]"])
    assert names == ["test_a (2)", "test_b", "test_c[one]"]


def test_table_and_last_line():
    clean = Run(run_id="c", profile="kubernetes", deviation=None, clauses=(), status="passed", duration_s=3.25)
    caught = _run("no-default-finalizer", [], declared=("NS-FIN-001",), duration_s=1.04)
    caught.caught_by = [_t("test_finalizers.py::test_default_finalizer_is_kubernetes", "failed", "NS-FIN-001")]
    caught.status = "caught"
    missed = _run("some-bug", [], declared=("NS-X-001", "NS-X-002"), profile="design", duration_s=12.5)
    missed.status = "missed"
    text = text_table([clean, caught, missed])
    lines = text.splitlines()
    assert lines[0].split() == ["deviation", "profile", "clauses", "caught", "by", "time"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    assert re.match(r"^\(clean\)\s+kubernetes\s+all\s+all passed\s+3\.2s$", lines[2])
    assert re.match(r"^no-default-finalizer\s+kubernetes\s+NS-FIN-001\s+test_default_finalizer_is_kubernetes"
                    r"\s+1\.0s$", lines[3])
    assert re.match(r"^some-bug\s+design\s+NS-X-001, NS-X-002\s+MISSED\s+12\.5s$", lines[4])
    # columns line up: every row has the same length up to the right-aligned time column
    assert len({len(line) for line in lines}) == 1
    md = markdown_table([caught]).splitlines()
    assert md[0] == "| deviation | profile | clauses | caught by | time |"
    assert md[2] == "| no-default-finalizer | kubernetes | NS-FIN-001 | test_default_finalizer_is_kubernetes | 1.0s |"
    assert last_line(84, 85) == "caught 84/85 deviations"
    assert progress_line(caught, 3, 12).startswith("[ 3/12] caught  no-default-finalizer (kubernetes) 1.0s: ")


# --------------------------------------------------------------------------------------------- planning
class _Clause:
    def __init__(self, cid, profiles):
        self.id, self.profiles = cid, tuple(profiles)

    def applies_to(self, p):
        return p in self.profiles


class _Dev:
    def __init__(self, name, clauses, profiles=()):
        self.name, self.description, self.clauses, self.profiles = name, name, tuple(clauses), tuple(profiles)


CAT = {"NS-K-001": _Clause("NS-K-001", ["kubernetes"]), "NS-B-001": _Clause("NS-B-001", ["kubernetes", "design"]),
       "NS-U-001": _Clause("NS-U-001", ["design"])}


def test_plan_profiles_and_selection():
    devs = [_Dev("k", ["NS-K-001"]), _Dev("b", ["NS-B-001", "NS-K-001"]), _Dev("forced", ["NS-B-001"], ["design"]),
            _Dev("none", [])]
    assert deviation_profiles(devs[0], CAT) == ("kubernetes",)
    assert deviation_profiles(devs[1], CAT) == ("kubernetes", "design")
    assert deviation_profiles(devs[2], CAT) == ("design",)
    runs = plan_runs(devs, CAT, ("kubernetes", "design"))
    got = [(r.deviation, r.profile, r.clauses, r.error or "") for r in runs]
    assert got[:2] == [(None, "kubernetes", (), ""), (None, "design", (), "")]
    assert ("b", "design", ("NS-B-001",), "") in got and ("b", "kubernetes", ("NS-B-001", "NS-K-001"), "") in got
    assert [g for g in got if g[0] == "none"][0][3].startswith("declares no clause")
    full = plan_runs(devs[:1], CAT, ("kubernetes",), full=True)
    assert [r.clauses for r in full] == [(), ()] and full[1].declared == ("NS-K-001",)
    only = plan_runs(devs[:1], CAT, ("kubernetes", "design"), clean_clauses=["NS-K-001"])
    assert [(r.deviation, r.profile, r.clauses) for r in only] == [(None, "kubernetes", ("NS-K-001",)),
                                                                   ("k", "kubernetes", ("NS-K-001",))]


def test_pytest_argv_and_schedule(tmp_path):
    r = Run(run_id="sens-design-x", profile="design", deviation="x", clauses=("NS-A-1", "NS-A-2"))
    argv = pytest_argv(r, tmp_path, timeout_scale=0.1, authorization="rbac", extra=["-x"])
    joined = " ".join(argv)
    for part in ("--pyargs conformance.suites", "-p conformance.sensitivity.select", "--profile design",
                 "--nsconform-select-clauses NS-A-1,NS-A-2", "--nsconform-deviate x", "--run-id sens-design-x",
                 f"--nsconform-reports {tmp_path}", "--nsconform-authorization rbac", "--timeout-scale 0.1"):
        assert part in joined
    assert argv[-1] == "-x"
    clean = Run(run_id="c", profile="kubernetes", deviation=None, clauses=())
    fast, slow = Run(run_id="f", profile="kubernetes", deviation="f", clauses=()), \
        Run(run_id="s", profile="kubernetes", deviation="s", clauses=())
    assert [r.run_id for r in schedule([fast, slow, clean], {"s": 10.0, "f": 1.0})] == ["c", "s", "f"]


def test_pytest_argv_adds_a_deviations_run_options(tmp_path):
    """A deviation seen only by an opt-in suite (the scale scan) brings that suite's options to its run."""
    from conformance.reference_server.deviations import RUN_OPTIONS

    r = Run(run_id="sens-kubernetes-list-scans-all-namespaces", profile="kubernetes",
            deviation="list-scans-all-namespaces", clauses=("NS-SCALE-001",))
    argv = pytest_argv(r, tmp_path, timeout_scale=0.1, extra=["-x"])
    opts = RUN_OPTIONS["list-scans-all-namespaces"]
    assert "--scale" in opts and int(opts[opts.index("--scale") + 1]) >= 1000  # the least the clause judges
    assert argv[-len(opts) - 1:-1] == list(opts) and argv[-1] == "-x"
    clean = Run(run_id="c", profile="kubernetes", deviation=None, clauses=("NS-SCALE-001",))
    assert "--scale" not in pytest_argv(clean, tmp_path, timeout_scale=0.1)  # the clean run: skipped, opt-in


def test_runs_load_only_the_plugins_they_use_and_share_a_private_bytecode_cache(monkeypatch):
    """Start-up cost: other installed pytest plugins are blocked by name (the harness and xdist never are), and
    bytecode is written to one private cache, even under PYTHONDONTWRITEBYTECODE, never next to the sources."""
    from importlib.metadata import entry_points

    from conformance.sensitivity import runner

    argv = pytest_argv(Run(run_id="r", profile="kubernetes", deviation=None, clauses=()), Path("/tmp"),
                       timeout_scale=0.1)
    blocked = {argv[i + 1][3:] for i, a in enumerate(argv[:-1]) if a == "-p" and argv[i + 1].startswith("no:")}
    installed = {ep.name: ep.dist.name.lower() for ep in entry_points(group="pytest11") if ep.dist is not None}
    assert "nsconform" not in blocked and not {n for n, d in installed.items() if d == "pytest-xdist"} & blocked
    assert blocked >= {n for n, d in installed.items() if d not in runner.USED_PLUGIN_DISTS} - {"cacheprovider"}
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("NSCONFORM_SELECT_CLAUSES", "NS-A-001")
    env = runner.child_env()
    assert "PYTHONDONTWRITEBYTECODE" not in env and "NSCONFORM_SELECT_CLAUSES" not in env
    assert env["PYTHONPYCACHEPREFIX"] == runner.child_env()["PYTHONPYCACHEPREFIX"]
    assert Path(env["PYTHONPYCACHEPREFIX"]).is_dir()

def test_coverage_reports_uncovered_unknown_and_unbreakable():
    devs = {"k": _Dev("k", ["NS-K-001", "NS-NOPE"])}
    cov = coverage(CAT, devs, {"NS-U-001": "why", "NS-GONE": "x"})
    assert cov["uncovered"] == {"kubernetes": ["NS-B-001"], "design": ["NS-B-001"]}
    assert any("NS-NOPE" in p for p in cov["problems"]) and any("NS-GONE" in p for p in cov["problems"])


def test_catalogue_is_fully_covered_by_deviations_or_unbreakable():
    """The issue's "done when": every clause (per profile) is broken by a deviation or explained."""
    cov = coverage(C.by_id(), D.DEVIATIONS, D.UNBREAKABLE)
    assert cov["problems"] == []
    assert cov["uncovered"] == {"kubernetes": [], "design": []}
    assert all(reason.strip() for reason in D.UNBREAKABLE.values())


def test_every_deviation_is_wired_into_the_server():
    """Each deviation name is checked somewhere in the reference server (outside deviations.py)."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in SERVER.rglob("*.py") if p.name != "deviations.py")
    used = set(re.findall(r"""["']([a-z0-9]+(?:-[a-z0-9]+)+)["']""", source))
    assert sorted(set(D.DEVIATIONS) - used) == []


def test_read_results(tmp_path):
    doc = {"clauses": [
        {"id": "NS-A-001", "tests": [{"nodeid": "t.py::a", "outcome": "failed", "category": "violation",
                                      "message": "boom"}]},
        {"id": "NS-A-002", "tests": [{"nodeid": "t.py::a", "outcome": "failed"},
                                     {"nodeid": "t.py::b", "outcome": "passed"}]}]}
    p = tmp_path / "conformance.json"
    p.write_text(json.dumps(doc))
    res = read_results(p)
    assert res["t.py::a"].clauses == ("NS-A-001", "NS-A-002") and res["t.py::a"].message == "boom"
    assert res["t.py::b"].outcome == "passed"


# --------------------------------------------------------------------------------------------- cli
def test_usage_errors(capsys):
    assert main(["--deviation", "no-such-bug"]) == 2
    assert "unknown deviation" in capsys.readouterr().err
    assert main(["--jobs", "0"]) == 2
    assert main(["--profile", "nope"]) == 2


def test_list(capsys):
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "no-default-finalizer  [kubernetes, design]  NS-FIN-001" in out
    assert "NS-COV-001:" in out


def test_cli_dispatches(monkeypatch):
    from conformance import cli

    seen = []
    monkeypatch.setattr("conformance.sensitivity.main", lambda argv: seen.append(argv) or 0)
    assert cli.main(["sensitivity", "--jobs", "3"]) == 0
    assert seen == [["--jobs", "3"]]


def test_end_to_end_one_deviation_is_caught(tmp_path, capsys):
    """A real run: clean server (the clause's tests pass), then the deviation (one of them fails)."""
    rc = main(["--deviation", "no-default-finalizer", "--profile", "kubernetes", "--reports", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    lines = out.strip().splitlines()
    assert lines[-1] == "caught 1/1 deviations"
    assert any(re.match(r"^no-default-finalizer\s+kubernetes\s+NS-FIN-001\s+test_default_finalizer_is_kubernetes",
                        ln) for ln in lines), out
    summary = json.loads((tmp_path / "sensitivity.json").read_text())
    assert summary["caught"] == 1 and summary["total"] == 1 and summary["exit_status"] == 0
    run = summary["deviations"][0]["runs"][0]
    assert run["status"] == "caught"
    report = json.loads(Path(run["report"]).read_text())  # an ordinary conformance report
    assert report["target"].get("deviations") == ["no-default-finalizer"]
    fin = [c for c in report["clauses"] if c["id"] == "NS-FIN-001"][0]
    assert fin["status"] == "failed"
    assert (tmp_path / "sensitivity.md").read_text().rstrip().endswith("`caught 1/1 deviations`")


def _fake(monkeypatch, devs, unbreakable, outcome):
    """main() with a fake catalogue/deviation set and run_all replaced: `outcome(run)` sets each run's result."""
    import conformance.sensitivity as S

    monkeypatch.setattr(S, "_load", lambda: (CAT, {d.name: d for d in devs}, unbreakable))

    def fake_run_all(runs, reports, **kw):
        for r in runs:
            outcome(r)
            kw["on_done"](r, 1, len(runs))
        return runs

    monkeypatch.setattr(S, "run_all", fake_run_all)


def _caught_unless(missed_name):
    def outcome(r):
        r.duration_s = 0.5
        if r.deviation is None:
            r.status = "passed"
        elif r.deviation == missed_name:
            r.status = "missed"
        else:
            r.status = "caught"
            r.caught_by = [_t("t.py::test_x", "failed", *r.declared)]
    return outcome


ALL = [_Dev("k", ["NS-K-001"]), _Dev("b", ["NS-B-001"])]


def test_exit_status_all_caught_missed_uncovered(monkeypatch, tmp_path, capsys):
    _fake(monkeypatch, ALL, {"NS-U-001": "reason"}, _caught_unless(None))
    assert main(["--reports", str(tmp_path)]) == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == "caught 2/2 deviations"

    _fake(monkeypatch, ALL, {"NS-U-001": "reason"}, _caught_unless("b"))
    assert main(["--reports", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "missed: b" in out and out.rstrip().splitlines()[-1] == "caught 1/2 deviations"

    _fake(monkeypatch, ALL, {}, _caught_unless(None))  # NS-U-001 neither broken nor explained
    assert main(["--reports", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "clauses no deviation breaks (design), neither listed as unbreakable: NS-U-001" in out
    # a restricted run reports the gap but is not failed by it
    assert main(["--reports", str(tmp_path), "--deviation", "k"]) == 0
    capsys.readouterr()


def test_clean_failure_fails_the_run(monkeypatch, tmp_path, capsys):
    def outcome(r):
        _caught_unless(None)(r)
        if r.deviation is None and r.profile == "design":
            r.status = "failed"
    _fake(monkeypatch, ALL, {"NS-U-001": "reason"}, outcome)
    assert main(["--reports", str(tmp_path)]) == 1
    assert "the clean run failed" in capsys.readouterr().out


def test_on_a_terminal_progress_updates_one_line_and_the_table_is_unchanged(monkeypatch, tmp_path, capsys):
    import io

    class FakeTTY(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = FakeTTY()
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr("sys.stderr", tty)
    _fake(monkeypatch, ALL, {"NS-U-001": "reason"}, _caught_unless(None))
    assert main(["--reports", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1] == "caught 2/2 deviations" and "] caught  k" not in out
    assert any(ln.startswith("k ") for ln in out.splitlines())  # the table
    assert "k (kubernetes) … caught (0.5 s)" in tty.getvalue() and tty.getvalue().endswith("\r\x1b[K")
