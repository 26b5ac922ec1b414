"""CI runs the scope suites (authorization, quota, limits) on the embedded server with RBAC on: every
test must pass and none may skip (without `--nsconform-authorization rbac` the authorization ones skip)."""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

SCOPE_MODULES = ("test_scope_authz", "test_scope_quota", "test_scope_limitrange")


@pytest.mark.parametrize("profile", ["kubernetes", "design"])
def test_scope_suites_pass_with_rbac(tmp_path, profile):
    junit = tmp_path / "junit.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "conformance.suites", "-k", "scope", "-q",
         "--nsconform-authorization", "rbac", "--profile", profile, "--junitxml", str(junit),
         "--nsconform-reports", str(tmp_path / "reports"), "-p", "no:cacheprovider"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    modules = {c.get("classname", "").rsplit(".", 1)[-1] for c in cases}
    assert set(SCOPE_MODULES) <= modules, f"scope modules run: {sorted(modules)}"
    bad = [(c.get("classname"), c.get("name"), [child.tag for child in c]) for c in cases
           if any(child.tag in ("skipped", "failure", "error") for child in c)]
    assert not bad, bad
    assert len(cases) >= 13
