"""controller/autoregister.py: the local APIServices of every built-in group-version (kube-aggregator's
autoregister controller, `onstart`) and of each served CRD version (crd-autoregister, kept continuously), and the
`autoregister-completion` check (pkg/controlplane/apiserver/aggregator.go)."""
from __future__ import annotations

import asyncio

import requests

from conformance.reference_server.controller.autoregister import LABEL, AutoRegister
from conformance.reference_server.registry.store import DeleteOptions
from conformance.reference_server.server import build_context
from tests.reference_server.conftest import unique
from tests.reference_server.kubectl_run import run_kubectl
from tests.reference_server.replicas import until
from tests.reference_server.crds import create_crd
from tests.reference_server.ownserver import own_server

APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
# `kubectl get apiservices` on a kind 1.33 cluster
KIND_1_33 = ["v1.", "v1.admissionregistration.k8s.io", "v1.apiextensions.k8s.io", "v1.apps",
             "v1.authentication.k8s.io", "v1.authorization.k8s.io", "v1.autoscaling", "v1.batch",
             "v1.certificates.k8s.io", "v1.coordination.k8s.io", "v1.discovery.k8s.io", "v1.events.k8s.io",
             "v1.flowcontrol.apiserver.k8s.io", "v1.networking.k8s.io", "v1.node.k8s.io", "v1.policy",
             "v1.rbac.authorization.k8s.io", "v1.scheduling.k8s.io", "v1.storage.k8s.io", "v2.autoscaling"]


srv = own_server()  # its own: a test deletes a built-in APIService


def _names(url: str) -> list[str]:
    return [a["metadata"]["name"] for a in requests.get(url + APISERVICES).json()["items"]]


def _get(url: str, name: str) -> requests.Response:
    return requests.get(f"{url}{APISERVICES}/{name}")


def test_a_fresh_server_lists_kinds_local_apiservices_available(srv):
    assert _names(srv.url) == KIND_1_33
    core, apps = _get(srv.url, "v1.").json(), _get(srv.url, "v2.autoscaling").json()
    # kube-aggregator apiregistration/v1 types.go: `Group string json:"group,omitempty"`, so the core group's "" is
    # not written
    assert core["spec"] == {"version": "v1", "groupPriorityMinimum": 18000, "versionPriority": 1}
    assert apps["spec"] == {"group": "autoscaling", "version": "v2", "groupPriorityMinimum": 17500,
                            "versionPriority": 30}
    assert apps["metadata"]["labels"] == {LABEL: "onstart"}
    [cond] = apps["status"]["conditions"]
    assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == (
        "Available", "True", "Local", "Local APIServices are always available")
    assert {m["manager"] for m in apps["metadata"]["managedFields"]} == {"kube-apiserver"}


def test_kubectl_get_apiservices_shows_them_local(srv, tmp_path):
    out = run_kubectl(srv.url, tmp_path, "get", "apiservices").stdout.splitlines()
    assert out[0].split() == ["NAME", "SERVICE", "AVAILABLE", "AGE"]
    rows = [line.split() for line in out[1:]]
    assert [r[0] for r in rows] == KIND_1_33 and {(r[1], r[2]) for r in rows} == {("Local", "True")}


def _crd(group: str) -> dict:
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"gadgets.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": schema},
                                  {"name": "v2", "served": False, "storage": False, "schema": schema}]}}


def test_a_crds_served_versions_get_apiservices_kept_until_the_crd_goes(srv):
    group = f"{unique('ar')}.example.com"
    assert create_crd(requests, srv.url, _crd(group)).status_code == 201
    name = f"v1.{group}"
    got = until(lambda: _get(srv.url, name).json() if _get(srv.url, name).status_code == 200 else None,
                f"APIService {name}", timeout=10)
    assert got["spec"] == {"group": group, "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 100}
    assert got["metadata"]["labels"] == {LABEL: "true"}
    assert _get(srv.url, f"v2.{group}").status_code == 404  # not served: none
    # kept continuously: a changed spec is put back
    assert requests.patch(f"{srv.url}{APISERVICES}/{name}", json={"spec": {"versionPriority": 7}},
                          headers={"Content-Type": "application/merge-patch+json"}).status_code == 200
    until(lambda: _get(srv.url, name).json()["spec"]["versionPriority"] == 100, "the spec put back", timeout=10)
    assert requests.delete(f"{srv.url}{CRDS}/gadgets.{group}").status_code == 200
    until(lambda: _get(srv.url, name).status_code == 404, f"APIService {name} deleted", timeout=10)


def test_an_onstart_apiservice_is_created_once_not_again(srv):
    """Deleted after the controller's first sync, a built-in group-version's APIService stays deleted until the
    server restarts (the table's `create once`); its group is still served."""
    assert requests.delete(f"{srv.url}{APISERVICES}/v1.node.k8s.io").status_code == 200
    marker = f"v1.{unique('m')}.example.com"  # a later write the controller has certainly seen
    body = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": marker},
            "spec": {"group": marker[3:], "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10}}
    assert requests.post(srv.url + APISERVICES, json=body).status_code == 201
    until(lambda: _get(srv.url, marker).json().get("status", {}).get("conditions"), "the marker's status",
          timeout=10)
    assert _get(srv.url, "v1.node.k8s.io").status_code == 404
    assert "v1.node.k8s.io" not in _names(srv.url)
    assert requests.get(srv.url + "/apis/node.k8s.io/v1/runtimeclasses").status_code == 200
    assert requests.delete(f"{srv.url}{APISERVICES}/{marker}").status_code == 200


def test_completion_names_the_missing_apiservices_until_they_are_available():
    registry = build_context(flavor="bare").registry
    registry.apiservices.delete("", "v1.apps", DeleteOptions())  # as if a restarted server's store lacked it
    completed: list[bool] = []

    async def run() -> tuple[str | None, str | None, list[bool]]:
        controller = AutoRegister(registry, lambda: completed.append(True))
        controller.start()
        try:
            await _turns_until(lambda: _stored(registry, "v1.apps"))
            before = controller.missing()
            assert _stored(registry, "v1.apps")["metadata"]["labels"] == {LABEL: "onstart"}  # made again
            store = registry.apiservices
            store.update("", "v1.apps", transform=lambda o: {**o, "status": {"conditions": [
                {"type": "Available", "status": "True", "reason": "Local", "message": "m"}]}},
                strategy=store.status_strategy)
            await _turns_until(lambda: completed)
            return before, controller.missing(), list(completed)
        finally:
            await controller.stop()
    before, after, done = asyncio.run(run())
    assert before == "missing APIService: [v1.apps]" and after is None and done == [True]


def _stored(registry, name: str) -> dict | None:
    return next((a for a in registry.apiservices.all() if a["metadata"]["name"] == name), None)


async def _turns_until(done, turns: int = 1000) -> None:
    """Let the controller's queue, worker and watch pumps run (loop turns, no time) until `done()`."""
    for _ in range(turns):
        if done():
            return
        await asyncio.sleep(0)
    raise AssertionError("the controller did not get there")
