"""Both storage backends for the reference server's tests: `memory` and `etcd` (a private etcd per test session,
each store under its own key prefix so tests never see each other's objects)."""
from __future__ import annotations

import os
import uuid
from typing import Any, Callable, Iterator

import pytest

from conformance.reference_server.storage import MemoryStore
from conformance.reference_server.storage.backends import StorageConfig, etcd_client
from conformance.reference_server.storage.etcdprocess import EtcdNotInstalled, EtcdProcess, etcd_binary

BACKENDS = ("memory", "etcd")


def need_etcd() -> None:
    """Skip without an etcd binary, except in CI, where `.ci/run` installs one: there its absence fails."""
    if etcd_binary() is None:
        if os.environ.get("CI"):
            pytest.fail("etcd is not installed (.ci/run installs Debian's etcd-server)")
        pytest.skip("etcd is not installed (apt-get install etcd-server)")


@pytest.fixture(scope="session")
def etcd_process() -> Iterator[EtcdProcess]:
    need_etcd()
    try:
        proc = EtcdProcess()
    except EtcdNotInstalled as e:
        pytest.skip(str(e))
    yield proc
    proc.stop()


def unique_prefix() -> str:
    return f"/nsconform-test-{uuid.uuid4().hex[:10]}/registry"


@pytest.fixture
def pair(etcd_process: EtcdProcess) -> Iterator[tuple[Any, Any]]:
    """Two etcd stores on one prefix: two API server processes sharing an etcd."""
    from conformance.reference_server.storage.etcd import EtcdStore
    prefix = unique_prefix()
    a, b = (EtcdStore(etcd_client([etcd_process.url]), prefix) for _ in range(2))
    yield a, b
    a.close()
    b.close()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def make_store(backend: str, request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """`make_store(history_size=...)`: a fresh, empty store of the test's backend (closed at teardown)."""
    opened: list[Any] = []

    def make(history_size: int = 10000) -> Any:
        if backend == "memory":
            return MemoryStore(history_size=history_size)
        from conformance.reference_server.storage.etcd import EtcdStore
        proc = request.getfixturevalue("etcd_process")
        store = EtcdStore(etcd_client([proc.url]), unique_prefix(), history_size=history_size)
        opened.append(store)
        return store

    yield make
    for s in opened:
        s.close()


@pytest.fixture
def storage_config(backend: str, request: pytest.FixtureRequest) -> StorageConfig | None:
    """What `ReferenceServer(storage=...)`/`start_embedded(storage=...)` take for the test's backend."""
    if backend == "memory":
        return None
    proc = request.getfixturevalue("etcd_process")
    return StorageConfig("etcd", (proc.url,), unique_prefix())
