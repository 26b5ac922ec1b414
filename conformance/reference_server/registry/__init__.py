"""The registry: REST storage for every served resource, built from the kind declarations."""
from __future__ import annotations

from ..deviations import NONE, Deviations
from ..storage import Store
from .endpoints import EndpointsStrategy
from .kinds import CLUSTER_KINDS, CONTENT_KINDS, FINALIZE_AS_CONTENT, NAMESPACES, ResourceInfo
from .namespace import NamespaceStore
from .group import GroupStore
from .pod import PodStrategy
from .resourcequota import ResourceQuotaStrategy
from .service import ServiceStrategy
from .store import DeleteOptions, GenericStore, ListOptions
from .subresources import status_strategy, subresources
from .workloads import WORKLOAD_KINDS
from .groupkinds import GROUP_KINDS, STORES as GROUP_STORES
from .flowcontrol import FLOWCONTROL_KINDS

__all__ = ["DeleteOptions", "GenericStore", "ListOptions", "NamespaceStore", "Registry", "ResourceInfo"]


class Registry:
    """Maps resource plurals to their REST stores; `namespaced()` is what the controller discovers."""

    def __init__(self, store: Store, deviations: Deviations = NONE):
        self.store = store
        self.deviations = deviations
        self.namespaces = NamespaceStore(store, deviations)
        kinds = list(CONTENT_KINDS)
        if deviations.active("finalize-as-content"):
            kinds.append(FINALIZE_AS_CONTENT)
        self._content = {k.plural: GenericStore(k, store, deviations=deviations) for k in kinds}
        self._content["pods"].strategy = PodStrategy(self._content["pods"].info)
        self._content["endpoints"].strategy = EndpointsStrategy(self._content["endpoints"].info)
        self._content["resourcequotas"].strategy = ResourceQuotaStrategy(self._content["resourcequotas"].info)
        self._content["services"].strategy = ServiceStrategy(
            self._content["services"].info, lambda: store.list("services", None, shared=True)[0])
        self._cluster = {k.plural: GenericStore(k, store, deviations=deviations) for k in CLUSTER_KINDS}
        self._install_core_kinds()
        self._groups: dict[tuple[str, str], GenericStore] = {}  # (group, plural) → store of a named API group
        for gk in WORKLOAD_KINDS:  # always served, as kube-apiserver's built-in groups
            self.add_group_store(GroupStore(gk.info, store, gk.group, gk.version, gk.strategy(gk.info), deviations))
        for gk in GROUP_KINDS:  # networking/scheduling/storage/node kinds (registry/groupkinds.py)
            make = GROUP_STORES.get(gk.info.plural, GroupStore)
            self.add_group_store(make(gk.info, store, gk.group, gk.version, gk.strategy(gk.info), deviations))
        for s in list(self._content.values()) + [self._groups[(gk.group, gk.info.plural)] for gk in WORKLOAD_KINDS]:
            self._add_subresources(s)
        for gk in GROUP_KINDS:
            self._add_subresources(self._groups[(gk.group, gk.info.plural)])
        for gk in FLOWCONTROL_KINDS:  # flowcontrol.apiserver.k8s.io (registry/flowcontrol.py)
            self.add_group_store(GroupStore(gk.info, store, gk.group, gk.version, gk.strategy(gk.info), deviations))
            self._add_subresources(self._groups[(gk.group, gk.info.plural)])
        self._add_subresources(self._cluster["persistentvolumes"])
        self._install_extensions()

    @staticmethod
    def _add_subresources(store: GenericStore) -> None:
        """`/status` (and `/scale`) where upstream serves them (registry/subresources.py)."""
        strategy = status_strategy(store.info)
        if strategy is not None:
            store.status_strategy = strategy  # type: ignore[attr-defined]
            store.subresources = subresources(store.info)  # type: ignore[attr-defined]

    def _install_core_kinds(self) -> None:
        """The strategies of PersistentVolumeClaims, PersistentVolumes, ReplicationControllers and PodTemplates,
        and ComponentStatus's computed store (registry/volumes.py, replication.py, componentstatus.py)."""
        from .componentstatus import ComponentStatusStore
        from .replication import PodTemplateStrategy, ReplicationControllerStrategy
        from .volumes import PersistentVolumeClaimStrategy, PersistentVolumeStrategy
        for plural, strategy in (("persistentvolumeclaims", PersistentVolumeClaimStrategy),
                                 ("podtemplates", PodTemplateStrategy),
                                 ("replicationcontrollers", ReplicationControllerStrategy)):
            self._content[plural].strategy = strategy(self._content[plural].info)
        pv = self._cluster["persistentvolumes"]
        pv.strategy = PersistentVolumeStrategy(pv.info)
        cs = self._cluster["componentstatuses"]
        self._cluster["componentstatuses"] = ComponentStatusStore(cs.info, self.store, deviations=self.deviations)

    def _install_extensions(self) -> None:
        """CRDs (and the custom resources they define) and APIServices, served on every server."""
        from .apiservice import APIServiceStore
        from .crd import CustomResources
        self.custom = CustomResources(self.store, self.deviations)
        self.apiservices = APIServiceStore(self.store, self.deviations)
        self.add_group_store(self.custom.crds)
        self.add_group_store(self.apiservices)

    def add_group_store(self, store: GenericStore) -> None:
        """Serve a resource of a named API group (`store.group`), e.g. the RBAC kinds when RBAC is on."""
        self._groups[(store.group, store.info.plural)] = store  # type: ignore[attr-defined]

    def group(self, group: str, plural: str) -> GenericStore | None:
        return self._groups.get((group, plural)) or self.custom.lookup(group, plural)

    def group_stores(self, group: str | None = None) -> list[GenericStore]:
        stores = list(self._groups.values()) + list(self.custom.stores())
        return [s for s in stores if group is None or s.group == group]  # type: ignore[attr-defined]

    def content(self, plural: str) -> GenericStore | None:
        """The store of a namespaced resource, or None when the plural is not served."""
        return self._content.get(plural)

    def cluster(self, plural: str) -> GenericStore | None:
        """The store of a cluster-scoped core resource other than namespaces (nodes), or None."""
        return self._cluster.get(plural)

    def cluster_stores(self) -> list[GenericStore]:
        """Every cluster-scoped store: namespaces, the core ones (nodes) and those of named groups."""
        return [self.namespaces, *self._cluster.values(), *(s for s in self.group_stores() if not s.info.namespaced)]

    def namespaced(self) -> list[GenericStore]:
        return list(self._content.values()) + [s for s in self.group_stores() if s.info.namespaced]

    def resources(self) -> list[ResourceInfo]:
        return [NAMESPACES] + [s.info for s in self._content.values()] + [s.info for s in self._cluster.values()]
