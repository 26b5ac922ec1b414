"""health/etcdprobe.py: `newETCD3Check`'s probe: a range of `<prefix>/health`, its error wrapped as upstream's,
at most one read per half timeout (the limiter), a check in between answering the last result."""
from __future__ import annotations

import asyncio
import threading
from typing import Any

from conformance.reference_server.health.etcdprobe import EtcdProbe, store_probes
from conformance.reference_server.storage.memory import MemoryStore


class FakeClient:
    def __init__(self) -> None:
        self.keys: list[bytes] = []
        self.error: Exception | None = None
        self.threads: list[str] = []

    def get(self, key: bytes, **_: Any) -> None:
        self.keys.append(key)
        self.threads.append(threading.current_thread().name)
        if self.error is not None:
            raise self.error


def test_probe_reads_the_health_key_off_the_loop_and_is_rate_limited() -> None:
    client, now = FakeClient(), [100.0]
    probe = EtcdProbe(client, "/registry", clock=lambda: now[0])

    async def run() -> list[str | None]:
        out = [await probe()]
        client.error = ConnectionRefusedError("connection refused")
        out.append(await probe())  # within the second: the last result, no read
        now[0] += 1.0
        out.append(await probe())
        return out
    assert asyncio.run(run()) == [None, None, "error getting data from etcd: connection refused"]
    assert client.keys == [b"/registry/health", b"/registry/health"]
    assert threading.main_thread().name not in client.threads


def test_probe_key_follows_the_prefix_as_path_join() -> None:
    assert EtcdProbe(FakeClient(), "").key == b"/health"
    assert EtcdProbe(FakeClient(), "/nsconform/x").key == b"/nsconform/x/health"


def test_a_probe_past_the_timeout_is_a_deadline() -> None:
    release = threading.Event()

    class Slow(FakeClient):
        def get(self, key: bytes, **_: Any) -> None:
            release.wait(5)
    probe = EtcdProbe(Slow(), "/registry", timeout=0.05)

    async def run() -> str | None:
        try:
            return await probe()
        finally:
            release.set()  # before asyncio.run waits for the worker thread
    assert asyncio.run(run()) == "error getting data from etcd: context deadline exceeded"


def test_the_memory_store_has_no_probe() -> None:
    assert store_probes(MemoryStore()) is None
