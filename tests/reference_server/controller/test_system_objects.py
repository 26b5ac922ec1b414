"""kube-apiserver's keepers of its start-up objects (controller/system_objects.py): the system namespaces controller
(every minute) and the kubernetes-service controller (every 10 s) create what is missing, a refused write is tried
again at the next round and made once the refusing policy is gone; the PriorityClasses' post-start hook polls every
second for 30 s, retrying a 503 and failing at once on any other refusal (or at the deadline), which fails the
server. Time is driven by the tests (an injected `sleep`), never waited for."""
from __future__ import annotations

import asyncio
import uuid
from typing import Any, Callable

import pytest
import requests

from conformance.reference_server import apierrors as E
from conformance.reference_server.controller import bootstrap, system_objects
from conformance.reference_server.controller.system_objects import (NAMESPACES_INTERVAL, SERVICE_INTERVAL,
                                                                    SystemObjects)
from conformance.reference_server.embedded import RunningServer
from tests.reference_server.ownserver import own_server

AR = "/apis/admissionregistration.k8s.io/v1"


class Steps:
    """An injected `sleep`: records each interval asked for and returns at once (time is the test's)."""

    def __init__(self, limit: int = 1000):
        self.asked: list[float] = []
        self.limit = limit

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        if len(self.asked) > self.limit:
            raise asyncio.CancelledError()
        await asyncio.sleep(0)


def _hook(monkeypatch: pytest.MonkeyPatch, outcomes: list[Any]) -> tuple[SystemObjects, Steps, list[str]]:
    """A SystemObjects whose PriorityClass writes answer `outcomes` in turn (an exception raised, else made)."""
    calls = iter(outcomes)

    def attempt(registry: Any, writes: Any) -> None:
        outcome = next(calls, None)
        if isinstance(outcome, BaseException):
            raise outcome

    monkeypatch.setattr(bootstrap, "create_priority_classes", attempt)
    steps, fatal = Steps(), []
    return SystemObjects(None, {}, None, sleep=steps, on_fatal=fatal.append), steps, fatal  # type: ignore[arg-type]


def _unavailable() -> E.StatusError:
    return E.StatusError(E.status_dict(503, "ServiceUnavailable", "the server is currently unable to handle the "
                                                                  "request"))


def test_the_hook_retries_a_503_each_second(monkeypatch: pytest.MonkeyPatch) -> None:
    objects, steps, fatal = _hook(monkeypatch, [_unavailable(), _unavailable(), None])
    assert asyncio.run(objects.bootstrap_priority_classes()) is True
    assert steps.asked == [1.0, 1.0, 1.0]  # wait.Poll: an interval before each try
    assert objects.hooks["scheduling/bootstrap-system-priority-classes"] == "ok" and fatal == []


def test_the_hook_fails_at_once_on_a_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    refusal = E.forbidden("priorityclasses", "system-node-critical", "not allowed", "scheduling.k8s.io")
    objects, steps, fatal = _hook(monkeypatch, [_unavailable(), refusal, None])
    assert asyncio.run(objects.bootstrap_priority_classes()) is False
    assert steps.asked == [1.0, 1.0]
    assert fatal == ['unable to add default system priority classes: priorityclasses.scheduling.k8s.io '
                     '"system-node-critical" is forbidden: not allowed']


def test_the_hook_gives_up_after_30_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    objects, steps, fatal = _hook(monkeypatch, [_unavailable()] * 100)
    assert asyncio.run(objects.bootstrap_priority_classes()) is False
    assert sum(steps.asked) == 30.0
    assert fatal == ["unable to add default system priority classes: timed out waiting for the condition"]


def test_the_controllers_run_every_minute_and_every_ten_seconds() -> None:
    rounds: list[str] = []
    steps = Steps(limit=6)
    objects = SystemObjects(None, {}, None, sleep=steps)  # type: ignore[arg-type]

    async def namespaces() -> None:
        rounds.append("namespaces")

    async def service() -> None:
        rounds.append("service")
    objects.sync_namespaces, objects.sync_service = namespaces, service  # type: ignore[method-assign]

    async def run() -> None:
        objects.start()
        await asyncio.gather(*objects._tasks, return_exceptions=True)
    asyncio.run(run())
    assert set(steps.asked) == {NAMESPACES_INTERVAL, SERVICE_INTERVAL} == {60.0, 10.0}
    assert rounds.count("namespaces") >= 2 and rounds.count("service") >= 2


server = own_server()


def _round(server: RunningServer, sync: Callable[[SystemObjects], Any]) -> None:
    """One round of a controller, run on the server's loop (the test drives time)."""
    objects = server.server.system_objects
    assert objects is not None
    asyncio.run_coroutine_threadsafe(sync(objects), server._loop).result(30)


def _refuse_service(server: RunningServer) -> list[tuple[str, str]]:
    """A ValidatingAdmissionPolicy refusing the creation of a Service named `kubernetes`."""
    name = f"no-kube-{uuid.uuid4().hex[:6]}"
    policy = {"metadata": {"name": name}, "spec": {
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                                                "resources": ["services"]}]},
        "validations": [{"expression": "object.metadata.name != 'kubernetes'", "message": "no kubernetes"}]}}
    binding = {"metadata": {"name": name}, "spec": {"policyName": name, "validationActions": ["Deny"]}}
    assert requests.post(f"{server.url}{AR}/validatingadmissionpolicies", json=policy).status_code == 201
    assert requests.post(f"{server.url}{AR}/validatingadmissionpolicybindings", json=binding).status_code == 201
    return [("validatingadmissionpolicybindings", name), ("validatingadmissionpolicies", name)]


def test_a_deleted_kubernetes_service_comes_back_once_its_refusal_is_gone(server: RunningServer) -> None:
    service = f"{server.url}/api/v1/namespaces/default/services/kubernetes"
    created = _refuse_service(server)
    try:
        assert requests.delete(service).status_code == 200
        assert requests.get(service).status_code == 404
        _round(server, SystemObjects.sync_service)
        assert requests.get(service).status_code == 404  # refused by the policy: still missing
    finally:
        for plural, name in created:
            assert requests.delete(f"{server.url}{AR}/{plural}/{name}").status_code == 200
    _round(server, SystemObjects.sync_service)  # the next round makes it
    got = requests.get(service)
    assert got.status_code == 200, got.text
    assert got.json()["spec"]["ports"][0]["name"] == "https"


def test_a_deleted_system_namespace_comes_back(server: RunningServer) -> None:
    """kube-node-lease is not immortal: deleted, the system namespaces controller's next round creates it."""
    path = f"{server.url}/api/v1/namespaces/kube-node-lease"
    assert requests.delete(path).status_code == 200
    gone = requests.get(f"{server.url}/api/v1/namespaces?fieldSelector=metadata.name%3Dkube-node-lease&watch=1"
                        "&timeoutSeconds=10", stream=True)
    try:
        for line in gone.iter_lines():
            if b'"DELETED"' in line:
                break
    finally:
        gone.close()
    assert requests.get(path).status_code == 404
    _round(server, SystemObjects.sync_namespaces)
    assert requests.get(path).json()["status"]["phase"] == "Active"


def test_module_names_upstreams_hook() -> None:
    assert system_objects.PRIORITY_CLASSES_HOOK == "scheduling/bootstrap-system-priority-classes"
