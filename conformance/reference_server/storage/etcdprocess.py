"""Start and stop a private etcd (tests, and `nsconform serve --etcd-servers embedded`).

The binary: `$NSCONFORM_ETCD`, else `etcd` on PATH (Debian's `etcd-server` package, which `.ci/run` installs)."""
from __future__ import annotations

import ctypes
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import urllib3


class EtcdNotInstalled(RuntimeError):
    pass


def etcd_binary() -> str | None:
    return os.environ.get("NSCONFORM_ETCD") or shutil.which("etcd") or \
        (p if os.access(p := "/usr/bin/etcd", os.X_OK) else None)


def _die_with_parent() -> None:
    """In the child: SIGTERM when the process that started etcd dies (even by kill -9), so no etcd outlives it."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


@dataclass(frozen=True)
class EtcdTLS:
    """Certificates of a TLS etcd with client-certificate authentication (`--client-cert-auth`), as kubeadm
    runs it: etcd serves `cert_file`/`key_file` and trusts clients signed by `ca_file`; `client_cert_file`/
    `client_key_file` are what this process itself checks readiness with."""
    ca_file: str
    cert_file: str
    key_file: str
    client_cert_file: str
    client_key_file: str


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EtcdProcess:
    """One single-member etcd on free loopback ports; `url` is its client URL. `stop()` is idempotent."""

    def __init__(self, data_dir: str | None = None, *, fsync: bool = False, timeout: float = 20.0,
                 tls: EtcdTLS | None = None):
        binary = etcd_binary()
        if binary is None:
            raise EtcdNotInstalled("etcd is not installed (apt-get install etcd-server, or set NSCONFORM_ETCD)")
        self._tmp = None if data_dir else tempfile.mkdtemp(prefix="nsconform-etcd-")
        self.data_dir = data_dir or os.path.join(self._tmp, "data")  # type: ignore[arg-type]
        Path(self.data_dir).parent.mkdir(parents=True, exist_ok=True)
        # etcd waits silently for the lock of a data dir another etcd has open: say so at once instead
        self._lock = open(self.data_dir.rstrip("/") + ".lock", "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            raise RuntimeError(f"etcd data dir {self.data_dir} is in use by another process") from None
        last = ""
        for _ in range(3):  # a port taken between choosing and binding: try others
            client, peer = _free_port(), _free_port()
            self.url = f"{'https' if tls else 'http'}://127.0.0.1:{client}"
            peer_url = f"http://127.0.0.1:{peer}"
            args = [binary, "--name", "nsconform", "--data-dir", self.data_dir,
                    "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
                    "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
                    "--initial-cluster", f"nsconform={peer_url}", "--log-level", "error"]
            if tls:
                args += ["--cert-file", tls.cert_file, "--key-file", tls.key_file,
                         "--trusted-ca-file", tls.ca_file, "--client-cert-auth"]
            if not fsync:
                args.append("--unsafe-no-fsync")
            self._log = tempfile.TemporaryFile()
            self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
            if self._wait_ready(timeout, tls):
                return
            self._log.seek(0)
            last = self._log.read().decode(errors="replace")[-500:]
            self._kill()
            if "address already in use" not in last:
                break
        self._lock.close()
        raise RuntimeError(f"etcd did not start: {last.strip() or 'no answer on ' + self.url}")

    def _wait_ready(self, timeout: float, tls: EtcdTLS | None) -> bool:
        http = urllib3.PoolManager(retries=False) if tls is None else urllib3.PoolManager(
            retries=False, ca_certs=tls.ca_file, cert_file=tls.client_cert_file, key_file=tls.client_key_file)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                r = http.request("GET", self.url + "/health", timeout=1.0)
                if r.status == 200 and b"true" in r.data:
                    return True
            except urllib3.exceptions.HTTPError:
                pass
            time.sleep(0.05)
        return False

    def stop(self) -> None:
        self._kill()
        if not self._lock.closed:
            self._lock.close()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def _kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> "EtcdProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
