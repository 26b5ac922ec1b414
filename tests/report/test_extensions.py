"""Extension clauses (`extension = "kep-33"`) are reported apart: never in `clauses`/`summary`, never in the
core verdict, in their own Markdown/HTML section; an extension not asked for is absent."""
from __future__ import annotations

from conformance.report.html import render_html
from conformance.report.markdown import render_markdown
from conformance.report.model import build_run, core_ran
from conformance.schemas import validate

CATALOGUE = [
    {"id": "NS-1", "group": "phase", "requirement": "core", "source": "", "severity": "major",
     "profiles": ["kubernetes"]},
    {"id": "EXT-1", "group": "initializers", "requirement": "ext", "source": "", "severity": "major",
     "profiles": ["kubernetes"], "extension": "kep-33"},
]


def _run(tests):
    return build_run(catalogue=CATALOGUE, tests=tests, target={"url": "http://x", "kind": "embedded"}, run_id="r",
                     started="2026-11-23T00:00:00Z", duration_s=1.0, exit_status=1, profile="kubernetes")


def test_extension_not_asked_for_is_absent():
    run = _run([{"nodeid": "t::core", "outcome": "passed", "clauses": ["NS-1"]}])
    assert [c["id"] for c in run["clauses"]] == ["NS-1"] and run["extensions"] == {}
    assert core_ran(run)


def test_extension_results_apart_from_core():
    run = _run([{"nodeid": "t::ext", "outcome": "failed", "clauses": ["EXT-1"], "message": "boom"}])
    assert "EXT-1" not in [c["id"] for c in run["clauses"]]
    assert run["summary"]["clauses"]["failed"] == 0 and run["summary"]["tests"]["total"] == 0
    ext = run["extensions"]["kep-33"]
    assert ext["summary"]["clauses"]["failed"] == 1 and ext["clauses"][0]["id"] == "EXT-1"
    assert not core_ran(run)
    validate(run, "ConformanceRun")
    md = render_markdown(run)
    assert "no core conformance verdict" in md and "## Extension `kep-33`" in md and "not conformant" not in md
    html = render_html(run)
    assert "EXTENSIONS ONLY" in html and "Extension kep-33" in html
