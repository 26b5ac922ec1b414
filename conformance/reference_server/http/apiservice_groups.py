"""The legacy `/apis` (APIGroupList) and `/apis/<group>` (APIGroup) as kube-aggregator builds them: from the
APIService objects, not from what the server serves.

Upstream: `staging/src/k8s.io/kube-aggregator/pkg/apiserver/handler_apis.go` (`apisHandler`: its own group
first, then every APIService's group but the legacy one, `convertToDiscoveryAPIGroup`; `apiGroupHandler`: the
group's APIServices, or the delegate when it has none) and `pkg/apis/apiregistration/v1/helper/helpers.go`
(`SortedByGroupAndVersion`: groupPriorityMinimum descending, then the APIService's name; a group's versions by
versionPriority descending, then kube-aware version order).

So a built-in group-version whose local APIService a client deletes leaves the legacy `/apis` until the
autoregister controller would create it again (an `onstart` one: the next start), and a local APIService of a
group nothing serves is listed there. What stays (as upstream): the aggregated discovery document (built-in and
CRD group-versions are put in its resource manager by their installers, `BuiltinSource`/`CRDSource`, which no
APIService event removes: the aggregator's discovery manager never learns of a local delegate, so it adds no
local APIService), `/apis/<group>/<version>` and everything below it (the aggregator's proxy path is unregistered
and the request falls through to the delegate that still serves it), and `/apis/<group>` when the group has no
APIService left (the delegate's document).
"""
from __future__ import annotations

from typing import Any

from ..registry import Registry
from ..registry.apiservice import GROUP as AGGREGATOR_GROUP, VERSION as AGGREGATOR_VERSION
from ..registry.versions import version_priority

_memo: dict[tuple[Any, ...], dict[str, Any]] = {}


def _spec_int(apiservice: dict[str, Any], field: str) -> int:
    value = (apiservice.get("spec") or {}).get(field)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _group(apiservice: dict[str, Any]) -> str:
    return str((apiservice.get("spec") or {}).get("group") or "")


def _version(apiservice: dict[str, Any]) -> str:
    return str((apiservice.get("spec") or {}).get("version") or "")


def sorted_by_group_and_version(apiservices: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """`SortedByGroupAndVersion`: groups in the order of their first APIService by (groupPriorityMinimum
    descending, name), each group's APIServices by (versionPriority descending, kube-aware version)."""
    ordered = sorted(apiservices, key=lambda a: (-_spec_int(a, "groupPriorityMinimum"),
                                                 str((a.get("metadata") or {}).get("name") or "")))
    groups: dict[str, list[dict[str, Any]]] = {}
    for a in ordered:
        groups.setdefault(_group(a), []).append(a)
    return [sorted(members, key=lambda a: (-_spec_int(a, "versionPriority"), version_priority(_version(a)),
                                           _version(a)))
            for members in groups.values()]


def _version_entry(group: str, version: str) -> dict[str, str]:
    return {"groupVersion": f"{group}/{version}", "version": version}


def _api_group(members: list[dict[str, Any]]) -> dict[str, Any]:
    """`convertToDiscoveryAPIGroup`: the first (sorted) APIService's version is the preferred one."""
    group = _group(members[0])
    return {"name": group, "versions": [_version_entry(group, _version(a)) for a in members],
            "preferredVersion": _version_entry(group, _version(members[0]))}


def _apiservices(registry: Registry) -> tuple[list[dict[str, Any]], tuple[Any, ...]]:
    items = registry.apiservices.all()
    key = tuple(((a.get("metadata") or {}).get("name"), (a.get("metadata") or {}).get("resourceVersion"))
                for a in items)
    return items, key


def api_group_list(registry: Registry) -> dict[str, Any]:
    """`apisHandler`: `apiregistration.k8s.io` first ("It's good to be king"), then one APIGroup per APIService
    group but the legacy one. Kept per set of APIService resourceVersions (any APIService event changes it)."""
    items, key = _apiservices(registry)
    doc = _memo.get(key)
    if doc is None:
        own = _api_group([{"spec": {"group": AGGREGATOR_GROUP, "version": AGGREGATOR_VERSION}}])
        groups = [own] + [_api_group(members) for members in sorted_by_group_and_version(items)
                          if _group(members[0])]
        doc = {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
        _memo.clear()  # one document at a time: the newest set of APIServices
        _memo[key] = doc
    return doc


def listed_group_versions(registry: Registry) -> list[tuple[str, list[str]]]:
    """(group, versions) of the APIServices (but the legacy one): the aggregator's mux lists `/apis/<group>` and
    `/apis/<group>/<version>` for each it handles, so the index `/` does, served or not."""
    return [(_group(m[0]), [_version(a) for a in m]) for m in sorted_by_group_and_version(registry.apiservices.all())
            if _group(m[0])]


def api_group(registry: Registry, group: str) -> dict[str, Any] | None:
    """`apiGroupHandler`: the APIGroup of `group`'s APIServices, None when it has none (the delegate answers)."""
    members = [a for a in registry.apiservices.all() if _group(a) == group]
    if not members or not group:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_api_group(sorted_by_group_and_version(members)[0])}
