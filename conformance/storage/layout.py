"""Where kube-apiserver keeps an object in etcd, as the harness expects it (the harness never imports the
reference server, so this is its own small copy of the rule).

`{prefix}/{root}/{namespace}/{name}`, cluster-scoped `{prefix}/{root}/{name}`; the root is the resource's plural
except upstream's irregular ones: `specialDefaultResourcePrefixes` in kubernetes/kubernetes
pkg/kubeapiserver/default_storage_factory_builder.go."""
from __future__ import annotations

IRREGULAR_ROOTS = {
    "replicationcontrollers": "controllers",
    "endpoints": "services/endpoints",
    "nodes": "minions",
    "services": "services/specs",
    "ingresses": "ingress",
}


def normalize_prefix(prefix: str) -> str:
    """`registry/` → `/registry` (kube-apiserver's `--etcd-prefix` is joined the same way)."""
    p = prefix.strip("/")
    return "/" + p if p else ""


def root(prefix: str, resource: str) -> str:
    """`{prefix}/{root}/`: what one etcd watch or range on a whole resource (every namespace) covers."""
    return f"{normalize_prefix(prefix)}/{IRREGULAR_ROOTS.get(resource, resource)}/"


def key(prefix: str, resource: str, namespace: str | None, name: str) -> str:
    return f"{root(prefix, resource)}{namespace}/{name}" if namespace else f"{root(prefix, resource)}{name}"
