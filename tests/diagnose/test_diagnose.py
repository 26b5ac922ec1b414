"""`nsconform diagnose` against causes staged on the reference server: each names what holds the namespace
and the right (least destructive) remedy; nothing is written to the cluster."""
from __future__ import annotations

import json
from typing import Iterator

import pytest
import requests

from conformance.client.api import KubeClient
from conformance.diagnose import diagnose
from conformance.diagnose.cli import main
from conformance.diagnose.render import duration, text
from conformance.reference_server.embedded import RunningServer, start_embedded
from tests.reference_server.crds import create_crd

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices"
MERGE = {"Content-Type": "application/merge-patch+json"}


@pytest.fixture
def srv() -> Iterator[RunningServer]:
    s = start_embedded()
    yield s
    s.stop()


def until_condition(base: str, ns: str, typ: str) -> None:
    from tests.reference_server.conftest import WatchReader
    with WatchReader(f"{base}/api/v1/namespaces", {"fieldSelector": f"metadata.name={ns}"}) as w:
        w.until(lambda e: any(c["type"] == typ and c["status"] == "True"
                              for c in e["object"].get("status", {}).get("conditions", [])), 10, typ)


def stage_crd(base: str) -> None:
    body = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
    assert create_crd(requests, base, body).status_code == 201


def namespace(base: str, name: str, finalizers=None) -> None:
    body = {"metadata": {"name": name}}
    if finalizers:
        body["spec"] = {"finalizers": finalizers}
    assert requests.post(f"{base}/api/v1/namespaces", json=body).status_code == 201


class _Recording(requests.adapters.HTTPAdapter):
    """Notes the method of every request the diagnosing client sends."""
    methods: list[str] = []

    def send(self, request, *args, **kwargs):  # type: ignore[override]
        _Recording.methods.append(request.method or "")
        return super().send(request, *args, **kwargs)


def client(s: RunningServer, token: str | None = None) -> KubeClient:
    session = requests.Session()
    session.mount("http://", _Recording())
    session.mount("https://", _Recording())
    if token:
        session.headers["Authorization"] = f"Bearer {token}"
    return KubeClient(s.url, session)


def only_reads(s: RunningServer, fn):
    """Run `fn` and assert its client sent no write, only GETs (the server's resourceVersion is no measure: its
    own controllers may still write meanwhile, e.g. a CRD's status, and a loaded machine saw 29 become 32)."""
    _Recording.methods.clear()
    out = fn()
    assert _Recording.methods and set(_Recording.methods) <= {"GET"}, _Recording.methods
    return out


def test_nothing_terminating(srv):
    d = diagnose(client(srv))
    assert not d.stuck and d.namespaces == []
    assert text(d) == "No namespace is terminating.\n"


def test_content_finalizer(srv):
    base = srv.url
    stage_crd(base)
    namespace(base, "demo")
    requests.post(f"{base}/apis/example.com/v1/namespaces/demo/widgets",
                  json={"apiVersion": "example.com/v1", "kind": "Widget",
                        "metadata": {"name": "held", "finalizers": ["example.com/hold"]}})
    requests.post(f"{base}/api/v1/namespaces/demo/configmaps",
                  json={"metadata": {"name": "pvc-like", "finalizers": ["kubernetes.io/pvc-protection"]}})
    requests.delete(f"{base}/api/v1/namespaces/demo")
    until_condition(base, "demo", "NamespaceFinalizersRemaining")
    d = only_reads(srv, lambda: diagnose(client(srv), ["demo"]))
    n = d.namespaces[0]
    assert d.stuck and n.terminating and n.terminating_for_s is not None
    assert {(o.resource, o.name, tuple(o.finalizers)) for o in n.remaining} == {
        ("widgets.example.com", "held", ("example.com/hold",)),
        ("configmaps", "pvc-like", ("kubernetes.io/pvc-protection",))}
    causes = [r.cause for r in n.remedies]
    assert causes == ["content-finalizer", "content-finalizer"]
    pvc = next(r for r in n.remedies if "pvc-protection" in r.explanation)
    assert "PVC protection controller" in pvc.explanation
    hold = next(r for r in n.remedies if "example.com/hold" in r.explanation)
    assert hold.commands == ["kubectl patch widgets.example.com held -n demo --type=merge -p "
                             "'{\"metadata\": {\"finalizers\": null}}'   # last resort: removes only example.com/hold"]
    assert "Some content in the namespace has finalizers remaining" in text(d)


def _pods_and_a_configmap(base: str, name: str, pod: dict) -> None:
    """Namespace `name` with `pod` and a ConfigMap, deleted; returns once the controller has marked the pod."""
    from tests.reference_server.conftest import WatchReader
    namespace(base, name)
    with WatchReader(f"{base}/api/v1/namespaces/{name}/serviceaccounts") as w:  # ServiceAccount admission
        w.until(lambda e: e["object"]["metadata"]["name"] == "default", 10, "the default ServiceAccount")
    assert requests.post(f"{base}/api/v1/namespaces/{name}/pods", json=pod).status_code == 201
    assert requests.post(f"{base}/api/v1/namespaces/{name}/configmaps", json={"metadata": {"name": "cm"}}
                         ).status_code == 201
    with WatchReader(f"{base}/api/v1/namespaces/{name}/pods") as w:
        requests.delete(f"{base}/api/v1/namespaces/{name}")
        w.until(lambda e: bool(e["object"]["metadata"].get("deletionTimestamp")), 10, "the pod marked for deletion")


SPEC = {"containers": [{"name": "c", "image": "pause"}]}


def test_held_pod_keeps_the_rest_waiting(srv):
    """OrderedNamespaceDeletion: a pod's finalizer holds the pod, and the ConfigMap (no finalizer) only waits
    for the pods: it is not refused by anything."""
    _pods_and_a_configmap(srv.url, "podheld", {"metadata": {"name": "p", "finalizers": ["example.com/hold"]},
                                               "spec": SPEC})
    n = only_reads(srv, lambda: diagnose(client(srv), ["podheld"])).namespaces[0]
    assert [r.cause for r in n.remedies] == ["content-finalizer", "pods-first"]
    assert "configmaps/cm" in n.remedies[1].explanation and "OrderedNamespaceDeletion" in n.remedies[1].explanation
    requests.patch(f"{srv.url}/api/v1/namespaces/podheld/pods/p", data=json.dumps({"metadata": {"finalizers": None}}),
                   headers=MERGE)


def test_terminating_bound_pod_is_explained(srv):
    """A pod bound to a node waits for its kubelet (or, the node gone, pod GC); a force delete is the last resort."""
    _pods_and_a_configmap(srv.url, "podbound", {"metadata": {"name": "p"}, "spec": {**SPEC, "nodeName": "n1"}})
    n = diagnose(client(srv), ["podbound"]).namespaces[0]
    assert [r.cause for r in n.remedies] == ["pods-terminating", "pods-first"]
    assert n.remedies[0].commands[-1] == ("kubectl delete pod p -n podbound --grace-period=0 --force   "
                                          "# last resort")


def test_foreign_spec_finalizer(srv):
    base = srv.url
    namespace(base, "origin", ["example.com/origin"])
    requests.delete(f"{base}/api/v1/namespaces/origin")
    from tests.reference_server.conftest import WatchReader
    with WatchReader(f"{base}/api/v1/namespaces", {"fieldSelector": "metadata.name=origin"}) as w:
        w.until(lambda e: e["object"]["spec"].get("finalizers") == ["example.com/origin"], 10, "kubernetes removed")
    d = diagnose(client(srv), ["origin"])
    n = d.namespaces[0]
    assert n.foreign_finalizers == {"example.com/origin": None}
    assert [r.cause for r in n.remedies] == ["spec-finalizer"]
    cmd = n.remedies[0].commands[0]
    assert "jq '.spec.finalizers = []'" in cmd and "/api/v1/namespaces/origin/finalize" in cmd
    assert "removes only example.com/origin" in cmd


def test_unavailable_apiservice_comes_first(srv):
    base = srv.url
    requests.post(base + APISERVICES, json={
        "apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": {"name": "v1beta1.metrics.k8s.io"},
        "spec": {"group": "metrics.k8s.io", "version": "v1beta1", "groupPriorityMinimum": 100, "versionPriority": 100,
                 "service": {"namespace": "kube-system", "name": "metrics-server", "port": 443}}})
    namespace(base, "blocked")
    requests.delete(f"{base}/api/v1/namespaces/blocked")
    until_condition(base, "blocked", "NamespaceDeletionDiscoveryFailure")
    d = diagnose(client(srv), all_terminating=True)
    assert [a.name for a in d.unavailable_apiservices] == ["v1beta1.metrics.k8s.io"]
    assert d.unavailable_apiservices[0].reason == "ServiceNotFound"
    assert [f.what for f in d.discovery_failures] == ["metrics.k8s.io/v1beta1"]
    assert d.discovery_failures[0].reason.startswith("503")
    n = d.namespaces[0]
    assert n.name == "blocked" and n.remedies[0].cause == "apiservice"
    assert "kubectl delete apiservice v1beta1.metrics.k8s.io" in n.remedies[0].commands[1]
    assert not any(r.cause == "unreadable" for r in n.remedies)  # the APIService explains the failure


def test_denied_reads_are_named(tmp_path):
    users = tmp_path / "users.csv"
    users.write_text("viewer-token,viewer,1\n")
    s = start_embedded(authorization="rbac", users_file=str(users))
    try:
        admin = {"Authorization": f"Bearer {s.token}"}
        rbac = "/apis/rbac.authorization.k8s.io/v1"
        requests.post(f"{s.url}{rbac}/clusterroles", headers=admin, json={
            "metadata": {"name": "ns-viewer"},
            "rules": [{"apiGroups": [""], "resources": ["namespaces", "configmaps"], "verbs": ["get", "list"]}]})
        requests.post(f"{s.url}{rbac}/clusterrolebindings", headers=admin, json={
            "metadata": {"name": "ns-viewer"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                                          "kind": "ClusterRole", "name": "ns-viewer"},
            "subjects": [{"kind": "User", "name": "viewer", "apiGroup": "rbac.authorization.k8s.io"}]})
        requests.post(f"{s.url}/api/v1/namespaces", headers=admin,
                      json={"metadata": {"name": "hidden"}, "spec": {"finalizers": ["example.com/x"]}})
        requests.delete(f"{s.url}/api/v1/namespaces/hidden", headers=admin)
        d = diagnose(client(s, "viewer-token"), ["hidden"])
        n = d.namespaces[0]
        unread = {u.what: u.reason for u in n.unreadable}
        assert unread["secrets"].startswith("403") and "configmaps" not in unread
        assert any(u.what == "apiservices.apiregistration.k8s.io" and u.reason.startswith("403")
                   for u in d.unreadable)
        remedy = next(r for r in n.remedies if r.cause == "unreadable" and "secrets" in r.explanation)
        assert remedy.commands == ["kubectl auth can-i list secrets -n hidden"]
        assert "Could not check:" in text(d)
    finally:
        s.stop()


def test_denied_discovery_is_named(tmp_path):
    """Without the system:discovery binding a reader cannot discover any API: diagnose names each denied
    discovery document and the check for it (a non-resource URL), and still finds the spec finalizer."""
    users = tmp_path / "users.csv"
    users.write_text("viewer-token,viewer,1\n")
    s = start_embedded(authorization="rbac", users_file=str(users))
    try:
        admin = {"Authorization": f"Bearer {s.token}"}
        rbac = "/apis/rbac.authorization.k8s.io/v1"
        assert requests.post(f"{s.url}{rbac}/clusterroles", headers=admin, json={
            "metadata": {"name": "ns-reader"},
            "rules": [{"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get", "list"]}]}).status_code == 201
        assert requests.post(f"{s.url}{rbac}/clusterrolebindings", headers=admin, json={
            "metadata": {"name": "ns-reader"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                                          "kind": "ClusterRole", "name": "ns-reader"},
            "subjects": [{"kind": "User", "name": "viewer", "apiGroup": "rbac.authorization.k8s.io"}]}
        ).status_code == 201
        assert requests.delete(f"{s.url}{rbac}/clusterrolebindings/system:discovery", headers=admin).status_code == 200
        requests.post(f"{s.url}/api/v1/namespaces", headers=admin,
                      json={"metadata": {"name": "blind"}, "spec": {"finalizers": ["example.com/x"]}})
        requests.delete(f"{s.url}/api/v1/namespaces/blind", headers=admin)
        d = diagnose(client(s, "viewer-token"), ["blind"])
        assert {f.what for f in d.discovery_failures} == {"v1", "/apis"}
        assert all(f.reason.startswith("403") for f in d.discovery_failures)
        n = d.namespaces[0]
        checks = {r.commands[0] for r in n.remedies if r.cause == "unreadable"}
        assert checks == {"kubectl auth can-i get /api/v1", "kubectl auth can-i get /apis"}
        assert n.remedies[-1].cause == "spec-finalizer"
        assert "Could not discover /apis (403" in text(d)
    finally:
        s.stop()


def test_cli_json_and_exit_codes(srv, tmp_path, capsys):
    kubeconfig = tmp_path / "kubeconfig"
    srv.write_kubeconfig(str(kubeconfig))
    assert main(["--kubeconfig", str(kubeconfig)]) == 0
    assert "No namespace is terminating." in capsys.readouterr().out
    namespace(srv.url, "stuck", ["example.com/x"])
    requests.delete(f"{srv.url}/api/v1/namespaces/stuck")
    assert main(["stuck", "--kubeconfig", str(kubeconfig), "--output", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["stuck"] is True and doc["namespaces"][0]["name"] == "stuck"
    assert doc["namespaces"][0]["remedies"][-1]["cause"] == "spec-finalizer"
    assert main(["default", "--kubeconfig", str(kubeconfig)]) == 0
    assert "not terminating" in capsys.readouterr().out


def test_cli_bad_flag_and_no_cluster(capsys, monkeypatch, tmp_path):
    assert main(["--bogus"]) == 2
    assert "nsconform diagnose: error: unrecognized arguments: --bogus" in capsys.readouterr().err
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing"))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main([]) == 2
    assert "diagnose needs a cluster" in capsys.readouterr().err


@pytest.mark.parametrize("seconds, shown", [(None, "an unknown time"), (5, "5s"), (125, "2m5s"),
                                            (3 * 3600 + 60, "3h1m"), (2 * 86400 + 5, "2d")])
def test_duration(seconds, shown):
    assert duration(seconds) == shown


def test_failure_dump_explains_a_terminating_namespace(srv):
    """A test that times out waiting for a namespace shows diagnose's explanation in its report."""
    from conformance.endpoints import Paths
    from conformance.fixtures.dump import describe_namespaces

    namespace(srv.url, "slow", ["example.com/slow"])
    requests.delete(f"{srv.url}/api/v1/namespaces/slow")
    dump = describe_namespaces(client(srv), Paths("kubernetes"), ["slow"], ["configmaps"])
    assert "  diagnose: spec.finalizers holds example.com/slow" in dump
    assert "removes only example.com/slow" in dump
