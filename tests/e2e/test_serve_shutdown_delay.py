"""`nsconform serve --shutdown-delay-duration`: after SIGTERM the server keeps serving for the delay while
`/readyz` fails on its `shutdown` check (genericapiserver.go: `ShutdownInitiated`, then the delay before the
listener stops), `/livez` staying `ok`; then it stops with exit 0."""
from __future__ import annotations

import signal

import requests

from . import _procs

DELAY_S = 5


def test_readyz_fails_during_the_shutdown_delay(tmp_path):
    proc = _procs.start(["serve", "--port", "0", "--shutdown-delay-duration", f"{DELAY_S}s"], cwd=tmp_path)
    try:
        out = _procs.LineReader(proc.stdout)
        url = out.wait_for("listening on", timeout=60).rsplit(" ", 1)[-1].strip()  # 60 s: a hang only
        with requests.Session() as http:
            http.trust_env = False
            assert _procs.poll(lambda: _ok(http.get(f"{url}/readyz", timeout=5)), timeout=10, interval=0.02,
                               what="readyz ok").text == "ok"
            proc.send_signal(signal.SIGTERM)
            failing = _procs.poll(lambda: _failing(http.get(f"{url}/readyz?verbose", timeout=5)),
                                  timeout=30, interval=0.02, what="readyz failing")  # (the signal may wait)
            assert failing.endswith("[-]shutdown failed: reason withheld\nreadyz check failed\n")
            assert http.get(f"{url}/livez", timeout=5).text == "ok"  # still serving, and alive
        assert proc.wait(timeout=60) == 0
        assert "stopped" in out.rest()
    finally:
        _procs.stop(proc)


def _ok(r: requests.Response) -> requests.Response | None:
    return r if r.status_code == 200 else None


def _failing(r: requests.Response) -> str | None:
    return r.text if r.status_code == 500 else None  # (a 500 Response is falsy)
