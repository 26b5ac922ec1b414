"""A pod spec's volumes: `ValidateVolumes` and `validateVolumeSource` of `pkg/apis/core/validation/validation.go`
(1.33): each name a unique DNS label, exactly one source (upstream's Go field order decides which source is the
"more than 1" one, and its paths keep upstream's spellings: `persistentDisk`, `cephfs` under `cephFS`,
`downwarAPI`), and each source's own rules: emptyDir's size, hostPath's path and type, gitRepo, secret and
configMap (names, file modes, `validateKeyToPath` items), persistentVolumeClaim, nfs, downwardAPI
(`validateDownwardAPIVolumeFile`, its files reported at the source's path as upstream does), projected
(`validateProjectionSources`: secret, configMap, downwardAPI, serviceAccountToken, paths unique across sources),
csi (`ValidateCSIDriverName`, the node-publish secret), ephemeral's claim template
(`ValidatePersistentVolumeClaimTemplate`) and, in a pod (upstream's `podMeta`), the claim name `<pod>-<volume>` it
implies, which no persistentVolumeClaim volume of the pod may name; the legacy in-tree sources' rules are
legacyvolumes.py's. Only valid volumes count as known to the containers' mounts and devices, as upstream."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, _go_quote, field_forbidden, field_invalid, field_not_supported, field_required
from ...quantity import Quantity, QuantityError
from ..groupvalidation.storage import csi_driver_name_errors
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_label, is_dns1123_subdomain, validate_annotations, validate_labels
from .downwardapi import VOLUME_FIELD_PATHS, object_field_selector, resource_field_selector
from .fields import field_duplicate, integer, one_of
from .legacyvolumes import LEGACY_SOURCES, iscsi_name_length

# (JSON key, the path upstream's "more than 1 volume type" error names) in the Go struct's field order
_SOURCES = (
    ("emptyDir", "emptyDir"), ("hostPath", "hostPath"), ("gitRepo", "gitRepo"),
    ("gcePersistentDisk", "gcePersistentDisk"), ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("secret", "secret"), ("nfs", "nfs"), ("iscsi", "iscsi"), ("glusterfs", "glusterfs"), ("flocker", "flocker"),
    ("persistentVolumeClaim", "persistentVolumeClaim"), ("rbd", "rbd"), ("cinder", "cinder"), ("cephfs", "cephFS"),
    ("quobyte", "quobyte"), ("downwardAPI", "downwarAPI"), ("fc", "fc"), ("flexVolume", "flexVolume"),
    ("configMap", "configMap"), ("azureFile", "azureFile"), ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"), ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"), ("storageos", "storageos"), ("projected", "projected"), ("scaleIO", "scaleIO"),
    ("csi", "csi"), ("ephemeral", "ephemeral"))
# the path each source's own errors use (upstream's `fldPath.Child(...)` for the source), where it differs
_SOURCE_PATH = {"gcePersistentDisk": "persistentDisk"}
# the required (string or list) fields of the sources that have no other rules (legacyvolumes.py has the others)
_REQUIRED = {
    "glusterfs": ("endpoints", "path"), "rbd": ("monitors", "image"), "cephfs": ("monitors",),
    "azureFile": ("secretName", "shareName"), "vsphereVolume": ("volumePath",), "photonPersistentDisk": ("pdID",),
    "portworxVolume": ("volumeID",), "scaleIO": ("gateway", "system", "volumeName")}
FILE_MODE_MSG = "must be a number between 0 and 0777 (octal), both inclusive"
# supportedHostPathTypes, sorted as sets.List prints them
HOST_PATH_TYPES = ("", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket")


def path_no_backsteps(value: str, path: str) -> list[FieldError]:
    """`validatePathNoBacksteps` (split on `/` only: the apiserver's OS is Linux)."""
    return [field_invalid(path, value, "must not contain '..'")] if ".." in value.split("/") else []


def local_descending_path(value: str, path: str) -> list[FieldError]:
    """`validateLocalDescendingPath`: relative, no `..` element."""
    errs = [field_invalid(path, value, "must be a relative path")] if value.startswith("/") else []
    return errs + path_no_backsteps(value, path)


def local_non_reserved_path(value: str, path: str) -> list[FieldError]:
    """`ValidateLocalNonReservedPath`: also not starting with `..` (unless `../`, already refused)."""
    errs = local_descending_path(value, path)
    if value.startswith("..") and not value.startswith("../"):
        errs.append(field_invalid(path, value, "must not start with '..'"))
    return errs


def _mode(value: Any, path: str) -> list[FieldError]:
    n = integer(value)
    return [field_invalid(path, n, FILE_MODE_MSG)] if n is not None and not 0 <= n <= 0o777 else []


def _key_to_path(kp: dict[str, Any], path: str) -> list[FieldError]:
    """`validateKeyToPath`."""
    errs = [] if kp.get("key") else [field_required(f"{path}.key")]
    target = str(kp.get("path") or "")
    if not target:
        errs.append(field_required(f"{path}.path"))
    return errs + local_non_reserved_path(target, f"{path}.path") + _mode(kp.get("mode"), f"{path}.mode")


def _items(items: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, kp in enumerate(as_list(items)):
        errs += _key_to_path(as_dict(kp), f"{path}[{i}]")
    return errs


def _downward_file(file: dict[str, Any], path: str) -> list[FieldError]:
    """`validateDownwardAPIVolumeFile`."""
    target = str(file.get("path") or "")
    errs = [] if target else [field_required(f"{path}.path")]
    errs += local_non_reserved_path(target, f"{path}.path")
    field_ref, resource_ref = file.get("fieldRef"), file.get("resourceFieldRef")
    if isinstance(field_ref, dict):
        errs += object_field_selector(field_ref, VOLUME_FIELD_PATHS, f"{path}.fieldRef")
        if isinstance(resource_ref, dict):
            errs.append(field_invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified "
                                                        "simultaneously"))
    elif isinstance(resource_ref, dict):
        errs += resource_field_selector(resource_ref, f"{path}.resourceFieldRef", volume=True)
    else:
        errs.append(field_required(path, "one of fieldRef and resourceFieldRef is required"))
    return errs + _mode(file.get("mode"), f"{path}.mode")


def _projection_sources(projected: dict[str, Any], path: str) -> list[FieldError]:
    """`validateProjectionSources` (duplicate paths reported at the projected source's path)."""
    errs: list[FieldError] = []
    seen: set[str] = set()

    def claim(target: str, shown: Any) -> None:
        if target in seen:
            errs.append(field_invalid(path, shown, "conflicting duplicate paths"))
        seen.add(target)

    for i, source in enumerate(as_dict(s) for s in as_list(projected.get("sources"))):
        here, count = f"{path}.sources[{i}]", 0
        for key in ("secret", "configMap"):
            ref = source.get(key)
            if not isinstance(ref, dict):
                continue
            count += 1
            if not ref.get("name"):
                errs.append(field_required(f"{here}.{key}.name"))
            for j, kp in enumerate(as_dict(kp) for kp in as_list(ref.get("items"))):
                errs += _key_to_path(kp, f"{here}.{key}.items[{j}]")
                if kp.get("path"):
                    claim(str(kp["path"]), ref.get("name") or "")
        downward = source.get("downwardAPI")
        if isinstance(downward, dict):
            count += 1
            for file in (as_dict(f) for f in as_list(downward.get("items"))):
                errs += _downward_file(file, f"{here}.downwardAPI")
                if file.get("path"):
                    claim(str(file["path"]), file["path"])
        token = source.get("serviceAccountToken")
        if isinstance(token, dict):
            count += 1
            seconds = integer(token.get("expirationSeconds")) or 0
            if seconds < 600:
                errs.append(field_invalid(f"{here}.serviceAccountToken.expirationSeconds", seconds,
                                          "may not specify a duration less than 10 minutes"))
            if seconds > 1 << 32:
                errs.append(field_invalid(f"{here}.serviceAccountToken.expirationSeconds", seconds,
                                          "may not specify a duration larger than 2^32 seconds"))
            if not token.get("path"):
                errs.append(field_required(f"{path}.path"))
            else:
                errs += local_non_reserved_path(str(token["path"]), f"{path}.path")
        if count > 1:
            errs.append(field_forbidden(here, "may not specify more than 1 volume type per source"))
    return errs


# metav1.ObjectMeta's fields other than labels and annotations, in the Go struct's order (`validateFieldAllowList`)
_TEMPLATE_META_FORBIDDEN = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
                            "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences",
                            "finalizers", "managedFields")


def _claim_template(template: dict[str, Any], path: str) -> list[FieldError]:
    """`ValidatePersistentVolumeClaimTemplate`: `ValidateTemplateObjectMeta` (labels, annotations, nothing else),
    then the claim spec as registry/volumes.py's claims are validated, at the template's path."""
    from ..volumes import PersistentVolumeClaimStrategy

    meta, mpath = as_dict(template.get("metadata")), f"{path}.metadata"
    errs = validate_annotations(as_dict(meta.get("annotations")), f"{mpath}.annotations")
    errs += validate_labels(as_dict(meta.get("labels")), f"{mpath}.labels")
    errs += [field_forbidden(f"{mpath}.{key}", "cannot be set") for key in _TEMPLATE_META_FORBIDDEN
             if meta.get(key) not in (None, "", 0, [], {})]
    return errs + [FieldError(e.type, f"{path}.{e.field}", e.body)
                   for e in PersistentVolumeClaimStrategy.spec_errors(template.get("spec"))]


def _required(source: dict[str, Any], keys: tuple[str, ...], path: str) -> list[FieldError]:
    return [field_required(f"{path}.{k}") for k in keys if not source.get(k)]


def volume_source_errors(key: str, source: dict[str, Any], path: str) -> list[FieldError]:
    """The source's own `validate<Source>VolumeSource`."""
    if key == "emptyDir":
        limit = source.get("sizeLimit")
        try:
            negative = limit is not None and Quantity.parse(str(limit).strip()).value < 0
        except QuantityError:
            negative = False
        return [field_forbidden(f"{path}.sizeLimit", "SizeLimit field must be a valid resource quantity")] \
            if negative else []
    if key == "hostPath":
        target = str(source.get("path") or "")
        if not target:
            return [field_required(f"{path}.path")]
        kind = source.get("type")
        return path_no_backsteps(target, f"{path}.path") + \
            ([] if kind is None or kind in HOST_PATH_TYPES else [field_not_supported(f"{path}.type", kind,
                                                                                     HOST_PATH_TYPES)])
    if key == "gitRepo":
        return _required(source, ("repository",), path) + \
            local_descending_path(str(source.get("directory") or ""), f"{path}.directory")
    if key in ("secret", "configMap"):
        return (_required(source, ("secretName",) if key == "secret" else ("name",), path)
                + _mode(source.get("defaultMode"), f"{path}.defaultMode") + _items(source.get("items"), f"{path}.items"))
    if key == "persistentVolumeClaim":
        return _required(source, ("claimName",), path)
    if key == "nfs":
        target = str(source.get("path") or "")
        errs = _required(source, ("server", "path"), path)
        return errs + ([] if target.startswith("/") else [field_invalid(f"{path}.path", target,
                                                                        "must be an absolute path")])
    if key == "downwardAPI":
        errs = _mode(source.get("defaultMode"), f"{path}.defaultMode")
        for file in as_list(source.get("items")):
            errs += _downward_file(as_dict(file), path)
        return errs
    if key == "projected":
        return _mode(source.get("defaultMode"), f"{path}.defaultMode") + _projection_sources(source, path)
    if key == "csi":
        errs = csi_driver_name_errors(str(source.get("driver") or ""), f"{path}.driver")
        secret = source.get("nodePublishSecretRef")
        if isinstance(secret, dict):
            name = str(secret.get("name") or "")
            if not name:
                errs.append(field_required(f"{path}.nodePublishSecretRef.name"))
            errs += [field_invalid(f"{path}.name", name, m) for m in (is_dns1123_subdomain(name) if name else [])]
        return errs
    if key == "ephemeral":
        template = source.get("volumeClaimTemplate")
        if not isinstance(template, dict):
            return [field_required(f"{path}.volumeClaimTemplate")]
        return _claim_template(template, f"{path}.volumeClaimTemplate")
    if key in LEGACY_SOURCES:
        return LEGACY_SOURCES[key](source, path)
    return _required(source, _REQUIRED.get(key, ()), path)


def _volume_source(vol: dict[str, Any], path: str, pod_name: str) -> list[FieldError]:
    """`validateVolumeSource`; an iscsi source with an initiator name limits the volume's name, set first or
    not; an ephemeral volume of a named pod checks the claim name it implies."""
    name = vol.get("name")

    def check(key: str, source: dict[str, Any]) -> list[FieldError]:
        errs = volume_source_errors(key, source, f"{path}.{_SOURCE_PATH.get(key, key)}")
        if key == "ephemeral" and pod_name and name:
            claim = f"{pod_name}-{name}"
            errs += [field_invalid(f"{path}.name", name, f"PVC name {_go_quote(claim)}: {m}")
                     for m in is_dns1123_subdomain(claim)]
        return errs

    def every(key: str, source: dict[str, Any]) -> list[FieldError]:
        return iscsi_name_length(str(name or ""), source, path) if key == "iscsi" else []

    count, errs = one_of(vol, _SOURCES, path, "volume type", check, every)
    if count == 0:
        errs.append(field_required(path, "must specify a volume type"))
    return errs


def validate_volumes(volumes: Any, path: str, pod_name: str = "") -> tuple[dict[str, dict[str, Any]], list[FieldError]]:
    """`ValidateVolumes`: the valid volumes by name, and the errors; with a pod's name (`podMeta`), a
    persistentVolumeClaim may not name a claim one of the pod's ephemeral volumes creates."""
    errs: list[FieldError] = []
    valid: dict[str, dict[str, Any]] = {}
    names: set[str] = set()
    items = [as_dict(v) for v in as_list(volumes)]
    created = {f"{pod_name}-{v.get('name') or ''}" for v in items if isinstance(v.get("ephemeral"), dict)} \
        if pod_name else set()
    for i, vol in enumerate(items):
        here = f"{path}[{i}]"
        el = _volume_source(vol, here, pod_name)
        name = vol.get("name") or ""
        if not name:
            el.append(field_required(f"{here}.name"))
        else:
            el += [field_invalid(f"{here}.name", name, m) for m in is_dns1123_label(str(name))]
        if name in names:
            el.append(field_duplicate(f"{here}.name", name))
        if not el:
            names.add(name)
            valid[name] = vol
        errs += el
        claim = vol.get("persistentVolumeClaim")
        if created and isinstance(claim, dict) and claim.get("claimName") in created:
            errs.append(field_invalid(f"{here}.persistentVolumeClaim.claimName", claim["claimName"],
                                      "must not reference a PVC that gets created for an ephemeral volume"))
    return valid, errs
