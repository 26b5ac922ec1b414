"""conformance/progress.py: an updating line on a terminal, one plain line per run everywhere else."""
from __future__ import annotations

import io

import pytest

from conformance import specificity as S
from conformance.progress import Progress, eta, is_live


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def no_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)


def test_live_only_on_a_terminal_outside_ci():
    assert is_live(FakeTTY(), {}) and not is_live(io.StringIO(), {})
    assert not is_live(FakeTTY(), {"CI": "true"}) and is_live(FakeTTY(), {"CI": "false"})


@pytest.mark.parametrize("seconds, text", [(0, "0s"), (45.4, "45s"), (250, "4m10s"), (3720, "1h02m")])
def test_eta_is_short(seconds, text):
    assert eta(seconds) == text


def test_plain_mode_prints_one_line_per_run_and_nothing_else():
    out, tty = io.StringIO(), io.StringIO()
    p = Progress(3, out=out, tty=tty)
    assert not p.live
    p.done("a (kubernetes)", "caught", 1.0, "[1/3] caught  a (kubernetes) 1.0s: test_a")
    p.done("b (kubernetes)", "missed", 2.0, "[2/3] missed  b (kubernetes) 2.0s: no test failed")
    p.finish()
    assert out.getvalue() == ("[1/3] caught  a (kubernetes) 1.0s: test_a\n"
                              "[2/3] missed  b (kubernetes) 2.0s: no test failed\n")
    assert tty.getvalue() == ""


def test_terminal_mode_updates_one_line_with_an_eta():
    out, tty, clock = io.StringIO(), FakeTTY(), Clock()
    p = Progress(106, out=out, tty=tty, clock=clock)
    assert p.live
    p.count = 36
    clock.now = 37 * 2.0  # 2 s of wall time per finished run, 69 runs left
    p.done("deviation-name (kubernetes)", "caught", 12.3, "the plain line")
    frame = tty.getvalue()
    assert frame == "\r[ 37/106] deviation-name (kubernetes) … caught (12.3 s) · eta 2m18s"
    assert out.getvalue() == ""  # the plain line is for logs only
    p.done("next (design)", "caught", 1.0, "another plain line")
    assert tty.getvalue()[len(frame):].startswith("\r\x1b[K\r[ 38/106] next (design) … caught (1.0 s)")
    p.finish()
    assert tty.getvalue().endswith("\r\x1b[K") and "\n" not in tty.getvalue()


def test_terminal_mode_keeps_a_problem_on_screen_and_the_last_run_has_no_eta():
    tty = FakeTTY()
    p = Progress(2, out=io.StringIO(), tty=tty, clock=Clock())
    p.done("a (kubernetes)", "missed", 2.0, "[1/2] missed  a (kubernetes) 2.0s: no test failed")
    p.done("b (kubernetes)", "caught", 1.0, "[2/2] caught  b")
    text = tty.getvalue()
    assert "[1/2] missed  a (kubernetes) 2.0s: no test failed\n" in text
    assert text.endswith("[2/2] b (kubernetes) … caught (1.0 s)")


def test_terminal_line_fits_the_terminal(monkeypatch):
    import os
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=None: os.terminal_size((41, 24)))
    tty = FakeTTY()
    Progress(5, out=io.StringIO(), tty=tty, clock=Clock()).done("x" * 80, "caught", 1.0, "plain")
    assert len(tty.getvalue()) == 1 + 40 and tty.getvalue().endswith("…")


def _execute(run, reports, *, timeout_scale, run_timeout, extra=(), authorization=None):
    run.returncode, run.duration_s = 0, 1.5
    return run


def test_specificity_on_a_terminal_keeps_its_table_and_last_line(tmp_path, capsys, monkeypatch):
    tty = FakeTTY()
    monkeypatch.setattr("sys.stderr", tty)
    rc = S.main(["--flavor", "kind", "--flavor", "default", "--profile", "kubernetes", "--reports", str(tmp_path)],
                execute_run=_execute)
    out = capsys.readouterr().out
    assert rc == 0 and out.rstrip().splitlines()[-1] == "false alarms: 0 of 2 flavours"
    assert "[1/2]" not in out and any(ln.startswith("kind ") for ln in out.splitlines())
    assert "[2/2] " in tty.getvalue() and tty.getvalue().endswith("\r\x1b[K")


def test_specificity_in_ci_logs_prints_plain_lines(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr("sys.stderr", FakeTTY())  # even on a terminal: CI logs keep plain lines
    S.main(["--flavor", "kind", "--profile", "kubernetes", "--reports", str(tmp_path)], execute_run=_execute)
    out = capsys.readouterr().out
    assert "[1/1] passed  kind (kubernetes) 1.5s" in out
    assert out.rstrip().splitlines()[-1] == "false alarms: 0 of 1 flavours"
