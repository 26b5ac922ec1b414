"""kube-apiserver's start-up writes, made as its post-start hooks make them: through the loopback client
(`hookContext.LoopbackClientConfig`, user `system:apiserver`), so through admission like anyone's writes:

- `start-system-namespaces-controller` (`pkg/controlplane/controller/systemnamespaces`): `kube-system`,
  `kube-public`, `kube-node-lease`;
- the `kubernetes` Service controller (`pkg/controlplane/controller/kubernetesservice`): the `default` namespace,
  then the `kubernetes` Service;
- `scheduling/bootstrap-system-priority-classes` (`pkg/registry/scheduling/rest/storage_scheduling.go`): the
  system PriorityClasses (registry/groupkinds.py `ensure_system_priority_classes`);
- `priority-and-fairness-config-producer`: controller/apf_config.py, whose controller admits its own rounds.

Without any webhook configuration or policy binding these are the plain registry calls, made while the server is
built (`bootstrap`). With some stored (an etcd restart), they wait for the server's event loop and are admitted
as the loopback client's writes (`bootstrap_admitted`, admission/admitted.py `ControllerWrites`), the `kubernetes`
Service's 10.96.0.1 reserved by an admitted IPAddress CREATE within its admission, as upstream's allocator client
writes it (admission/serviceips.py); the APF round is then left to the config controller's first sync. Each step is tried once here: a refusal is logged and the
server serves on; controller/system_objects.py's controllers try again periodically, as upstream's, and run the
priority-class hook (30 s of polling before the server gives up).
"""
from __future__ import annotations

import logging
from typing import Any, Callable

from .. import apierrors as E
from ..admission.admitted import ControllerWrites, admitted
from ..registry.groupkinds import ensure_system_priority_classes
from ..registry.servicestore import ip_taken
from ..storage import KeyNotFoundError

log = logging.getLogger("nsconform.reference_server")
INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
FIELD_MANAGER = "kube-apiserver"  # the loopback client's user agent, as managedFields name it
DIRECT = ControllerWrites(None, "")  # every write the plain registry call

def ensure(create: Callable[[], object], exists: Callable[[], bool]) -> None:
    """Create an initial object unless it exists: replicas starting together on one empty etcd all see it
    unseeded, and the ones that lose the race find it there (upstream's bootstrap controllers ensure, too).
    The loser's refusal may be a 409 or, for the `kubernetes` Service, the allocator's 422: its cluster IP is
    taken by the winner, whose IPAddress is written before its Service, so the Service itself may not be
    stored yet. That refusal is logged and left to controller/system_objects.py's periodic sync, as
    upstream's controller logs and retries it; any other refusal stops the start."""
    try:
        create()
    except E.StatusError as exc:
        if exc.code == 409 or exists():
            return
        if ip_taken(exc):
            log.warning("start-up write refused, another replica holds the address: %s", exc)
            return
        raise


def exists(registry: Any, resource: str, namespace: str, name: str) -> bool:
    try:
        registry.store.get(resource, namespace, name, shared=True)
    except KeyNotFoundError:
        return False
    return True


def seeded(registry: Any) -> bool:
    """A store that already holds the `default` namespace was seeded by an earlier start (or another replica)."""
    return exists(registry, "namespaces", "", "default")


def create_namespace(registry: Any, name: str, writes: ControllerWrites) -> None:
    store = registry.namespaces
    ensure(lambda: writes.create(store, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
                                 field_manager=FIELD_MANAGER),
           lambda: exists(registry, "namespaces", "", name))


def create_service(registry: Any, service: dict[str, Any], writes: ControllerWrites) -> None:
    store = registry.content("services")
    ensure(lambda: writes.create(store, service, field_manager=FIELD_MANAGER),
           lambda: exists(registry, "services", "default", "kubernetes"))


def create_priority_classes(registry: Any, writes: ControllerWrites) -> None:
    store = registry.group("scheduling.k8s.io", "priorityclasses")
    ensure_system_priority_classes(store, lambda obj: writes.create(store, obj, field_manager=FIELD_MANAGER))


def _steps(registry: Any, service: dict[str, Any], fresh: bool) -> list[tuple[str, Callable[[ControllerWrites], None]]]:
    steps: list[tuple[str, Callable[[ControllerWrites], None]]] = []
    if fresh:  # the namespaces and the Service once, on a store not seeded yet
        steps += [(f"namespace {name}", lambda w, name=name: create_namespace(registry, name, w))
                  for name in INITIAL_NAMESPACES]
        steps.append(("the kubernetes Service", lambda w: create_service(registry, service, w)))
    steps.append(("the system PriorityClasses", lambda w: create_priority_classes(registry, w)))  # on every start
    return steps


def bootstrap(registry: Any, service: dict[str, Any], fresh: bool, between: Callable[[], None] = lambda: None,
              writes: ControllerWrites = DIRECT) -> None:
    """The start-up writes as plain registry calls (no webhook or policy configured); `between` runs after the
    Service (what the distribution's installer applies)."""
    for what, step in _steps(registry, service, fresh):
        if what == "the system PriorityClasses":
            between()
        step(writes)


async def bootstrap_admitted(registry: Any, service: dict[str, Any], writes: ControllerWrites) -> None:
    """The namespaces and the Service through admission as `writes`' user (the loopback client's), each step
    settled by `admitted`; a refused step is logged, the next ones still made, and left to the periodic
    controllers (controller/system_objects.py, which also runs the PriorityClasses' hook)."""
    fresh = not seeded(registry)
    for what, step in _steps(registry, service, fresh):
        if what == "the system PriorityClasses":
            continue

        async def run(step: Callable[[ControllerWrites], None] = step) -> None:
            step(writes)
        try:
            await admitted(run)
        except E.StatusError as exc:
            log.warning("start-up write of %s refused: %s", what, exc)


__all__ = ["DIRECT", "FIELD_MANAGER", "INITIAL_NAMESPACES", "bootstrap", "bootstrap_admitted", "create_namespace",
           "create_priority_classes", "create_service", "ensure", "exists", "seeded"]
