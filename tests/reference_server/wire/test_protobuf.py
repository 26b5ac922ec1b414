"""Protobuf request bodies decode to the dicts Go's JSON encoding gives for the same object."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.reference_server.wire import protobuf

CAPTURED = ["namespace", "configmap", "secret", "serviceaccount", "service", "resourcequota"]


@pytest.mark.parametrize("name", CAPTURED)
def test_captured_kubectl_body_decodes_like_kubectl_json(data_dir: Path, name: str) -> None:
    body = bytes.fromhex((data_dir / f"kubectl_{name}.hex").read_text().strip())
    expected = json.loads((data_dir / f"kubectl_{name}.json").read_text())
    assert protobuf.decode(body) == expected


def test_namespace_body_shape(data_dir: Path) -> None:
    body = bytes.fromhex((data_dir / "kubectl_namespace.hex").read_text().strip())
    assert protobuf.decode(body) == {"kind": "Namespace", "apiVersion": "v1",
                                     "metadata": {"name": "foo", "creationTimestamp": None},
                                     "spec": {}, "status": {}}


ROUND_TRIP = [
    {"kind": "Namespace", "apiVersion": "v1",
     "metadata": {"name": "ns1", "labels": {"a": "b"}, "annotations": {"x": "y"}, "finalizers": ["x/y"],
                  "uid": "u-1", "resourceVersion": "12", "creationTimestamp": "2026-01-02T03:04:05Z",
                  "deletionTimestamp": "2026-01-02T03:05:05Z", "deletionGracePeriodSeconds": 0,
                  "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u2",
                                       "controller": False}],
                  "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
                                     "time": "2026-01-02T03:04:05Z", "fieldsType": "FieldsV1",
                                     "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:a": {}}}}}]},
     "spec": {"finalizers": ["kubernetes"]},
     "status": {"phase": "Terminating",
                "conditions": [{"type": "NamespaceDeletionContentFailure", "status": "False",
                                "lastTransitionTime": "2026-01-02T03:04:06Z", "reason": "R", "message": "m"}]}},
    {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "c", "namespace": "n"},
     "data": {"k": "v", "empty": ""}, "binaryData": {"b": "AAEC"}, "immutable": False},
    {"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "s", "namespace": "n"},
     "data": {"k": "dg=="}, "stringData": {"p": "q"}, "type": "kubernetes.io/basic-auth", "immutable": True},
    {"kind": "ServiceAccount", "apiVersion": "v1", "metadata": {"name": "sa", "namespace": "n"},
     "secrets": [{"name": "tok"}], "imagePullSecrets": [{"name": "pull"}],
     "automountServiceAccountToken": False},
    {"kind": "Service", "apiVersion": "v1", "metadata": {"name": "svc", "namespace": "n"},
     "spec": {"type": "NodePort", "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": "http",
                                             "nodePort": 30080}],
              "selector": {"app": "x"}, "clusterIP": "10.0.0.1", "sessionAffinity": "ClientIP",
              "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10}}},
     "status": {"loadBalancer": {}}},
    {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p", "namespace": "n"},
     "spec": {"containers": [{"name": "c", "image": "nginx", "command": ["sh"], "args": ["-c", "true"],
                              "ports": [{"containerPort": 80, "protocol": "TCP"}],
                              "env": [{"name": "A", "value": "1"},
                                      {"name": "B", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k",
                                                                                      "optional": False}}}],
                              "resources": {"limits": {"cpu": "500m", "memory": "64Mi"}, "requests": {"cpu": "1"}},
                              "volumeMounts": [{"name": "v", "mountPath": "/data", "readOnly": True}],
                              "readinessProbe": {"httpGet": {"path": "/", "port": 8080, "scheme": "HTTP"},
                                                 "periodSeconds": 5},
                              "livenessProbe": {"exec": {"command": ["true"]}, "terminationGracePeriodSeconds": 0},
                              "securityContext": {"runAsNonRoot": True, "runAsUser": 0,
                                                  "allowPrivilegeEscalation": False},
                              "imagePullPolicy": "IfNotPresent"}],
              "volumes": [{"name": "v", "configMap": {"name": "c", "defaultMode": 420}},
                          {"name": "e", "emptyDir": {"sizeLimit": "1Gi"}}],
              "restartPolicy": "Never", "terminationGracePeriodSeconds": 0, "dnsPolicy": "ClusterFirst",
              "nodeSelector": {"disk": "ssd"}, "tolerations": [{"key": "k", "operator": "Exists",
                                                                "effect": "NoExecute", "tolerationSeconds": 0}],
              "enableServiceLinks": False},
     "status": {"phase": "Running", "podIP": "10.1.2.3",
                "containerStatuses": [{"name": "c", "ready": True, "restartCount": 0, "image": "nginx",
                                       "imageID": "", "started": True,
                                       "state": {"running": {"startedAt": "2026-01-02T03:04:05Z"}},
                                       "lastState": {}}]}},
    {"kind": "ResourceQuota", "apiVersion": "v1", "metadata": {"name": "q", "namespace": "n"},
     "spec": {"hard": {"pods": "3", "requests.cpu": "1500m"}, "scopes": ["BestEffort"]},
     "status": {"hard": {"pods": "3"}, "used": {"pods": "0"}}},
    {"kind": "LimitRange", "apiVersion": "v1", "metadata": {"name": "l", "namespace": "n"},
     "spec": {"limits": [{"type": "Container", "max": {"cpu": "2"}, "default": {"cpu": "500m"},
                          "defaultRequest": {"cpu": "250m"}}]}},
    {"kind": "Event", "apiVersion": "v1", "metadata": {"name": "e", "namespace": "n"},
     "involvedObject": {"kind": "Pod", "namespace": "n", "name": "p", "uid": "u", "apiVersion": "v1"},
     "reason": "Started", "message": "hi", "source": {"component": "kubelet"},
     "firstTimestamp": "2026-01-02T03:04:05Z", "lastTimestamp": "2026-01-02T03:04:05Z", "count": 2,
     "type": "Normal", "eventTime": "2026-01-02T03:04:05.123456Z", "reportingComponent": "kubelet",
     "reportingInstance": "node-1", "series": {"count": 3, "lastObservedTime": "2026-01-02T03:04:06.000001Z"}},
    {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0, "propagationPolicy": "Foreground",
     "preconditions": {"uid": "u-1", "resourceVersion": "7"}, "dryRun": ["All"], "orphanDependents": False},
]


@pytest.mark.parametrize("obj", ROUND_TRIP, ids=[o["kind"] for o in ROUND_TRIP])
def test_round_trip(obj: dict) -> None:
    body = protobuf.encode(obj)
    assert body.startswith(b"k8s\x00")
    assert protobuf.decode(body) == obj


def test_zero_values_of_pointer_fields_survive() -> None:
    # gracePeriodSeconds=0 means "delete now"; dropping it would change the request's meaning.
    decoded = protobuf.decode(protobuf.encode({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1",
                                               "gracePeriodSeconds": 0}))
    assert decoded == {"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "gracePeriodSeconds": 0}


def test_inline_struct_is_flattened_on_the_wire_and_back() -> None:
    pod = {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "image": "i"}], "volumes": [{"name": "v", "emptyDir": {}}]}}
    assert protobuf.decode(protobuf.encode(pod))["spec"]["volumes"] == [{"name": "v", "emptyDir": {}}]


def test_metav1_time_drops_sub_second_precision() -> None:
    ns = {"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "n",
                                                               "creationTimestamp": "2026-01-02T03:04:05.9Z"}}
    assert protobuf.decode(protobuf.encode(ns))["metadata"]["creationTimestamp"] == "2026-01-02T03:04:05Z"


def test_zero_valued_non_pointer_fields_are_dropped_like_omitempty() -> None:
    # What gogo writes for an empty ObjectMeta: every string and generation present but zero.
    body = bytes.fromhex("6b3873000a0f0a02763112094e616d657370616365121b0a130a03666f6f12001a0022002a00320038"
                         "00420012001a020a001a002200")
    assert protobuf.decode(body)["metadata"] == {"name": "foo", "creationTimestamp": None}


@pytest.mark.parametrize("body, message", [
    (b"", "magic"),
    (b"{\"kind\":\"Namespace\"}", "magic"),
    (b"k8s\x00\x0a\x0f\x0a\x02v1", "malformed"),  # truncated TypeMeta
    (b"k8s\x00\xff", "malformed"),
])
def test_bad_bodies_raise_value_error(body: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        protobuf.decode(body)


def test_truncated_object_raises_value_error(data_dir: Path) -> None:
    body = bytes.fromhex((data_dir / "kubectl_configmap.hex").read_text().strip())
    with pytest.raises(ValueError, match="malformed"):
        protobuf.decode(body[:-12])


def test_unknown_kind_and_compressed_payload_are_rejected() -> None:
    body = protobuf.encode({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "c"}})
    other = body.replace(b"\x09ConfigMap", b"\x09Deploymen")
    with pytest.raises(ValueError, match="no protobuf schema for kind 'Deploymen'"):
        protobuf.decode(other)
    with pytest.raises(ValueError, match="contentEncoding"):
        protobuf.decode(body + b"\x1a\x04gzip")


def test_encode_rejects_unknown_fields() -> None:
    with pytest.raises(ValueError, match="spec.bogus"):
        protobuf.encode({"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "n"}, "spec": {"bogus": 1}})


def test_is_protobuf() -> None:
    assert protobuf.is_protobuf("application/vnd.kubernetes.protobuf")
    assert protobuf.is_protobuf("application/vnd.kubernetes.protobuf; charset=utf-8")
    assert not protobuf.is_protobuf("application/json")
    assert not protobuf.is_protobuf(None)


def test_named_group_kinds_keep_go_pointer_zeros_only() -> None:
    """Go writes every non-pointer field in protobuf; decoding prints what `encoding/json` would: a pointer's
    zero (Deployment `replicas`, CronJob `suspend`) and a non-omitempty field (RoleRef `apiGroup`) kept, an
    omitempty non-pointer zero (`paused`, `minReadySeconds`) dropped."""
    from conformance.reference_server.wire import protobuf as pb
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
              "spec": {"replicas": 0, "paused": False, "minReadySeconds": 0, "strategy": {}}}
    assert pb.decode_stored(pb.encode(deploy), "apps/v1", "Deployment")["spec"] == {"replicas": 0, "strategy": {}}
    cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"},
            "spec": {"schedule": "", "suspend": False, "concurrencyPolicy": ""}}
    assert pb.decode_stored(pb.encode(cron), "batch/v1", "CronJob")["spec"] == {"schedule": "", "suspend": False}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "b"},
               "roleRef": {"apiGroup": "", "kind": "Role", "name": "r"},
               "subjects": [{"kind": "ServiceAccount", "apiGroup": "", "name": "s", "namespace": ""}]}
    decoded = pb.decode_stored(pb.encode(binding), "rbac.authorization.k8s.io/v1", "RoleBinding")
    assert decoded["roleRef"] == {"apiGroup": "", "kind": "Role", "name": "r"}
    assert decoded["subjects"] == [{"kind": "ServiceAccount", "name": "s"}]
    with pytest.raises(ValueError):  # another kind than the store's
        pb.decode_stored(pb.encode(binding), "rbac.authorization.k8s.io/v1", "Role")
