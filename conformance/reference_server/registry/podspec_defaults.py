"""The nested defaults of a pod spec that kube-apiserver applies to pods and pod templates alike
(`pkg/apis/core/v1/defaults.go`, wired by `zz_generated.defaults.go`'s `SetObjectDefaults_*` for every object
that holds a PodSpec): probes and their HTTP/gRPC actions, lifecycle hooks, `fieldRef.apiVersion`, volume
sources (an empty source becomes `emptyDir`, file modes 0644, `hostPath.type` "", token expiry one hour, the
ISCSI/RBD/AzureDisk/ScaleIO fields, an ephemeral claim's `volumeMode`) and every resource list rounded up to
milli precision (`SetDefaults_ResourceList`, which defaulter-gen applies to each `ResourceList` field).

A workload's template is hashed with these in place (`controller.ComputeHash`, controller/workloads/templatehash),
so a template defaulted differently would get another `pod-template-hash` than on a real cluster.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..quantity import Quantity, QuantityError
from .shapes import as_list

MODE_0644 = 420  # SecretVolumeSourceDefaultMode, ConfigMap..., DownwardAPI..., Projected...
VOLUME_SOURCES = (
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
    "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image")  # v1.VolumeSource, in order
_POINTER_DEFAULTS: dict[str, dict[str, Any]] = {  # Go pointers: only nil takes the default
    "secret": {"defaultMode": MODE_0644}, "configMap": {"defaultMode": MODE_0644},
    "downwardAPI": {"defaultMode": MODE_0644}, "projected": {"defaultMode": MODE_0644}, "hostPath": {"type": ""},
    "azureDisk": {"cachingMode": "ReadWrite", "kind": "Shared", "fsType": "ext4", "readOnly": False},
}
_STRING_DEFAULTS: dict[str, dict[str, Any]] = {  # Go strings: "" takes the default too
    "iscsi": {"iscsiInterface": "default"},
    "rbd": {"pool": "rbd", "user": "admin", "keyring": "/etc/ceph/keyring"},
    "scaleIO": {"storageMode": "ThinProvisioned", "fsType": "xfs"},
}
_PROBE = (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3))


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _set_empty(obj: dict[str, Any], key: str, value: Any) -> None:
    """Go's `if obj.X == "" / 0 / nil`: an absent, null or zero value takes the default."""
    if obj.get(key) in (None, "", 0) and not (obj.get(key) is False):
        obj[key] = value


def http_get(action: Any) -> None:
    """`SetDefaults_HTTPGetAction`."""
    if (a := _dict(action)) is not None:
        _set_empty(a, "path", "/")
        _set_empty(a, "scheme", "HTTP")


def probe(p: Any) -> None:
    """`SetDefaults_Probe`, its `httpGet`, and `grpc.service` (`+default=""`)."""
    if (p := _dict(p)) is None:
        return
    for key, value in _PROBE:
        _set_empty(p, key, value)
    http_get(p.get("httpGet"))
    if (g := _dict(p.get("grpc"))) is not None and g.get("service") is None:
        g["service"] = ""


def field_ref(ref: Any) -> None:
    """`SetDefaults_ObjectFieldSelector`."""
    if (r := _dict(ref)) is not None:
        _set_empty(r, "apiVersion", "v1")


def resource_list(values: Any) -> None:
    """`SetDefaults_ResourceList`: each quantity rounded up to milli precision (`RoundUp(-3)`), kept as sent
    unless the rounding changed it."""
    if (values := _dict(values)) is None:
        return
    for name, raw in list(values.items()):
        try:
            q = Quantity.parse(raw)
        except QuantityError:
            continue  # refused when decoding
        milli = q.value * 1000
        if milli.denominator != 1:
            up = math.ceil(milli) if milli > 0 else math.floor(milli)
            values[name] = Quantity(Fraction(up, 1000), q.format).canonical()


def container(c: dict[str, Any]) -> None:
    """The nested defaults of one container (`SetDefaults_Container` itself is pod.py's)."""
    for env in as_list(c.get("env")):
        if (e := _dict(env)) is not None and (vf := _dict(e.get("valueFrom"))) is not None:
            field_ref(vf.get("fieldRef"))
    if (res := _dict(c.get("resources"))) is not None:
        resource_list(res.get("limits"))
        resource_list(res.get("requests"))
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe(c.get(key))
    if (lc := _dict(c.get("lifecycle"))) is not None:
        for hook in ("postStart", "preStop"):
            if (h := _dict(lc.get(hook))) is not None:
                http_get(h.get("httpGet"))


def volume(v: Any) -> None:
    """`SetDefaults_Volume` and the defaults of its source."""
    if (v := _dict(v)) is None:
        return
    if all(v.get(key) is None for key in VOLUME_SOURCES):
        v["emptyDir"] = {}
    for key, defaults in _POINTER_DEFAULTS.items():
        if (src := _dict(v.get(key))) is not None:
            for field, value in defaults.items():
                if src.get(field) is None:
                    src[field] = value
    for key, defaults in _STRING_DEFAULTS.items():
        if (src := _dict(v.get(key))) is not None:
            for field, value in defaults.items():
                _set_empty(src, field, value)
    for item in as_list((_dict(v.get("downwardAPI")) or {}).get("items")):
        field_ref((_dict(item) or {}).get("fieldRef"))
    for source in as_list((_dict(v.get("projected")) or {}).get("sources")):
        source = _dict(source) or {}
        for item in as_list((_dict(source.get("downwardAPI")) or {}).get("items")):
            field_ref((_dict(item) or {}).get("fieldRef"))
        if (token := _dict(source.get("serviceAccountToken"))) is not None and token.get("expirationSeconds") is None:
            token["expirationSeconds"] = 3600
    claim = _dict((_dict(v.get("ephemeral")) or {}).get("volumeClaimTemplate"))
    if claim is not None and (spec := _dict(claim.get("spec"))) is not None:
        if spec.get("volumeMode") is None:
            spec["volumeMode"] = "Filesystem"  # SetDefaults_PersistentVolumeClaimSpec
        if (res := _dict(spec.get("resources"))) is not None:
            resource_list(res.get("limits"))
            resource_list(res.get("requests"))


def nested(spec: dict[str, Any]) -> None:
    """Every nested default of a pod spec: volumes, each kind of container's, overhead and the pod's own
    resources."""
    for v in as_list(spec.get("volumes")):
        volume(v)
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in as_list(spec.get(key)):
            if isinstance(c, dict):
                container(c)
    resource_list(spec.get("overhead"))
    if (res := _dict(spec.get("resources"))) is not None:
        resource_list(res.get("limits"))
        resource_list(res.get("requests"))


__all__ = ["VOLUME_SOURCES", "nested"]
