"""`nsconform report DIR --allure-html`: Allure's own report of a run's allure-results, rendered by Allure 3.

Allure 3 is the npm package `allure` (a Node.js CLI, no Java); we run it through `npx --yes allure@3
generate RESULTS --output DIR`, which fetches it once into npm's cache. Without Node.js the command says so
in one line; our own conformance.html needs none of this.

Allure 3 ignores allure-results/categories.json and groups its tree by suite; a generated config hands it our
categories (the Allure 2 regexes made JavaScript-compatible) and groups the tree by clause: epic (harness),
feature (area), story (clause).
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

ALLURE_PACKAGE = "allure@3"
RESULTS_NAME, REPORT_NAME = "allure-results", "allure-report"
_NETWORK_ERRORS = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "network", "E404")

CLAUSE_TREE = ["epic", "feature", "story"]

__all__ = ["AllureError", "render_allure_html", "allure_config"]


class AllureError(RuntimeError):
    """Allure could not be run or failed; the message is one line. `network` tells a registry problem apart."""

    def __init__(self, message: str, *, network: bool = False) -> None:
        super().__init__(message)
        self.network = network


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines()
             if ln.strip() and not ln.startswith("npm warn Unknown user config")]
    return lines[-1] if lines else ""


def _js_regex(pattern: str) -> str:
    """Allure 2 regexes are Java's and whole-message (`(?s).*X.*`); JavaScript has no inline `(?s)`."""
    if pattern.startswith("(?s)"):
        pattern = re.sub(r"(?<!\\)\.", r"[\\s\\S]", pattern[4:])
    return pattern


def allure_config(results: Path, name: str) -> dict[str, Any]:
    """Allure 3's config for one run: its name, our categories, the tree grouped by clause."""
    config: dict[str, Any] = {"name": name,
                              "plugins": {"awesome": {"options": {"groupBy": CLAUSE_TREE}}}}
    try:
        categories = json.loads((results / "categories.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        categories = None
    if isinstance(categories, list) and categories:
        config["categories"] = [
            {**c, **({"messageRegex": _js_regex(c["messageRegex"])} if isinstance(c.get("messageRegex"), str) else {}),
             **({"traceRegex": _js_regex(c["traceRegex"])} if isinstance(c.get("traceRegex"), str) else {})}
            for c in categories if isinstance(c, dict)]
    return config


def render_allure_html(run_dir: Path, output: Path | None = None, *, name: str | None = None,
                       timeout: float = 600.0) -> Path:
    """Render `run_dir/allure-results` into `output` (default `run_dir/allure-report`); returns its index.html."""
    results = run_dir / RESULTS_NAME
    if not results.is_dir():
        raise AllureError(f"{results}: no allure-results here (runs write them with `nsconform run`)")
    npx = shutil.which("npx")
    if npx is None:
        raise AllureError("--allure-html needs Node.js 18+ with npx (Allure 3 is the npm package `allure`); "
                          "install Node.js, or open conformance.html, which needs nothing")
    out = (output or run_dir / REPORT_NAME).resolve()
    title = name or f"nsconform {run_dir.name}"
    tmp = tempfile.TemporaryDirectory(prefix="nsconform-allure-")
    config = Path(tmp.name) / "allurerc.json"
    config.write_text(json.dumps(allure_config(results, title)), encoding="utf-8")
    cmd = [npx, "--yes", ALLURE_PACKAGE, "generate", str(results.resolve()), "--output", str(out),
           "--name", title, "--config", str(config)]
    try:
        with tmp:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise AllureError(f"`npx {ALLURE_PACKAGE} generate` did not finish within {timeout:g} s",
                          network=True) from None
    if proc.returncode != 0:
        detail = _last_line(proc.stderr) or _last_line(proc.stdout) or "no output"
        raise AllureError(f"`npx {ALLURE_PACKAGE} generate` failed (exit {proc.returncode}): {detail}",
                          network=any(e in proc.stderr for e in _NETWORK_ERRORS))
    index = out / "index.html"
    if not index.is_file():
        raise AllureError(f"`npx {ALLURE_PACKAGE} generate` wrote no {index}")
    return index
