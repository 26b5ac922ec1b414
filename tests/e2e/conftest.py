"""A served look-alike cluster per module, and one clean embedded run per worker."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from . import _procs


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_procs.Served]:
    srv = _procs.Served(tmp_path_factory.mktemp("served"))
    try:
        yield srv
    finally:
        srv.close()


@pytest.fixture(scope="session")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`nsconform run` on the embedded server: the run dir of a run where every clause passes."""
    work = tmp_path_factory.mktemp("clean")
    # a whole suite run: its timeout bounds a hang only (600 s, as the suite tests'), the 120 s default ran out
    # on a loaded machine and errored every test that compares against this run
    res = _procs.run(["run", "--reports", str(work / "r"), "--run-id", "emb"], cwd=work, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return work / "r" / "emb"
