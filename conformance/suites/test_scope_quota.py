"""Group `scope` (quota): the namespace as "a scope to limit resource consumption" through ResourceQuota.

A quota's `status.hard`/`status.used` are filled by the server (asynchronously upstream: the tests wait for
them and never assume they are there right after a write); a create that would exceed `hard` is refused
with upstream's 403; deleting frees quota (again asynchronously); a quota limits its own namespace only.
ResourceQuota admission is on by default upstream, so these run on every target.

Object counts use `count/services`: no controller of kind, k3s, OpenShift, GKE or EKS writes Services into a
new namespace. Secrets were the first choice and are the wrong one: OpenShift's controllers add dockercfg
secrets to every namespace *at some moment after* it is created (after a quota may already be there; the
`openshift` flavour shows the race). Counts are still judged by *deltas* from what the namespace holds, in
case a cluster does run such a controller: `status.used` is compared with the number of Services the
namespace lists at that moment, `hard` is set from the count found when the quota is created, and "used
up" is reached by creating until the server refuses.
"""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.suites import refuse
from conformance.suites._scope import QUOTA_TIMEOUT, create, pod_body, quota_body, until_used

KIND = "services"
COUNT = f"count/{KIND}"
FILL_LIMIT = 20
"""How many creates `_fill` tries before it decides the quota is not enforced."""


def _held(api, paths, ns):
    items = A.expect_ok(api.get(paths.content(ns, KIND))).get("items") or []
    return [(i.get("metadata") or {}).get("name") for i in items]


def _until_used_matches(api, paths, waiter, ns, name="q", *, including=(), excluding=()):
    """Wait until the quota's status.used count equals the number of objects of KIND the namespace lists now,
    and that list contains `including` and none of `excluding` (the quota follows what the namespace holds)."""
    seen = {}

    def ok(q):
        used = ((q.get("status") or {}).get("used") or {}).get(COUNT)
        held = _held(api, paths, ns)
        seen.update(used=used, held=held)
        return (used == str(len(held)) and all(n in held for n in including)
                and not any(n in held for n in excluding))
    try:
        return waiter.until(paths.content(ns, "resourcequotas", name), ok,
                            f"ResourceQuota {ns}/{name} status.used {COUNT} to equal the {KIND} the namespace "
                            f"holds", timeout=QUOTA_TIMEOUT)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; last compared: status.used {COUNT}={seen.get('used')!r} with the "
                             f"namespace's {KIND} {seen.get('held')}") from None


def _quota(api, paths, waiter, ns, room, name="q"):
    """A count quota with `room` more than the namespace holds; waits until the server computed it.
    Returns `hard`."""
    hard = str(len(_held(api, paths, ns)) + room)
    create(api, paths.content(ns, "resourcequotas"), quota_body(name, {COUNT: hard}))
    waiter.until(paths.content(ns, "resourcequotas", name),
                 lambda q: COUNT in ((q.get("status") or {}).get("used") or {}),
                 f"ResourceQuota {ns}/{name} status.used to show {COUNT}", timeout=QUOTA_TIMEOUT)
    return hard


def _make(api, content, ns, name):
    return api.post(f"/api/v1/namespaces/{ns}/{KIND}", content.body_for(KIND, name))


def _fill(api, content, ns, prefix="s"):
    """Create objects of KIND until one is refused; returns (names created, the refused name, its response)."""
    made = []
    for i in range(1, FILL_LIMIT + 1):
        name = f"{prefix}{i}"
        resp = _make(api, content, ns, name)
        if resp.status_code != 201:
            return made, name, resp
        made.append(name)
    raise AssertionError(f"{FILL_LIMIT} {KIND} created in {ns} under a {COUNT} quota with room for fewer: "
                         f"the quota is not enforced")


def make_quota_ns(api, paths, waiter, namespaces):
    ns = namespaces.create("quota")["metadata"]["name"]
    _quota(api, paths, waiter, ns, 2)
    return ns


@pytest.fixture
def quota_ns(api, paths, waiter, namespaces):
    return make_quota_ns(api, paths, waiter, namespaces)


@pytest.mark.clause("NS-QUOTA-001")
def test_usage_in_status(api, paths, waiter, content, quota_ns):
    """status.hard mirrors spec.hard and status.used counts the namespace's objects as they are created."""
    q = A.expect_ok(api.get(paths.content(quota_ns, "resourcequotas", "q")))
    hard = (q.get("spec") or {}).get("hard")
    assert (q.get("status") or {}).get("hard") == hard, f"status.hard {q.get('status')}, spec.hard {hard}"
    A.expect_code(_make(api, content, quota_ns, "s1"), 201)
    _until_used_matches(api, paths, waiter, quota_ns, including=["s1"])
    A.expect_code(_make(api, content, quota_ns, "s2"), 201)
    _until_used_matches(api, paths, waiter, quota_ns, including=["s1", "s2"])


@pytest.mark.clause("NS-QUOTA-002")
def test_create_beyond_quota_refused(api, paths, waiter, profile, content, quota_ns):
    """With the quota used up, one more create is refused: 403 `exceeded quota: q, requested: ..., used: ...,
    limited: ...`, and the object does not exist."""
    hard = A.expect_ok(api.get(paths.content(quota_ns, "resourcequotas", "q")))["spec"]["hard"][COUNT]
    made, refused, resp = _fill(api, content, quota_ns)
    assert made, f"the first create under a quota with room was refused: {A.body_excerpt(resp)}"
    refuse(profile, resp, 403, reason="Forbidden",
           message=f'{KIND} "{refused}" is forbidden: exceeded quota: q, requested: {COUNT}=1, used: {COUNT}={hard}, '
                   f"limited: {COUNT}={hard}",
           details={"kind": KIND, "name": refused})
    A.expect_code(api.get(paths.content(quota_ns, KIND, refused)), 404)


@pytest.mark.clause("NS-QUOTA-003")
def test_delete_frees_quota(api, paths, waiter, content, quota_ns):
    """Deleting an object lowers status.used (eventually) and the freed unit can be used again."""
    made, _refused, _resp = _fill(api, content, quota_ns)
    assert made, f"no {KIND} could be created under a quota with room"
    _until_used_matches(api, paths, waiter, quota_ns, including=made)
    A.expect_code(api.delete(paths.content(quota_ns, KIND, made[0])), (200, 202))
    _until_used_matches(api, paths, waiter, quota_ns, including=made[1:], excluding=made[:1])
    A.expect_code(_make(api, content, quota_ns, "again"), 201)


@pytest.mark.clause("NS-QUOTA-004")
def test_quota_limits_its_namespace_only(api, paths, waiter, namespaces, content):
    """A used-up quota in A does not limit creates in B."""
    a = namespaces.create("quota-a")["metadata"]["name"]
    b = namespaces.create("quota-b")["metadata"]["name"]
    _quota(api, paths, waiter, a, 1)
    made, _refused, _resp = _fill(api, content, a)
    assert made, f"no {KIND} could be created in {a} under a quota with room"
    for name in ("s1", "s2"):
        resp = _make(api, content, b, name)
        assert resp.status_code == 201, (
            f"create of {KIND} {name} in {b} (no quota there; quota of {a} used up): expected 201, got "
            f"{A.describe_request(resp)} {A.body_excerpt(resp)}")


@pytest.mark.clause("NS-QUOTA-005")
def test_compute_quota_on_pods(api, paths, waiter, profile, namespaces):
    """A `requests.cpu` quota: a pod without a cpu request is refused (`must specify requests.cpu`), pods
    are charged their requests, and the pod that would exceed the quota is refused."""
    ns = namespaces.create("quota-cpu")["metadata"]["name"]
    create(api, paths.content(ns, "resourcequotas"), quota_body("q", {"requests.cpu": "1"}))
    until_used(waiter, paths, ns, "q", {"requests.cpu": "0"})
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
