"""`nsconform serve --storage etcd` replicas as child processes on one private etcd, for the fault tests:
start, kill -9, read what each one said (its URL, its leader-election identity); and `hold`, which keeps an
in-process replica's watch cache behind etcd (a stale view, on purpose)."""
from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Callable

import requests

# Short leases so failover takes ~2 s (kube-controller-manager's defaults are 15 s / 10 s / 2 s).
SHORT_LEASE = ("--leader-elect-lease-duration", "2s", "--leader-elect-renew-deadline", "1s",
               "--leader-elect-retry-period", "200ms")
START_TIMEOUT = 60.0
LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager"


class Replica:
    """One server process; `url` and `identity` once `ready()` returned."""

    def __init__(self, etcd_urls: list[str], prefix: str, *extra: str):
        args = [sys.executable, "-c", "import sys; from conformance.reference_server.serve import main; "
                "sys.exit(main(sys.argv[1:]))", "--port", "0", "--flavor", "bare", "--storage", "etcd",
                "--etcd-servers", ",".join(etcd_urls), "--etcd-prefix", prefix, *SHORT_LEASE, *extra]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.said: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.url = self.identity = ""

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def ready(self, timeout: float = START_TIMEOUT) -> "Replica":
        end = time.monotonic() + timeout
        while not (self.url and self.identity):
            try:
                line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"replica not ready after {timeout:.0f}s; it said: {self.said}") from None
            if line is None:
                raise AssertionError(f"replica exited with {self.proc.wait()}; it said: {self.said}")
            self.said.append(line)
            if " listening on " in line:
                self.url = line.rsplit(" ", 1)[1]
            elif line.startswith("leader election: identity "):
                self.identity = line.split()[3]
        return self

    def output(self) -> list[str]:
        """Every line the process has said so far, its log lines since `ready()` included (for failure messages)."""
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return self.said
            if line is not None:
                self.said.append(line)

    def kill(self) -> None:
        """kill -9: no release of the Lease, no flush, nothing."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def start_replicas(n: int, etcd_urls: list[str], prefix: str) -> list[Replica]:
    """Start `n` at once (their imports overlap), return them once each is listening."""
    replicas = [Replica(etcd_urls, prefix) for _ in range(n)]
    try:
        return [r.ready() for r in replicas]
    except BaseException:
        for r in replicas:
            r.kill()
        raise


def until(fn: Callable[[], Any], what: str, timeout: float = 30.0, every: float = 0.05) -> Any:
    """Poll `fn` until it returns something truthy; AssertionError naming `what` and the last value."""
    end = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < end:
        last = fn()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}; last seen: {last!r}")


def hold(store: Any) -> threading.Event:
    """Hold an EtcdStore's watch cache (one replica's view): etcd's events wait in its reflector until the
    returned event is set, whatever other replicas write meanwhile."""
    release = threading.Event()
    apply, advance = store.cache.apply, store.cache.advance

    def held(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            release.wait(30)
            return fn(*args)
        return call
    store.cache.apply, store.cache.advance = held(apply), held(advance)
    return release


def lease_spec(http: requests.Session, url: str) -> dict[str, Any]:
    r = http.get(url + LEASE, timeout=10)
    return r.json().get("spec", {}) if r.status_code == 200 else {}


class EtcdCluster:
    """A 3-member etcd cluster on loopback (each member's data kept in `tmp` so a stopped one can rejoin)."""

    def __init__(self, tmp: str, size: int = 3):
        from conformance.reference_server.storage.etcdprocess import etcd_binary
        from conformance.reference_server.storage.etcdprocess import _free_port
        self.binary = etcd_binary()
        self.tmp = tmp
        self.names = [f"m{i}" for i in range(size)]
        self.client_urls = {n: f"http://127.0.0.1:{_free_port()}" for n in self.names}
        self.peer_urls = {n: f"http://127.0.0.1:{_free_port()}" for n in self.names}
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        for n in self.names:
            self.start(n)
        for n in self.names:
            until(lambda n=n: self.healthy(n), f"etcd member {n} healthy", timeout=30)

    @property
    def urls(self) -> list[str]:
        return [self.client_urls[n] for n in self.names]

    def start(self, name: str) -> None:
        cluster = ",".join(f"{n}={self.peer_urls[n]}" for n in self.names)
        self.procs[name] = subprocess.Popen(
            [str(self.binary), "--name", name, "--data-dir", os.path.join(self.tmp, name),
             "--listen-client-urls", self.client_urls[name], "--advertise-client-urls", self.client_urls[name],
             "--listen-peer-urls", self.peer_urls[name], "--initial-advertise-peer-urls", self.peer_urls[name],
             "--initial-cluster", cluster, "--initial-cluster-token", os.path.basename(self.tmp),
             "--initial-cluster-state", "new", "--log-level", "error",
             # short timeouts so a lost quorum is noticed in about a second, not etcd's default seconds
             "--heartbeat-interval", "50", "--election-timeout", "500"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)

    def stop(self, name: str) -> None:
        p = self.procs[name]
        if p.poll() is None:
            p.kill()
        p.wait(10)

    def healthy(self, name: str) -> bool:
        try:
            r = requests.get(self.client_urls[name] + "/health", timeout=2)
            return r.status_code == 200 and r.json().get("health") == "true"
        except (requests.RequestException, ValueError):
            return False

    def close(self) -> None:
        for n in self.names:
            self.stop(n)
