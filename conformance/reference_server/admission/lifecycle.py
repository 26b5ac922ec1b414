"""NamespaceLifecycle (`apiserver/pkg/admission/plugin/namespace/lifecycle`): NS-53, NS-60..NS-65.

Content creation is checked against the live namespace object and, because the http layer calls the
check and the registry write with no await in between (and the registry runs it inside its create),
the check and the write are atomic with respect to a namespace's transition to Terminating.
"""
from __future__ import annotations

from typing import Any, Callable

from .. import apierrors as E
from ..deviations import NONE, Deviations
from ..registry import Registry, ResourceInfo
from ..storage import KeyNotFoundError
from .chain import ADMIT, timed

IMMORTAL_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})


class NamespaceLifecycle:
    def __init__(self, registry: Registry, deviations: Deviations = NONE):
        self.registry = registry
        self.deviations = deviations

    def for_create(self, info: ResourceInfo) -> Callable[[dict[str, Any]], None] | None:
        """The admit callback for a create of `info` (None when the plugin has nothing to check)."""
        if not info.namespaced:
            return None
        return timed("NamespaceLifecycle", ADMIT, lambda obj: self._admit_create(info, obj))

    def for_delete(self, info: ResourceInfo, name: str) -> Callable[[dict[str, Any]], None] | None:
        if info.namespaced:
            return None
        return timed("NamespaceLifecycle", ADMIT, lambda obj: self._admit_namespace_delete(name))

    def _admit_namespace_delete(self, name: str) -> None:
        immortal = IMMORTAL_NAMESPACES
        if self.deviations.active("default-deletable"):
            immortal = immortal - {"default"}
        if self.deviations.active("kube-public-deletable"):
            immortal = immortal - {"kube-public"}
        if name in immortal:
            raise E.forbidden("namespaces", name, "this namespace may not be deleted")

    def _namespace(self, name: str) -> dict[str, Any]:
        """The namespace from the store's (cached) view, else, as upstream's last resort before refusing, from
        storage itself: a replica whose watch cache has not yet seen a namespace another replica just created
        must not answer 404 (upstream: `l.client.CoreV1().Namespaces().Get` when the informer misses it)."""
        store = self.registry.store
        try:
            return store.get("namespaces", "", name)
        except KeyNotFoundError:
            from_storage = getattr(store, "get_from_storage", None)  # a remote store (etcd); memory has no lag
            if from_storage is None:
                raise
            return from_storage("namespaces", "", name)

    def _admit_create(self, info: ResourceInfo, obj: dict[str, Any]) -> None:
        meta = obj.get("metadata", {})
        ns = meta.get("namespace", "")
        if not ns:
            return
        try:
            namespace = self._namespace(ns)
        except KeyNotFoundError:
            if self.deviations.active("content-in-missing-namespace"):
                return
            if self.deviations.active("refused-content-written") and meta.get("name"):
                # the write happens, the client is told it did not (a storage written ahead of admission)
                self.registry.store.create(info.plural, ns, meta["name"], obj)
            if self.deviations.active("missing-namespace-names-content"):
                raise E.not_found(info.plural, meta.get("name") or "") from None
            raise E.not_found("namespaces", ns) from None
        terminating = (namespace.get("status") or {}).get("phase") == "Terminating" \
            or bool(namespace["metadata"].get("deletionTimestamp"))
        if terminating and not self.deviations.active("content-in-terminating-namespace"):
            name = meta.get("name") or meta.get("generateName") or ""
            causes = [{"reason": "NamespaceTerminating", "message": f"namespace {ns} is being terminated",
                       "field": "metadata.namespace"}]
            if self.deviations.active("terminating-forbidden-without-cause"):
                causes = []
            raise E.forbidden(info.plural, name,
                              f"unable to create new content in namespace {ns} because it is being terminated",
                              causes=causes)
