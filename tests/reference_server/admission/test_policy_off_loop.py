"""A ValidatingAdmissionPolicy evaluated on a large object runs off the event loop (admission/policy/
`validate_off_loop`): while it runs, other clients are served, and its decision still refuses the write. No timing:
the evaluation is held on an Event the test sets."""
from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from conformance.reference_server.admission.policy import validator
from conformance.reference_server.embedded import RunningServer, start_embedded

from test_policy_authorizer import _namespace, _policy  # the same directory (no package)

WAIT = 30.0


@pytest.fixture(scope="module")
def srv() -> Iterator[tuple[RunningServer, requests.Session]]:
    server = start_embedded()
    s = requests.Session()
    yield server, s
    s.close()
    server.stop()


def test_a_large_objects_policy_evaluation_leaves_the_loop_free(srv, monkeypatch):
    server, s = srv
    ns = _namespace(s, server.url)
    _policy(s, server.url, [{"expression": "!('a' in object.data) || object.data.a.size() < 10",
                             "message": "a is too long"}], ns)
    entered, released = threading.Event(), threading.Event()
    original = validator.validate

    def held(*args: Any, **kw: Any) -> Any:
        entered.set()
        released.wait(WAIT)
        return original(*args, **kw)
    monkeypatch.setattr(validator, "validate", held)
    out: dict[str, Any] = {}

    def post() -> None:
        out["r"] = requests.post(f"{server.url}/api/v1/namespaces/{ns}/configmaps", timeout=WAIT * 2,
                                 json={"metadata": {"name": f"c-{uuid.uuid4().hex[:6]}"}, "data": {"a": "x" * 65536}})
    t = threading.Thread(target=post, daemon=True)
    t.start()
    try:
        assert entered.wait(WAIT)
        assert requests.get(server.url + "/version", timeout=5).status_code == 200
    finally:
        released.set()
        t.join(WAIT)
    r = out["r"]
    assert r.status_code == 422, r.text
    assert r.json()["message"].endswith("denied request: a is too long")
