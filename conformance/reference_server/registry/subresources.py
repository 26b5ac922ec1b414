"""The `status` and `scale` subresources of the built-in kinds.

`/status` follows each kind's `StatusREST` and `<kind>StatusStrategy` (`pkg/registry/{apps,batch,policy,core}/
<kind>/strategy.go`): an update through it changes only `status` (and metadata), the rest of the object is
kept from storage (`PrepareForUpdate`: `newObj.Spec = oldObj.Spec`; Deployments keep their labels too, Pods
their ownerReferences and `status.qosClass`), while the main resource's strategy keeps `status`; its
`ValidateUpdate` is the kind's `Validate<Kind>StatusUpdate` (status_validation.py).

`/scale` follows `ScaleREST` of `pkg/registry/apps/{deployment,replicaset,statefulset}/storage/storage.go`:
an `autoscaling/v1` Scale built from the object (`scaleFromDeployment`), whose update moves `spec.replicas`
and `metadata.resourceVersion` back into the object (`scaleUpdatedObjectInfo.UpdatedObject`), after
`ValidateScale` (`pkg/apis/autoscaling/validation`) and the UID precondition; the parent's own strategy then
prepares and validates the object as for any update. Its managedFields go through the Scale's own field manager
(`fieldmanager/scale.py`: Update and server-side Apply, subresource `scale`).
"""
from __future__ import annotations

from typing import Any, Callable

from .. import apierrors as E
from ..fieldmanager.scale import (APPS_MAPPING, PARENT_VERSION, SCALE_FIELD_MANAGER, Mapping, to_parent,
                                  to_subresource)
from ..storage.clone import clone
from .kinds import ResourceInfo
from .gateddrops import drop_disabled_status_fields_of
from .ipfieldwarnings import STATUS_WARNINGS
from .status_validation import status_defaults, validate_status_update
from .strategy import Strategy

SUBRESOURCE_VERBS = ("get", "patch", "update")
SCALE_GROUP, SCALE_VERSION, SCALE_KIND = "autoscaling", "v1", "Scale"
SCALE_API_VERSION = f"{SCALE_GROUP}/{SCALE_VERSION}"
_TOP = ("apiVersion", "kind", "metadata", "status")


class StatusStrategy(Strategy):
    """`<kind>StatusStrategy`: everything but `status` and metadata comes from storage; `keep_meta` names
    the metadata fields the kind's status strategy also keeps (`GetResetFields`)."""

    subresource = "status"

    def __init__(self, info: ResourceInfo, keep_meta: tuple[str, ...] = ()):
        super().__init__(info)
        self.keep_meta = keep_meta

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        status_defaults(self.info.kind, obj)  # what the v1 → internal decoding does to status

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[E.FieldError]:
        """`Validate<Kind>StatusUpdate`: metadata, then the kind's status rules (status_validation.py)."""
        return validate_status_update(self.info.kind, new, old, super().validate_update(new, old))

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        """`<kind>StatusStrategy.WarningsOnUpdate`: the status IPs of a Pod, a Service or an Ingress
        (registry/ipfieldwarnings.py);
        the other kinds' status strategies warn of nothing."""
        warn = STATUS_WARNINGS.get(self.info.kind)
        return warn(new) if warn is not None else []

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        for k in [k for k in new if k not in _TOP]:
            del new[k]
        for k, v in old.items():
            if k not in _TOP:
                new[k] = clone(v)  # stored objects are never changed in place
        meta, ometa = new["metadata"], old.get("metadata") or {}
        for f in self.keep_meta:
            if f in ometa:
                meta[f] = clone(ometa[f])
            else:
                meta.pop(f, None)
        if "status" not in new and "status" in old:
            new["status"] = {}  # an absent status is Go's zero value, not "keep"
        if self.info.kind == "Pod":  # `podStatusStrategy`: qosClass is immutable and backfilled
            status, ostatus = new.get("status"), old.get("status") or {}
            if isinstance(status, dict) and not status.get("qosClass") and ostatus.get("qosClass"):
                status["qosClass"] = ostatus["qosClass"]
        drop_disabled_status_fields_of(self.info.kind, new, old)  # the kind's disabled gates' status fields


# kind → metadata fields its status strategy keeps from storage
_STATUS_KEEPS: dict[str, tuple[str, ...]] = {"Deployment": ("labels",), "Pod": ("ownerReferences",)}
STATUS_KINDS = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob",
                          "PodDisruptionBudget", "Pod", "Service", "ResourceQuota",
                          "Ingress", "VolumeAttachment",
                          "PersistentVolumeClaim", "PersistentVolume", "ReplicationController"})
STATUS_KINDS |= {"ValidatingAdmissionPolicy"}  # registry/admissionregistration.py
STATUS_KINDS |= {"Node"}  # pkg/registry/core/node/strategy.go nodeStatusStrategy (spec kept)
STATUS_KINDS |= {"FlowSchema", "PriorityLevelConfiguration"}  # registry/flowcontrol.py
SCALE_KINDS = frozenset({"Deployment", "ReplicaSet", "StatefulSet",
                         "ReplicationController"})


def status_strategy(info: ResourceInfo) -> StatusStrategy | None:
    """The status strategy of a kind upstream serves `/status` for, else None."""
    if info.kind not in STATUS_KINDS:
        return None
    return StatusStrategy(info, _STATUS_KEEPS.get(info.kind, ()))


def subresources(info: ResourceInfo) -> dict[str, tuple[str, ...]]:
    """Subresource → verbs, for discovery and OpenAPI."""
    out: dict[str, tuple[str, ...]] = {}
    if info.kind in SCALE_KINDS:
        out["scale"] = SUBRESOURCE_VERBS
    if info.kind in STATUS_KINDS:
        out["status"] = SUBRESOURCE_VERBS
    return out


# ---- scale ----------------------------------------------------------------------------------------
def _requirement(key: str, op: str, values: list[str]) -> str:
    vals = ",".join(sorted(set(values)))
    return {"In": f"{key} in ({vals})", "NotIn": f"{key} notin ({vals})", "Exists": key,
            "DoesNotExist": f"!{key}"}.get(op, f"{key}={vals}")


def selector_string(selector: Any) -> str:
    """`metav1.LabelSelectorAsSelector(sel).String()`: requirements sorted by key, `k=v`, `k in (a,b)`,
    `k notin (a,b)`, `k`, `!k`; "" for a nil or empty selector."""
    if not isinstance(selector, dict):
        return ""
    reqs: list[tuple[str, str]] = []
    labels = selector.get("matchLabels")
    for k, v in (labels.items() if isinstance(labels, dict) else ()):
        reqs.append((str(k), f"{k}={v}"))
    exprs = selector.get("matchExpressions")
    for r in exprs if isinstance(exprs, list) else ():
        if isinstance(r, dict):
            values = [str(v) for v in r.get("values") or []]
            reqs.append((str(r.get("key", "")), _requirement(str(r.get("key", "")), str(r.get("operator")), values)))
    return ",".join(text for _, text in sorted(reqs, key=lambda kv: kv[0]))


def scale_of(obj: dict[str, Any]) -> dict[str, Any]:
    """`scaleFromDeployment` (and its ReplicaSet/StatefulSet twins), in autoscaling/v1's JSON shape
    (`spec.replicas` omitted when 0, `status.replicas` always written, `status.selector` when non-empty)."""
    meta = obj.get("metadata") or {}
    smeta = {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if meta.get(k)}
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    if obj.get("kind") == "ReplicationController":  # `scaleFromRC`: its selector is a plain label map
        spec = {**spec, "selector": {"matchLabels": spec.get("selector") or {}}}
    replicas = spec.get("replicas")
    out_spec = {"replicas": replicas} if replicas else {}
    out_status: dict[str, Any] = {"replicas": status.get("replicas") or 0}
    selector = selector_string(spec.get("selector"))
    if selector:
        out_status["selector"] = selector
    return {"kind": SCALE_KIND, "apiVersion": SCALE_API_VERSION, "metadata": smeta, "spec": out_spec,
            "status": out_status}


def validate_scale(scale: dict[str, Any]) -> list[E.FieldError]:
    """`ValidateScale`: `spec.replicas` non-negative (the metadata checks a Scale taken from the object
    passes anyway)."""
    replicas = (scale.get("spec") or {}).get("replicas") or 0
    if isinstance(replicas, int) and not isinstance(replicas, bool) and replicas < 0:
        return [E.field_invalid("spec.replicas", replicas, "must be greater than or equal to 0")]
    return []


class BuiltinScale:
    """apps' (and the RC's) `ScaleREST`: replicas at `spec.replicas`, `ValidateScale`, the UID precondition.
    `registry/crscale.py`'s `CustomScale` is the custom resources' twin; the HTTP layer and `scale_update` use
    either through these methods."""

    mapping: Mapping = APPS_MAPPING
    parent_version = PARENT_VERSION
    keeps_parent_version = False  # `deployment.ResourceVersion = scale.ResourceVersion`: none is unconditional

    def scale_of(self, obj: dict[str, Any]) -> dict[str, Any]:
        """GET's Scale (and the one a write answers, and admission's)."""
        return scale_of(obj)

    def old_scale(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The Scale an update starts from."""
        return scale_of(obj)

    def view(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The Scale admission webhooks see."""
        return scale_of(obj)

    def answer(self, obj: dict[str, Any]) -> dict[str, Any]:
        """The Scale of the object a write stored."""
        return scale_of(obj)

    def write(self, current: dict[str, Any], scale: dict[str, Any], resource: str, group: str) -> None:
        """`ValidateScale`, the UID precondition, then the replicas into the object."""
        name = (current.get("metadata") or {}).get("name", "")
        errs = validate_scale(scale)
        if errs:
            raise E.invalid(SCALE_KIND, name, errs, group=SCALE_GROUP)
        smeta = scale.get("metadata") if isinstance(scale.get("metadata"), dict) else {}
        uid, ouid = smeta.get("uid"), (current.get("metadata") or {}).get("uid")
        if uid and uid != ouid:
            raise E.conflict(f"{resource}/scale", name, f"Precondition failed: UID in precondition: {uid}, "
                             f"UID in object meta: {ouid}", group)
        spec = current.get("spec") if isinstance(current.get("spec"), dict) else {}
        spec["replicas"] = (scale.get("spec") or {}).get("replicas") or 0
        current["spec"] = spec


BUILTIN_SCALE = BuiltinScale()


def scale_model(store: Any) -> Any:
    """The store's scale model (a custom resource's version: its CRD's paths), else apps' `BuiltinScale`."""
    return getattr(store, "scale_model", None) or BUILTIN_SCALE


def scale_update(resource: str, group: str, name: str,
                 new_scale: Callable[[dict[str, Any]], dict[str, Any]], *, manager: str = "",
                 apply: tuple[Any, bool] | None = None,
                 model: Any = BUILTIN_SCALE) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """`scaleUpdatedObjectInfo.UpdatedObject` as a transform of the stored object: object → old Scale (with the
    parent's managedFields that own replicas, `ScaleHandler.ToSubresource`) → the new Scale (`apply`: the
    applied configuration and force, merged by the Scale's field manager, then `new_scale`; otherwise
    `new_scale(old)`, the request's body or patch, recorded as `manager`'s Update) → checks → object with the
    new replicas (`model.write`), the Scale's resourceVersion (the store checks it as any update's) and the
    managedFields merged back (`ToParent`)."""

    def transform(current: dict[str, Any]) -> dict[str, Any]:
        parent_fields = (current.get("metadata") or {}).get("managedFields")
        old = model.old_scale(current)
        old["metadata"]["managedFields"] = to_subresource(parent_fields, model.mapping)
        if apply is not None:
            scale = new_scale(SCALE_FIELD_MANAGER.apply(old, apply[0], manager, apply[1], "scale"))
        else:
            scale = new_scale(clone(old))
            if isinstance(scale, dict) and manager:
                scale = SCALE_FIELD_MANAGER.update(old, scale, manager, "scale")
        if not isinstance(scale, dict):
            raise E.bad_request("nil update passed to Scale")
        model.write(current, scale, resource, group)
        smeta = scale.get("metadata") if isinstance(scale.get("metadata"), dict) else {}
        rv = smeta.get("resourceVersion")
        if rv:
            current["metadata"]["resourceVersion"] = rv
        elif not model.keeps_parent_version:
            current["metadata"].pop("resourceVersion", None)
        merged = to_parent(parent_fields, smeta.get("managedFields"), model.mapping, model.parent_version)
        if merged:
            current["metadata"]["managedFields"] = merged
        else:
            current["metadata"].pop("managedFields", None)
        return current

    return transform


def keep_managed_fields(_live: "dict[str, Any] | None", new: dict[str, Any]) -> dict[str, Any]:
    """The store's field-manager step for a `/scale` write: its managedFields are already the Scale's, merged."""
    return new


class ScaleUpdateStrategy:
    """The parent's strategy, run for a write through `/scale` (the field manager records it as such)."""

    subresource = "scale"

    def __init__(self, main: Strategy):
        self._main = main

    def __getattr__(self, name: str) -> Any:
        return getattr(self._main, name)
