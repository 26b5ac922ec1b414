"""HTML and Markdown rendering: order, escaping, self-containment, curl lines."""

from __future__ import annotations

import re

import report_samples as s

from conformance.report.curl import curl_command
from conformance.report.html import render_html
from conformance.report.markdown import render_markdown


def test_html_failing_first_then_collapsed_then_coverage() -> None:
    page = render_html(s.sample_run())
    failing, others, cov = page.index('id="failing"'), page.index('id="others"'), page.index("id='coverage'")
    assert failing < others < cov
    assert page.index('id="NS-FIN-001"') < page.index('id="NS-CT-001"')  # critical before major
    assert "<details><summary><span class=\"st-passed\">Passed</span> (5)" in page
    assert "A server MUST append the `kubernetes` finalizer" in page


def test_html_escapes_everything() -> None:
    page = render_html(s.sample_run())
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_html_is_self_contained() -> None:
    page = render_html(s.sample_run())
    assert not re.search(r"<(script|link|img|iframe)\b", page)
    assert "@import" not in page and "url(" not in page


def test_html_shows_request_response_and_curl() -> None:
    page = render_html(s.sample_run())
    assert "curl -k -X POST -H &quot;Authorization: Bearer $TOKEN&quot;" in page
    assert "the server could not find the requested resource" in page
    assert "no response: ConnectionRefusedError(111)" in page


def test_curl_command_shape() -> None:
    ex = s.exchange("PUT", "/api/v1/namespaces/a/finalize", "ns-finalize", 200, req={"metadata": {"name": "it's"}})
    cmd = curl_command(ex)
    assert cmd.startswith('curl -k -X PUT -H "Authorization: Bearer $TOKEN" -H \'Content-Type: application/json\'')
    assert "--data '{\"metadata\":{\"name\":\"it'\"'\"'s\"}}'" in cmd
    assert cmd.endswith("https://10.0.0.7:6443/api/v1/namespaces/a/finalize")
    assert s.TOKEN not in cmd


def test_markdown_summary() -> None:
    md = render_markdown(s.sample_run())
    assert md.startswith("# nsconform: ❌ not conformant (exit 1)")
    assert "| finalizers | 1 | 1 | 0 | 0 |" in md
    assert "### NS-FIN-001 (critical, finalizers)" in md
    assert "> A server MUST append" in md
    assert "5 of 7 endpoints requested." in md
    assert "- `PATCH /api/v1/namespaces/{name}/status` (ns-status-patch)" in md


def test_markdown_passing_run() -> None:
    run = s.sample_run(exit_status=0)
    assert render_markdown(run).startswith("# nsconform: ✅ conformant")


def test_html_index_of_failing_clauses_links_to_details() -> None:
    page = render_html(s.sample_run())
    index = page[page.index('class="fixed index"'):page.index('<article class="clause"')]
    assert index.count('<a href="#') == 5 and '<a href="#NS-FIN-001">' in index
