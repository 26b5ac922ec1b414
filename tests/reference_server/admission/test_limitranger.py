"""LimitRanger: defaults (mutating) and min/max/ratio (validating) with the texts of limitranger/admission.go."""
from __future__ import annotations

import pytest

from conformance.reference_server.admission.limitranger import (LIMIT_RANGER_ANNOTATION, admit, aggregate,
                                                                default_limit_range, default_pod_resources,
                                                                pod_violations, validate)
from conformance.reference_server.apierrors import StatusError


def lr(*items, name="limits"):
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": name, "namespace": "ns"},
            "spec": {"limits": list(items)}}


def pod(*containers, name="p", init=()):
    spec = {"containers": list(containers)}
    if init:
        spec["initContainers"] = list(init)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns"}, "spec": spec}


def ctr(name="app", requests=None, limits=None):
    c = {"name": name, "image": "x"}
    if requests is not None or limits is not None:
        c["resources"] = {}
        if requests is not None:
            c["resources"]["requests"] = requests
        if limits is not None:
            c["resources"]["limits"] = limits
    return c


DEFAULTS = {"type": "Container", "default": {"cpu": "500m", "memory": "256Mi"},
            "defaultRequest": {"cpu": "0.1", "memory": "128Mi"}}


def test_defaults_applied_with_annotation():
    p = pod(ctr("app"), ctr("side", requests={"cpu": "50m"}), init=[ctr("init", limits={"memory": "1Gi"})])
    out = admit([lr(DEFAULTS)], "pods", p)
    assert out is not p and "resources" not in p["spec"]["containers"][0]  # pure
    c0, c1 = out["spec"]["containers"]
    assert c0["resources"] == {"limits": {"cpu": "500m", "memory": "256Mi"},
                               "requests": {"cpu": "100m", "memory": "128Mi"}}
    assert c1["resources"] == {"limits": {"cpu": "500m", "memory": "256Mi"},
                               "requests": {"cpu": "50m", "memory": "128Mi"}}
    assert out["spec"]["initContainers"][0]["resources"]["limits"] == {"memory": "1Gi", "cpu": "500m"}
    assert out["metadata"]["annotations"][LIMIT_RANGER_ANNOTATION] == (
        "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app; "
        "memory request for container side; cpu, memory limit for container side; "
        "cpu, memory request for init container init; cpu limit for init container init")


def test_no_limit_range_no_change_and_other_resources_ignored():
    p = pod(ctr())
    assert admit([], "pods", p) == p
    assert admit([lr(DEFAULTS)], "configmaps", {"metadata": {}}) == {"metadata": {}}
    assert admit([lr(DEFAULTS)], "pods", p, subresource="status") is p
    validate([lr({"type": "Container", "min": {"cpu": "1"}})], "configmaps", {"metadata": {}})


def test_limit_range_item_defaulting():
    got = default_limit_range(lr({"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "64Mi"}},
                                 {"type": "Pod", "max": {"cpu": "4"}}))
    c, p = got["spec"]["limits"]
    assert c["default"] == {"cpu": "2"} and c["defaultRequest"] == {"cpu": "2", "memory": "64Mi"}
    assert p == {"type": "Pod", "max": {"cpu": "4"}}
    # so a pod without resources gets max as limit and request, and min as request
    out = admit([lr({"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "64Mi"}})], "pods", pod(ctr()))
    assert out["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "2"},
                                                         "requests": {"cpu": "2", "memory": "64Mi"}}


def test_pod_defaulting_requests_from_limits():
    p = default_pod_resources(pod(ctr(limits={"cpu": "1", "memory": "1Gi"}), ctr("b", requests={"cpu": "1"},
                                                                                   limits={"cpu": "2"})))
    assert p["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1", "memory": "1Gi"}
    assert p["spec"]["containers"][1]["resources"]["requests"] == {"cpu": "1"}


def test_min_exact():
    with pytest.raises(StatusError) as exc:
        validate([lr({"type": "Container", "min": {"cpu": "100m"}})], "pods", pod(ctr(requests={"cpu": "50m"})))
    e = exc.value
    assert e.code == 403 and e.reason == "Forbidden"
    assert e.message == 'pods "p" is forbidden: minimum cpu usage per Container is 100m, but request is 50m'
    assert e.status["details"] == {"name": "p", "kind": "pods"}


def test_max_exact_and_aggregated():
    item = {"type": "Container", "max": {"memory": "1Gi", "cpu": "1"}}
    with pytest.raises(StatusError) as exc:
        validate([lr(item)], "pods", pod(ctr(limits={"memory": "2Gi", "cpu": "2"}, requests={"cpu": "1"})))
    assert exc.value.message == ('pods "p" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, '
                                 'maximum memory usage per Container is 1Gi, but limit is 2Gi]')
    with pytest.raises(StatusError) as exc:
        validate([lr({"type": "Container", "max": {"memory": "1Gi"}})], "pods", pod(ctr(requests={"memory": "1Mi"})))
    assert exc.value.message == 'pods "p" is forbidden: maximum memory usage per Container is 1Gi.  No limit is specified'


def test_min_variants_and_ratio():
    item = {"type": "Container", "min": {"cpu": "200m"}}
    assert pod_violations(lr(item), pod(ctr())) == ["minimum cpu usage per Container is 200m.  No request is specified"]
    assert pod_violations(lr(item), pod(ctr(requests={"cpu": "300m"}, limits={"cpu": "0.1"}))) == [
        "minimum cpu usage per Container is 200m, but limit is 100m"]
    ratio = {"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}}
    assert pod_violations(lr(ratio), pod(ctr(requests={"cpu": "100m"}, limits={"cpu": "300m"}))) == [
        "cpu max limit to request ratio per Container is 2, but provided ratio is 3.000000"]
    assert pod_violations(lr(ratio), pod(ctr(limits={"cpu": "1"}))) == [
        "cpu max limit to request ratio per Container is 2, but no request is specified or request is 0"]
    assert pod_violations(lr(ratio), pod(ctr(requests={"cpu": "1"}))) == [
        "cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0"]
    assert pod_violations(lr(ratio), pod(ctr(requests={"cpu": "100m"}, limits={"cpu": "200m"}))) == []


def test_pod_type_sums_containers():
    item = {"type": "Pod", "max": {"cpu": "1"}}
    p = pod(ctr("a", requests={"cpu": "600m"}, limits={"cpu": "600m"}),
            ctr("b", requests={"cpu": "600m"}, limits={"cpu": "600m"}))
    assert pod_violations(lr(item), p) == ["maximum cpu usage per Pod is 1, but limit is 1200m"]


def test_first_violated_limit_range_is_reported_and_duplicates_collapse():
    ok = lr({"type": "Container", "max": {"cpu": "4"}}, name="a")
    bad = lr({"type": "Container", "min": {"cpu": "1"}}, name="b")
    p = pod(ctr("x", requests={"cpu": "10m"}, limits={"cpu": "10m"}),
            ctr("y", requests={"cpu": "10m"}, limits={"cpu": "10m"}), name="two")
    with pytest.raises(StatusError) as exc:
        validate([ok, bad], "pods", p)
    assert exc.value.message == 'pods "two" is forbidden: minimum cpu usage per Container is 1, but request is 10m'
    assert aggregate(["a", "b", "a"]) == "[a, b]" and aggregate(["a", "a"]) == "a"


def test_defaults_then_validation_like_the_admission_chain():
    limits = [lr({"type": "Container", "default": {"cpu": "2"}, "max": {"cpu": "1"}})]
    p = admit(limits, "pods", pod(ctr()))
    with pytest.raises(StatusError) as exc:
        validate(limits, "pods", p)
    # maxConstraint stops at the limit: one message per resource
    assert exc.value.message == 'pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2'


def claim(storage=None, name="data"):
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {}}
    if storage is not None:
        spec["resources"]["requests"] = {"storage": storage}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "ns"},
            "spec": spec}


CLAIM_BOUNDS = {"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "max": {"storage": "2Gi"}}


@pytest.mark.parametrize("storage, message", [
    ("1500Mi", None),
    ("5Gi", "maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi"),
    ("500Mi", "minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi"),
    (None, "[minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified, "
           "maximum storage usage per PersistentVolumeClaim is 2Gi.  No request is specified]"),
])
def test_claims_are_held_to_persistent_volume_claim_items(storage, message):
    """`PersistentVolumeClaimValidateLimitFunc`: min and `maxRequestConstraint` over the claim's requests."""
    if message is None:
        validate([lr(CLAIM_BOUNDS)], "persistentvolumeclaims", claim(storage))
        return
    with pytest.raises(StatusError) as e:
        validate([lr(CLAIM_BOUNDS)], "persistentvolumeclaims", claim(storage))
    assert e.value.code == 403 and e.value.message == f'persistentvolumeclaims "data" is forbidden: {message}'


def test_claims_ignore_container_items_and_pods_ignore_claim_items():
    validate([lr({"type": "Container", "max": {"storage": "1Mi"}})], "persistentvolumeclaims", claim("5Gi"))
    validate([lr(CLAIM_BOUNDS)], "pods", pod(ctr()))
