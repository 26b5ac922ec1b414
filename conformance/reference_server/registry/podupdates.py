"""`pods/ephemeralcontainers` and `pods/resize`: the pod updates that go through subresources of their own.

Follows `pkg/registry/core/pod/strategy.go` (`podEphemeralContainersStrategy`: `dropNonEphemeralContainerUpdates`;
`podResizeStrategy`: `dropNonResizeUpdates`, `dropNonResizeUpdatesForContainers`; both `ResetObjectMetaForStatus`,
then `DropDisabledPodFields`, registry/podprepare.py's, and `updatePodGeneration`, registry/pod.py's),
`pkg/registry/core/pod/storage/storage.go` (`EphemeralContainersREST`, `ResizeREST`: get, update, patch of the
whole Pod) and `pkg/apis/core/validation/validation.go` 1.33: `ValidatePodEphemeralContainersUpdate` (the pod's
annotation and spec rules, `validateEphemeralContainers` among them, then which ephemeral containers changed), and
`ValidatePodResize` (static and
Windows pods refused, the QoS class may not change, containers may not be added or removed, only cpu and memory
requests and limits may change; a pod with no running container, as every pod here, counts as on a node that
supports resize, `isPodResizeRequestSupported`). The pod spec's own validation is registry/podvalidation's
(`validate_pod`, as `validatePodMetadataAndSpec`), called, not repeated; the container defaults registry/pod.py's.
"""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..storage.clone import clone
from .pod import PodStrategy, _default_container, qos_class
from .podvalidation import validate_pod as validate_pod_spec, validate_pod_object
from .pod_update import semantic, spec_diff
from .podprepare import drop_disabled_fields
from .shapes import as_list

MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
_RESET_META = ("deletionTimestamp", "generation", "selfLink", "labels", "annotations", "finalizers",
               "ownerReferences")  # metav1.ResetObjectMetaForStatus
_RESIZABLE = ("cpu", "memory")


def _reset_meta(new: dict[str, Any], old: dict[str, Any]) -> None:
    meta, ometa = new.setdefault("metadata", {}), old.get("metadata") or {}
    for key in _RESET_META:
        meta.pop(key, None)
        if key in ometa:
            meta[key] = clone(ometa[key])


def _keep_old(new: dict[str, Any], old: dict[str, Any], spec: dict[str, Any]) -> None:
    """`newPod.Spec = spec; newPod.Status = oldPod.Status; ResetObjectMetaForStatus`."""
    new["spec"] = spec
    new.pop("status", None)
    if "status" in old:
        new["status"] = clone(old["status"])
    _reset_meta(new, old)


def _named(items: Any) -> list[dict[str, Any]]:
    return [c for c in as_list(items) if isinstance(c, dict)]


def _static(old: dict[str, Any]) -> bool:
    return MIRROR_ANNOTATION in ((old.get("metadata") or {}).get("annotations") or {})


class EphemeralContainersStrategy(PodStrategy):
    """`podEphemeralContainersStrategy`: only `spec.ephemeralContainers` changes."""

    subresource = "ephemeralcontainers"

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        spec = new.get("spec") if isinstance(new.get("spec"), dict) else {}
        ephemeral = spec.get("ephemeralContainers")
        kept = clone(old.get("spec") or {})
        kept.pop("ephemeralContainers", None)
        if ephemeral is not None:
            for c in as_list(ephemeral):
                _default_container(c)  # SetObjectDefaults_Pod defaults ephemeral containers as the others
            kept["ephemeralContainers"] = ephemeral
        drop_disabled_fields(kept, old.get("spec") if isinstance(old.get("spec"), dict) else {})
        _keep_old(new, old, kept)
        self.update_generation(new, old)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[E.FieldError]:
        errs = super(PodStrategy, self).validate_update(new, old)  # ValidateObjectMetaUpdate
        errs += validate_pod_object(new, create=False, old=old)  # validatePodMetadataAndSpec
        if _static(old):
            return [E.field_forbidden("", "static pods do not support ephemeral containers")]
        current = {c.get("name"): c for c in _named((new.get("spec") or {}).get("ephemeralContainers"))}
        path = "spec.ephemeralContainers"
        for o in _named((old.get("spec") or {}).get("ephemeralContainers")):
            name = o.get("name")
            if name not in current:
                errs.append(E.field_forbidden(path, f'existing ephemeral containers "{name}" may not be removed\n'))
            elif semantic(o) != semantic(current[name]):
                errs.append(E.field_forbidden(f"{path}[{name}]", f'existing ephemeral containers "{name}" may not '
                                              f"be changed\n{spec_diff(o, current[name])}"))
        return errs


class ResizeStrategy(PodStrategy):
    """`podResizeStrategy`: only the containers' and init containers' `resources` and `resizePolicy` change."""

    subresource = "resize"

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        spec = new.get("spec") if isinstance(new.get("spec"), dict) else {}
        ospec = old.get("spec") or {}
        if len(as_list(spec.get("containers"))) != len(as_list(ospec.get("containers"))) or \
                len(as_list(spec.get("initContainers"))) != len(as_list(ospec.get("initContainers"))):
            self._bumped = None
            return  # validation refuses it
        kept = clone(ospec)
        for key in ("containers", "initContainers"):
            merged = _merge_resources(as_list(spec.get(key)), as_list(kept.get(key)))
            if merged is not None:
                kept[key] = merged
            elif key in spec:
                kept[key] = spec[key]
        drop_disabled_fields(kept, ospec)
        _keep_old(new, old, kept)
        self.update_generation(new, old)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[E.FieldError]:
        errs = super(PodStrategy, self).validate_update(new, old)
        errs += validate_pod_spec(new.get("spec"), "spec", old_spec=old.get("spec"))
        ospec, spec = old.get("spec") or {}, new.get("spec") or {}
        if _static(old):
            return [E.field_forbidden("", "static pods cannot be resized")]
        if ((ospec.get("os") or {}).get("name")) == "windows":
            return [E.field_forbidden("", "windows pods cannot be resized")]
        old_qos = (old.get("status") or {}).get("qosClass") or qos_class(ospec)
        if qos_class(spec) != old_qos:
            errs.append(E.field_invalid("spec", (new.get("status") or {}).get("qosClass", ""),
                                        "Pod QOS Class may not change as a result of resizing"))
        for key, what in (("containers", "containers"), ("initContainers", "init containers")):
            if len(as_list(spec.get(key))) != len(as_list(ospec.get(key))):
                return errs + [E.field_forbidden(f"spec.{key}", f"{what} cannot be added or removed")]
        unchanged = clone(spec)
        for key in ("containers", "initContainers"):
            for c, oc in zip(_named(unchanged.get(key)), _named(ospec.get(key))):
                if key == "initContainers" and c.get("restartPolicy") != "Always":
                    continue  # only sidecars' resources may change
                _drop_cpu_memory(c, oc)
                if key == "containers" and semantic(c) != semantic(oc):
                    errs.append(E.field_forbidden("spec", "only cpu and memory resources are mutable"))
        if semantic(unchanged) != semantic(ospec):
            errs.append(E.field_forbidden("spec", "only cpu and memory resources for sidecar containers are "
                                          f"mutable\n{spec_diff(ospec, unchanged)}"))
        return errs


def _merge_resources(new: list[Any], old: list[Any]) -> list[Any] | None:
    """`dropNonResizeUpdatesForContainers`: the old containers with the new resources and resize policies; None
    when a container was renamed or moved (validation refuses it)."""
    out = clone(old)
    for c, oc in zip(new, out):
        if not isinstance(c, dict) or not isinstance(oc, dict) or c.get("name") != oc.get("name"):
            return None
        for key in ("resources", "resizePolicy"):
            oc.pop(key, None)
            if key in c:
                oc[key] = clone(c[key])
    return out


def _drop_cpu_memory(c: dict[str, Any], old: dict[str, Any]) -> None:
    """`dropCPUMemoryResourcesFromContainer`: cpu and memory requests/limits taken from the old container, and
    the resize policy (which may change)."""
    res = c.setdefault("resources", {}) if isinstance(c.get("resources"), dict) or "resources" not in c else {}
    ores = old.get("resources") if isinstance(old.get("resources"), dict) else {}
    for part in ("requests", "limits"):
        cur = res.get(part) if isinstance(res.get(part), dict) else {}
        prev = ores.get(part) if isinstance(ores.get(part), dict) else {}
        merged = {k: v for k, v in cur.items() if k not in _RESIZABLE}
        merged.update({k: v for k, v in prev.items() if k in _RESIZABLE})
        res[part] = merged
    c.pop("resizePolicy", None)
    if "resizePolicy" in old:
        c["resizePolicy"] = clone(old["resizePolicy"])


__all__ = ["EphemeralContainersStrategy", "ResizeStrategy"]
