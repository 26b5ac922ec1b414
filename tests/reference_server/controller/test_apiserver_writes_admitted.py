"""kube-apiserver's post-start writes added with the identity Lease, the legacy-token-tracking ConfigMap and the
namespaced bootstrap RBAC pass the ValidatingAdmissionPolicies as its loopback client's (`system:apiserver` in
`system:masters`), as test_admission_component_writes.py checks for its other writes: a Deny policy refusing
exactly that user's write refuses it, and the write is made once the policy is unbound."""
from __future__ import annotations

import pytest

from conformance.reference_server import apierrors as E
from conformance.reference_server.admission.admitted import (
    APISERVER_USER,
    ControllerWrites,
    admitted,
)
from conformance.reference_server.controller import rbac_bootstrap
from conformance.reference_server.controller.apiserver_identity import (
    IdentityLeaseController,
    apiserver_id,
)
from conformance.reference_server.controller.legacytokentracking import (
    CONFIGMAP_NAME,
    LegacyTokenTrackingController,
)
from conformance.reference_server.deviations import Deviations
from conformance.reference_server.http.webhookcalls import webhook_admission
from conformance.reference_server.registry import Registry
from conformance.reference_server.storage import MemoryStore
from tests.reference_server.test_admission_component_writes import (
    APISERVER,
    Policy,
    run,
    wired,
)

LEASES = ("coordination.k8s.io", "leases")


@pytest.fixture
def registry() -> Registry:
    return Registry(MemoryStore())


def test_identity_lease_is_the_apiservers(registry):
    policy = Policy(registry, LEASES[0], [LEASES[1]], ["CREATE"], APISERVER).bind()

    async def go() -> None:
        c = wired(IdentityLeaseController(registry, hostname="h"), registry)

        async def once(now: float = 1_700_000_000.0) -> None:  # each heartbeat's `now`, kept across its reruns
            c.sync(now)
        with pytest.raises(E.StatusError):  # refused: the heartbeat logs it and tries again in 10 s
            await admitted(once)
        with pytest.raises(E.StatusError):
            registry.group(*LEASES).get("kube-system", apiserver_id("h"))  # type: ignore[union-attr]
        policy.unbind()
        await admitted(once)
        assert registry.group(*LEASES).get("kube-system", apiserver_id("h"))  # type: ignore[union-attr]
    run(go)


def test_legacy_token_tracking_configmap_is_the_apiservers(registry):
    policy = Policy(registry, "", ["configmaps"], ["CREATE"], APISERVER).bind()

    async def go() -> None:
        c = wired(LegacyTokenTrackingController(registry), registry)

        async def once() -> None:
            c.sync()
        with pytest.raises(E.StatusError):
            await admitted(once)
        policy.unbind()
        await admitted(once)  # the refused attempt did not consume the creation limiter's token
        assert registry.content("configmaps").get("kube-system", CONFIGMAP_NAME)  # type: ignore[union-attr]
    run(go)


def test_namespaced_bootstrap_rbac_is_the_apiservers(registry):
    from conformance.reference_server.http.authz import rbac_setup
    rbac_setup(registry, Deviations(()), None, None)
    policy = Policy(registry, "rbac.authorization.k8s.io", ["roles"], ["CREATE"], APISERVER).bind()
    roles = registry.group("rbac.authorization.k8s.io", "roles")

    async def go() -> None:
        writes = ControllerWrites(webhook_admission(registry), "", None, APISERVER_USER)
        error = await rbac_bootstrap.run_hook(registry, writes, interval=0.01, timeout=0.05)  # refused: the hook fails
        assert error == "unable to initialize roles: timed out waiting for the condition"
        with pytest.raises(E.StatusError):
            roles.get("kube-system", "extension-apiserver-authentication-reader")  # type: ignore[union-attr]
        assert registry.group("rbac.authorization.k8s.io", "rolebindings").get(  # type: ignore[union-attr]
            "kube-system", "system:controller:token-cleaner")  # the other objects were made meanwhile
        policy.unbind()
        assert await rbac_bootstrap.run_hook(registry, writes, interval=0.01, timeout=0.05) is None
        assert roles.get("kube-system", "extension-apiserver-authentication-reader")  # type: ignore[union-attr]
    run(go)
