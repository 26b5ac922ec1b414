"""`pods/<name>/binding` and the legacy `bindings` collection: `BindingREST` of
`pkg/registry/core/pod/storage/storage.go`, the scheduler's write.

`Create`: the URL's name must be the Binding's (400 `name in URL does not match name in Binding object`);
`ValidatePodBinding` (`target.kind` empty or `Node`, `target.name` required) fails with a plain aggregate
error, which kube-apiserver answers as a **500** with no reason (`ErrorToAPIStatus` of a non-Status error: the
Binding's validation is not a strategy's); then `assignPod`, one `GuaranteedUpdate` of the stored pod
(not the pod strategy: no update validation, no managedFields entry) with the Binding's uid/resourceVersion as
preconditions (409 `StorageError: invalid object ...`): a pod being deleted, already on a node or with
scheduling gates is refused as 409 on `pods/binding` (`errors.NewConflict` of the plain error); else
`spec.nodeName` is the target's name, the Binding's annotations are added, and the `PodScheduled` condition
becomes `True` (`UpdatePodCondition`: reason and message cleared, a new `lastTransitionTime` when the status
changes). The node need not exist (upstream never looks). Success answers a `Status` `Success`, 201.
"""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..storage import KeyNotFoundError, object_key
from ..wire import gostructs
from .conditions import update_pod_condition
from .shapes import as_dict


def validate_binding(binding: dict[str, Any]) -> list[E.FieldError]:
    """`ValidatePodBinding`."""
    target = as_dict(binding.get("target"))
    errs = []
    kind = target.get("kind") or ""
    if kind and kind != "Node":
        errs.append(E.field_not_supported("target.kind", kind, ["Node", "<empty>"]))
    if not target.get("name"):
        errs.append(E.field_required("target.name"))
    return errs


def bind_pod(store: Any, namespace: str, url_name: str, binding: dict[str, Any], *, dry_run: bool = False) -> \
        dict[str, Any]:
    """`BindingREST.Create` on the raw storage `store`; returns the Status answered (201)."""
    meta = as_dict(binding.get("metadata"))
    name = meta.get("name") or ""
    if url_name != name:
        raise E.bad_request("name in URL does not match name in Binding object")
    errs = validate_binding(binding)
    if errs:
        raise E.StatusError(E.status_dict(500, None, E.aggregate(errs)))
    if not name:
        raise E.bad_request("Name parameter required.")
    target = str(as_dict(binding.get("target")).get("name"))
    annotations = {k: str(v) for k, v in as_dict(meta.get("annotations")).items()}
    uid, rv = meta.get("uid") or "", meta.get("resourceVersion") or ""
    key = object_key("pods", namespace, name)

    def assign(pod: dict[str, Any]) -> dict[str, Any]:
        pmeta, spec = pod["metadata"], pod.setdefault("spec", {})
        for what, want, have in (("UID", uid, pmeta.get("uid")),
                                 ("ResourceVersion", rv, pmeta.get("resourceVersion"))):
            if want and want != have:
                raise E.conflict("pods", name, f"StorageError: invalid object, Code: 4, Key: {key}, "
                                               f"ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: "
                                               f"{what} in precondition: {want}, {what} in object meta: {have}")
        if pmeta.get("deletionTimestamp"):
            err = f"pod {name} is being deleted, cannot be assigned to a host"
        elif spec.get("nodeName"):
            err = f'pod {name} is already assigned to node "{spec["nodeName"]}"'
        elif spec.get("schedulingGates"):
            err = f"pod {name} has non-empty .spec.schedulingGates"
        else:
            err = ""
        if err:
            raise E.conflict("pods/binding", name, err)
        spec["nodeName"] = target
        if annotations:
            pmeta["annotations"] = {**as_dict(pmeta.get("annotations")), **annotations}
        status = pod.setdefault("status", {})
        update_pod_condition(status, "PodScheduled", "True")  # reason and message cleared
        return gostructs.typed_form("v1", "Pod")(pod)  # nodeName, the annotations, the condition in Go's order

    try:
        if dry_run:
            assign(store.get("pods", namespace, name))
        else:
            store.guaranteed_update("pods", namespace, name, assign)
    except KeyNotFoundError:
        raise E.not_found("pods", name) from None
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
