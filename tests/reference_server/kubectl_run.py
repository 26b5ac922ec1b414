"""kubectl 1.33 against a test server (tests/tools/kubectl.py fetches it), or the test skipped with the reason."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # so ``tests.tools`` imports however pytest was started
    sys.path.insert(0, str(ROOT))

from tests.tools import kubectl as kubectl_tool


def run_kubectl(url: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`kubectl --server <url> <args>` with an empty HOME (no kubeconfig or cache leaks in)."""
    path = kubectl_tool.get_kubectl()
    if path is None:
        pytest.skip(f"kubectl 1.33 unavailable: {kubectl_tool.LAST_ERROR}")
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return subprocess.run([str(path), "--server", url, *args], capture_output=True, text=True, timeout=120, env=env,
                          check=False)


_KLOG_LINE = re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+ +\d+ [\w.-]+:\d+\] .*\n?", re.M)


def without_klog(stderr: str) -> str:
    """kubectl's stderr without client-go's own klog lines (`E1125 02:44:13.823093   20286 websocket.go:297] ...`):
    diagnostics of the client's internals, whose presence is timing (client-go's WebSocket reader may meet the
    server's first, empty stdout message before it has registered that stream: `Unknown stream id 1`)."""
    return _KLOG_LINE.sub("", stderr)
