"""A ValidatingAdmissionPolicy evaluated on a large object runs off the event loop (admission/policy/
`validate_off_loop`): while it runs, other clients are served, and its decision still refuses the write. No timing:
the evaluation is held on an Event the test sets."""
from __future__ import annotations

import uuid

from conformance.reference_server.admission.policy import validator

from tests.reference_server.holding import Held, answers
from test_policy_budget import srv  # noqa: F401 - the module's server (a fixture); the same directory (no package)
from test_policy_authorizer import _namespace, _policy  # the same directory (no package)


def test_a_large_objects_policy_evaluation_leaves_the_loop_free(srv, monkeypatch):  # noqa: F811 - the fixture
    server, s = srv
    ns = _namespace(s, server.url)
    _policy(s, server.url, [{"expression": "!('a' in object.data) || object.data.a.size() < 10",
                             "message": "a is too long"}], ns)
    r = Held(monkeypatch, validator, "validate").request(
        "POST", f"{server.url}/api/v1/namespaces/{ns}/configmaps", lambda: answers(server.url),
        json={"metadata": {"name": f"c-{uuid.uuid4().hex[:6]}"}, "data": {"a": "x" * 65536}})
    assert r.status_code == 422, r.text
    assert r.json()["message"].endswith("denied request: a is too long")
