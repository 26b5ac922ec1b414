"""kube-controller-manager's clusterrole-aggregation controller
(`pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go`).

A ClusterRole with `aggregationRule.clusterRoleSelectors` gets, as its `rules`, the rules of every other
ClusterRole a selector matches: selectors in order, the matching roles of each sorted by name, a rule
already taken (deep-equal) skipped (`syncClusterRole`, `ruleExists`). Any ClusterRole event queues every
aggregating role (`enqueue`: "the set of all clusterroles is small and we don't know the dependency
graph"). The write is a forced server-side apply of `rules` by the manager
`clusterrole-aggregation-controller` (`applyClusterRoles`), skipped when the rules are already equal.
"""
from __future__ import annotations

import asyncio
from typing import Any

from .. import apierrors as E
from ..admission.admitted import AdmissionRefusal
from ..registry import Registry
from ..registry.workloads import selector_matches
from ..storage import KeyNotFoundError
from .loop import Controller, WorkQueue

GROUP = "rbac.authorization.k8s.io"
PLURAL = "clusterroles"
FIELD_MANAGER = "clusterrole-aggregation-controller"


def aggregated_rules(role: dict[str, Any], roles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`syncClusterRole`'s union: per selector, the matching roles by name (itself excluded), rules deduped."""
    rules: list[dict[str, Any]] = []
    name = (role.get("metadata") or {}).get("name")
    by_name = sorted(roles, key=lambda r: (r.get("metadata") or {}).get("name") or "")
    for selector in (role.get("aggregationRule") or {}).get("clusterRoleSelectors") or []:
        if not isinstance(selector, dict):
            continue
        for other in by_name:
            meta = other.get("metadata") or {}
            if meta.get("name") == name or not selector_matches(selector, meta.get("labels") or {}):
                continue
            for rule in other.get("rules") or []:
                if rule not in rules:
                    rules.append(rule)
    return rules


class ClusterRoleAggregation(Controller):
    name = "clusterrole aggregation"
    service_account = "clusterrole-aggregation-controller"

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry
        self._names: WorkQueue[str] = self._queue()

    def start(self) -> None:
        """Start watching; must be called on the server's event loop."""
        _, w = self.registry.store.watch(PLURAL, None, self.registry.store.current_rv(), asyncio.get_running_loop())
        self._enqueue_aggregating()
        self._follow(w, lambda _ev: self._enqueue_aggregating())
        self._work(self._names, self._sync)

    def _enqueue_aggregating(self) -> None:
        for role in self.registry.store.list(PLURAL, None, shared=True)[0]:
            if role.get("aggregationRule") is not None:
                self._names.add(role["metadata"]["name"])

    async def _sync(self, name: str) -> None:
        store = self.registry.group(GROUP, PLURAL)
        try:
            role = self.registry.store.get(PLURAL, "", name, shared=True)
        except KeyNotFoundError:
            return
        if role.get("aggregationRule") is None:
            return
        rules = aggregated_rules(role, self.registry.store.list(PLURAL, None, shared=True)[0])
        if rules == (role.get("rules") or []):  # equality.Semantic: nil and empty rules are equal
            return
        config = {"apiVersion": f"{GROUP}/v1", "kind": "ClusterRole", "metadata": {"name": name}, "rules": rules}
        fm = store.field_manager
        try:
            self.writes.update(store, "", name, transform=lambda live: fm.apply(live, config, FIELD_MANAGER, True),
                               manage=lambda _live, new: new)
        except AdmissionRefusal as exc:  # the sync's error: `AddRateLimited`
            self.refused(self._names, name, exc)
            return
        except E.StatusError as exc:
            if exc.code != 404:  # deleted meanwhile: nothing to aggregate
                raise
        self.forget(name)
