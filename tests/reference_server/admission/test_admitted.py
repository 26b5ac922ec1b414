"""admission/admitted.py's controller writes in isolation: without webhooks (or none selecting it) a write is the
registry call itself; with them a write stops its sync with `Pending`, the settled verdict is used once, a
webhook's refusal is an `AdmissionRefusal` while the registry's own answer met in the preview stays the plain error
it would have been."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.reference_server import apierrors as E
from conformance.reference_server.admission.admitted import (
    AdmissionRefusal,
    ControllerWrites,
    Pending,
    admitted,
    controller_user,
)


class FakeStore:
    info = SimpleNamespace(plural="configmaps", namespaced=True, kind="ConfigMap")
    group = ""

    def __init__(self, preview_error: E.StatusError | None = None):
        self.created: list[dict[str, Any]] = []
        self.preview_error = preview_error
        self.strategy = SimpleNamespace(default=lambda obj: None)

    def create(self, obj: dict[str, Any], dry_run: bool = False, **kw: Any) -> dict[str, Any]:
        if dry_run:
            if self.preview_error is not None:
                raise self.preview_error
            return obj
        self.created.append(obj)
        return obj


class FakeHooks:
    def __init__(self, active: bool = True, deny: bool = False, selects: bool = True):
        self._active, self.deny, self.selects, self.calls = active, deny, selects, 0

    def active(self) -> bool:
        return self._active

    def relevant(self, a: Any, obj: Any, old: Any) -> bool:
        assert a.operation == "CREATE" and a.resource == "configmaps" and a.namespace == "ns" and a.name == "x"
        return self.selects

    async def mutate(self, a: Any, obj: Any, old: Any, user: Any, *rest: Any) -> Any:
        self.calls += 1
        self.user = user
        return obj

    async def validate(self, a: Any, obj: Any, old: Any, user: Any, dry_run: Any, opts: Any, warnings: Any,
                       preview: Any = None) -> None:
        if preview is not None:
            await preview()
        if self.deny:
            raise E.forbidden("configmaps", "x", "denied")


CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "ns"}}


def test_without_webhooks_the_write_is_direct():
    store = FakeStore()
    assert ControllerWrites(None, "replicaset-controller").create(store, dict(CM)) == CM
    assert ControllerWrites(FakeHooks(active=False), "replicaset-controller").create(store, dict(CM)) == CM
    hooks = FakeHooks(selects=False)  # configured, but nothing selects this write: no round through the loop
    assert ControllerWrites(hooks, "replicaset-controller").create(store, dict(CM)) == CM
    assert len(store.created) == 3 and hooks.calls == 0


def test_pending_then_the_verdict_once():
    store, hooks = FakeStore(), FakeHooks()
    writes = ControllerWrites(hooks, "root-ca-cert-publisher")
    with pytest.raises(Pending) as p:
        writes.create(store, dict(CM))
    asyncio.run(p.value.settle())
    assert hooks.user == controller_user("root-ca-cert-publisher")
    assert hooks.user.name == "system:serviceaccount:kube-system:root-ca-cert-publisher"
    assert writes.create(store, dict(CM)) == CM and len(store.created) == 1
    with pytest.raises(Pending):  # a verdict serves one write
        writes.create(store, dict(CM))


def test_admitted_settles_and_calls_again():
    store, hooks = FakeStore(), FakeHooks()
    writes = ControllerWrites(hooks, "x")

    async def sync() -> dict[str, Any]:
        return writes.create(store, dict(CM))
    assert asyncio.run(admitted(sync)) == CM
    assert hooks.calls == 1 and len(store.created) == 1


def test_a_webhook_refusal_is_an_admission_refusal_and_the_registrys_error_is_not():
    writes = ControllerWrites(FakeHooks(deny=True), "x")
    with pytest.raises(Pending) as p:
        writes.create(FakeStore(), dict(CM))
    asyncio.run(p.value.settle())
    with pytest.raises(AdmissionRefusal):
        writes.create(FakeStore(), dict(CM))
    taken = E.already_exists("configmaps", "x")
    writes = ControllerWrites(FakeHooks(), "x")
    store = FakeStore(preview_error=taken)
    with pytest.raises(Pending) as p:
        writes.create(store, dict(CM))
    asyncio.run(p.value.settle())
    with pytest.raises(E.StatusError) as err:
        writes.create(store, dict(CM))
    assert not isinstance(err.value, AdmissionRefusal) and err.value.code == 409


def test_a_refusal_answers_every_rerun_of_the_sync_and_goes_with_it():
    """Within one `admitted` call a refused write stays refused (the sync goes on to its other writes, as upstream's
    returns at its error), and the verdicts are dropped when the call ends."""
    hooks = FakeHooks(deny=True)
    writes = ControllerWrites(hooks, "x")
    store, refusals = FakeStore(), []

    async def sync() -> None:
        try:
            writes.create(store, dict(CM))
        except AdmissionRefusal as exc:
            refusals.append(exc)
        if len(refusals) < 3:
            raise Pending(_nothing, lambda keys: None)  # another write of the sync waits: the sync runs again

    async def _nothing() -> list[str]:
        return []
    asyncio.run(admitted(sync))
    assert len(refusals) == 3 and hooks.calls == 1
    assert writes._verdicts == {}
