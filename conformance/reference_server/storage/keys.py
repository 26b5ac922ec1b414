"""Where kube-apiserver keeps each resource in etcd: `{prefix}/{root}/{namespace}/{name}` (cluster-scoped:
`{prefix}/{root}/{name}`), the root being the plural except for upstream's irregular ones
(`specialDefaultResourcePrefixes` in pkg/kubeapiserver/default_storage_factory_builder.go) and the aggregated
servers' group-qualified ones (apiextensions-apiserver: CRDs and custom resources, kube-aggregator: APIServices).

The store's resources are plurals, or `plural.group` for the kinds whose plural could clash (CRDs, APIServices,
custom resources): those live under `{group}/{plural}`."""
from __future__ import annotations

IRREGULAR = {
    "replicationcontrollers": "controllers",
    "endpoints": "services/endpoints",
    "nodes": "minions",
    "services": "services/specs",
    "ingresses": "ingress",
}
_BY_ROOT = {root: resource for resource, root in IRREGULAR.items()}
MISPLACED_NAMESPACES = "core/namespaces"
"""Where the `namespace-keys-misplaced` deviation keeps namespaces (a group-qualified root, as some
alternative storages do); read back as `namespaces`, so only the key layout is wrong."""
_BY_ROOT[MISPLACED_NAMESPACES] = "namespaces"


def key_root(resource: str) -> str:
    """`services` → `services/specs`; `widgets.example.com` → `example.com/widgets`; `configmaps` → itself."""
    if resource in IRREGULAR:
        return IRREGULAR[resource]
    plural, dot, group = resource.partition(".")
    return f"{group}/{plural}" if dot else resource


def resource_of(root: str) -> str:
    """The inverse of `key_root`."""
    if root in _BY_ROOT:
        return _BY_ROOT[root]
    group, slash, plural = root.partition("/")
    return f"{plural}.{group}" if slash and "." in group else root


def object_key(prefix: str, resource: str, namespace: str, name: str) -> str:
    root = f"{prefix}/{key_root(resource)}"
    return f"{root}/{namespace}/{name}" if namespace else f"{root}/{name}"


def collection_key(prefix: str, resource: str, namespace: str | None) -> str:
    """The prefix every key of the collection (one namespace, or all) starts with, trailing slash included."""
    root = f"{prefix}/{key_root(resource)}/"
    return f"{root}{namespace}/" if namespace else root


def parse_key(prefix: str, key: str, obj: dict) -> tuple[str, str, str] | None:
    """(resource, namespace, name) of a stored key, from the object's own namespace and name (so roots with
    slashes parse without a table); None for a key outside the layout. A namespaced object under a key without
    its namespace segment (only the `content-keys-without-namespace` deviation writes one) is read by its
    metadata, as upstream's cacher reads every object."""
    meta = obj.get("metadata") or {}
    name, namespace = meta.get("name") or "", meta.get("namespace") or ""
    tail = f"/{namespace}/{name}" if namespace else f"/{name}"
    if name and namespace and not key.endswith(tail) and key.endswith(f"/{name}"):
        tail = f"/{name}"
    if not name or not key.startswith(prefix + "/") or not key.endswith(tail):
        return None
    root = key[len(prefix) + 1:len(key) - len(tail)]
    return (resource_of(root), namespace, name) if root else None
