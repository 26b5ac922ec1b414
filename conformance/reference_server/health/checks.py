"""The checks of a 1.33 kube-apiserver's `/healthz`, `/livez` and `/readyz`, in its order.

Where the order comes from (k8s.io/apiserver v0.33.1 `pkg/server/config.go` `New`, `healthz.go`, `hooks.go`):
the aggregator (kube-aggregator `pkg/apiserver/apiserver.go`) is the outermost server; its registries start with
the config's `ping`, `log` (`defaultHealthChecks`), `etcd` (`options/etcd.go` `addEtcdHealthEndpoint`: all three)
and `etcd-readiness` (readyz only), then `informer-sync` (readyz only, `NewInformerSyncHealthz`), then the
delegate's (kube-apiserver's, itself holding apiextensions-apiserver's) health checks, each post-start hook as
`poststarthook/<name>` in the order the servers added them, then the aggregator's own hooks, its
`autoregister-completion` (`AddBootSequenceHealthChecks`), the OpenAPI controllers' hooks (added in its
`PrepareRun`) and finally `shutdown` (readyz only, `addReadyzShutdownCheck`). `kms-providers` exists only with
`--encryption-provider-config` (never here). The hook names and this order are those a 1.33 cluster answers to
`kubectl get --raw='/readyz?verbose'` (MultiCIDRServiceAllocator on: `start-kubernetes-service-cidr-controller`;
a proxy client certificate configured, as kind does: `aggregator-reload-proxy-client-cert`).

Which of our start-up steps stands for which hook (health/state.py `StartupSteps`, marked by server.py):
`scheduling/bootstrap-system-priority-classes` is the PriorityClasses' own hook (controller/system_objects.py:
pending while it polls, `not finished` for good once it failed); `start-system-namespaces-controller` and
`bootstrap-controller` finish when kube-apiserver's own controllers start (`SystemObjects.start`);
`rbac/bootstrap-roles` when the bootstrap policy's reconciliation has succeeded (controller/rbac_bootstrap.py;
failed for good after 30 s of failing rounds);
`priority-and-fairness-config-producer` when the APF config producer starts; `informer-sync` when the server's
own informers run (every replica's, not the leader-elected controllers'); `autoregister-completion` once every
built-in group-version's APIService has been seen Available (controller/autoregister.py; a fresh store's are
written Available at start); every other hook when the server listens (their work is done by `build_context`, or there is no
counterpart to wait for). `etcd` and `etcd-readiness` probe the store (health/etcdprobe.py; the memory store:
healthy); `shutdown` fails once the server is stopping.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Awaitable, Callable

from ..controller.rbac_bootstrap import HOOK as RBAC_BOOTSTRAP_HOOK
from ..controller.system_objects import PRIORITY_CLASSES_HOOK
from .state import NOT_FINISHED, HealthState

ENDPOINTS = ("healthz", "livez", "readyz")

SYSTEM_NAMESPACES_HOOK = "start-system-namespaces-controller"
BOOTSTRAP_CONTROLLER_HOOK = "bootstrap-controller"
APF_PRODUCER_HOOK = "priority-and-fairness-config-producer"
INFORMER_SYNC = "informer-sync"
AUTOREGISTER = "autoregister-completion"

# the post-start hooks before `autoregister-completion`, in the order the three servers add them
HOOKS = (
    "start-apiserver-admission-initializer",  # options/admission.go (kube-apiserver's config)
    "generic-apiserver-start-informers",      # config.go New (apiextensions-apiserver, the innermost, first)
    "priority-and-fairness-config-consumer",
    "priority-and-fairness-filter",
    "storage-object-count-tracker-hook",
    "start-apiextensions-informers",          # apiextensions-apiserver pkg/apiserver/apiserver.go
    "start-apiextensions-controllers",
    "crd-informer-synced",
    SYSTEM_NAMESPACES_HOOK,                   # pkg/controlplane/apiserver/server.go
    "start-cluster-authentication-info-controller",
    "start-kube-apiserver-identity-lease-controller",
    "start-kube-apiserver-identity-lease-garbage-collector",
    "start-legacy-token-tracking-controller",
    "start-service-ip-repair-controllers",    # pkg/controlplane/instance.go: the REST storage providers' hooks
    RBAC_BOOTSTRAP_HOOK,                      # controller/rbac_bootstrap.py
    PRIORITY_CLASSES_HOOK,
    APF_PRODUCER_HOOK,
    BOOTSTRAP_CONTROLLER_HOOK,
    "start-kubernetes-service-cidr-controller",
    "aggregator-reload-proxy-client-cert",    # kube-aggregator pkg/apiserver/apiserver.go
    "start-kube-aggregator-informers",
    "apiservice-status-local-available-controller",
    "apiservice-status-remote-available-controller",
    "apiservice-registration-controller",
    "apiservice-discovery-controller",
    "kube-apiserver-autoregistration",        # cmd/kube-apiserver/app/aggregator.go
)
LATE_HOOKS = ("apiservice-openapi-controller", "apiservice-openapiv3-controller")  # the aggregator's PrepareRun
OWN_STEPS = frozenset({PRIORITY_CLASSES_HOOK, SYSTEM_NAMESPACES_HOOK, BOOTSTRAP_CONTROLLER_HOOK, APF_PRODUCER_HOOK,
                       RBAC_BOOTSTRAP_HOOK})
# what is done as soon as the server listens (server.py marks them at once)
DONE_WHEN_LISTENING = tuple(h for h in HOOKS + LATE_HOOKS if h not in OWN_STEPS)

CheckFn = Callable[[], Awaitable["str | None"]]


@dataclass(frozen=True)
class Check:
    """A named check: `run` answers None when it passes, else its error."""

    name: str
    run: CheckFn


class HealthChecks:
    """The three endpoints' checks over one server's `HealthState` (built once; each check reads it live)."""

    def __init__(self, state: HealthState):
        self.state = state
        ping, log_ = Check("ping", _ok), Check("log", _ok)  # healthz.go PingHealthz, LogHealthz (klog flushes)
        etcd = Check("etcd", lambda: state.store_probe())
        hooks = [self._hook(h) for h in HOOKS]
        late = [self._hook(h) for h in LATE_HOOKS]
        autoregister = Check(AUTOREGISTER, self._autoregister)
        common = [ping, log_, etcd]
        tail = [*hooks, autoregister, *late]
        self.by_endpoint: dict[str, tuple[Check, ...]] = {
            "healthz": (*common, *tail),
            "livez": (*common, *tail),  # --livez-grace-period 0: no delay before a hook may fail livez
            "readyz": (*common, Check("etcd-readiness", lambda: state.ready_probe()),
                       Check(INFORMER_SYNC, self._step(INFORMER_SYNC, "informers not started yet")),
                       *tail, Check("shutdown", self._shutdown)),
        }
        self._named = {e: {c.name: c for c in checks} for e, checks in self.by_endpoint.items()}

    def checks(self, endpoint: str) -> tuple[Check, ...]:
        return self.by_endpoint[endpoint]

    def check(self, endpoint: str, name: str) -> Check | None:
        """The check installed at `/<endpoint>/<name>`, None for a path no check has (404)."""
        return self._named[endpoint].get(name)

    def paths(self) -> list[str]:
        """Every path the three endpoints install (`InstallPathHandler`: the root and one per check)."""
        return [p for e in ENDPOINTS for p in (f"/{e}", *(f"/{e}/{c.name}" for c in self.by_endpoint[e]))]

    async def _autoregister(self) -> str | None:
        """`makeAPIServiceAvailableHealthCheck`: each built-in APIService seen Available once."""
        return None if self.state.steps.is_done(AUTOREGISTER) else self.state.autoregister_missing()

    def _hook(self, hook: str) -> Check:
        return Check("poststarthook/" + hook, self._step(hook, NOT_FINISHED))

    def _step(self, step: str, error: str) -> CheckFn:
        state = self.state

        async def run() -> str | None:
            return None if state.steps.is_done(step) else error
        return run

    async def _shutdown(self) -> str | None:
        return "process is shutting down" if self.state.shutting_down else None


async def _ok() -> str | None:
    return None


__all__ = ["APF_PRODUCER_HOOK", "AUTOREGISTER", "BOOTSTRAP_CONTROLLER_HOOK", "Check", "DONE_WHEN_LISTENING",
           "ENDPOINTS", "HOOKS", "HealthChecks", "INFORMER_SYNC", "LATE_HOOKS", "PRIORITY_CLASSES_HOOK",
           "SYSTEM_NAMESPACES_HOOK"]
