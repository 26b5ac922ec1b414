"""REST storage for a resource of a named API group (e.g. `rbac.authorization.k8s.io/v1`).

The generic store speaks core `v1`; a `GroupStore` differs only in what it stamps on objects and
lists (`apiVersion: <group>/<version>`) and in the group-qualified errors (`roles.rbac.authorization.k8s.io
"x" not found`, `Role.rbac.authorization.k8s.io "x" is invalid: ...`).
"""
from __future__ import annotations

from typing import Any

from .. import apierrors as E
from ..deviations import NONE, Deviations
from ..storage import Store
from .kinds import ResourceInfo
from .store import GenericStore, ListOptions
from .strategy import Strategy


class GroupStore(GenericStore):
    def __init__(self, info: ResourceInfo, store: Store, group: str, version: str,
                 strategy: Strategy | None = None, deviations: Deviations = NONE):
        super().__init__(info, store, strategy, deviations)
        self.group, self.version = group, version
        self.api_version = f"{group}/{version}"

    def _invalid(self, name: str, errs: list[E.FieldError]) -> E.StatusError:
        return E.invalid(self.info.kind, name, errs, group=self.group)

    def _not_found(self, name: str) -> E.StatusError:
        return E.not_found(self.info.plural, name, self.group)

    def _normalize(self, obj: dict[str, Any]) -> dict[str, Any]:
        out = super()._normalize(obj)
        out["apiVersion"] = self.api_version
        return out

    def list(self, ns: str | None, opts: ListOptions, *, shared: bool = False, pred: Any = None) -> dict[str, Any]:
        out = super().list(ns, opts, shared=shared, pred=pred)
        out["apiVersion"] = self.api_version
        return out

    def delete_collection(self, ns: str | None, list_opts: ListOptions, opts: Any, *,
                          select: Any = None) -> dict[str, Any]:
        out = super().delete_collection(ns, list_opts, opts, select=select)
        out["apiVersion"] = self.api_version
        return out
