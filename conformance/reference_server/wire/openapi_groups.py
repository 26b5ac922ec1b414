"""OpenAPI schemas of the named-group kinds the field model (``_proto_table``, core and meta only) lacks.

kubectl computes an `apply` patch from the kind's OpenAPI v3 schema and needs every object-valued field it
walks declared (else: "warning: error calculating patch from openapi v3 spec: unable to find api field"), plus
the strategic-merge metadata upstream's types carry. Written from the upstream Go types
(`staging/src/k8s.io/api/{rbac,apps,batch,networking,policy,coordination,discovery,authentication}/v1/types.go`),
trimmed to the fields a client sends; status is free-form (`x-kubernetes-preserve-unknown-fields`).
"""
from __future__ import annotations

from typing import Any, Callable

Ref = Callable[[str], dict[str, Any]]  # definition name → reference (v2 `$ref` or v3 `allOf`)

S: dict[str, Any] = {"type": "string"}
I32: dict[str, Any] = {"type": "integer", "format": "int32"}
I64: dict[str, Any] = {"type": "integer", "format": "int64"}
B: dict[str, Any] = {"type": "boolean"}
FREE: dict[str, Any] = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
META = "io.k8s.apimachinery.pkg.apis.meta.v1"
CORE = "io.k8s.api.core.v1"


def _arr(items: dict[str, Any], *, atomic: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": items}
    if atomic:
        out["x-kubernetes-list-type"] = "atomic"
    return out


def _obj(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    return out


# `+patchStrategy=merge` `+patchMergeKey=type` on the workloads' and PDBs' status conditions (the rest of
# their status is free-form here).
CONDITIONED: dict[str, Any] = {**FREE, "properties": {"conditions": {
    "type": "array", "items": FREE, "x-kubernetes-patch-merge-key": "type", "x-kubernetes-patch-strategy": "merge",
    "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]}}}


def _int_or_string() -> dict[str, Any]:
    return {"x-kubernetes-int-or-string": True, "format": "int-or-string", "type": "string"}


def definitions(ref: Ref) -> dict[str, dict[str, Any]]:
    """Definition name → schema (without apiVersion/kind/metadata, which `openapi._definitions` adds)."""
    rbac = "io.k8s.api.rbac.v1"
    om, sel = ref(f"{META}.ObjectMeta"), ref(f"{META}.LabelSelector")
    template = _obj({"metadata": om, "spec": ref(f"{CORE}.PodSpec")})
    spec_status = lambda spec, req=(): {"spec": _obj(spec, req), "status": CONDITIONED}  # noqa: E731
    rule = _obj({"apiGroups": _arr(S), "nonResourceURLs": _arr(S), "resourceNames": _arr(S),
                 "resources": _arr(S), "verbs": _arr(S)}, ("verbs",))
    subject = _obj({"apiGroup": S, "kind": S, "name": S, "namespace": S}, ("kind", "name"))
    role_ref = {**_obj({"apiGroup": S, "kind": S, "name": S}, ("apiGroup", "kind", "name")),
                "x-kubernetes-map-type": "atomic"}
    rolling = _obj({"maxSurge": _int_or_string(), "maxUnavailable": _int_or_string()})
    job_spec = {"activeDeadlineSeconds": I64, "backoffLimit": I32, "completions": I32, "parallelism": I32,
                "completionMode": S, "manualSelector": B, "selector": sel, "suspend": B, "template": template,
                "ttlSecondsAfterFinished": I32, "podFailurePolicy": FREE, "successPolicy": FREE,
                "backoffLimitPerIndex": I32, "maxFailedIndexes": I32, "podReplacementPolicy": S}
    peer = _obj({"ipBlock": _obj({"cidr": S, "except": _arr(S)}), "namespaceSelector": sel, "podSelector": sel})
    np_port = _obj({"endPort": I32, "port": _int_or_string(), "protocol": S})
    return {
        f"{rbac}.Role": _obj({"rules": _arr(rule)}),
        f"{rbac}.ClusterRole": _obj({"rules": _arr(rule), "aggregationRule": _obj(
            {"clusterRoleSelectors": _arr(sel)})}),
        f"{rbac}.RoleBinding": _obj({"subjects": _arr(subject), "roleRef": role_ref}, ("roleRef",)),
        f"{rbac}.ClusterRoleBinding": _obj({"subjects": _arr(subject), "roleRef": role_ref}, ("roleRef",)),
        "io.k8s.api.apps.v1.Deployment": _obj(spec_status({
            "replicas": I32, "selector": sel, "template": template, "minReadySeconds": I32, "paused": B,
            "progressDeadlineSeconds": I32, "revisionHistoryLimit": I32,
            "strategy": {**_obj({"type": S, "rollingUpdate": rolling}), "x-kubernetes-patch-strategy": "retainKeys"}},
            ("selector", "template"))),
        "io.k8s.api.apps.v1.ReplicaSet": _obj(spec_status({
            "replicas": I32, "selector": sel, "template": template, "minReadySeconds": I32}, ("selector",))),
        "io.k8s.api.apps.v1.StatefulSet": _obj(spec_status({
            "replicas": I32, "selector": sel, "template": template, "serviceName": S, "minReadySeconds": I32,
            "podManagementPolicy": S, "revisionHistoryLimit": I32, "volumeClaimTemplates": _arr(FREE),
            "updateStrategy": _obj({"type": S, "rollingUpdate": _obj({"maxUnavailable": _int_or_string(),
                                                                      "partition": I32})}),
            "persistentVolumeClaimRetentionPolicy": _obj({"whenDeleted": S, "whenScaled": S}),
            "ordinals": _obj({"start": I32})}, ("selector", "template"))),
        "io.k8s.api.apps.v1.DaemonSet": _obj(spec_status({
            "selector": sel, "template": template, "minReadySeconds": I32, "revisionHistoryLimit": I32,
            "updateStrategy": _obj({"type": S, "rollingUpdate": rolling})}, ("selector", "template"))),
        "io.k8s.api.batch.v1.Job": _obj(spec_status(job_spec, ("template",))),
        "io.k8s.api.batch.v1.CronJob": _obj(spec_status({
            "schedule": S, "timeZone": S, "concurrencyPolicy": S, "startingDeadlineSeconds": I64, "suspend": B,
            "successfulJobsHistoryLimit": I32, "failedJobsHistoryLimit": I32,
            "jobTemplate": _obj({"metadata": om, "spec": _obj(job_spec, ("template",))})},
            ("schedule", "jobTemplate"))),
        "io.k8s.api.networking.v1.NetworkPolicy": _obj({"spec": _obj({
            "podSelector": sel, "policyTypes": _arr(S),
            "ingress": _arr(_obj({"from": _arr(peer), "ports": _arr(np_port)})),
            "egress": _arr(_obj({"to": _arr(peer), "ports": _arr(np_port)}))})}),
        "io.k8s.api.policy.v1.PodDisruptionBudget": _obj(spec_status({
            "minAvailable": _int_or_string(), "maxUnavailable": _int_or_string(), "selector": sel,
            "unhealthyPodEvictionPolicy": S})),
        "io.k8s.api.coordination.v1.Lease": _obj({"spec": _obj({
            "holderIdentity": S, "leaseDurationSeconds": I32, "acquireTime": {"type": "string", "format": "date-time"},
            "renewTime": {"type": "string", "format": "date-time"}, "leaseTransitions": I32, "strategy": S,
            "preferredHolder": S})}),
        "io.k8s.api.discovery.v1.EndpointSlice": _obj({
            "addressType": S,
            "endpoints": _arr(_obj({"addresses": {**_arr(S), "x-kubernetes-list-type": "set"},
                                    "conditions": _obj({"ready": B, "serving": B, "terminating": B}),
                                    "hostname": S, "nodeName": S, "zone": S, "targetRef": FREE,
                                    "hints": FREE}, ("addresses",))),
            "ports": _arr(_obj({"name": S, "port": I32, "protocol": S, "appProtocol": S}))},
            ("addressType", "endpoints")),
        "io.k8s.api.autoscaling.v1.Scale": _obj({"spec": _obj({"replicas": I32}),
                                                 "status": _obj({"replicas": I32, "selector": S}, ("replicas",))}),
        "io.k8s.api.authentication.v1.TokenReview": _obj({"spec": _obj({"token": S, "audiences": _arr(S)}),
                                                          "status": FREE}, ("spec",)),
        "io.k8s.api.authentication.v1.SelfSubjectReview": _obj({"status": FREE}),
        "io.k8s.api.authentication.v1.TokenRequest": _obj({"spec": _obj({
            "audiences": _arr(S), "expirationSeconds": I64, "boundObjectRef": FREE}), "status": FREE}, ("spec",)),
        "io.k8s.api.authorization.v1.SubjectAccessReview": _obj({"spec": FREE, "status": FREE}, ("spec",)),
        "io.k8s.api.authorization.v1.SelfSubjectAccessReview": _obj({"spec": FREE, "status": FREE}, ("spec",)),
        "io.k8s.api.authorization.v1.LocalSubjectAccessReview": _obj({"spec": FREE, "status": FREE}, ("spec",)),
        "io.k8s.api.authorization.v1.SelfSubjectRulesReview": _obj({"spec": FREE, "status": FREE}, ("spec",)),
    }


# Core messages those schemas refer to (added to the definitions' closure).
CORE_ROOTS: tuple[str, ...] = ("core.PodSpec", "meta.LabelSelector", "meta.ObjectMeta")
