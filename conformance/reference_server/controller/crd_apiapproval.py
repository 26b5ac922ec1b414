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

    def sync_crd(self, name: str) -> None:
        crd = self.read(name)
        if crd is None:
            return
        value = _annotation(crd)
        if self.seen.get(name) == value:  # lastSeenProtectedAnnotation
            return
        cond = crdnames.approval_condition(crd)
        if cond is None:
            return
        if self.update_status(crd, lambda new: set_condition(new.setdefault("status", {}), *cond)):
            self.seen[name] = value
