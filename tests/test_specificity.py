"""`nsconform specificity` with a fake runner: planning, judging, the table and the last line."""
from __future__ import annotations

import json
from pathlib import Path

from conformance import specificity as S
from conformance.reference_server.flavors import FLAVORS
from conformance.sensitivity.runner import Run, TestResult, pytest_argv


def fake_execute(failing: dict[str, list[str]]):
    calls: list[tuple[Run, list[str]]] = []

    def execute(run: Run, reports: Path, *, timeout_scale, run_timeout, extra=(), authorization=None) -> Run:
        calls.append((run, list(extra)))
        run.returncode = 1 if failing.get(run.flavor) else 0
        run.duration_s = 1.5
        run.tests = {"t.py::test_ok": TestResult("t.py::test_ok", "passed", ("NS-A",)),
                     "t.py::test_skip": TestResult("t.py::test_skip", "skipped", ("NS-B",))}
        for nodeid in failing.get(run.flavor, []):
            run.tests[nodeid] = TestResult(nodeid, "failed", ("NS-C",), "violation", "expected 201, got 403")
        return run
    return execute, calls


def test_plan_is_one_whole_suite_run_per_flavor_and_profile():
    runs = S.plan([FLAVORS["kind"], FLAVORS["default"]], ("kubernetes", "design"))
    assert [(fr.run.flavor, fr.run.profile, fr.run.clauses, fr.jobs) for fr in runs] == [
        ("kind", "kubernetes", (), FLAVORS["kind"].suite_jobs), ("kind", "design", (), FLAVORS["kind"].suite_jobs),
        ("default", "kubernetes", (), 1), ("default", "design", (), 1)]
    assert {fr.jobs for fr in S.plan([FLAVORS["slow"]], ("kubernetes",), workers=3)} == {3}


def test_the_run_asks_for_the_flavor():
    run = Run(run_id="spec-kubernetes-kind", profile="kubernetes", deviation=None, clauses=(), flavor="kind")
    argv = pytest_argv(run, Path("r"), timeout_scale=1.0)
    assert argv[argv.index("--nsconform-flavor") + 1] == "kind" and "--nsconform-deviate" not in argv


def test_all_flavors_pass(tmp_path, capsys):
    execute, calls = fake_execute({})
    rc = S.main(["--flavor", "kind", "--flavor", "default", "--profile", "kubernetes", "--reports", str(tmp_path)],
                execute_run=execute)
    out = capsys.readouterr().out
    assert rc == 0 and out.rstrip().splitlines()[-1] == "false alarms: 0 of 2 flavours"
    assert [c[1] for c in calls] == [["-n", str(FLAVORS["kind"].suite_jobs)], []]
    data = json.loads((tmp_path / "specificity.json").read_text())
    assert data["false_alarms"] == 0 and data["clean"] == {"kind": True, "default": True}


def test_a_failed_test_is_a_false_alarm_of_its_flavor(tmp_path, capsys):
    execute, _ = fake_execute({"managed": ["test_scope_authz.py::test_verbs_outside_the_role_refused"]})
    rc = S.main(["--flavor", "managed", "--flavor", "kind", "--reports", str(tmp_path)], execute_run=execute)
    out = capsys.readouterr().out
    assert rc == 1 and out.rstrip().splitlines()[-1] == "false alarms: 1 of 2 flavours"
    assert "test_verbs_outside_the_role_refused: expected 201, got 403" in out
    table = [ln for ln in out.splitlines() if ln.startswith("managed ")]
    assert len(table) == 2 and all("FAILED: test_verbs_outside_the_role_refused" in ln for ln in table)
    assert "false alarms: 1 of 2 flavours" in (tmp_path / "specificity.md").read_text()


def test_a_broken_run_counts_as_a_false_alarm(tmp_path, capsys):
    def execute(run, reports, **kw):
        run.error, run.returncode = "timed out after 5 s", None
        return run
    assert S.main(["--flavor", "slow", "--profile", "kubernetes", "--reports", str(tmp_path)], execute_run=execute) == 1
    assert "ERROR: timed out after 5 s" in capsys.readouterr().out


def test_unknown_flavor_is_a_usage_error(tmp_path, capsys):
    assert S.main(["--flavor", "nope", "--reports", str(tmp_path)]) == 2
    assert "unknown flavor(s): nope; known: default" in capsys.readouterr().err


def test_list_names_every_flavor_and_its_sources(capsys):
    assert S.main(["--list"]) == 0
    out = capsys.readouterr().out
    for name in FLAVORS:
        assert f"{name}: " in out
    assert "pkg/controller/certificates/rootcacertpublisher/publisher.go" in out


def test_cli_dispatches_specificity(capsys):
    from conformance import cli

    assert cli.main(["specificity", "--flavor", "nope"]) == 2
