"""The fields 1.33's strategies drop because their feature gate is off by default (`dropDisabledFields` and its
kin), per kind, as one table: a create drops them, an update keeps one only where the stored object already used
it (each rule's "in use" test, as upstream's). Followed, gate by gate (gates off by default in 1.33 as
`pkg/features/kube_features.go` lists them):

- `VolumeAttributesClass` (beta, off): `pkg/api/persistentvolumeclaim/util.go` `DropDisabledFields` (a claim's
  `spec.volumeAttributesClassName`) and `DropDisabledFieldsFromStatus` (`status.currentVolumeAttributesClassName`,
  `status.modifyVolumeStatus`), `pkg/api/persistentvolume/util.go` `DropDisabledSpecFields` (a volume's
  `spec.volumeAttributesClassName`): each kept where the stored object has it;
- `CrossNamespaceVolumeDataSource` (alpha, off): the same `DropDisabledFields` drops a claim's whole
  `spec.dataSourceRef` when it names a namespace, unless the stored claim had a `dataSourceRef`;
- `MaxUnavailableStatefulSet` (alpha, off): `pkg/registry/apps/statefulset/strategy.go`
  `dropStatefulSetDisabledFields`: `spec.updateStrategy.rollingUpdate.maxUnavailable` (`maxUnavailableInUse`);
- `DeploymentReplicaSetTerminatingReplicas` (alpha, off): `pkg/registry/apps/{deployment,replicaset}/strategy.go`
  `dropDisabledStatusFields`: `status.terminatingReplicas` of a status write;
- `PreferSameTrafficDistribution` (alpha, off): `pkg/registry/discovery/endpointslice/strategy.go`
  `dropDisabledFieldsOnCreate`/`OnUpdate`: each endpoint's `hints.forNodes` (kept when any stored endpoint has
  one; `TopologyAwareHints` is GA, so `hints` itself stays);
- `MutableCSINodeAllocatableCount` (alpha, off): `pkg/registry/storage/volumeattachment/strategy.go`'s status
  strategy: the `errorCode` of `status.attachError`/`status.detachError` (kept where the stored error has one;
  KEP-4876's tests: "dropped when feature is disabled and not previously set"), and a CSIDriver's
  `spec.nodeAllocatableUpdatePeriodSeconds` (`pkg/registry/storage/csidriver/strategy.go`: its 1.33 lines were
  not read here; the rule is the one that strategy applies to each of its earlier gated fields, "old is nil and the
  gate is off", which a later `strategy_test.go` shows for this field too: "NodeAllocatableUpdatePeriod feature
  disabled, before: nil, update: 30s" keeps nil);
- `CoordinatedLeaderElection` (beta, off): `pkg/registry/coordination/lease/strategy.go`: a Lease's
  `spec.strategy` and `spec.preferredHolder`;
- pods' `pods/status` writes: `dropPodStatusDisabledFields` (registry/podprepare.py);
- the removed DynamicKubeletConfig: `pkg/registry/core/node/strategy.go` `dropDisabledFields` (a Node's
  `spec.configSource`, and on create its `status.config`) and `nodeStatusStrategy.PrepareForUpdate`
  (`status.config` of a `nodes/status` write), each kept where the stored Node has it.

Pods' and pod templates' spec fields (DynamicResourceAllocation, ContainerStopSignals, PodLevelResources,
ClusterTrustBundleProjection, ImageVolume) are dropped where the pod strategies prepare a spec
(registry/podprepare.py), and an HPA's `tolerance` (HPAConfigurableTolerance) where its defaults are set
(registry/autoscaling.py). A gate that is beta and on in 1.33 keeps its field.
"""
from __future__ import annotations

from typing import Any, Callable

from .podprepare import drop_disabled_status_fields
from .shapes import as_dict, as_list

Rule = Callable[[dict[str, Any], "dict[str, Any] | None"], None]


def _holder(obj: Any, path: tuple[str, ...]) -> dict[str, Any] | None:
    """The map that holds the last key of `path`, or None."""
    for key in path[:-1]:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if isinstance(obj, dict) else None


def unless_in_use(*path: str) -> Rule:
    """The common rule: the field at `path` is dropped unless the stored object's is set (not nil)."""
    def rule(new: dict[str, Any], old: dict[str, Any] | None) -> None:
        holder = _holder(new, path)
        if holder is None or path[-1] not in holder:
            return
        old_holder = _holder(old, path)
        if old_holder is None or old_holder.get(path[-1]) is None:
            del holder[path[-1]]
    return rule


def _cross_namespace_data_source(new: dict[str, Any], old: dict[str, Any] | None) -> None:
    """`CrossNamespaceVolumeDataSource`: a `dataSourceRef` naming a namespace goes, whole, unless the stored
    claim had a `dataSourceRef` (`dataSourceRefInUse`)."""
    spec = as_dict(new.get("spec"))
    ref = spec.get("dataSourceRef")
    if isinstance(ref, dict) and ref.get("namespace") and \
            as_dict(as_dict((old or {}).get("spec"))).get("dataSourceRef") is None:
        del spec["dataSourceRef"]


def _endpoint_node_hints(new: dict[str, Any], old: dict[str, Any] | None) -> None:
    """`PreferSameTrafficDistribution`: every endpoint's `hints.forNodes`, unless a stored endpoint has one."""
    if old is not None and any(as_dict(as_dict(ep).get("hints")).get("forNodes") is not None
                               for ep in as_list(old.get("endpoints"))):
        return
    for ep in as_list(new.get("endpoints")):
        hints = as_dict(ep).get("hints")
        if isinstance(hints, dict):
            hints.pop("forNodes", None)


def _volume_error_codes(new: dict[str, Any], old: dict[str, Any] | None) -> None:
    """`MutableCSINodeAllocatableCount`: the attach and detach errors' `errorCode`."""
    status, old_status = as_dict(new.get("status")), as_dict((old or {}).get("status"))
    for key in ("attachError", "detachError"):
        error = status.get(key)
        if isinstance(error, dict) and as_dict(old_status.get(key)).get("errorCode") is None:
            error.pop("errorCode", None)


def _pod_status(new: dict[str, Any], old: dict[str, Any] | None) -> None:
    status = new.get("status")
    if isinstance(status, dict):
        drop_disabled_status_fields(status, as_dict((old or {}).get("status")), as_dict((old or {}).get("spec")))


_VOLUME_ATTRIBUTES_CLASS = unless_in_use("spec", "volumeAttributesClassName")
_TERMINATING_REPLICAS = unless_in_use("status", "terminatingReplicas")

# kind → the rules of its create/update (PrepareForCreate/PrepareForUpdate)
SPEC_RULES: dict[str, tuple[Rule, ...]] = {
    "Node": (unless_in_use("spec", "configSource"), unless_in_use("status", "config")),
    "PersistentVolumeClaim": (_VOLUME_ATTRIBUTES_CLASS, _cross_namespace_data_source),
    "PersistentVolume": (_VOLUME_ATTRIBUTES_CLASS,),
    "StatefulSet": (unless_in_use("spec", "updateStrategy", "rollingUpdate", "maxUnavailable"),),
    "EndpointSlice": (_endpoint_node_hints,),
    "Lease": (unless_in_use("spec", "strategy"), unless_in_use("spec", "preferredHolder")),
    "CSIDriver": (unless_in_use("spec", "nodeAllocatableUpdatePeriodSeconds"),),
}
# kind → the rules of its status strategy's PrepareForUpdate
STATUS_RULES: dict[str, tuple[Rule, ...]] = {
    "Pod": (_pod_status,),
    "PersistentVolumeClaim": (unless_in_use("status", "currentVolumeAttributesClassName"),
                              unless_in_use("status", "modifyVolumeStatus")),
    "Deployment": (_TERMINATING_REPLICAS,),
    "ReplicaSet": (_TERMINATING_REPLICAS,),
    "VolumeAttachment": (_volume_error_codes,),
    "Node": (unless_in_use("status", "config"),),
}


class DropsDisabledFields:
    """A built-in kind's strategy mixin (first among its bases): the kind's `SPEC_RULES`, then the strategy's own
    preparation (which may read what is left: a claim's data sources), on create and on update."""

    info: Any

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        drop_disabled_fields(self.info.kind, obj, None)
        super().prepare_for_create(obj)  # type: ignore[misc]

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        drop_disabled_fields(self.info.kind, new, old)
        super().prepare_for_update(new, old)  # type: ignore[misc]


def drop_disabled_fields(kind: str, new: dict[str, Any], old: dict[str, Any] | None) -> None:
    """A create's (`old` None) or an update's drops for `kind`."""
    for rule in SPEC_RULES.get(kind, ()):
        rule(new, old)


def drop_disabled_status_fields_of(kind: str, new: dict[str, Any], old: dict[str, Any]) -> None:
    """A status write's drops for `kind`."""
    for rule in STATUS_RULES.get(kind, ()):
        rule(new, old)


__all__ = ["DropsDisabledFields", "SPEC_RULES", "STATUS_RULES", "drop_disabled_fields",
           "drop_disabled_status_fields_of", "unless_in_use"]
