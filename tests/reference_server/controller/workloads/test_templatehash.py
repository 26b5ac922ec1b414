"""kube-controller-manager's template hash (controller/workloads/templatehash/): go-spew's `%#v` of the Go
`v1.PodTemplateSpec`, FNV-32a, the collision count's bytes, safe-encoded.

The expected values in `data/templatehash_cases.json` were computed by upstream's own `ComputeHash` built
against the 1.33 sources (`tools/templatehash/main.go`, recorded by `tools/templatehash/cases.py`); one is also
the name every `kubectl create deployment nginx --image=nginx` shows on recent clusters (`nginx-5869d7778c`), and
three more such names are checked through the Deployment controller (`REAL_WORLD`)."""
from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from conformance.reference_server.controller.workloads import (DaemonSetController, DeploymentController,
                                                                ReplicaSetController)
from conformance.reference_server.controller.workloads.templatehash import compute_hash, dump, safe_encode
from conformance.reference_server.controller.workloads.templatehash.model import GoType
from conformance.reference_server.controller.workloads.templatehash.spew import sprint
from conformance.reference_server.registry import ListOptions

from .conftest import NS, apps, get, pods

CASES = json.loads((pathlib.Path(__file__).parent / "data" / "templatehash_cases.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_upstreams_hash(case):
    assert compute_hash(case["template"], case["collisionCount"]) == case["hash"]


def test_a_nil_collision_count_is_not_hashed_but_zero_is():
    """`if collisionCount != nil`: 0 adds eight zero bytes."""
    t = {"spec": {"containers": [{"name": "c", "image": "i"}]}}
    assert len({compute_hash(t), compute_hash(t, 0), compute_hash(t, 1)}) == 3


def test_dump_shape():
    """Types in parentheses, unquoted strings, `<nil>` for nil pointers, slices and maps, map keys sorted, slice
    elements and map values without their type, a pointer's target after `(*T)`."""
    out = dump({"metadata": {"labels": {"b": "2", "a": "1"}},
                "spec": {"containers": [{"name": "c", "image": "i"}], "terminationGracePeriodSeconds": 30}})
    assert out.startswith("(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) GenerateName:(string) ")
    assert "CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}" in out
    assert "Labels:(map[string]string)map[a:1 b:2] Annotations:(map[string]string)<nil>" in out
    assert "Containers:([]v1.Container)[{Name:(string)c Image:(string)i Command:([]string)<nil> " in out
    assert "TerminationGracePeriodSeconds:(*int64)30 ActiveDeadlineSeconds:(*int64)<nil>" in out


def test_a_nil_pointer_whose_type_is_ignored_leaves_the_flag_set():
    """format.go: `formatPtr` returns on a nil pointer with `ignoreNextType` set without clearing it, so the next
    struct field is printed without its type (no field of a pod template reaches this; the port keeps it)."""
    i64 = GoType("int64", "int64")
    ptr = GoType("*int64", "ptr", i64)
    holder = GoType("main.S", "struct")
    holder.fields = [("P", GoType("[]*int64", "slice", ptr)), ("N", i64)]
    holder._json = [("P", "p"), ("N", "n")]
    assert sprint(holder, {"p": [None, 3], "n": 7}) == "(main.S){P:([]*int64)[<nil> <*>3] N:(int64)7}"
    assert sprint(holder, {"p": [3, None], "n": 7}) == "(main.S){P:([]*int64)[<*>3 <nil>] N:7}"


def test_safe_encode():
    assert safe_encode("0123456789") == "".join("bcdfghjklmnpqrstvwxz2456789"[b % 27] for b in b"0123456789")


def _kubectl_create(labels: dict[str, str], container: dict[str, Any]) -> dict[str, Any]:
    """The template `kubectl create deployment` (1.33) sends."""
    return {"metadata": {"creationTimestamp": None, "labels": labels},
            "spec": {"containers": [{**container, "resources": {}}]}}


# (Deployment, its template as the client sent it, the ReplicaSet a real cluster names): public transcripts of
# kind, minikube and AKS clusters of recent releases
REAL_WORLD = [
    ("nginx", _kubectl_create({"app": "nginx"}, {"name": "nginx", "image": "nginx"}),  # create deployment nginx
     "nginx-5869d7778c"),
    ("nginx", _kubectl_create({"app": "nginx"}, {"name": "nginx", "image": "nginx", "ports": [{"containerPort": 80}]}),
     "nginx-86c57bc6b8"),  # ... --port=80
    ("hello-node", _kubectl_create({"app": "hello-node"}, {  # the minikube tutorial's
        "name": "agnhost", "image": "registry.k8s.io/e2e-test-images/agnhost:2.39",
        "command": ["/agnhost", "netexec", "--http-port=8080"]}), "hello-node-c74958b5d"),
    ("nginx-deployment", {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [  # the docs' example
        {"name": "nginx", "image": "nginx:1.14.2", "ports": [{"containerPort": 80}]}]}},
     "nginx-deployment-647677fc66"),
]


@pytest.mark.parametrize("name,tmpl,rs_name", REAL_WORLD, ids=[r[2] for r in REAL_WORLD])
def test_the_deployment_controller_names_its_replicaset_as_real_clusters_do(reg, name, tmpl, rs_name):
    """The registry defaults the template as kube-apiserver does and the controller hashes it as
    kube-controller-manager does: the ReplicaSet has the name real clusters give it, its pods the hash label."""
    apps(reg, "deployments", name, {"replicas": 1, "selector": {"matchLabels": tmpl["metadata"]["labels"]},
                                    "template": tmpl})
    DeploymentController(reg).sync(NS, name)
    [rs] = reg.group("apps", "replicasets").list(NS, ListOptions())["items"]
    assert rs["metadata"]["name"] == rs_name
    hash_ = rs_name.rsplit("-", 1)[1]
    assert rs["metadata"]["labels"]["pod-template-hash"] == hash_
    ReplicaSetController(reg).sync(NS, rs_name)
    [pod] = pods(reg)
    assert pod["metadata"]["name"].startswith(rs_name + "-")
    assert pod["metadata"]["labels"] == {**tmpl["metadata"]["labels"], "pod-template-hash": hash_}


API_TEMPLATE = {"metadata": {"labels": {"app": "api"}},
                "spec": {"volumes": [{"name": "scratch"},
                                     {"name": "cfg", "configMap": {"name": "api-config"}},
                                     {"name": "tls", "secret": {"secretName": "api-tls"}}],
                         "containers": [{"name": "api",
                                         "image": "example/api:1.2.3",
                                         "ports": [{"name": "http", "containerPort": 8080}],
                                         "env": [{"name": "POD_NAME",
                                                  "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                                         "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                                                       "limits": {"memory": "256Mi"}},
                                         "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http"},
                                                           "initialDelaySeconds": 10},
                                         "readinessProbe": {"tcpSocket": {"port": 8080}},
                                         "volumeMounts": [{"name": "scratch", "mountPath": "/tmp"},
                                                          {"name": "cfg", "mountPath": "/etc/api"},
                                                          {"name": "tls", "mountPath": "/tls", "readOnly": True}]}]}}


def test_the_template_is_hashed_with_upstreams_nested_defaults(reg):
    """Probes, volume sources, `fieldRef.apiVersion`: the registry defaults the template as kube-apiserver does
    (registry/podspec_defaults.py), so the hash is the one upstream computes for that stored template (the
    `stored:deployment-probes-volumes-env` case)."""
    apps(reg, "deployments", "api", {"selector": {"matchLabels": {"app": "api"}}, "template": API_TEMPLATE})
    DeploymentController(reg).sync(NS, "api")
    [rs] = reg.group("apps", "replicasets").list(NS, ListOptions())["items"]
    want = next(c["hash"] for c in CASES if c["name"] == "stored:deployment-probes-volumes-env")
    assert rs["metadata"]["name"] == f"api-{want}"


def test_the_daemonset_controller_names_its_revision_with_upstreams_hash(reg):
    """A DaemonSet's ControllerRevision is `<ds>-<ComputeHash(template, status.collisionCount)>` (daemon/update.go
    `snapshot`): the same template as `stored:deployment-minimal` gives the same hash."""
    apps(reg, "daemonsets", "ds", {"selector": {"matchLabels": {"app": "web"}}, "template": {
        "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}})
    DaemonSetController(reg).sync(NS, "ds")
    [rev] = reg.group("apps", "controllerrevisions").list(NS, ListOptions())["items"]
    want = next(c["hash"] for c in CASES if c["name"] == "stored:deployment-minimal")
    assert rev["metadata"]["name"] == f"ds-{want}"
    assert rev["metadata"]["labels"]["controller-revision-hash"] == want


def test_a_name_collision_bumps_the_count_and_the_next_hash_is_upstreams(reg):
    """sync.go `getNewReplicaSet`: the name `<deploy>-<hash>` taken by another ReplicaSet makes
    `status.collisionCount` 1, and the next sync's ReplicaSet is named with `ComputeHash(template, &1)`."""
    minimal = {c["name"]: c["hash"] for c in CASES}
    taken = f"web-{minimal['stored:deployment-minimal']}"
    apps(reg, "replicasets", taken, {"replicas": 0, "selector": {"matchLabels": {"other": "x"}}, "template": {
        "metadata": {"labels": {"other": "x"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}})
    apps(reg, "deployments", "web", {"selector": {"matchLabels": {"app": "web"}}, "template": {
        "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}})
    d = DeploymentController(reg)
    d.sync(NS, "web")
    assert get(reg, "deployments", "web")["status"]["collisionCount"] == 1
    d.sync(NS, "web")
    names = {rs["metadata"]["name"] for rs in reg.group("apps", "replicasets").list(NS, ListOptions())["items"]}
    assert names == {taken, f"web-{minimal['stored:deployment-minimal collision 1']}"}
