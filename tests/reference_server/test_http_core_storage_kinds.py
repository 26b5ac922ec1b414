"""The core/v1 kinds kind serves besides the usual namespace content: PersistentVolumeClaims, PersistentVolumes,
PodTemplates, ReplicationControllers, ComponentStatuses. Served, defaulted, validated with upstream's texts,
printed as tables, encoded in protobuf, and removed with their namespace."""
from __future__ import annotations

import time
import uuid

import pytest

from .conftest import status_of, wait_gone

CONTAINERS = [{"name": "c", "image": "nginx"}]
PVC = {"metadata": {"name": "claim"},
       "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
RC = {"metadata": {"name": "rc"}, "spec": {"replicas": 2, "template": {"metadata": {"labels": {"app": "rc"}},
                                                                       "spec": {"containers": CONTAINERS}}}}
PT = {"metadata": {"name": "pt"},
      "template": {"metadata": {"labels": {"app": "pt"}}, "spec": {"containers": CONTAINERS}}}
TABLE = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}


def _pv(name: str, **spec) -> dict:
    """A volume of a class no claim here asks for: the PV controller leaves it `Available` (a class-less one
    would bind a class-less claim another test left behind, as on a real cluster)."""
    return {"metadata": {"name": name}, "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"},
                                                 "hostPath": {"path": "/tmp/x"}, "storageClassName": "nsc-unclaimed",
                                                 **spec}}


@pytest.fixture
def ns(namespaces):
    return namespaces.create()["metadata"]["name"]


@pytest.fixture
def pv_name(http, url):
    name = f"pv-{uuid.uuid4().hex[:8]}"
    yield name
    http.patch(f"{url}/api/v1/persistentvolumes/{name}", json={"metadata": {"finalizers": None}},
               headers={"Content-Type": "application/merge-patch+json"})
    http.delete(f"{url}/api/v1/persistentvolumes/{name}")


def test_a_namespace_holding_one_of_each_deletes(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    for plural, body in (("persistentvolumeclaims", PVC), ("podtemplates", PT), ("replicationcontrollers", RC)):
        r = http.post(f"{url}/api/v1/namespaces/{ns}/{plural}", json=body)
        assert r.status_code == 201, r.text
    assert http.delete(f"{url}/api/v1/namespaces/{ns}").status_code == 200
    wait_gone(http, url, ns)  # the claim's pvc-protection finalizer is taken off: no pod is on a node
    assert http.get(f"{url}/api/v1/namespaces/{ns}/persistentvolumeclaims/claim").status_code == 404


def test_claim_defaults_status_and_finalizer(http, url, ns):
    r = http.post(f"{url}/api/v1/namespaces/{ns}/persistentvolumeclaims", json=PVC)
    assert r.status_code == 201, r.text
    claim = r.json()
    assert claim["spec"]["volumeMode"] == "Filesystem"
    assert claim["status"] == {"phase": "Pending"}
    assert claim["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    table = http.get(f"{url}/api/v1/namespaces/{ns}/persistentvolumeclaims", headers=TABLE).json()
    assert [c["name"] for c in table["columnDefinitions"]] == [
        "Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass", "Age",
        "VolumeMode"]
    assert table["rows"][0]["cells"][:7] == ["claim", "Pending", "", "", "", "", "<unset>"]
    # an unbound claim's spec is immutable
    r = http.patch(f"{url}/api/v1/namespaces/{ns}/persistentvolumeclaims/claim",
                   json={"spec": {"resources": {"requests": {"storage": "2Gi"}}}},
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 422 and "spec: Forbidden: spec is immutable after creation except resources.requests " \
        "and volumeAttributesClassName for bound claims" in status_of(r)["message"]
    # the status goes through /status only
    r = http.patch(f"{url}/api/v1/namespaces/{ns}/persistentvolumeclaims/claim/status",
                   json={"status": {"phase": "Lost"}}, headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["status"]["phase"] == "Lost", r.text


@pytest.mark.parametrize("spec, message", [
    ({}, 'PersistentVolumeClaim "bad" is invalid: [spec.accessModes: Required value: at least 1 access mode is '
         'required, spec.resources[storage]: Required value]'),
    ({"accessModes": ["ReadWriteSometimes"], "resources": {"requests": {"storage": "0"}}},
     'PersistentVolumeClaim "bad" is invalid: [spec.accessModes: Unsupported value: "ReadWriteSometimes": supported '
     'values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod", spec.resources[storage]: '
     'Invalid value: "0": must be greater than zero]'),
])
def test_claim_required_fields(http, url, ns, spec, message):
    r = http.post(f"{url}/api/v1/namespaces/{ns}/persistentvolumeclaims", json={"metadata": {"name": "bad"},
                                                                              "spec": spec})
    assert r.status_code == 422 and status_of(r)["message"] == message


def test_volume_defaults_finalizer_and_validation(http, url, pv_name):
    r = http.post(f"{url}/api/v1/persistentvolumes", json=_pv(pv_name))
    assert r.status_code == 201, r.text
    pv = r.json()
    assert "namespace" not in pv["metadata"] and pv["metadata"]["finalizers"] == ["kubernetes.io/pv-protection"]
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain" and pv["spec"]["volumeMode"] == "Filesystem"
    assert pv["status"]["phase"] in ("Pending", "Available")  # the PV controller makes it Available
    table = http.get(f"{url}/api/v1/persistentvolumes/{pv_name}", headers=TABLE).json()
    assert [c["name"] for c in table["columnDefinitions"]][:6] == [
        "Name", "Capacity", "Access Modes", "Reclaim Policy", "Status", "Claim"]
    assert table["rows"][0]["cells"][:4] == [pv_name, "1Gi", "RWO", "Retain"]
    r = http.post(f"{url}/api/v1/persistentvolumes", json={"metadata": {"name": "bad"}, "spec": {}})
    assert r.status_code == 422 and status_of(r)["message"] == (
        'PersistentVolume "bad" is invalid: [spec.accessModes: Required value, spec.capacity: Required value, '
        'spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage", '
        'spec: Required value: must specify a volume type]')
    r = http.patch(f"{url}/api/v1/persistentvolumes/{pv_name}", json={"spec": {"hostPath": {"path": "/tmp/y"}}},
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 422 and status_of(r)["message"] == (  # upstream's diff is go-cmp's, simplified here
        f'PersistentVolume "{pv_name}" is invalid: spec.persistentvolumesource: Forbidden: '
        "spec.persistentvolumesource is immutable after creation\n"
        '  core.PersistentVolumeSource{\n- \tHostPath: {"path": "/tmp/x"},\n+ \tHostPath: {"path": "/tmp/y"},\n  }\n')
    assert http.delete(f"{url}/api/v1/persistentvolumes/{pv_name}").status_code == 200
    deadline = time.monotonic() + 10  # gone once pv-protection lets it go (polling: a few reads)
    while http.get(f"{url}/api/v1/persistentvolumes/{pv_name}").status_code != 404:
        assert time.monotonic() < deadline, "the pv-protection finalizer was never removed"
        time.sleep(0.02)


def _required(*values: str) -> dict:
    return {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": list(values)}]}]}}


@pytest.mark.parametrize("spec, message", [
    ({"hostPath": None, "local": {"path": "/mnt"}}, "spec.nodeAffinity: Required value: Local volume requires node "
                                                    "affinity"),
    ({"nodeAffinity": {}}, "spec.nodeAffinity.required: Required value: must specify required node constraints"),
    ({"nodeAffinity": {"required": {"nodeSelectorTerms": []}}},
     "spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least one node selector term"),
    ({"nodeAffinity": _required("-1")},
     'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "-1": a valid '
     "label must be an empty string or consist of alphanumeric characters"),
])
def test_volume_node_affinity_is_validated(http, url, pv_name, spec, message):
    """`validateVolumeNodeAffinity`: a local volume needs one, `required` must be given, and its values are label
    values (kubernetes#128212) unless the stored volume's were not."""
    r = http.post(f"{url}/api/v1/persistentvolumes", json=_pv(pv_name, **spec))
    assert r.status_code == 422, r.text
    assert status_of(r)["message"].startswith(f'PersistentVolume "{pv_name}" is invalid: {message}')


def test_a_local_volume_with_node_affinity_is_created(http, url, pv_name):
    r = http.post(f"{url}/api/v1/persistentvolumes",
                  json=_pv(pv_name, hostPath=None, local={"path": "/mnt"}, nodeAffinity=_required("n1")))
    assert r.status_code == 201, r.text


def _zone_affinity(key: str, zone: str = "z1") -> dict:
    return {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": key, "operator": "In", "values": [zone]}]}]}}


def test_volume_node_affinity_is_immutable_but_for_beta_to_ga_labels(http, url, pv_name):
    """`ValidatePersistentVolumeUpdate` / `validatePvNodeAffinity` (1.33): once set, `spec.nodeAffinity` may not
    change (path `nodeAffinity`, the value as `%#v` of the internal struct; removed: `"null"`), except a
    requirement's key moving from a beta topology label to its GA one; a volume without one may be given one."""
    merge = {"Content-Type": "application/merge-patch+json"}
    pvs = f"{url}/api/v1/persistentvolumes"
    beta = _zone_affinity("failure-domain.beta.kubernetes.io/zone")
    assert http.post(pvs, json=_pv(pv_name, nodeAffinity=beta)).status_code == 201
    immutable = "field is immutable, except for updating from beta label to GA"
    for affinity, shown in ((_zone_affinity("failure-domain.beta.kubernetes.io/zone", "z2"),
                             "core.VolumeNodeAffinity{Required:(*core.NodeSelector)(0xc000000000)}"),
                            (_zone_affinity("topology.kubernetes.io/region"),
                             "core.VolumeNodeAffinity{Required:(*core.NodeSelector)(0xc000000000)}"),
                            (None, '"null"')):
        r = http.patch(f"{pvs}/{pv_name}", json={"spec": {"nodeAffinity": affinity}}, headers=merge)
        assert r.status_code == 422, r.text
        status = status_of(r)
        assert status["message"] == (f'PersistentVolume "{pv_name}" is invalid: nodeAffinity: Invalid value: '
                                     f"{shown}: {immutable}")
        assert status["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "nodeAffinity",
                                                "message": f"Invalid value: {shown}: {immutable}"}]
    r = http.patch(f"{pvs}/{pv_name}", json={"spec": {"nodeAffinity": _zone_affinity("topology.kubernetes.io/zone")}},
                   headers=merge)
    assert r.status_code == 200, r.text
    assert r.json()["spec"]["nodeAffinity"] == _zone_affinity("topology.kubernetes.io/zone")
    r = http.patch(f"{pvs}/{pv_name}", json={"spec": {"nodeAffinity": beta}}, headers=merge)  # not back to beta
    assert r.status_code == 422 and immutable in status_of(r)["message"], r.text


def test_a_volume_without_node_affinity_may_be_given_one(http, url, pv_name):
    pvs = f"{url}/api/v1/persistentvolumes"
    assert http.post(pvs, json=_pv(pv_name)).status_code == 201
    r = http.patch(f"{pvs}/{pv_name}", json={"spec": {"nodeAffinity": _zone_affinity("topology.kubernetes.io/zone")}},
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text


def test_a_csi_volumes_controller_expand_secret_ref_may_be_set_once(http, url, pv_name):
    """`ValidatePersistentVolumeUpdate`: a CSI source without `controllerExpandSecretRef` may be given one; the
    source is immutable otherwise."""
    pvs, merge = f"{url}/api/v1/persistentvolumes", {"Content-Type": "application/merge-patch+json"}
    r = http.post(pvs, json=_pv(pv_name, hostPath=None, csi={"driver": "csi.example.com", "volumeHandle": "h"}))
    assert r.status_code == 201, r.text
    ref = {"csi": {"controllerExpandSecretRef": {"name": "s", "namespace": "default"}}}
    r = http.patch(f"{pvs}/{pv_name}", json={"spec": ref}, headers=merge)
    assert r.status_code == 200 and r.json()["spec"]["csi"]["controllerExpandSecretRef"]["name"] == "s", r.text
    ref["csi"]["controllerExpandSecretRef"]["name"] = "t"
    r = http.patch(f"{pvs}/{pv_name}", json={"spec": ref}, headers=merge)
    assert r.status_code == 422, r.text
    assert "spec.persistentvolumesource is immutable after creation\n  core.PersistentVolumeSource{\n- \tCSI: {" \
        in status_of(r)["message"]


def test_replication_controller_defaults_scale_and_validation(http, url, ns):
    base = f"{url}/api/v1/namespaces/{ns}/replicationcontrollers"
    r = http.post(base, json=RC)
    assert r.status_code == 201, r.text
    rc = r.json()
    assert rc["spec"]["selector"] == {"app": "rc"} and rc["metadata"]["labels"] == {"app": "rc"}
    assert rc["metadata"]["generation"] == 1 and rc["status"] == {"replicas": 0}
    assert rc["spec"]["template"]["spec"]["restartPolicy"] == "Always"
    scale = http.get(f"{base}/rc/scale").json()
    assert scale["apiVersion"] == "autoscaling/v1" and scale["spec"] == {"replicas": 2}
    assert scale["status"]["selector"] == "app=rc"
    r = http.patch(f"{base}/rc/scale", json={"spec": {"replicas": 5}},
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 5}, r.text
    got = http.get(f"{base}/rc").json()
    assert got["spec"]["replicas"] == 5 and got["metadata"]["generation"] == 2
    table = http.get(base, headers=TABLE).json()
    assert [c["name"] for c in table["columnDefinitions"]][:5] == ["Name", "Desired", "Current", "Ready", "Age"]
    assert table["rows"][0]["cells"][:3] == ["rc", 5, 0]
    bad = {"metadata": {"name": "bad"}, "spec": {"selector": {"app": "x"}, "template": {
        "metadata": {"labels": {"app": "y"}}, "spec": {"restartPolicy": "Never", "containers": CONTAINERS}}}}
    r = http.post(base, json=bad)
    assert r.status_code == 422 and status_of(r)["message"] == (
        'ReplicationController "bad" is invalid: [spec.template.metadata.labels: Invalid value: '
        'map[string]string{"app":"y"}: `selector` does not match template `labels`, spec.template.spec.restartPolicy: '
        'Unsupported value: "Never": supported values: "Always"]')
    r = http.post(base, json={"metadata": {"name": "bad"}, "spec": {}})
    assert r.status_code == 422 and status_of(r)["message"] == (
        'ReplicationController "bad" is invalid: [spec.selector: Required value, spec.template: Required value]')


def test_pod_template_generation_and_validation(http, url, ns):
    base = f"{url}/api/v1/namespaces/{ns}/podtemplates"
    r = http.post(base, json=PT)
    assert r.status_code == 201, r.text
    assert r.json()["metadata"]["generation"] == 1
    assert r.json()["template"]["spec"]["dnsPolicy"] == "ClusterFirst"
    r = http.patch(f"{base}/pt", json={"template": {"metadata": {"labels": {"app": "pt2"}}}},
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200 and r.json()["metadata"]["generation"] == 2
    table = http.get(base, headers=TABLE).json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Containers", "Images", "Pod Labels"]
    assert table["rows"][0]["cells"] == ["pt", "c", "nginx", "app=pt2"]
    r = http.post(base, json={"metadata": {"name": "bad"}, "template": {}})
    assert r.status_code == 422 and status_of(r)["message"] == (
        'PodTemplate "bad" is invalid: template.spec.containers: Required value')


def test_component_statuses_are_read_only_and_deprecated(http, url):
    r = http.get(f"{url}/api/v1/componentstatuses")
    assert r.status_code == 200 and r.headers["Warning"] == '299 - "v1 ComponentStatus is deprecated in v1.19+"'
    assert sorted(i["metadata"]["name"] for i in r.json()["items"]) == ["controller-manager", "etcd-0", "scheduler"]
    got = http.get(f"{url}/api/v1/componentstatuses/etcd-0").json()
    assert got["conditions"] == [{"type": "Healthy", "status": "True", "message": "ok"}]
    r = http.get(f"{url}/api/v1/componentstatuses/nope")  # upstream: a plain error, so a 500 without a reason
    assert r.status_code == 500 and status_of(r)["message"] == "Component not found: nope"
    assert "reason" not in r.json()
    assert http.post(f"{url}/api/v1/componentstatuses", json={"metadata": {"name": "x"}}).status_code == 405
    table = http.get(f"{url}/api/v1/componentstatuses", headers=TABLE).json()
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Status", "Message", "Error"]


def test_discovery_and_protobuf(http, url, ns):
    resources = {r["name"]: r for r in http.get(f"{url}/api/v1").json()["resources"]}
    assert resources["persistentvolumeclaims"]["shortNames"] == ["pvc"]
    assert resources["persistentvolumes"]["namespaced"] is False
    assert resources["replicationcontrollers"]["categories"] == ["all"]
    assert resources["componentstatuses"]["verbs"] == ["get", "list"]
    assert resources["replicationcontrollers/scale"]["kind"] == "Scale"
    assert resources["replicationcontrollers/scale"]["group"] == "autoscaling"
    for sub in ("persistentvolumeclaims/status", "persistentvolumes/status", "replicationcontrollers/status"):
        assert resources[sub]["verbs"] == ["get", "patch", "update"]
    assert "podtemplates" in resources and "shortNames" not in resources["podtemplates"]
    http.post(f"{url}/api/v1/namespaces/{ns}/persistentvolumeclaims", json=PVC)
    r = http.get(f"{url}/api/v1/namespaces/{ns}/persistentvolumeclaims/claim",
                 headers={"Accept": "application/vnd.kubernetes.protobuf"})
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/vnd.kubernetes.protobuf"
    assert r.content.startswith(b"k8s\x00") and b"PersistentVolumeClaim" in r.content


def test_quota_counts_claims_and_their_storage(http, url, ns):
    """persistent_volume_claims.go: object counts and requests.storage, also per storage class."""
    hard = {"persistentvolumeclaims": "1", "requests.storage": "1Gi",
            "gold.storageclass.storage.k8s.io/requests.storage": "5Gi"}
    assert http.post(f"{url}/api/v1/namespaces/{ns}/resourcequotas",
                     json={"metadata": {"name": "q"}, "spec": {"hard": hard}}).status_code == 201
    claim = {"metadata": {"name": "a"}, "spec": {**PVC["spec"], "storageClassName": "gold",
                                                 "resources": {"requests": {"storage": "512Mi"}}}}
    r = http.post(f"{url}/api/v1/namespaces/{ns}/persistentvolumeclaims", json=claim)
    assert r.status_code == 201, r.text
    claim["metadata"]["name"] = "b"
    r = http.post(f"{url}/api/v1/namespaces/{ns}/persistentvolumeclaims", json=claim)
    assert r.status_code == 403 and status_of(r)["message"] == (
        'persistentvolumeclaims "b" is forbidden: exceeded quota: q, requested: persistentvolumeclaims=1, '
        'used: persistentvolumeclaims=1, limited: persistentvolumeclaims=1')
    used = http.get(f"{url}/api/v1/namespaces/{ns}/resourcequotas/q").json()["status"]["used"]
    assert used == {"persistentvolumeclaims": "1", "requests.storage": "512Mi",
                    "gold.storageclass.storage.k8s.io/requests.storage": "512Mi"}


def test_replication_controllers_select_by_status_replicas(http, url, ns):
    """`AddFieldLabelConversionsForReplicationController`: `status.replicas`; other labels: upstream's text."""
    base = f"{url}/api/v1/namespaces/{ns}/replicationcontrollers"
    assert http.post(base, json=RC).status_code == 201
    names = lambda sel: [i["metadata"]["name"] for i in http.get(base, params={"fieldSelector": sel}).json()["items"]]  # noqa: E731
    assert names("status.replicas=0") == ["rc"] and names("status.replicas!=0") == []
    r = http.get(base, params={"fieldSelector": "spec.replicas=2"})
    assert r.status_code == 400 and status_of(r)["message"] == "field label not supported: spec.replicas"


def test_component_statuses_cannot_be_watched(http, url):
    """No watch route upstream (404); `?watch=true` on the list: MethodNotSupported."""
    assert http.get(f"{url}/api/v1/watch/componentstatuses").status_code == 404
    r = http.get(f"{url}/api/v1/componentstatuses", params={"watch": "true"})
    assert r.status_code == 405 and status_of(r)["message"] == (
        'watch is not supported on resources of kind "componentstatuses"')
