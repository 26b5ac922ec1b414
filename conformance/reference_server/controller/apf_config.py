"""kube-apiserver's own keepers of the API Priority and Fairness configuration (not kube-controller-manager's: every
apiserver runs them, leader or not).

- The config producer (`pkg/registry/flowcontrol/ensurer/` and the `priority-and-fairness-config-producer`
  post-start hook of `pkg/registry/flowcontrol/rest/storage_flowcontrol.go`): every bootstrap object
  (registry/flowcontrol_bootstrap.py) that is missing is created, suggested and mandatory alike ("we always
  re-create a missing configuration object"); a mandatory object's spec is put back whenever it differs
  (`alwaysAutoUpdateSpec`; the `exempt` level's `spec.exempt` is the admin's, `plcSpecEqualish`); a suggested
  object's only while its `apf.kubernetes.io/autoupdate-spec` annotation says true (or, without a boolean there,
  while its generation is 1: `shouldUpdateSpec`), and the annotation is set to what was decided
  (`shouldUpdateAnnotation`); an object carrying `autoupdate-spec: "true"` that is no longer a bootstrap object is
  deleted (`removeDanglingBootstrapConfiguration`). Field manager `api-priority-and-fairness-config-producer-v1`.
  Upstream runs this at start and then once a minute; here it runs at start and again after every change of a
  FlowSchema or PriorityLevelConfiguration (a deleted mandatory object is back within milliseconds, not a minute).
- The config consumer's status write (`staging/src/k8s.io/apiserver/pkg/util/flowcontrol/apf_controller.go`,
  `presyncFlowSchemaStatus`): each FlowSchema's `Dangling` condition says whether its priority level exists
  (`False`/`Found` or `True`/`NotFound`, upstream's messages), written only when it changes, by a forced
  server-side apply of the manager `api-priority-and-fairness-config-consumer-v1` on `/status` (read at
  k8s.io/apiserver v0.33.1).

Both write with kube-apiserver's loopback client (`system:apiserver`), so webhooks and policies see their
CREATE/UPDATE/DELETE of flowschemas and prioritylevelconfigurations (and `flowschemas/status`) through
admission/admitted.py; a refused write ends the round, which is tried again with the queue's backoff.
"""
from __future__ import annotations

import asyncio
import copy
from typing import Any

from .. import apierrors as E
from ..admission.admitted import APISERVER_USER, AdmissionRefusal, ControllerWrites
from ..registry import DeleteOptions, Registry
from ..registry.flowcontrol_bootstrap import (AUTOUPDATE_ANNOTATION, MANDATORY_FLOW_SCHEMAS,
                                              MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS,
                                              SUGGESTED_PRIORITY_LEVELS)
from ..registry.meta import now
from .loop import Controller, WorkQueue

GROUP = "flowcontrol.apiserver.k8s.io"
PRODUCER = "api-priority-and-fairness-config-producer-v1"
CONSUMER = "api-priority-and-fairness-config-consumer-v1"
_PLURALS = {"FlowSchema": "flowschemas", "PriorityLevelConfiguration": "prioritylevelconfigurations"}
DIRECT = ControllerWrites(None, "")  # every write the plain registry call


def _parse_bool(value: Any) -> bool | None:
    """Go's `strconv.ParseBool`."""
    if value in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if value in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


def _spec_equalish(bootstrap: dict[str, Any], current: dict[str, Any]) -> bool:
    """`flowSchemaSpecEqualish` / `plcSpecEqualish` (the `exempt` level's `spec.exempt` is not compared)."""
    want, have = bootstrap.get("spec") or {}, current.get("spec") or {}
    if bootstrap["kind"] == "PriorityLevelConfiguration" and bootstrap["metadata"]["name"] == "exempt":
        if have.get("exempt") is None:
            return False
        want = {**want, "exempt": have.get("exempt")}
    return want == have


def _revise(current: dict[str, Any], bootstrap: dict[str, Any], mandatory: bool) -> dict[str, Any] | None:
    """`strategy.ReviseIfNeeded`: the object to write, or None when nothing needs to change."""
    meta = current.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    auto = mandatory or _parse_bool(annotations.get(AUTOUPDATE_ANNOTATION))
    if auto is None:
        auto = meta.get("generation") == 1
    update_annotation = _parse_bool(annotations.get(AUTOUPDATE_ANNOTATION)) != auto
    spec_changed = bool(auto) and not _spec_equalish(bootstrap, current)
    if not (update_annotation or spec_changed):
        return None
    new = copy.deepcopy(current)
    if spec_changed:
        new["spec"] = copy.deepcopy(bootstrap["spec"])
        if bootstrap["kind"] == "PriorityLevelConfiguration" and bootstrap["metadata"]["name"] == "exempt" \
                and (current.get("spec") or {}).get("exempt") is not None:
            new["spec"]["exempt"] = copy.deepcopy(current["spec"]["exempt"])
    if update_annotation:
        new["metadata"]["annotations"] = {**annotations, AUTOUPDATE_ANNOTATION: "true" if auto else "false"}
    return new


def ensure_configuration(registry: Registry, writes: ControllerWrites = DIRECT) -> None:
    """`ensure`: suggested objects, then mandatory ones, then the removal of dangling bootstrap objects."""
    for objects, mandatory in ((SUGGESTED_PRIORITY_LEVELS + SUGGESTED_FLOW_SCHEMAS, False),
                               (MANDATORY_PRIORITY_LEVELS + MANDATORY_FLOW_SCHEMAS, True)):
        for bootstrap in objects:
            _ensure_one(registry, bootstrap, mandatory, writes)
    _remove_unwanted(registry, writes)


def _ensure_one(registry: Registry, bootstrap: dict[str, Any], mandatory: bool, writes: ControllerWrites) -> None:
    """`EnsureConfiguration`: create when missing, else revise when needed (a conflict is retried next time)."""
    store = registry.group(GROUP, _PLURALS[bootstrap["kind"]])
    if store is None:
        return
    name = bootstrap["metadata"]["name"]
    try:
        current = store.get("", name)
    except E.StatusError as exc:
        if exc.code != 404:
            raise
        try:
            writes.create(store, copy.deepcopy(bootstrap), field_manager=PRODUCER)
        except E.StatusError as err:
            if err.code != 409:  # made meanwhile (another replica): next round looks again
                raise
        return
    if (current.get("metadata") or {}).get("deletionTimestamp"):
        return
    revised = _revise(current, bootstrap, mandatory)
    if revised is None:
        return
    try:
        writes.update(store, "", name, revised, field_manager=PRODUCER)
    except E.StatusError as exc:
        if exc.code not in (404, 409):
            raise


def _remove_unwanted(registry: Registry, writes: ControllerWrites) -> None:
    """`RemoveUnwantedObjects`: objects that say `autoupdate-spec: "true"` but are no bootstrap object any more."""
    wanted = {(o["kind"], o["metadata"]["name"]) for o in MANDATORY_PRIORITY_LEVELS + MANDATORY_FLOW_SCHEMAS
              + SUGGESTED_PRIORITY_LEVELS + SUGGESTED_FLOW_SCHEMAS}
    for kind, plural in _PLURALS.items():
        store = registry.group(GROUP, plural)
        if store is None:
            continue
        for obj in registry.store.list(plural, None, shared=True)[0]:
            meta = obj.get("metadata") or {}
            if (kind, meta.get("name")) in wanted:
                continue
            if _parse_bool((meta.get("annotations") or {}).get(AUTOUPDATE_ANNOTATION)) is not True:
                continue
            try:
                writes.delete(store, "", meta["name"], DeleteOptions(resource_version=meta.get("resourceVersion")))
            except E.StatusError as exc:
                if exc.code not in (404, 409):
                    raise


def dangling_condition(flow_schema: dict[str, Any], levels: set[str]) -> dict[str, str]:
    """`presyncFlowSchemaStatus`'s desired condition (without its time)."""
    pl = ((flow_schema.get("spec") or {}).get("priorityLevelConfiguration") or {}).get("name", "")
    if pl in levels:
        return {"type": "Dangling", "status": "False", "reason": "Found",
                "message": f'This FlowSchema references the PriorityLevelConfiguration object named "{pl}" and it '
                           "exists"}
    return {"type": "Dangling", "status": "True", "reason": "NotFound",
            "message": f'This FlowSchema references the PriorityLevelConfiguration object named "{pl}" but there is '
                       "no such object"}


def sync_dangling(registry: Registry, writes: ControllerWrites = DIRECT) -> None:
    """Write each FlowSchema's `Dangling` condition where it is missing or differs."""
    store = registry.group(GROUP, "flowschemas")
    if store is None:
        return
    levels = {o["metadata"]["name"] for o in registry.store.list("prioritylevelconfigurations", None, shared=True)[0]}
    for fs in registry.store.list("flowschemas", None, shared=True)[0]:
        want = dangling_condition(fs, levels)
        conditions = [c for c in (fs.get("status") or {}).get("conditions") or [] if isinstance(c, dict)]
        have = next((c for c in conditions if c.get("type") == "Dangling"), None)
        if have is not None and all(have.get(k) == v for k, v in want.items()):
            continue
        if (fs.get("metadata") or {}).get("deletionTimestamp"):
            continue
        name = fs["metadata"]["name"]
        config = {"apiVersion": f"{GROUP}/v1", "kind": "FlowSchema", "metadata": {"name": name},
                  "status": {"conditions": [{"type": "Dangling", "status": want["status"], "lastTransitionTime": now(),
                                             "reason": want["reason"], "message": want["message"]}]}}
        fm = store.field_manager
        try:  # `ApplyStatus` with Force (`apf_controller.go` `apply`)
            writes.update(store, "", name,
                          transform=lambda live, config=config: fm.apply(live, config, CONSUMER, True,
                                                                         subresource="status"),
                          strategy=store.status_strategy,  # type: ignore[attr-defined]
                          manage=lambda _live, new: new)
        except E.StatusError as exc:
            if exc.code not in (404, 409):
                raise


class ApfConfigController(Controller):
    """Both keepers on one work queue: any FlowSchema or PriorityLevelConfiguration event queues a round."""

    name = "apf config"
    client_user = APISERVER_USER

    def __init__(self, registry: Registry):
        super().__init__()
        self.registry = registry
        self._rounds: WorkQueue[str] = self._queue()

    def start(self) -> None:
        """Start watching; must be called on the server's event loop."""
        store = self.registry.store
        loop = asyncio.get_running_loop()
        for plural in _PLURALS.values():
            _, w = store.watch(plural, None, store.current_rv(), loop)
            self._follow(w, lambda _ev: self._rounds.add("sync"))
        self._rounds.add("sync")
        self._work(self._rounds, self._sync)

    async def _sync(self, key: str) -> None:
        try:
            ensure_configuration(self.registry, self.writes)
            sync_dangling(self.registry, self.writes)
        except AdmissionRefusal as exc:  # the round's error: tried again with backoff
            self.refused(self._rounds, key, exc)
            return
        self.forget(key)


__all__ = ["ApfConfigController", "CONSUMER", "PRODUCER", "dangling_condition", "ensure_configuration",
           "sync_dangling"]
