"""One field model of the served kinds, shared by protobuf decoding, OpenAPI and strict validation.

The numbers and names come from the generated ``_proto_table`` (upstream's generated.proto);
what protobuf cannot say -- Go's JSON shape -- is declared here: which message fields are
inlined (``json:",inline"``), which messages are JSON scalars, and which scalar fields keep a
zero value (Go pointers and non-``omitempty`` fields) rather than dropping it as
``encoding/json`` does for ``omitempty`` zero values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ._proto_table import MESSAGES
from .group_fields import KEEP_ZERO as _GROUP_KEEP_ZERO

# Kind -> message, for objects that can arrive as a request body.
KIND_MESSAGES: dict[str, str] = {
    "Namespace": "core.Namespace",
    "ConfigMap": "core.ConfigMap",
    "Secret": "core.Secret",
    "Service": "core.Service",
    "ServiceAccount": "core.ServiceAccount",
    "Pod": "core.Pod",
    "ResourceQuota": "core.ResourceQuota",
    "LimitRange": "core.LimitRange",
    "Event": "core.Event",
    "Endpoints": "core.Endpoints",
    "DeleteOptions": "meta.DeleteOptions",
    **{k: f"core.{k}" for k in ("PersistentVolumeClaim", "PersistentVolume", "PodTemplate", "ReplicationController",
                                "ComponentStatus", "Node")},
}

# The named-group built-in kinds (registry/workloads.py, auth/kinds.py): group-version -> (table prefix, kinds).
GROUP_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "apps/v1": ("apps", ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision")),
    "batch/v1": ("batch", ("Job", "CronJob")),
    "networking.k8s.io/v1": ("networking", ("NetworkPolicy",)),
    "policy/v1": ("policy", ("PodDisruptionBudget",)),
    "coordination.k8s.io/v1": ("coordination", ("Lease",)),
    "discovery.k8s.io/v1": ("discovery", ("EndpointSlice",)),
    "rbac.authorization.k8s.io/v1": ("rbac", ("Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding")),
    "scheduling.k8s.io/v1": ("scheduling", ("PriorityClass",)),  # registry/groupkinds.py
    "storage.k8s.io/v1": ("storage", ("StorageClass", "CSIDriver", "CSINode", "VolumeAttachment",
                                      "CSIStorageCapacity")),
    "node.k8s.io/v1": ("node", ("RuntimeClass",)),
}
GROUP_KINDS["networking.k8s.io/v1"] = ("networking",
                                       GROUP_KINDS["networking.k8s.io/v1"][1] + ("Ingress", "IngressClass"))
GROUP_KINDS["networking.k8s.io/v1"] = ("networking",  # registry/servicecidr.py
                                       GROUP_KINDS["networking.k8s.io/v1"][1] + ("ServiceCIDR", "IPAddress"))
GROUP_KINDS.update({"autoscaling/v2": ("autoscalingv2", ("HorizontalPodAutoscaler",)),  # registry/autoscaling.py:
                    "autoscaling/v1": ("autoscaling", ("HorizontalPodAutoscaler",))})  # one kind, two versions
GROUP_KINDS["certificates.k8s.io/v1"] = ("certificates", ("CertificateSigningRequest",))  # registry/certificates.py
GROUP_KINDS["events.k8s.io/v1"] = ("events", ("Event",))  # registry/eventsview.py: core events seen as events/v1
GROUP_KINDS["admissionregistration.k8s.io/v1"] = ("admissionregistration", (  # registry/admissionregistration.py
    "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding"))
GROUP_KINDS["flowcontrol.apiserver.k8s.io/v1"] = ("flowcontrol", ("FlowSchema", "PriorityLevelConfiguration"))

# (apiVersion, Kind) -> message, for everything a response may carry in protobuf: the request kinds, their
# lists, Status, metadata-only objects and the create-only reviews. A kind missing here is answered in JSON
# (the client's next Accept clause), as upstream answers custom resources.
_CORE_KINDS = ("Namespace", "ConfigMap", "Secret", "Service", "ServiceAccount", "Pod", "ResourceQuota", "LimitRange",
               "Event", "Endpoints",
               "PersistentVolumeClaim", "PersistentVolume", "PodTemplate", "ReplicationController", "ComponentStatus",
               "Node")
OUTPUT_MESSAGES: dict[tuple[str, str], str] = {
    **{("v1", k): f"core.{k}" for k in _CORE_KINDS},
    **{("v1", f"{k}List"): f"core.{k}List" for k in _CORE_KINDS},
    ("v1", "Status"): "meta.Status",
    **{(f"meta.k8s.io/{v}", k): f"meta.{k}" for v in ("v1", "v1beta1")
       for k in ("PartialObjectMetadata", "PartialObjectMetadataList")},
    **{("authorization.k8s.io/v1", k): f"authorization.{k}" for k in (
        "SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectRulesReview")},
    **{("authentication.k8s.io/v1", k): f"authentication.{k}" for k in (
        "SelfSubjectReview", "TokenReview", "TokenRequest")},
    **{(group_version, k + suffix): f"{prefix}.{k}{suffix}" for group_version, (prefix, kinds) in GROUP_KINDS.items()
       for k in kinds for suffix in ("", "List")},
    ("autoscaling/v1", "Scale"): "autoscaling.Scale",  # the apps kinds' /scale subresource
    ("policy/v1", "Eviction"): "policy.Eviction",  # the body of pods/eviction (http/eviction.py)
}

# (apiVersion, Kind) -> message of a body that is posted but never answered (BindingREST answers a Status): read
# from protobuf requests (`protobuf.decode_group`) and described in the OpenAPI documents, never written.
BODY_MESSAGES: dict[tuple[str, str], str] = {("v1", "Binding"): "core.Binding"}  # pods/binding, bindings

# Messages that are a JSON array of strings (Go `type ExtraValue []string`).
STRING_LIST_MESSAGES: frozenset[str] = frozenset({"authentication.ExtraValue", "authorization.ExtraValue",
                                                  "certificates.ExtraValue"})

# Embedded Go structs: protobuf nests them, JSON flattens them into the parent.
INLINE: frozenset[str] = frozenset({
    "core.Volume.volumeSource",
    "core.Probe.handler",
    "core.EphemeralContainer.ephemeralContainerCommon",
    "core.PersistentVolumeSpec.persistentVolumeSource",
    *(f"core.{m}.localObjectReference" for m in (
        "ConfigMapEnvSource", "ConfigMapKeySelector", "ConfigMapProjection", "ConfigMapVolumeSource",
        "SecretEnvSource", "SecretKeySelector", "SecretProjection")),
})

INLINE = INLINE | {  # registry/admissionregistration.py: `json:",inline"` rules
    "admissionregistration.RuleWithOperations.rule", "admissionregistration.NamedRuleWithOperations.ruleWithOperations",
}
INLINE = INLINE | {  # registry/groupkinds.py: `json:",inline"` in networking/v1 and core/v1 (a VolumeAttachment's
    "networking.IngressRule.ingressRuleValue",  # inlineVolumeSpec)
    "core.PersistentVolumeSpec.persistentVolumeSource",
}

# Messages that are a single JSON value (string / int-or-string / free-form object).
JSON_SCALAR_MESSAGES: frozenset[str] = frozenset({
    "meta.Time", "meta.MicroTime", "resource.Quantity", "intstr.IntOrString", "meta.FieldsV1",
    "runtime.RawExtension",  # ControllerRevision.data: any JSON, its bytes in `raw` on the protobuf side
})

# Scalar fields that keep a zero value when present on the wire: Go pointer fields (set = present,
# 0/false/"" is meaningful, e.g. DeleteOptions.gracePeriodSeconds=0) and non-omitempty fields
# (Go's JSON always prints them). Every other scalar drops its zero value, like omitempty.
KEEP_ZERO: frozenset[str] = frozenset({
    # meta
    "meta.DeleteOptions.gracePeriodSeconds", "meta.DeleteOptions.orphanDependents",
    "meta.DeleteOptions.propagationPolicy",
    "meta.DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential",
    "meta.Preconditions.uid", "meta.Preconditions.resourceVersion",
    "meta.ObjectMeta.deletionGracePeriodSeconds",
    "meta.OwnerReference.controller", "meta.OwnerReference.blockOwnerDeletion",
    "meta.OwnerReference.apiVersion", "meta.OwnerReference.kind", "meta.OwnerReference.name",
    "meta.OwnerReference.uid",
    "meta.Condition.type", "meta.Condition.status", "meta.Condition.reason", "meta.Condition.message",
    "meta.LabelSelectorRequirement.key", "meta.LabelSelectorRequirement.operator",
    # content kinds
    "core.ConfigMap.immutable", "core.Secret.immutable",
    "core.ServiceAccount.automountServiceAccountToken",
    "core.ServicePort.port", "core.ServiceSpec.allocateLoadBalancerNodePorts",
    "core.ServiceSpec.ipFamilyPolicy", "core.ServiceSpec.loadBalancerClass",
    "core.ServiceSpec.internalTrafficPolicy", "core.ServiceSpec.trafficDistribution",
    "core.ServicePort.appProtocol", "core.ClientIPConfig.timeoutSeconds",
    "core.EndpointPort.port", "core.EndpointPort.appProtocol", "core.EndpointAddress.ip",
    "core.EndpointAddress.nodeName",
    # pods
    "core.PodSpec.terminationGracePeriodSeconds", "core.PodSpec.activeDeadlineSeconds",
    "core.PodSpec.automountServiceAccountToken", "core.PodSpec.shareProcessNamespace",
    "core.PodSpec.priority", "core.PodSpec.enableServiceLinks", "core.PodSpec.setHostnameAsFQDN",
    "core.PodSpec.hostUsers", "core.PodSpec.runtimeClassName", "core.PodSpec.preemptionPolicy",
    "core.PodSecurityContext.runAsUser", "core.PodSecurityContext.runAsGroup",
    "core.PodSecurityContext.runAsNonRoot", "core.PodSecurityContext.fsGroup",
    "core.PodSecurityContext.fsGroupChangePolicy", "core.PodSecurityContext.supplementalGroupsPolicy",
    "core.SecurityContext.privileged", "core.SecurityContext.runAsUser", "core.SecurityContext.runAsGroup",
    "core.SecurityContext.runAsNonRoot", "core.SecurityContext.readOnlyRootFilesystem",
    "core.SecurityContext.allowPrivilegeEscalation", "core.SecurityContext.procMount",
    "core.SeccompProfile.localhostProfile", "core.AppArmorProfile.localhostProfile",
    "core.WindowsSecurityContextOptions.hostProcess",
    "core.WindowsSecurityContextOptions.gmsaCredentialSpecName",
    "core.WindowsSecurityContextOptions.gmsaCredentialSpec",
    "core.WindowsSecurityContextOptions.runAsUserName",
    "core.Probe.terminationGracePeriodSeconds", "core.Toleration.tolerationSeconds",
    "core.ContainerPort.containerPort", "core.GRPCAction.port", "core.GRPCAction.service",
    "core.SleepAction.seconds", "core.Container.restartPolicy",
    "core.ContainerStatus.ready", "core.ContainerStatus.restartCount", "core.ContainerStatus.started",
    "core.ContainerStateTerminated.exitCode", "core.PortStatus.port",
    "core.LinuxContainerUser.uid", "core.LinuxContainerUser.gid",
    "core.PreferredSchedulingTerm.weight", "core.WeightedPodAffinityTerm.weight",
    "core.TopologySpreadConstraint.maxSkew", "core.TopologySpreadConstraint.minDomains",
    "core.TopologySpreadConstraint.nodeAffinityPolicy", "core.TopologySpreadConstraint.nodeTaintsPolicy",
    "core.VolumeMount.recursiveReadOnly", "core.VolumeMountStatus.recursiveReadOnly",
    "core.PodDNSConfigOption.value", "core.PodResourceClaim.resourceClaimName",
    "core.PodResourceClaim.resourceClaimTemplateName",
    # volumes
    "core.ConfigMapVolumeSource.defaultMode", "core.ConfigMapVolumeSource.optional",
    "core.SecretVolumeSource.defaultMode", "core.SecretVolumeSource.optional",
    "core.ProjectedVolumeSource.defaultMode", "core.DownwardAPIVolumeSource.defaultMode",
    "core.DownwardAPIVolumeFile.mode", "core.KeyToPath.mode",
    "core.ConfigMapProjection.optional", "core.SecretProjection.optional",
    "core.ConfigMapKeySelector.optional", "core.SecretKeySelector.optional",
    "core.ConfigMapEnvSource.optional", "core.SecretEnvSource.optional",
    "core.ClusterTrustBundleProjection.optional", "core.ClusterTrustBundleProjection.name",
    "core.ClusterTrustBundleProjection.signerName",
    "core.ServiceAccountTokenProjection.expirationSeconds",
    "core.CSIVolumeSource.readOnly", "core.CSIVolumeSource.fsType",
    "core.AzureDiskVolumeSource.readOnly", "core.AzureDiskVolumeSource.cachingMode",
    "core.AzureDiskVolumeSource.fsType", "core.AzureDiskVolumeSource.kind",
    "core.FCVolumeSource.lun", "core.ISCSIVolumeSource.lun", "core.ISCSIVolumeSource.initiatorName",
    "core.PersistentVolumeClaimSpec.storageClassName", "core.PersistentVolumeClaimSpec.volumeMode",
    "core.PersistentVolumeClaimSpec.volumeAttributesClassName",
    "core.HostPathVolumeSource.type",
    # non-omitempty strings (Go prints them even when empty)
    "core.ContainerStatus.name", "core.ContainerStatus.image", "core.ContainerStatus.imageID",
    "core.PodCondition.type", "core.PodCondition.status", "core.NamespaceCondition.type",
    "core.NamespaceCondition.status", "core.LimitRangeItem.type", "core.Container.name",
    "core.EphemeralContainerCommon.name", "core.EnvVar.name", "core.Volume.name", "core.VolumeMount.name",
    "core.VolumeMount.mountPath", "core.KeyToPath.key", "core.KeyToPath.path", "core.ConfigMapKeySelector.key",
    "core.SecretKeySelector.key", "core.ObjectFieldSelector.fieldPath", "core.ResourceFieldSelector.resource",
    "core.DownwardAPIVolumeFile.path", "core.HostPathVolumeSource.path", "core.NFSVolumeSource.server",
    "core.NFSVolumeSource.path", "core.ServiceAccountTokenProjection.path", "core.PodIP.ip", "core.HostIP.ip",
    "core.HostAlias.ip", "core.TopologySpreadConstraint.topologyKey",
    "core.TopologySpreadConstraint.whenUnsatisfiable", "core.NodeSelectorRequirement.key",
    "core.NodeSelectorRequirement.operator", "core.PodAffinityTerm.topologyKey",
    "core.Event.reportingComponent", "core.Event.reportingInstance",
    # review answers (`json:"allowed"`, `json:"incomplete"`: printed when false)
    "authorization.SubjectAccessReviewStatus.allowed", "authorization.SubjectRulesReviewStatus.incomplete",
    "authentication.TokenRequestSpec.expirationSeconds",  # *int64
    *_GROUP_KEEP_ZERO,  # apps, batch, networking, policy, coordination, discovery, rbac (wire/group_fields.py)
    # PVs, RCs, ComponentStatuses: pointers and non-omitempty fields
    "core.ReplicationControllerSpec.replicas", "core.ReplicationControllerStatus.replicas",
    "core.ReplicationControllerCondition.type", "core.ReplicationControllerCondition.status",
    "core.PersistentVolumeSpec.volumeMode", "core.PersistentVolumeSpec.volumeAttributesClassName",
    "core.ComponentCondition.type", "core.ComponentCondition.status",
})

_FIELD_RE = re.compile(r"^(?P<name>\w+)=(?P<num>\d+):(?P<rep>\*?)(?P<type>.+)$")
_MAP_RE = re.compile(r"^\{(?P<key>\w+):(?P<value>@?[\w.]+)\}$")


@dataclass(frozen=True)
class Field:
    """One declared field. ``type`` is a scalar code (s, b, i32, ...) or a message name."""

    message: str
    name: str
    number: int
    type: str
    repeated: bool = False
    map_key: str | None = None  # set for map fields; ``type`` is then the value type

    @property
    def is_message(self) -> bool:
        return "." in self.type

    @property
    def qualified(self) -> str:
        return f"{self.message}.{self.name}"

    @property
    def inline(self) -> bool:
        return self.qualified in INLINE

    @property
    def keep_zero(self) -> bool:
        return self.qualified in KEEP_ZERO


@lru_cache(maxsize=None)
def fields(message: str) -> tuple[Field, ...]:
    """Parsed fields of one message (``core.Pod``); KeyError names an unknown message."""
    out = []
    for token in MESSAGES[message].split():
        m = _FIELD_RE.match(token)
        if m is None:
            raise ValueError(f"bad field declaration {token!r} in {message}")
        typ = m["type"]
        mm = _MAP_RE.match(typ)
        if mm:
            out.append(Field(message, m["name"], int(m["num"]), mm["value"].lstrip("@"), True, mm["key"]))
        else:
            out.append(Field(message, m["name"], int(m["num"]), typ.lstrip("@"), bool(m["rep"])))
    return tuple(out)


@lru_cache(maxsize=None)
def fields_by_name(message: str) -> dict[str, Field]:
    """Fields of a message keyed by (JSON) name."""
    return {f.name: f for f in fields(message)}


def json_fields(message: str) -> dict[str, Field]:
    """The JSON-visible fields of a message: inlined structs contribute their own fields."""
    out: dict[str, Field] = {}
    for f in fields(message):
        if f.inline:
            out.update(json_fields(f.type))
        else:
            out[f.name] = f
    return out
