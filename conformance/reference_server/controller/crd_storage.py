"""kube-apiserver's crdHandler as its CRD informer drives it (`apiextensions-apiserver/pkg/apiserver/
customresource_handler.go`: `updateCustomResourceDefinition` on an update event, `removeDeadStorage` on a delete):
the storages of a CRD whose uid, spec or accepted names changed, or that went, are removed at once and torn down
a second later, which ends every watch of its resources (registry/crconversion/cache.py `Caches.sweep`,
watches.py). Status-only changes keep them. Every replica's, as every kube-apiserver has its own storages."""
from __future__ import annotations

import asyncio
from typing import Any

from ..registry import Registry
from ..registry.crd import CRD_KEY
from .loop import Controller


class CRDStorageController(Controller):
    """Retires the storages (watch caches) of the CRDs each CRD event shows changed or gone."""

    name = "crd storage"

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry

    def start(self) -> None:
        store = self.registry.store
        _, w = store.watch(CRD_KEY, None, store.current_rv(), asyncio.get_running_loop())
        self._follow(w, self.on_event)

    def on_event(self, _ev: Any) -> None:
        custom = self.registry.custom
        custom.caches.sweep(custom)
