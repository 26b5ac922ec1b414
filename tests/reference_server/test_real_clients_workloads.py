"""Real clients meet the workload controllers (controller/workloads/, controller/scheduler.py) as on a kind
cluster without nodes: kubectl 1.33 (`create deployment`, `get all`, `rollout status`, `scale`, `delete ns
--wait`) and the official Python client's typed API and watch. The server runs the default flavour (every
kube-controller-manager controller, ServiceAccount admission) over TLS with a token."""
from __future__ import annotations

import uuid
from typing import Any, Callable, Iterator

import pytest

from .test_real_clients import Kube, kube, serve_kube, table  # noqa: F401 - kube: a fixture

WAIT = 30  # seconds any one wait may take (a watch ends it as soon as the state is there)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "workloads")  # the default flavour: every controller


@pytest.fixture
def ns(served: Kube) -> Iterator[str]:
    name = f"wl-{uuid.uuid4().hex[:8]}"
    served.create_ns(name)
    yield name
    served.http.delete(f"{served.server.url}/api/v1/namespaces/{name}", timeout=10)


@pytest.fixture
def client(served: Kube) -> Iterator[Any]:
    from kubernetes import config
    api_client = config.new_client_from_config(config_file=str(served.kubeconfig))
    yield api_client
    api_client.close()


def watch_until(list_fn: Callable[..., Any], what: str, pred: Callable[[list[Any]], bool], **kw: Any) -> list[Any]:
    """List, then watch from the list's resourceVersion until `pred(items)` holds (informer-style)."""
    from kubernetes import watch
    listed = list_fn(**kw)
    items = {i.metadata.uid: i for i in listed.items}
    if pred(list(items.values())):
        return list(items.values())
    w = watch.Watch()
    for ev in w.stream(list_fn, resource_version=listed.metadata.resource_version, timeout_seconds=WAIT, **kw):
        obj = ev["object"]
        if ev["type"] == "DELETED":
            items.pop(obj.metadata.uid, None)
        else:
            items[obj.metadata.uid] = obj
        if pred(list(items.values())):
            w.stop()
            return list(items.values())
    raise AssertionError(f"{what}: not within {WAIT} s; last seen {[i.metadata.name for i in items.values()]}")


def test_kubectl_create_deployment_get_all_rollout_status_and_scale(kube: Kube, ns: str, client: Any) -> None:
    from kubernetes import client as k
    core = k.CoreV1Api(client)
    assert kube.ok("create", "deployment", "x", "--image=nginx", "-n", ns) == "deployment.apps/x created\n"
    [pod] = watch_until(core.list_namespaced_pod, "the deployment's pod, Unschedulable",
                        lambda ps: len(ps) == 1 and any(c.type == "PodScheduled" for c in ps[0].status.conditions or []),
                        namespace=ns)
    [cond] = pod.status.conditions
    assert (pod.status.phase, cond.status, cond.reason, cond.message) == (
        "Pending", "False", "Unschedulable", "no nodes available to schedule pods")
    rs = kube.ok("get", "replicasets", "-n", ns, "-o", "name").split()
    assert len(rs) == 1 and pod.metadata.name.startswith(rs[0].split("/")[1] + "-")
    out = kube.ok("get", "all", "-n", ns, "-o", "name").split()
    assert out == [f"pod/{pod.metadata.name}", "deployment.apps/x", rs[0]]
    header, rows = table(kube.ok("get", "pods", "-n", ns))
    assert rows[0][1:4] == ["0/1", "Pending", "0"]
    proc = kube.run("rollout", "status", "deployment/x", "-n", ns, "--timeout=1s")
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == 'Waiting for deployment "x" rollout to finish: 0 of 1 updated replicas are available...'
    assert proc.stderr == "error: timed out waiting for the condition\n"
    assert kube.ok("scale", "deployment", "x", "--replicas=3", "-n", ns) == "deployment.apps/x scaled\n"
    watch_until(core.list_namespaced_pod, "three pods", lambda ps: len(ps) == 3, namespace=ns)
    header, rows = table(kube.ok("get", "deployments", "-n", ns))
    assert rows[0][:4] == ["x", "0/3", "3", "0"]


def test_kubectl_create_deployment_nginx_has_upstreams_replicaset_name(kube: Kube, ns: str, client: Any) -> None:
    """The `pod-template-hash` is kube-controller-manager's (go-spew's dump of the defaulted template): the
    ReplicaSet of `kubectl create deployment nginx --image=nginx` is `nginx-5869d7778c`, as on real clusters."""
    from kubernetes import client as k
    assert kube.ok("create", "deployment", "nginx", "--image=nginx", "-n", ns) == "deployment.apps/nginx created\n"
    [rs] = watch_until(k.AppsV1Api(client).list_namespaced_replica_set, "the ReplicaSet", lambda rs: len(rs) == 1,
                       namespace=ns)
    assert rs.metadata.name == "nginx-5869d7778c" and rs.metadata.labels["pod-template-hash"] == "5869d7778c"


def test_python_client_job_and_statefulset(served: Kube, ns: str, client: Any) -> None:
    from kubernetes import client as k
    batch, apps, core = k.BatchV1Api(client), k.AppsV1Api(client), k.CoreV1Api(client)
    container = k.V1Container(name="c", image="busybox")
    batch.create_namespaced_job(ns, k.V1Job(metadata=k.V1ObjectMeta(name="j"), spec=k.V1JobSpec(
        template=k.V1PodTemplateSpec(spec=k.V1PodSpec(restart_policy="Never", containers=[container])))))
    apps.create_namespaced_stateful_set(ns, k.V1StatefulSet(metadata=k.V1ObjectMeta(name="db"), spec=k.V1StatefulSetSpec(
        service_name="db", replicas=2, selector=k.V1LabelSelector(match_labels={"app": "db"}),
        template=k.V1PodTemplateSpec(metadata=k.V1ObjectMeta(labels={"app": "db"}),
                                     spec=k.V1PodSpec(containers=[container])))))
    pods = watch_until(core.list_namespaced_pod, "the Job's pod and the StatefulSet's pod 0",
                       lambda ps: len(ps) == 2, namespace=ns)
    by_owner = {p.metadata.owner_references[0].kind: p for p in pods}
    assert by_owner["StatefulSet"].metadata.name == "db-0"  # OrderedReady: db-1 waits for db-0 to be Ready
    job_pod = by_owner["Job"]
    assert job_pod.metadata.finalizers == ["batch.kubernetes.io/job-tracking"]
    [job] = watch_until(batch.list_namespaced_job, "the Job's status", lambda js: bool(js and js[0].status.active),
                        namespace=ns)
    assert (job.status.active, job.status.ready, job.status.terminating) == (1, 0, 0) and job.status.start_time
    core.delete_namespaced_pod(job_pod.metadata.name, ns)
    watch_until(core.list_namespaced_pod, "the Job's pod gone (finalizer removed)",
                lambda ps: job_pod.metadata.uid not in {p.metadata.uid for p in ps}, namespace=ns)
    [job] = watch_until(batch.list_namespaced_job, "one failure counted", lambda js: js[0].status.failed == 1,
                        namespace=ns)


def test_delete_ns_with_workloads_completes(kube: Kube, served: Kube) -> None:
    """The namespace controller deletes Deployments, ReplicaSets, Jobs and pods while the controllers would
    make them again: admission refuses them in a Terminating namespace, and the Job's pod finalizer goes."""
    name = f"wl-{uuid.uuid4().hex[:8]}"
    kube.ok("create", "namespace", name)
    kube.ok("create", "deployment", "web", "--image=nginx", "--replicas=3", "-n", name)
    kube.ok("create", "job", "j", "--image=busybox", "-n", name)
    kube.ok("create", "deployment", "other", "--image=nginx", "-n", name)
    assert kube.ok("wait", "--for=jsonpath={.status.active}=1", "job/j", "-n", name, f"--timeout={WAIT}s")
    assert kube.ok("delete", "namespace", name, "--wait", f"--timeout={WAIT}s") == f'namespace "{name}" deleted\n'
    assert served.get(f"/api/v1/namespaces/{name}").status_code == 404


def test_kubectl_describe_get_events_rollout_history_and_undo(kube: Kube, ns: str, client: Any) -> None:
    """The controllers' Events as `kubectl describe` and `get events` show them; `rollout history` and
    `rollout undo` (client-side: they read the ReplicaSets' revision annotations)."""
    from kubernetes import client as k
    core = k.CoreV1Api(client)
    kube.ok("create", "deployment", "x", "--image=nginx", "-n", ns)
    wanted = {"ScalingReplicaSet", "SuccessfulCreate", "FailedScheduling"}
    watch_until(core.list_namespaced_event, "the three controllers' events",
                lambda evs: wanted <= {e.reason for e in evs}, namespace=ns)
    [rs] = kube.ok("get", "replicasets", "-n", ns, "-o", "name").split()
    rs = rs.split("/")[1]
    described = kube.ok("describe", "deployment", "x", "-n", ns)
    events = described[described.index("Events:"):].splitlines()
    assert events[1].split() == ["Type", "Reason", "Age", "From", "Message"]
    row = events[3].split()
    assert row[:2] == ["Normal", "ScalingReplicaSet"] and row[3:] == [
        "deployment-controller", "Scaled", "up", "replica", "set", rs, "from", "0", "to", "1"]
    [pod] = kube.ok("get", "pods", "-n", ns, "-o", "name").split()
    described = kube.ok("describe", pod, "-n", ns)
    assert described[described.index("Events:"):].splitlines()[3].split()[:2] == ["Warning", "FailedScheduling"]
    assert "default-scheduler  no nodes available to schedule pods" in described
    header, rows = table(kube.ok("get", "events", "-n", ns, "--sort-by=.metadata.creationTimestamp"))
    assert header[:4] == ["LAST SEEN", "TYPE", "REASON", "OBJECT"]
    assert {(r[1], r[2], r[3]) for r in rows} >= {("Normal", "ScalingReplicaSet", "deployment/x"),
                                                  ("Normal", "SuccessfulCreate", f"replicaset/{rs}"),
                                                  ("Warning", "FailedScheduling", pod)}
    kube.ok("set", "image", "deployment/x", "nginx=nginx:1.27", "-n", ns)
    kube.ok("annotate", "deployment/x", "kubernetes.io/change-cause=to 1.27", "-n", ns)
    apps = k.AppsV1Api(client)
    watch_until(apps.list_namespaced_replica_set, "the second revision",
                lambda rss: any((r.metadata.annotations or {}).get("kubernetes.io/change-cause") == "to 1.27"
                                for r in rss), namespace=ns)
    header, rows = table(kube.ok("rollout", "history", "deployment/x", "-n", ns).split("\n", 1)[1])
    assert header == ["REVISION", "CHANGE-CAUSE"] and rows == [["1", "<none>"], ["2", "to 1.27"]]
    assert kube.ok("rollout", "undo", "deployment/x", "-n", ns) == "deployment.apps/x rolled back\n"
    [back] = watch_until(apps.list_namespaced_replica_set, "revision 3 on the first ReplicaSet",
                         lambda rss: any(r.metadata.name == rs and r.metadata.annotations.get(
                             "deployment.kubernetes.io/revision") == "3" for r in rss),
                         namespace=ns, field_selector=f"metadata.name={rs}")
    assert back.metadata.annotations["deployment.kubernetes.io/revision-history"] == "1"
    out = kube.ok("rollout", "history", "deployment/x", "-n", ns)
    assert [line.split()[0] for line in out.splitlines()[2:] if line.strip()] == ["2", "3"]


def _manifest(tmp_path: Any, kind: str, name: str) -> str:
    path = tmp_path / f"{name}.yaml"
    extra = "  serviceName: web\n" if kind == "StatefulSet" else ""
    path.write_text(f"apiVersion: apps/v1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n{extra}"
                    f"  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n"
                    f"        app: {name}\n    spec:\n      containers:\n      - name: c\n        image: nginx\n")
    return str(path)


def test_kubectl_rollout_history_and_undo_statefulset(kube: Kube, ns: str, client: Any, tmp_path: Any) -> None:
    """ControllerRevisions: `rollout history` (and `--revision`), `get controllerrevisions`, `rollout undo`
    (a strategic merge patch of the revision's data) renumbering the old revision; the current revision stays
    put while pod 0 is never Ready (`completeRollingUpdate`)."""
    from kubernetes import client as k
    apps = k.AppsV1Api(client)
    created = kube.ok("apply", "-f", _manifest(tmp_path, "StatefulSet", "web"), "-n", ns)
    assert created == "statefulset.apps/web created\n"
    [sts] = watch_until(apps.list_namespaced_stateful_set, "the first revision",
                        lambda ss: bool(ss and ss[0].status.update_revision), namespace=ns)
    first = sts.status.update_revision
    kube.ok("annotate", "sts/web", "kubernetes.io/change-cause=to 1.27", "-n", ns)
    kube.ok("set", "image", "sts/web", "c=nginx:1.27", "-n", ns)
    [sts] = watch_until(apps.list_namespaced_stateful_set, "the second revision",
                        lambda ss: ss[0].status.update_revision not in (None, first), namespace=ns)
    second = sts.status.update_revision
    assert (sts.status.current_revision, sts.status.current_replicas, sts.status.updated_replicas) == (first, 1, None)
    out = kube.ok("rollout", "history", "sts/web", "-n", ns)
    assert out.splitlines()[0] == "statefulset.apps/web "
    assert table(out.split("\n", 1)[1]) == (["REVISION", "CHANGE-CAUSE"], [["1", "<none>"], ["2", "to 1.27"]])
    shown = kube.ok("rollout", "history", "sts/web", "-n", ns, "--revision=2")
    assert shown.splitlines()[0] == "statefulset.apps/web with revision #2" and "nginx:1.27" in shown
    header, rows = table(kube.ok("get", "controllerrevisions", "-n", ns))
    assert header == ["NAME", "CONTROLLER", "REVISION", "AGE"]
    assert sorted(r[:3] for r in rows) == sorted([[first, "statefulset.apps/web", "1"],
                                                  [second, "statefulset.apps/web", "2"]])
    [pod] = kube.ok("get", "pods", "-n", ns, "-o", "jsonpath={.items[*].metadata.labels.controller-revision-hash}"
                    ).split()
    assert pod == first  # OrderedReady: pod 0 is never Ready, so the rolling update never starts
    assert kube.ok("rollout", "undo", "sts/web", "-n", ns) == "statefulset.apps/web rolled back\n"
    watch_until(apps.list_namespaced_stateful_set, "the first revision back",
                lambda ss: ss[0].status.update_revision == first == ss[0].status.current_revision, namespace=ns)
    out = kube.ok("rollout", "history", "sts/web", "-n", ns)
    assert table(out.split("\n", 1)[1])[1] == [["2", "to 1.27"], ["3", "<none>"]]
    assert kube.ok("get", "controllerrevision", first, "-n", ns, "-o", "jsonpath={.revision}") == "3"
    assert kube.ok("rollout", "undo", "sts/web", "-n", ns, "--to-revision=3") == (
        "statefulset.apps/web skipped rollback (current template already matches revision 3)\n")


def test_kubectl_rollout_history_and_undo_daemonset(kube: Kube, ns: str, client: Any, tmp_path: Any) -> None:
    """A DaemonSet's history exists without nodes: one revision per template, `rollout undo` renumbers the old one."""
    created = kube.ok("apply", "-f", _manifest(tmp_path, "DaemonSet", "agent"), "-n", ns)
    assert created == "daemonset.apps/agent created\n"
    kube.ok("set", "image", "ds/agent", "c=nginx:1.27", "-n", ns)
    from kubernetes import client as k
    apps = k.AppsV1Api(client)
    watch_until(apps.list_namespaced_controller_revision, "two revisions", lambda rs: len(rs) == 2, namespace=ns)
    out = kube.ok("rollout", "history", "ds/agent", "-n", ns)
    assert out.splitlines()[0] == "daemonset.apps/agent "
    assert table(out.split("\n", 1)[1]) == (["REVISION", "CHANGE-CAUSE"], [["1", "<none>"], ["2", "<none>"]])
    assert "nginx:1.27" not in kube.ok("rollout", "history", "ds/agent", "-n", ns, "--revision=1")
    assert kube.ok("rollout", "undo", "ds/agent", "-n", ns) == "daemonset.apps/agent rolled back\n"
    revs = watch_until(apps.list_namespaced_controller_revision, "the first revision renumbered 3",
                       lambda rs: sorted(r.revision for r in rs) == [2, 3], namespace=ns)
    assert all(r.metadata.labels["controller-revision-hash"] == r.metadata.name.split("-")[-1] for r in revs)
    image = kube.ok("get", "ds", "agent", "-n", ns, "-o", "jsonpath={.spec.template.spec.containers[0].image}")
    assert image == "nginx"
    # kubectl compares the revision's data with the patch it computes from the DaemonSet: byte for byte
    assert kube.ok("rollout", "undo", "ds/agent", "-n", ns, "--to-revision=3") == (
        "daemonset.apps/agent skipped rollback (current template already matches revision 3)\n")
    kube.ok("delete", "ds", "agent", "-n", ns)  # the garbage collector follows the revisions' ownerReferences
    watch_until(apps.list_namespaced_controller_revision, "the revisions collected", lambda rs: rs == [], namespace=ns)


def test_replication_controller_pods_scale_and_get_all(kube: Kube, ns: str, client: Any) -> None:
    """The replication manager makes an RC's pods (typed client create, informer-style wait); `kubectl scale rc`
    goes through its `/scale`; `kubectl get all` lists it (category `all`)."""
    from kubernetes import client as k
    core = k.CoreV1Api(client)
    template = k.V1PodTemplateSpec(metadata=k.V1ObjectMeta(labels={"app": "rc"}),
                                   spec=k.V1PodSpec(containers=[k.V1Container(name="c", image="nginx")]))
    rc = core.create_namespaced_replication_controller(ns, k.V1ReplicationController(
        metadata=k.V1ObjectMeta(name="rc"), spec=k.V1ReplicationControllerSpec(replicas=2, template=template)))
    assert rc.spec.selector == {"app": "rc"}

    def owned(n: int) -> Callable[[list[Any]], bool]:
        return lambda pods: sorted((p.metadata.owner_references or [k.V1OwnerReference(
            api_version="", kind="", name="", uid="")])[0].kind for p in pods
            if not p.metadata.deletion_timestamp) == ["ReplicationController"] * n
    watch_until(core.list_namespaced_pod, "two pods of the RC", owned(2), namespace=ns)
    assert kube.ok("scale", "rc", "rc", "-n", ns, "--replicas=1") == "replicationcontroller/rc scaled\n"
    watch_until(core.list_namespaced_pod, "one pod of the RC", owned(1), namespace=ns)
    out = kube.ok("get", "all", "-n", ns)
    assert "replicationcontroller/rc" in out and "pod/rc-" in out
