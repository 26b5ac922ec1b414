"""The NonStructuralSchema condition of CRDs
(`apiextensions-apiserver/pkg/controller/nonstructuralschema/nonstructuralschema_controller.go`).

A CRD written through v1 is structural (`registry/crdschema`), but one stored before that rule held (by an older
server, or kept non-structural through the update ratchet) is not: this controller sets the condition
`NonStructuralSchema` (`True`/`Violations` with `ValidateStructural`'s errors, or `Unknown`/`StructuralError`) on
such a CRD and removes it once the schema is structural, once per generation, as upstream's `ConditionController`.
Its writes are `customresourcedefinitions/status` UPDATEs of kube-apiserver's loopback client."""
from __future__ import annotations

from typing import Any

from ..registry.crd import condition, set_condition
from ..registry.crdschema import non_structural_condition
from .crd_status import CRDStatusController

CONDITION = "NonStructuralSchema"


class NonStructuralSchemaController(CRDStatusController):
    name = "non structural schema condition"

    def sync_crd(self, name: str) -> None:
        crd = self.read(name)
        if crd is None:
            return
        generation = int((crd.get("metadata") or {}).get("generation") or 0)
        if name in self.seen and generation <= self.seen[name]:  # lastSeenGeneration
            return
        want, old = non_structural_condition(crd), condition(crd, CONDITION)
        if want is None and old is None:
            return
        if want is not None and old is not None and (old.get("status"), old.get("reason"), old.get("message")) == want:
            return

        def change(obj: dict[str, Any]) -> None:
            status = obj.setdefault("status", {})
            if want is None:
                status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != CONDITION]
            else:
                set_condition(status, CONDITION, *want)
        if self.update_status(crd, change):  # (deleted or changed meanwhile: we are called again)
            self.seen[name] = generation
