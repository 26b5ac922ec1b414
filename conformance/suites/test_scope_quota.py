"""Group `scope` (quota): the namespace as "a scope to limit resource consumption" through ResourceQuota.

A quota's `status.hard`/`status.used` are filled by the server (asynchronously upstream: the tests wait for
them and never assume they are there right after a write); a create that would exceed `hard` is refused
with upstream's 403; deleting frees quota (again asynchronously); a quota limits its own namespace only.
ResourceQuota admission is on by default upstream, so these run on every target.

Object counts use `count/secrets`: unlike configmaps (`kube-root-ca.crt` is published into every namespace
by a controller), no secret appears in a new namespace by itself on a current cluster.
"""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.suites import refuse
from conformance.suites._scope import create, pod_body, quota_body, until_used

COUNT = "count/secrets"


def _quota(api, paths, waiter, ns, hard, name="q"):
    """Create the quota and wait until the server has computed its status (used 0)."""
    create(api, paths.content(ns, "resourcequotas"), quota_body(name, hard))
    return until_used(waiter, paths, ns, name, {k: "0" for k in hard})


def _secret(api, content, ns, name):
    return api.post(f"/api/v1/namespaces/{ns}/secrets", content.body_for("secrets", name))


@pytest.fixture
def quota_ns(api, paths, waiter, namespaces):
    ns = namespaces.create("quota")["metadata"]["name"]
    _quota(api, paths, waiter, ns, {COUNT: "2"})
    return ns


@pytest.mark.clause("NS-QUOTA-001")
def test_usage_in_status(api, paths, waiter, content, quota_ns):
    """status.hard mirrors spec.hard and status.used counts the namespace's objects as they are created."""
    q = A.expect_ok(api.get(paths.content(quota_ns, "resourcequotas", "q")))
    assert (q.get("status") or {}).get("hard") == {COUNT: "2"}, f"status.hard: {q.get('status')}"
    A.expect_code(_secret(api, content, quota_ns, "s1"), 201)
    until_used(waiter, paths, quota_ns, "q", {COUNT: "1"})
    A.expect_code(_secret(api, content, quota_ns, "s2"), 201)
    until_used(waiter, paths, quota_ns, "q", {COUNT: "2"})


@pytest.mark.clause("NS-QUOTA-002")
def test_create_beyond_quota_refused(api, paths, waiter, profile, content, quota_ns):
    """With the quota used up, one more create is refused: 403 `exceeded quota: q, requested: ..., used: ...,
    limited: ...`, and the object does not exist."""
    for name in ("s1", "s2"):
        A.expect_code(_secret(api, content, quota_ns, name), 201)
    until_used(waiter, paths, quota_ns, "q", {COUNT: "2"})
    resp = _secret(api, content, quota_ns, "s3")
    refuse(profile, resp, 403, reason="Forbidden",
           message=f'secrets "s3" is forbidden: exceeded quota: q, requested: {COUNT}=1, used: {COUNT}=2, '
                   f"limited: {COUNT}=2",
           details={"kind": "secrets", "name": "s3"})
    A.expect_code(api.get(paths.content(quota_ns, "secrets", "s3")), 404)


@pytest.mark.clause("NS-QUOTA-003")
def test_delete_frees_quota(api, paths, waiter, content, quota_ns):
    """Deleting an object lowers status.used (eventually) and the freed unit can be used again."""
    for name in ("s1", "s2"):
        A.expect_code(_secret(api, content, quota_ns, name), 201)
    until_used(waiter, paths, quota_ns, "q", {COUNT: "2"})
    A.expect_code(api.delete(paths.content(quota_ns, "secrets", "s1")), (200, 202))
    until_used(waiter, paths, quota_ns, "q", {COUNT: "1"})
    A.expect_code(_secret(api, content, quota_ns, "s3"), 201)


@pytest.mark.clause("NS-QUOTA-004")
def test_quota_limits_its_namespace_only(api, paths, waiter, namespaces, content):
    """A used-up quota in A does not limit creates in B."""
    a = namespaces.create("quota-a")["metadata"]["name"]
    b = namespaces.create("quota-b")["metadata"]["name"]
    _quota(api, paths, waiter, a, {COUNT: "1"})
    A.expect_code(_secret(api, content, a, "s1"), 201)
    until_used(waiter, paths, a, "q", {COUNT: "1"})
    for name in ("s1", "s2"):
        resp = _secret(api, content, b, name)
        assert resp.status_code == 201, (
            f"create of secret {name} in {b} (no quota there; quota of {a} used up): expected 201, got "
            f"{A.describe_request(resp)} {A.body_excerpt(resp)}")


@pytest.mark.clause("NS-QUOTA-005")
def test_compute_quota_on_pods(api, paths, waiter, profile, namespaces):
    """A `requests.cpu` quota: a pod without a cpu request is refused (`must specify requests.cpu`), pods
    are charged their requests, and the pod that would exceed the quota is refused."""
    ns = namespaces.create("quota-cpu")["metadata"]["name"]
    _quota(api, paths, waiter, ns, {"requests.cpu": "1"})
    pods = paths.content(ns, "pods")
    resp = api.post(pods, pod_body("p0"))
    refuse(profile, resp, 403, reason="Forbidden",
           message='pods "p0" is forbidden: failed quota: q: must specify requests.cpu for: pause')
    cpu = {"requests": {"cpu": "600m"}, "limits": {"cpu": "600m"}}
    A.expect_code(api.post(pods, pod_body("p1", cpu)), 201)
    until_used(waiter, paths, ns, "q", {"requests.cpu": "600m"})
    resp = api.post(pods, pod_body("p2", cpu))
    refuse(profile, resp, 403, reason="Forbidden",
           message='pods "p2" is forbidden: exceeded quota: q, requested: requests.cpu=600m, '
                   "used: requests.cpu=600m, limited: requests.cpu=1")
