"""What the pod strategy changes in a pod before validating it, beyond defaults: `pkg/api/pod/util.go` 1.33's
`dropDisabledDynamicResourceAllocationFields` (DynamicResourceAllocation is beta and off by default in 1.33, on
only from 1.34: a pod's `resourceClaims` and each container's `resources.claims` are dropped unless the stored pod
already has resourceClaims) and `dropContainerStopSignals` (ContainerStopSignals is alpha, off: each container's
`lifecycle.stopSignal`, and a lifecycle left empty, unless the stored pod has one), `dropDisabledPodLevelResources`
(PodLevelResources alpha: the pod-level `resources`), `dropDisabledClusterTrustBundleProjection` (beta, off) and
`dropImageVolumes` (ImageVolume off: image volumes and the mounts naming them), which pod templates get too
(`DropDisabledTemplateFields`); the other gated fields `dropDisabledFields` knows are not dropped here; and `pkg/registry/core/pod/strategy.go`'s `PrepareForCreate` steps
`applySchedulingGatedCondition` (a gated pod is created with PodScheduled False, SchedulingGated),
`applyAppArmorVersionSkew` (a Linux pod's containers' AppArmor profile fields and the deprecated per-container
annotations are synced: a field, the container's or else the pod's, writes a missing annotation; an annotation
without a container field sets that field unless the pod's profile is the same, with a deprecation warning) and
`mutatePodAffinity` (MatchLabelKeysInPodAffinity, GA and locked on in 1.33: each pod (anti-)affinity term's
matchLabelKeys and mismatchLabelKeys become `In`/`NotIn` requirements of its labelSelector with the pod's own
label values; a term without a labelSelector matches nothing and is left alone).
"""
from __future__ import annotations

from typing import Any

from ..warning import add_warning
from .podvalidation.security import apparmor_profile
from .shapes import as_dict, as_list

APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
CONTAINER_KINDS = ("initContainers", "containers", "ephemeralContainers")  # VisitContainers' order
SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


def _containers(spec: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [c for kind in CONTAINER_KINDS for c in as_list(as_dict(spec).get(kind)) if isinstance(c, dict)]


def _projections(spec: dict[str, Any]) -> list[Any]:
    return [s for v in as_list(spec.get("volumes"))
            for s in as_list(as_dict(as_dict(v).get("projected")).get("sources"))]


def _kept(items: list[Any], keep: Any) -> list[Any] | None:
    """The items `keep` accepts, or None for none (Go's nil slice, absent from JSON)."""
    return [i for i in items if keep(as_dict(i))] or None


def _drop_image_volumes(spec: dict[str, Any]) -> None:
    """`dropImageVolumes`: the image volumes go, and every container's mounts of them."""
    volumes = as_list(spec.get("volumes"))
    names = {as_dict(v).get("name") for v in volumes if isinstance(as_dict(v).get("image"), dict)}
    if not names:
        return
    holders = [(spec, "volumes", lambda v: not isinstance(v.get("image"), dict))]
    holders += [(c, "volumeMounts", lambda m: m.get("name") not in names) for c in _containers(spec)
                if isinstance(c.get("volumeMounts"), list)]
    for holder, key, keep in holders:
        kept = _kept(as_list(holder.get(key)), keep)
        if kept is None:
            holder.pop(key, None)
        else:
            holder[key] = kept


def _stop_signals_in_use(spec: dict[str, Any] | None) -> bool:
    return any(as_dict(c.get("lifecycle")).get("stopSignal") is not None for c in _containers(spec))


def drop_disabled_fields(spec: dict[str, Any], old_spec: dict[str, Any] | None) -> None:
    """`dropDisabledFields`' parts for 1.33's gates that are off (`DropDisabledPodFields` on create, update and the
    ephemeralcontainers/resize subresources; `DropDisabledTemplateFields` for a template), in one walk of the
    containers: the pod create path pays only for the fields present."""
    old = as_dict(old_spec)
    claims_off = not as_list(old.get("resourceClaims"))  # dynamicResourceAllocationInUse
    if claims_off:
        spec.pop("resourceClaims", None)
    if "resources" in spec:
        old_resources = as_dict(old.get("resources"))
        if not (old_resources.get("requests") or old_resources.get("limits")):  # podLevelResourcesInUse
            del spec["resources"]
    volumes = spec.get("volumes")
    if isinstance(volumes, list) and volumes:
        if not any(isinstance(as_dict(s).get("clusterTrustBundle"), dict) for s in _projections(old)):
            for source in _projections(spec):
                if isinstance(source, dict):
                    source.pop("clusterTrustBundle", None)
        if not any(isinstance(as_dict(v).get("image"), dict) for v in as_list(old.get("volumes"))):
            _drop_image_volumes(spec)
    stops_in_use: bool | None = None
    for c in _containers(spec):
        resources = c.get("resources")
        if claims_off and isinstance(resources, dict) and "claims" in resources:
            del resources["claims"]
        lifecycle = c.get("lifecycle")
        if isinstance(lifecycle, dict) and lifecycle.get("stopSignal") is not None:
            if stops_in_use is None:
                stops_in_use = _stop_signals_in_use(old_spec)
            if not stops_in_use:
                del lifecycle["stopSignal"]
                if not any(v is not None for v in lifecycle.values()):
                    del c["lifecycle"]


def drop_disabled_status_fields(status: dict[str, Any], old_status: Any, old_spec: Any) -> None:
    """`dropPodStatusDisabledFields` (called from the pods/status strategy too since 1.33, #130618):
    `resourceClaimStatuses` (DynamicResourceAllocation off, unless the pod has resourceClaims), each container
    status's `allocatedResourcesStatus` (ResourceHealthStatus alpha, off) and the `observedGeneration` of the
    status and its conditions (PodObservedGenerationTracking alpha, off, unless the stored status has one). A
    container status's `allocatedResources` stays: 1.33 guards it by InPlacePodVerticalScaling (beta, on), its
    own gate InPlacePodVerticalScalingAllocatedStatus being deprecated and no longer used (kubernetes#130880)."""
    if not as_list(as_dict(old_spec).get("resourceClaims")):
        status.pop("resourceClaimStatuses", None)
    for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for cs in as_list(status.get(key)):
            if isinstance(cs, dict):
                cs.pop("allocatedResourcesStatus", None)
    old = as_dict(old_status)
    if not (old.get("observedGeneration") or any(as_dict(c).get("observedGeneration")
                                                 for c in as_list(old.get("conditions")))):
        status.pop("observedGeneration", None)
        for condition in as_list(status.get("conditions")):
            if isinstance(condition, dict):
                condition.pop("observedGeneration", None)


def _at(obj: Any, path: tuple[str, ...]) -> dict[str, Any] | None:
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if isinstance(obj, dict) else None


def drop_disabled_template_fields(obj: dict[str, Any], old: dict[str, Any] | None, path: tuple[str, ...]) -> None:
    """`DropDisabledTemplateFields` of the pod template spec at `path` in a workload object (and its stored
    self on update)."""
    spec = _at(obj, path)
    if spec is not None:
        drop_disabled_fields(spec, _at(old, path) if old is not None else None)


def _merge_label_keys(term: Any, labels: dict[str, Any]) -> None:
    """`applyMatchLabelKeysAndMismatchLabelKeys`."""
    term = as_dict(term)
    selector = term.get("labelSelector")
    match, mismatch = as_list(term.get("matchLabelKeys")), as_list(term.get("mismatchLabelKeys"))
    if not isinstance(selector, dict) or not (match or mismatch):
        return
    added = [{"key": key, "operator": operator, "values": [labels[key]]}
             for keys, operator in ((match, "In"), (mismatch, "NotIn")) for key in keys
             if isinstance(key, str) and key in labels]
    if added:
        expressions = selector.get("matchExpressions")
        selector["matchExpressions"] = (expressions if isinstance(expressions, list) else []) + added


def mutate_pod_affinity(spec: dict[str, Any], labels: Any) -> None:
    """`mutatePodAffinity`: podAffinity then podAntiAffinity, preferred terms then required ones."""
    affinity, labels = as_dict(spec.get("affinity")), as_dict(labels)
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = as_dict(affinity.get(kind))
        for weighted in as_list(terms.get("preferredDuringSchedulingIgnoredDuringExecution")):
            _merge_label_keys(as_dict(weighted).get("podAffinityTerm"), labels)
        for term in as_list(terms.get("requiredDuringSchedulingIgnoredDuringExecution")):
            _merge_label_keys(term, labels)


def _apparmor_annotation(profile: dict[str, Any]) -> str:
    """`appArmorAnnotationForField`."""
    kind, local = profile.get("type"), profile.get("localhostProfile")
    if kind == "Unconfined":
        return "unconfined"
    if kind == "RuntimeDefault":
        return "runtime/default"
    return f"localhost/{local}" if kind == "Localhost" and isinstance(local, str) else ""


def _apparmor_field(annotation: Any) -> dict[str, Any] | None:
    """`apparmorFieldForAnnotation`."""
    if annotation == "unconfined":
        return {"type": "Unconfined"}
    if annotation == "runtime/default":
        return {"type": "RuntimeDefault"}
    if isinstance(annotation, str) and annotation.startswith("localhost/") and annotation != "localhost/":
        return {"type": "Localhost", "localhostProfile": annotation.removeprefix("localhost/")}
    return None


def _same_profile(a: dict[str, Any], b: Any) -> bool:
    """`Semantic.DeepEqual` of two AppArmor profiles."""
    return isinstance(b, dict) and (a.get("type"), a.get("localhostProfile")) == \
        (b.get("type"), b.get("localhostProfile"))


def apply_apparmor_version_skew(pod: dict[str, Any]) -> None:
    """`applyAppArmorVersionSkew` (PrepareForCreate only): init containers, containers, then ephemeral ones."""
    spec = as_dict(pod.get("spec"))
    if as_dict(spec.get("os")).get("name") == "windows":
        return
    pod_profile = as_dict(spec.get("securityContext")).get("appArmorProfile")
    meta = pod.setdefault("metadata", {})
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    if not isinstance(pod_profile, dict) and not any(k.startswith(APPARMOR_PREFIX) for k in annotations) and \
            not any(isinstance(c.get("securityContext"), dict) for c in _containers(spec)):
        return  # nothing to sync (the common pod)
    for c in _containers(spec):
        key = APPARMOR_PREFIX + str(c.get("name") or "")
        profile = as_dict(c.get("securityContext")).get("appArmorProfile")
        if key not in annotations:
            source = profile if isinstance(profile, dict) else pod_profile
            written = _apparmor_annotation(source) if isinstance(source, dict) else ""
            if written:
                annotations[key] = written
                meta["annotations"] = annotations
        elif not isinstance(profile, dict):
            field = _apparmor_field(annotations[key])
            if field is not None and apparmor_profile(field, ""):
                field = None  # skip copying an invalid value
            warn = field is None
            if field is not None and not _same_profile(field, pod_profile):
                if not isinstance(c.get("securityContext"), dict):
                    c["securityContext"] = {}
                c["securityContext"]["appArmorProfile"] = field
                warn = True
            if warn:
                add_warning(f'metadata.annotations[{key}]: deprecated since v1.30; use the "appArmorProfile" field '
                            "instead")


def scheduling_gated_condition(spec: dict[str, Any], now: str) -> list[dict[str, Any]]:
    """`applySchedulingGatedCondition`'s condition (`UpdatePodCondition` stamps the transition), for a pod
    created with scheduling gates; none otherwise."""
    if not as_list(spec.get("schedulingGates")):
        return []
    return [{"type": "PodScheduled", "status": "False", "lastProbeTime": None, "lastTransitionTime": now,
             "reason": "SchedulingGated", "message": SCHEDULING_GATED_MESSAGE}]


__all__ = ["apply_apparmor_version_skew", "drop_disabled_fields", "drop_disabled_status_fields",
           "drop_disabled_template_fields",
           "mutate_pod_affinity", "scheduling_gated_condition"]
