"""The local APIServices every kube-apiserver registers: one per built-in group-version it serves (kept once, at
start) and one per served version of a CRD's group (kept continuously), labelled
`kube-aggregator.kubernetes.io/automanaged: onstart` or `true`; `kubectl get apiservices` lists them as `Local`.

Upstream:
* `staging/src/k8s.io/kube-aggregator/pkg/controllers/autoregister/autoregister_controller.go`: `checkAPIService`'s
  table (create the missing, update a managed one whose spec differs, delete a managed one no longer wanted; an
  `onstart` one only at its first sync, and only if it existed when the controller started), the label;
* `pkg/controlplane/apiserver/aggregator.go`: `apiServicesToRegister` (the served `ListedPaths` with a priority,
  `makeAPIService`) and `makeAPIServiceAvailableHealthCheck`, the `autoregister-completion` check: healthy once
  each of them has been seen `Available` (`missing APIService: [...]` until then);
* `pkg/controlplane/controller/crdregistration/crdregistration_controller.go`: a CRD's served version whose
  group-version is not built in, at priority 1000/100.
Its writes are kube-apiserver's loopback client's (`system:apiserver`, manager `kube-apiserver`), through the
webhooks and policies (admission/admitted.py); the `Available` condition is written by controller/apiservices.py.
"""
from __future__ import annotations

import asyncio
import copy
from typing import Any, Callable

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER, AdmissionRefusal
from ..registry import Registry
from ..registry.apipriority import CRD_PRIORITY, PRIORITIES
from ..registry.apiservice import KEY
from ..registry.crd import CRD_KEY
from ..registry.store import DeleteOptions
from ..storage import KeyExistsError, KeyNotFoundError
from .loop import Controller

LABEL = "kube-aggregator.kubernetes.io/automanaged"
ON_START, CONTINUOUSLY = "onstart", "true"
FIELD_MANAGER = "kube-apiserver"
# served by kube-apiserver's handlers rather than a store, on every server
ALWAYS_SERVED = frozenset({("", "v1"), ("authentication.k8s.io", "v1"), ("authorization.k8s.io", "v1")})


def _apiservice(group: str, version: str, priority: tuple[int, int], managed: str) -> dict[str, Any]:
    return {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
            "metadata": {"name": f"{version}.{group}", "labels": {LABEL: managed}},
            "spec": {"group": group, "version": version, "groupPriorityMinimum": priority[0],
                     "versionPriority": priority[1]}}


def builtin_apiservices(registry: Registry) -> dict[str, dict[str, Any]]:
    """`apiServicesToRegister`: the served built-in group-versions that have a priority, by APIService name."""
    served = registry.builtin_group_versions() | ALWAYS_SERVED
    return {a["metadata"]["name"]: a for a in
            (_apiservice(g, v, PRIORITIES[(g, v)], ON_START) for g, v in sorted(served) if (g, v) in PRIORITIES)}


def crd_apiservices(crds: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """`handleVersionUpdate`: a served version of a CRD's group, unless the group-version is built in."""
    out: dict[str, dict[str, Any]] = {}
    for crd in crds:
        spec = crd.get("spec") or {}
        group = spec.get("group") or ""
        for v in spec.get("versions") or []:
            version = v.get("name") or ""
            if v.get("served") and group and version and (group, version) not in PRIORITIES:
                out.setdefault(f"{version}.{group}", _apiservice(group, version, CRD_PRIORITY, CONTINUOUSLY))
    return out


def _managed(apiservice: dict[str, Any] | None) -> str:
    return ((apiservice or {}).get("metadata") or {}).get("labels", {}).get(LABEL) or ""


def _available(apiservice: dict[str, Any]) -> bool:
    return any(c.get("type") == "Available" and c.get("status") == "True"
               for c in (apiservice.get("status") or {}).get("conditions") or [])


class AutoRegister(Controller):
    """The autoregister and crd-autoregister controllers; `pending` feeds the `autoregister-completion` check."""

    name = "autoregister"
    client_user = APISERVER_USER

    def __init__(self, registry: Registry, on_complete: Callable[[], None] = lambda: None):
        super().__init__()
        self.registry, self._on_complete = registry, on_complete
        self._names = self._queue()
        self._desired: dict[str, dict[str, Any]] = {}
        self._from_crds: set[str] = set()
        self._at_start: set[str] = set()
        self._synced: set[str] = set()
        self.pending: set[str] = set()

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._desired = builtin_apiservices(self.registry)
        self.pending = set(self._desired)
        backlog, apiservices = self.registry.store.watch(KEY, None, 0, loop)
        self._at_start = {ev.name for ev in backlog}
        for ev in backlog:  # (the informer's adds: a managed APIService no longer wanted is deleted)
            self._seen(ev.object)
            self._names.add(ev.name)
        self._follow(apiservices, self._on_apiservice)
        _, crd_watch = self.registry.store.watch(CRD_KEY, None, self.registry.store.current_rv(), loop)
        self._follow(crd_watch, lambda ev: self._crds_changed())
        self._crds_changed()
        for name in self._desired:
            self._names.add(name)
        self._check_complete()
        self._work(self._names, self._sync)

    def missing(self) -> str | None:
        """The `autoregister-completion` check's error, None once every built-in APIService was seen Available."""
        return f"missing APIService: [{' '.join(sorted(self.pending))}]" if self.pending else None

    def _on_apiservice(self, ev: Any) -> None:
        if ev.type != "DELETED":
            self._seen(ev.object)
        self._names.add(ev.name)

    def _seen(self, apiservice: dict[str, Any]) -> None:
        name = (apiservice.get("metadata") or {}).get("name")
        if name in self.pending and _available(apiservice):
            self.pending.discard(name)
            self._check_complete()

    def _check_complete(self) -> None:
        if not self.pending:
            self._on_complete()

    def _crds_changed(self) -> None:
        wanted = crd_apiservices(self.registry.store.list(CRD_KEY, None, shared=True)[0])
        wanted = {n: a for n, a in wanted.items() if _managed(self._desired.get(n)) != ON_START}
        for name in self._from_crds - set(wanted):
            self._desired.pop(name, None)
            self._names.add(name)
        for name, a in wanted.items():
            if self._desired.get(name) != a:
                self._desired[name] = a
                self._names.add(name)
        self._from_crds = set(wanted)

    async def _sync(self, name: str) -> None:
        try:
            self._check(name)
        except AdmissionRefusal as exc:
            self.refused(self._names, name, exc)
            return
        except E.StatusError as exc:  # gone or changed meanwhile: its own event queues it again
            if exc.code not in (404, 409):
                raise
            return
        self._synced.add(name)
        self.forget(name)

    def _check(self, name: str) -> None:
        """`checkAPIService`."""
        desired = self._desired.get(name)
        try:
            current: dict[str, Any] | None = self.registry.store.get(KEY, "", name, shared=True)
        except KeyNotFoundError:
            current = None
        synced = name in self._synced
        if current is None and desired is None:
            return
        if _managed(desired) == ON_START and synced:
            return
        store = self.registry.apiservices
        if current is None:
            self.writes.create(store, copy.deepcopy(desired), field_manager=FIELD_MANAGER)
            return
        managed = _managed(current)
        if managed not in (ON_START, CONTINUOUSLY):
            return
        if managed == ON_START and (name not in self._at_start or synced):
            return
        if desired is None:
            self.writes.delete(store, "", name, DeleteOptions())
            return
        if current.get("spec") == desired["spec"]:
            return
        body = copy.deepcopy(current)
        body["spec"] = copy.deepcopy(desired["spec"])
        self.writes.update(store, "", name, body, field_manager=FIELD_MANAGER)



def _write_available(registry: Registry, apiservices: dict[str, dict[str, Any]]) -> None:
    """Create each APIService and write the `Available` condition the local-availability controller gives it."""
    from ..registry.apiservice import availability
    store = registry.apiservices
    for name, apiservice in apiservices.items():
        store.create(copy.deepcopy(apiservice), field_manager=FIELD_MANAGER)
        state, reason, message = availability(apiservice, lambda ns, n: None)

        def available(obj: dict[str, Any], state: str = state, reason: str = reason,
                      message: str = message) -> dict[str, Any]:
            return {**obj, "status": {"conditions": [{"type": "Available", "status": state, "lastTransitionTime": "",
                                                      "reason": reason, "message": message}]}}
        store.update("", name, transform=available, strategy=store.status_strategy, field_manager=FIELD_MANAGER)


# the built-in APIServices as their create and status write store them, per deviations and set of names
_TEMPLATES: dict[tuple[frozenset[str], tuple[str, ...]], list[dict[str, Any]]] = {}


def _templates(registry: Registry, apiservices: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    key = (registry.deviations.names, tuple(apiservices))
    cached = _TEMPLATES.get(key)
    if cached is None:
        from ..storage import MemoryStore
        scratch = Registry(MemoryStore(), registry.deviations)
        _write_available(scratch, apiservices)
        cached = _TEMPLATES[key] = [scratch.apiservices.get("", name) for name in apiservices]
    return cached


def seed(registry: Registry) -> None:
    """A fresh store's built-in APIServices, written at once with the `Available` condition the local-availability
    controller gives them (as the server's other start-up objects are), so the server is ready when it listens:
    each made once per process through the store's create and status paths, then stamped with a new uid and the
    current time."""
    from ..registry.meta import new_uid, now
    stamp = now()
    items = []
    for template in _templates(registry, builtin_apiservices(registry)):
        meta = {**template["metadata"], "uid": new_uid(), "resourceVersion": "", "creationTimestamp": stamp,
                "managedFields": [{**entry, "time": stamp} for entry in template["metadata"]["managedFields"]]}
        status = {"conditions": [{**c, "lastTransitionTime": stamp} for c in template["status"]["conditions"]]}
        items.append((KEY, "", meta["name"], {**template, "metadata": meta, "status": status}))
    for result in registry.store.create_many(items):
        if isinstance(result, Exception) and not isinstance(result, KeyExistsError):
            raise result
