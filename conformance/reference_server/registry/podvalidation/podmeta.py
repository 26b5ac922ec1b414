"""The pod rules that read a pod's metadata beside its spec, from `pkg/apis/core/validation/validation.go` (1.33):
`ValidatePodSpecificAnnotations` (the mirror-pod annotation, the tolerations annotation, the pod deletion cost,
`ValidateSeccompPodAnnotations`, `ValidateAppArmorPodAnnotations`, walked in the order sent where upstream ranges
over a Go map), checked before the spec as `validatePodMetadataAndSpec` does, and `ValidatePodCreate`'s own rules
after it (no ephemeral containers, no `nodeName` while scheduling gates remain, `validateSeccompAnnotationsAndFields`,
`validateAppArmorAnnotationsAndFieldsMatchOnCreate`).

`validate_pod_object` is the whole of `validatePodMetadataAndSpec`'s annotation and spec part (with the create
rules on create), for a strategy to call with the pod; a tolerations annotation that is not JSON is refused with
Python's decoder's words, not Go's."""
from __future__ import annotations

import json
from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid
from ...goport.gofmt import go_quote
from ..shapes import as_dict
from .podspec import validate_pod, validate_tolerations
from .security import visit_containers
from .volumes import local_descending_path

MIRROR = "kubernetes.io/config.mirror"
TOLERATIONS = "scheduler.alpha.kubernetes.io/tolerations"
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/"
_ANNOTATIONS = "metadata.annotations"


def _deletion_cost_ok(value: str) -> bool:
    """`helper.GetDeletionCostFromPodAnnotations`: a canonical base-10 int32 (no `+`, no leading zeros)."""
    if value and not (value[0] == "-" or value == "0" or "1" <= value[0] <= "9"):
        return False
    try:
        return -(2 ** 31) <= int(value, 10) < 2 ** 31 and value.lstrip("-").isdigit()
    except ValueError:
        return False


def _seccomp_profile(value: str, path: str) -> list[FieldError]:
    """`ValidateSeccompProfile` of an annotation."""
    if value in ("runtime/default", "docker/default", "unconfined"):
        return []
    if value.startswith("localhost/"):
        return local_descending_path(value.removeprefix("localhost/"), path)
    return [field_invalid(path, value, "must be a valid seccomp profile")]


def _container_names(spec: dict[str, Any]) -> set[str]:
    return {str(c.get("name") or "") for c, _ in visit_containers(spec, "spec")}


def pod_annotations(annotations: dict[str, Any], spec: dict[str, Any]) -> list[FieldError]:
    """`ValidatePodSpecificAnnotations` (a create's options: an invalid deletion cost refused)."""
    errs: list[FieldError] = []
    if MIRROR in annotations and not spec.get("nodeName"):
        errs.append(field_invalid(f"{_ANNOTATIONS}[{MIRROR}]", annotations[MIRROR],
                                  "must set spec.nodeName if mirror pod annotation is set"))
    if annotations.get(TOLERATIONS):
        try:
            tolerations = json.loads(str(annotations[TOLERATIONS]))
        except ValueError as e:
            errs.append(field_invalid(_ANNOTATIONS, TOLERATIONS, str(e)))
        else:
            if tolerations:
                errs += validate_tolerations(tolerations, f"{_ANNOTATIONS}.{TOLERATIONS}")
    if DELETION_COST in annotations and not _deletion_cost_ok(str(annotations[DELETION_COST])):
        errs.append(field_invalid(f"{_ANNOTATIONS}[{DELETION_COST}]", annotations[DELETION_COST],
                                  "must be a 32bit integer"))
    if SECCOMP_POD in annotations:
        errs += _seccomp_profile(str(annotations[SECCOMP_POD]), f"{_ANNOTATIONS}.{SECCOMP_POD}")
    for key, value in annotations.items():
        if key.startswith(SECCOMP_CONTAINER):
            errs += _seccomp_profile(str(value), f"{_ANNOTATIONS}.{key}")
    names: set[str] | None = None
    for key, value in annotations.items():
        if not key.startswith(APPARMOR_CONTAINER):
            continue
        names = _container_names(spec) if names is None else names
        container = key.removeprefix(APPARMOR_CONTAINER)
        if container not in names:
            errs.append(field_invalid(f"{_ANNOTATIONS}[{key}]", container, "container not found"))
        profile = str(value)
        if profile not in ("", "runtime/default", "unconfined") and not profile.startswith("localhost/"):
            errs.append(field_invalid(f"{_ANNOTATIONS}[{key}]", profile,
                                      f"invalid AppArmor profile name: {go_quote(profile)}"))
    return errs


def _seccomp_match(annotation: str, profile: Any, path: str) -> list[FieldError]:
    """`validateSeccompAnnotationsAndFieldsMatch`."""
    kind = as_dict(profile).get("type")
    mismatch = [field_forbidden(f"{path}.type", "seccomp type in annotation and field must match")]
    if kind == "Unconfined":
        return mismatch if annotation != "unconfined" else []
    if kind == "RuntimeDefault":
        return mismatch if annotation not in ("runtime/default", "docker/default") else []
    if kind == "Localhost":
        if not annotation.startswith("localhost/"):
            return mismatch
        if annotation.removeprefix("localhost/") != as_dict(profile).get("localhostProfile"):
            return [field_forbidden(f"{path}.localhostProfile", "seccomp profile in annotation and field must match")]
    return []


def _apparmor_match(annotation: str, profile: dict[str, Any], path: str) -> list[FieldError]:
    kind = profile.get("type")
    mismatch = [field_forbidden(f"{path}.type", "apparmor type in annotation and field must match")]
    if kind == "Unconfined":
        return mismatch if annotation != "unconfined" else []
    if kind == "RuntimeDefault":
        return mismatch if annotation != "runtime/default" else []
    if kind == "Localhost":
        if not annotation.startswith("localhost/"):
            return mismatch
        if annotation.removeprefix("localhost/") != profile.get("localhostProfile"):
            return [field_forbidden(f"{path}.localhostProfile", "apparmor profile in annotation and field must match")]
    return []


def pod_create_rules(annotations: dict[str, Any], spec: dict[str, Any]) -> list[FieldError]:
    """`ValidatePodCreate`'s rules after `validatePodMetadataAndSpec`."""
    errs: list[FieldError] = []
    if spec.get("ephemeralContainers"):
        errs.append(field_forbidden("spec.ephemeralContainers", "cannot be set on create"))
    if spec.get("nodeName") and spec.get("schedulingGates"):
        errs.append(field_forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"))
    pod_sc = as_dict(spec.get("securityContext"))
    if isinstance(pod_sc.get("seccompProfile"), dict) and SECCOMP_POD in annotations:
        errs += _seccomp_match(str(annotations[SECCOMP_POD]), pod_sc["seccompProfile"],
                               "spec.securityContext.seccompProfile")
    for c, cpath in visit_containers(spec, "spec"):
        profile = as_dict(c.get("securityContext")).get("seccompProfile")
        key = SECCOMP_CONTAINER + str(c.get("name") or "")
        if isinstance(profile, dict) and key in annotations:
            errs += _seccomp_match(str(annotations[key]), profile, f"{cpath}.securityContext.seccompProfile")
    if as_dict(spec.get("os")).get("name") == "windows":
        return errs
    for c, cpath in visit_containers(spec, "spec"):
        profile = as_dict(c.get("securityContext")).get("appArmorProfile") or pod_sc.get("appArmorProfile")
        key = APPARMOR_CONTAINER + str(c.get("name") or "")
        if isinstance(profile, dict) and key in annotations:
            errs += _apparmor_match(str(annotations[key]), profile, f"{cpath}.securityContext.appArmorProfile")
    return errs


def validate_pod_object(pod: dict[str, Any], *, create: bool, old: dict[str, Any] | None = None) -> list[FieldError]:
    """The annotations, then `validate_pod` of the spec (an update's options from the `old` pod), then (on create)
    `ValidatePodCreate`'s rules."""
    spec = as_dict(pod.get("spec"))
    annotations = as_dict(as_dict(pod.get("metadata")).get("annotations"))
    name = as_dict(pod.get("metadata")).get("name")
    errs = pod_annotations(annotations, spec) + validate_pod(pod.get("spec"), pod_name=str(name or ""),
                                                           old_spec=as_dict(old).get("spec"))
    return errs + pod_create_rules(annotations, spec) if create else errs
