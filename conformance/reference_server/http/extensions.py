"""What CRDs and APIServices add to discovery and routing (used by `groups.py` and `aggregated.py`).

* Priorities (`/apis` order): `apiregistration` first, `apiextensions` as kube-aggregator's
  `apiVersionPriorities`, CRD groups 1000 (`crdregistration` GroupPriorityMinimum), an APIService's group its
  own `spec.groupPriorityMinimum`.
* An APIService this server cannot reach (every service-backed one) puts its group version in `/apis`
  (legacy: listed; aggregated: `freshness: Stale` without resources, as kube-aggregator's discovery manager
  after a failed fetch) and answers everything below `/apis/<group>/<version>` with kube-aggregator's
  proxy error: 503, `text/plain`, `service unavailable`.
"""
from __future__ import annotations

from typing import Any

from aiohttp import web

from ..registry import Registry
from ..registry.apiservice import group_version

# kube-aggregator lists its own group first, always ("It's good to be king", handler_apis.go); apiextensions
# as `apiVersionPriorities`.
PRIORITY = {"apiregistration.k8s.io": 1_000_000, "apiextensions.k8s.io": 16700}
CRD_GROUP_PRIORITY = 1000


def priority(registry: Registry, group: str, builtin: dict[str, int]) -> int:
    if group in builtin:
        return builtin[group]
    if group in PRIORITY:
        return PRIORITY[group]
    for a in registry.apiservices.unavailable():
        if group_version(a)[0] == group:
            return int((a.get("spec") or {}).get("groupPriorityMinimum") or 0)
    if any(s.group == group for s in registry.custom.stores()):
        return CRD_GROUP_PRIORITY
    return 0


def unavailable_groups(registry: Registry) -> dict[str, str]:
    """group → version of the unavailable aggregated APIs (a group served locally is never one)."""
    out: dict[str, str] = {}
    for a in registry.apiservices.unavailable():
        group, version = group_version(a)
        if group and version:
            out.setdefault(group, version)
    return out


def is_unavailable(registry: Registry, group: str, version: str) -> bool:
    local = {s.group for s in registry.group_stores()}  # type: ignore[attr-defined]
    return group not in local and unavailable_groups(registry).get(group) == version


def stale_resource_list(group: str, version: str) -> dict[str, Any]:
    """The placeholder `_root_resource_lists` hands to the aggregated document for an unreachable version."""
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{group}/{version}",
            "resources": [], "freshness": "Stale"}


def service_unavailable() -> web.Response:
    """kube-aggregator `proxyError(w, req, "service unavailable", 503)` (`http.Error`: text/plain)."""
    return web.Response(status=503, text="service unavailable\n", content_type="text/plain",
                        charset="utf-8", headers={"X-Content-Type-Options": "nosniff"})
