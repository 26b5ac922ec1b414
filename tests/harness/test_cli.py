"""`nsconform` CLI: one clear line and exit 2 for expected problems; cleanup against the fake server."""

from __future__ import annotations

import json
import socket

import pytest
import yaml

from conformance import cli


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("nsconform") and "Traceback" not in err[0]
    return err[0]


def test_bad_kubeconfig_path(capsys, tmp_path):
    assert cli.main(["run", "--kubeconfig", str(tmp_path / "nope")]) == 2
    assert "file not found" in _one_error_line(capsys)


def test_malformed_kubeconfig(capsys, tmp_path):
    kc = tmp_path / "kc"
    kc.write_text("clusters: [oops\n")
    assert cli.main(["run", "--kubeconfig", str(kc)]) == 2
    assert "not valid YAML" in _one_error_line(capsys)


def test_unknown_context(capsys, tmp_path, fake):
    kc = tmp_path / "kc"
    kc.write_text(yaml.safe_dump({"current-context": "a", "clusters": [{"name": "c", "cluster": {"server": fake.url}}],
                                  "users": [{"name": "u", "user": {"token": "t"}}],
                                  "contexts": [{"name": "a", "context": {"cluster": "c", "user": "u"}}]}))
    assert cli.main(["run", "--kubeconfig", str(kc), "--context", "zzz"]) == 2
    assert "context 'zzz' not found" in _one_error_line(capsys)


def test_unreachable_server(capsys):
    port = _closed_port()
    assert cli.main(["run", "--server", f"http://127.0.0.1:{port}"]) == 2
    line = _one_error_line(capsys)
    assert f"cannot reach http://127.0.0.1:{port}" in line and "refused" in line.lower()


def test_unauthorized(capsys, fake):
    fake.token = "right"
    assert cli.main(["run", "--server", fake.url, "--token", "wrong"]) == 2
    assert "rejected the credentials (401 Unauthorized)" in _one_error_line(capsys)


def test_wrong_flag_gives_one_line(capsys):
    assert cli.main(["run", "--no-such-flag"]) == 2
    assert _one_error_line(capsys) == ("nsconform run: error: unrecognized arguments: --no-such-flag "
                                       "(see `nsconform run --help`)")


def test_missing_subcommand(capsys):
    assert cli.main([]) == 2
    assert "the following arguments are required: COMMAND" in _one_error_line(capsys)


def test_dispatch_missing_module(capsys, monkeypatch):
    monkeypatch.setitem(cli._DISPATCH, "serve", ("conformance.no_such_module", "the reference server"))
    assert cli.main(["serve", "--port", "1"]) == 2
    assert "the reference server is not available" in _one_error_line(capsys)


def test_dispatch_passes_argv(monkeypatch):
    import types
    import sys

    seen = {}
    mod = types.ModuleType("fake_report_cli")
    mod.main = lambda argv: seen.setdefault("argv", argv) and 0
    monkeypatch.setitem(sys.modules, "fake_report_cli", mod)
    monkeypatch.setitem(cli._DISPATCH, "report", ("fake_report_cli", "the report tool"))
    assert cli.main(["report", "show", "--x"]) == 0
    assert seen["argv"] == ["show", "--x"]


def test_cleanup_requires_target(capsys, monkeypatch):
    monkeypatch.delenv("KUBECONFIG", raising=False)
    assert cli.main(["cleanup"]) == 2
    assert "cleanup needs a target" in _one_error_line(capsys)


def _labelled(client, name, run, finalizers=None):
    body = {"metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "nsconform",
                                                   "nsconform.io/run": run}}}
    if finalizers:
        body["spec"] = {"finalizers": finalizers}
    assert client.post("/api/v1/namespaces", body).status_code == 201


def test_cleanup_one_run(capsys, client, fake):
    _labelled(client, "nsc-a-1", "r1", finalizers=["example.com/hold"])
    _labelled(client, "nsc-b-2", "r2")
    client.post("/api/v1/namespaces", {"metadata": {"name": "foreign"}})
    client.post("/api/v1/namespaces/nsc-a-1/configmaps",
                {"metadata": {"name": "cm", "finalizers": ["example.com/cm"]}})
    assert cli.main(["cleanup", "--server", fake.url, "--run-id", "r1", "--dry-run"]) == 0
    assert "would delete namespace nsc-a-1" in capsys.readouterr().out
    assert cli.main(["cleanup", "--server", fake.url, "--run-id", "r1"]) == 0
    assert capsys.readouterr().out.strip() == "removed namespace nsc-a-1"
    names = {k[2] for k in fake.objects if k[0] == "namespaces"}
    assert names == {"nsc-b-2", "foreign"}
    assert cli.main(["cleanup", "--server", fake.url]) == 0
    assert {k[2] for k in fake.objects if k[0] == "namespaces"} == {"foreign"}


@pytest.fixture
def small_suite(tmp_path, monkeypatch):
    """A two-clause catalogue and suite, so `clauses` does not depend on the real suites' state."""
    from conformance import clauses as C

    (tmp_path / "tox.ini").write_text("[pytest]\nnsconform_suites = suites\nnsconform_clauses = clauses.toml\n")
    (tmp_path / "clauses.toml").write_text(
        "[[clause]]\nid = 'A-1'\ngroup = 'phase'\nrequirement = 'alpha'\nsource = 's'\n"
        "profiles = ['kubernetes', 'design']\nseverity = 'major'\n"
        "[[clause]]\nid = 'A-2'\ngroup = 'phase'\nrequirement = 'beta'\nsource = 's'\n"
        "profiles = ['kubernetes']\nseverity = 'minor'\n")
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / "test_s.py").write_text(
        "import pytest\n\n@pytest.mark.clause('A-1')\ndef test_a():\n    pass\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "SUITE_ARGS", ["suites"])
    monkeypatch.setattr(C, "DATA", tmp_path / "clauses.toml")
    return tmp_path


def test_clauses_json(capsys, small_suite):
    assert cli.main(["clauses", "--format", "json"]) == 0
    data = {c["id"]: c for c in json.loads(capsys.readouterr().out)}
    assert data["A-1"]["tests"] == ["suites/test_s.py::test_a"] and data["A-2"]["tests"] == []
    assert cli.main(["clauses", "--profile", "design"]) == 0
    out = capsys.readouterr().out
    assert "A-1" in out and "A-2" not in out and "suites/test_s.py::test_a" in out


def test_clauses_reports_marker_problems(capsys, small_suite):
    (small_suite / "suites" / "test_bad.py").write_text("def test_unmarked():\n    pass\n")
    assert cli.main(["clauses"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nsconform: collecting the suites failed:")
    assert "test_bad.py::test_unmarked: no @pytest.mark.clause" in err and "Traceback" not in err


def test_run_passes_options_to_pytest(monkeypatch, fake, tmp_path):
    seen = {}

    def fake_main(args, plugins=None):
        seen["args"] = args
        return 1

    monkeypatch.setattr(pytest, "main", fake_main)
    rc = cli.main(["run", "--server", fake.url, "--profile", "design", "-n", "3", "--reports", str(tmp_path),
                   "--run-id", "rid", "--keep-namespaces", "on-failure", "--", "-k", "fin"])
    assert rc == 1
    args = seen["args"]
    assert args[:2] == ["--pyargs", "conformance.suites"]
    assert f"--junitxml={tmp_path}/rid/junit.xml" in args and f"--alluredir={tmp_path}/rid/allure-results" in args
    for pair in (["--nsconform-reports", str(tmp_path)], ["--server", fake.url], ["--profile", "design"],
                 ["-n", "3"], ["--run-id", "rid"], ["--keep-namespaces", "on-failure"], ["-k", "fin"]):
        i = args.index(pair[0])
        assert args[i:i + 2] == pair


def test_unknown_deviation_is_one_line_before_pytest_starts(capsys, monkeypatch):
    # Regression: the name was only checked inside the pytest session, which ended with
    # "Exit: nsconform: embedded server: unknown deviation(s): ..." after starting pytest.
    import pytest as _pytest

    monkeypatch.setattr(_pytest, "main", lambda *a, **k: (_ for _ in ()).throw(AssertionError("pytest started")))
    assert cli.main(["run", "--deviate", "no-such-deviation"]) == 2
    line = _one_error_line(capsys)
    assert line.startswith("nsconform: --deviate: unknown deviation(s): no-such-deviation;"), line
