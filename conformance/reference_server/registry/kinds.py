"""Resource declarations: one entry per kind, as data (the controller discovers namespaced kinds here)."""
from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

CONTENT_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
OBJECT_META_FIELDS = frozenset({
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
    "ownerReferences", "finalizers", "managedFields"})


@dataclass(frozen=True)
class ResourceInfo:
    """What the registry, admission, controller and discovery need to know about one resource."""

    kind: str
    plural: str
    singular: str
    short_names: tuple[str, ...] = ()
    verbs: tuple[str, ...] = CONTENT_VERBS
    namespaced: bool = True
    fields: frozenset[str] = frozenset()          # known top-level fields besides apiVersion/kind/metadata
    keeps_unknown_fields: bool = False            # any top-level field is kept (a CRD schema's root preserves them)
    name_rule: str = "subdomain"                  # subdomain | label | label1035 | pathsegment | path
    # its `ValidateXUpdate` runs `ValidateObjectMeta` on the new object (most call `ValidateX` again), which judges
    # a generateName sent on update with `name_rule`; False: `ValidateObjectMetaUpdate` only (a Deployment's)
    update_validates_meta: bool = False
    status_validates_meta: bool = False          # so does its /status strategy (a VolumeAttachment's inherits it)
    # where not `UM`/`U` as the two above say: the `ValidateObjectMetaUpdate` (U) and `ValidateObjectMeta` (M) calls
    # its `ValidateXUpdate` (its /status one's) makes, in order, `-` for none (registry/updatemeta.py lists each
    # call's causes)
    update_meta_calls: str = ""
    status_meta_calls: str = ""
    selectable_fields: tuple[str, ...] = ("metadata.name", "metadata.namespace")
    custom_field_labels: bool = False             # registers its own v1 field-label conversion
    return_deleted_object: bool = False
    categories: tuple[str, ...] = ()              # discovery categories (`kubectl get all`)
    deprecation: str = ""                         # the `Warning` every request on it gets (`APILifecycleDeprecated`)
    list_kind_name: str = ""                      # a list's kind when not `<Kind>List` (a CRD's `listKind`)

    @property
    def list_kind(self) -> str:
        return self.list_kind_name or self.kind + "List"

    @property
    def storage_version_hash(self) -> str:
        """`discovery.StorageVersionHash`: base64(sha256("<group>/<version>/<Kind>")[:8])."""
        return base64.b64encode(hashlib.sha256(f"/v1/{self.kind}".encode()).digest()[:8]).decode()


NAMESPACES = ResourceInfo(
    kind="Namespace", plural="namespaces", singular="namespace", short_names=("ns",),
    verbs=("create", "delete", "get", "list", "patch", "update", "watch"), namespaced=False,
    fields=frozenset({"spec", "status"}), name_rule="label",
    selectable_fields=("metadata.name", "status.phase"), custom_field_labels=True, return_deleted_object=True,
    update_meta_calls="MVU")  # namespace strategy.go: `ValidateNamespace` then `ValidateNamespaceUpdate`

CONTENT_KINDS: tuple[ResourceInfo, ...] = (
    ResourceInfo("ConfigMap", "configmaps", "configmap", ("cm",),
                 fields=frozenset({"data", "binaryData", "immutable"}), update_validates_meta=True,
                 update_meta_calls="UCMV"),  # `ValidateConfigMapUpdate`: ...MetaUpdate, immutable, ValidateConfigMap
    ResourceInfo("Secret", "secrets", "secret", (), fields=frozenset({"data", "stringData", "type", "immutable"}),
                 selectable_fields=("metadata.name", "metadata.namespace", "type"), custom_field_labels=True,
                 update_validates_meta=True, update_meta_calls="UCMV"),  # `ValidateSecretUpdate`: the same
    ResourceInfo("Service", "services", "service", ("svc",), fields=frozenset({"spec", "status"}), categories=("all",),
                 verbs=("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"),
                 name_rule="label1035", return_deleted_object=True, custom_field_labels=True,
                 update_validates_meta=True, update_meta_calls="UCMV",  # `ValidateServiceUpdate`
                 selectable_fields=("metadata.name", "metadata.namespace", "spec.clusterIP", "spec.type")),
    ResourceInfo("ServiceAccount", "serviceaccounts", "serviceaccount", ("sa",),
                 fields=frozenset({"secrets", "imagePullSecrets", "automountServiceAccountToken"}),
                 return_deleted_object=True, update_validates_meta=True),
    ResourceInfo("Pod", "pods", "pod", ("po",), fields=frozenset({"spec", "status"}),
                 selectable_fields=("metadata.name", "metadata.namespace", "spec.nodeName",
                                    "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
                                    "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs",
                                    "status.nominatedNodeName"),
                 custom_field_labels=True, return_deleted_object=True, categories=("all",),
                 update_validates_meta=True),
    ResourceInfo("ResourceQuota", "resourcequotas", "resourcequota", ("quota",),
                 fields=frozenset({"spec", "status"}), return_deleted_object=True),
    ResourceInfo("LimitRange", "limitranges", "limitrange", ("limits",), fields=frozenset({"spec"}),
                 update_validates_meta=True, update_meta_calls="M"),  # strategy: `ValidateLimitRange` alone
    ResourceInfo("Endpoints", "endpoints", "endpoints", ("ep",), fields=frozenset({"subsets"}),
                 deprecation="v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"),
    ResourceInfo("Event", "events", "event", ("ev",),
                 fields=frozenset({"involvedObject", "reason", "message", "source", "firstTimestamp",
                                   "lastTimestamp", "count", "type", "eventTime", "series", "action",
                                   "related", "reportingComponent", "reportingInstance"}),
                 selectable_fields=("metadata.name", "metadata.namespace", "involvedObject.kind",
                                    "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
                                    "involvedObject.apiVersion", "involvedObject.resourceVersion",
                                    "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"),
                 custom_field_labels=True),
    # kind's other core/v1 namespaced kinds (registry/volumes.py, registry/replication.py)
    ResourceInfo("PersistentVolumeClaim", "persistentvolumeclaims", "persistentvolumeclaim", ("pvc",),
                 fields=frozenset({"spec", "status"}), return_deleted_object=True, update_validates_meta=True),
    ResourceInfo("PodTemplate", "podtemplates", "podtemplate", fields=frozenset({"template"}),
                 return_deleted_object=True),
    ResourceInfo("ReplicationController", "replicationcontrollers", "replicationcontroller", ("rc",),
                 fields=frozenset({"spec", "status"}), categories=("all",),
                 selectable_fields=("metadata.name", "metadata.namespace", "status.replicas"),
                 custom_field_labels=True),
)

# Cluster-scoped core kinds besides namespaces: a cluster without nodes lists none (`kubectl get nodes`).
CLUSTER_KINDS: tuple[ResourceInfo, ...] = (
    ResourceInfo("Node", "nodes", "node", ("no",), namespaced=False, fields=frozenset({"spec", "status"}),
                 selectable_fields=("metadata.name", "spec.unschedulable"), custom_field_labels=True,
                 update_meta_calls="MVUC"),  # node strategy.go: `ValidateNode`, then `ValidateNodeUpdate`
    ResourceInfo("PersistentVolume", "persistentvolumes", "persistentvolume", ("pv",), namespaced=False,
                 fields=frozenset({"spec", "status"}), return_deleted_object=True, update_validates_meta=True,
                 update_meta_calls="MVSMVC"),  # strategy: `ValidatePersistentVolume`, mount options, the Update's
    ResourceInfo("ComponentStatus", "componentstatuses", "componentstatus", ("cs",), verbs=("get", "list"),
                 namespaced=False, fields=frozenset({"conditions"}),
                 deprecation="v1 ComponentStatus is deprecated in v1.19+"),
)

# Only used with the `finalize-as-content` deviation: `/namespaces/x/finalize` becomes a content type.
FINALIZE_AS_CONTENT = ResourceInfo("Finalize", "finalize", "finalize", fields=frozenset({"spec", "status", "data"}))
