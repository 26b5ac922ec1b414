"""One self-contained HTML page per run: inline CSS, no JavaScript, no network; every value escaped.

Failing clauses come first with the requirement, the failed assertion, the exchange that showed it and a curl
line to reproduce it; passing/skipped/untested clauses are collapsed; the endpoint coverage table closes the page.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from . import coverage as cov
from .curl import curl_command
from .masking import mask_exchange
from .model import STATUSES, core_ran, failing_clauses, groups, root_cause_summary

_BODY_LIMIT = 6000

CSS = """
:root{--fail:#c62828;--pass:#2e7d32;--skip:#9e9e9e;--untested:#f0a500;--ink:#1d2330;--muted:#5c6475;
--line:#dde1e8;--bg:#f6f7f9;--card:#fff;--code:#f3f4f7}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);
background:var(--bg)}
main{max-width:1180px;margin:0 auto;padding:24px 28px 60px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:32px 0 12px;padding-bottom:6px;border-bottom:2px solid var(--line)}
h3{font-size:15px;margin:0 0 6px}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace}
pre{background:var(--code);border:1px solid var(--line);border-radius:6px;padding:8px 10px;margin:6px 0;
white-space:pre-wrap;word-break:break-word;max-height:440px;overflow:auto}
.top{display:flex;justify-content:space-between;align-items:flex-start;gap:24px;background:var(--card);
border:1px solid var(--line);border-radius:10px;padding:18px 22px}
.meta{display:grid;grid-template-columns:auto 1fr;gap:2px 14px;margin-top:8px;color:var(--muted)}
.meta b{color:var(--ink);font-weight:600}
.verdict{font-size:20px;font-weight:700;padding:10px 18px;border-radius:8px;color:#fff;white-space:nowrap}
.verdict.fail{background:var(--fail)} .verdict.pass{background:var(--pass)}
.verdict small{display:block;font-size:12px;font-weight:500;opacity:.9}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;margin:16px 0}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 16px;border-top:4px solid}
.card .n{font-size:28px;font-weight:700} .card .l{color:var(--muted)}
.card.failed{border-top-color:var(--fail)} .card.passed{border-top-color:var(--pass)}
.card.skipped{border-top-color:var(--skip)} .card.untested{border-top-color:var(--untested)}
.sub{color:var(--muted);margin:4px 0 0}
.plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:10px;margin:10px 0}
.plot svg{display:block;width:100%;height:auto;border:1px solid var(--line);border-radius:8px}
.groups{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:10px 16px}
.grow{display:grid;grid-template-columns:150px 1fr 190px;gap:12px;align-items:center;padding:5px 0}
.bar{display:flex;height:14px;border-radius:7px;overflow:hidden;background:var(--line)}
.bar span{display:block;height:100%} .s-failed{background:var(--fail)} .s-passed{background:var(--pass)}
.s-skipped{background:var(--skip)} .s-untested{background:var(--untested)}
.counts{color:var(--muted);font-size:12.5px;text-align:right}
.legend{display:flex;gap:14px;color:var(--muted);font-size:12.5px;margin:6px 0 0}
.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:-1px}
article.clause{background:var(--card);border:1px solid var(--line);border-left:5px solid var(--fail);
border-radius:10px;padding:14px 18px;margin:0 0 14px}
.badge{display:inline-block;font-size:11.5px;font-weight:600;padding:1px 8px;border-radius:10px;margin-left:6px;
vertical-align:1px;border:1px solid transparent}
.sev-critical{background:#fde7e9;color:#9b1c1c;border-color:#f5b5bb} .sev-major{background:#fff4e0;color:#8a5300;
border-color:#f3d19c} .sev-minor{background:#eef1f5;color:#4a5263;border-color:#d5dae2}
.cat-violation{background:var(--fail);color:#fff} .cat-timeout{background:#8e44ad;color:#fff}
.cat-harness{background:#455a64;color:#fff}
.st-failed{color:var(--fail)} .st-passed{color:var(--pass)} .st-skipped{color:var(--skip)} .st-untested{color:#b07800}
.req{font-size:14.5px;margin:4px 0 2px} .src{color:var(--muted);font-size:12px}
.test{border-top:1px dashed var(--line);margin-top:10px;padding-top:10px}
.test .id{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
pre.msg{background:#fff5f5;border-color:#f3c4c4;color:#7a1010}
.ex{display:grid;grid-template-columns:1fr 1fr;gap:10px} .ex h4{margin:8px 0 0;font-size:12.5px;color:var(--muted)}
.reqline{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;margin-top:8px}
.code{font-weight:700} .code.c2{color:var(--pass)} .code.c4,.code.c5,.code.cx{color:var(--fail)}
details{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:8px 0;padding:6px 12px}
details details{background:var(--bg)}
summary{cursor:pointer;font-weight:600;padding:4px 0}
details.inline{border:0;padding:0;margin:0;background:none}
details.inline summary{font-weight:400;padding:0}
table{width:100%;border-collapse:collapse;background:var(--card);font-size:13px}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:#eef0f4;font-weight:600} table.fixed{table-layout:fixed}
table.fixed td{overflow-wrap:anywhere} td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.miss td{background:#fff8e6} table.index td{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
table.index .badge{margin-left:0} .muted{color:var(--muted)}
footer{margin-top:40px;color:var(--muted);font-size:12px}
"""


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


_NOISE_HEADERS = {"user-agent", "accept-encoding", "connection", "keep-alive", "content-length", "date", "server"}
_MAX_CLAUSES_INLINE = 8


def _elide(body: Any) -> Any:
    """Hide what never explains a failure (managedFields) so the relevant fields stay on screen."""
    if isinstance(body, dict):
        out = {}
        for k, v in body.items():
            if k == "managedFields" and isinstance(v, list) and v:
                out[k] = f"[{len(v)} entries hidden; see conformance.json]"
            else:
                out[k] = _elide(v)
        return out
    if isinstance(body, list):
        return [_elide(v) for v in body]
    return body


def _pretty(body: Any) -> str:
    if body in (None, ""):
        return "(empty)"
    body = _elide(body)
    text = body if isinstance(body, str) else json.dumps(body, indent=2, ensure_ascii=False, default=str)
    return text if len(text) <= _BODY_LIMIT else text[:_BODY_LIMIT] + f"\n... ({len(text) - _BODY_LIMIT} more chars)"


def _headers(headers: dict[str, Any] | None) -> str:
    return "\n".join(f"{k}: {v}" for k, v in (headers or {}).items() if str(k).lower() not in _NOISE_HEADERS)


def _response_text(ex: dict[str, Any]) -> str:
    if ex.get("status") is None:
        return f"no response: {ex.get('error') or 'connection error'}"
    return _pretty(ex.get("response_body"))


def _code_class(status: Any) -> str:
    return f"c{str(status)[0]}" if isinstance(status, int) else "cx"


def _exchange(ex: dict[str, Any], title: str) -> str:
    ex = mask_exchange(ex)
    status = ex.get("status")
    status_text = status if status is not None else f"no response ({ex.get('error') or 'connection error'})"
    req = _headers(ex.get("request_headers"))
    resp = _headers(ex.get("response_headers"))
    return (
        f'<div class="reqline"><b>{_e(title)}</b> {_e(ex.get("method"))} {_e(ex.get("url") or ex.get("path"))} '
        f'&rarr; <span class="code {_code_class(status)}">{_e(status_text)}</span> '
        f'<span class="muted">({float(ex.get("duration_s") or 0) * 1000:.0f} ms'
        f'{", endpoint " + _e(ex.get("endpoint")) if ex.get("endpoint") else ""})</span></div>'
        '<div class="ex"><div><h4>Request</h4>'
        f'<pre>{_e(req + chr(10) + chr(10) if req else "")}{_e(_pretty(ex.get("request_body")))}</pre></div>'
        '<div><h4>Response</h4>'
        f'<pre>{_e(resp + chr(10) + chr(10) if resp else "")}{_e(_response_text(ex))}</pre></div></div>'
        f'<h4 class="muted" style="margin:4px 0 0;font-size:12.5px">Reproduce</h4><pre>{_e(curl_command(ex))}</pre>'
    )


def _failed_test(t: dict[str, Any], shown_under: str | None = None) -> str:
    """A failed test; in full the first time, as a reference when another clause already showed it."""
    exchanges = t.get("exchanges") or []
    out = [f'<div class="test"><span class="id">{_e(t.get("nodeid"))}</span>'
           f'<span class="badge cat-{_e(t.get("category") or "harness")}">{_e(t.get("category") or "harness")}</span>'
           f' <span class="muted">{_e(t.get("phase", "call"))} &middot; {float(t.get("duration_s") or 0):.2f} s</span>'
           f'<pre class="msg">{_e(t.get("message") or "(no message)")}</pre>']
    if t.get("namespace_state"):
        out.append(f'<details><summary>Its namespaces when it failed</summary>'
                   f'<pre>{_e(t["namespace_state"])}</pre></details>')
    if shown_under:
        out.append(f'<p class="muted">Requests and curl: see <a href="#{_e(shown_under)}">{_e(shown_under)}</a>.</p>'
                   "</div>")
        return "".join(out)
    if exchanges:
        out.append(_exchange(exchanges[-1], "Last request"))
        if len(exchanges) > 1:
            inner = "".join(_exchange(ex, f"#{i}") for i, ex in enumerate(exchanges[:-1], 1))
            out.append(f"<details><summary>All {len(exchanges)} requests of this test</summary>{inner}</details>")
    else:
        out.append('<p class="muted">No request was recorded for this test.</p>')
    out.append("</div>")
    return "".join(out)


def _failing_index(failing: list[dict[str, Any]]) -> str:
    """One line per failing clause, linking to its details: the page stays usable with dozens of failures."""
    rows = []
    for c in failing:
        first = next((t for t in c.get("tests", []) if t.get("outcome") == "failed"), {})
        line = (first.get("message") or "").strip().splitlines()[:1]
        cat = first.get("category") or "harness"
        rows.append(f'<tr><td><a href="#{_e(c["id"])}"><b>{_e(c["id"])}</b></a></td><td>{_e(c.get("severity"))}</td>'
                    f'<td>{_e(c.get("group"))}</td><td><span class="badge cat-{_e(cat)}">{_e(cat)}</span></td>'
                    f'<td>{_e(line[0] if line else "")}</td></tr>')
    return ('<table class="fixed index"><colgroup><col style="width:110px"><col style="width:75px">'
            '<col style="width:95px"><col style="width:95px"><col></colgroup>'
            "<tr><th>Clause</th><th>Severity</th><th>Group</th><th>Category</th><th>First failure</th></tr>"
            + "".join(rows) + "</table><div style='height:14px'></div>")


def _failing(run: dict[str, Any]) -> str:
    failing = failing_clauses(run)
    if not failing:
        return '<h2 id="failing">Failing clauses</h2><p>None: every tested clause passed.</p>'
    parts = [f'<h2 id="failing">Failing clauses ({len(failing)})</h2>',
             f'<p class="root-cause"><b>{_e(root_cause_summary(run))}</b></p>']
    if len(failing) > 3:
        parts.append(_failing_index(failing))
    shown: dict[str, str] = {}
    for c in failing:
        all_tests = c.get("tests", [])
        tests = [t for t in all_tests if t.get("outcome") == "failed"]
        rendered = []
        for t in tests:
            rendered.append(_failed_test(t, shown.get(t["nodeid"])))
            shown.setdefault(t["nodeid"], c["id"])
        parts.append(
            f'<article class="clause" id="{_e(c["id"])}"><h3>{_e(c["id"])}'
            f'<span class="badge sev-{_e(c.get("severity"))}">{_e(c.get("severity"))}</span>'
            f'<span class="badge sev-minor">{_e(c.get("group"))}</span></h3>'
            f'<p class="req">{_e(c.get("requirement"))}</p>'
            f'<div class="src">{_e(c.get("source"))} &middot; {len(tests)} of {len(all_tests)} test(s) failed</div>'
            + "".join(rendered) + "</article>")
    return "".join(parts)


def _clause_table(clauses: list[dict[str, Any]]) -> str:
    rows = "".join(
        f'<tr><td><b>{_e(c["id"])}</b></td><td>{_e(c.get("group"))}</td><td>{_e(c.get("severity"))}</td>'
        f'<td>{_e(c.get("requirement"))}</td><td class="num">{len(c.get("tests", []))}</td>'
        f'<td>{_e("; ".join(t.get("message", "") for t in c.get("tests", []) if t.get("message"))[:300])}</td></tr>'
        for c in clauses)
    return ('<table class="fixed"><colgroup><col style="width:110px"><col style="width:95px"><col style="width:75px">'
            '<col><col style="width:55px"><col style="width:250px"></colgroup>'
            "<tr><th>Clause</th><th>Group</th><th>Severity</th><th>Requirement</th><th>Tests</th>"
            f"<th>Note</th></tr>{rows}</table>")


def _others(run: dict[str, Any]) -> str:
    parts = ['<h2 id="others">Other clauses</h2>']
    for status, label in (("passed", "Passed"), ("skipped", "Skipped"), ("untested", "Untested (no test ran)")):
        items = [c for c in run.get("clauses", []) if c.get("status") == status]
        parts.append(f'<details><summary><span class="st-{status}">{label}</span> ({len(items)})</summary>'
                     f'{_clause_table(items) if items else "<p>None.</p>"}</details>')
    unmapped = run.get("unmapped_tests") or []
    if unmapped:
        rows = "".join(f'<tr><td class="id">{_e(t["nodeid"])}</td><td>{_e(t["outcome"])}</td>'
                       f'<td>{_e(t.get("message"))}</td></tr>' for t in unmapped)
        parts.append(f"<details><summary>Tests without a clause ({len(unmapped)})</summary>"
                     f"<table><tr><th>Test</th><th>Outcome</th><th>Message</th></tr>{rows}</table></details>")
    return "".join(parts)


def _clause_list(ids: list[str]) -> str:
    if not ids:
        return "<span class='muted'>never requested</span>"
    links = ", ".join(_e(i) for i in ids)
    if len(ids) <= _MAX_CLAUSES_INLINE:
        return links
    return f"<details class='inline'><summary>{len(ids)} clauses</summary>{links}</details>"


def _coverage(run: dict[str, Any]) -> str:
    rows = run.get("coverage") or []
    s = cov.summary(run)
    if not rows:
        return "<h2 id='coverage'>Endpoint coverage</h2><p class='muted'>No endpoint table for this profile.</p>"
    body = "".join(
        f'<tr class="{"" if r.get("hits") else "miss"}"><td>{_e(r.get("endpoint"))}</td><td>{_e(r.get("method"))}</td>'
        f'<td><code>{_e(r.get("path"))}</code></td><td class="num">{_e(r.get("hits"))}</td>'
        f'<td>{_clause_list(r.get("clauses") or [])}</td></tr>'
        for r in rows)
    out = (f"<h2 id='coverage'>Endpoint coverage</h2><p class='sub'>{s['hit']} of {s['endpoints']} endpoints "
           "of profile "
           f"<b>{_e(run.get('profile'))}</b> requested; {s['uncovered']} never reached (highlighted).</p>"
           "<table><tr><th>Endpoint</th><th>Method</th><th>Path</th><th>Hits</th><th>Clauses</th></tr>"
           f"{body}</table>")
    extra = run.get("coverage_unmatched") or []
    if extra:
        erows = "".join(f"<tr><td>{_e(x.get('endpoint') or '—')}</td><td>{_e(x.get('method'))}</td>"
                        f"<td><code>{_e(x.get('path'))}</code></td><td class='num'>{_e(x.get('hits'))}</td></tr>"
                        for x in extra)
        out += (f"<details><summary>Requests outside the endpoint table ({len(extra)})</summary><table><tr>"
                f"<th>Endpoint</th><th>Method</th><th>Path</th><th>Hits</th></tr>{erows}</table></details>")
    return out


def _summary(run: dict[str, Any]) -> str:
    sc = run.get("summary", {}).get("clauses", {})
    st = run.get("summary", {}).get("tests", {})
    cats = run.get("summary", {}).get("categories", {})
    cards = "".join(f'<div class="card {s}"><div class="n">{_e(sc.get(s, 0))}</div><div class="l">clauses {s}</div>'
                    "</div>" for s in STATUSES)
    cat_text = ", ".join(f"{v} {k}" for k, v in sorted(cats.items())) or "none"
    rows = []
    for name, counts in groups(run):
        total = sum(counts.values()) or 1
        segs = "".join(f'<span class="s-{s}" style="width:{counts[s] * 100 / total:.2f}%" title="{s}: {counts[s]}">'
                       "</span>" for s in STATUSES if counts.get(s))
        text = " · ".join(f"{counts[s]} {s}" for s in STATUSES if counts.get(s))
        rows.append(f'<div class="grow"><b>{_e(name)}</b><div class="bar">{segs}</div>'
                    f'<div class="counts">{_e(text)}</div></div>')
    legend = "".join(f'<span><i class="s-{s}"></i>{s}</span>' for s in STATUSES)
    return (f'<h2 id="summary">Summary</h2><div class="cards">{cards}</div>'
            f'<p class="sub">Tests: {_e(st.get("passed", 0))} passed, {_e(st.get("failed", 0))} failed, '
            f'{_e(st.get("skipped", 0))} skipped. Failure categories: {_e(cat_text)}.</p>'
            f'<h3 style="margin-top:16px">Clause groups</h3><div class="groups">{"".join(rows) or "<p>No clauses.</p>"}'
            f'<div class="legend">{legend}</div></div>')


def _header(run: dict[str, Any]) -> str:
    target = run.get("target") or {}
    version = target.get("version") or {}
    version_text = version.get("gitVersion") if isinstance(version, dict) else version
    ok = run.get("exit_status") == 0
    meta = [("Target", f"{target.get('url', '?')} ({target.get('kind', '?')}"
                       f"{', context ' + str(target['context']) if target.get('context') else ''})"),
            ("Profile", run.get("profile") or target.get("profile")), ("Server version", version_text or "unknown"),
            *([("Status messages", "not compared (--messages warn)")] if run.get("messages") == "warn" else []),
            ("Run", run.get("run_id")), ("Started", run.get("started")),
            ("Duration", f"{float(run.get('duration_s') or 0):.1f} s"),
            ("Harness", f"{run.get('harness', {}).get('name')} {run.get('harness', {}).get('version')}")]
    meta_html = "".join(f"<span>{_e(k)}</span><b>{_e(v)}</b>" for k, v in meta)
    word = ("CONFORMANT" if ok else "NOT CONFORMANT") if core_ran(run) else "EXTENSIONS ONLY"
    return (f'<div class="top"><div><h1>Namespace API conformance report</h1><div class="meta">{meta_html}</div></div>'
            f'<div class="verdict {"pass" if ok else "fail"}">{word}'
            f'<small>pytest exit status {_e(run.get("exit_status"))}</small></div></div>')


def _extensions(run: dict[str, Any]) -> str:
    """Opt-in extensions, each in its own section, never counted in the summary above."""
    out = ""
    for name, ext in (run.get("extensions") or {}).items():
        counts = (ext.get("summary") or {}).get("clauses") or {}
        text = " · ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)
        out += (f'<h2 id="extension-{_e(name)}">Extension {_e(name)} (opt-in; not part of core conformance)</h2>'
                f'<p class="sub">{_e(text)}</p>' + _clause_table(ext.get("clauses") or []))
    return out


def _scale(run: dict[str, Any]) -> str:
    """The scale suite's curves (`--scale N`): inline SVG panels and the growth table."""
    scale = run.get("scale") or {}
    if not scale.get("steps"):
        return ""
    from ..scale.plot import NAMES, svg_panels

    def count(v: Any) -> str:  # 10,000 namespaces, as the console and the failure message write them
        return _e(f"{v:,}" if isinstance(v, int) else v)

    rows = ""
    for op, g in (scale.get("growth") or {}).items():
        verdict = "reported" if op not in (scale.get("judged_operations") or []) else (
            "not judged (N/first below %s)" % f"{scale.get('judged_ratio', 1000):,}" if not g.get("judged")
            else ("ok" if g.get("ok") else "too steep"))
        rows += (f"<tr><td>{_e(NAMES.get(op, op))}</td><td>{count(g.get('first'))} → {count(g.get('last'))}</td>"
                 f"<td>{_e(g.get('ratio'))}×" + (f" (raw {_e(g.get('raw_ratio'))}×)" if g.get("raw_ratio") is not None
                                                   else "") + f"</td><td>{_e((g.get('fit') or {}).get('model'))}: "
                 f"{_e((g.get('fit') or {}).get('formula'))}</td><td>{_e(verdict)}</td></tr>")
    table = ("<table><tr><th>operation</th><th>namespaces</th><th>cost ratio N/first (judged: relative to "
             "GET /version)</th><th>fitted curve (raw medians)</th>"
             f"<th>verdict</th></tr>{rows}</table>") if rows else ""
    return (f'<h2 id="scale">Scale: {count(scale.get("n"))} namespaces, {_e(scale.get("objects"))} objects each</h2>'
            f'<p class="sub">Median of {_e(scale.get("rounds"))} timings per operation and step; per-namespace '
            f'operations at N may cost at most {_e(scale.get("limit"))}× their cost at the first step.</p>'
            + '<div class="plots">'
            + "".join(f'<div class="plot">{svg}</div>' for svg in svg_panels(scale)) + "</div>" + table)


def render_html(run: dict[str, Any]) -> str:
    """The whole page as a string."""
    title = f"nsconform {run.get('run_id', '')}: {run.get('target', {}).get('url', '')}"
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width,initial-scale=1'>"
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body><main>"
            + _header(run) + _summary(run) + _failing(run) + _others(run) + _extensions(run) + _scale(run)
            + _coverage(run)
            + f"<footer>Generated by nsconform {_e(run.get('harness', {}).get('version'))} from conformance.json. "
              "Tokens are masked; set <code>TOKEN</code> in your shell to run the curl lines.</footer>"
            "</main></body></html>\n")
