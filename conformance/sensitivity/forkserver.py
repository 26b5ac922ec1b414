"""Start the runs' pytest processes by forking one warm Python instead of starting Python afresh each time.

Once other plugins are blocked and bytecode is cached (runner.child_env), half of a selected-clause run's
CPU was still importing pytest, aiohttp, requests, cryptography... The fork server is one process that
imports those once (never `conformance` itself, so pytest still assertion-rewrites the harness in each run,
exactly as under `python -m pytest`), then forks a child per run: a new session (its own process group,
so a timeout kills it and any xdist workers), stdin from /dev/null, stdout+stderr to a file, then
pytest's console entry point with the run's arguments. Each run is still its own process with its own
embedded server; nothing is shared but the imported modules.

POSIX only; anything going wrong with the server (no fork, it died) makes the runner fall back to one
`python -m pytest` subprocess per run.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Mapping, Sequence

__all__ = ["ForkServer", "ForkServerError", "PRELOAD"]

PRELOAD = ("pytest", "_pytest.python", "_pytest.main", "_pytest.terminal", "_pytest.junitxml", "_pytest.fixtures",
           "_pytest.assertion.rewrite", "_pytest.capture", "_pytest.logging", "_pytest.skipping", "_pytest.unittest",
           "aiohttp", "aiohttp.web", "requests", "urllib3", "yaml", "cryptography.x509", "google.protobuf.message",
           "google.protobuf.descriptor_pb2", "asyncio", "concurrent.futures", "email.utils", "pygments.lexers",
           "platform", "unittest.mock", "pprint", "shlex")
"""Modules the server imports once. Not `conformance` (it must be imported under pytest's rewrite hook),
nor any pytest plugin's package (pytest would warn that it cannot rewrite it)."""


class ForkServerError(RuntimeError):
    """The fork server is not available (not started, or gone)."""


# ------------------------------------------------------------------------------------------- server side
# Runs in the fork server process, from source (`python -c`): importing this module there would import
# the `conformance` package before pytest could mark it for rewriting.
SERVER_SOURCE = r'''# nsconform fork server: each child is one sensitivity/specificity run (python -m pytest ...)
import json, os, select, signal, sys, traceback

def _preload(names):
    import importlib
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:
            pass

def _child(argv, output, cwd, keep_closed):
    try:
        for fd in keep_closed:
            os.close(fd)
        os.chdir(cwd)  # pytest finds its rootdir and ini file from there, as under subprocess.run
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(null)
        os.close(out)
        import pytest, pytest.__main__
        try:  # what `python -m pytest` calls
            from _pytest.config import _console_main as entry
        except ImportError:
            entry = pytest.console_main
        sys.argv = [pytest.__main__.__file__, *argv]
        code = entry()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 3
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(int(code) & 0xFF)

def main():
    _preload(json.loads(sys.argv[1]))
    reply = os.fdopen(os.dup(1), "w", buffering=1)
    rfd, wfd = os.pipe()
    os.set_blocking(wfd, False)
    signal.set_wakeup_fd(wfd)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    running, buf = {}, b""

    def interrupt(*_):  # Ctrl-C: the runs (each in its own session) stop as pytest does on Ctrl-C
        for pid in list(running):
            try:
                os.killpg(pid, signal.SIGINT)
            except OSError:
                pass

    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, lambda *_: (interrupt(), sys.exit(1)))
    reply.write(json.dumps({"ready": os.getpid()}) + "\n")
    while True:
        try:
            ready, _, _ = select.select([0, rfd], [], [], 1.0)
        except InterruptedError:
            continue
        if rfd in ready:
            os.read(rfd, 4096)
        if 0 in ready:
            data = os.read(0, 65536)
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                req = json.loads(line)
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    _child(req["argv"], req["output"], req["cwd"], (rfd, wfd, reply.fileno()))
                running[pid] = req["id"]
                reply.write(json.dumps({"id": req["id"], "pid": pid}) + "\n")
        while running:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            rid = running.pop(pid, None)
            if rid is not None:
                reply.write(json.dumps({"id": rid, "rc": os.waitstatus_to_exitcode(status)}) + "\n")
    for pid in running:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass

main()
'''


# ------------------------------------------------------------------------------------------- client side
class _Pending:
    def __init__(self) -> None:
        self.pid: int | None = None
        self.rc: int | None = None
        self.started = threading.Event()
        self.done = threading.Event()


class ForkServer:
    """One fork server process; `run()` may be called from several threads at once."""

    def __init__(self, env: Mapping[str, str], preload: Sequence[str] = PRELOAD) -> None:
        if not hasattr(os, "fork"):
            raise ForkServerError("no fork on this platform")
        self._lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._next = 0
        self._dead = False
        self._proc = subprocess.Popen([sys.executable, "-c", SERVER_SOURCE, json.dumps(list(preload))],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(env))
        assert self._proc.stdout is not None
        first = self._proc.stdout.readline()
        if not first.startswith(b'{"ready"'):
            self.close()
            raise ForkServerError(f"fork server did not start: {first[:200]!r}")
        self._reader = threading.Thread(target=self._read, name="nsconform-forkserver", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                msg: dict[str, Any] = json.loads(line)
            except ValueError:
                continue
            with self._lock:
                p = self._pending.get(msg.get("id", -1))
            if p is None:
                continue
            if "pid" in msg:
                p.pid = int(msg["pid"])
                p.started.set()
            if "rc" in msg:
                p.rc = int(msg["rc"])
                p.started.set()
                p.done.set()
        with self._lock:  # the server is gone: nothing pending will finish
            self._dead = True
            for p in self._pending.values():
                p.started.set()
                p.done.set()

    @property
    def alive(self) -> bool:
        return not self._dead and self._proc.poll() is None

    def run(self, argv: Sequence[str], output: Path, timeout: float) -> int | None:
        """pytest `argv` in a forked child, its output to `output`; its exit status, or None after `timeout`
        seconds (the child's whole process group killed). ForkServerError when the server is gone."""
        with self._lock:
            if self._dead:
                raise ForkServerError("fork server is gone")
            rid = self._next
            self._next += 1
            p = self._pending[rid] = _Pending()
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write(json.dumps({"id": rid, "argv": list(argv), "output": str(output),
                                                        "cwd": os.getcwd()}).encode()
                                       + b"\n")
                self._proc.stdin.flush()
            except OSError as exc:
                del self._pending[rid]
                raise ForkServerError(f"fork server is gone: {exc}") from None
        try:
            finished = p.done.wait(timeout)
            if not finished and p.started.wait(5) and p.pid:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                p.done.wait(10)
            if p.rc is None and (finished or not p.pid):
                raise ForkServerError("fork server is gone")
            return p.rc if finished else None
        finally:
            with self._lock:
                self._pending.pop(rid, None)

    def close(self) -> None:
        try:
            if self._proc.stdin is not None:
                self._proc.stdin.close()
        except OSError:
            pass
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
