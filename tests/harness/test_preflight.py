"""conformance/preflight.py: what is asked, and that a target without access reviews is never refused."""
from __future__ import annotations

from conformance.client.config import from_server
from conformance.preflight import Need, check, missing_permissions, needs


def test_needs_follow_the_profiles_finalize_verb() -> None:
    assert Need("update", "namespaces", "finalize") in needs("kubernetes")
    assert Need("create", "namespaces", "finalize") in needs("design")
    assert str(Need("update", "namespaces", "finalize")) == "update namespaces/finalize"


def test_a_target_without_access_reviews_cannot_tell(fake) -> None:
    conn = from_server(fake.url)
    assert missing_permissions(conn, needs("kubernetes")) is None  # 404: no authorization.k8s.io
    assert check(conn, "kubernetes") is None


# ---- issue 10, finding 5: authorization runs before routing --------------------------------------------
import json  # noqa: E402

import pytest  # noqa: E402

from conformance.preflight import request_attributes  # noqa: E402


@pytest.mark.parametrize("method, path, expected", [
    # (verb, resource, subresource, namespace, name) as kube-apiserver's RequestInfoFactory resolves them
    ("DELETE", "/api/v1/namespaces", ("deletecollection", "namespaces", "", "", "")),
    ("POST", "/api/v1/namespaces/n1", ("create", "namespaces", "", "n1", "n1")),
    ("POST", "/api/v1/namespaces/n1/status", ("create", "namespaces", "status", "n1", "n1")),
    ("DELETE", "/api/v1/namespaces/n1/status", ("delete", "namespaces", "status", "n1", "n1")),
    ("GET", "/api/v1/namespaces/n1/finalize", ("get", "namespaces", "finalize", "n1", "n1")),
    ("PATCH", "/api/v1/namespaces/n1/finalize", ("patch", "namespaces", "finalize", "n1", "n1")),
    ("GET", "/api/v1/namespaces/n1/finalize/n1", ("get", "namespaces", "finalize", "n1", "n1")),
    ("POST", "/api/v1/configmaps", ("create", "configmaps", "", "", "")),
    ("DELETE", "/api/v1/configmaps", ("deletecollection", "configmaps", "", "", "")),
    ("GET", "/api/v1/list/configmaps", ("get", "list", "", "", "configmaps")),
    ("DELETE", "/api/v1/namespaces/n1/configmaps?labelSelector=a%3Db", ("deletecollection", "configmaps", "", "n1", "")),
    ("GET", "/api/v1/namespaces/n1/configmaps/c", ("get", "configmaps", "", "n1", "c")),
])
def test_request_attributes_follow_request_info(method, path, expected):
    a = request_attributes(method, path)
    assert (a.verb, a.resource, a.subresource, a.namespace, a.name) == expected


def test_preflight_asks_for_every_verb_the_suites_send():
    wanted = {str(n) for n in needs("kubernetes")}
    for verb in ("get", "create", "patch", "delete", "update"):
        assert f"{verb} namespaces/finalize" in wanted
    assert {"deletecollection namespaces", "create namespaces/status", "delete namespaces/status",
            "deletecollection configmaps", "patch configmaps", "get list"} <= wanted


class _Resp:
    def __init__(self, code, body):
        self.status_code, self._body, self.text, self.headers = code, body, json.dumps(body), {}

    def json(self):
        return self._body


class _ReviewingAPI:
    def __init__(self, allowed):
        self.allowed, self.reviews = allowed, []

    def post(self, path, body=None, **_kw):
        self.reviews.append(body["spec"]["resourceAttributes"])
        return _Resp(201, {**body, "status": {"allowed": self.allowed}})


def _forbidden():
    return _Resp(403, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403,
                       "message": 'namespaces "n1" is forbidden: User "u" cannot patch resource "namespaces/finalize"'})


def test_a_probe_whose_verb_is_denied_is_not_judged():
    from conformance.suites import skip_if_denied

    api = _ReviewingAPI(allowed=False)
    with pytest.raises(pytest.skip.Exception) as exc:
        skip_if_denied(api, _forbidden(), "PATCH", "/api/v1/namespaces/n1/finalize")
    assert "patch namespaces/finalize" in str(exc.value) and "not judged" in str(exc.value)
    assert api.reviews == [{"verb": "patch", "resource": "namespaces", "subresource": "finalize",
                            "namespace": "n1", "name": "n1", "group": ""}]


def test_a_403_for_an_allowed_verb_is_judged():
    """The server's own access review says yes: a 403 then is the server's answer, and the probe judges it."""
    from conformance.suites import skip_if_denied

    skip_if_denied(_ReviewingAPI(allowed=True), _forbidden(), "PATCH", "/api/v1/namespaces/n1/finalize")
    skip_if_denied(_ReviewingAPI(allowed=False), _Resp(405, {}), "PATCH", "/api/v1/namespaces/n1/finalize")
