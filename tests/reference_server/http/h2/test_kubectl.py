"""kubectl 1.33 against `serve --tls --token`: offered `h2` by ALPN, it speaks HTTP/2 for every call (client-go
prefers it), and the server's own count of HTTP/2 streams shows it."""
from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.reference_server.http.h2 import counts

from ...test_real_clients import Kube, kube, names, serve_kube  # noqa: F401 - kube, names: fixtures


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "h2-kubectl", flavor="bare")


def _watches(kube: Kube) -> float:
    text = kube.get("/metrics").text
    return sum(float(ln.rsplit(" ", 1)[1]) for ln in text.splitlines()
               if ln.startswith("apiserver_longrunning_requests{") and 'resource="namespaces"' in ln)


def _h2(fn: Any) -> tuple[Any, int]:
    """`fn()`'s result and the HTTP/2 streams the server served meanwhile."""
    before = counts["streams"]
    out = fn()
    return out, counts["streams"] - before


def test_get_and_apply_over_h2(kube: Kube, names: Any, tmp_path: Path) -> None:
    out, streams = _h2(lambda: kube.ok("get", "ns", "default", "-o", "name"))
    assert out == "namespace/default\n" and streams >= 1
    ns = names("h2apply")
    manifest = tmp_path / "ns.yaml"
    manifest.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))
    out, streams = _h2(lambda: kube.ok("apply", "-f", str(manifest)))
    assert out == f"namespace/{ns} created\n" and streams >= 2  # (discovery, OpenAPI, GET, POST)
    assert kube.ns(ns)["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    out, streams = _h2(lambda: kube.ok("delete", "ns", ns, "--wait", "--timeout=60s"))
    assert out == f'namespace "{ns}" deleted\n' and streams >= 2  # the DELETE, then the wait's GET/watch
    assert kube.get(f"/api/v1/namespaces/{ns}").status_code == 404


def test_get_watch_receives_an_event_and_is_stopped(kube: Kube, names: Any) -> None:
    ns = names("h2watch")
    kube.ok("create", "ns", ns)
    base = _watches(kube)
    before = counts["streams"]
    watcher = kube.popen("get", "ns", ns, "-w", "--output-watch-events", "-v=6")
    try:
        watcher.until_watching()
        assert counts["streams"] - before >= 1
        assert _watches(kube) == base + 1
        kube.ok("label", "ns", ns, "seen=yes")
        assert watcher.proc.stdout is not None
        lines = []
        while len(lines) < 3:  # the header, ADDED, then our MODIFIED
            line = watcher.proc.stdout.readline()
            assert line, "kubectl ended early"
            lines.append(line.split())
        assert [ln[:3] for ln in lines[1:]] == [["ADDED", ns, "Active"], ["MODIFIED", ns, "Active"]]
        watcher.proc.send_signal(signal.SIGINT)  # a user's Ctrl-C: the connection closes, the watch ends
        watcher.proc.wait(timeout=30)
    finally:
        watcher.stop()
    deadline = time.monotonic() + 10
    while _watches(kube) != base:
        assert time.monotonic() < deadline, "the watch was still served after kubectl stopped"
        time.sleep(0.05)
