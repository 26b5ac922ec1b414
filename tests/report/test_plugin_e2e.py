"""End to end: a tiny fake suite run by pytester produces every artefact, consistent with pytest's exit code."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

TOKEN = "e2e-t0ken-5b1f0c9d2a"

CONFTEST = f'''
import pytest
from conformance.report import AllureEnricher, ReportPlugin

TOKEN = {TOKEN!r}
CATALOGUE = [
    {{"id": "C-PASS", "group": "phase", "severity": "major", "requirement": "A namespace MUST be Active.",
      "source": "t", "profiles": ["kubernetes"]}},
    {{"id": "C-VIOL", "group": "finalize", "severity": "critical", "requirement": "POST finalize MUST be 405.",
      "source": "t", "profiles": ["kubernetes"]}},
    {{"id": "C-TIME", "group": "lifecycle", "severity": "minor", "requirement": "A namespace MUST go away.",
      "source": "t", "profiles": ["kubernetes"], "depends_on": ["C-VIOL"]}},
    {{"id": "C-HARN", "group": "content", "severity": "major", "requirement": "Content MUST be listed.",
      "source": "t", "profiles": ["kubernetes"]}},
    {{"id": "C-SKIP", "group": "naming", "severity": "minor", "requirement": "Names MUST be DNS labels.",
      "source": "t", "profiles": ["kubernetes"]}},
    {{"id": "C-NONE", "group": "discovery", "severity": "minor", "requirement": "Discovery MUST list namespaces.",
      "source": "t", "profiles": ["kubernetes"]}},
]
ENDPOINTS = [
    {{"id": "ns-create", "method": "POST", "path": "/api/v1/namespaces", "profiles": ["kubernetes"]}},
    {{"id": "ns-finalize", "method": "PUT", "path": "/api/v1/namespaces/{{name}}/finalize",
      "profiles": ["kubernetes"]}},
]
TARGET = {{"url": "https://k.example:6443", "kind": "server", "context": None, "profile": "kubernetes",
          "version": {{"gitVersion": "v1.33.0"}}}}


def pytest_addoption(parser):
    parser.addoption("--nsconform-reports", default="reports")
    parser.addoption("--run-id", default=None)


def pytest_configure(config):
    config.addinivalue_line("markers", "clause(*ids): clauses")
    if not hasattr(config, "workerinput"):
        rp = ReportPlugin(config, catalogue=CATALOGUE, endpoints=ENDPOINTS, target=TARGET)
        rp.add_secret(TOKEN)
        config.pluginmanager.register(rp, "nsconform-report")
    config.pluginmanager.register(AllureEnricher(config, catalogue=CATALOGUE, secrets=[TOKEN]), "nsconform-allure")


def pytest_runtest_setup(item):
    for m in item.iter_markers("clause"):
        for cid in m.args:
            item.user_properties.append(("clause", cid))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call":
        clauses = [a for m in item.iter_markers("clause") for a in m.args]
        report.nsconform = {{"clauses": clauses, "exchanges": list(getattr(item, "exchanges", []))}}
    return report


@pytest.fixture
def api(request):
    def call(method, path, endpoint, status, body=None):
        request.node.exchanges = getattr(request.node, "exchanges", [])
        request.node.exchanges.append({{
            "method": method, "url": "https://k.example:6443" + path, "path": path, "endpoint": endpoint,
            "status": status, "duration_s": 0.01,
            "request_headers": {{"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"}},
            "request_body": body, "response_headers": {{}},
            "response_body": {{"kind": "Status", "apiVersion": "v1", "code": status, "message": "seen " + TOKEN}}}})
        return status
    return call
'''

SUITE = '''
import pytest


class WaitTimeout(AssertionError):
    pass


@pytest.mark.clause("C-PASS")
def test_pass(api):
    assert api("POST", "/api/v1/namespaces", "ns-create", 201, {"metadata": {"name": "a"}}) == 201


@pytest.mark.clause("C-VIOL")
def test_violation(api):
    code = api("POST", "/api/v1/namespaces/a/finalize", None, 404, {"spec": {}})
    assert code == 405, "POST finalize: expected 405"


@pytest.mark.clause("C-TIME")
def test_timeout(api):
    api("POST", "/api/v1/namespaces", "ns-create", 201)
    raise WaitTimeout("namespace a still present after 1.0 s; last seen Terminating")


@pytest.mark.clause("C-HARN")
def test_harness(api):
    raise ConnectionError("connection refused")


@pytest.mark.clause("C-SKIP")
def test_skip():
    pytest.skip("not for this profile")
'''


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_fake_suite=SUITE)
    return pytester


def _all_text(*dirs: Path) -> str:
    out = []
    for d in dirs:
        for root, _dirs, files in os.walk(d):
            for f in files:
                out.append(Path(root, f).read_text(encoding="utf-8", errors="replace"))
    return "\n".join(out)


def _check_failing_run(path: Path, ret: int) -> dict:
    run_dir = path / "reports" / "run-1"
    run = json.loads((run_dir / "conformance.json").read_text())
    assert run["exit_status"] == ret == 1
    status = {c["id"]: c["status"] for c in run["clauses"]}
    assert status == {"C-PASS": "passed", "C-VIOL": "failed", "C-TIME": "failed", "C-HARN": "failed",
                      "C-SKIP": "skipped", "C-NONE": "untested"}
    cats = {c["id"]: c["tests"][0]["category"] for c in run["clauses"] if c["status"] == "failed"}
    assert cats == {"C-VIOL": "violation", "C-TIME": "timeout", "C-HARN": "harness"}
    viol = next(c for c in run["clauses"] if c["id"] == "C-VIOL")["tests"][0]
    assert viol["message"].startswith("POST finalize: expected 405")
    assert "Traceback" not in viol["message"] and "def test_violation" not in viol["message"]
    assert viol["exchanges"][0]["path"] == "/api/v1/namespaces/a/finalize"
    cov = {r["endpoint"]: r for r in run["coverage"]}
    assert cov["ns-create"]["hits"] == 2 and cov["ns-create"]["clauses"] == ["C-PASS", "C-TIME"]
    assert cov["ns-finalize"]["hits"] == 0
    for name in ("conformance.html", "conformance.md", "junit.xml"):
        assert (run_dir / name).is_file(), name
    assert (path / "reports" / "latest" / "conformance.json").is_file()
    return run


def test_failing_run_in_process(suite: pytest.Pytester) -> None:
    result = suite.runpytest("-p", "no:nsconform", "--run-id", "run-1",
                             "--junitxml", "reports/run-1/junit.xml", "--alluredir", "allure")
    result.assert_outcomes(passed=1, failed=3, skipped=1)
    _check_failing_run(suite.path, result.ret)
    assert TOKEN not in _all_text(suite.path / "reports", suite.path / "allure")
    result.stdout.fnmatch_lines(["*nsconform*", "report: *reports/run-1/conformance.html"])


def test_failing_clause_table_comes_first_and_names_the_root_cause(suite: pytest.Pytester) -> None:
    result = suite.runpytest("-p", "no:nsconform", "--run-id", "run-1")
    out = result.stdout.str()
    table = out.index("nsconform: failing clauses")
    assert table < out.index("= FAILURES =")
    result.stdout.fnmatch_lines(["*nsconform: failing clauses*",
                                 "3 clauses failed; 1 of them depends on C-VIOL, which failed.",
                                 "clause*severity*first failure",
                                 "* C-VIOL*critical*test_violation*"])
    section = out[table:out.index("= FAILURES =")]
    for line in section.splitlines()[1:]:
        assert len(line) <= 120
    run = json.loads((suite.path / "reports" / "run-1" / "conformance.json").read_text())
    assert run["root_causes"][0] == {"id": "C-VIOL", "dependents": ["C-TIME"]}
    md = (suite.path / "reports" / "run-1" / "conformance.md").read_text()
    assert "3 clauses failed; 1 of them depends on C-VIOL, which failed." in md
    assert md.index("### C-VIOL") < md.index("### C-TIME")
    html = (suite.path / "reports" / "run-1" / "conformance.html").read_text()
    assert "1 of them depends on C-VIOL, which failed." in html


def test_allure_labels_steps_and_metadata(suite: pytest.Pytester) -> None:
    suite.runpytest("-p", "no:nsconform", "--run-id", "run-1", "--alluredir", "allure")
    allure_dir = suite.path / "allure"
    results = [json.loads(p.read_text()) for p in allure_dir.glob("*-result.json")]
    viol = next(r for r in results if r["name"] == "test_violation")
    labels = {(lab["name"], lab["value"]) for lab in viol["labels"]}
    assert {("epic", "nsconform"), ("feature", "finalize"), ("story", "C-VIOL: POST finalize MUST be 405."),
            ("severity", "critical"), ("tag", "C-VIOL")} <= labels
    as_id = [v for n, v in labels if n == "as_id"]
    assert len(as_id) == 1 and as_id[0].isdigit()
    assert "POST finalize MUST be 405." in viol["description"]
    step = viol["steps"][0]
    assert step["name"] == "POST /api/v1/namespaces/a/finalize → 404"
    assert [a["name"] for a in step["attachments"]] == ["request", "response", "curl"]
    curl = (allure_dir / step["attachments"][2]["source"]).read_text()
    assert curl.startswith('curl -k -X POST -H "Authorization: Bearer $TOKEN"')
    timeout = next(r for r in results if r["name"] == "test_timeout")
    assert next(lab["value"] for lab in timeout["labels"] if lab["name"] == "severity") == "minor"
    env = (allure_dir / "environment.properties").read_text()
    assert "profile=kubernetes" in env and "version=v1.33.0" in env and "target=https\\://k.example\\:6443" in env
    cats = json.loads((allure_dir / "categories.json").read_text())
    assert [c["name"] for c in cats] == ["Timed out waiting (WaitTimeout)", "Server violates a MUST",
                                         "Harness or connection error"]
    assert TOKEN not in _all_text(allure_dir)


def test_passing_run_exit_0_and_junit_copied(suite: pytest.Pytester) -> None:
    result = suite.runpytest("-p", "no:nsconform", "--run-id", "ok", "-k", "test_pass", "--junitxml", "out/j.xml")
    assert result.ret == 0
    run = json.loads((suite.path / "reports" / "ok" / "conformance.json").read_text())
    assert run["exit_status"] == 0 and run["summary"]["tests"]["passed"] == 1
    assert (suite.path / "reports" / "ok" / "junit.xml").is_file()


def test_no_tests_collected_exit_5(suite: pytest.Pytester) -> None:
    result = suite.runpytest("-p", "no:nsconform", "--run-id", "empty", "-k", "nothing_matches")
    assert result.ret == 5
    run = json.loads((suite.path / "reports" / "empty" / "conformance.json").read_text())
    assert run["exit_status"] == 5 and all(c["status"] == "untested" for c in run["clauses"])


def test_generated_run_id_and_reports_option(suite: pytest.Pytester) -> None:
    suite.runpytest("-p", "no:nsconform", "--nsconform-reports", "out", "-k", "test_pass")
    latest = suite.path / "out" / "latest"
    assert latest.is_symlink()
    run = json.loads((latest / "conformance.json").read_text())
    assert run["run_id"] == os.readlink(latest)


def test_failing_run_under_xdist(suite: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result = suite.runpytest_subprocess("-p", "no:nsconform", "-n", "2", "--run-id", "run-1",
                                        "--junitxml", "reports/run-1/junit.xml", "--alluredir", "allure")
    _check_failing_run(suite.path, result.ret)
    assert TOKEN not in _all_text(suite.path / "reports", suite.path / "allure")
    results = [json.loads(p.read_text()) for p in (suite.path / "allure").glob("*-result.json")]
    assert len(results) == 5
    assert next(r for r in results if r["name"] == "test_violation")["steps"]


def test_report_bug_does_not_change_exit_status(suite: pytest.Pytester) -> None:
    suite.makeconftest(CONFTEST + '''

def pytest_sessionstart(session):
    rp = session.config.pluginmanager.get_plugin("nsconform-report")
    def boom(exit_status, run=None):
        raise RuntimeError("disk full")
    rp.write = boom
''')
    result = suite.runpytest("-p", "no:nsconform", "--run-id", "x", "-k", "test_pass")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*reports NOT written: RuntimeError: disk full*"])


def test_kubeconfig_token_never_reaches_an_artefact(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    kc_token = "kc-only-t0ken-77aa19"
    kubeconfig = suite.path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n"
                          f"    token: {kc_token}\n")
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    suite.makepyfile(test_leak=f'''
import pytest

@pytest.mark.clause("C-VIOL")
def test_leaks(api):
    api("GET", "/api/v1/namespaces?note={kc_token}", "ns-create", 500, {{"echo": "{kc_token}"}})
    assert False, "server echoed {kc_token}"
''')
    result = suite.runpytest("-p", "no:nsconform", "--run-id", "leak", "--alluredir", "allure", "-k", "test_leaks")
    assert result.ret == 1
    run = json.loads((suite.path / "reports" / "leak" / "conformance.json").read_text())
    assert run["exit_status"] == 1
    assert kc_token not in _all_text(suite.path / "reports", suite.path / "allure")
    assert "server echoed ***" in (suite.path / "reports" / "leak" / "conformance.md").read_text()
