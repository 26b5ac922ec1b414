"""Over HTTP: kind's `standard` StorageClass, the DefaultStorageClass / DefaultIngressClass / Priority admission
plugins, the PV controller's binding and Events, and `pods/binding` + `bindings` (BindingREST)."""
from __future__ import annotations

import time
import uuid
from typing import Any, Callable, Iterator

import pytest
import requests

from conformance.reference_server.admission.defaultclass import newest
from conformance.reference_server.embedded import start_embedded

from .conftest import status_of

MERGE = {"Content-Type": "application/merge-patch+json"}


def _until(read: Callable[[], Any], ok: Callable[[Any], bool], what: str, timeout: float = 10) -> Any:
    """Poll (a few reads) until `ok(read())`; fail saying what was last seen."""
    deadline = time.monotonic() + timeout
    while True:
        seen = read()
        if ok(seen):
            return seen
        assert time.monotonic() < deadline, f"{what}: last seen {seen!r}"
        time.sleep(0.05)


class Served:
    def __init__(self, flavor: str):
        self.srv = start_embedded(flavor=flavor)
        self.url = self.srv.url
        self.http = requests.Session()

    def ns(self) -> str:
        name = f"nsc-st-{uuid.uuid4().hex[:8]}"
        assert self.http.post(f"{self.url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
        return name

    def post(self, path: str, body: dict[str, Any]) -> requests.Response:
        return self.http.post(self.url + path, json=body)

    def get(self, path: str) -> dict[str, Any]:
        r = self.http.get(self.url + path)
        assert r.status_code == 200, r.text
        return r.json()

    def events(self, ns: str, name: str) -> list[tuple[str, str, str]]:
        items = self.get(f"/api/v1/namespaces/{ns}/events?fieldSelector=involvedObject.name={name}")["items"]
        return [(e["type"], e["reason"], e["message"]) for e in items]

    def stop(self) -> None:
        self.http.close()
        self.srv.stop()


@pytest.fixture(scope="module")
def kind() -> Iterator[Served]:
    s = Served("kind")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def bare() -> Iterator[Served]:
    """A server of its own: the default classes made here must not reach other modules' pods and claims."""
    s = Served("bare")
    yield s
    s.stop()


def _claim(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec}}


def _pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec}}


def test_kind_has_its_default_standard_class_and_claims_get_it(kind):
    sc = kind.get("/apis/storage.k8s.io/v1/storageclasses/standard")
    assert (sc["provisioner"], sc["reclaimPolicy"], sc["volumeBindingMode"]) == (
        "rancher.io/local-path", "Delete", "WaitForFirstConsumer")
    assert sc["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"
    ns = kind.ns()
    r = kind.post(f"/api/v1/namespaces/{ns}/persistentvolumeclaims", _claim("data"))
    assert r.status_code == 201 and r.json()["spec"]["storageClassName"] == "standard", r.text
    events = _until(lambda: kind.events(ns, "data"), bool, "the PV controller's event")
    assert events[0] == ("Normal", "WaitForFirstConsumer", "waiting for first consumer to be created before binding")
    assert kind.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/data")["status"] == {"phase": "Pending"}
    r = kind.post(f"/api/v1/namespaces/{ns}/persistentvolumeclaims", _claim("none", storageClassName=""))
    assert r.status_code == 201 and r.json()["spec"]["storageClassName"] == ""  # an explicit "" stays


def test_other_flavours_have_no_storage_class(http, url):
    assert http.get(f"{url}/apis/storage.k8s.io/v1/storageclasses/standard").status_code == 404


def test_a_claim_binds_a_matching_volume_and_releases_it(kind):
    ns, cls, pv = kind.ns(), f"manual-{uuid.uuid4().hex[:6]}", f"pv-{uuid.uuid4().hex[:8]}"
    r = kind.post("/api/v1/persistentvolumes", {"metadata": {"name": pv}, "spec": {
        "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "2Gi"}, "hostPath": {"path": "/data"},
        "storageClassName": cls}})
    assert r.status_code == 201, r.text
    _until(lambda: kind.get(f"/api/v1/persistentvolumes/{pv}")["status"]["phase"], "Available".__eq__, "Available")
    assert kind.post(f"/api/v1/namespaces/{ns}/persistentvolumeclaims",
                     _claim("c", storageClassName=cls)).status_code == 201
    claim = _until(lambda: kind.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/c"),
                   lambda c: c["status"]["phase"] == "Bound", "the claim Bound")
    assert claim["spec"]["volumeName"] == pv
    assert claim["status"] == {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "2Gi"}}
    volume = kind.get(f"/api/v1/persistentvolumes/{pv}")
    assert volume["status"]["phase"] == "Bound" and volume["spec"]["claimRef"]["uid"] == claim["metadata"]["uid"]
    assert kind.http.delete(f"{kind.url}/api/v1/namespaces/{ns}/persistentvolumeclaims/c").status_code == 200
    _until(lambda: kind.get(f"/api/v1/persistentvolumes/{pv}")["status"]["phase"], "Released".__eq__, "Released")
    kind.http.delete(f"{kind.url}/api/v1/persistentvolumes/{pv}")


def test_priority_admission(bare):
    ns = bare.ns()
    r = bare.post(f"/api/v1/namespaces/{ns}/pods", _pod("p", priorityClassName="missing"))
    assert r.status_code == 403 and status_of(r) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'pods "p" is forbidden: no PriorityClass with name missing was found', "reason": "Forbidden",
        "details": {"name": "p", "kind": "pods"}, "code": 403}
    r = bare.post(f"/api/v1/namespaces/{ns}/pods", _pod("q", priority=7))
    assert r.status_code == 403 and status_of(r)["message"] == (
        'pods "q" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority '
        'admission controller computed 0 from the given PriorityClass name')
    r = bare.post(f"/api/v1/namespaces/{ns}/pods", _pod("crit", priorityClassName="system-cluster-critical"))
    assert r.status_code == 201 and r.json()["spec"]["priority"] == 2000000000  # in any namespace since 1.17
    pcs = "/apis/scheduling.k8s.io/v1/priorityclasses"
    assert bare.post(pcs, {"metadata": {"name": "low"}, "value": -5, "globalDefault": True,
                           "preemptionPolicy": "Never"}).status_code == 201
    r = bare.post(pcs, {"metadata": {"name": "second"}, "value": 1, "globalDefault": True})
    assert r.status_code == 403 and status_of(r)["message"] == (
        'priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass low is already marked as default. '
        'Only one default can exist')
    spec = bare.post(f"/api/v1/namespaces/{ns}/pods", _pod("d")).json()["spec"]
    assert (spec["priorityClassName"], spec["priority"], spec["preemptionPolicy"]) == ("low", -5, "Never")
    bare.http.delete(f"{bare.url}{pcs}/low")


def test_default_ingress_and_storage_classes(bare):
    ns = bare.ns()
    backend = {"service": {"name": "web", "port": {"number": 80}}}
    ing = {"metadata": {"name": "web"}, "spec": {"defaultBackend": backend}}
    r = bare.post(f"/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses", ing)
    assert r.status_code == 201 and "ingressClassName" not in r.json()["spec"]  # no default class yet
    assert bare.post("/apis/networking.k8s.io/v1/ingressclasses", {
        "metadata": {"name": "nginx", "annotations": {"ingressclass.kubernetes.io/is-default-class": "true"}},
        "spec": {"controller": "k8s.io/ingress-nginx"}}).status_code == 201
    r = bare.post(f"/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses", {**ing, "metadata": {"name": "w2"}})
    assert r.json()["spec"]["ingressClassName"] == "nginx"
    legacy = {**ing, "metadata": {"name": "w3", "annotations": {"kubernetes.io/ingress.class": "other"}}}
    assert "ingressClassName" not in bare.post(f"/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses",
                                               legacy).json()["spec"]
    assert bare.post("/apis/storage.k8s.io/v1/storageclasses", {
        "metadata": {"name": "fast", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "example.com/fast"}).status_code == 201
    claim = bare.post(f"/api/v1/namespaces/{ns}/persistentvolumeclaims", _claim("c")).json()
    assert claim["spec"]["storageClassName"] == "fast"
    events = _until(lambda: bare.events(ns, "c"), bool, "the external-provisioning event")
    assert events[0][:2] == ("Normal", "ExternalProvisioning")
    claim = bare.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/c")
    assert claim["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"] == "example.com/fast"
    for path in ("/apis/networking.k8s.io/v1/ingressclasses/nginx", "/apis/storage.k8s.io/v1/storageclasses/fast"):
        bare.http.delete(bare.url + path)


def test_newest_default_class_wins():
    def cls(name: str, created: str) -> dict[str, Any]:
        return {"metadata": {"name": name, "creationTimestamp": created}}
    assert newest([cls("a", "2025-01-01T00:00:00Z"), cls("b", "2025-01-02T00:00:00Z")])["metadata"]["name"] == "b"
    assert newest([cls("z", "2025-01-01T00:00:00Z"), cls("m", "2025-01-01T00:00:00Z")])["metadata"]["name"] == "m"
    assert newest([]) is None


def test_pod_binding(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    pods = f"{url}/api/v1/namespaces/{ns}/pods"
    assert http.post(pods, json=_pod("p")).status_code == 201
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"},
               "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}}
    r = http.post(f"{pods}/p/binding", json=binding)
    assert r.status_code == 201 and r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                                 "status": "Success", "code": 201}
    pod = http.get(f"{pods}/p").json()
    assert pod["spec"]["nodeName"] == "node-1"  # no such node: upstream never looks
    scheduled = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"]
    assert len(scheduled) == 1 and scheduled[0]["status"] == "True" and "reason" not in scheduled[0]
    r = http.post(f"{pods}/p/binding", json=binding)
    assert r.status_code == 409 and status_of(r) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-1"',
        "reason": "Conflict", "details": {"name": "p", "kind": "pods/binding"}, "code": 409}
    r = http.post(f"{pods}/gone/binding", json={**binding, "metadata": {"name": "gone"}})
    assert r.status_code == 404 and status_of(r)["message"] == 'pods "gone" not found'
    r = http.post(f"{pods}/p/binding", json={**binding, "metadata": {"name": "other"}})
    assert r.status_code == 400 and status_of(r)["message"] == "name in URL does not match name in Binding object"
    assert http.post(pods, json=_pod("q")).status_code == 201
    r = http.post(f"{pods}/q/binding", json={**binding, "metadata": {"name": "q"}, "target": {"kind": "Pod"}})
    assert r.status_code == 500 and status_of(r) == {  # ValidatePodBinding's plain aggregate: upstream's 500
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", '
                   'target.name: Required value]', "code": 500}
    r = http.post(f"{pods}/q/binding", json={**binding, "metadata": {"name": "q", "uid": "nope"}})
    assert r.status_code == 409 and "Precondition failed: UID in precondition: nope" in status_of(r)["message"]
    # the legacy collection: the Binding's own name
    r = http.post(f"{url}/api/v1/namespaces/{ns}/bindings", json={**binding, "metadata": {"name": "q"}})
    assert r.status_code == 201, r.text
    assert http.get(f"{pods}/q").json()["spec"]["nodeName"] == "node-1"
    assert http.get(f"{url}/api/v1/namespaces/{ns}/bindings").status_code == 405
    r = http.post(f"{url}/api/v1/namespaces/nsc-missing-{uuid.uuid4().hex[:6]}/pods/p/binding", json=binding)
    assert r.status_code == 404 and status_of(r)["message"].startswith('namespaces "nsc-missing-')
    resources = {r["name"]: r for r in http.get(f"{url}/api/v1").json()["resources"]}
    assert resources["bindings"] == {"name": "bindings", "singularName": "binding", "namespaced": True,
                                     "kind": "Binding", "verbs": ["create"]}
    assert resources["pods/binding"] == {"name": "pods/binding", "singularName": "", "namespaced": True,
                                         "kind": "Binding", "verbs": ["create"]}


def test_pod_binding_in_protobuf(http, url, namespaces):
    """What a typed client sends (client-go's `Pods(ns).Bind`, kube-scheduler): the Binding in protobuf, read as
    the JSON one is, on `pods/<name>/binding` and the legacy `bindings`; a body that is not a Binding is a 400."""
    from conformance.reference_server.wire import protobuf as pb

    ns = namespaces.create()["metadata"]["name"]
    pods = f"{url}/api/v1/namespaces/{ns}/pods"
    proto = {"Content-Type": "application/vnd.kubernetes.protobuf"}
    for name in ("p", "q", "r"):
        assert http.post(pods, json=_pod(name)).status_code == 201
    target = {"apiVersion": "v1", "kind": "Node", "name": "node-1"}
    raw = pb.encode({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"}, "target": target})
    r = http.post(f"{pods}/p/binding", data=raw, headers=proto)
    assert r.status_code == 201 and r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                                 "status": "Success", "code": 201}, r.text
    assert http.get(f"{pods}/p").json()["spec"]["nodeName"] == "node-1"
    raw = pb.encode({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "q", "namespace": ns},
                     "target": {**target, "name": "node-2"}})
    r = http.post(f"{url}/api/v1/namespaces/{ns}/bindings", data=raw, headers=proto)
    assert r.status_code == 201, r.text
    assert http.get(f"{pods}/q").json()["spec"]["nodeName"] == "node-2"
    raw = pb.encode({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "r"}, "target": {"kind": "Pod"}})
    r = http.post(f"{pods}/r/binding", data=raw, headers=proto)  # the same ValidatePodBinding as a JSON body's
    assert r.status_code == 500 and status_of(r)["message"] == (
        '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]')
    r = http.post(f"{pods}/r/binding", data=pb.encode({"apiVersion": "v1", "kind": "Pod", **_pod("r")}),
                  headers=proto)
    assert r.status_code == 400 and status_of(r)["reason"] == "BadRequest"
    r = http.post(f"{pods}/r/binding", data=b"k8s\x00garbage", headers=proto)
    assert r.status_code == 400
    assert status_of(r)["message"].startswith("the object provided is unrecognized (must be of type Binding): ")
    assert "nodeName" not in http.get(f"{pods}/r").json()["spec"]
