"""Upstream's list, map and struct markers for the fields ``openapi_schemas.PATCH_META`` did not cover.

kube-openapi publishes a Go field's `+listType` / `+listMapKey` / `+patchStrategy` / `+patchMergeKey` /
`+mapType` comments as `x-kubernetes-list-type` / `-list-map-keys` / `-patch-strategy` / `-patch-merge-key` /
`-map-type`, and a type's `+structType=atomic` / `+mapType=atomic` as `x-kubernetes-map-type: atomic` on its
definition. Written from `staging/src/k8s.io/api/{core,apps,batch,networking,policy,coordination,discovery,rbac,
autoscaling}/v1/types.go` and `apimachinery/pkg/apis/meta/v1/types.go` (v1.33). `openapi_schemas` adds these to
the published schemas; strategic-merge patch (`wire.patchmeta`) and server-side apply (`fieldmanager.schema`)
read them from there, so the three never disagree.

Adding a kind: its messages come from `_proto_table`; a list field without an entry here is published without a
list type (structured-merge-diff and strategic merge then treat it as atomic, which is upstream's default too).
"""
from __future__ import annotations

from typing import Any

ATOMIC: dict[str, Any] = {"x-kubernetes-list-type": "atomic"}
SET: dict[str, Any] = {"x-kubernetes-list-type": "set"}


def keyed(*keys: str, strategy: str | None = "merge") -> dict[str, Any]:
    """`+listType=map` `+listMapKey=...`, with `+patchStrategy` / `+patchMergeKey` (the first key) unless None."""
    out: dict[str, Any] = {}
    if strategy is not None:
        out = {"x-kubernetes-patch-merge-key": keys[0], "x-kubernetes-patch-strategy": strategy}
    return {**out, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": list(keys)}


def _merge_only(key: str, list_type: str = "atomic") -> dict[str, Any]:
    """`+patchStrategy=merge` `+patchMergeKey=key` on a list whose `+listType` is not map (Job conditions)."""
    return {"x-kubernetes-patch-merge-key": key, "x-kubernetes-patch-strategy": "merge",
            "x-kubernetes-list-type": list_type}


_CONDITIONS = keyed("type")
_ATOMIC_FIELDS = (
    # core/v1
    "core.CephFSVolumeSource.monitors", "core.ConfigMapProjection.items", "core.ConfigMapVolumeSource.items",
    "core.ContainerStatus.volumeMounts", "core.DownwardAPIProjection.items", "core.DownwardAPIVolumeSource.items",
    "core.EphemeralContainerCommon.command", "core.EphemeralContainerCommon.args",
    "core.EphemeralContainerCommon.envFrom", "core.EphemeralContainerCommon.resizePolicy",
    "core.ExecAction.command", "core.FCVolumeSource.targetWWNs", "core.FCVolumeSource.wwids",
    "core.HTTPGetAction.httpHeaders", "core.HostAlias.hostnames", "core.ISCSIVolumeSource.portals",
    "core.LinuxContainerUser.supplementalGroups", "core.LoadBalancerIngress.ports", "core.LoadBalancerStatus.ingress",
    "core.NodeAffinity.preferredDuringSchedulingIgnoredDuringExecution", "core.NodeSelector.nodeSelectorTerms",
    "core.NodeSelectorRequirement.values", "core.NodeSelectorTerm.matchExpressions",
    "core.NodeSelectorTerm.matchFields", "core.PersistentVolumeClaimSpec.accessModes",
    "core.PersistentVolumeClaimStatus.accessModes",
    "core.PodAffinity.requiredDuringSchedulingIgnoredDuringExecution",
    "core.PodAffinity.preferredDuringSchedulingIgnoredDuringExecution", "core.PodAffinityTerm.namespaces",
    "core.PodAffinityTerm.matchLabelKeys", "core.PodAffinityTerm.mismatchLabelKeys",
    "core.PodAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution",
    "core.PodAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution", "core.PodDNSConfig.nameservers",
    "core.PodDNSConfig.searches", "core.PodDNSConfig.options", "core.PodSecurityContext.supplementalGroups",
    "core.PodSecurityContext.sysctls", "core.PodStatus.initContainerStatuses", "core.PodStatus.containerStatuses",
    "core.PodStatus.ephemeralContainerStatuses", "core.ProjectedVolumeSource.sources", "core.RBDVolumeSource.monitors",
    "core.ResourceQuotaSpec.scopes", "core.ScopeSelector.matchExpressions",
    "core.ScopedResourceSelectorRequirement.values", "core.SecretProjection.items", "core.SecretVolumeSource.items",
    "core.ServiceSpec.loadBalancerSourceRanges", "core.TopologySpreadConstraint.matchLabelKeys",
    # meta/v1
    "meta.LabelSelector.matchExpressions", "meta.LabelSelectorRequirement.values",
    "meta.FieldSelectorRequirement.values", "meta.StatusDetails.causes",
    # authentication.k8s.io/v1, authorization.k8s.io/v1 (the create-only reviews)
    "authentication.TokenRequestSpec.audiences", "authentication.TokenReviewSpec.audiences",
    "authentication.TokenReviewStatus.audiences", "authentication.UserInfo.groups",
    "authorization.FieldSelectorAttributes.requirements", "authorization.LabelSelectorAttributes.requirements",
    "authorization.NonResourceRule.verbs", "authorization.NonResourceRule.nonResourceURLs",
    "authorization.ResourceRule.verbs", "authorization.ResourceRule.apiGroups", "authorization.ResourceRule.resources",
    "authorization.ResourceRule.resourceNames", "authorization.SubjectAccessReviewSpec.groups",
    "authorization.SubjectRulesReviewStatus.resourceRules", "authorization.SubjectRulesReviewStatus.nonResourceRules",
    # apps/v1
    "apps.StatefulSetSpec.volumeClaimTemplates",
    # batch/v1
    "batch.CronJobStatus.active", "batch.PodFailurePolicy.rules", "batch.PodFailurePolicyRule.onPodConditions",
    "batch.SuccessPolicy.rules",
    # networking.k8s.io/v1
    "networking.IPBlock.except", "networking.NetworkPolicyEgressRule.ports", "networking.NetworkPolicyEgressRule.to",
    "networking.NetworkPolicyIngressRule.ports", "networking.NetworkPolicyIngressRule.from",
    "networking.NetworkPolicySpec.ingress", "networking.NetworkPolicySpec.egress",
    "networking.NetworkPolicySpec.policyTypes",
    # discovery.k8s.io/v1
    "discovery.EndpointSlice.endpoints", "discovery.EndpointSlice.ports", "discovery.EndpointHints.forZones",
    "discovery.EndpointHints.forNodes",
    # rbac.authorization.k8s.io/v1
    "rbac.Role.rules", "rbac.ClusterRole.rules", "rbac.RoleBinding.subjects", "rbac.ClusterRoleBinding.subjects",
    "rbac.AggregationRule.clusterRoleSelectors", "rbac.PolicyRule.verbs", "rbac.PolicyRule.apiGroups",
    "rbac.PolicyRule.resources", "rbac.PolicyRule.resourceNames", "rbac.PolicyRule.nonResourceURLs",
)

# message.field -> markers (fields `openapi_schemas.PATCH_META` lists keep its entry).
FIELD_MARKERS: dict[str, dict[str, Any]] = {
    **{name: ATOMIC for name in _ATOMIC_FIELDS},
    "core.ContainerStatus.allocatedResourcesStatus": keyed("name"),
    "core.ResourceStatus.resources": keyed("resourceID", strategy=None),
    "core.PersistentVolumeClaimStatus.conditions": _CONDITIONS,
    "core.PodStatus.resourceClaimStatuses": keyed("name", strategy="merge,retainKeys"),
    "core.ResourceRequirements.claims": keyed("name", strategy=None),
    "batch.PodFailurePolicyOnExitCodesRequirement.values": SET,
    "batch.UncountedTerminatedPods.succeeded": SET,
    "batch.UncountedTerminatedPods.failed": SET,
    "batch.JobStatus.conditions": _merge_only("type"),
    "discovery.Endpoint.addresses": SET,
    **{f"apps.{kind}Status.conditions": _CONDITIONS for kind in ("Deployment", "ReplicaSet", "StatefulSet",
                                                                 "DaemonSet")},
    "apps.DeploymentSpec.strategy": {"x-kubernetes-patch-strategy": "retainKeys"},
    "policy.PodDisruptionBudgetStatus.conditions": _CONDITIONS,
    "policy.PodDisruptionBudgetSpec.selector": {"x-kubernetes-patch-strategy": "replace"},
    "core.PodSpec.nodeSelector": {"x-kubernetes-map-type": "atomic"},
    # PVs, RCs, ComponentStatuses (registry/volumes.py, replication.py, componentstatus.py)
    "core.ReplicationControllerSpec.selector": {"x-kubernetes-map-type": "atomic"},
    "core.ReplicationControllerStatus.conditions": _CONDITIONS,
    "core.ComponentStatus.conditions": _CONDITIONS,
    **{name: ATOMIC for name in ("core.PersistentVolumeSpec.accessModes", "core.PersistentVolumeSpec.mountOptions",
                                 "core.ISCSIPersistentVolumeSource.portals", "core.RBDPersistentVolumeSource.monitors",
                                 "core.CephFSPersistentVolumeSource.monitors")},
}

# Types marked `+structType=atomic` (or `+mapType=atomic`): the definition carries `x-kubernetes-map-type:
# atomic`, so server-side apply owns them whole.
ATOMIC_STRUCTS: frozenset[str] = frozenset({
    "meta.LabelSelector", "meta.OwnerReference", "core.ObjectReference", "core.LocalObjectReference",
    "core.TypedLocalObjectReference", "core.TypedObjectReference", "core.ConfigMapKeySelector",
    "core.SecretKeySelector", "core.ObjectFieldSelector", "core.ResourceFieldSelector", "core.NodeSelector",
    "core.NodeSelectorTerm", "core.ScopeSelector", "rbac.RoleRef",
})

# message -> required JSON fields (upstream's fields without `omitempty` / `+required`), for the messages
# `openapi_schemas.REQUIRED` did not list.
REQUIRED: dict[str, list[str]] = {
    **{f"apps.{kind}Condition": ["type", "status"] for kind in ("Deployment", "ReplicaSet", "StatefulSet",
                                                                "DaemonSet")},
    "apps.DeploymentSpec": ["selector", "template"], "apps.ReplicaSetSpec": ["selector"],
    "apps.StatefulSetSpec": ["selector", "template"], "apps.DaemonSetSpec": ["selector", "template"],
    "apps.ReplicaSetStatus": ["replicas"], "apps.StatefulSetStatus": ["replicas"],
    "apps.ControllerRevision": ["revision"],
    "apps.DaemonSetStatus": ["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled",
                             "numberReady"],
    "batch.JobSpec": ["template"], "batch.JobCondition": ["type", "status"],
    "batch.CronJobSpec": ["schedule", "jobTemplate"], "batch.PodFailurePolicy": ["rules"],
    "batch.PodFailurePolicyRule": ["action"], "batch.PodFailurePolicyOnExitCodesRequirement": ["operator", "values"],
    "batch.PodFailurePolicyOnPodConditionsPattern": ["type"], "batch.SuccessPolicy": ["rules"],
    "networking.IPBlock": ["cidr"],
    "policy.PodDisruptionBudgetStatus": ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"],
    "discovery.EndpointSlice": ["addressType", "endpoints"], "discovery.Endpoint": ["addresses"],
    "discovery.ForZone": ["name"], "discovery.ForNode": ["name"],
    "rbac.PolicyRule": ["verbs"], "rbac.RoleBinding": ["roleRef"], "rbac.ClusterRoleBinding": ["roleRef"],
    "rbac.Subject": ["kind", "name"], "rbac.RoleRef": ["apiGroup", "kind", "name"],
    "autoscaling.ScaleStatus": ["replicas"],
    "authorization.SubjectAccessReview": ["spec"], "authorization.SelfSubjectAccessReview": ["spec"],
    "authorization.LocalSubjectAccessReview": ["spec"], "authorization.SelfSubjectRulesReview": ["spec"],
    "authentication.TokenReview": ["spec"], "authentication.TokenRequest": ["spec"],
    "core.ReplicationControllerStatus": ["replicas"], "core.ReplicationControllerCondition": ["type", "status"],
    "core.ComponentCondition": ["type", "status"],
}

# registry/groupkinds.py: {networking,scheduling,storage,node}/v1/types.go (v1.33)
REQUIRED.update({
    "networking.HTTPIngressRuleValue": ["paths"], "networking.HTTPIngressPath": ["pathType", "backend"],
    "networking.IngressServiceBackend": ["name"], "networking.IngressClassParametersReference": ["kind", "name"],
    "networking.IngressPortStatus": ["port", "protocol"],
    "scheduling.PriorityClass": ["value"],
    "storage.StorageClass": ["provisioner"], "storage.CSIDriver": ["spec"], "storage.CSINode": ["spec"],
    "storage.CSINodeSpec": ["drivers"], "storage.CSINodeDriver": ["name", "nodeID"],
    "storage.VolumeAttachment": ["spec"], "storage.VolumeAttachmentSpec": ["attacher", "source", "nodeName"],
    "storage.VolumeAttachmentStatus": ["attached"], "storage.CSIStorageCapacity": ["storageClassName"],
    "storage.TokenRequest": ["audience"],
    "node.RuntimeClass": ["handler"],
})
FIELD_MARKERS.update({
    **{name: ATOMIC for name in (
        "networking.IngressSpec.rules", "networking.IngressSpec.tls", "networking.IngressTLS.hosts",
        "networking.HTTPIngressRuleValue.paths", "networking.IngressLoadBalancerStatus.ingress",
        "networking.IngressLoadBalancerIngress.ports", "storage.StorageClass.mountOptions",
        "storage.StorageClass.allowedTopologies", "storage.CSIDriverSpec.tokenRequests",
        "storage.CSINodeDriver.topologyKeys", "node.Scheduling.tolerations")},
    "storage.CSIDriverSpec.volumeLifecycleModes": SET,
    "storage.CSINodeSpec.drivers": keyed("name"),
})

# registry/servicecidr.py: networking/v1/types.go ServiceCIDR, IPAddress (v1.33)
FIELD_MARKERS.update({"networking.ServiceCIDRSpec.cidrs": ATOMIC, "networking.ServiceCIDRStatus.conditions": _CONDITIONS})

# registry/admissionregistration.py: admissionregistration/v1/types.go (v1.33)
_AR = "admissionregistration"
REQUIRED.update({
    f"{_AR}.ValidatingWebhook": ["name", "clientConfig", "sideEffects", "admissionReviewVersions"],
    f"{_AR}.MutatingWebhook": ["name", "clientConfig", "sideEffects", "admissionReviewVersions"],
    f"{_AR}.ServiceReference": ["namespace", "name"], f"{_AR}.Validation": ["expression"],
    f"{_AR}.MatchCondition": ["name", "expression"], f"{_AR}.Variable": ["name", "expression"],
    f"{_AR}.AuditAnnotation": ["key", "valueExpression"], f"{_AR}.ExpressionWarning": ["fieldRef", "warning"],
})
FIELD_MARKERS.update({
    **{f"{_AR}.{name}": ATOMIC for name in (
        "ValidatingWebhook.rules", "ValidatingWebhook.admissionReviewVersions", "MutatingWebhook.rules",
        "MutatingWebhook.admissionReviewVersions", "Rule.apiGroups", "Rule.apiVersions", "Rule.resources",
        "RuleWithOperations.operations", "ValidatingAdmissionPolicySpec.validations",
        "ValidatingAdmissionPolicySpec.auditAnnotations", "ValidatingAdmissionPolicySpec.variables",
        "MatchResources.resourceRules", "MatchResources.excludeResourceRules",
        "NamedRuleWithOperations.resourceNames", "TypeChecking.expressionWarnings")},
    **{f"{_AR}.{name}": keyed("name") for name in (
        "ValidatingWebhookConfiguration.webhooks", "MutatingWebhookConfiguration.webhooks",
        "ValidatingWebhook.matchConditions", "MutatingWebhook.matchConditions",
        "ValidatingAdmissionPolicySpec.matchConditions")},
    f"{_AR}.ValidatingAdmissionPolicyBindingSpec.validationActions": SET,
    f"{_AR}.ValidatingAdmissionPolicyStatus.conditions": keyed("type", strategy=None),
})
ATOMIC_STRUCTS = ATOMIC_STRUCTS | {f"{_AR}.ParamKind", f"{_AR}.ParamRef"}
# registry/flowcontrol.py: flowcontrol/v1/types.go (v1.33)
REQUIRED.update({
    "flowcontrol.FlowSchemaSpec": ["priorityLevelConfiguration"],
    "flowcontrol.PriorityLevelConfigurationReference": ["name"], "flowcontrol.FlowDistinguisherMethod": ["type"],
    "flowcontrol.PolicyRulesWithSubjects": ["subjects"], "flowcontrol.Subject": ["kind"],
    "flowcontrol.UserSubject": ["name"], "flowcontrol.GroupSubject": ["name"],
    "flowcontrol.ServiceAccountSubject": ["namespace", "name"],
    "flowcontrol.ResourcePolicyRule": ["verbs", "apiGroups", "resources"],
    "flowcontrol.NonResourcePolicyRule": ["verbs", "nonResourceURLs"],
    "flowcontrol.PriorityLevelConfigurationSpec": ["type"], "flowcontrol.LimitResponse": ["type"],
})
FIELD_MARKERS.update({
    **{name: ATOMIC for name in (
        "flowcontrol.FlowSchemaSpec.rules", "flowcontrol.PolicyRulesWithSubjects.subjects",
        "flowcontrol.PolicyRulesWithSubjects.resourceRules", "flowcontrol.PolicyRulesWithSubjects.nonResourceRules")},
    **{name: SET for name in (
        "flowcontrol.ResourcePolicyRule.verbs", "flowcontrol.ResourcePolicyRule.apiGroups",
        "flowcontrol.ResourcePolicyRule.resources", "flowcontrol.ResourcePolicyRule.namespaces",
        "flowcontrol.NonResourcePolicyRule.verbs", "flowcontrol.NonResourcePolicyRule.nonResourceURLs")},
    "flowcontrol.FlowSchemaStatus.conditions": _CONDITIONS,
    "flowcontrol.PriorityLevelConfigurationStatus.conditions": _CONDITIONS,
})

# message.field -> `+default=` value that openapi-gen emits as `Default:` (k8s.io/api core/v1/types.go, v0.33.0:
# every such marker of a served type; `ref(C)` is the constant's value). kube-openapi publishes it in v3 only
# (`/openapi/v2` is pruned: wire/openapi_schemas.py), and structured-merge-diff fills a list-map key that an
# applied item omits with it (ports keyed by port+protocol; imagePullSecrets by name).
DEFAULTS: dict[str, Any] = {
    "core.ContainerPort.protocol": "TCP", "core.ServicePort.protocol": "TCP",
    "core.LocalObjectReference.name": "", "core.GRPCAction.service": "",
    "core.ReplicationControllerSpec.replicas": 1, "core.ReplicationControllerSpec.minReadySeconds": 0,
    **{f"core.{t}.{f}": v for t in ("RBDVolumeSource", "RBDPersistentVolumeSource")
       for f, v in (("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring"))},
    "core.ISCSIVolumeSource.iscsiInterface": "default", "core.ISCSIPersistentVolumeSource.iscsiInterface": "default",
    "core.AzureDiskVolumeSource.cachingMode": "ReadWrite", "core.AzureDiskVolumeSource.fsType": "ext4",
    "core.AzureDiskVolumeSource.readOnly": False, "core.AzureDiskVolumeSource.kind": "Shared",
    **{f"core.{t}.{f}": v for t in ("ScaleIOVolumeSource", "ScaleIOPersistentVolumeSource")
       for f, v in (("storageMode", "ThinProvisioned"), ("fsType", "xfs"))},
}

# registry/certificates.py and registry/eventsview.py: {certificates,events}/v1/types.go (v1.33)
REQUIRED.update({
    "certificates.CertificateSigningRequest": ["spec"],
    "certificates.CertificateSigningRequestSpec": ["request", "signerName"],
    "certificates.CertificateSigningRequestCondition": ["type", "status"],
    "events.Event": ["eventTime"], "events.EventSeries": ["count", "lastObservedTime"],
})
FIELD_MARKERS.update({
    **{name: ATOMIC for name in (
        "certificates.CertificateSigningRequestSpec.request", "certificates.CertificateSigningRequestSpec.usages",
        "certificates.CertificateSigningRequestSpec.groups",
        "certificates.CertificateSigningRequestStatus.certificate")},
    "certificates.CertificateSigningRequestStatus.conditions": keyed("type", strategy=None),
})
