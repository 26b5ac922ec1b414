"""Single-version named-group kinds kind 1.33 serves besides the workload ones (registry/workloads.py), as storage
kinds with upstream's v1 defaults and the required-field validation of each group:

- `networking.k8s.io/v1` Ingress (`pkg/registry/networking/ingress/strategy.go`, `/status`) and IngressClass
  (`pkg/registry/networking/ingressclass/strategy.go`); rules of `pkg/apis/networking/validation/validation.go`
  (`ValidateIngressSpec`, `validateHTTPIngressPath`, `validateIngressBackend`, `validateIngressClassSpec`);
- `scheduling.k8s.io/v1` PriorityClass (`pkg/registry/scheduling/priorityclass/strategy.go` and `storage/storage.go`:
  the system classes cannot be deleted; `pkg/apis/scheduling/validation/validation.go`, `pkg/apis/scheduling/v1/
  helpers.go` `IsKnownSystemPriorityClass`, `defaults.go` preemptionPolicy); the two system classes are created at
  start as `pkg/registry/scheduling/rest/storage_scheduling.go`'s post-start hook does (`SYSTEM_PRIORITY_CLASSES`);
- `storage.k8s.io/v1` StorageClass, CSIDriver, CSINode, VolumeAttachment (`/status`), CSIStorageCapacity
  (`pkg/registry/storage/<kind>/strategy.go`, `pkg/apis/storage/validation/validation.go`, `pkg/apis/storage/v1/
  defaults.go`);
- `node.k8s.io/v1` RuntimeClass (`pkg/registry/node/runtimeclass/strategy.go`, `pkg/apis/node/validation`).

The format rules of those validation.go files (hosts, paths, names, limits) live in registry/groupvalidation/, one
module per upstream file; what they leave out is listed in README's Known gaps.
"""
from __future__ import annotations

from typing import Any, Callable

from .. import apierrors as E
from ..apierrors import FieldError, field_forbidden, field_invalid, field_not_supported
from ..wire.gosyntax import sharp_v as go_sharp_v
from .admissionregistration import validate_label_selector
from .gateddrops import DropsDisabledFields
from .group import GroupStore
from .kinds import ResourceInfo
from .store import DeleteOptions
from .strategy import Strategy
from .validation import is_dns1123_label, is_dns1123_subdomain
from .groupvalidation.networking import (
    INGRESS_CLASS_ANNOTATION,
    ingress_class_spec_errors,
    ingress_create_errors,
    ingress_spec_errors,
)
from .groupvalidation.node import runtime_class_errors
from .groupvalidation.storage import (allowed_topologies_errors, csi_driver_name_errors, csinode_errors,
                                     csinode_update_errors, parameters_errors, provisioner_errors,
                                     volume_attachment_spec_errors)
from .workloads import GroupKind, SpecStrategy, _Generation
from .shapes import as_dict, as_list


def _immutable(path: str, new: Any, old: Any) -> list[FieldError]:
    """`ValidateImmutableField`."""
    return [field_invalid(path, new, "field is immutable")] if new != old else []


class _SpecGeneration(Strategy):
    """`metadata.generation` + 1 when the spec changes, in `canonicalize_update` (after the registry kept the stored
    system metadata); `created` is what PrepareForCreate sets (IngressClass: 1; CSIDriver: none, so its first
    spec change makes it 1)."""

    created: int | None = 1

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        if self.created is not None:
            obj["metadata"]["generation"] = self.created

    def canonicalize_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """Judged against this update's own stored object (nothing kept on the shared strategy)."""
        super().canonicalize_update(new, old)
        if new.get("spec") != old.get("spec"):
            new["metadata"]["generation"] = (old.get("metadata") or {}).get("generation", 0) + 1


# ---- networking.k8s.io ----------------------------------------------------------------------------
INGRESS_CLASS_DEPRECATED = (f'annotation "{INGRESS_CLASS_ANNOTATION}" is deprecated, please use '
                            "'spec.ingressClassName' instead")  # `%q` of the key


class IngressStrategy(_Generation):
    """`ingressStrategy`: status reset on create and kept on update (`status.loadBalancer` always printed),
    generation bumped on a spec change; validation in groupvalidation/networking.py."""

    def initial_status(self) -> dict[str, Any]:
        return {"loadBalancer": {}}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """`ValidateIngressCreate`."""
        return super().validate(obj) + ingress_create_errors(obj)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        """`ingressStrategy.WarningsOnCreate` (the same in the upstream versions read before and after 1.33): the
        class annotation present (any value) without `spec.ingressClassName`; an update warns of nothing."""
        annotations = as_dict(as_dict(obj.get("metadata")).get("annotations"))
        if INGRESS_CLASS_ANNOTATION in annotations and as_dict(obj.get("spec")).get("ingressClassName") is None:
            return [INGRESS_CLASS_DEPRECATED]
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateIngressUpdate`: what the stored object already had stays allowed."""
        return super().validate_update(new, old) + ingress_spec_errors(as_dict(new.get("spec")), old)


class IngressClassStrategy(_SpecGeneration):
    """`ingressClassStrategy` (generation on spec change) and `ValidateIngressClass` (groupvalidation/networking.py);
    `spec.controller` immutable."""

    def _errors(self, obj: dict[str, Any]) -> list[FieldError]:
        return ingress_class_spec_errors(as_dict(obj.get("spec")))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + self._errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errs = super().validate_update(new, old)
        errs += _immutable("spec.controller", as_dict(new.get("spec")).get("controller", ""),
                           as_dict(old.get("spec")).get("controller", ""))
        return errs + self._errors(new)


# ---- scheduling.k8s.io ----------------------------------------------------------------------------
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
SYSTEM_PRIORITY_CLASSES: tuple[dict[str, Any], ...] = (
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "system-node-critical"},
     "value": SYSTEM_CRITICAL_PRIORITY + 1000,
     "description": "Used for system critical pods that must not be moved from their current node."},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "system-cluster-critical"},
     "value": SYSTEM_CRITICAL_PRIORITY,
     "description": "Used for system critical pods that must run in the cluster, but can be moved to another node "
                    "if necessary."},
)
_SYSTEM_VALUES = {pc["metadata"]["name"]: pc["value"] for pc in SYSTEM_PRIORITY_CLASSES}
PREEMPTION_POLICIES = ("Never", "PreemptLowerPriority")


def _known_system_error(name: str, value: Any, global_default: bool) -> str:
    """`IsKnownSystemPriorityClass`'s error, "" when `name` is a system class with its value and no globalDefault."""
    if name not in _SYSTEM_VALUES:
        return f"{name} is not a known system priority class"
    if value != _SYSTEM_VALUES[name]:
        return f"value of {name} PriorityClass must be {_SYSTEM_VALUES[name]}"
    if global_default:
        return f"globalDefault of {name} PriorityClass must be false"
    return ""


class PriorityClassStrategy(Strategy):
    """`priorityClassStrategy`: `ValidatePriorityClass` on create, `ValidatePriorityClassUpdate` on update (value and
    preemptionPolicy immutable); v1 default preemptionPolicy `PreemptLowerPriority`."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        if obj.get("preemptionPolicy") is None:
            obj["preemptionPolicy"] = "PreemptLowerPriority"
        obj.setdefault("value", 0)  # `json:"value"`: Go's zero when absent

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errs = super().validate(obj)
        name = as_dict(obj.get("metadata")).get("name") or ""
        value = obj.get("value", 0)
        if name.startswith("system-"):
            err = _known_system_error(name, value, bool(obj.get("globalDefault")))
            if err:
                errs.append(field_forbidden("metadata.name", "priority class names with 'system-' prefix are "
                                                             f"reserved for system use only. error: {err}"))
        elif isinstance(value, int) and value > HIGHEST_USER_DEFINABLE_PRIORITY:
            errs.append(field_forbidden("value", "maximum allowed value of a user defined priority is "
                                                 f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
        policy = obj.get("preemptionPolicy")
        if policy not in PREEMPTION_POLICIES:
            errs.append(field_not_supported("preemptionPolicy", policy, PREEMPTION_POLICIES))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errs = super().validate_update(new, old)
        if new.get("value", 0) != old.get("value", 0):
            errs.append(field_forbidden("value", "may not be changed in an update."))
        return errs + _immutable("preemptionPolicy", new.get("preemptionPolicy"), old.get("preemptionPolicy"))


class PriorityClassStore(GroupStore):
    """`priorityclass/storage.REST.Delete`: a system priority class is not deleted by name (403, before any
    lookup). A collection delete is the embedded `Store.DeleteCollection`, which calls `Store.Delete`, not the
    REST's: upstream deletes the system classes there (the post-start hook makes them again at the next start)."""

    _in_collection = False

    def _delete_chunk(self, *args: Any, **kw: Any) -> None:  # each collection delete's deletions
        self._in_collection = True
        try:
            super()._delete_chunk(*args, **kw)
        finally:
            self._in_collection = False

    def delete(self, ns: str, name: str, opts: DeleteOptions, **kw: Any) -> tuple[dict[str, Any], bool]:
        if name in _SYSTEM_VALUES and not self._in_collection:
            raise E.forbidden("priorityclasses", name, "this is a system priority class and cannot be deleted",
                              group="scheduling.k8s.io")
        return super().delete(ns, name, opts, **kw)


# ---- storage.k8s.io -------------------------------------------------------------------------------
RECLAIM_POLICIES = ("Delete", "Retain")
BINDING_MODES = ("Immediate", "WaitForFirstConsumer")


class StorageClassStrategy(Strategy):
    """`storageClassStrategy`; `SetDefaults_StorageClass` (reclaimPolicy Delete, volumeBindingMode Immediate);
    `ValidateStorageClass` (provisioner, parameters, policies, allowedTopologies: groupvalidation/storage.py) and
    `ValidateStorageClassUpdate` (parameters, provisioner, reclaimPolicy forbidden to change; volumeBindingMode
    immutable)."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        if obj.get("reclaimPolicy") is None:
            obj["reclaimPolicy"] = "Delete"
        if obj.get("volumeBindingMode") is None:
            obj["volumeBindingMode"] = "Immediate"

    def _errors(self, obj: dict[str, Any]) -> list[FieldError]:
        errs = provisioner_errors(str(obj.get("provisioner") or "")) + parameters_errors(obj.get("parameters"))
        if obj.get("reclaimPolicy") not in RECLAIM_POLICIES:
            errs.append(field_not_supported("reclaimPolicy", obj.get("reclaimPolicy"), RECLAIM_POLICIES))
        if obj.get("volumeBindingMode") not in BINDING_MODES:
            errs.append(field_not_supported("volumeBindingMode", obj.get("volumeBindingMode"), BINDING_MODES))
        return errs + allowed_topologies_errors(obj.get("allowedTopologies"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + self._errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + self._errors(new) + self.update_checks(new, old)

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateStorageClassUpdate` after its `ValidateObjectMetaUpdate`."""
        errs: list[FieldError] = []
        if (new.get("parameters") or {}) != (old.get("parameters") or {}):
            errs.append(field_forbidden("parameters", "updates to parameters are forbidden."))
        if new.get("provisioner") != old.get("provisioner"):
            errs.append(field_forbidden("provisioner", "updates to provisioner are forbidden."))
        if new.get("reclaimPolicy") != old.get("reclaimPolicy"):
            errs.append(field_forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
        return errs + _immutable("volumeBindingMode", new.get("volumeBindingMode"), old.get("volumeBindingMode"))


class CSIDriverStrategy(DropsDisabledFields, _SpecGeneration):
    """`csiDriverStrategy` (generation only from the first spec change); `SetDefaults_CSIDriver`: attachRequired true,
    podInfoOnMount/storageCapacity/requiresRepublish/seLinuxMount false, fsGroupPolicy ReadWriteOnceWithFSType,
    volumeLifecycleModes [Persistent]."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        if not isinstance(obj.get("spec"), dict):
            obj["spec"] = {}
        spec = obj["spec"]
        for key, value in (("attachRequired", True), ("podInfoOnMount", False), ("storageCapacity", False),
                           ("fsGroupPolicy", "ReadWriteOnceWithFSType"), ("requiresRepublish", False),
                           ("seLinuxMount", False)):
            if spec.get(key) is None:
                spec[key] = value
        if not spec.get("volumeLifecycleModes"):
            spec["volumeLifecycleModes"] = ["Persistent"]

    def _errors(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = as_dict(obj.get("spec"))
        errs: list[FieldError] = []
        for i, mode in enumerate(as_list(spec.get("volumeLifecycleModes"))):
            if mode not in ("Ephemeral", "Persistent"):
                errs.append(field_not_supported(f"spec.volumeLifecycleModes[{i}]", mode, ["Ephemeral", "Persistent"]))
        policy = spec.get("fsGroupPolicy")
        policies = ("File", "None", "ReadWriteOnceWithFSType")
        if policy not in policies:
            errs.append(field_not_supported("spec.fsGroupPolicy", policy, policies))
        return errs

    created = None  # csiDriverStrategy.PrepareForCreate sets no generation

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """`ValidateCSIDriver` (the name at `name`, the spec); only when it passes, `BeforeCreate`'s common
        metadata validation (names as path segments: the info's name_rule)."""
        name = str(as_dict(obj.get("metadata")).get("name") or "")
        own = csi_driver_name_errors(name) + self._errors(obj)
        return own or super().validate(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        name = str(as_dict(new.get("metadata")).get("name") or "")
        return (super().validate_update(new, old) + csi_driver_name_errors(name) + self._errors(new)
                + self.update_checks(new, old))

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateCSIDriverUpdate`'s immutable fields, after the spec's checks: `attachRequired` (at
        `spec.attachedRequired`, upstream's spelling; the `*bool` dereferenced) and `volumeLifecycleModes` (Go's
        `%#v`), compared after defaulting as `Semantic.DeepEqual` compares them."""
        spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
        errs: list[FieldError] = []
        if spec.get("attachRequired") != old_spec.get("attachRequired"):
            errs.append(field_invalid("spec.attachedRequired", spec.get("attachRequired"), "field is immutable"))
        modes, old_modes = spec.get("volumeLifecycleModes") or [], old_spec.get("volumeLifecycleModes") or []
        if modes != old_modes:
            shown = go_sharp_v(spec.get("volumeLifecycleModes"), "[]storage.VolumeLifecycleMode")
            errs.append(field_invalid("spec.volumeLifecycleModes", E.GoValue(shown), "field is immutable"))
        return errs


class CSINodeStrategy(Strategy):
    """`csiNodeStrategy`; `ValidateCSINode`'s drivers (groupvalidation/storage.py `csinode_errors`), and on update
    `ValidateCSINodeUpdate`'s unchangeable drivers (`csinode_update_errors`)."""

    def _errors(self, obj: dict[str, Any]) -> list[FieldError]:
        return csinode_errors(as_dict(obj.get("spec")))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + self._errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + self._errors(new) + self.update_checks(new, old)

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return csinode_update_errors(new, old)


class VolumeAttachmentStrategy(SpecStrategy):
    """`volumeAttachmentStrategy`: status reset on create, kept on update; `ValidateVolumeAttachment` and
    `ValidateVolumeAttachmentV1` (groupvalidation/storage.py) and `ValidateVolumeAttachmentUpdate` (spec
    immutable)."""

    def initial_status(self) -> dict[str, Any]:
        return {"attached": False}

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj["metadata"].pop("generation", None)  # "no need to increment Generation": the spec never changes

    def spec_errors(self, spec: dict[str, Any]) -> list[FieldError]:
        return volume_attachment_spec_errors(spec)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + self.update_checks(new, old)

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateVolumeAttachmentUpdate` after its `ValidateVolumeAttachment`: the spec is read-only (the
        internal spec, Go's %#v)."""
        if new.get("spec") == old.get("spec"):
            return []
        return [field_invalid("spec", E.GoValue(go_sharp_v(new.get("spec"), "storage.VolumeAttachmentSpec")),
                              "field is immutable")]


class CSIStorageCapacityStrategy(Strategy):
    """`csiStorageCapacityStrategy`; `ValidateCSIStorageCapacity`: the nodeTopology a label selector, a valid
    `storageClassName`, no negative capacity; `ValidateCSIStorageCapacityUpdate`: everything but metadata, capacity
    and maximumVolumeSize immutable."""

    def _errors(self, obj: dict[str, Any]) -> list[FieldError]:
        name = obj.get("storageClassName") or ""
        errs = validate_label_selector(obj["nodeTopology"], "nodeTopology") if obj.get("nodeTopology") else []
        errs += [field_invalid("storageClassName", name, m) for m in is_dns1123_subdomain(name)]
        for key in ("capacity", "maximumVolumeSize"):
            value = obj.get(key)
            if isinstance(value, str) and value.strip().startswith("-"):
                errs.append(field_invalid(key, value, "must be greater than or equal to 0"))
        return errs

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + self._errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errs = super().validate_update(new, old) + self._errors(new)
        if new.get("nodeTopology") != old.get("nodeTopology"):  # a *metav1.LabelSelector: nil, or the struct
            topology = new.get("nodeTopology")
            errs.append(field_invalid("nodeTopology", None if topology is None else
                                      E.GoValue(go_sharp_v(topology, "v1.LabelSelector")), "field is immutable"))
        errs += _immutable("storageClassName", new.get("storageClassName"), old.get("storageClassName"))
        return errs


# ---- node.k8s.io ----------------------------------------------------------------------------------
class RuntimeClassStrategy(Strategy):
    """`runtimeClassStrategy`; `ValidateRuntimeClass`: `handler` a DNS label, then overhead and scheduling
    (groupvalidation/node.py); `ValidateRuntimeClassUpdate`: the handler is immutable (nothing else checked)."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        handler = obj.get("handler") or ""
        errs = [field_invalid("handler", handler, m) for m in is_dns1123_label(handler)]
        return super().validate(obj) + errs + runtime_class_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + _immutable("handler", new.get("handler"), old.get("handler"))


def _info(kind: str, plural: str, short: tuple[str, ...] = (), *, fields: frozenset[str],
          namespaced: bool = True, name_rule: str = "subdomain", returns_deleted: bool = False,
          update_validates_meta: bool = False, status_validates_meta: bool = False,
          update_meta_calls: str = "") -> ResourceInfo:
    return ResourceInfo(kind, plural, kind.lower(), short, namespaced=namespaced, fields=fields, name_rule=name_rule,
                        return_deleted_object=returns_deleted, update_validates_meta=update_validates_meta,
                        status_validates_meta=status_validates_meta, update_meta_calls=update_meta_calls,
                        status_meta_calls=update_meta_calls if status_validates_meta else "")


_SPEC = frozenset({"spec", "status"})
GROUP_KINDS: tuple[GroupKind, ...] = (
    GroupKind("networking.k8s.io", "v1", _info("Ingress", "ingresses", ("ing",), fields=_SPEC), IngressStrategy),
    GroupKind("networking.k8s.io", "v1", _info("IngressClass", "ingressclasses", fields=frozenset({"spec"}),
                                               namespaced=False, update_validates_meta=True), IngressClassStrategy),
    GroupKind("scheduling.k8s.io", "v1", _info(
        "PriorityClass", "priorityclasses", ("pc",), namespaced=False,
        fields=frozenset({"value", "globalDefault", "description", "preemptionPolicy"})), PriorityClassStrategy),
    # the storage.k8s.io stores set `ReturnDeletedObject` (pkg/registry/storage/*/storage/storage.go)
    GroupKind("storage.k8s.io", "v1", _info(
        "StorageClass", "storageclasses", ("sc",), namespaced=False, returns_deleted=True,
        fields=frozenset({"provisioner", "parameters", "reclaimPolicy", "mountOptions", "allowVolumeExpansion",
                          "volumeBindingMode", "allowedTopologies"}),
        update_meta_calls="MVUC"), StorageClassStrategy),  # strategy: ValidateStorageClass, ValidateStorageClassUpdate
    GroupKind("storage.k8s.io", "v1", _info("CSIDriver", "csidrivers", fields=frozenset({"spec"}), namespaced=False,
                                            name_rule="pathsegment", returns_deleted=True, update_meta_calls="UVC"),
              CSIDriverStrategy),  # `ValidateCSIDriverUpdate`: ...MetaUpdate, the spec, its immutable fields
    # csinode strategy.go: `ValidateCSINode`, then `ValidateCSINodeUpdate`, which runs it again (no ...MetaUpdate)
    GroupKind("storage.k8s.io", "v1", _info("CSINode", "csinodes", fields=frozenset({"spec"}), namespaced=False,
                                            returns_deleted=True, update_validates_meta=True,
                                            update_meta_calls="MVMVC"), CSINodeStrategy),
    # pkg/registry/storage/volumeattachment/strategy.go: the status strategy embeds the main one's ValidateUpdate,
    # `ValidateVolumeAttachment` then `ValidateVolumeAttachmentUpdate`, which runs `ValidateVolumeAttachment` again,
    # then judges the spec read-only
    GroupKind("storage.k8s.io", "v1", _info("VolumeAttachment", "volumeattachments", fields=_SPEC, namespaced=False,
                                            returns_deleted=True, update_validates_meta=True,
                                            status_validates_meta=True, update_meta_calls="MVMVC"),
              VolumeAttachmentStrategy),
    GroupKind("storage.k8s.io", "v1", _info(
        "CSIStorageCapacity", "csistoragecapacities",
        fields=frozenset({"nodeTopology", "storageClassName", "capacity", "maximumVolumeSize"})),
        CSIStorageCapacityStrategy),
    GroupKind("node.k8s.io", "v1", _info("RuntimeClass", "runtimeclasses", namespaced=False,
                                         fields=frozenset({"handler", "overhead", "scheduling"})),
              RuntimeClassStrategy),
)
STORES: dict[str, Callable[..., GroupStore]] = {"priorityclasses": PriorityClassStore}


def ensure_system_priority_classes(store: GroupStore,
                                   create: Callable[[dict[str, Any]], Any] | None = None) -> None:
    """The `scheduling/bootstrap-system-priority-classes` post-start hook: each system class created unless it
    exists (on every start; one deleted through a collection delete comes back at the next start, as upstream).
    `create`: how a class is written (default the store's own create; the server's loopback client's admitted
    write when webhooks or policies are configured)."""
    if create is None:
        def create(obj: dict[str, Any]) -> Any:
            return store.create(obj, field_manager="kube-apiserver")
    for pc in SYSTEM_PRIORITY_CLASSES:
        try:
            store.get("", pc["metadata"]["name"], shared=True)
            continue
        except E.StatusError as exc:
            if exc.code != 404:
                raise
        try:
            create({**pc, "metadata": dict(pc["metadata"])})
        except E.StatusError as exc:
            if exc.code != 409:
                raise


__all__ = ["GROUP_KINDS", "STORES", "SYSTEM_PRIORITY_CLASSES", "ensure_system_priority_classes"]
