"""The Allure 3 report of one run, opened in headless Chromium: the clause tree (epic → feature → story),
a test's steps with its masked request, and our categories. Skips where Chromium, Node/npx or the npm
registry cannot be had (CI installs Chromium with apt)."""
from __future__ import annotations

import functools
import html
import os
import re
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

FAILING = "test_default_finalizer_is_kubernetes"
SELECT = f"{FAILING} or test_other_verbs_on_finalize_rejected"
DEVIATION = "no-default-finalizer"
CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
NETWORK = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "did not finish")

_SCRIPT = Path(sys.executable).with_name("nsconform")
NSCONFORM = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "conformance.cli"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (CI: apt-get install chromium)")

# Opened next to the report (same origin): loads one test's page in a frame, expands its first HTTP step and
# that step's request attachment, and copies the frame's text into #out for --dump-dom.
CLICKER = """<!DOCTYPE html><html><body><iframe id="f" src="index.html#%s" style="width:1400px;height:4000px"></iframe>
<pre id="out"></pre><script>
const f = document.getElementById("f"), done = {};
function leaf(re) {
  const d = f.contentDocument;
  return d ? Array.from(d.querySelectorAll("*")).find(e => e.children.length === 0 && re.test(e.textContent.trim())) : null;
}
function tick(n) {
  const step = leaf(/^(GET|POST|PUT|PATCH|DELETE) \\/api\\/\\S+ \\u2192 \\d+$/), request = leaf(/^request$/);
  if (step && !done.step) { done.step = true; step.click(); }
  else if (request && !done.request) { done.request = true; request.click(); }
  const text = f.contentDocument && f.contentDocument.body ? f.contentDocument.body.innerText : "";
  document.getElementById("out").textContent = text;
  if (n < 60 && !(done.request && text.includes('"method"'))) setTimeout(() => tick(n + 1), 200);
}
f.onload = () => setTimeout(() => tick(0), 300);
</script></body></html>"""


def _nsconform(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*NSCONFORM, *args], cwd=cwd, env=dict(os.environ), capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("npx") is None:
        pytest.skip("Node.js/npx is not installed here")
    cwd = tmp_path_factory.mktemp("allure-browser")
    run = _nsconform(["run", "--reports", "reports", "--run-id", "deviated", "--",
                      "-k", SELECT, "-q", "--nsconform-deviate", DEVIATION], cwd)
    run_dir = cwd / "reports" / "deviated"
    assert run.returncode == 1 and (run_dir / "allure-results").is_dir(), run.stdout[-2000:] + run.stderr[-2000:]
    out = cwd / "allure"
    proc = _nsconform(["report", str(run_dir), "--allure-html", "--allure-output", str(out)], cwd)
    if proc.returncode != 0 and any(e in proc.stderr for e in NETWORK):
        pytest.skip(f"the npm registry did not answer: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def served(report: Path) -> Iterator[str]:
    """Allure 3's page fetches its data: serve it over http on 127.0.0.1 (file:// would be refused)."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(report)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def dom(url: str, tmp_path: Path, budget_ms: int = 15000) -> str:
    """The page's DOM after `budget_ms` of virtual time (the app renders client-side)."""
    assert CHROMIUM is not None
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
         f"--user-data-dir={tmp_path / 'chromium-profile'}", f"--virtual-time-budget={budget_ms}",
         "--dump-dom", url],
        capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and proc.stdout, proc.stderr[-2000:]
    return proc.stdout


def text(page: str) -> str:
    page = re.sub(r"(?s)<(script|style)\b[^>]*>.*?</\1>", " ", page)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_the_tree_is_the_clause_tree(served: str, tmp_path: Path) -> None:
    shown = text(dom(f"{served}/index.html", tmp_path))
    # epic (harness) → feature (area) → story (clause), each with its tests
    assert re.search(r"nsconform \d+ \d+ finalize \d+ \d+ NS-FZE-007: A server MUST reject", shown), shown[:3000]
    assert re.search(r"finalizers \d+ NS-FIN-001: A server MUST set spec.finalizers .*" + FAILING, shown), shown[:3000]


def test_categories_are_ours(served: str, tmp_path: Path) -> None:
    shown = text(dom(f"{served}/index.html#categories", tmp_path))
    assert re.search(r"Server violates a MUST \d+", shown), shown[:3000]
    assert "Product errors" not in shown  # Allure 3's default: our categories.json was not applied


def test_a_step_shows_its_masked_request(served: str, report: Path, tmp_path: Path) -> None:
    ids = [p.stem for p in (report / "data" / "test-results").glob("*.json")
           if f'"name":"{FAILING}"' in p.read_text(encoding="utf-8")]
    assert len(ids) == 1
    (report / "nsconform-check.html").write_text(CLICKER % ids[0], encoding="utf-8")
    page = dom(f"{served}/nsconform-check.html", tmp_path, budget_ms=30000)
    m = re.search(r'(?s)<pre id="out">(.*?)</pre>', page)
    assert m, page[-2000:]
    shown = html.unescape(m.group(1))
    assert FAILING in shown and "Server violates a MUST" in shown
    assert re.search(r"POST /api/v1/namespaces → 201", shown), shown[:3000]
    assert '"method": "POST"' in shown and '"Authorization": "***"' in shown, shown[:3000]
