"""`apiserver_storage_objects` (`k8s.io/apiserver/pkg/storage/etcd3/metrics/metrics.go`, STABLE in 1.33; fed by
`registry/generic/registry/store.go` `startObservingCount` with `DefaultQualifiedResource.String()`: `pods`,
`deployments.apps`), one sample per stored resource, custom resources included. Upstream polls each count once a
minute; here it is read at scrape time (the store keeps exact counts)."""
from __future__ import annotations

from typing import Any, Iterable

from .registry import STABLE, Collected, Sample


NOT_STORED = frozenset({"componentstatuses"})  # a REST of its own upstream (probes), not a generic store


def _stores(registry: Any) -> Iterable[Any]:
    """Every store of its own storage (a second view of a kind's storage, events.k8s.io events, is left out)."""
    for store in (*registry.cluster_stores(), *registry.namespaced()):
        if not getattr(store, "view_of", "") and store.info.plural not in NOT_STORED:
            yield store


class GroupResources:
    """A store's resource name → upstream's `GroupResource.String()` (`deployments` → `deployments.apps`; the
    group-qualified ones, custom resources', are already that), each resolved once."""

    def __init__(self, registry: Any):
        self.registry = registry
        self.names: dict[str, str] = {}

    def __call__(self, resource: str) -> str:
        name = self.names.get(resource)
        if name is None:
            name = self.names[resource] = self._resolve(resource)
        return name

    def _resolve(self, resource: str) -> str:
        if "." in resource:
            return resource
        return next((group_resource(s) for s in _stores(self.registry) if s.info.plural == resource), resource)

    def served(self) -> list[str]:
        """Every stored resource's name (what kube-apiserver keeps a watch cache of)."""
        return [group_resource(store) for store in _stores(self.registry)]


def group_resource(store: Any) -> str:
    """A registry store's `GroupResource.String()`."""
    group = getattr(store, "group", "")
    return f"{store.info.plural}.{group}" if group else store.info.plural


def storage_objects(registry: Any) -> Collected:
    def collect() -> list[Sample]:
        out: dict[tuple[str], float] = {}
        for store in _stores(registry):
            try:
                count = store.store.count(store.info.plural, None)
            except Exception:  # upstream's "in case of a fetching error, the value will be -1"
                count = -1
            out[(group_resource(store),)] = float(count)
        return list(out.items())

    return Collected("apiserver_storage_objects",
                     "Number of stored objects at the time of last check split by kind. In case of a fetching "
                     "error, the value will be -1.", ("resource",), collect, STABLE)


__all__ = ["GroupResources", "group_resource", "storage_objects"]
