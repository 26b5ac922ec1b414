"""The KEP-33 suite's run lock: one holder at a time across processes, and no lock file left behind."""

from __future__ import annotations

import multiprocessing
import os
import secrets
import tempfile
import time

from conformance.suites.extensions._kep33 import serial


def _hold(run_id: str, log_path: str, n: int) -> None:
    for _ in range(n):
        with serial(run_id):
            with open(log_path, "a") as log:
                log.write(f"in {os.getpid()}\n")
                log.flush()
                deadline = time.monotonic() + 0.002
                while time.monotonic() < deadline:  # hold the lock a moment (busy: this is the point)
                    pass
                log.write(f"out {os.getpid()}\n")


def test_holders_never_overlap_and_the_file_goes(tmp_path):
    run_id = f"test-{secrets.token_hex(4)}"
    log_path = str(tmp_path / "log")
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_hold, args=(run_id, log_path, 30)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    lines = open(log_path).read().splitlines()
    assert len(lines) == 2 * 90
    pairs = list(zip(lines[0::2], lines[1::2]))  # each "in" is followed by the same holder's "out"
    assert all(a.split() == ["in", b.split()[1]] and b.startswith("out ") for a, b in pairs)
    assert not os.path.exists(os.path.join(tempfile.gettempdir(), f"nsconform-kep33-{run_id}.lock"))
