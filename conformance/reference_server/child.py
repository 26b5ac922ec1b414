"""The embedded reference server in a child process, so a run's client and server do not share one GIL.

In a thread of the pytest process, every request costs the client's CPU and the server's one after the
other (about 1 ms each); in a child process they use two cores. The child lives exactly as long as the
pipe on its stdin: it ignores SIGINT and SIGTERM (so a Ctrl-C'd run's teardown still finds its server)
and stops when the parent closes the pipe or dies (the kernel closes it), whatever killed the parent.

The plugin's default where a second core is free to run it (two or more usable CPUs, no xdist):
`NSCONFORM_EMBEDDED_PROCESS=1`/`0` forces it on or off. On a machine with no idle core (load 7-11 on two
cores) it was slower than the thread (every request then wakes another process); on a quiet one it is faster
(benchmarks/README.md, "Embedded server in a child process" and "sixth pass").

Parent side: `start_child(...)` returns a `ChildServer` with `RunningServer`'s `url`, `token`, `ca_file`,
`profile`, `flavor` and an idempotent `stop()`. Child side: `python -m conformance.reference_server.child
'<json options>'` prints one JSON line (where it listens, or the error) and waits for EOF on stdin.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from typing import Any, Iterable

__all__ = ["ChildServer", "start_child"]

_START_TIMEOUT = 60.0


class ChildServer:
    """Handle on a server running in a child process; `stop()` is idempotent."""

    def __init__(self, proc: subprocess.Popen[bytes], info: dict[str, Any]):
        self._proc = proc
        self._lock = threading.Lock()
        self.url: str = info["url"]
        self.token: str | None = info.get("token")
        self.ca_file: str | None = info.get("ca_file")
        self.profile: str = info["profile"]
        self.flavor: str = info["flavor"]
        self.pid: int = proc.pid

    def stop(self) -> None:
        with self._lock:
            if self._proc.poll() is not None:
                return
            try:
                if self._proc.stdin is not None:
                    self._proc.stdin.close()  # EOF: the child stops its server and exits
                self._proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            finally:
                if self._proc.stdout is not None:
                    self._proc.stdout.close()

    def __enter__(self) -> "ChildServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_child(*, profile: str = "kubernetes", deviations: Iterable[str] = (), authorization: str = "always-allow",
                flavor: str | None = None, feature_gates: Iterable[str] = ()) -> ChildServer:
    """Start the reference server in a child process; returns once it listens.

    Raises ValueError for options the server refuses (unknown deviation, flavour...), ImportError when its
    dependencies are missing, OSError when the child cannot start or dies before it listens."""
    options = {"profile": profile, "deviations": list(deviations), "authorization": authorization,
               "flavor": flavor, "feature_gates": list(feature_gates)}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)  # the same `conformance` as the parent's, whatever its cwd and sys.path
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    proc = subprocess.Popen([sys.executable, "-m", __name__, json.dumps(options)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    line = _read_line(proc)
    try:
        info = json.loads(line) if line else {}
    except ValueError:
        info = {}
    if "url" not in info:
        _reap(proc)
        error = info.get("error") or f"the server process exited ({proc.returncode}) before it listened"
        if info.get("kind") == "ValueError":
            raise ValueError(error)
        if info.get("kind") in ("ImportError", "ModuleNotFoundError"):
            raise ImportError(error)
        raise OSError(error)
    return ChildServer(proc, info)


def _read_line(proc: subprocess.Popen[bytes]) -> str:
    box: list[bytes] = []
    reader = threading.Thread(target=lambda: box.append(proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(_START_TIMEOUT)
    return box[0].decode("utf-8", "replace").strip() if box else ""


def _reap(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()


# ------------------------------------------------------------------------------------------------ child side
def _main(argv: list[str]) -> int:
    for sig in (signal.SIGINT, signal.SIGTERM):  # the parent decides when we end (EOF on stdin)
        signal.signal(sig, signal.SIG_IGN)
    out = sys.stdout
    try:
        options = json.loads(argv[0])
        from .embedded import start_embedded

        kwargs = {"profile": options["profile"], "deviations": tuple(options["deviations"]),
                  "authorization": options["authorization"], "feature_gates": tuple(options["feature_gates"])}
        if options.get("flavor"):
            kwargs["flavor"] = options["flavor"]
        server = start_embedded(**kwargs)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, one line
        out.write(json.dumps({"error": str(exc), "kind": type(exc).__name__}) + "\n")
        out.flush()
        return 1
    out.write(json.dumps({"url": server.url, "token": server.token, "ca_file": server.ca_file,
                          "profile": server.profile, "flavor": server.flavor}) + "\n")
    out.flush()
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # nobody reads the pipe any more: a full one must not block the server
    os.close(null)
    try:
        while os.read(0, 4096):  # until EOF: the parent closed the pipe or died
            pass
    except OSError:
        pass
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
