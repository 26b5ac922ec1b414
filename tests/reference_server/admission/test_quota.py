"""ResourceQuota: quantities, usage, status sync and the create check with upstream's exact messages."""
from __future__ import annotations

import datetime as dt

import pytest

from conformance.reference_server.admission.quota import (Quantity, canonical, check_create, object_usage,
                                                          sync_status, usage)
from conformance.reference_server.quantity import QuantityError
from conformance.reference_server.apierrors import StatusError


@pytest.mark.parametrize("text,expect", [
    ("100m", "100m"), ("1", "1"), ("1Gi", "1Gi"), ("512Mi", "512Mi"), ("1e3", "1e3"), ("1000", "1k"),
    ("1000m", "1"), ("0.5", "500m"), ("1.5", "1500m"), ("1.5Gi", "1536Mi"), ("1024Mi", "1Gi"), ("1536", "1536"),
    ("0.5Ki", "512"), ("1.5Ki", "1536"), ("0", "0"), ("0Gi", "0"), ("1e-10", "1e-9"), ("12e6", "12e6"),
    ("1500000", "1500k"), ("-1Gi", "-1Gi"), ("1G", "1G"), (2, "2"), ("0.1", "100m"), ("1.0001", "1000100u"),
])
def test_canonical_quantities(text, expect):
    assert canonical(text) == expect


@pytest.mark.parametrize("bad", ["", "abc", "1Kb", "1..2", "1e", "--1", None, True])
def test_bad_quantities(bad):
    with pytest.raises(QuantityError):
        Quantity.parse(bad)


def test_add_keeps_the_first_nonzero_format():
    assert Quantity.parse("1Gi").add(Quantity.parse("1Gi")).canonical() == "2Gi"
    assert Quantity.parse("0").add(Quantity.parse("512Mi")).canonical() == "512Mi"
    assert Quantity.parse("1Gi").add(Quantity.parse("1G")).canonical() == "2073741824"
    assert Quantity.parse("500m").add(Quantity.parse("500m")).canonical() == "1"
    assert Quantity.parse("1500m").milli_value() == 1500 and Quantity.parse("1n").int_value() == 1


def pod(name="p", *containers, phase=None, **spec):
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns"},
            "spec": {"containers": list(containers) or [{"name": "c", "image": "x"}], **spec}}
    if phase:
        body["status"] = {"phase": phase}
    return body


def ctr(name="c", requests=None, limits=None):
    res = {}
    if requests is not None:
        res["requests"] = requests
    if limits is not None:
        res["limits"] = limits
    return {"name": name, "image": "x", "resources": res}


def quota(name, hard, used=None, scopes=None):
    q = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": "ns"},
         "spec": {"hard": hard}}
    if scopes:
        q["spec"]["scopes"] = scopes
    q["status"] = {"hard": {k: canonical(v) for k, v in hard.items()},
                   "used": used if used is not None else {k: "0" for k in hard}}
    return q


def cm(name="cm"):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "ns"}}


# --- usage -------------------------------------------------------------------------------------------------

def test_object_usage():
    assert {k: str(v) for k, v in object_usage("configmaps", cm()).items()} == {"count/configmaps": "1",
                                                                               "configmaps": "1"}
    assert {k: str(v) for k, v in object_usage("serviceaccounts", {}).items()} == {"count/serviceaccounts": "1"}
    assert {k: str(v) for k, v in object_usage("widgets", {}, "example.com").items()} == {
        "count/widgets.example.com": "1"}
    svc = {"spec": {"type": "NodePort", "ports": [{"port": 1}, {"port": 2}]}}
    assert {k: str(v) for k, v in object_usage("services", svc).items()} == {
        "count/services": "1", "services": "1", "services.loadbalancers": "0", "services.nodeports": "2"}
    p = pod("p", ctr("a", {"cpu": "100m", "memory": "64Mi"}, {"cpu": "200m", "memory": "128Mi"}),
            ctr("b", {"cpu": "0.15"}), initContainers=[ctr("i", {"cpu": "1"})])
    assert {k: str(v) for k, v in object_usage("pods", p).items()} == {
        "count/pods": "1", "pods": "1", "cpu": "1", "requests.cpu": "1", "limits.cpu": "200m",
        "memory": "64Mi", "requests.memory": "64Mi", "limits.memory": "128Mi"}
    done = pod("p", ctr("a", {"cpu": "1"}), phase="Succeeded")
    assert {k: str(v) for k, v in object_usage("pods", done).items()} == {"count/pods": "1"}



@pytest.mark.parametrize("annotations,spec_class,charged", [
    ({}, "gold", "gold"),
    ({"volume.beta.kubernetes.io/storage-class": "silver"}, "gold", "silver"),  # the beta annotation first
    ({"volume.beta.kubernetes.io/storage-class": ""}, "gold", None),  # present but empty: no class at all
])
def test_claim_usage_reads_the_class_as_get_persistent_volume_claim_class(annotations, spec_class, charged):
    claim = {"metadata": {"name": "c", "namespace": "ns", "annotations": annotations},
             "spec": {"storageClassName": spec_class, "resources": {"requests": {"storage": "1Gi"}}}}
    per_class = {k for k in object_usage("persistentvolumeclaims", claim) if ".storageclass." in k}
    assert per_class == ({f"{charged}.storageclass.storage.k8s.io/persistentvolumeclaims",
                          f"{charged}.storageclass.storage.k8s.io/requests.storage"} if charged else set())

def test_usage_and_sync_status():
    objs = {"configmaps": [cm("a"), cm("b")],
            "pods": [pod("p1", ctr("a", {"cpu": "100m"})), pod("p2", ctr("a", {"cpu": "250m"})),
                     pod("p3", ctr("a", {"cpu": "1"}), phase="Failed")],
            "secrets": []}
    q = quota("q", {"count/configmaps": "5", "configmaps": "5", "pods": "10", "count/pods": "10",
                    "requests.cpu": "2", "secrets": "1", "count/widgets.example.com": "3"}, used={})
    assert usage(objs, q) == {"configmaps": "2", "count/configmaps": "2", "count/pods": "3", "pods": "2",
                              "requests.cpu": "350m", "secrets": "0"}
    q["status"]["used"] = {"count/widgets.example.com": "1", "stale": "9"}
    assert sync_status(q, objs) == {
        "hard": {"configmaps": "5", "count/configmaps": "5", "count/pods": "10", "count/widgets.example.com": "3",
                 "pods": "10", "requests.cpu": "2", "secrets": "1"},
        "used": {"configmaps": "2", "count/configmaps": "2", "count/pods": "3", "count/widgets.example.com": "1",
                 "pods": "2", "requests.cpu": "350m", "secrets": "0"}}


def test_stuck_terminating_pods_stop_counting():
    p = pod("p", ctr("a", {"cpu": "1"}))
    p["metadata"].update(deletionTimestamp="2026-01-01T00:00:00Z", deletionGracePeriodSeconds=30)
    before = dt.datetime(2026, 1, 1, 0, 0, 10, tzinfo=dt.timezone.utc)
    after = dt.datetime(2026, 1, 1, 0, 1, 0, tzinfo=dt.timezone.utc)
    assert "pods" in object_usage("pods", p, now=before)
    assert "pods" not in object_usage("pods", p, now=after)


# --- check_create ------------------------------------------------------------------------------------------

def test_no_quota_no_change():
    assert check_create([], "configmaps", cm()) == {}
    assert check_create([quota("q", {"secrets": "1"})], "configmaps", cm()) == {}


def test_create_within_quota_returns_new_usage():
    qs = [quota("q", {"count/configmaps": "2", "pods": "3"}, {"count/configmaps": "1", "pods": "0"})]
    assert check_create(qs, "configmaps", cm()) == {"q": {"count/configmaps": "2", "pods": "0"}}


def test_exceeded_quota_exact():
    qs = [quota("q", {"count/configmaps": "1", "configmaps": "5"}, {"count/configmaps": "1", "configmaps": "1"})]
    with pytest.raises(StatusError) as exc:
        check_create(qs, "configmaps", cm("c2"))
    e = exc.value
    assert e.code == 403 and e.reason == "Forbidden"
    assert e.message == ('configmaps "c2" is forbidden: exceeded quota: q, requested: count/configmaps=1, '
                         'used: count/configmaps=1, limited: count/configmaps=1')
    assert e.status["details"] == {"name": "c2", "kind": "configmaps"}


def test_exceeded_quota_pods_compute_sorted_and_canonical():
    qs = [quota("compute", {"requests.cpu": "1", "requests.memory": "1Gi", "pods": "10"},
                {"requests.cpu": "900m", "requests.memory": "1Gi", "pods": "1"})]
    p = pod("big", ctr("a", {"cpu": "200m", "memory": "512Mi"}))
    with pytest.raises(StatusError) as exc:
        check_create(qs, "pods", p)
    assert exc.value.message == (
        'pods "big" is forbidden: exceeded quota: compute, requested: requests.cpu=200m,requests.memory=512Mi, '
        'used: requests.cpu=900m,requests.memory=1Gi, limited: requests.cpu=1,requests.memory=1Gi')
    ok = pod("ok", ctr("a", {"cpu": "100m", "memory": "0"}))
    assert check_create(qs, "pods", ok) == {
        "compute": {"pods": "2", "requests.cpu": "1", "requests.memory": "1Gi"}}


def test_must_specify_exact():
    qs = [quota("compute", {"requests.cpu": "1", "limits.memory": "1Gi"})]
    p = pod("p", ctr("b"), ctr("a", {"cpu": "100m"}))
    with pytest.raises(StatusError) as exc:
        check_create(qs, "pods", p)
    assert exc.value.message == ('pods "p" is forbidden: failed quota: compute: must specify limits.memory for: a,b; '
                                 'requests.cpu for: b')


def test_status_unknown_and_generate_name():
    # The server passes the candidate after name generation (upstream's AdmissionToValidateObjectFunc does);
    # an object with only generateName is named by it, as extractResourceName does.
    q = quota("q", {"pods": "1"})
    q["status"].pop("used")
    p = pod("", ctr("a"))
    p["metadata"] = {"generateName": "web-", "namespace": "ns"}
    with pytest.raises(StatusError) as exc:
        check_create([q], "pods", p)
    assert exc.value.message == 'pods "web-" is forbidden: status unknown for quota: q, resources: pods'


def test_status_hard_not_spec_hard_is_enforced():
    q = quota("q", {"pods": "1"})
    q["status"] = {}  # the controller has not synced yet: nothing is enforced, as upstream
    assert check_create([q], "pods", pod()) == {}


def test_current_usage_override_and_terminal_pod():
    qs = [quota("q", {"pods": "1", "count/pods": "5"}, {"pods": "0", "count/pods": "0"})]
    with pytest.raises(StatusError) as exc:
        check_create(qs, "pods", pod("p2"), {"q": {"pods": "1", "count/pods": "1"}})
    assert exc.value.message == ('pods "p2" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, '
                                 'limited: pods=1')
    # a pod created already Succeeded only counts for count/pods
    assert check_create(qs, "pods", pod("p3", phase="Succeeded"), {"q": {"pods": "1", "count/pods": "1"}}) == {
        "q": {"count/pods": "2", "pods": "1"}}


def test_scopes():
    best = quota("be", {"pods": "1"}, {"pods": "1"}, scopes=["BestEffort"])
    assert check_create([best], "pods", pod("x", ctr("a", {"cpu": "1"}))) == {}
    with pytest.raises(StatusError):
        check_create([best], "pods", pod("y", ctr("a")))
    term = quota("t", {"pods": "1"}, {"pods": "1"}, scopes=["Terminating"])
    assert check_create([term], "pods", pod("z")) == {}
    with pytest.raises(StatusError):
        check_create([term], "pods", pod("w", activeDeadlineSeconds=10))
    scoped_cm = quota("s", {"count/configmaps": "0"}, scopes=["NotTerminating"])
    assert check_create([scoped_cm], "configmaps", cm()) == {}  # non-pod evaluators match no scope


def test_several_quotas_all_apply():
    qs = [quota("a", {"count/secrets": "10"}, {"count/secrets": "3"}),
          quota("b", {"secrets": "4"}, {"secrets": "4"})]
    with pytest.raises(StatusError) as exc:
        check_create(qs, "secrets", {"metadata": {"name": "s"}})
    assert exc.value.message == ('secrets "s" is forbidden: exceeded quota: b, requested: secrets=1, used: secrets=4, '
                                 'limited: secrets=4')
    qs[1]["status"]["used"]["secrets"] = "1"
    assert check_create(qs, "secrets", {"metadata": {"name": "s"}}) == {"a": {"count/secrets": "4"},
                                                                         "b": {"secrets": "2"}}


def test_resourcequotas_count_themselves_and_services():
    qs = [quota("q", {"resourcequotas": "1"}, {"resourcequotas": "1"})]
    with pytest.raises(StatusError) as exc:
        check_create(qs, "resourcequotas", {"metadata": {"name": "q2"}})
    assert exc.value.message == ('resourcequotas "q2" is forbidden: exceeded quota: q, requested: resourcequotas=1, '
                                 'used: resourcequotas=1, limited: resourcequotas=1')
    svc = {"metadata": {"name": "s"}, "spec": {"type": "NodePort", "ports": [{"port": 80}, {"port": 81}]}}
    qs = [quota("q", {"services.nodeports": "1", "services": "5"}, {"services.nodeports": "0", "services": "0"})]
    with pytest.raises(StatusError) as exc:
        check_create(qs, "services", svc)
    assert exc.value.message == ('services "s" is forbidden: exceeded quota: q, requested: services.nodeports=2, '
                                 'used: services.nodeports=0, limited: services.nodeports=1')


def test_events_are_never_quota_ed():
    qs = [quota("q", {"count/events": "0"})]
    assert check_create(qs, "events", {"metadata": {"name": "e"}}) == {}
    assert usage({"events": [{}, {}]}, qs[0]) == {}


@pytest.mark.parametrize("request_,allocated,charged", [
    ("1500m", None, "2"),  # whole bytes: RoundUp(0)
    ("1Gi", "2Gi", "2Gi"),  # the larger of request and allocation
    ("2Gi", "1Gi", "2Gi"),
    (None, "1Gi", None),  # an allocation without a request is not charged
])
def test_claim_storage_usage_is_get_storage_usage(request_, allocated, charged):
    claim = {"metadata": {"name": "c", "namespace": "ns"}, "spec": {"resources": {"requests": {}}}}
    if request_:
        claim["spec"]["resources"]["requests"]["storage"] = request_
    if allocated:
        claim["status"] = {"allocatedResources": {"storage": allocated}}
    got = object_usage("persistentvolumeclaims", claim).get("requests.storage")
    assert (str(got) if got is not None else None) == charged
