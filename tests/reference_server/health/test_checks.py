"""health/checks.py: a 1.33 kube-apiserver's checks per endpoint, in its order, over the server's start-up steps."""
from __future__ import annotations

import asyncio

from conformance.reference_server.health import HealthChecks, HealthState, answer
from conformance.reference_server.health import checks as C

# `kubectl get --raw='/readyz?verbose'` on a 1.33 cluster (kind's kube-apiserver flags: a proxy client certificate,
# MultiCIDRServiceAllocator on by default)
READYZ_1_33 = """[+]ping ok
[+]log ok
[+]etcd ok
[+]etcd-readiness ok
[+]informer-sync ok
[+]poststarthook/start-apiserver-admission-initializer ok
[+]poststarthook/generic-apiserver-start-informers ok
[+]poststarthook/priority-and-fairness-config-consumer ok
[+]poststarthook/priority-and-fairness-filter ok
[+]poststarthook/storage-object-count-tracker-hook ok
[+]poststarthook/start-apiextensions-informers ok
[+]poststarthook/start-apiextensions-controllers ok
[+]poststarthook/crd-informer-synced ok
[+]poststarthook/start-system-namespaces-controller ok
[+]poststarthook/start-cluster-authentication-info-controller ok
[+]poststarthook/start-kube-apiserver-identity-lease-controller ok
[+]poststarthook/start-kube-apiserver-identity-lease-garbage-collector ok
[+]poststarthook/start-legacy-token-tracking-controller ok
[+]poststarthook/start-service-ip-repair-controllers ok
[+]poststarthook/rbac/bootstrap-roles ok
[+]poststarthook/scheduling/bootstrap-system-priority-classes ok
[+]poststarthook/priority-and-fairness-config-producer ok
[+]poststarthook/bootstrap-controller ok
[+]poststarthook/start-kubernetes-service-cidr-controller ok
[+]poststarthook/aggregator-reload-proxy-client-cert ok
[+]poststarthook/start-kube-aggregator-informers ok
[+]poststarthook/apiservice-status-local-available-controller ok
[+]poststarthook/apiservice-status-remote-available-controller ok
[+]poststarthook/apiservice-registration-controller ok
[+]poststarthook/apiservice-discovery-controller ok
[+]poststarthook/kube-apiserver-autoregistration ok
[+]autoregister-completion ok
[+]poststarthook/apiservice-openapi-controller ok
[+]poststarthook/apiservice-openapiv3-controller ok
[+]shutdown ok
readyz check passed
"""
READINESS_ONLY = {"etcd-readiness", "informer-sync", "shutdown"}


def _started() -> HealthState:
    state = HealthState()
    state.steps.done(*C.DONE_WHEN_LISTENING, *C.OWN_STEPS, C.AUTOREGISTER, C.INFORMER_SYNC)
    return state


def _get(state: HealthState, path: str, **query: list[str]):
    return asyncio.run(answer(HealthChecks(state), path, query))


def test_readyz_lists_1_33_checks_in_order() -> None:
    assert _get(_started(), "/readyz", verbose=[""]).body == READYZ_1_33


def test_healthz_and_livez_have_the_same_checks_without_the_readiness_ones() -> None:
    expected = "".join(line + "\n" for line in READYZ_1_33.splitlines()[:-1]
                       if line[3:-3] not in READINESS_ONLY)
    for endpoint in ("healthz", "livez"):
        assert _get(_started(), f"/{endpoint}", verbose=[""]).body == expected + f"{endpoint} check passed\n"


def test_a_pending_hook_fails_every_endpoint_until_it_is_done() -> None:
    state = _started()
    state.steps = type(state.steps)()
    state.steps.done(*(s for s in (*C.DONE_WHEN_LISTENING, *C.OWN_STEPS, C.AUTOREGISTER, C.INFORMER_SYNC)
                       if s != C.PRIORITY_CLASSES_HOOK))
    for endpoint in ("healthz", "livez", "readyz"):
        got = _get(state, f"/{endpoint}")
        assert got.status == 500
        assert "[-]poststarthook/scheduling/bootstrap-system-priority-classes failed: reason withheld\n" in got.body
        assert got.body.endswith(f"{endpoint} check failed\n")
    one = _get(state, "/readyz/poststarthook/scheduling/bootstrap-system-priority-classes")
    assert (one.status, one.body) == (500, "internal server error: not finished\n")
    state.steps.fail(C.PRIORITY_CLASSES_HOOK, "unable to add default system priority classes: refused")
    assert _get(state, "/readyz").status == 500  # a failed hook never finishes (upstream exits)
    state.steps.done(C.PRIORITY_CLASSES_HOOK)
    assert (_get(state, "/readyz").status, _get(state, "/readyz").body) == (200, "ok")


def test_informer_sync_is_readyz_only() -> None:
    state = _started()
    state.steps = type(state.steps)()
    state.steps.done(*C.DONE_WHEN_LISTENING, *C.OWN_STEPS, C.AUTOREGISTER)
    assert _get(state, "/livez").body == "ok"
    got = _get(state, "/readyz/informer-sync")
    assert (got.status, got.body) == (500, "internal server error: informers not started yet\n")


def test_shutdown_fails_readyz_only() -> None:
    state = _started()
    state.shutting_down = True
    got = _get(state, "/readyz", verbose=[""])
    assert got.status == 500
    assert got.body.endswith("[+]poststarthook/apiservice-openapiv3-controller ok\n"
                             "[-]shutdown failed: reason withheld\nreadyz check failed\n")
    assert _get(state, "/readyz/shutdown").body == "internal server error: process is shutting down\n"
    assert _get(state, "/livez").body == _get(state, "/healthz").body == "ok"


def test_the_store_probes_decide_etcd_and_etcd_readiness() -> None:
    state = _started()

    async def down() -> str | None:
        return "error getting data from etcd: connection refused"
    state.ready_probe = down
    got = _get(state, "/readyz", exclude=["etcd"])
    assert got.status == 500 and "[+]etcd excluded: ok\n[-]etcd-readiness failed: reason withheld\n" in got.body
    assert _get(state, "/livez").status == 200
    state.store_probe = down
    assert _get(state, "/livez/etcd").body == "internal server error: error getting data from etcd: " \
                                              "connection refused\n"


def test_paths_are_each_endpoint_and_its_checks() -> None:
    paths = HealthChecks(HealthState()).paths()
    assert {"/readyz", "/readyz/shutdown", "/readyz/etcd-readiness", "/livez/poststarthook/rbac/bootstrap-roles",
            "/healthz/autoregister-completion"} <= set(paths)
    assert "/livez/shutdown" not in paths and "/healthz/informer-sync" not in paths
    assert len(paths) == 3 + 32 + 32 + 35  # the roots, healthz's and livez's 32 checks, readyz's 35
