"""PersistentVolumeClaims and PersistentVolumes, as on a cluster without a provisioner.

Follows `pkg/registry/core/persistentvolumeclaim/strategy.go` and `pkg/registry/core/persistentvolume/strategy.go`
(status reset on create, kept from storage on update; a PV starts `Pending` with `lastPhaseTransitionTime`),
`pkg/apis/core/v1/defaults.go` (`SetDefaults_PersistentVolumeClaimSpec`: `volumeMode: Filesystem`;
`SetDefaults_PersistentVolume`: `persistentVolumeReclaimPolicy: Retain`, `volumeMode: Filesystem`; both
`status.phase: Pending` when read back) and the required-field checks of `pkg/apis/core/validation/validation.go`
(`ValidatePersistentVolumeClaimSpec`, `ValidatePersistentVolumeSpec`, `ValidatePersistentVolumeClaimUpdate`);
a claim's data sources as `pkg/api/persistentvolumeclaim/util.go` prepares them
(`EnforceDataSourceBackwardsCompatibility`, `NormalizeDataSources`).
The PV controller (controller/persistentvolume.py) binds claims and volumes and moves their phases; the
protection finalizers are the admission plugin's (admission/storageprotection.py) and are removed by
controller/volumeprotection.py.
"""
from __future__ import annotations

import json
from typing import Any

from ..apierrors import FieldError, field_forbidden, field_invalid, field_not_supported, field_required
from ..quantity import parse_quantity
from .gateddrops import DropsDisabledFields
from .meta import now
from .pod_update import spec_diff
from .podvalidation.affinity import has_invalid_term_values, validate_node_selector
from .pvmountoptions import mount_option_errors
from .pvnodeaffinity import node_affinity_update_errors
from .pvwarnings import persistent_volume_claim_warnings, persistent_volume_warnings
from .strategy import Strategy
from .shapes import as_dict, as_list

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
VOLUME_MODES = ("Block", "Filesystem")
RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
# `PersistentVolumeSource`'s members (one, and only one, is required)
PV_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "iscsi", "cinder",
              "cephfs", "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "quobyte", "azureDisk",
              "photonPersistentDisk", "portworxVolume", "scaleIO", "local", "storageos", "csi")
# the internal `core.PersistentVolumeSource`'s field names that are not the JSON name capitalised
PV_SOURCE_GO_FIELDS = {"gcePersistentDisk": "GCEPersistentDisk", "awsElasticBlockStore": "AWSElasticBlockStore",
                       "nfs": "NFS", "rbd": "RBD", "iscsi": "ISCSI", "cephfs": "CephFS", "fc": "FC",
                       "storageos": "StorageOS", "csi": "CSI"}
BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
SPEC_IMMUTABLE = ("spec is immutable after creation except resources.requests and volumeAttributesClassName for "
                  "bound claims")


def _access_modes(modes: Any, path: str, missing: str = "at least 1 access mode is required") -> list[FieldError]:
    """`ValidatePersistentVolumeClaimSpec`'s / `ValidatePersistentVolumeSpec`'s access-mode checks (a volume's
    missing modes are a bare `Required value`)."""
    if not isinstance(modes, list) or not modes:
        return [field_required(path, missing)]
    errs = [field_not_supported(path, m, ACCESS_MODES) for m in modes if m not in ACCESS_MODES]
    if "ReadWriteOncePod" in modes and len(modes) > 1:
        errs.append(field_forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return errs


def _positive_storage(value: Any, path: str) -> list[FieldError]:
    """`ValidatePositiveQuantityValue` (+ `ValidateResourceQuantityValue`)."""
    try:
        q = parse_quantity(value)
    except Exception:  # undecodable quantities are refused when the body is decoded
        return []
    if q.value <= 0:
        return [field_invalid(path, q.canonical(), "must be greater than zero")]
    return []


def _volume_mode(spec: dict[str, Any]) -> list[FieldError]:
    """`spec.volumeMode`, of a claim or a volume: one of `VOLUME_MODES` when set."""
    mode = spec.get("volumeMode")
    return [] if mode is None or mode in VOLUME_MODES else [field_not_supported("spec.volumeMode", mode, VOLUME_MODES)]


def _data_source_is_pvc_or_snapshot(source: Any) -> bool:
    """`dataSourceIsPvcOrSnapshot`."""
    if not isinstance(source, dict):
        return False
    group, kind = source.get("apiGroup") or "", source.get("kind")
    return (kind, group) in (("PersistentVolumeClaim", ""), ("VolumeSnapshot", "snapshot.storage.k8s.io"))


def enforce_data_source_backwards_compatibility(spec: dict[str, Any], old_spec: dict[str, Any] | None) -> None:
    """`EnforceDataSourceBackwardsCompatibility` (`pkg/api/persistentvolumeclaim/util.go`, KEP 1495): a new
    claim's, or one that had no data source's, `dataSource` that is neither a claim nor a VolumeSnapshot is dropped
    when no `dataSourceRef` is given (the pre-1.22 behaviour)."""
    old = old_spec or {}
    if old.get("dataSource") is not None or old.get("dataSourceRef") is not None or \
            spec.get("dataSourceRef") is not None:
        return
    if not _data_source_is_pvc_or_snapshot(spec.get("dataSource")):
        spec.pop("dataSource", None)


def _reference(source: dict[str, Any]) -> dict[str, Any]:
    """A `TypedLocalObjectReference`'s fields copied in Go's order (`apiGroup` only when set)."""
    ref = {"apiGroup": source["apiGroup"]} if source.get("apiGroup") is not None else {}
    return {**ref, "kind": source.get("kind", ""), "name": source.get("name", "")}


def normalize_data_sources(spec: dict[str, Any]) -> None:
    """`NormalizeDataSources` (AnyVolumeDataSource, GA in 1.33; a create's only): `dataSource` and `dataSourceRef`
    hold the same reference when only one was given (not one naming another namespace)."""
    source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    if isinstance(source, dict) and ref is None:
        spec["dataSourceRef"] = _reference(source)
    elif isinstance(ref, dict) and source is None and not ref.get("namespace"):
        spec["dataSource"] = _reference(ref)


class PersistentVolumeClaimStrategy(DropsDisabledFields, Strategy):
    """`persistentvolumeclaimStrategy`: status cleared on create (read back `Pending`), kept on update; the data
    sources after the disabled gates' fields are dropped (registry/gateddrops.py), as its PrepareFor* order them."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        spec = obj.get("spec")
        if isinstance(spec, dict) and not spec.get("volumeMode"):
            spec["volumeMode"] = "Filesystem"

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj["status"] = {"phase": "Pending"}  # `Status = {}`; the v1 default phase as the store decodes it
        spec = obj.get("spec")
        if isinstance(spec, dict):
            enforce_data_source_backwards_compatibility(spec, None)
            normalize_data_sources(spec)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        """`GetWarningsForPersistentVolumeClaim` (registry/pvwarnings.py)."""
        return persistent_volume_claim_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        """`GetWarningsForPersistentVolumeClaim` of the new claim, as on create."""
        return persistent_volume_claim_warnings(new)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        new["status"] = old.get("status", {"phase": "Pending"})
        spec = new.get("spec")
        if isinstance(spec, dict):
            enforce_data_source_backwards_compatibility(spec, as_dict(old.get("spec")))

    @staticmethod
    def spec_errors(spec: Any) -> list[FieldError]:
        if not isinstance(spec, dict):
            spec = {}
        errs = _access_modes(spec.get("accessModes"), "spec.accessModes")
        requests = as_dict(as_dict(spec.get("resources")).get("requests"))
        if "storage" not in requests:
            errs.append(field_required("spec.resources[storage]"))
        else:
            errs += _positive_storage(requests["storage"], "spec.resources[storage]")
        return errs + _volume_mode(spec)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + self.spec_errors(obj.get("spec"))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidatePersistentVolumeClaimUpdate`: an unbound claim's spec cannot change (upstream appends the
        spec's `cmp.Diff` to the message; left out here) except `volumeName` once and a class where it had none
        (the PV controller's binding and retroactive default class)."""
        errs = super().validate_update(new, old) + self.spec_errors(new.get("spec"))
        nspec, ospec = dict(as_dict(new.get("spec"))), dict(as_dict(old.get("spec")))
        if not ospec.get("volumeName"):  # the PV controller sets volumeName once
            ospec["volumeName"] = nspec.get("volumeName")
            if ospec["volumeName"] is None:
                del ospec["volumeName"]
        if BETA_STORAGE_CLASS not in as_dict(as_dict(old.get("metadata")).get("annotations")) \
                and not ospec.get("storageClassName") and nspec.get("storageClassName"):
            nspec.pop("storageClassName")  # validateStorageClassUpgradeFromNil: the retroactive default class
            ospec.pop("storageClassName", None)
        if as_dict(old.get("status")).get("phase") == "Bound":  # resizing and the class name may change when bound
            for s in (nspec, ospec):
                s.pop("resources", None)
                s.pop("volumeAttributesClassName", None)
        if nspec != ospec:
            errs.append(field_forbidden("spec", SPEC_IMMUTABLE))
        return errs


def volume_node_affinity(spec: dict[str, Any], old_spec: Any = None) -> tuple[bool, list[FieldError]]:
    """`validateVolumeNodeAffinity` (pkg/apis/core/validation): whether `spec.nodeAffinity` is set, and its errors:
    `required` must be given, and is a `ValidateNodeSelector` whose values must be label values unless the old
    volume's already were not (`ValidationOptionsForPersistentVolume`, kubernetes#128212)."""
    affinity = spec.get("nodeAffinity")
    if affinity is None:
        return False, []
    required = as_dict(affinity).get("required")
    if required is None:
        return True, [field_required("spec.nodeAffinity.required", "must specify required node constraints")]
    old_required = as_dict(as_dict(as_dict(old_spec).get("nodeAffinity")).get("required"))
    check_values = not has_invalid_term_values(as_list(old_required.get("nodeSelectorTerms")))
    return True, validate_node_selector(as_dict(required), "spec.nodeAffinity.required", check_values)


class PersistentVolumeStrategy(DropsDisabledFields, Strategy):
    """`persistentvolumeStrategy`: a new volume is `Pending` since now (`lastPhaseTransitionTime`, GA in 1.31);
    the PV controller would make it `Available`, which needs nothing but itself: see
    controller/volumeprotection.py."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        spec = obj.get("spec")
        if isinstance(spec, dict):
            if not spec.get("persistentVolumeReclaimPolicy"):
                spec["persistentVolumeReclaimPolicy"] = "Retain"
            if not spec.get("volumeMode"):
                spec["volumeMode"] = "Filesystem"

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj["status"] = {"phase": "Pending", "lastPhaseTransitionTime": now()}

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        new["status"] = old.get("status", {"phase": "Pending"})

    @staticmethod
    def spec_errors(spec: Any, old_spec: Any = None) -> list[FieldError]:
        if not isinstance(spec, dict):
            spec = {}
        errs = _access_modes(spec.get("accessModes"), "spec.accessModes", "")
        capacity = spec.get("capacity") if isinstance(spec.get("capacity"), dict) else None
        if not capacity:
            errs.append(field_required("spec.capacity"))
        if not capacity or "storage" not in capacity or len(capacity) > 1:
            # Go's `%#v` of the ResourceList; a non-empty one is shown as JSON here (upstream prints Quantity structs)
            shown = "core.ResourceList(nil)" if capacity is None else "core.ResourceList{}" if not capacity else \
                json.dumps({k: str(v) for k, v in capacity.items()}, separators=(",", ":"))
            errs.append(FieldError("FieldValueNotSupported", "spec.capacity",
                                   f'Unsupported value: {shown}: supported values: "storage"'))
        for key, value in (capacity or {}).items():
            errs += _positive_storage(value, f"spec.capacity[{key}]")
        policy = spec.get("persistentVolumeReclaimPolicy")
        if policy and policy not in RECLAIM_POLICIES:
            errs.append(field_not_supported("spec.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES))
        sources = [s for s in PV_SOURCES if spec.get(s) is not None]
        if not sources:
            errs.append(field_required("spec", "must specify a volume type"))
        elif len(sources) > 1:
            errs.append(field_forbidden(f"spec.{sources[1]}", "may not specify more than 1 volume type"))
        affinity, affinity_errs = volume_node_affinity(spec, old_spec)
        if spec.get("local") is not None and not affinity:
            affinity_errs.append(field_required("spec.nodeAffinity", "Local volume requires node affinity"))
        return errs + affinity_errs + _volume_mode(spec)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """`ValidatePersistentVolume`, then the volume plugins' own check (registry/pvmountoptions.py)."""
        return super().validate(obj) + self.spec_errors(obj.get("spec")) + mount_option_errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidatePersistentVolume` and the plugins' check, then `ValidatePersistentVolumeUpdate`: the volume
        source (but a CSI source's `controllerExpandSecretRef` where it had none; refused with upstream's words
        and a simplified diff, as a pod update's), volume mode and (once set) node affinity are immutable
        (registry/pvnodeaffinity.py)."""
        return (super().validate_update(new, old) + self.spec_errors(new.get("spec"), old.get("spec"))
                + self.strategy_checks(new, old) + self.update_checks(new, old))

    def strategy_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`volumevalidation.ValidatePersistentVolume`, which the strategy runs between its two calls."""
        return mount_option_errors(new)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        """`GetWarningsForPersistentVolume` (registry/pvwarnings.py)."""
        return persistent_volume_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        """`GetWarningsForPersistentVolume` of the new volume, as on create."""
        return persistent_volume_warnings(new)

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidatePersistentVolumeUpdate` after its `ValidatePersistentVolume`."""
        errs: list[FieldError] = []
        nspec, ospec = as_dict(new.get("spec")), as_dict(old.get("spec"))
        sources = {s: nspec.get(s) for s in PV_SOURCES}
        old_csi, new_csi = ospec.get("csi"), nspec.get("csi")
        if isinstance(old_csi, dict) and old_csi.get("controllerExpandSecretRef") is None and \
                isinstance(new_csi, dict):  # a CSI volume's controllerExpandSecretRef may be set once
            sources["csi"] = {k: v for k, v in new_csi.items() if k != "controllerExpandSecretRef"}
        if any(sources[s] != ospec.get(s) for s in PV_SOURCES):
            diff = spec_diff({s: ospec[s] for s in PV_SOURCES if ospec.get(s) is not None},
                             {s: v for s, v in sources.items() if v is not None}, "core.PersistentVolumeSource",
                             lambda key: PV_SOURCE_GO_FIELDS.get(key, key[:1].upper() + key[1:]))
            errs.append(field_forbidden("spec.persistentvolumesource",
                                        f"spec.persistentvolumesource is immutable after creation\n{diff}"))
        if nspec.get("volumeMode") != ospec.get("volumeMode"):  # upstream's path: `volumeMode`, not under spec
            errs.append(field_invalid("volumeMode", nspec.get("volumeMode"), "field is immutable"))
        return errs + node_affinity_update_errors(nspec, ospec)
