"""What kube-apiserver's scheme (`legacyscheme.Scheme`) makes of a body's version and kind: the JSON serializer's steps
after `SimpleMetaFactory.Interpret` (wire/gometa.py), for the built-in kinds.

Upstream: apimachinery v0.33 pkg/runtime/serializer/json/json.go `Decode`: the version and kind read are defaulted
(`gvkWithDefaults`) from the handler's default (create.go / update.go: the route's kind; patch.go's `DecodeInto`:
none), then from the `into` object's own kind, its internal version (`ObjectKinds(into)`: `{group, "__internal",
Kind}`); an empty kind is `NewMissingKindErr`, an empty version `NewMissingVersionErr` (`Object 'apiVersion' is
missing in '<data>'`); then `runtime.UseOrCreateObject`: the `into` object itself when the kind read is its own
internal one, else `Scheme.New`, whose `NotRegisteredErr` (runtime/error.go) names the scheme by its call site
(`pkg/api/legacyscheme/scheme.go:30`); then the versioning codec converts what it decoded into `into`
(`Scheme.Convert`), which between two kinds is conversion.Converter's `converting (v1.Secret) to (core.ConfigMap):
unknown conversion` (the Go types' package-qualified names), and between two versions of one kind succeeds.

The registered kinds: k8s.io/api v0.33 `register.go` of every group and version (kubernetes v1.33
pkg/controlplane/import_known_versions.go installs each group's every version into the legacy scheme; apidiscovery
is not among them), with what `metav1.AddToGroupVersion` adds to each (`WatchEvent` and the options kinds, package
`v1`) and its unversioned kinds (`Status` ..., registered for every version: `Scheme.New` finds them by kind
alone). CRDs (apiextensions-apiserver's scheme) and APIServices (kube-aggregator's) are not in it.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import gometa

SCHEME = "pkg/api/legacyscheme/scheme.go:30"
INTERNAL = "__internal"  # runtime.APIVersionInternal

# k8s.io/api v0.33 `addKnownTypes` of each group version ("" group: its version alone)
_REGISTERED: dict[str, str] = {
    "admission.k8s.io/v1": "AdmissionReview",
    "admission.k8s.io/v1beta1": "AdmissionReview",
    "admissionregistration.k8s.io/v1": (
        "ValidatingWebhookConfiguration ValidatingWebhookConfigurationList "
        "MutatingWebhookConfiguration MutatingWebhookConfigurationList "
        "ValidatingAdmissionPolicy ValidatingAdmissionPolicyList "
        "ValidatingAdmissionPolicyBinding ValidatingAdmissionPolicyBindingList"),
    "admissionregistration.k8s.io/v1alpha1": (
        "ValidatingAdmissionPolicy ValidatingAdmissionPolicyList "
        "ValidatingAdmissionPolicyBinding "
        "ValidatingAdmissionPolicyBindingList MutatingAdmissionPolicy "
        "MutatingAdmissionPolicyList MutatingAdmissionPolicyBinding "
        "MutatingAdmissionPolicyBindingList"),
    "admissionregistration.k8s.io/v1beta1": (
        "ValidatingWebhookConfiguration ValidatingWebhookConfigurationList "
        "MutatingWebhookConfiguration MutatingWebhookConfigurationList "
        "ValidatingAdmissionPolicy ValidatingAdmissionPolicyList "
        "ValidatingAdmissionPolicyBinding "
        "ValidatingAdmissionPolicyBindingList"),
    "internal.apiserver.k8s.io/v1alpha1": "StorageVersion StorageVersionList",
    "apps/v1": (
        "Deployment DeploymentList StatefulSet StatefulSetList DaemonSet DaemonSetList ReplicaSet "
        "ReplicaSetList ControllerRevision ControllerRevisionList"),
    "apps/v1beta1": (
        "Deployment DeploymentList DeploymentRollback Scale StatefulSet StatefulSetList "
        "ControllerRevision ControllerRevisionList"),
    "apps/v1beta2": (
        "Deployment DeploymentList Scale StatefulSet StatefulSetList DaemonSet DaemonSetList "
        "ReplicaSet ReplicaSetList ControllerRevision ControllerRevisionList"),
    "authentication.k8s.io/v1": "TokenReview TokenRequest SelfSubjectReview",
    "authentication.k8s.io/v1alpha1": "SelfSubjectReview",
    "authentication.k8s.io/v1beta1": "SelfSubjectReview TokenReview",
    "authorization.k8s.io/v1": (
        "SelfSubjectRulesReview SelfSubjectAccessReview SubjectAccessReview "
        "LocalSubjectAccessReview"),
    "authorization.k8s.io/v1beta1": (
        "SelfSubjectRulesReview SelfSubjectAccessReview SubjectAccessReview "
        "LocalSubjectAccessReview"),
    "autoscaling/v1": "HorizontalPodAutoscaler HorizontalPodAutoscalerList Scale",
    "autoscaling/v2": "HorizontalPodAutoscaler HorizontalPodAutoscalerList",
    "autoscaling/v2beta1": "HorizontalPodAutoscaler HorizontalPodAutoscalerList",
    "autoscaling/v2beta2": "HorizontalPodAutoscaler HorizontalPodAutoscalerList",
    "batch/v1": "Job JobList CronJob CronJobList",
    "batch/v1beta1": "CronJob CronJobList",
    "certificates.k8s.io/v1": "CertificateSigningRequest CertificateSigningRequestList",
    "certificates.k8s.io/v1alpha1": "ClusterTrustBundle ClusterTrustBundleList",
    "certificates.k8s.io/v1beta1": (
        "CertificateSigningRequest CertificateSigningRequestList ClusterTrustBundle "
        "ClusterTrustBundleList"),
    "coordination.k8s.io/v1": "Lease LeaseList",
    "coordination.k8s.io/v1alpha2": "LeaseCandidate LeaseCandidateList",
    "coordination.k8s.io/v1beta1": "Lease LeaseList LeaseCandidate LeaseCandidateList",
    "v1": (
        "Pod PodList PodStatusResult PodTemplate PodTemplateList ReplicationController "
        "ReplicationControllerList Service ServiceProxyOptions ServiceList Endpoints EndpointsList Node "
        "NodeList NodeProxyOptions Binding Event EventList List LimitRange LimitRangeList ResourceQuota "
        "ResourceQuotaList Namespace NamespaceList Secret SecretList ServiceAccount ServiceAccountList "
        "PersistentVolume PersistentVolumeList PersistentVolumeClaim PersistentVolumeClaimList "
        "PodAttachOptions PodLogOptions PodExecOptions PodPortForwardOptions PodProxyOptions ComponentStatus "
        "ComponentStatusList SerializedReference RangeAllocation ConfigMap ConfigMapList Status"),
    "discovery.k8s.io/v1": "EndpointSlice EndpointSliceList",
    "discovery.k8s.io/v1beta1": "EndpointSlice EndpointSliceList",
    "events.k8s.io/v1": "Event EventList",
    "events.k8s.io/v1beta1": "Event EventList",
    "extensions/v1beta1": (
        "Deployment DeploymentList DeploymentRollback Scale DaemonSetList DaemonSet Ingress "
        "IngressList ReplicaSet ReplicaSetList NetworkPolicy NetworkPolicyList"),
    "flowcontrol.apiserver.k8s.io/v1": (
        "FlowSchema FlowSchemaList PriorityLevelConfiguration "
        "PriorityLevelConfigurationList"),
    "flowcontrol.apiserver.k8s.io/v1beta1": (
        "FlowSchema FlowSchemaList PriorityLevelConfiguration "
        "PriorityLevelConfigurationList"),
    "flowcontrol.apiserver.k8s.io/v1beta2": (
        "FlowSchema FlowSchemaList PriorityLevelConfiguration "
        "PriorityLevelConfigurationList"),
    "flowcontrol.apiserver.k8s.io/v1beta3": (
        "FlowSchema FlowSchemaList PriorityLevelConfiguration "
        "PriorityLevelConfigurationList"),
    "imagepolicy.k8s.io/v1alpha1": "ImageReview",
    "networking.k8s.io/v1": (
        "Ingress IngressList IngressClass IngressClassList NetworkPolicy NetworkPolicyList "
        "IPAddress IPAddressList ServiceCIDR ServiceCIDRList"),
    "networking.k8s.io/v1alpha1": "IPAddress IPAddressList ServiceCIDR ServiceCIDRList",
    "networking.k8s.io/v1beta1": (
        "Ingress IngressList IngressClass IngressClassList IPAddress IPAddressList "
        "ServiceCIDR ServiceCIDRList"),
    "node.k8s.io/v1": "RuntimeClass RuntimeClassList",
    "node.k8s.io/v1alpha1": "RuntimeClass RuntimeClassList",
    "node.k8s.io/v1beta1": "RuntimeClass RuntimeClassList",
    "policy/v1": "PodDisruptionBudget PodDisruptionBudgetList Eviction",
    "policy/v1beta1": "PodDisruptionBudget PodDisruptionBudgetList Eviction",
    "rbac.authorization.k8s.io/v1": (
        "Role RoleBinding RoleBindingList RoleList ClusterRole ClusterRoleBinding "
        "ClusterRoleBindingList ClusterRoleList"),
    "rbac.authorization.k8s.io/v1alpha1": (
        "Role RoleBinding RoleBindingList RoleList ClusterRole "
        "ClusterRoleBinding ClusterRoleBindingList ClusterRoleList"),
    "rbac.authorization.k8s.io/v1beta1": (
        "Role RoleBinding RoleBindingList RoleList ClusterRole "
        "ClusterRoleBinding ClusterRoleBindingList ClusterRoleList"),
    "resource.k8s.io/v1alpha3": (
        "DeviceClass DeviceClassList ResourceClaim ResourceClaimList "
        "ResourceClaimTemplate ResourceClaimTemplateList ResourceSlice ResourceSliceList "
        "DeviceTaintRule DeviceTaintRuleList"),
    "resource.k8s.io/v1beta1": (
        "DeviceClass DeviceClassList ResourceClaim ResourceClaimList "
        "ResourceClaimTemplate ResourceClaimTemplateList ResourceSlice ResourceSliceList"),
    "resource.k8s.io/v1beta2": (
        "DeviceClass DeviceClassList ResourceClaim ResourceClaimList "
        "ResourceClaimTemplate ResourceClaimTemplateList ResourceSlice ResourceSliceList"),
    "scheduling.k8s.io/v1": "PriorityClass PriorityClassList",
    "scheduling.k8s.io/v1alpha1": "PriorityClass PriorityClassList",
    "scheduling.k8s.io/v1beta1": "PriorityClass PriorityClassList",
    "storage.k8s.io/v1": (
        "StorageClass StorageClassList VolumeAttachment VolumeAttachmentList CSINode "
        "CSINodeList CSIDriver CSIDriverList CSIStorageCapacity CSIStorageCapacityList"),
    "storage.k8s.io/v1alpha1": (
        "VolumeAttachment VolumeAttachmentList CSIStorageCapacity CSIStorageCapacityList "
        "VolumeAttributesClass VolumeAttributesClassList"),
    "storage.k8s.io/v1beta1": (
        "StorageClass StorageClassList VolumeAttachment VolumeAttachmentList CSIDriver "
        "CSIDriverList CSINode CSINodeList CSIStorageCapacity CSIStorageCapacityList "
        "VolumeAttributesClass VolumeAttributesClassList"),
    "storagemigration.k8s.io/v1alpha1": "StorageVersionMigration StorageVersionMigrationList",
}
_META_KINDS = frozenset(
    "WatchEvent ListOptions GetOptions DeleteOptions CreateOptions UpdateOptions PatchOptions".split())
UNVERSIONED = frozenset("Status APIVersions APIGroupList APIGroup APIResourceList".split())
KINDS: dict[str, frozenset[str]] = {gv: frozenset(kinds.split()) | _META_KINDS for gv, kinds in _REGISTERED.items()}
# a group's internal Go package (kubernetes pkg/apis/<dir>), where it is not the group's first label
_INTERNAL_PACKAGES = {"": "core", "events.k8s.io": "core", "internal.apiserver.k8s.io": "apiserverinternal"}


_GROUPS = frozenset(gv.rpartition("/")[0] for gv in KINDS)


def holds(group: str) -> bool:
    """Whether the group's kinds are the legacy scheme's (not a CRD's, an APIService's or a custom resource's)."""
    return group in _GROUPS


def parse_group_version(api_version: str) -> tuple[str, str]:
    """`schema.FromAPIVersionAndKind`'s reading (`ParseGroupVersion`, wire/gometa.py), its error read as the empty
    group-version: `Interpret` already refused more than one `/` where a body is read."""
    return gometa.parse_group_version(api_version) or ("", "")


def group_version(group: str, version: str) -> str:
    """`GroupVersion.String()`: the version alone for the core group."""
    return f"{group}/{version}" if group else version


def with_defaults(actual: tuple[str, str, str], default: tuple[str, str, str]) -> tuple[str, str, str]:
    """json.go `gvkWithDefaults`: a missing kind is the default's; a missing version the default's where the group
    is missing too or the same."""
    group, version, kind = actual
    kind = kind or default[2]
    if not version and not group:
        group, version = default[0], default[1]
    if not version and group == default[0]:
        version = default[1]
    return group, version, kind


def internal_type(group: str, kind: str) -> str:
    """The Go type of `kind`'s internal object (`r.New()`), as `reflect.Type` prints it: `core.ConfigMap`."""
    return f"{_INTERNAL_PACKAGES.get(group, group.split('.')[0])}.{kind}"


def go_type(group: str, version: str, kind: str) -> str | None:
    """The Go type `Scheme.New` makes for the kind, as `reflect.Type` prints it (`v1.Secret`, `v1beta1.Deployment`;
    a meta kind's `v1.Status`); None: not registered."""
    if version == INTERNAL:
        known = any(kind in kinds for gv, kinds in KINDS.items() if parse_group_version(gv)[0] == group)
        return internal_type(group, kind) if known else (f"v1.{kind}" if kind in UNVERSIONED else None)
    if kind in KINDS.get(group_version(group, version), ()):
        return f"{'v1' if kind in _META_KINDS else version}.{kind}"
    return f"v1.{kind}" if kind in UNVERSIONED else None


def not_registered(group: str, version: str, kind: str) -> str:
    """`notRegisteredErr.Error()` of `Scheme.New` (runtime/error.go)."""
    if version == INTERNAL:
        return f'no kind "{kind}" is registered for the internal version of group "{group}" in scheme "{SCHEME}"'
    return f'no kind "{kind}" is registered for version "{group_version(group, version)}" in scheme "{SCHEME}"'


@dataclass(frozen=True)
class Read:
    """What the serializer and the versioning codec made of a body's version and kind: the kind read
    (`group`/`version`/`kind`, defaulted; what `transformDecodeError` names), and the error they return (None:
    decoded, into the kind's internal object, converted or, `internal`, as it is)."""
    group: str
    version: str
    kind: str
    error: str | None = None
    missing_version: bool = False  # `error` is `NewMissingVersionErr`'s, its data (` in '...'`) the caller's
    internal: bool = False  # decoded into the internal type itself (`UseOrCreateObject` returned `into`)
    unconverted: bool = False  # `error` is the conversion's (another kind, which `Scheme.New` made)


def read(api_version: str, kind: str, into: tuple[str, str, str], default_version: str | None = None,
         served: tuple[str, str, str] | None = None) -> Read:
    """The serializer's and the codec's reading of `api_version` and `kind` (as `Interpret` read them) for a decode
    into `into` (`(group, version, kind)`: the handlers' `r.New()`, the kind's internal object, version `INTERNAL`;
    a mutating webhook's patch: the versioned object, `newVersionedObject`), which is then converted to the kind's
    internal object; `default_version`: the handler's default kind's version (create, update: the route's), None
    where it gives none (patch.go's `runtime.DecodeInto`, the dispatcher's `Decode(patchedJS, nil, ...)`);
    `served`: the route's own `(group, version, kind)`, registered whatever the table says (a kind this server
    adds to a built-in group: an extension's, a deviation's)."""
    actual = (*parse_group_version(api_version), kind)
    if default_version is not None:
        actual = with_defaults(actual, (into[0], default_version, into[2]))
    group, version, kind = with_defaults(actual, into)
    if not version:
        return Read(group, version, kind, "Object 'apiVersion' is missing", missing_version=True)
    if (group, version, kind) == into:
        return Read(group, version, kind, internal=version == INTERNAL)
    made = go_type(group, version, kind)
    if made is None and (group, version, kind) == served:
        made = f"{version}.{kind}"
    if made is None:
        return Read(group, version, kind, not_registered(group, version, kind))
    if kind != into[2]:
        return Read(group, version, kind,
                    f"converting ({made}) to ({internal_type(into[0], into[2])}): unknown conversion", unconverted=True)
    return Read(group, version, kind)


__all__ = ["INTERNAL", "KINDS", "Read", "SCHEME", "UNVERSIONED", "go_type", "group_version", "holds",
           "internal_type", "not_registered", "parse_group_version", "read", "with_defaults"]
