"""Fixtures for the harness's own tests: a fake Kubernetes API server on a background thread."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakekube import FakeKube  # noqa: E402

from conformance.client.api import KubeClient  # noqa: E402
from conformance.client.exchange import Recorder  # noqa: E402
from conformance.wait import set_timeout_scale  # noqa: E402


@pytest.fixture
def fake() -> Iterator[FakeKube]:
    server = FakeKube().start()
    yield server
    server.stop()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def client(fake: FakeKube, recorder: Recorder) -> Iterator[KubeClient]:
    c = KubeClient(fake.url, profile="kubernetes", recorder=recorder, timeout=5.0)
    yield c
    c.close()


@pytest.fixture(autouse=True)
def _reset_timeout_scale() -> Iterator[None]:
    yield
    set_timeout_scale(1.0)
