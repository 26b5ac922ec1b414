"""kube-apiserver's API-approval controller (`apiextensions-apiserver/pkg/controller/apiapproval/
apiapproval_controller.go` `KubernetesAPIApprovalPolicyConformantConditionController`): a CRD of a protected
community group (`k8s.io`, `kubernetes.io` and their subdomains) gets the KubernetesAPIApprovalPolicyConformant
condition its `api-approved.kubernetes.io` annotation calls for (registry/crdnames.py `approval_condition`); an
annotation value already written for that CRD is not judged again (`lastSeenProtectedAnnotation`)."""
from __future__ import annotations

from typing import Any

from ..registry import crdnames
from ..registry.crd import set_condition
from .crd_status import CRDStatusController


def _annotation(crd: dict[str, Any]) -> str:
    return str(((crd.get("metadata") or {}).get("annotations") or {}).get(crdnames.APPROVAL_ANNOTATION) or "")


class APIApprovalController(CRDStatusController):
    name = "crd api approval"

    def __init__(self, registry: Any):
        super().__init__(registry)
        self._last_seen: dict[str, str] = {}

    def on_event(self, ev: Any) -> None:
        name = (ev.object.get("metadata") or {}).get("name")
        if ev.type == "DELETED":
            self._last_seen.pop(name, None)
        elif name:
            self.crds.add(name)

    def sync_crd(self, name: str) -> None:
        crd = self.read(name)
        if crd is None:
            return
        value = _annotation(crd)
        if self._last_seen.get(name) == value:
            return
        cond = crdnames.approval_condition(crd)
        if cond is None:
            return
        if self.update_status(crd, lambda new: set_condition(new.setdefault("status", {}), *cond)):
            self._last_seen[name] = value
