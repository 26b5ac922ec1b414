"""One embedded server per test module of this package."""
from __future__ import annotations

from typing import Iterator

import pytest

from conformance.reference_server.embedded import RunningServer, start_embedded

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


@pytest.fixture(scope="module")
def srv() -> Iterator[RunningServer]:
    server = start_embedded()
    yield server
    server.stop()
