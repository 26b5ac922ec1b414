"""Which kinds a PUT may create (`rest.RESTUpdateStrategy.AllowCreateOnUpdate`): upstream's generic
`Store.Update` (`staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go`) creates a missing object
only when the kind's strategy allows it; every other kind answers 404 NotFound.

True upstream (each strategy.go under pkg/registry/): coordination/lease, core/endpoint, core/event (events.k8s.io
Events: the same strategy), core/limitrange, rbac/role, rbac/clusterrole, rbac/rolebinding,
rbac/clusterrolebinding, core/service. A Service created by a PUT is allocated its cluster IPs and node ports as a
POST's would be: upstream's `Store.Update` runs the create path's `BeginCreate` hook
(pkg/registry/core/service/storage/storage.go `beginCreate`: `normalizeClusterIPs`, `alloc.allocateCreate`), and
here the same create runs (`store.create`, the Service strategy's defaults, validation and allocation)."""
from __future__ import annotations

from typing import Any

RBAC = "rbac.authorization.k8s.io"
CREATE_ON_UPDATE = frozenset({
    ("coordination.k8s.io", "leases"), ("", "endpoints"), ("", "events"), ("events.k8s.io", "events"),
    ("", "limitranges"), ("", "services"),
    (RBAC, "roles"), (RBAC, "clusterroles"), (RBAC, "rolebindings"), (RBAC, "clusterrolebindings"),
})


def allows_create_on_update(store: Any) -> bool:
    """`AllowCreateOnUpdate()` of the store's kind (a subresource never creates)."""
    return (getattr(store, "group", "") or "", store.info.plural) in CREATE_ON_UPDATE


__all__ = ["CREATE_ON_UPDATE", "allows_create_on_update"]
