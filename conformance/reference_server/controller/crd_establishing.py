"""kube-apiserver's establishing controller (`apiextensions-apiserver/pkg/controller/establish/
establishing_controller.go` `EstablishingController`): a CRD whose names are accepted becomes Established
(`InitialNamesAccepted`), or stays not Established with `InvalidCABundle` while its conversion webhook's caBundle
holds no certificate (registry/crdnames.py `establishing_condition`).

Its queue is fed as upstream's crdHandler feeds it (`customresource_handler.go` `updateCustomResourceDefinition`:
`QueueCRD` on an update event of a CRD with NamesAccepted and not Established; at once, as with kube-apiserver's
default `--apiserver-count` 1 (kubeadm and kind set no other), where a larger count waits 5 s). Neither a CRD's
create event nor the informer's initial list queues one."""
from __future__ import annotations

from typing import Any

from ..registry import crdnames
from ..registry.crd import set_condition
from .crd_status import CRDStatusController


class EstablishingController(CRDStatusController):
    name = "crd establishing"

    def on_event(self, ev: Any) -> None:
        crd = ev.object
        if ev.type == "MODIFIED" and crdnames.condition_true(crd, crdnames.NAMES_ACCEPTED) and \
                not crdnames.condition_true(crd, crdnames.ESTABLISHED):
            self.crds.add(crd["metadata"]["name"])

    def sync_crd(self, name: str) -> None:
        crd = self.read(name)
        if crd is None:
            return
        cond = crdnames.establishing_condition(crd)
        if cond is not None:
            self.update_status(crd, lambda new: set_condition(new.setdefault("status", {}), *cond))
