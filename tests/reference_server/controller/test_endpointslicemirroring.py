"""The EndpointSlice mirroring controller (controller/endpointslicemirroring.py): Endpoints of a Service without
a selector get mirrored slices, as `pkg/controller/endpointslicemirroring`."""
from __future__ import annotations

from conformance.reference_server.controller.endpointslicemirroring import EndpointSliceMirroringController
from conformance.reference_server.registry import DeleteOptions, ListOptions, Registry
from conformance.reference_server.storage import MemoryStore

NS = "m"
MANAGED = "endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io"


def _reg() -> Registry:
    r = Registry(MemoryStore())
    r.namespaces.create({"metadata": {"name": NS}})
    return r


def _svc(reg, selector=None):
    spec = {"ports": [{"port": 80}]}
    if selector:
        spec["selector"] = selector
    return reg.content("services").create({"metadata": {"name": "ext", "namespace": NS}, "spec": spec})


def _ep(reg, **meta):
    return reg.content("endpoints").create({"metadata": {"name": "ext", "namespace": NS, **meta}, "subsets": [
        {"addresses": [{"ip": "10.0.0.1", "hostname": "a"}, {"ip": "fd00::1"}],
         "notReadyAddresses": [{"ip": "10.0.0.2", "nodeName": "n1"}],
         "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}]})


def _slices(reg):
    return reg.group("discovery.k8s.io", "endpointslices").list(NS, ListOptions(label_selector=MANAGED))["items"]


def test_endpoints_of_a_service_without_selector_are_mirrored():
    reg = _reg()
    _svc(reg)
    ep = _ep(reg, labels={"team": "x"}, annotations={"note": "y", "endpoints.kubernetes.io/last-change-trigger-time": "t"})
    c = EndpointSliceMirroringController(reg)
    c.sync(NS, "ext")
    by_type = {s["addressType"]: s for s in _slices(reg)}
    assert sorted(by_type) == ["IPv4", "IPv6"]
    v4 = by_type["IPv4"]
    assert v4["metadata"]["generateName"] == "ext-"
    assert v4["metadata"]["labels"] == {"team": "x", "kubernetes.io/service-name": "ext",
                                        "endpointslice.kubernetes.io/managed-by": "endpointslicemirroring-controller.k8s.io"}
    assert v4["metadata"]["annotations"] == {"note": "y"}
    assert v4["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Endpoints", "name": "ext",
                                                  "uid": ep["metadata"]["uid"], "controller": True,
                                                  "blockOwnerDeletion": True}]
    assert v4["endpoints"] == [{"addresses": ["10.0.0.1"], "conditions": {"ready": True}, "hostname": "a"},
                               {"addresses": ["10.0.0.2"], "conditions": {"ready": False}, "nodeName": "n1"}]
    assert v4["ports"] == [{"name": "http", "protocol": "TCP", "port": 8080}]
    assert by_type["IPv6"]["endpoints"] == [{"addresses": ["fd00::1"], "conditions": {"ready": True}}]
    rvs = sorted(s["metadata"]["resourceVersion"] for s in _slices(reg))
    c.sync(NS, "ext")
    assert sorted(s["metadata"]["resourceVersion"] for s in _slices(reg)) == rvs  # nothing rewritten


def test_nothing_is_mirrored_for_a_selector_or_skip_mirror_and_deletion_removes_the_slices():
    reg = _reg()
    _svc(reg, selector={"app": "x"})
    _ep(reg)
    c = EndpointSliceMirroringController(reg)
    c.sync(NS, "ext")
    assert _slices(reg) == []
    reg.content("services").delete(NS, "ext", DeleteOptions())
    _svc(reg)
    c.sync(NS, "ext")
    assert len(_slices(reg)) == 2
    reg.content("endpoints").delete(NS, "ext", DeleteOptions())
    c.sync(NS, "ext")
    assert _slices(reg) == []
    _ep(reg, labels={"endpointslice.kubernetes.io/skip-mirror": "true"})
    c.sync(NS, "ext")
    assert _slices(reg) == []
