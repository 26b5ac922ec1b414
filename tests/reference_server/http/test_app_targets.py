"""`build_app`'s dispatch sends a route to its own `serve` only when the target is in `_SERVED_BY_APP`; every other
target goes straight to the resource handlers. The set must name every target `serve` compares against."""
from __future__ import annotations

import inspect
import re

from conformance.reference_server.http import app


def _targets_serve_compares() -> set[str]:
    source = inspect.getsource(app.build_app)
    body = source[source.index("async def serve("):source.index("async def fresh_close(")]
    found = set(re.findall(r'\bt == "([a-z0-9-]+)"', body))
    for group in re.findall(r"\bt in \(([^)]*)\)", body):
        found.update(re.findall(r'"([a-z0-9-]+)"', group))
    return found


def test_every_target_serve_answers_is_routed_to_it() -> None:
    compared = _targets_serve_compares()
    assert compared, "serve's comparisons were not found: the test reads build_app's source"
    assert compared == set(app._SERVED_BY_APP)
