"""Done when: a server that breaks a MUST (the reference server with `--deviate no-default-finalizer`) makes
the run exit 1, and every report says which clause failed and why: conformance.json (status, category, exit
status), the HTML (failing clauses first, with requirement, assertion, request/response and a curl line),
the Markdown, junit.xml (clause property); and `nsconform report --compare` flags the regression.

Only the finalizer suite runs: with this deviation a deleted namespace is never purged (kube-apiserver's
controller skips a Terminating namespace without finalizers), so every wait-for-gone in the other suites
would run into its 60-90 s timeout."""
from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET

import pytest

from . import _procs


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    work = tmp_path_factory.mktemp("broken")
    res = _procs.run(["run", "--deviate", "no-default-finalizer", "--reports", str(work / "r"), "--run-id", "broken",
                      "--", "-k", "test_finalizers.py"], cwd=work)
    return res, work / "r" / "broken"


def _fin001(doc):
    return next(c for c in doc["clauses"] if c["id"] == "NS-FIN-001")


def test_run_exits_1_and_json_names_the_violation(broken):
    res, run_dir = broken
    assert res.returncode == 1, res.stdout[-3000:] + res.stderr[-3000:]
    _procs.no_traceback(res.stderr)
    doc = json.loads((run_dir / "conformance.json").read_text())
    assert doc["exit_status"] == 1
    assert doc["target"]["deviations"] == ["no-default-finalizer"]
    clause = _fin001(doc)
    assert clause["status"] == "failed"
    failed = [t for t in clause["tests"] if t["outcome"] == "failed"]
    assert failed and all(t["category"] == "violation" for t in failed)
    assert "spec.finalizers" in failed[0]["message"] and failed[0]["exchanges"]
    # what its namespaces held when it failed: the namespace without the default finalizer
    with_state = [t for t in failed if t.get("namespace_state")]
    assert with_state and "phase=Active, no spec.finalizers" in with_state[0]["namespace_state"]
    assert with_state[0]["namespace_state"].startswith("namespace nsc-")
    assert all("namespace_state" not in t for c in doc["clauses"] for t in c["tests"] if t["outcome"] != "failed")
    passed = [c["id"] for c in doc["clauses"] if c["status"] == "passed"]
    assert passed, "the finalizer suite has clauses this deviation does not break"


def test_html_shows_the_failing_clause_first_with_evidence(broken):
    _, run_dir = broken
    doc = json.loads((run_dir / "conformance.json").read_text())
    page = (run_dir / "conformance.html").read_text()
    first = page.find('<article class="clause"')
    assert first != -1
    section = page[first:page.find("</article>", first)]
    text = html.unescape(section)
    assert 'id="NS-FIN-001"' in section  # NS-FIN-001 is the most severe failure: it comes first
    assert _fin001(doc)["requirement"] in text
    assert "expected spec.finalizers ['kubernetes'] in the 201 response, got []" in text  # the failed assertion
    assert "POST " in text and "/api/v1/namespaces" in text and "201" in text  # the request and the response
    assert '"spec": {}' in text  # the response body that shows it
    assert "Its namespaces when it failed" in text and "no spec.finalizers" in text
    curl = re.findall(r"<pre>(curl [^<]*)</pre>", section)
    assert curl, "no curl line"
    line = html.unescape(curl[0])
    assert "-X POST" in line and line.rstrip().endswith("/api/v1/namespaces") and "$TOKEN" in line
    # failing clauses come before the passing ones
    others = page.find('id="others"')
    assert others > first
    passed = next(c["id"] for c in doc["clauses"] if c["status"] == "passed")
    assert page.find(f'id="{passed}"') == -1 or page.find(f'id="{passed}"') > first


def test_markdown_lists_it(broken):
    _, run_dir = broken
    md = (run_dir / "conformance.md").read_text()
    assert "NS-FIN-001" in md
    assert "expected spec.finalizers ['kubernetes']" in md or "spec.finalizers" in md


def test_junit_has_a_failure_with_the_clause_property(broken):
    _, run_dir = broken
    root = ET.parse(run_dir / "junit.xml").getroot()
    cases = [tc for tc in root.iter("testcase")
             if any(p.get("name") == "clause" and p.get("value") == "NS-FIN-001" for p in tc.iter("property"))]
    assert cases and any(tc.find("failure") is not None for tc in cases)


def test_compare_clean_with_broken_flags_the_regression(broken, clean_run, tmp_path):
    _, run_dir = broken
    res = _procs.run(["report", "--compare", str(clean_run), str(run_dir)], cwd=tmp_path, timeout=60)
    assert res.returncode == 1, res.stdout + res.stderr
    _procs.no_traceback(res.stderr)
    row = [ln for ln in res.stdout.splitlines() if ln.startswith("NS-FIN-001")]
    assert row and "passed" in row[0] and "failed" in row[0] and "REGRESSED" in row[0], res.stdout
    # the other way round nothing regressed
    back = _procs.run(["report", "--compare", str(run_dir), str(clean_run)], cwd=tmp_path, timeout=60)
    assert back.returncode == 0, back.stdout + back.stderr


def test_failures_are_announced_while_the_run_moves(broken):
    """Progress: a failure is named (clause, test, category) the moment it happens, not only at the end."""
    res, _ = broken
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith("FAILED [NS-FIN-001]")]
    assert lines and "(violation)" in lines[0], res.stdout[-3000:]
    summary_at = res.stdout.find("short test summary")
    assert summary_at == -1 or res.stdout.find(lines[0]) < summary_at


def test_allure_attaches_the_namespaces_of_a_failed_test(broken):
    _, run_dir = broken
    results = [json.loads(p.read_text()) for p in (run_dir / "allure-results").glob("*-result.json")]
    failed = [r for r in results if r.get("status") == "failed"]
    assert failed
    attached = [a for r in failed for a in r.get("attachments") or [] if a["name"] == "its namespaces when it failed"]
    assert attached and all(a["type"] == "text/plain" for a in attached)
    texts = [(run_dir / "allure-results" / a["source"]).read_text() for a in attached]
    assert all(t.startswith("namespace nsc-") and "phase=Active" in t for t in texts)
    assert any("no spec.finalizers" in t for t in texts)
