"""How long the reference server's event loop works without a break, measured in the loop thread's CPU
time (so a loaded CI machine does not inflate it, as it would a wall-clock /readyz probe).

Garbage collection is left out: the embedded server shares the test process's heap (pytest, Hypothesis,
schemathesis: millions of objects), and a full collection that happens to start in the loop thread costs it
a few hundred ms of CPU the server's own work did not cause (CI saw 312 ms once in the fuzz test)."""
from __future__ import annotations

import asyncio
import gc
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
        self._loop_thread: int | None = None
        self._gc_started = 0.0
        self._gc_spent = 0.0  # loop-thread CPU spent in garbage collection since the last tick

    def _on_gc(self, phase: str, _info: dict) -> None:
        if threading.get_ident() != self._loop_thread:
            return
        if phase == "start":
            self._gc_started = time.thread_time()
        else:
            self._gc_spent += time.thread_time() - self._gc_started

    async def _tick(self) -> None:
        self._loop_thread = threading.get_ident()
        last = time.thread_time()
        while not self._stopped.is_set():
            await asyncio.sleep(0.005)
            now = time.thread_time()
            spent, self._gc_spent = self._gc_spent, 0.0
            self.worst = max(self.worst, now - last - spent)
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
        gc.callbacks.append(self._on_gc)
        self._future = asyncio.run_coroutine_threadsafe(self._tick(), self._loop)
        if self._probe is not None:
            self._probe.start()
        return self

    def __exit__(self, *a: object) -> None:
        self._stopped.set()
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)
        if self._future is not None:
            self._future.result(timeout=10)
        if self._probe is not None:
            self._probe.join(timeout=35)

    def check(self, budget: float = LOOP_BUDGET_S) -> None:
        assert not self.failures, self.failures[:5]
        assert self.worst < budget, f"the event loop worked {self.worst * 1000:.0f} ms without a break"
