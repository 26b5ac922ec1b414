"""What a healthy real cluster legitimately does must not fail a suite (issue 10, findings 1, 3, 4, 6).

Each test pins the suites' expectation to upstream's behaviour, or runs a suite test against the bundled
server with a local tweak that imitates a real cluster (a controller that writes to new namespaces, a
secret that appears in every namespace), which the suite must tolerate.
"""

from __future__ import annotations

import json
import secrets as _secrets
from typing import Any

import pytest

from conformance.client.api import KubeClient
from conformance.endpoints import Paths
from conformance.fixtures.content import ContentFactory
from conformance.fixtures.namespaces import NamespaceFactory
from conformance.reference_server.embedded import start_embedded
from conformance.wait import Waiter, set_timeout_scale

RFC1123 = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
           "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
               "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
               "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


# ------------------------------------------------------------------------------------ finding 1: names
def test_invalid_name_that_is_an_invalid_label_value_has_two_causes():
    """SetDefaults_Namespace copies the name into kubernetes.io/metadata.name before validation, so
    ValidateObjectMeta's ValidateLabels reports it too (metadata.labels, no key in the path)."""
    from conformance.suites.test_naming import expected_invalid_name

    name = "-nsc-abc"
    message, causes = expected_invalid_name(name, RFC1123)
    assert message == (f'Namespace "{name}" is invalid: [metadata.name: Invalid value: "{name}": {RFC1123}, '
                       f'metadata.labels: Invalid value: "{name}": {LABEL_VALUE}]')
    assert causes == [{"reason": "FieldValueInvalid", "field": "metadata.name",
                       "message": f'Invalid value: "{name}": {RFC1123}'},
                      {"reason": "FieldValueInvalid", "field": "metadata.labels",
                       "message": f'Invalid value: "{name}": {LABEL_VALUE}'}]
    long = "nsc-" + "a" * 60
    message, causes = expected_invalid_name(long, "must be no more than 63 characters")
    assert message == (f'Namespace "{long}" is invalid: [metadata.name: Invalid value: "{long}": must be no more '
                       f'than 63 characters, metadata.labels: Invalid value: "{long}": must be no more than 63 '
                       f'characters]')
    assert [c["field"] for c in causes] == ["metadata.name", "metadata.labels"]


def test_invalid_name_that_is_a_valid_label_value_has_one_cause():
    from conformance.suites.test_naming import expected_invalid_name

    for name in ("Nsc-Upper", "nsc_under", "nsc.dot"):
        message, causes = expected_invalid_name(name, RFC1123)
        assert message == f'Namespace "{name}" is invalid: metadata.name: Invalid value: "{name}": {RFC1123}'
        assert [c["field"] for c in causes] == ["metadata.name"]


# ------------------------------------------------------------------------------------ finding 4: 403 text
def test_forbidden_message_accepts_an_authorizer_reason():
    """responsewriters.Forbidden appends `: <reason>` when an authorizer gave one (RBAC, GKE's webhook)."""
    from conformance.suites._scope import forbidden_message

    check = forbidden_message("u", "list", "configmaps", "ns1")
    base = 'configmaps is forbidden: User "u" cannot list resource "configmaps" in API group "" in the namespace "ns1"'
    assert check(base)
    assert check(base + ": RBAC: role.rbac.authorization.k8s.io \"r\" not found")
    assert check(base + ": Required \"container.configmaps.list\" permission.")
    assert not check(base + "x")
    assert not check(base + ": ")
    assert not check(base.replace("ns1", "ns2"))
    assert not check("prefix " + base)


# ------------------------------------------------------------------------------------ finding 6: conflicts
class _Resp:
    def __init__(self, code: int, body: dict[str, Any]) -> None:
        self.status_code = code
        self._body = body
        self.text = json.dumps(body)
        self.headers = {"Content-Type": "application/json"}

    def json(self) -> dict[str, Any]:
        return self._body


class _RacyAPI:
    """A namespace a controller annotates right after every read, `conflicts` times."""

    def __init__(self, conflicts: int) -> None:
        self.conflicts = conflicts
        self.calls: list[str] = []

    def get(self, path: str, **_kw: Any) -> _Resp:
        self.calls.append("GET")
        return _Resp(200, {"kind": "Namespace", "apiVersion": "v1",
                           "metadata": {"name": "n", "resourceVersion": str(len(self.calls))}})

    def verb(self, method: str, path: str, body: Any = None, **_kw: Any) -> _Resp:
        self.calls.append(method)
        if self.conflicts:
            self.conflicts -= 1
            return _Resp(409, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Conflict",
                               "code": 409, "message": "the object has been modified"})
        return _Resp(200, body)


def test_update_fresh_rereads_after_a_conflict():
    from conformance.suites import update_fresh

    api = _RacyAPI(conflicts=2)
    resp = update_fresh(api, "/api/v1/namespaces/n", lambda b: b["metadata"].setdefault("labels", {}).update(a="1"))
    assert resp.status_code == 200 and resp.json()["metadata"]["labels"] == {"a": "1"}
    assert api.calls == ["GET", "PUT", "GET", "PUT", "GET", "PUT"]


def test_update_fresh_is_bounded():
    from conformance.suites import update_fresh

    api = _RacyAPI(conflicts=100)
    assert update_fresh(api, "/api/v1/namespaces/n", lambda b: None).status_code == 409
    assert api.calls.count("PUT") == 5  # client-go's retry.DefaultRetry


# ------------------------------------------------------------------------------------ finding 3 and 6 on a server
@pytest.fixture(scope="module")
def server():
    running = start_embedded()
    yield running
    running.stop()


class _BusyCluster(NamespaceFactory):
    """Namespaces as OpenShift makes them: a dockercfg secret appears in each (and a Service, as another
    controller could make), and a controller annotates it right after creation (so the resourceVersion the creator saw is stale at once)."""

    def create(self, base: str = "t", **kw: Any) -> dict[str, Any]:
        ns = super().create(base, **kw)
        name = ns["metadata"]["name"]
        secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": f"builder-dockercfg-{_secrets.token_hex(2)}"},
                  "type": "Opaque", "data": {}}
        assert self.client.post(self.paths.content(name, "secrets"), secret).status_code == 201
        # and, as a cluster whose controllers do write Services could, one the quota suite must count from
        service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "written-by-a-controller"},
                   "spec": {"ports": [{"port": 80}]}}
        assert self.client.post(self.paths.content(name, "services"), service).status_code == 201
        assert self.client.patch(self.paths.namespace(name), {"metadata": {"annotations": {
            "openshift.io/sa.scc.uid-range": "1000680000/10000"}}}).status_code == 200
        return ns


@pytest.fixture
def busy(server, request):
    client = KubeClient(server.url)
    paths = Paths("kubernetes")
    waiter = Waiter(client, paths, poll_interval=0.2)
    set_timeout_scale(0.2)  # a wait that cannot succeed must not hold the test for a minute
    factory = _BusyCluster(client, paths, waiter, run_id="tolerance", nodeid=request.node.nodeid)
    content = ContentFactory(client, paths)
    yield client, paths, waiter, factory, content
    content.teardown()
    factory.teardown(failed=False)
    set_timeout_scale(1.0)


@pytest.mark.parametrize("case", ["test_usage_in_status", "test_create_beyond_quota_refused",
                                  "test_delete_frees_quota"])
def test_quota_suite_judges_usage_by_deltas(busy, case):
    from conformance.suites import test_scope_quota as suite

    api, paths, waiter, factory, content = busy
    ns = suite.make_quota_ns(api, paths, waiter, factory)
    getattr(suite, case)(api, paths, waiter, *(("kubernetes",) if case == "test_create_beyond_quota_refused" else ()),
                         content, ns)


def test_quota_suite_other_namespace(busy):
    from conformance.suites import test_scope_quota as suite

    api, paths, waiter, factory, content = busy
    suite.test_quota_limits_its_namespace_only(api, paths, waiter, factory, content)


@pytest.mark.parametrize("op", ["put-add", "put-remove-all"])
def test_finalize_suite_survives_a_stale_resource_version(busy, op):
    """The PUT in NS-FZE-001/002 is not about conflicts: it must re-read and retry like RetryOnConflict."""
    from conformance.suites import test_finalize as suite

    api, paths, _waiter, factory, _content = busy
    stale = _StaleFirstRead(api)
    suite.test_update_does_not_change_finalizers(stale, paths, "kubernetes", factory, op)
    suite.test_update_of_finalizers_silently_ignored(stale, paths, factory, op)


class _StaleFirstRead:
    """Wraps a client: a controller writes to each namespace between our first GET of it and our PUT."""

    def __init__(self, api: KubeClient) -> None:
        self._api = api
        self._touched: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._api, name)

    def get(self, path: str, **kw: Any) -> Any:
        resp = self._api.get(path, **kw)
        if path.count("/") == 4 and path not in self._touched and resp.status_code == 200:
            self._touched.add(path)
            self._api.patch(path, {"metadata": {"labels": {"pod-security.kubernetes.io/audit": "restricted"}}})
        return resp


@pytest.mark.parametrize("op", ["put-change", "put-remove"])
def test_name_label_suite_survives_a_stale_resource_version(busy, op):
    from conformance.suites import test_naming as suite

    api, paths, _waiter, factory, _content = busy
    suite.test_metadata_name_label_restored_on_update(_StaleFirstRead(api), paths, factory, op)


def test_phase_suite_survives_a_stale_resource_version(busy):
    from conformance.suites import test_phase as suite

    api, paths, _waiter, factory, _content = busy
    suite.test_status_phase_must_match_deletion_timestamp(_StaleFirstRead(api), paths, factory)
