"""`pkg/apis/storage/validation/validation.go` (1.33) parts the storage kinds lacked: `validateProvisioner` (a
qualified name once lower-cased), `validateParameters` (at most 512 entries of 256 KiB in all, no empty key),
`validateAllowedTopologies` (`ValidateTopologySelectorTerm` of `pkg/apis/core/validation`: values required and
unique, keys label names and unique, no repeated term), and `ValidateCSIDriver`'s name (`ValidateCSIDriverName`:
required, at most 63 bytes, a subdomain once lower-cased, reported at `name`), and `ValidateCSINodeUpdate`'s
unchangeable drivers."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, _go_quote, field_forbidden, field_invalid, field_required
from ...goport.gofmt import sharp_v_strings
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_subdomain, is_qualified_name
from .discovery import duplicate

MAX_PARAMETERS, MAX_PARAMETERS_SIZE = 512, 256 * 1024


def too_long(path: str, most: int) -> FieldError:
    """`field.TooLong` (the value is never printed)."""
    return FieldError("FieldValueTooLong", path, f"Too long: may not be more than {most} bytes")


def provisioner_errors(provisioner: str) -> list[FieldError]:
    """`validateProvisioner`."""
    if not provisioner:
        return [field_required("provisioner")]
    return [field_invalid("provisioner", provisioner.lower(), m) for m in is_qualified_name(provisioner.lower())]


def parameters_errors(params: Any) -> list[FieldError]:
    """`validateParameters(params, allowEmpty=true)`."""
    params = as_dict(params)
    if len(params) > MAX_PARAMETERS:
        return [too_long("parameters", MAX_PARAMETERS)]
    errs = [field_invalid("parameters", k, "field can not be empty.") for k in params if not k]
    size = sum(len(str(k).encode()) + len(str(v).encode()) for k, v in params.items())
    if size > MAX_PARAMETERS_SIZE:
        errs.append(too_long("parameters", MAX_PARAMETERS_SIZE))
    return errs


def _term_errors(term: dict[str, Any], path: str) -> tuple[dict[str, frozenset[str]], list[FieldError]]:
    """`ValidateTopologySelectorTerm` → `validateTopologySelectorLabelRequirement`."""
    found: dict[str, frozenset[str]] = {}
    errs: list[FieldError] = []
    for i, req in enumerate(as_list(term.get("matchLabelExpressions"))):
        req, rpath = as_dict(req), f"{path}.matchLabelExpressions[{i}]"
        values, seen = as_list(req.get("values")), set()
        if not values:
            errs.append(field_required(f"{rpath}.values"))
        for j, value in enumerate(values):
            if value in seen:
                errs.append(duplicate(f"{rpath}.values[{j}]", value))
            seen.add(value)
        key = str(req.get("key") or "")
        errs += [field_invalid(f"{rpath}.key", key, m) for m in is_qualified_name(key)]
        if key in found:
            errs.append(duplicate(f"{rpath}.key", key))
        found[key] = frozenset(str(v) for v in seen)
    return found, errs


def allowed_topologies_errors(topologies: Any) -> list[FieldError]:
    """`validateAllowedTopologies`: a term equal to an earlier one is a duplicate."""
    errs: list[FieldError] = []
    earlier: list[dict[str, frozenset[str]]] = []
    for i, term in enumerate(as_list(topologies)):
        found, term_errs = _term_errors(as_dict(term), f"allowedTopologies[{i}]")
        errs += term_errs
        errs += [duplicate(f"allowedTopologies[{i}].matchLabelExpressions", "") for t in earlier if t == found]
        earlier.append(found)
    return errs


def csi_driver_name_errors(name: str, path: str = "name") -> list[FieldError]:
    """`ValidateCSIDriverName`, by default at `name` (ValidateCSIDriver validates no other metadata)."""
    errs: list[FieldError] = []
    if not name:
        errs.append(field_required(path))
    if len(name.encode()) > 63:
        errs.append(too_long(path, 63))
    return errs + [field_invalid(path, name, m) for m in is_dns1123_subdomain(name.lower())]


def csinode_errors(spec: dict[str, Any]) -> list[FieldError]:
    """`validateCSINodeDrivers`: each driver's name (`ValidateCSIDriverName`), nodeID (required, at most 192
    characters), allocatable count (not negative), a name not repeated, and topology keys (non-empty, unique,
    qualified names; reported at the driver's path, an invalid one with the whole key list as upstream does)."""
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, driver in enumerate(as_list(spec.get("drivers"))):
        driver, path = as_dict(driver), f"spec.drivers[{i}]"
        name = str(driver.get("name") or "")
        errs += [FieldError(e.type, f"{path}.name", e.body) for e in csi_driver_name_errors(name)]
        node_id = str(driver.get("nodeID") or "")
        if not node_id:
            errs.append(field_required(f"{path}.nodeID"))
        if len(node_id) > 192:
            errs.append(field_invalid(f"{path}.nodeID", node_id, "must be 192 characters or less"))
        count = as_dict(driver.get("allocatable")).get("count")
        if isinstance(count, int) and count < 0:
            errs.append(field_invalid(f"{path}.allocatable.count", count, "must be greater than or equal to 0"))
        if name in names:
            errs.append(duplicate(f"{path}.name", name))
        names.add(name)
        keys = [str(k) for k in as_list(driver.get("topologyKeys"))]
        seen: set[str] = set()
        for key in keys:
            if not key:
                errs.append(field_required(path))
            if key in seen:
                errs.append(duplicate(path, key))
            seen.add(key)
            errs += [FieldError("FieldValueInvalid", path, f"Invalid value: {sharp_v_strings(keys)}: {m}")
                     for m in is_qualified_name(key)]
    return errs


def _driver_struct(driver: dict[str, Any]) -> str:
    """Go's `%#v` of a `storage.CSINodeDriver` (a set allocatable is a pointer: its address is unknowable)."""
    keys = driver.get("topologyKeys")
    shown = sharp_v_strings(keys)
    allocatable = "(*storage.VolumeNodeResources)(nil)" if driver.get("allocatable") is None else \
        "(*storage.VolumeNodeResources)(0xc000000000)"
    return (f"storage.CSINodeDriver{{Name:{_go_quote(str(driver.get('name') or ''))}, "
            f"NodeID:{_go_quote(str(driver.get('nodeID') or ''))}, TopologyKeys:{shown}, Allocatable:{allocatable}}}")


def _driver_semantics(driver: dict[str, Any]) -> tuple[Any, ...]:
    """What `Semantic.DeepEqual` compares of a driver (a missing list equals an empty one)."""
    return (driver.get("name") or "", driver.get("nodeID") or "", list(as_list(driver.get("topologyKeys"))),
            driver.get("allocatable"))


def csinode_update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`ValidateCSINodeUpdate` beyond `ValidateCSINode`: a driver already listed may not change (1.33 without
    MutableCSINodeAllocatableCount: its allocatable count neither)."""
    errs: list[FieldError] = []
    new_drivers = [as_dict(d) for d in as_list(as_dict(new.get("spec")).get("drivers"))]
    for o in (as_dict(d) for d in as_list(as_dict(old.get("spec")).get("drivers"))):
        for n in new_drivers:
            if (o.get("name") or "") == (n.get("name") or "") and _driver_semantics(o) != _driver_semantics(n):
                errs.append(FieldError("FieldValueInvalid", "spec.drivers",
                                       f"Invalid value: {_driver_struct(n)}: field is immutable"))
    return errs


def volume_attachment_spec_errors(spec: dict[str, Any]) -> list[FieldError]:
    """`validateVolumeAttachmentSpec` (attacher required, exactly one source, nodeName a subdomain), then
    `ValidateVolumeAttachmentV1`, which the strategy adds for v1 requests (attacher a CSI driver name, a
    persistentVolumeName a subdomain); an inline volume spec's own rules are inlinepv.py's."""
    from .inlinepv import inline_volume_spec_errors

    errs: list[FieldError] = []
    attacher = str(spec.get("attacher") or "")
    if not attacher:
        errs.append(field_required("spec.attacher"))
    source = as_dict(spec.get("source"))
    pv, inline = source.get("persistentVolumeName"), source.get("inlineVolumeSpec")
    exactly_one = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
    if pv is None and inline is None:
        errs.append(field_required("spec.source", exactly_one))
    elif pv is not None and inline is not None:
        errs.append(field_forbidden("spec.source", exactly_one))
    elif pv is not None and not pv:
        errs.append(field_required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"))
    elif inline is not None:
        errs += inline_volume_spec_errors(as_dict(inline), "spec.source.inlineVolumeSpec")
    node = str(spec.get("nodeName") or "")
    errs += [field_invalid("spec.nodeName", node, m) for m in is_dns1123_subdomain(node)]
    errs += [FieldError(e.type, "spec.attacher", e.body) for e in csi_driver_name_errors(attacher)]
    if pv is not None:
        errs += [field_invalid("spec.source.persistentVolumeName", str(pv), m) for m in is_dns1123_subdomain(str(pv))]
    return errs
