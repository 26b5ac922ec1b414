"""The metrics tests' namespace of their own on the session server."""
from __future__ import annotations

import uuid
from typing import Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer


@pytest.fixture
def ns(server: RunningServer) -> Iterator[str]:
    name = f"sm-{uuid.uuid4().hex[:8]}"
    assert requests.post(server.url + "/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    yield name
    requests.delete(f"{server.url}/api/v1/namespaces/{name}")
