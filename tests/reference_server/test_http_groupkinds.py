"""The networking/scheduling/storage/node kinds (registry/groupkinds.py): served with upstream's defaults and
required-field validation, the system priority classes present and kept, the namespaced ones removed with their
namespace, tables with printers.go's columns, protobuf answers."""
from __future__ import annotations

import copy

import pytest

from .conftest import status_of, unique, wait_gone

BACKEND = {"service": {"name": "web", "port": {"number": 80}}}
INGRESS = {"rules": [{"host": "a.example.com", "http": {"paths": [
    {"path": "/", "pathType": "Prefix", "backend": BACKEND}]}}]}
NAMESPACED = {
    ("networking.k8s.io", "ingresses"): {"spec": INGRESS},
    ("storage.k8s.io", "csistoragecapacities"): {"storageClassName": "standard", "capacity": "1Gi"},
}
CLUSTER = {
    ("networking.k8s.io", "ingressclasses"): {"spec": {"controller": "example.com/ingress"}},
    ("scheduling.k8s.io", "priorityclasses"): {"value": 1000},
    ("storage.k8s.io", "storageclasses"): {"provisioner": "example.com/disk"},
    ("storage.k8s.io", "csidrivers"): {"spec": {}},
    ("storage.k8s.io", "csinodes"): {"spec": {"drivers": [{"name": "example.com", "nodeID": "n1"}]}},
    ("storage.k8s.io", "volumeattachments"): {"spec": {"attacher": "example.com", "nodeName": "n1",
                                                       "source": {"persistentVolumeName": "pv1"}}},
    ("node.k8s.io", "runtimeclasses"): {"handler": "runc"},
}


def _body(group: str, plural: str, name: str) -> dict:
    return {"metadata": {"name": name}, **copy.deepcopy({**NAMESPACED, **CLUSTER}[(group, plural)])}


@pytest.mark.parametrize("group, plural", sorted(NAMESPACED))
def test_namespaced_crud_and_namespace_deletion(http, url, namespaces, group, plural):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/{group}/v1/namespaces/{ns}/{plural}"
    r = http.post(base, json=_body(group, plural, "obj"))
    assert r.status_code == 201, r.text
    assert r.json()["apiVersion"] == f"{group}/v1"
    assert [i["metadata"]["name"] for i in http.get(base).json()["items"]] == ["obj"]
    assert http.delete(f"{url}/api/v1/namespaces/{ns}").status_code == 200
    wait_gone(http, url, ns)
    assert http.get(f"{base}/obj").status_code == 404


@pytest.mark.parametrize("group, plural", sorted(CLUSTER))
def test_cluster_scoped_crud(http, url, group, plural):
    name = unique("gk")
    base = f"{url}/apis/{group}/v1/{plural}"
    r = http.post(base, json=_body(group, plural, name))
    assert r.status_code == 201, r.text
    assert "namespace" not in r.json()["metadata"]
    assert http.get(f"{base}/{name}").status_code == 200
    assert http.get(f"{url}/apis/{group}/v1/namespaces/default/{plural}").status_code == 404
    r = http.delete(f"{base}/{name}")
    assert r.status_code == 200, r.text
    # the storage.k8s.io stores set `ReturnDeletedObject`: the deleted object, where the others answer a Status
    deleted = r.json()
    if group == "storage.k8s.io":
        assert deleted["kind"] != "Status" and deleted["metadata"]["name"] == name, deleted
    else:
        assert deleted["kind"] == "Status", deleted
    assert http.get(f"{base}/{name}").status_code == 404


def test_discovery_scope_and_short_names(http, url):
    want = {"ingresses": (True, ["ing"]), "ingressclasses": (False, None), "priorityclasses": (False, ["pc"]),
            "storageclasses": (False, ["sc"]), "csidrivers": (False, None), "csinodes": (False, None),
            "volumeattachments": (False, None), "csistoragecapacities": (True, None), "runtimeclasses": (False, None),
            "ingresses/status": (True, None), "volumeattachments/status": (False, None)}
    seen = {}
    for gv in ("networking.k8s.io/v1", "scheduling.k8s.io/v1", "storage.k8s.io/v1", "node.k8s.io/v1"):
        for res in http.get(f"{url}/apis/{gv}").json()["resources"]:
            seen[res["name"]] = (res["namespaced"], res.get("shortNames"))
    assert {k: seen.get(k) for k in want} == want


def test_system_priority_classes(http, url):
    """Created at start as the bootstrap hook does; DELETE answers 403; value and preemptionPolicy immutable."""
    base = f"{url}/apis/scheduling.k8s.io/v1/priorityclasses"
    items = {i["metadata"]["name"]: i for i in http.get(base).json()["items"]}
    node, cluster = items["system-node-critical"], items["system-cluster-critical"]
    assert (node["value"], cluster["value"]) == (2000001000, 2000000000)
    assert cluster["description"] == ("Used for system critical pods that must run in the cluster, but can be "
                                      "moved to another node if necessary.")
    assert node["preemptionPolicy"] == "PreemptLowerPriority" and "globalDefault" not in node
    r = http.delete(f"{base}/system-node-critical")
    assert r.status_code == 403
    assert status_of(r)["message"] == ('priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: '
                                       "this is a system priority class and cannot be deleted")
    r = http.patch(f"{base}/system-cluster-critical", json={"value": 5},
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 422
    assert status_of(r)["message"] == ('PriorityClass.scheduling.k8s.io "system-cluster-critical" is invalid: '
                                       "value: Forbidden: may not be changed in an update.")


@pytest.mark.parametrize("name, value, message", [
    ("system-mine", 5, "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for "
                       "system use only. error: system-mine is not a known system priority class"),
    ("system-node-critical", 7, "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved "
                                "for system use only. error: value of system-node-critical PriorityClass must be "
                                "2000001000"),
    ("pc-high", 1000000001, "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"),
])
def test_priority_class_validation(http, url, name, value, message):
    r = http.post(f"{url}/apis/scheduling.k8s.io/v1/priorityclasses",
                  json={"metadata": {"name": name}, "value": value})
    assert r.status_code == 422, r.text
    assert status_of(r)["message"] == f'PriorityClass.scheduling.k8s.io "{name}" is invalid: {message}'


@pytest.mark.parametrize("spec, message", [
    ({}, "spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified"),
    ({"rules": [{"http": {"paths": [{"path": "/", "backend": BACKEND}]}}]},
     "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"),
    ({"rules": [{"http": {"paths": [{"path": "a", "pathType": "Prefix", "backend": {}}]}}]},
     '[spec.rules[0].http.paths[0].path: Invalid value: "a": must be an absolute path, '
     'spec.rules[0].http.paths[0].backend: Invalid value: "": resource or service backend is required]'),
    ({"defaultBackend": {"service": {"name": "web"}}},
     "spec.defaultBackend: Required value: port name or number is required"),
])
def test_ingress_validation(http, url, namespaces, spec, message):
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(f"{url}/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses",
                  json={"metadata": {"name": "i"}, "spec": spec})
    assert r.status_code == 422, r.text
    assert status_of(r)["message"] == f'Ingress.networking.k8s.io "i" is invalid: {message}'


def test_ingress_status_and_generation(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    base = f"{url}/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses"
    created = http.post(base, json={"metadata": {"name": "i"}, "spec": INGRESS,
                                    "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}}).json()
    assert created["status"] == {"loadBalancer": {}} and created["metadata"]["generation"] == 1
    created["status"] = {"loadBalancer": {"ingress": [{"ip": "10.0.0.9"}]}}
    r = http.put(f"{base}/i/status", json=created)
    assert r.status_code == 200, r.text
    assert r.json()["status"]["loadBalancer"]["ingress"] == [{"ip": "10.0.0.9"}]
    assert r.json()["metadata"]["generation"] == 1
    spec = copy.deepcopy(INGRESS)
    spec["ingressClassName"] = "nginx"
    r = http.patch(f"{base}/i", json={"spec": spec}, headers={"Content-Type": "application/merge-patch+json"})
    assert r.json()["metadata"]["generation"] == 2 and r.json()["status"]["loadBalancer"]["ingress"]


def test_storage_defaults_and_immutability(http, url):
    sc_base = f"{url}/apis/storage.k8s.io/v1/storageclasses"
    name = unique("sc")
    sc = http.post(sc_base, json={"metadata": {"name": name}, "provisioner": "example.com/disk"}).json()
    assert (sc["reclaimPolicy"], sc["volumeBindingMode"]) == ("Delete", "Immediate")
    r = http.patch(f"{sc_base}/{name}", json={"provisioner": "other.io/x", "parameters": {"a": "b"}},
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 422
    assert status_of(r)["message"] == (f'StorageClass.storage.k8s.io "{name}" is invalid: [parameters: Forbidden: '
                                       "updates to parameters are forbidden., provisioner: Forbidden: updates to "
                                       "provisioner are forbidden.]")
    r = http.post(sc_base, json={"metadata": {"name": unique("sc")}})
    assert status_of(r)["message"].endswith("is invalid: provisioner: Required value")
    driver = http.post(f"{url}/apis/storage.k8s.io/v1/csidrivers",
                       json={"metadata": {"name": unique("d")}, "spec": {}}).json()
    assert driver["spec"] == {"attachRequired": True, "podInfoOnMount": False, "storageCapacity": False,
                              "fsGroupPolicy": "ReadWriteOnceWithFSType", "requiresRepublish": False,
                              "seLinuxMount": False, "volumeLifecycleModes": ["Persistent"]}
    r = http.post(f"{url}/apis/storage.k8s.io/v1/volumeattachments", json={"metadata": {"name": "va"}, "spec": {}})
    subdomain = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
                 "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
                 r"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
    # validateVolumeAttachmentSpec, then ValidateVolumeAttachmentV1's ValidateCSIDriverName of the attacher (its
    # Required repeats the first error: the aggregate message shows it once)
    assert status_of(r)["message"] == (
        'VolumeAttachment.storage.k8s.io "va" is invalid: [spec.attacher: Required value, spec.source: Required '
        "value: must specify exactly one of inlineVolumeSpec and persistentVolumeName, spec.nodeName: Invalid "
        f'value: "": {subdomain}, spec.attacher: Invalid value: "": {subdomain}]')
    va_name = unique("va")
    va = http.post(f"{url}/apis/storage.k8s.io/v1/volumeattachments", json=_body(
        "storage.k8s.io", "volumeattachments", va_name)).json()
    assert va["status"] == {"attached": False} and "generation" not in va["metadata"]
    va["status"] = {"attached": True}
    r = http.put(f"{url}/apis/storage.k8s.io/v1/volumeattachments/{va_name}/status", json=va)
    assert r.status_code == 200 and r.json()["status"] == {"attached": True}
    for path in (f"storageclasses/{name}", f"csidrivers/{driver['metadata']['name']}", f"volumeattachments/{va_name}"):
        assert http.delete(f"{url}/apis/storage.k8s.io/v1/{path}").status_code == 200


def test_runtime_class_handler(http, url):
    base = f"{url}/apis/node.k8s.io/v1/runtimeclasses"
    r = http.post(base, json={"metadata": {"name": "rc"}, "handler": "Bad_Handler"})
    assert r.status_code == 422
    assert status_of(r)["message"].startswith('RuntimeClass.node.k8s.io "rc" is invalid: handler: Invalid value: '
                                              '"Bad_Handler": a lowercase RFC 1123 label must consist of')
    name = unique("rc")
    assert http.post(base, json={"metadata": {"name": name}, "handler": "runc"}).status_code == 201
    r = http.patch(f"{base}/{name}", json={"handler": "kata"}, headers={"Content-Type": "application/merge-patch+json"})
    assert status_of(r)["message"] == (f'RuntimeClass.node.k8s.io "{name}" is invalid: handler: Invalid value: '
                                       '"kata": field is immutable')
    assert http.delete(f"{base}/{name}").status_code == 200


TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def test_tables(http, url):
    rows = {r["cells"][0]: r["cells"] for r in http.get(f"{url}/apis/scheduling.k8s.io/v1/priorityclasses",
                                                       headers={"Accept": TABLE}).json()["rows"]}
    assert rows["system-node-critical"][1:3] == [2000001000, False]
    assert rows["system-node-critical"][4] == "PreemptLowerPriority"
    cols = http.get(f"{url}/apis/storage.k8s.io/v1/storageclasses", headers={"Accept": TABLE}).json()
    assert [c["name"] for c in cols["columnDefinitions"]] == ["Name", "Provisioner", "ReclaimPolicy",
                                                               "VolumeBindingMode", "AllowVolumeExpansion", "Age"]


@pytest.mark.parametrize("path", ["/apis/scheduling.k8s.io/v1/priorityclasses",
                                  "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical"])
def test_protobuf_answer(http, url, path):
    """Asked for protobuf first (as typed clients do), answered in protobuf: the kinds are in the field model."""
    r = http.get(url + path, headers={"Accept": "application/vnd.kubernetes.protobuf, application/json"})
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/vnd.kubernetes.protobuf"
    assert r.content.startswith(b"k8s\x00") and b"system-node-critical" in r.content


def test_priority_class_collection_delete_is_the_generic_store(http, url, server):
    """Upstream's DeleteCollection is the embedded Store's (its REST.Delete guard is not on that path): a label
    selector picks what goes; the system classes, unlabelled, stay."""
    base = f"{url}/apis/scheduling.k8s.io/v1/priorityclasses"
    label = unique("sel")
    name = unique("pc")
    assert http.post(base, json={"metadata": {"name": name, "labels": {"t": label}}, "value": 1}).status_code == 201
    r = http.delete(base, params={"labelSelector": f"t={label}"})
    assert r.status_code == 200, r.text
    assert [i["metadata"]["name"] for i in r.json()["items"]] == [name]
    assert http.get(f"{base}/system-node-critical").status_code == 200


def test_system_priority_classes_bootstrap_and_collection_delete():
    """On a fresh store the hook makes both classes; DELETE by name is refused, a collection delete removes them
    (upstream's Store.DeleteCollection), and the hook makes them again at the next start."""
    from conformance.reference_server.apierrors import StatusError
    from conformance.reference_server.registry import DeleteOptions, ListOptions, Registry
    from conformance.reference_server.registry.groupkinds import ensure_system_priority_classes
    from conformance.reference_server.storage import MemoryStore

    store = Registry(MemoryStore()).group("scheduling.k8s.io", "priorityclasses")
    ensure_system_priority_classes(store)
    names = ["system-cluster-critical", "system-node-critical"]
    assert [i["metadata"]["name"] for i in store.list(None, ListOptions())["items"]] == names
    with pytest.raises(StatusError) as e:
        store.delete("", "system-node-critical", DeleteOptions())
    assert e.value.code == 403
    store.delete_collection(None, ListOptions(), DeleteOptions())
    assert store.list(None, ListOptions())["items"] == []
    ensure_system_priority_classes(store)
    assert [i["metadata"]["name"] for i in store.list(None, ListOptions())["items"]] == names


@pytest.mark.parametrize("plural, body, change, created", [
    ("networking.k8s.io/v1/ingressclasses", {"spec": {"controller": "example.com/a"}},
     {"spec": {"parameters": {"kind": "K", "name": "p", "scope": "Cluster"}}}, 1),
    ("storage.k8s.io/v1/csidrivers", {"spec": {}}, {"spec": {"podInfoOnMount": True}}, None),
])
def test_generation_on_spec_change(http, url, plural, body, change, created):
    """ingressClassStrategy sets generation 1 on create, csiDriverStrategy none; both add 1 on a spec change."""
    base, name = f"{url}/apis/{plural}", unique("gen")
    obj = http.post(base, json={"metadata": {"name": name}, **body}).json()
    assert obj["metadata"].get("generation") == created
    merge = {"Content-Type": "application/merge-patch+json"}
    r = http.patch(f"{base}/{name}", json={"metadata": {"labels": {"a": "b"}}}, headers=merge)
    assert r.json()["metadata"].get("generation") == created
    r = http.patch(f"{base}/{name}", json=change, headers=merge)
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["generation"] == (created or 0) + 1
    assert http.delete(f"{base}/{name}").status_code == 200
