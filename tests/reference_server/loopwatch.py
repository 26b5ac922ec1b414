"""How long the reference server's event loop works without a break, measured in the loop thread's CPU
time (so a loaded CI machine does not inflate it, as it would a wall-clock /readyz probe)."""
from __future__ import annotations

import asyncio
import threading
import time

import requests

LOOP_BUDGET_S = 0.1  # issue 13: no single request blocks the event loop more than 100 ms


class LoopWatch:
    """A 5 ms ticker on the server's loop; `worst` is the most loop-thread CPU spent between two ticks.
    Alongside, a /readyz probe whose `failures` lists any refused or lost answer."""

    def __init__(self, srv, probe_readyz: bool = True):
        self._loop: asyncio.AbstractEventLoop = srv._loop
        self.url = srv.url
        self.worst = 0.0
        self.failures: list[str] = []
        self._stopped = threading.Event()
        self._future = None
        self._probe = threading.Thread(target=self._readyz, daemon=True) if probe_readyz else None

    async def _tick(self) -> None:
        last = time.thread_time()
        while not self._stopped.is_set():
            await asyncio.sleep(0.005)
            now = time.thread_time()
            self.worst = max(self.worst, now - last)
            last = now

    def _readyz(self) -> None:
        with requests.Session() as s:
            s.trust_env = False
            while not self._stopped.wait(0.05):
                try:
                    if s.get(f"{self.url}/readyz", timeout=30).status_code != 200:
                        self.failures.append("/readyz not 200")
                except requests.RequestException as exc:
                    self.failures.append(repr(exc))

    def __enter__(self) -> "LoopWatch":
        self._future = asyncio.run_coroutine_threadsafe(self._tick(), self._loop)
        if self._probe is not None:
            self._probe.start()
        return self

    def __exit__(self, *a: object) -> None:
        self._stopped.set()
        if self._future is not None:
            self._future.result(timeout=10)
        if self._probe is not None:
            self._probe.join(timeout=35)

    def check(self, budget: float = LOOP_BUDGET_S) -> None:
        assert not self.failures, self.failures[:5]
        assert self.worst < budget, f"the event loop worked {self.worst * 1000:.0f} ms without a break"
