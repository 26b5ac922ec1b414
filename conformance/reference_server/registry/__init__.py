"""The registry: REST storage for every served resource, built from the kind declarations."""
from __future__ import annotations

from ..deviations import NONE, Deviations
from ..storage import Store
from .configdata import ConfigMapStrategy, SecretStrategy
from .endpoints import EndpointsStrategy
from .kinds import CLUSTER_KINDS, CONTENT_KINDS, FINALIZE_AS_CONTENT, NAMESPACES, ResourceInfo
from .namespace import NamespaceStore
from .group import GroupStore
from .pod import PodStrategy
from .resourcequota import ResourceQuotaStrategy
from .service import ServiceStrategy
from .servicestore import ServiceStore
from .store import DeleteOptions, GenericStore, ListOptions
from .subresources import status_strategy, subresources
from .versions import ServedVersion, VersionView, version_priority
from .workloads import WORKLOAD_KINDS
from .groupkinds import GROUP_KINDS, STORES as GROUP_STORES
from .admissionregistration import ADMISSIONREGISTRATION_KINDS
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
        self._content["configmaps"].strategy = ConfigMapStrategy(self._content["configmaps"].info)
        self._content["secrets"].strategy = SecretStrategy(self._content["secrets"].info)
        self._add_pod_updates(self._content["pods"])
        self._content["endpoints"].strategy = EndpointsStrategy(self._content["endpoints"].info)
        self._content["resourcequotas"].strategy = ResourceQuotaStrategy(self._content["resourcequotas"].info)
        self._content["services"] = ServiceStore(self._content["services"].info, store, deviations=deviations)
        self._content["services"].strategy = ServiceStrategy(
            self._content["services"].info, lambda: store.list("services", None, shared=True)[0])
        self._cluster = {k.plural: GenericStore(k, store, deviations=deviations) for k in CLUSTER_KINDS}
        self._install_core_kinds()
        self._groups: dict[tuple[str, str], GenericStore] = {}  # (group, plural) → store of a named API group
        self._views: dict[tuple[str, str, str], GenericStore] = {}  # (group, version, plural) → registry/versions.py
        for gk in WORKLOAD_KINDS:  # always served, as kube-apiserver's built-in groups
            self.add_group_store(GroupStore(gk.info, store, gk.group, gk.version, gk.strategy(gk.info), deviations))
        for gk in GROUP_KINDS:  # networking/scheduling/storage/node kinds (registry/groupkinds.py)
            make = GROUP_STORES.get(gk.info.plural, GroupStore)
            self.add_group_store(make(gk.info, store, gk.group, gk.version, gk.strategy(gk.info), deviations))
        for s in list(self._content.values()) + [self._groups[(gk.group, gk.info.plural)] for gk in WORKLOAD_KINDS]:
            self._add_subresources(s)
        for gk in GROUP_KINDS:
            self._add_subresources(self._groups[(gk.group, gk.info.plural)])
        self._install_service_cidrs()
        for gk in ADMISSIONREGISTRATION_KINDS + FLOWCONTROL_KINDS:  # registry/admissionregistration.py, flowcontrol.py
            self.add_group_store(GroupStore(gk.info, store, gk.group, gk.version, gk.strategy(gk.info), deviations))
            self._add_subresources(self._groups[(gk.group, gk.info.plural)])
        self._add_subresources(self._cluster["persistentvolumes"])
        self._add_subresources(self._cluster["nodes"])
        self._install_versioned_kinds()
        self._install_certificates()
        self._install_rbac()
        self._install_extensions()

    @staticmethod
    def _add_pod_updates(pods: GenericStore) -> None:
        """`pods/ephemeralcontainers` and `pods/resize` (registry/podupdates.py): get, update and patch of the
        Pod through a strategy of their own, served as the CSRs' `/approval` is."""
        from .podupdates import EphemeralContainersStrategy, ResizeStrategy
        pods.extra_subresources = {  # type: ignore[attr-defined]
            "ephemeralcontainers": EphemeralContainersStrategy(pods.info), "resize": ResizeStrategy(pods.info)}

    @staticmethod
    def _add_subresources(store: GenericStore) -> None:
        """`/status` (and `/scale`) where upstream serves them (registry/subresources.py)."""
        strategy = status_strategy(store.info)
        if strategy is not None:
            store.status_strategy = strategy  # type: ignore[attr-defined]
            store.subresources = subresources(store.info)  # type: ignore[attr-defined]

    def _install_core_kinds(self) -> None:
        """The strategies of PersistentVolumeClaims, PersistentVolumes, ReplicationControllers, PodTemplates and
        Nodes, and ComponentStatus's computed store (registry/volumes.py, replication.py, node.py,
        componentstatus.py)."""
        from .componentstatus import ComponentStatusStore
        from .node import NodeStrategy
        from .replication import PodTemplateStrategy, ReplicationControllerStrategy
        from .volumes import PersistentVolumeClaimStrategy, PersistentVolumeStrategy
        for plural, strategy in (("persistentvolumeclaims", PersistentVolumeClaimStrategy),
                                 ("podtemplates", PodTemplateStrategy),
                                 ("replicationcontrollers", ReplicationControllerStrategy)):
            self._content[plural].strategy = strategy(self._content[plural].info)
        pv = self._cluster["persistentvolumes"]
        pv.strategy = PersistentVolumeStrategy(pv.info)
        nodes = self._cluster["nodes"]
        nodes.strategy = NodeStrategy(nodes.info)
        cs = self._cluster["componentstatuses"]
        self._cluster["componentstatuses"] = ComponentStatusStore(cs.info, self.store, deviations=self.deviations)

    def _install_service_cidrs(self) -> None:
        """`networking.k8s.io/v1` ServiceCIDRs (`/status`) and IPAddresses (registry/servicecidr.py)."""
        from .servicecidr import SERVICE_CIDR_KINDS, SERVICE_CIDR_INFO, ServiceCIDRStatusStrategy
        from .subresources import SUBRESOURCE_VERBS
        for gk in SERVICE_CIDR_KINDS:
            self.add_group_store(GroupStore(gk.info, self.store, gk.group, gk.version, gk.strategy(gk.info),
                                            self.deviations))
        cidrs = self._groups[("networking.k8s.io", "servicecidrs")]
        cidrs.status_strategy = ServiceCIDRStatusStrategy(SERVICE_CIDR_INFO)  # type: ignore[attr-defined]
        cidrs.subresources = {"status": SUBRESOURCE_VERBS}  # type: ignore[attr-defined]
        self._wire_service_ips(cidrs, self._groups[("networking.k8s.io", "ipaddresses")])

    def _wire_service_ips(self, cidrs: GenericStore, ipaddresses: GenericStore) -> None:
        """The Services' allocator over the ServiceCIDR and IPAddress stores (registry/serviceip.py), and the
        IPAddress store their storage reserves in (registry/servicestore.py), as upstream's REST storage is given
        the MetaAllocator and its client."""
        from ..storage import KeyNotFoundError
        from .serviceip import MetaAllocator
        services = self._content["services"]
        strategy = services.strategy
        assert isinstance(services, ServiceStore) and isinstance(strategy, ServiceStrategy)
        services.ipaddresses = ipaddresses

        def taken(ip: str) -> bool:
            try:
                self.store.get("ipaddresses", "", ip, shared=True)
            except KeyNotFoundError:
                return False
            return True
        strategy.allocator = MetaAllocator(lambda: self.store.list("servicecidrs", None, shared=True)[0], taken,
                                           lambda: strategy.cidr)

    def _install_versioned_kinds(self) -> None:
        """Kinds served in several versions of their group (registry/versions.py): autoscaling's
        HorizontalPodAutoscalers, stored in v2 and served in v1 too (registry/autoscaling.py, autoscaling_v1.py)."""
        from .autoscaling import GROUP, HPA, STORAGE_VERSION, HorizontalPodAutoscalerStrategy, install
        from .autoscaling_v1 import V1
        hpa = GroupStore(HPA, self.store, GROUP, STORAGE_VERSION, HorizontalPodAutoscalerStrategy(HPA), self.deviations)
        install(hpa)
        self.add_group_store(hpa)
        self.add_version(hpa, V1)

    def add_version(self, store: GenericStore, served: "ServedVersion") -> None:
        """Serve the objects of `store` (the storage version) in one more version of its group as well."""
        view = VersionView(store, served)  # type: ignore[arg-type]
        view.served_by(store)
        self._views[(view.group, view.version, store.info.plural)] = view

    def builtin_group_versions(self) -> set[tuple[str, str]]:
        """(group, version) of every built-in named group-version served, custom resources' left out (what
        kube-apiserver's `ListedPaths` gives the autoregister controller)."""
        return {(s.group, s.version) for s in self._groups.values()} | {(g, v) for g, v, _ in self._views}  # type: ignore[attr-defined]

    def group_versions(self, group: str) -> list[str]:
        """The served versions of a named group, the preferred (storage) one first (discovery's order)."""
        versions = {s.version for s in self.group_stores(group)}  # type: ignore[attr-defined]
        versions |= {v for g, v, _ in self._views if g == group}  # (the stores just refreshed the custom views)
        versions |= {v.version for v in self.custom.views(refresh=False) if v.group == group}
        return sorted(versions, key=version_priority)
    def _install_certificates(self) -> None:
        """`certificates.k8s.io/v1` CSRs with `/status` and `/approval` (registry/certificates.py), and
        `events.k8s.io/v1` Events (registry/eventsview.py)."""
        from . import certificates as C
        csr = GroupStore(C.CSR_INFO, self.store, C.GROUP, C.VERSION, C.CSRStrategy(C.CSR_INFO), self.deviations)
        csr.status_strategy = C.CSRStatusStrategy(C.CSR_INFO)  # type: ignore[attr-defined]
        csr.extra_subresources = {"approval": C.CSRApprovalStrategy(C.CSR_INFO)}  # type: ignore[attr-defined]
        csr.subresources = {"approval": ("get", "patch", "update"),  # type: ignore[attr-defined]
                            "status": ("get", "patch", "update")}
        csr.records_requester = True  # type: ignore[attr-defined]
        self.add_group_store(csr)
        from .eventsview import EventsView, share_converter  # events.k8s.io/v1: the core events' storage, v1 shape
        view = EventsView(self.store, self.deviations)
        share_converter(self._content["events"], view)  # (managedFields entries of either version)
        self.add_group_store(view)

    def _install_rbac(self) -> None:
        """`rbac.authorization.k8s.io/v1`'s four kinds (auth/kinds.py), served whatever the authorization mode, as
        kube-apiserver always installs its RBAC REST storage (`pkg/registry/rbac/rest/storage_rbac.go`); the
        escalation checks are attached by `--authorization rbac` (http/authz.py `rbac_setup`)."""
        from ..auth.kinds import GROUP, RBAC_KINDS, VERSION, RbacStrategy
        for info in RBAC_KINDS:
            self.add_group_store(GroupStore(info, self.store, GROUP, VERSION, RbacStrategy(info), self.deviations))

    def _install_extensions(self) -> None:
        """CRDs (and the custom resources they define) and APIServices, served on every server."""
        from .apiservice import APIServiceStore
        from .crd import CustomResources
        from .webhooktransport import service_lookup
        self.custom = CustomResources(self.store, self.deviations, service_lookup(self))
        self.apiservices = APIServiceStore(self.store, self.deviations)
        self.add_group_store(self.custom.crds)
        self.add_group_store(self.apiservices)

    def add_group_store(self, store: GenericStore) -> None:
        """Serve a resource of a named API group (`store.group`), e.g. the RBAC kinds."""
        self._groups[(store.group, store.info.plural)] = store  # type: ignore[attr-defined]

    def group(self, group: str, plural: str, version: str = "") -> GenericStore | None:
        """The store of `plural` in `group`; with `version`, the one serving that version (a `VersionView`
        for a kind's non-storage versions), None when that version does not serve it."""
        if version:
            view = self._views.get((group, version, plural))
            if view is not None:
                return view
        store = self._groups.get((group, plural)) or self.custom.lookup(group, plural, version)
        if store is not None and version and getattr(store, "version", version) != version:
            return None
        return store

    def views(self) -> list[GenericStore]:
        """The stores serving a kind's non-storage versions (OpenAPI documents them too), custom resources'
        included."""
        return list(self._views.values()) + list(self.custom.views())

    def version_stores(self, group: str, version: str) -> list[GenericStore]:
        """Every store serving `group/version` (discovery of one group-version)."""
        out = [s for s in self.group_stores(group) if s.version == version]  # type: ignore[attr-defined]
        views = list(self._views.values()) + list(self.custom.views(refresh=False))  # (just refreshed)
        return out + [v for v in views if v.group == group and v.version == version]  # type: ignore[attr-defined]

    def group_stores(self, group: str | None = None) -> list[GenericStore]:
        stores = list(self._groups.values()) + list(self.custom.stores())
        return [s for s in stores if group is None or s.group == group]  # type: ignore[attr-defined]

    def set_event_ttl(self, seconds: float) -> None:
        """`--event-ttl`: every Event (core/v1 and events.k8s.io/v1: one storage) is written with a lease of
        `uint64(ttl.Seconds())` (pkg/registry/core/event/storage/storage.go `TTLFunc`, on create and update alike),
        which the etcd3 store reads back as an int64: truncated toward zero; 0 (under a second): no lease, events never
        expire. kube-apiserver 1.33 does not validate the flag: a negative ttl asks etcd for a negative lease, which
        its lessor raises to its minimum (storage/leases.py `MIN_LEASE_TTL`)."""
        ttl = int(seconds)
        self._content["events"].ttl = ttl
        view = self._groups.get(("events.k8s.io", "events"))
        if view is not None:
            view.ttl = ttl

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
        # a second view of a kind's storage (events.k8s.io/v1 events) is left out: its objects are the first's
        return list(self._content.values()) + [s for s in self.group_stores()
                                               if s.info.namespaced and not getattr(s, "view_of", "")]

    def resources(self) -> list[ResourceInfo]:
        return [NAMESPACES] + [s.info for s in self._content.values()] + [s.info for s in self._cluster.values()]
