"""Shared fixtures: one embedded server per session, namespace factory, watch reader."""
from __future__ import annotations

import http.client as httpclient
import json
import queue
import socket
import urllib.parse
import threading
import uuid
from typing import Any, Callable, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer, start_embedded

from conformance.reference_server.storage.backends import StorageConfig

from .backends import BACKENDS, unique_prefix
from .backends import backend, etcd_process, make_store, pair, storage_config  # noqa: F401 - fixtures


@pytest.fixture(scope="session", params=BACKENDS)
def server(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """The server's layers alone (flavors/ has its own tests), on each storage backend in turn."""
    storage = None
    if request.param == "etcd":
        storage = StorageConfig("etcd", (request.getfixturevalue("etcd_process").url,), unique_prefix())
    srv = start_embedded(flavor="bare", storage=storage)
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def url(server: RunningServer) -> str:
    return server.url


@pytest.fixture(scope="session")
def http() -> Iterator[requests.Session]:
    s = requests.Session()
    yield s
    s.close()


def unique(base: str = "t") -> str:
    return f"{base}-{uuid.uuid4().hex[:8]}"


def force_remove(http: requests.Session, url: str, name: str) -> None:
    """Clear every finalizer and delete, so a test never leaves a namespace behind."""
    r = http.get(f"{url}/api/v1/namespaces/{name}")
    if r.status_code == 404:
        return
    for cm_list in http.get(f"{url}/api/v1/namespaces/{name}/configmaps").json().get("items", []):
        if cm_list["metadata"].get("finalizers"):
            http.patch(f"{url}/api/v1/namespaces/{name}/configmaps/{cm_list['metadata']['name']}",
                       data=json.dumps({"metadata": {"finalizers": None}}),
                       headers={"Content-Type": "application/merge-patch+json"})
    ns = http.get(f"{url}/api/v1/namespaces/{name}").json()
    if ns.get("metadata", {}).get("finalizers"):
        http.patch(f"{url}/api/v1/namespaces/{name}", data=json.dumps({"metadata": {"finalizers": None}}),
                   headers={"Content-Type": "application/merge-patch+json"})
    http.delete(f"{url}/api/v1/namespaces/{name}")
    ns = http.get(f"{url}/api/v1/namespaces/{name}").json()
    if ns.get("kind") == "Namespace":
        ns["spec"]["finalizers"] = []
        http.put(f"{url}/api/v1/namespaces/{name}/finalize", json=ns)


class NamespaceFactory:
    def __init__(self, http: requests.Session, url: str):
        self.http, self.url, self.names = http, url, []

    def name(self, base: str = "t") -> str:
        n = unique(base)
        self.names.append(n)
        return n

    def create(self, base: str = "t", **extra: Any) -> dict:
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.name(base)}}
        for k, v in extra.items():
            if k == "finalizers":
                body["spec"] = {"finalizers": v}
            elif k == "labels":
                body["metadata"]["labels"] = v
            else:
                body[k] = v
        r = self.http.post(f"{self.url}/api/v1/namespaces", json=body)
        assert r.status_code == 201, r.text
        return r.json()

    def cleanup(self) -> None:
        for n in self.names:
            force_remove(self.http, self.url, n)


@pytest.fixture
def namespaces(http: requests.Session, url: str) -> Iterator[NamespaceFactory]:
    f = NamespaceFactory(http, url)
    yield f
    f.cleanup()


class WatchReader:
    """Reads a watch stream in a helper thread so tests can wait with a timeout (never sleep).

    Uses http.client so `close()` can shut the socket down and the reader thread ends at once.
    """

    def __init__(self, url: str, params: dict | None = None, headers: dict | None = None):
        params = dict(params or {})
        params.setdefault("timeoutSeconds", "20")
        if "/watch/" not in url:
            params.setdefault("watch", "1")
        u = urllib.parse.urlsplit(url)
        self.conn = httpclient.HTTPConnection(u.hostname, u.port, timeout=30)
        self.conn.request("GET", u.path + "?" + urllib.parse.urlencode(params), headers=headers or {})
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.headers = self.resp.headers  # case-insensitive, as every HTTP client reads them
        self.events: "queue.Queue[dict | None]" = queue.Queue()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            while True:
                line = self.resp.readline()
                if not line:
                    break
                if line.strip():
                    self.events.put(json.loads(line))
        except Exception:
            pass
        finally:
            self.events.put(None)

    def next(self, timeout: float = 10) -> dict | None:
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def until(self, pred: Callable[[dict], bool], timeout: float = 10, what: str = "") -> list[dict]:
        seen: list[dict] = []
        while True:
            ev = self.next(timeout)
            if ev is None:
                raise AssertionError(f"stream ended/timed out waiting for {what}; seen {[e['type'] for e in seen]}")
            seen.append(ev)
            if pred(ev):
                return seen

    def rest(self, timeout: float = 10) -> list[dict]:
        """Every remaining event until the stream ends."""
        out = []
        while (ev := self.next(timeout)) is not None:
            out.append(ev)
        return out

    def close(self) -> None:
        try:
            if self.conn.sock is not None:
                self.conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.conn.close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "WatchReader":
        return self

    def __exit__(self, *a: object) -> None:
        self.close()


@pytest.fixture
def watch() -> Iterator[Callable[..., WatchReader]]:
    opened: list[WatchReader] = []

    def open_(url: str, params: dict | None = None, headers: dict | None = None) -> WatchReader:
        w = WatchReader(url, params, headers)
        opened.append(w)
        return w

    yield open_
    for w in opened:
        w.close()


def wait_gone(http: requests.Session, url: str, name: str, timeout: float = 10) -> None:
    """Wait for a namespace to be removed, using a watch (no sleeping)."""
    r = http.get(f"{url}/api/v1/namespaces/{name}")
    if r.status_code == 404:
        return
    rv = r.json()["metadata"]["resourceVersion"]
    with WatchReader(f"{url}/api/v1/namespaces", {"fieldSelector": f"metadata.name={name}",
                                                   "resourceVersion": rv}) as w:
        if http.get(f"{url}/api/v1/namespaces/{name}").status_code == 404:
            return
        w.until(lambda e: e["type"] == "DELETED", timeout, f"namespace {name} gone")


def status_of(r: requests.Response) -> dict:
    body = r.json()
    assert body["kind"] == "Status" and body["apiVersion"] == "v1" and body["metadata"] == {}, body
    assert body["code"] == r.status_code
    return body


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The official client's kubeconfig loader writes each inline certificate to a temp file and removes them at
    interpreter exit, which an xdist worker never reaches: remove them when the session ends."""
    import sys
    kube_config = sys.modules.get("kubernetes.config.kube_config")
    if kube_config is not None:
        kube_config._cleanup_temp_files()
