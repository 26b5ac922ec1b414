"""ComponentStatuses: a read-only list computed on each request, as `pkg/registry/core/componentstatus/rest.go`.

Upstream probes the controller-manager's and scheduler's `/healthz` and each etcd server; here both run inside
this server and answer, and the store answers too, so every component is `Healthy` with message `ok` (what a
kind cluster shows). No storage, no resourceVersion, no watch; `get`/`list` only (`kubectl get cs`, with the
`v1 ComponentStatus is deprecated in v1.19+` Warning every request on it gets). An unknown name is upstream's
plain `fmt.Errorf`, which `ErrorToAPIStatus` answers as a 500 Status without a reason, message
`Component not found: <name>`.
"""
from __future__ import annotations

from typing import Any, Callable

from .. import apierrors as E
from .store import GenericStore, ListOptions

COMPONENTS = ("controller-manager", "etcd-0", "scheduler")


def component_status(name: str) -> dict[str, Any]:
    """`getComponentStatus` of a healthy component."""
    return {"kind": "ComponentStatus", "apiVersion": "v1", "metadata": {"name": name},
            "conditions": [{"type": "Healthy", "status": "True", "message": "ok"}]}


class ComponentStatusStore(GenericStore):
    """`componentstatus.REST`: `Get` and `List` only."""

    cached_reads = False  # probed on each read (`componentstatus/rest.go`), never waiting for a resourceVersion

    def get(self, ns: str, name: str, *, shared: bool = False) -> dict[str, Any]:
        if name not in COMPONENTS:
            raise E.StatusError(E.status_dict(500, None, f"Component not found: {name}"))
        return component_status(name)

    def get_rendered(self, ns: str, name: str, render: Callable[[dict[str, Any]], Any]) -> Any:
        return render(self.get(ns, name))

    def list(self, ns: str | None, opts: ListOptions, *, shared: bool = False) -> dict[str, Any]:
        """Every component, filtered by the request's label and field selectors (metadata.name)."""
        pred = self.predicate(opts)
        items = [component_status(n) for n in COMPONENTS]
        return {"kind": "ComponentStatusList", "apiVersion": "v1", "metadata": {},
                "items": [o for o in items if pred(o)]}

    def _refuse(self, verb: str) -> E.StatusError:
        return E.method_not_supported(self.info.plural, verb)

    def create(self, *a: Any, **kw: Any) -> dict[str, Any]:
        raise self._refuse("create")

    def update(self, *a: Any, **kw: Any) -> dict[str, Any]:
        raise self._refuse("update")

    def delete(self, *a: Any, **kw: Any) -> dict[str, Any]:
        raise self._refuse("delete")

    def delete_collection(self, *a: Any, **kw: Any) -> dict[str, Any]:
        raise self._refuse("deletecollection")

    def watch(self, *a: Any, **kw: Any) -> Any:
        raise self._refuse("watch")
