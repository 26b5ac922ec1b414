"""The fields of 1.33's disabled feature gates that each kind's strategy drops (registry/gateddrops.py): a create
drops them, an update keeps one only where the stored object used it; the official client and kubectl read the
result back."""
from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry.gateddrops import (SPEC_RULES, drop_disabled_fields,
                                                              drop_disabled_status_fields_of)
from tests.reference_server.ownserver import own_server
from tests.reference_server.test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture

MERGE = {"Content-Type": "application/merge-patch+json"}

# kind, a written object carrying the gated field, where it sits, and the object with it dropped
SPEC_CASES = [
    ("StatefulSet", {"spec": {"updateStrategy": {"type": "RollingUpdate",
                                                 "rollingUpdate": {"partition": 0, "maxUnavailable": 2}}}},
     {"spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}}}),
    ("PersistentVolumeClaim", {"spec": {"volumeAttributesClassName": "gold", "accessModes": ["ReadWriteOnce"]}},
     {"spec": {"accessModes": ["ReadWriteOnce"]}}),
    ("PersistentVolume", {"spec": {"volumeAttributesClassName": "", "capacity": {"storage": "1Gi"}}},
     {"spec": {"capacity": {"storage": "1Gi"}}}),
    ("EndpointSlice", {"endpoints": [{"addresses": ["10.0.0.1"], "hints": {
        "forZones": [{"name": "a"}], "forNodes": [{"name": "n"}]}}, {"addresses": ["10.0.0.2"]}]},
     {"endpoints": [{"addresses": ["10.0.0.1"], "hints": {"forZones": [{"name": "a"}]}},
                    {"addresses": ["10.0.0.2"]}]}),
    ("Lease", {"spec": {"holderIdentity": "h", "strategy": "OldestEmulationVersion", "preferredHolder": "p"}},
     {"spec": {"holderIdentity": "h"}}),
    ("CSIDriver", {"spec": {"attachRequired": True, "nodeAllocatableUpdatePeriodSeconds": 60}},
     {"spec": {"attachRequired": True}}),
]
STATUS_CASES = [
    ("Deployment", {"status": {"replicas": 1, "terminatingReplicas": 1}}, {"status": {"replicas": 1}}),
    ("ReplicaSet", {"status": {"replicas": 1, "terminatingReplicas": 0}}, {"status": {"replicas": 1}}),
    ("PersistentVolumeClaim", {"status": {"phase": "Bound", "currentVolumeAttributesClassName": "gold",
                                          "modifyVolumeStatus": {"status": "Pending"}}},
     {"status": {"phase": "Bound"}}),
    ("VolumeAttachment", {"status": {"attached": False, "attachError": {"message": "m", "errorCode": 8},
                                     "detachError": {"message": "d", "errorCode": 5}}},
     {"status": {"attached": False, "attachError": {"message": "m"}, "detachError": {"message": "d"}}}),
]


CASES = [(drop_disabled_fields, *c) for c in SPEC_CASES] + [(drop_disabled_status_fields_of, *c) for c in STATUS_CASES]


@pytest.mark.parametrize("drop,kind,written,dropped", CASES,
                         ids=[f"{c[1]}-{'spec' if c[0] is drop_disabled_fields else 'status'}" for c in CASES])
def test_a_write_drops_what_the_stored_object_did_not_use(drop: Any, kind: str, written: dict[str, Any],
                                                          dropped: dict[str, Any]) -> None:
    """A create (spec rules only: `old` None) and an update over an object without the field drop it; an update
    over a stored object that has it (written before the gate went off) keeps it."""
    olds = [None, dropped] if drop is drop_disabled_fields else [dropped]
    for old in olds:
        new = copy.deepcopy(written)
        drop(kind, new, old)
        assert new == dropped, old
    kept = copy.deepcopy(written)
    drop(kind, kept, written)
    assert kept == written


def test_a_claims_cross_namespace_data_source_goes_whole() -> None:
    """`CrossNamespaceVolumeDataSource`: a `dataSourceRef` naming a namespace is dropped whole, unless the stored
    claim had a `dataSourceRef`; one without a namespace stays (AnyVolumeDataSource is GA)."""
    ref = {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "s"}
    local = {"spec": {"dataSourceRef": dict(ref)}}
    drop_disabled_fields("PersistentVolumeClaim", local, None)
    assert local == {"spec": {"dataSourceRef": ref}}
    for namespace, old, kept in (("other", None, False), ("", None, True), ("other", {"spec": {}}, False),
                                 ("other", {"spec": {"dataSourceRef": ref}}, True)):
        claim = {"spec": {"dataSourceRef": {**ref, "namespace": namespace}}}
        drop_disabled_fields("PersistentVolumeClaim", claim, old)
        assert ("dataSourceRef" in claim["spec"]) is kept, (namespace, old)


def test_a_claims_data_sources_are_prepared_after_the_drops(srv: RunningServer, ns: str) -> None:
    """`NormalizeDataSources` (create only) and `EnforceDataSourceBackwardsCompatibility` run after
    `DropDisabledFields`: a cross-namespace `dataSourceRef` is dropped first, so a `dataSource` that is neither a
    claim nor a snapshot goes too; a snapshot `dataSource` is mirrored into `dataSourceRef`, and back."""
    claims = f"{srv.url}/api/v1/namespaces/{ns}/persistentvolumeclaims"
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    snapshot = {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "snap"}
    populator = {"apiGroup": "example.com", "kind": "Populator", "name": "p"}
    cases = [
        ({"dataSource": snapshot}, {"dataSource": snapshot, "dataSourceRef": snapshot}),
        ({"dataSourceRef": populator}, {"dataSource": populator, "dataSourceRef": populator}),
        ({"dataSource": populator}, {}),
        ({"dataSource": populator, "dataSourceRef": {**populator, "namespace": "other"}}, {}),
        ({"dataSourceRef": {**snapshot, "namespace": "other"}}, {}),
    ]
    for i, (given, kept) in enumerate(cases):
        r = requests.post(claims, json={"metadata": {"name": f"c{i}"}, "spec": {**spec, **given}})
        assert r.status_code == 201, r.text
        got = r.json()["spec"]
        assert {k: got[k] for k in ("dataSource", "dataSourceRef") if k in got} == kept, given


def test_endpoint_node_hints_are_kept_when_any_stored_endpoint_has_one() -> None:
    old = {"endpoints": [{"addresses": ["10.0.0.9"]}, {"addresses": ["10.0.0.8"], "hints": {"forNodes": []}}]}
    new = {"endpoints": [{"addresses": ["10.0.0.1"], "hints": {"forNodes": [{"name": "n"}]}}]}
    drop_disabled_fields("EndpointSlice", new, old)
    assert new["endpoints"][0]["hints"] == {"forNodes": [{"name": "n"}]}
    only_nodes = {"endpoints": [{"addresses": ["10.0.0.1"], "hints": {"forNodes": [{"name": "n"}]}}]}
    drop_disabled_fields("EndpointSlice", only_nodes, {"endpoints": [{"addresses": ["10.0.0.1"], "hints": {}}]})
    assert only_nodes["endpoints"][0]["hints"] == {}  # Go keeps the (now empty) hints struct


def test_only_built_in_kinds_named_in_the_table_drop_anything() -> None:
    obj = {"spec": {"volumeAttributesClassName": "gold", "strategy": "x"}}
    drop_disabled_fields("Widget", obj, None)
    assert obj == {"spec": {"volumeAttributesClassName": "gold", "strategy": "x"}}
    assert set(SPEC_RULES) == {"StatefulSet", "PersistentVolumeClaim", "PersistentVolume", "EndpointSlice", "Lease",
                               "CSIDriver", "Node"}


srv = own_server()


@pytest.fixture
def ns(srv: RunningServer) -> str:
    name = f"gd-{uuid.uuid4().hex[:8]}"
    assert requests.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    return name


def test_the_official_client_reads_the_dropped_fields_back(srv: RunningServer, ns: str, tmp_path: Path) -> None:
    from kubernetes import client, config
    kc = tmp_path / "kc"
    srv.write_kubeconfig(str(kc))
    api_client = config.new_client_from_config(str(kc))
    apps = client.AppsV1Api(api_client)
    template = {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    sts = apps.create_namespaced_stateful_set(ns, {
        "metadata": {"name": "db"}, "spec": {"selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
                                             "template": template, "updateStrategy": {
                                                 "type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}}}})
    assert sts.spec.update_strategy.rolling_update.max_unavailable is None
    assert sts.spec.update_strategy.rolling_update.partition == 0
    deploy = apps.create_namespaced_deployment(ns, {
        "metadata": {"name": "web"}, "spec": {"selector": {"matchLabels": {"app": "db"}}, "template": template}})
    patched = apps.patch_namespaced_deployment_status(
        "web", ns, {"status": {"observedGeneration": deploy.metadata.generation, "terminatingReplicas": 3}})
    assert patched.status.terminating_replicas is None
    assert patched.status.observed_generation == deploy.metadata.generation
    discovery = client.DiscoveryV1Api(api_client)
    storage = client.StorageV1Api(api_client)
    driver = storage.create_csi_driver({"metadata": {"name": f"{ns}.example.com"},
                                        "spec": {"nodeAllocatableUpdatePeriodSeconds": 60}})
    assert driver.spec.node_allocatable_update_period_seconds is None and driver.spec.attach_required is True
    slice_ = discovery.create_namespaced_endpoint_slice(ns, {
        "metadata": {"name": "s"}, "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.0.0.1"],
                       "hints": {"forZones": [{"name": "a"}], "forNodes": [{"name": "n"}]}}]})
    assert slice_.endpoints[0].hints.for_nodes is None
    assert [z.name for z in slice_.endpoints[0].hints.for_zones] == ["a"]


def test_a_claims_status_write_drops_its_volume_attributes_class(srv: RunningServer, ns: str) -> None:
    claims = f"{srv.url}/api/v1/namespaces/{ns}/persistentvolumeclaims"
    body = {"metadata": {"name": "c"}, "spec": {"accessModes": ["ReadWriteOnce"], "volumeAttributesClassName": "gold",
                                                "resources": {"requests": {"storage": "1Gi"}}}}
    r = requests.post(claims, json=body)
    assert r.status_code == 201, r.text
    assert "volumeAttributesClassName" not in r.json()["spec"]
    r = requests.patch(f"{claims}/c/status", data=json.dumps({"status": {
        "currentVolumeAttributesClassName": "gold", "modifyVolumeStatus": {"status": "Pending"}}}), headers=MERGE)
    assert r.status_code == 200, r.text
    assert "currentVolumeAttributesClassName" not in r.json()["status"]
    assert "modifyVolumeStatus" not in r.json()["status"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "gateddrops", flavor="bare")


def test_kubectl_applies_a_claim_and_a_volume_without_their_gated_fields(kube: Kube,  # noqa: F811
                                                                        tmp_path: Path) -> None:
    name = f"gd-{uuid.uuid4().hex[:8]}"
    kube.ok("create", "namespace", name)
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": name},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                      "volumeAttributesClassName": "gold",
                      "dataSourceRef": {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot",
                                        "name": "snap", "namespace": "elsewhere"}}}
    volume = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"{name}-pv"},
              "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"},
                       "hostPath": {"path": "/tmp/x"}, "volumeAttributesClassName": "gold"}}
    manifest = tmp_path / "objects.json"
    manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [claim, volume]}))
    proc = kube.run("apply", "-f", str(manifest))
    assert proc.returncode == 0, proc
    got = json.loads(kube.ok("get", "pvc", "c", "-n", name, "-o", "json"))
    assert "volumeAttributesClassName" not in got["spec"] and "dataSourceRef" not in got["spec"]
    got = json.loads(kube.ok("get", "pv", f"{name}-pv", "-o", "json"))
    assert "volumeAttributesClassName" not in got["spec"]
