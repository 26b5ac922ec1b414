"""kube-apiserver's naming controller (`apiextensions-apiserver/pkg/controller/status/naming_controller.go`
`NamingConditionController`): on every CRD event, a CRD whose requested names differ from its accepted ones gets
the names no other CRD of its group has accepted, NamesAccepted, and Established `NotAccepted` or `Installing`
(registry/crdnames.py `naming_status`); after each write, and when a CRD is deleted, the group's other CRDs are
synced again (`requeueAllOtherGroupCRDs`: a name may have been freed). One worker, as upstream's (the names'
reservation is not safe to run twice at once)."""
from __future__ import annotations

from typing import Any, Iterator

from ..registry import crdnames
from ..registry.crd import CRD_KEY, set_condition
from .crd_status import CRDStatusController


class NamingConditionController(CRDStatusController):
    name = "crd naming condition"

    def on_event(self, ev: Any) -> None:
        name = (ev.object.get("metadata") or {}).get("name")
        if name:  # add, update and delete alike
            self.crds.add(name)

    def sync_crd(self, name: str) -> None:
        crd = self.read(name)
        if crd is None:  # deleted: its names are free
            self._requeue_group(name)
            return
        want = crdnames.naming_status(crd, self._all())  # (listed only when the names differ)
        if want is None:
            return

        def change(new: dict[str, Any]) -> None:
            new["status"] = want["status"]
            for cond in want["conditions"]:
                set_condition(new["status"], *cond)
        if self.update_status(crd, change):
            self._requeue_group(name)

    def _all(self) -> Iterator[dict[str, Any]]:
        """The lister's CRDs, read as they are (not copied)."""
        yield from self.registry.store.list(CRD_KEY, None, shared=True)[0]

    def _requeue_group(self, name: str) -> None:
        """`requeueAllOtherGroupCRDs`: the group is what follows the first dot of the CRD's name."""
        group = name.split(".", 1)[1] if "." in name else ""
        for crd in self._all():
            other = crd["metadata"]["name"]
            if (crd.get("spec") or {}).get("group") == group and other != name:
                self.crds.add(other)
