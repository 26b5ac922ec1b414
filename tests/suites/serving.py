"""`nsconform serve` as a separate process, as a user starts it beside a run: one helper for the suite tests
that need a server of their own (etcd-backed ones)."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

CHILD_ENV = {**{k: v for k, v in os.environ.items() if k not in ("NSCONFORM_TOKEN", "KUBECONFIG")},
             "PYTHONUNBUFFERED": "1"}
"""The environment of `serve` and `run` children: no credentials of the caller's own."""


@contextlib.contextmanager
def serving(tmp_path: Path, *serve_args: str) -> Iterator[str]:
    """Start `nsconform serve --port 0 <serve_args>`, yield its URL once it listens, stop it (SIGTERM, then
    kill) whatever happens."""
    log = tmp_path / "serve.log"
    serve = subprocess.Popen([sys.executable, "-m", "conformance.cli", "serve", "--port", "0", *serve_args],
                             cwd=tmp_path, env=CHILD_ENV, stdout=log.open("w"), stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
    try:
        yield _listening(serve, log)
    finally:
        if serve.poll() is None:
            serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(20)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait()


def _listening(serve: subprocess.Popen, log: Path, timeout: float = 60.0) -> str:
    """The URL `serve` prints once it listens; fails with its output when it exits or hangs first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in log.read_text().splitlines():
            if "listening on" in line:
                return line.rsplit(" ", 1)[-1].strip()
        if serve.poll() is not None:
            break
        time.sleep(0.05)
    pytest.fail(f"nsconform serve did not start: {log.read_text()[-2000:]}")
