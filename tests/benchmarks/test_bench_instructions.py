"""benchmarks/instructions.py: reading cachegrind's summary and the per-GET difference (valgrind itself is not run)."""
from __future__ import annotations

import pytest

from benchmarks import instructions


def test_the_summary_line_gives_the_instruction_count() -> None:
    out = "desc: I1 cache: 32768 B\ncmd: python -c ...\nevents: Ir\nfl=x\n1 2\nsummary: 10521495779\n"
    assert instructions.summary_instructions(out) == 10_521_495_779


def test_an_output_without_a_summary_is_refused() -> None:
    with pytest.raises(ValueError, match="summary"):
        instructions.summary_instructions("events: Ir\n")


def test_the_start_cancels_out_of_the_difference() -> None:
    assert instructions.per_request(4_823_175_228, 10_521_495_779, 20_000) == pytest.approx(284_916.03)


def test_without_valgrind_it_says_so_in_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr(instructions.shutil, "which", lambda name: None)
    assert instructions.main([]) == 2
    assert capsys.readouterr().err.count("\n") == 1
