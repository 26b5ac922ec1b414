"""`--extension NAME`: extension clauses run only when asked for, and then without the core suites; the
clause/test coverage rule still covers them."""
from __future__ import annotations

import textwrap

import pytest

pytest_plugins = ["pytester"]

CLAUSES = """
[[clause]]
id = "C-1"
group = "phase"
requirement = "core"
profiles = ["kubernetes"]

[[clause]]
id = "EXT-1"
group = "initializers"
extension = "kep-33"
requirement = "extension"
profiles = ["kubernetes"]
"""

CORE = """
import pytest

@pytest.mark.clause("C-1")
def test_core():
    pass
"""

EXT = """
import pytest

@pytest.mark.clause("EXT-1")
def test_ext():
    pass
"""


@pytest.fixture
def suites(pytester):
    pytester.makeini("""
        [pytest]
        nsconform_suites = suites
        nsconform_clauses = clauses.toml
    """)
    (pytester.path / "clauses.toml").write_text(CLAUSES)
    (pytester.path / "suites").mkdir()
    for name, src in (("test_core.py", CORE), ("test_ext.py", EXT)):
        (pytester.path / "suites" / name).write_text(textwrap.dedent(src))
    return pytester


def test_extension_left_out_by_default(suites):
    result = suites.runpytest("suites", "--collect-only", "-q")
    out = result.stdout.str()
    assert "test_core" in out and "test_ext" not in out


def test_extension_runs_alone_when_asked(suites):
    result = suites.runpytest("suites", "--collect-only", "-q", "--extension", "kep-33")
    out = result.stdout.str()
    assert "test_ext" in out and "test_core" not in out


def test_unknown_extension_is_a_usage_error(suites):
    result = suites.runpytest("suites", "--collect-only", "-q", "--extension", "kep-99")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown extension(s) kep-99*"])


def test_extension_clause_needs_a_test(suites):
    (suites.path / "suites" / "test_ext.py").unlink()
    result = suites.runpytest("suites", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*clauses without any test: EXT-1*"])
