"""reference_server/child.py: the embedded server in a child process lives exactly as long as its parent's pipe."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import requests

from conformance.reference_server.child import start_child
from conformance.target import resolve_target


def _gone(pid: int, within: float = 15.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if _zombie(pid):  # exited; reaping is its parent's business (or a container's init's)
            return True
        try:  # our own child: reap it, or it stays a zombie
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            pass
        time.sleep(0.05)
    return False


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def test_serves_its_options_survives_signals_and_stops_idempotently():
    srv = start_child(flavor="kind", deviations=["no-default-finalizer"], authorization="rbac")
    try:
        assert srv.flavor == "kind" and srv.token
        headers = {"Authorization": f"Bearer {srv.token}"}
        assert requests.get(f"{srv.url}/version", headers=headers, timeout=10).json()["gitVersion"]
        created = requests.post(f"{srv.url}/api/v1/namespaces", headers=headers, timeout=10,
                                json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "child-dev"}})
        assert created.status_code == 201, created.text
        assert not (created.json().get("spec") or {}).get("finalizers")  # the deviation is honoured
        os.kill(srv.pid, signal.SIGINT)  # a Ctrl-C reaches the whole group: the teardown still needs the server
        os.kill(srv.pid, signal.SIGTERM)
        time.sleep(0.2)
        assert requests.get(f"{srv.url}/version", headers=headers, timeout=10).status_code == 200
    finally:
        srv.stop()
    srv.stop()
    assert _gone(srv.pid)
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{srv.url}/version", timeout=2)


def test_refused_options_are_value_errors():
    with pytest.raises(ValueError, match="unknown deviation"):
        start_child(deviations=["nope"])
    with pytest.raises(ValueError):
        start_child(flavor="nope")


def test_dies_with_its_parent(tmp_path):
    """A parent killed with SIGKILL (no cleanup runs) takes its server with it: the pipe closes."""
    script = ("import json, sys, time\n"
              "from conformance.reference_server.child import start_child\n"
              "s = start_child()\n"
              "print(json.dumps({'pid': s.pid, 'url': s.url}), flush=True)\n"
              "time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        info = json.loads(parent.stdout.readline())  # type: ignore[union-attr]
        assert requests.get(f"{info['url']}/version", timeout=10).status_code == 200
        parent.kill()
        parent.wait()
        assert _gone(info["pid"])
    finally:
        if parent.poll() is None:
            parent.kill()
        parent.stdout.close()  # type: ignore[union-attr]


def test_the_plugins_target_runs_in_a_child_process():
    t = resolve_target(flavor="managed", preflight=False, process=True)
    pid = t.server.pid
    try:
        assert t.kind == "embedded" and t.server.flavor == "managed" and pid != os.getpid()
        assert t.version["gitVersion"]
    finally:
        t.stop()
    assert _gone(pid)
