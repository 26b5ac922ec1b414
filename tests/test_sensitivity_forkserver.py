"""The fork server the sensitivity/specificity runs start from: each run its own process, output and exit
status as under `python -m pytest`, timeouts kill the run, and the harness is never imported before pytest."""
from __future__ import annotations

import os
import sys

import pytest

from conformance.sensitivity import runner
from conformance.sensitivity.forkserver import ForkServer

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs fork()")

TESTS = '''
import os, select, sys

def test_passes():
    # the server imported pytest's dependencies, never the harness (pytest must rewrite it)
    assert "conformance" not in sys.modules
    print("pid", os.getpid(), "sid", os.getsid(0))
    print("cwd", os.getcwd())

def test_fails():
    assert 1 == 2

def test_blocks():
    select.select([], [], [])
'''


@pytest.fixture(scope="module")
def server():
    s = ForkServer(runner.child_env(), preload=("pytest",))  # the full PRELOAD: the end-to-end sensitivity test
    yield s
    s.close()


def _argv(path, *extra):
    return [str(path), "-q", "-s", "-p", "no:cacheprovider", "-p", "no:nsconform", *runner.unused_plugins(), *extra]


def test_a_run_reports_its_exit_status_and_output(server, tmp_path, monkeypatch):
    (tmp_path / "test_fs.py").write_text(TESTS)
    monkeypatch.chdir(tmp_path)  # the run's, not the server's: pytest finds its ini file from there
    out = tmp_path / "out.txt"
    assert server.run(_argv(tmp_path / "test_fs.py", "-k", "passes"), out, timeout=120) == 0
    text = out.read_text()
    assert "1 passed" in text
    pid, sid = (int(x) for x in text.split("pid ", 1)[1].split()[::2][:2])
    assert pid == sid and pid != os.getpid()  # its own session: a timeout kills its whole group
    assert f"cwd {tmp_path}" in text
    assert server.run(_argv(tmp_path / "test_fs.py", "-k", "fails"), out, timeout=120) == 1
    assert "assert 1 == 2" in out.read_text()  # rewritten as under python -m pytest
    assert server.run(["--no-such-option"], out, timeout=120) == 4
    assert server.alive


def test_a_run_over_its_timeout_is_killed(server, tmp_path):
    (tmp_path / "test_fs.py").write_text(TESTS)
    out = tmp_path / "out.txt"
    assert server.run(_argv(tmp_path / "test_fs.py", "-k", "blocks"), out, timeout=3) is None
    assert server.alive  # and it still serves the next run
    assert server.run(_argv(tmp_path / "test_fs.py", "-k", "passes"), out, timeout=120) == 0


def test_spawn_falls_back_to_a_subprocess_without_the_server(monkeypatch, tmp_path):
    monkeypatch.setattr(runner, "_FORKSERVER", [None])
    (tmp_path / "test_fs.py").write_text(TESTS)
    rc, output = runner._spawn([sys.executable, "-m", "pytest", *_argv(tmp_path / "test_fs.py", "-k", "fails")],
                               "x", 120)
    assert rc == 1 and "1 failed" in output
