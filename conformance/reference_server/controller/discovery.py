"""What the namespace deleter discovers on every sync (`discoverResourcesFn`: `ServerPreferredNamespacedResources`).

Built-in kinds, every established CRD's resources, and the group versions that could not be discovered:
each unreachable aggregated API (a service-backed APIService) fails as client-go reports a `Stale` version of
aggregated discovery (`StaleGroupVersionError`). The deleter deletes what it found and, while any group
failed, keeps the namespace (upstream returns the `ErrGroupDiscoveryFailed` and retries).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..registry import Registry
from ..registry.apiservice import group_version


@dataclass
class Discovery:
    stores: list[Any]                                     # GenericStore of every deletable namespaced kind
    failed: dict[str, str] = field(default_factory=dict)  # "group/version" → error text


def qualified(store: Any) -> str:
    """`<resource>.<group>` as the deleter's conditions name a GroupVersionResource (core: `pods.`)."""
    return f"{store.info.plural}.{getattr(store, 'group', '')}"


def discover(registry: Registry, *, ignore_failures: bool = False) -> Discovery:
    local = {getattr(s, "group", "") for s in registry.group_stores()}
    failed: dict[str, str] = {}
    if not ignore_failures:
        for a in registry.apiservices.unavailable():
            group, version = group_version(a)
            if group and group not in local:
                gv = f"{group}/{version}"
                failed[gv] = f"stale GroupVersion discovery: {gv}"
    stores = [s for s in registry.namespaced() if "delete" in s.info.verbs or "deletecollection" in s.info.verbs]
    return Discovery(stores, failed)


def discovery_failed_message(failed: dict[str, str]) -> str:
    """`ProcessDiscoverResourcesErr` on an `ErrGroupDiscoveryFailed` (its Error() sorts "gv: err" texts)."""
    groups = ", ".join(sorted(f"{gv}: {err}" for gv, err in failed.items()))
    return (f"Discovery failed for some groups, {len(failed)} failing: "
            f"unable to retrieve the complete list of server APIs: {groups}")
