"""kubectl 1.33 meets the workload and pod validation (registry/workloadvalidation/, registry/podvalidation/):
the bodies of `create deployment`, `run`, `create job` and `create cronjob` pass, and a refused object prints
upstream's 422 as kubectl prints it (`The <Kind> "<name>" is invalid: ...`)."""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from tests.reference_server.test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "workloadvalidation", flavor="bare")


@pytest.fixture
def ns(kube: Kube) -> Iterator[str]:
    name = f"wv-{uuid.uuid4().hex[:8]}"
    kube.ok("create", "namespace", name)
    yield name
    kube.http.delete(f"{kube.server.url}/api/v1/namespaces/{name}", timeout=10)


def test_kubectl_generators_bodies_pass(kube: Kube, ns: str) -> None:
    assert kube.ok("create", "deployment", "web", "--image=nginx:1.27", "--port=80", "-n", ns) == \
        "deployment.apps/web created\n"
    assert kube.ok("run", "p", "--image=nginx", "--env=A=b", "--port=8080", "-n", ns) == "pod/p created\n"
    assert kube.ok("create", "job", "j", "--image=busybox", "-n", ns, "--", "true") == "job.batch/j created\n"
    assert kube.ok("create", "cronjob", "c", "--image=busybox", "--schedule=*/5 * * * *", "-n", ns) == \
        "cronjob.batch/c created\n"


def test_kubectl_prints_the_cron_parsers_refusal(kube: Kube, ns: str) -> None:
    err = kube.fails("create", "cronjob", "c", "--image=busybox", "--schedule=0 25 * * *", "-n", ns)
    assert err == ('error: failed to create cronjob: CronJob.batch "c" is invalid: spec.schedule: Invalid value: '
                   '"0 25 * * *": end of range (25) above maximum (23): 25\n')


def test_kubectl_apply_prints_each_cause(kube: Kube, ns: str, tmp_path: Path) -> None:
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text("""apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  strategy:
    rollingUpdate: {maxSurge: 0, maxUnavailable: 0}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
        ports: [{containerPort: 80, protocol: ICMP}]
""")
    err = kube.fails("apply", "-f", str(manifest), "-n", ns)
    assert err == (
        'The Deployment "web" is invalid: \n'
        '* spec.template.spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", '
        '"TCP", "UDP"\n'
        '* spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, '
        'StrVal:""}: may not be 0 when `maxSurge` is 0\n')


def test_kubectl_apply_spread_and_seccomp_rules(kube: Kube, ns: str, tmp_path: Path) -> None:
    """A hardened, spread Deployment as manifests write it passes; a mistyped spread constraint and seccomp
    profile get upstream's causes (registry/podvalidation/affinity.py, security.py)."""
    body = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      securityContext:
        runAsNonRoot: true
        seccompProfile: {{type: {seccomp}}}
      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: {action}
        labelSelector:
          matchLabels: {{app: web}}
        matchLabelKeys: [pod-template-hash]
      containers:
      - name: web
        image: nginx
        securityContext:
          allowPrivilegeEscalation: false
          capabilities: {{drop: [ALL]}}
"""
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(body.format(name="good", seccomp="RuntimeDefault", action="DoNotSchedule"))
    bad.write_text(body.format(name="bad", seccomp="Default", action="Always"))
    assert kube.ok("apply", "-f", str(good), "-n", ns) == "deployment.apps/good created\n"
    assert kube.fails("apply", "-f", str(bad), "-n", ns) == (
        'The Deployment "bad" is invalid: \n'
        '* spec.template.spec.securityContext.seccompProfile.type: Unsupported value: "Default": supported values: '
        '"Localhost", "RuntimeDefault", "Unconfined"\n'
        '* spec.template.spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Always": supported '
        'values: "DoNotSchedule", "ScheduleAnyway"\n')


def test_kubectl_prints_a_label_map_as_go_does(kube: Kube, ns: str, tmp_path: Path) -> None:
    """The selector-mismatch cause prints the template's labels with Go's `%#v` (gofmt.py): a non-ASCII letter as
    itself and a control character escaped, as kube-apiserver's strconv.Quote writes them (not JSON's `\\u00e9`)."""
    manifest = tmp_path / "labels.json"
    manifest.write_text(json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "labels"},
        "spec": {"selector": {"matchLabels": {"app": "api"}}, "template": {
            "metadata": {"labels": {"app": "web", "tier": "é\x01"}},
            "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}))
    err = kube.fails("apply", "-f", str(manifest), "-n", ns)
    assert '* spec.template.metadata.labels: Invalid value: map[string]string{"app":"web", "tier":"é\\x01"}: ' \
        "`selector` does not match template `labels`\n" in err, err
