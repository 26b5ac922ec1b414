"""`nsconform diagnose` checked against kubectl 1.33's own view of the same reference server.

What diagnose calls an unavailable APIService must be what `kubectl get apiservices` shows as not available
(same names, `False (<reason>)` in the AVAILABLE column, the same SERVICE); the kinds diagnose finds left in a
terminating namespace must be kinds `kubectl api-resources --namespaced=true --verbs=list` lists, and
`kubectl get <plural>.<group> -n <ns>` must show the same objects. kubectl comes from
`tests.tools.kubectl.get_kubectl()` (skips with the reason when it cannot be fetched) and runs with an empty
HOME and the server's own kubeconfig.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from conformance.client.api import KubeClient
from conformance.diagnose import diagnose
from conformance.reference_server.embedded import RunningServer, start_embedded
from tests.reference_server.conftest import WatchReader
from tests.reference_server.crds import wait_crd
from tests.tools import kubectl as kubectl_tool

APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


class Kubectl:
    def __init__(self, binary: Path, server: RunningServer, home: Path):
        self.binary, self.server, self.home = binary, server, home
        self.kubeconfig = home / "kubeconfig"
        server.write_kubeconfig(str(self.kubeconfig))

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               "KUBECONFIG": str(self.kubeconfig)}
        return subprocess.run([str(self.binary), *args], capture_output=True, text=True, timeout=60, env=env,
                              check=False)

    def ok(self, *args: str) -> str:
        proc = self.run(*args)
        assert proc.returncode == 0 and proc.stderr == "", (args, proc.returncode, proc.stderr)
        return proc.stdout


def table(stdout: str) -> tuple[list[str], list[list[str]]]:
    """kubectl's column output → (header, rows), split on runs of 2+ spaces (blank cells vanish)."""
    split = [re.split(r" {2,}", ln.rstrip()) for ln in stdout.split("\n") if ln]
    return split[0], split[1:]


@pytest.fixture
def srv(tmp_path: Path) -> Iterator[tuple[RunningServer, Kubectl]]:
    binary = kubectl_tool.get_kubectl()
    if binary is None:
        pytest.skip(f"kubectl 1.33 unavailable: {kubectl_tool.LAST_ERROR}")
    server = start_embedded()
    try:
        yield server, Kubectl(binary, server, tmp_path)
    finally:
        server.stop()


def post(base: str, path: str, body: dict[str, Any]) -> None:
    r = requests.post(base + path, json=body, timeout=10)
    assert r.status_code == 201, r.text


def apiservice(base: str, group: str, service: dict[str, Any] | None) -> str:
    name = f"v1.{group}"
    body: dict[str, Any] = {"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": name},
                            "spec": {"group": group, "version": "v1", "groupPriorityMinimum": 100,
                                     "versionPriority": 100}}
    if service:
        body["spec"]["service"] = service
    post(base, APISERVICES, body)
    return name


def terminating(base: str, name: str, finalizers: list[str] | None = None) -> None:
    body: dict[str, Any] = {"metadata": {"name": name}}
    if finalizers:
        body["spec"] = {"finalizers": finalizers}
    post(base, "/api/v1/namespaces", body)
    assert requests.delete(f"{base}/api/v1/namespaces/{name}", timeout=10).status_code == 200


def until_condition(base: str, ns: str, typ: str) -> None:
    with WatchReader(f"{base}/api/v1/namespaces", {"fieldSelector": f"metadata.name={ns}"}) as w:
        w.until(lambda e: any(c["type"] == typ and c["status"] == "True"
                              for c in e["object"].get("status", {}).get("conditions", [])), 10, typ)


def test_unavailable_apiservices_match_kubectl_get_apiservices(srv):
    server, kubectl = srv
    base, tag = server.url, uuid.uuid4().hex[:6]
    home = f"svc-{tag}"
    post(base, "/api/v1/namespaces", {"metadata": {"name": home}})
    post(base, f"/api/v1/namespaces/{home}/services",
         {"metadata": {"name": "backend"}, "spec": {"ports": [{"port": 443, "targetPort": 8443}]}})
    staged = {  # name → (SERVICE cell, reason kube-aggregator's AvailableConditionController writes)
        apiservice(base, f"gone-{tag}.example.com", {"namespace": home, "name": "missing", "port": 443}):
            (f"{home}/missing", "ServiceNotFound"),
        apiservice(base, f"port-{tag}.example.com", {"namespace": home, "name": "backend", "port": 8080}):
            (f"{home}/backend", "ServicePortError"),
        apiservice(base, f"noep-{tag}.example.com", {"namespace": home, "name": "backend", "port": 443}):
            (f"{home}/backend", "EndpointsNotFound"),
    }
    terminating(base, f"held-{tag}")
    until_condition(base, f"held-{tag}", "NamespaceDeletionDiscoveryFailure")

    d = diagnose(KubeClient(base, requests.Session()), all_terminating=True)
    header, rows = table(kubectl.ok("get", "apiservices"))
    assert header == ["NAME", "SERVICE", "AVAILABLE", "AGE"]  # kube-aggregator's ConvertToTable
    shown = {r[0]: (r[1], r[2]) for r in rows}
    assert {n: shown[n] for n in staged} == {n: (svc, f"False ({reason})") for n, (svc, reason) in staged.items()}
    assert all(available == "True" and svc == "Local" for n, (svc, available) in shown.items() if n not in staged)
    assert {a.name: f"False ({a.reason})" for a in d.unavailable_apiservices} == {
        n: available for n, (_, available) in shown.items() if available != "True"}
    # kubectl lists no resource of the stale group versions (kubectl 1.33 says nothing about them; should a
    # client report them, it names only those); diagnose names each as a discovery failure
    proc = kubectl.run("api-resources")
    assert proc.returncode in (0, 1), proc.stderr
    listed = {r[-3] for r in table(proc.stdout)[1]}
    assert not any(v.startswith(f"{kind}-{tag}.") for v in listed for kind in ("gone", "port", "noep"))
    failed = set(re.findall(r"([a-z0-9.-]+\.example\.com/v1)", proc.stderr))
    assert failed <= {a.group_version for a in d.unavailable_apiservices}, proc.stderr
    assert {f.what for f in d.discovery_failures} == {a.group_version for a in d.unavailable_apiservices}
    remedy = d.namespaces[0].remedies[0]
    assert remedy.cause == "apiservice"
    assert {c.split("   #")[0] for c in remedy.commands if c.startswith("kubectl delete")} == {
        f"kubectl delete apiservice {n}" for n in staged}


def test_remaining_custom_resources_match_kubectl(srv):
    server, kubectl = srv
    base, tag = server.url, uuid.uuid4().hex[:6]
    group, ns = f"t{tag}.example.com", f"cr-{tag}"
    post(base, CRDS, {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"gizmos.{group}"},
        "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gizmos", "kind": "Gizmo"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                     "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}})
    wait_crd(requests, base, f"gizmos.{group}")
    post(base, "/api/v1/namespaces", {"metadata": {"name": ns}})
    post(base, f"/apis/{group}/v1/namespaces/{ns}/gizmos",
         {"apiVersion": f"{group}/v1", "kind": "Gizmo", "metadata": {"name": "held", "finalizers": [f"{group}/hold"]}})
    assert requests.delete(f"{base}/api/v1/namespaces/{ns}", timeout=10).status_code == 200
    until_condition(base, ns, "NamespaceFinalizersRemaining")

    d = diagnose(KubeClient(base, requests.Session()), [ns])
    n = d.namespaces[0]
    assert [(o.resource, o.name, o.finalizers, o.deleting) for o in n.remaining] == [
        (f"gizmos.{group}", "held", [f"{group}/hold"], True)]
    _, listable = table(kubectl.ok("api-resources", "--namespaced=true", "--verbs=list"))
    kinds = {(r[0] + "." + r[-3].rpartition("/")[0]).rstrip(".") for r in listable}
    assert {o.resource for o in n.remaining} <= kinds and f"gizmos.{group}" in kinds
    header, rows = table(kubectl.ok("get", f"gizmos.{group}", "-n", ns))
    assert header == ["NAME", "AGE"]  # the crdHandler's default columns: Age is a duration, not a timestamp
    assert [r[0] for r in rows] == [o.name for o in n.remaining] and all(re.fullmatch(r"\d+s", r[1]) for r in rows)
    assert kubectl.ok("get", f"gizmos.{group}", "held", "-n", ns, "-o",
                      "jsonpath={.metadata.finalizers}") == f'["{group}/hold"]'
    remedy = next(r for r in n.remedies if r.cause == "content-finalizer")
    command, _, comment = remedy.commands[0].partition("   # ")
    assert command == (f"kubectl patch gizmos.{group} held -n {ns} --type=merge -p "
                       "'{\"metadata\": {\"finalizers\": null}}'")
    assert comment == f"last resort: removes only {group}/hold" and len(remedy.commands) == 1
    # the remedy, run by kubectl itself, releases the namespace (NS-DDEL-002)
    rv = requests.get(f"{base}/api/v1/namespaces/{ns}", timeout=10).json()["metadata"]["resourceVersion"]
    kubectl.ok(*shlex.split(command)[1:])  # exactly as printed, shell quoting included
    with WatchReader(f"{base}/api/v1/namespaces", {"fieldSelector": f"metadata.name={ns}",
                                                        "resourceVersion": rv}) as w:
        w.until(lambda e: e["type"] == "DELETED", 20, f"{ns} deleted")
