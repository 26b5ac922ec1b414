"""Group `scope` (limits): the namespace as the scope of LimitRange min/max/default constraints per
container (seed 000: "a scope to limit resource consumption"; LimitRanger is a default admission plugin).
"""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.suites import refuse
from conformance.suites._scope import create, pod_body

DEFAULTS = {"type": "Container",
            "default": {"cpu": "200m", "memory": "128Mi"},
            "defaultRequest": {"cpu": "100m", "memory": "64Mi"}}
BOUNDS = {"type": "Container", "min": {"cpu": "100m"}, "max": {"memory": "1Gi"}}


def _limit_range(api, paths, ns, item, name="limits"):
    body = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": name}, "spec": {"limits": [item]}}
    return create(api, paths.content(ns, "limitranges"), body)


def _container(pod):
    return pod["spec"]["containers"][0]


@pytest.mark.clause("NS-LIMIT-001")
def test_defaults_applied(api, paths, namespaces):
    """A pod created without resources gets the LimitRange's default requests and limits, and the
    `kubernetes.io/limit-ranger` annotation saying so."""
    ns = namespaces.create("limits")["metadata"]["name"]
    _limit_range(api, paths, ns, DEFAULTS)
    pod = A.expect_ok(api.post(paths.content(ns, "pods"), pod_body("p")), 201)
    resources = _container(pod).get("resources") or {}
    assert resources.get("limits") == DEFAULTS["default"] and resources.get("requests") == DEFAULTS["defaultRequest"], (
        f"pod created in {ns} under LimitRange defaults: expected requests {DEFAULTS['defaultRequest']} and "
        f"limits {DEFAULTS['default']}, got resources {resources}")
    note = ((pod["metadata"].get("annotations") or {}).get("kubernetes.io/limit-ranger") or "")
    assert note.startswith("LimitRanger plugin set:"), f"kubernetes.io/limit-ranger annotation: {note!r}"
    stored = A.expect_ok(api.get(paths.content(ns, "pods", "p")))
    assert (_container(stored).get("resources") or {}) == resources, "defaults not persisted"


@pytest.mark.clause("NS-LIMIT-002")
def test_out_of_range_refused(api, paths, profile, namespaces):
    """A container below `min` or above `max` is refused with upstream's 403 message; nothing is created."""
    ns = namespaces.create("limits")["metadata"]["name"]
    _limit_range(api, paths, ns, BOUNDS)
    pods = paths.content(ns, "pods")
    resp = api.post(pods, pod_body("low", {"requests": {"cpu": "50m"}}))
    refuse(profile, resp, 403, reason="Forbidden",
           message='pods "low" is forbidden: minimum cpu usage per Container is 100m, but request is 50m',
           details={"kind": "pods", "name": "low"})
    resp = api.post(pods, pod_body("high", {"limits": {"memory": "2Gi", "cpu": "200m"}}))
    refuse(profile, resp, 403, reason="Forbidden",
           message='pods "high" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi')
    for name in ("low", "high"):
        A.expect_code(api.get(paths.content(ns, "pods", name)), 404)
    A.expect_code(api.post(pods, pod_body("ok", {"requests": {"cpu": "200m"}, "limits": {"memory": "512Mi"}})), 201)


@pytest.mark.clause("NS-LIMIT-003")
def test_limit_range_applies_to_its_namespace_only(api, paths, namespaces):
    """A LimitRange in A neither defaults nor refuses pods in B."""
    a = namespaces.create("limits-a")["metadata"]["name"]
    b = namespaces.create("limits-b")["metadata"]["name"]
    _limit_range(api, paths, a, {**DEFAULTS, "min": {"cpu": "100m"}})
    pods_b = paths.content(b, "pods")
    pod = A.expect_ok(api.post(pods_b, pod_body("plain")), 201)
    assert not (_container(pod).get("resources") or {}), (
        f"pod in {b} (no LimitRange) got resources {_container(pod).get('resources')} from the LimitRange of {a}")
    resp = api.post(pods_b, pod_body("small", {"requests": {"cpu": "50m"}}))
    assert resp.status_code == 201, (
        f"pod with cpu request 50m in {b} (min 100m only in {a}): expected 201, got "
        f"{A.describe_request(resp)} {A.body_excerpt(resp)}")
