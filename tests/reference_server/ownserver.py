"""One factory for the module fixture many test modules repeat: a server of their own, started with the module's
options before its first test and stopped after its last, for tests whose objects (webhook configurations, CRDs,
APIServices, bootstrap objects changed or deleted) or options (a token, TLS, feature gates, timeouts) must not meet
the session server's other tests (conftest.py `server`)."""
from __future__ import annotations

from typing import Any, Callable, Iterator

import pytest

from conformance.reference_server.embedded import RunningServer, start_embedded


def own_server(why: str = "", **options: Any) -> Callable[[], Iterator[RunningServer]]:
    """A module-scoped fixture yielding `start_embedded(**options)` and stopping it at the module's end; its name
    is the module attribute it is assigned to (`server = own_server(flavor="bare")`). `why`, when given, is the
    fixture's docstring (`pytest --fixtures`): what the module's tests would disturb on a shared server."""

    def fixture() -> Iterator[RunningServer]:
        srv = start_embedded(**options)
        yield srv
        srv.stop()

    fixture.__doc__ = why or None
    return pytest.fixture(scope="module")(fixture)


__all__ = ["own_server"]
