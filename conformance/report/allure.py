"""Allure enrichment: labels per test from the clause catalogue, one step per API call, run-level metadata.

Worker side (every process that runs tests): `AllureEnricher` sets epic/feature/story/severity/tags/id in
`pytest_runtest_setup` and turns the call-phase `report.nsconform["exchanges"]` into steps with masked request,
response and curl attachments. Controller side: `write_allure_metadata` writes `environment.properties` and
`categories.json` into the results dir at session finish (called by `ReportPlugin`).
Everything is a no-op unless allure-pytest is active (`--alluredir`).
"""

from __future__ import annotations

import hashlib
import json
import platform
from pathlib import Path
from typing import Any, Iterable

import pytest

from .catalogue import catalogue_path, load_clauses
from .curl import curl_command
from .masking import mask_exchange, scrub_text

SEVERITY = {"critical": "critical", "major": "normal", "minor": "minor"}
_SEVERITY_RANK = ["blocker", "critical", "normal", "minor", "trivial"]

CATEGORIES = [
    {"name": "Timed out waiting (WaitTimeout)", "matchedStatuses": ["failed", "broken"],
     "messageRegex": "(?s).*WaitTimeout.*",
     "description": "The server never reached the expected state within the (scaled) timeout."},
    {"name": "Server violates a MUST", "matchedStatuses": ["failed"],
     "description": "A suite assertion failed: the target does not do what the clause requires."},
    {"name": "Harness or connection error", "matchedStatuses": ["broken"],
     "description": "An exception other than an assertion: connection refused, TLS, or a harness bug."},
]


def allure_active(config: pytest.Config) -> bool:
    return bool(config.getoption("allure_report_dir", default=None))


def stable_id(nodeid: str) -> str:
    """A numeric id derived from the nodeid only, so Allure history follows a test across runs."""
    return str(int(hashlib.sha256(nodeid.encode()).hexdigest()[:12], 16) % 10**10)


def _request_doc(ex: dict[str, Any]) -> dict[str, Any]:
    return {"method": ex.get("method"), "url": ex.get("url"), "headers": ex.get("request_headers"),
            "body": ex.get("request_body")}


def _response_doc(ex: dict[str, Any]) -> dict[str, Any]:
    doc = {"status": ex.get("status"), "duration_s": ex.get("duration_s"), "headers": ex.get("response_headers"),
           "body": ex.get("response_body")}
    if ex.get("error"):
        doc["error"] = ex["error"]
    return doc


def attach_exchanges(exchanges: Iterable[dict[str, Any] | Any], secrets: Iterable[str] = ()) -> int:
    """One `allure.step` per API call ("PUT /api/v1/namespaces/x/finalize → 200") with masked attachments.

    Accepts `Exchange` objects or their dicts. Call it while the test is still open in Allure (call-phase
    `pytest_runtest_makereport`/`pytest_runtest_logreport` or a fixture teardown). Returns the number of steps.
    """
    import allure  # local: the package is optional at import time

    secrets = tuple(secrets)
    n = 0
    for raw in exchanges:
        ex = mask_exchange(raw.to_dict() if hasattr(raw, "to_dict") else dict(raw), secrets)
        status = ex.get("status") if ex.get("status") is not None else "no response"
        title = scrub_text(f"{ex.get('method')} {ex.get('path') or ex.get('url')} → {status}", secrets)
        with allure.step(title):
            allure.attach(json.dumps(_request_doc(ex), indent=2, default=str), name="request",
                          attachment_type=allure.attachment_type.JSON)
            allure.attach(json.dumps(_response_doc(ex), indent=2, default=str), name="response",
                          attachment_type=allure.attachment_type.JSON)
            allure.attach(curl_command(ex), name="curl", attachment_type=allure.attachment_type.TEXT)
        n += 1
    return n


class AllureEnricher:
    """Worker-side plugin: Allure labels from the clause catalogue and steps from recorded exchanges."""

    def __init__(self, config: pytest.Config, catalogue: list[dict[str, Any]] | None = None,
                 secrets: Iterable[str] = ()) -> None:
        self.config = config
        self._catalogue = catalogue
        self._by_id: dict[str, dict[str, Any]] | None = None
        self.secrets: set[str] = set(s for s in secrets if s)
        from .pytest_hooks import config_secrets
        self.secrets |= config_secrets(config)

    @property
    def clauses(self) -> dict[str, dict[str, Any]]:
        if self._by_id is None:
            if self._catalogue is None:
                self._catalogue = load_clauses(catalogue_path(self.config))
            self._by_id = {c["id"]: c for c in self._catalogue}
        return self._by_id

    def _clauses_of(self, item: pytest.Item) -> list[dict[str, Any]]:
        ids: list[str] = []
        for mark in item.iter_markers("clause"):
            ids.extend(str(a) for a in mark.args)
        known = self.clauses
        return [known.get(cid, {"id": cid, "group": "unknown", "requirement": "", "severity": "major"})
                for cid in dict.fromkeys(ids)]

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item):  # type: ignore[no-untyped-def]
        """Labels go on before the test body; the description after allure-pytest set its own (docstring)."""
        clauses = self._clauses_of(item) if allure_active(item.config) else []
        if clauses:
            self._label(item, clauses)
        try:
            return (yield)
        finally:
            if clauses:
                self._describe(item, clauses)

    def _label(self, item: pytest.Item, clauses: list[dict[str, Any]]) -> None:
        import allure

        allure.dynamic.epic("nsconform")
        for group in dict.fromkeys(c.get("group") or "ungrouped" for c in clauses):
            allure.dynamic.feature(group)
        for c in clauses:
            allure.dynamic.story(f"{c['id']}: {c.get('requirement') or ''}".strip().rstrip(":"))
        sev = min((SEVERITY.get(c.get("severity") or "major", "normal") for c in clauses), key=_SEVERITY_RANK.index)
        allure.dynamic.severity(sev)
        tags = [c["id"] for c in clauses] + ["conformance"]
        if item.get_closest_marker("disruptive"):
            tags.append("disruptive")
        allure.dynamic.tag(*tags)
        allure.dynamic.id(stable_id(item.nodeid))

    def _describe(self, item: pytest.Item, clauses: list[dict[str, Any]]) -> None:
        import allure

        text = "\n\n".join(f"**{c['id']}** ({c.get('severity')}): {c.get('requirement') or ''}"
                           + (f"\n\n_Source: {c['source']}_" if c.get("source") else "") for c in clauses)
        doc = getattr(getattr(item, "obj", None), "__doc__", None)
        allure.dynamic.description(text + (f"\n\n---\n\n{doc.strip()}" if doc else ""))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Steps from Contract 2 data, only in the process that ran the test (xdist marks forwarded reports)."""
        if report.when not in ("call", "teardown") or hasattr(report, "node") or not allure_active(self.config):
            return
        data = getattr(report, "nsconform", None)
        if not isinstance(data, dict):
            return
        if report.when == "call" and data.get("exchanges"):
            attach_exchanges(data["exchanges"], self.secrets)
        if report.when == "teardown" and data.get("namespace_state"):
            import allure

            allure.attach(scrub_text(data["namespace_state"], self.secrets), name="its namespaces when it failed",
                          attachment_type=allure.attachment_type.TEXT)


_TEXT_SUFFIXES = {".json", ".txt", ".properties", ".xml", ".yaml", ".html", ".csv", ".log"}


def scrub_results(results_dir: str | Path, secrets: Iterable[str]) -> int:
    """Mask secrets in every text file of the results dir, including what allure-pytest wrote itself
    (failure messages, traces, captured output). Run on the controller after all workers finished."""
    secrets = tuple(x for x in secrets if x)
    changed = 0
    root = Path(results_dir)
    if not root.is_dir():
        return 0
    for path in root.iterdir():
        if not path.is_file() or path.suffix not in _TEXT_SUFFIXES:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        clean = scrub_text(text, secrets)
        if clean != text:
            path.write_text(clean, encoding="utf-8")
            changed += 1
    return changed


def _prop(value: Any) -> str:
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace("=", "\\=").replace(":", "\\:")


def write_allure_metadata(results_dir: str | Path, run: dict[str, Any]) -> list[Path]:
    """`environment.properties` (target, version, profile, ...) and `categories.json` for the Allure report."""
    out = Path(results_dir)
    out.mkdir(parents=True, exist_ok=True)
    target = run.get("target") or {}
    version = target.get("version") or {}
    props = {"target": target.get("url", "unknown"), "target.kind": target.get("kind", "unknown"),
             "target.context": target.get("context") or "",
             "version": version.get("gitVersion", "unknown") if isinstance(version, dict) else version,
             "profile": run.get("profile") or target.get("profile") or "unknown",
             "run.id": run.get("run_id"), "harness": f"nsconform {run.get('harness', {}).get('version')}",
             "python": platform.python_version()}
    env = out / "environment.properties"
    env.write_text("".join(f"{k}={_prop(v)}\n" for k, v in props.items()), encoding="utf-8")
    cats = out / "categories.json"
    cats.write_text(json.dumps(CATEGORIES, indent=2) + "\n", encoding="utf-8")
    return [env, cats]
