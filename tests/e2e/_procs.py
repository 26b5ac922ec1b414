"""Helpers for the end-to-end tests: run `nsconform` as a real process, and a served look-alike cluster.

Every process gets a timeout and is killed in a `finally`; waits poll a condition with a deadline.
"""
from __future__ import annotations

import base64
import os
import queue
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import requests
import yaml

_SCRIPT = Path(sys.executable).with_name("nsconform")  # the console script users run
NSCONFORM = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "conformance.cli"]
MANAGED = "app.kubernetes.io/managed-by=nsconform"


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("NSCONFORM_TOKEN", "KUBECONFIG")}
    e["PYTHONUNBUFFERED"] = "1"
    return e


def run(args: Sequence[str], *, cwd: Path, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """`nsconform ARGS` to completion (killed after `timeout`)."""
    return subprocess.run([*NSCONFORM, *args], cwd=cwd, env=env(), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def start(args: Sequence[str], *, cwd: Path, **kw: Any) -> subprocess.Popen[str]:
    """`nsconform ARGS` in the background, in its own session, SIGINT at its default (not ignored)."""
    return subprocess.Popen([*NSCONFORM, *args], cwd=cwd, env=env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                            start_new_session=True, preexec_fn=_default_sigint, **kw)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def stop(proc: subprocess.Popen[str], timeout: float = 10.0) -> None:
    """Kill `proc` if it still runs and reap it (for `finally`)."""
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:  # pragma: no cover - a killed process is reaped at once
        pass


def poll(condition: Callable[[], Any], *, timeout: float, interval: float = 0.05, what: str = "condition") -> Any:
    """Return the first truthy value of `condition()` before `timeout`, else fail saying `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)  # between polls of a condition that has a deadline


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def no_traceback(text: str) -> None:
    assert "Traceback" not in text, text


class LineReader:
    """Collects a pipe's lines on a thread so a test can wait for one with a deadline."""

    def __init__(self, pipe: Any) -> None:
        self.lines: list[str] = []
        self._q: queue.Queue[str | None] = queue.Queue()
        self._t = threading.Thread(target=self._pump, args=(pipe,), daemon=True)
        self._t.start()

    def _pump(self, pipe: Any) -> None:
        for line in iter(pipe.readline, ""):
            self._q.put(line)
        self._q.put(None)

    def wait_for(self, needle: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            for line in self.lines:
                if needle in line:
                    return line
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no line containing {needle!r} within {timeout} s; got {self.lines!r}")
            try:
                line = self._q.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"stream ended before a line containing {needle!r}; got {self.lines!r}")
            self.lines.append(line)

    def rest(self, timeout: float = 5.0) -> str:
        self._t.join(timeout)
        while True:
            try:
                line = self._q.get_nowait()
            except queue.Empty:
                break
            if line is not None:
                self.lines.append(line)
        return "".join(self.lines)


class Served:
    """`nsconform serve --port 0 --tls --token T --authorization rbac --write-kubeconfig DIR/kc.yaml`."""

    def __init__(self, workdir: Path, *extra: str) -> None:
        self.dir = workdir
        self.token = "e2e-" + secrets.token_hex(16)
        self.kubeconfig = workdir / "kc.yaml"
        self.started = time.monotonic()
        self.proc = start(["serve", "--port", "0", "--tls", "--token", self.token, "--authorization", "rbac",
                           "--write-kubeconfig", str(self.kubeconfig), *extra], cwd=workdir)
        self.out = LineReader(self.proc.stdout)
        self.err = LineReader(self.proc.stderr)
        try:
            line = self.out.wait_for("listening on", timeout=15)
            self.url = line.rsplit(" ", 1)[-1].strip()
            self.out.wait_for("kubeconfig written", timeout=15)
            cfg = yaml.safe_load(self.kubeconfig.read_text())
            self.ca_file = workdir / "ca.crt"
            self.ca_file.write_bytes(base64.b64decode(cfg["clusters"][0]["cluster"]["certificate-authority-data"]))
            self.http = requests.Session()
            self.http.trust_env = False  # else $REQUESTS_CA_BUNDLE overrides verify=<the kubeconfig CA>
            self.http.verify = str(self.ca_file)
            self.http.headers["Authorization"] = f"Bearer {self.token}"
        except BaseException:
            self.close()
            raise

    def get(self, path: str, **kw: Any) -> requests.Response:
        return self.http.get(self.url + path, timeout=10, **kw)

    def managed(self) -> list[dict[str, Any]]:
        """Namespaces labelled managed-by=nsconform, asked over HTTPS with the token and the kubeconfig's CA."""
        resp = self.get("/api/v1/namespaces", params={"labelSelector": MANAGED})
        assert resp.status_code == 200, resp.text
        return resp.json()["items"]

    def managed_names(self) -> list[str]:
        return [n["metadata"]["name"] for n in self.managed()]

    def close(self) -> int | None:
        """SIGTERM, reap; kill if it does not stop. Returns the exit code."""
        try:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            stop(self.proc)
            http = getattr(self, "http", None)
            if http is not None:
                http.close()
        return self.proc.returncode
