"""Pods' and pod templates' write warnings (registry/podwarnings.py: `pkg/api/pod/warnings.go` 1.33 and the
strategies' `WarningsOnCreate`/`WarningsOnUpdate`): each a `Warning: 299 - "<text>"` header, which kubectl prints
as `Warning: <text>` on stderr."""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.registry.podwarnings import spec_and_meta_warnings, template_warnings
from tests.reference_server.ownserver import own_server
from tests.reference_server.test_real_clients import Kube, kube, serve_kube  # noqa: F401 - kube: a fixture

DOTS = "[must not contain dots]"
POD_NAME = ("metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS "
            "label is recommended: " + DOTS)
WORKLOAD_NAME = ("metadata.name: this is used in Pod names and hostnames, which can result in surprising "
                 "behavior; a DNS label is recommended: " + DOTS)
GIT = "spec.template.spec.volumes[0].gitRepo: deprecated in v1.11, and disabled by default in v1.33+"
MERGE = {"Content-Type": "application/merge-patch+json"}


def _c(name: str = "c", **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": "nginx", **extra}


def test_spec_warnings_in_upstreams_order_and_words() -> None:
    spec = {
        "nodeSelector": {"beta.kubernetes.io/os": "linux", "kubernetes.io/os": "linux"},
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "failure-domain.beta.kubernetes.io/zone", "operator": "Exists"}]}]}},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "k"}]}},
        "topologySpreadConstraints": [{"topologyKey": "beta.kubernetes.io/arch", "maxSkew": 1,
                                       "whenUnsatisfiable": "DoNotSchedule"}],
        "volumes": [{"name": "g", "gitRepo": {"repository": "r"}}, {"name": "s", "storageos": {"volumeName": "v"}},
                    {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {
                        "resources": {"requests": {"storage": "1500m"}}}}}}],
        "hostAliases": [{"ip": "1.1.1.1"}, {"ip": "1.1.1.1"}],
        "imagePullSecrets": [{"name": "a"}, {"name": "a"}, {}],
        "overhead": {"memory": "100m"},
        "containers": [_c("a", ports=[{"containerPort": 80, "protocol": "TCP"}],
                          resources={"limits": {"memory": "0.5"}},
                          env=[{"name": "X", "value": "1"}, {"name": "X", "value": "2"}]),
                       _c("b", ports=[{"containerPort": 80, "protocol": "TCP"},
                                      {"containerPort": 81, "protocol": "TCP", "hostIP": "10.0.0.1"}])],
        "terminationGracePeriodSeconds": -5,
    }
    meta = {"annotations": {"scheduler.alpha.kubernetes.io/critical-pod": "",
                            "seccomp.security.alpha.kubernetes.io/pod": "runtime/default",
                            "container.seccomp.security.alpha.kubernetes.io/a": "runtime/default",
                            "container.apparmor.security.beta.kubernetes.io/b": "runtime/default"}}
    assert spec_and_meta_warnings("", spec, meta, template=False) == [
        'spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        ".matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "
        '"topology.kubernetes.io/zone" instead',
        'spec.topologySpreadConstraints[0].topologyKey: beta.kubernetes.io/arch is deprecated since v1.14; use '
        '"kubernetes.io/arch" instead',
        "spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod",
        "metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "
        '"priorityClassName" field instead',
        "spec.volumes[0].gitRepo: deprecated in v1.11, and disabled by default in v1.33+",
        "spec.volumes[1].storageOS: deprecated in v1.22, non-functional in v1.25+",
        'spec.volumes[2].ephemeral.volumeClaimTemplate.spec.resources.requests[storage]: fractional byte value '
        '"1500m" is invalid, must be an integer',
        'spec.hostAliases[1].ip: duplicate ip "1.1.1.1"',
        'spec.imagePullSecrets[1].name: duplicate name "a"',
        'spec.imagePullSecrets[2].name: invalid empty name ""',
        'spec.overhead[memory]: fractional byte value "100m" is invalid, must be an integer',
        "metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "
        '"seccompProfile" field instead',
        "metadata.annotations[container.seccomp.security.alpha.kubernetes.io/a]: non-functional in v1.27+; use "
        'the "seccompProfile" field instead',
        'spec.containers[0].resources.limits[memory]: fractional byte value "500m" is invalid, must be an integer',
        'spec.containers[0].env[1]: hides previous definition of "X", which may be dropped when using apply',
        "spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]",
        "spec.containers[1].ports[1]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:81 "
        "Protocol:TCP HostIP:10.0.0.1}",
        "spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: a null "
        "labelSelector results in matching no pod",
    ]


def test_a_template_is_warned_of_its_apparmor_annotation_under_its_path() -> None:
    template = {"metadata": {"annotations": {"container.apparmor.security.beta.kubernetes.io/c": "unconfined"}},
                "spec": {"containers": [_c()]}}
    assert template_warnings("spec.template", template) == [
        "spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since "
        'v1.30; use the "appArmorProfile" field instead']
    template["spec"]["securityContext"] = {"appArmorProfile": {"type": "Unconfined"}}
    assert template_warnings("spec.template", template) == []


def test_port_overlaps_and_env_references() -> None:
    spec = {"containers": [_c("a", ports=[{"containerPort": 80, "protocol": "TCP", "hostPort": 8080}],
                              env=[{"name": "X", "value": "a"}, {"name": "X", "value": "$(X)b"}]),
                           _c("b", ports=[{"containerPort": 80, "protocol": "TCP"},
                                          {"containerPort": 80, "protocol": "TCP", "hostPort": 8080,
                                           "hostIP": "10.0.0.1"}])]}
    assert spec_and_meta_warnings("", spec, {}, template=False) == [
        "spec.containers[1].ports[0]: overlapping port definition with spec.containers[0].ports[0]",
        "spec.containers[1].ports[1]: dangerously ambiguous port definition with spec.containers[0].ports[0]",
        "spec.containers[1].ports[1]: overlapping port definition with spec.containers[1].ports[0]",
    ]


srv = own_server()


def _warnings(r: requests.Response) -> list[str]:
    return r.raw.headers.getlist("Warning")


def _header(text: str) -> str:
    return '299 - "' + text.replace('"', '\\"') + '"'


def _pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [_c()], **spec}}


def _template(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"labels": {"app": "w"}}, "spec": {"containers": [_c()], **spec}}


@pytest.fixture
def ns(srv: RunningServer) -> str:
    name = f"pw-{uuid.uuid4().hex[:8]}"
    assert requests.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": name}}).status_code == 201
    return name


def test_a_pod_create_is_warned_and_its_update_is_not(srv: RunningServer, ns: str) -> None:
    pods = f"{srv.url}/api/v1/namespaces/{ns}/pods"
    r = requests.post(pods, json=_pod("web.1", terminationGracePeriodSeconds=-1))
    assert r.status_code == 201, r.text
    assert _warnings(r) == [_header(POD_NAME), _header(
        "spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1")]
    plain = requests.post(pods, json=_pod("web"))
    assert plain.status_code == 201 and _warnings(plain) == []
    patched = requests.patch(f"{pods}/web.1", data=json.dumps({"metadata": {"labels": {"a": "b"}}}), headers=MERGE)
    assert patched.status_code == 200 and _warnings(patched) == []
    refused = requests.post(pods, json={**_pod("bad.1"), "spec": {}})
    assert refused.status_code == 422 and _warnings(refused) == []  # warnings follow a valid object only


def test_workloads_are_warned_on_create_and_on_a_template_change(srv: RunningServer, ns: str) -> None:
    base = f"{srv.url}/apis/apps/v1/namespaces/{ns}/deployments"
    git = {"volumes": [{"name": "g", "gitRepo": {"repository": "r"}}]}
    body = {"metadata": {"name": "web.v1"}, "spec": {"selector": {"matchLabels": {"app": "w"}},
                                                     "template": _template(**git)}}
    r = requests.post(base, json=body)
    assert r.status_code == 201, r.text
    assert _warnings(r) == [_header(WORKLOAD_NAME), _header(GIT)]
    same = requests.patch(f"{base}/web.v1", data=json.dumps({"metadata": {"labels": {"x": "y"}}}), headers=MERGE)
    assert same.status_code == 200 and _warnings(same) == []
    scaled = requests.patch(f"{base}/web.v1", data=json.dumps({"spec": {"replicas": 3}}), headers=MERGE)
    assert scaled.status_code == 200  # the generation moved: the (unchanged) template is warned of again
    assert _warnings(scaled) == [_header(GIT)]


def test_statefulset_and_job_and_cronjob_words(srv: RunningServer, ns: str) -> None:
    sts = {"metadata": {"name": "db"}, "spec": {
        "selector": {"matchLabels": {"app": "w"}}, "serviceName": "db", "template": _template(),
        "revisionHistoryLimit": -1,
        "volumeClaimTemplates": [{"metadata": {"name": "d"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "0.5"}}}}]}}
    r = requests.post(f"{srv.url}/apis/apps/v1/namespaces/{ns}/statefulsets", json=sts)
    assert r.status_code == 201, r.text
    assert _warnings(r) == [
        _header('spec.volumeClaimTemplates[0].resources.requests[storage]: fractional byte value "500m" is invalid, '
                "must be an integer"),
        _header("spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is "
                "recommended")]
    job = {"metadata": {"name": "j.1"}, "spec": {"template": {"spec": {
        "restartPolicy": "Never", "containers": [_c()], "imagePullSecrets": [{"name": ""}]}}}}
    r = requests.post(f"{srv.url}/apis/batch/v1/namespaces/{ns}/jobs", json=job)
    assert r.status_code == 201, r.text
    assert _warnings(r) == [_header(WORKLOAD_NAME),
                            _header('spec.template.spec.imagePullSecrets[0].name: invalid empty name ""')]
    cron = {"metadata": {"name": "c"}, "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {
        "spec": {"restartPolicy": "Never", "containers": [_c()], "nodeSelector": {"beta.kubernetes.io/os": "l"}}}}}}}
    r = requests.post(f"{srv.url}/apis/batch/v1/namespaces/{ns}/cronjobs", json=cron)
    assert r.status_code == 201, r.text
    assert _warnings(r) == [_header('spec.jobTemplate.spec.template.spec.nodeSelector[beta.kubernetes.io/os]: '
                                    'deprecated since v1.14; use "kubernetes.io/os" instead')]


def test_replication_controller_update_warns_of_the_stored_template(srv: RunningServer, ns: str) -> None:
    """`rcStrategy.WarningsOnUpdate` passes the old template where the new one belongs."""
    rcs = f"{srv.url}/api/v1/namespaces/{ns}/replicationcontrollers"
    body = {"metadata": {"name": "rc"}, "spec": {"template": _template(
        volumes=[{"name": "g", "gitRepo": {"repository": "r"}}])}}
    r = requests.post(rcs, json=body)
    assert r.status_code == 201 and _warnings(r) == [_header(GIT)]
    fixed = requests.patch(f"{rcs}/rc", data=json.dumps({"spec": {"template": {"spec": {"volumes": [
        {"name": "g", "emptyDir": {}}]}}}}), headers=MERGE)
    assert fixed.status_code == 200, fixed.text
    assert _warnings(fixed) == [_header(GIT)]
    templates = f"{srv.url}/api/v1/namespaces/{ns}/podtemplates"
    r = requests.post(templates, json={"metadata": {"name": "t"}, "template": _template(
        hostAliases=[{"ip": "1.2.3.4"}, {"ip": "1.2.3.4"}])})
    assert r.status_code == 201 and _warnings(r) == [_header('template.spec.hostAliases[1].ip: duplicate ip "1.2.3.4"')]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kube]:
    yield from serve_kube(tmp_path_factory, "podwarnings", flavor="bare")


def test_kubectl_prints_the_warnings(kube: Kube, tmp_path: Path) -> None:  # noqa: F811
    name, proc = kube.create_in_new_namespace("pw", _pod("web.1"), tmp_path)
    assert proc.returncode == 0 and proc.stdout == "pod/web.1 created\n", proc
    assert proc.stderr == f"Warning: {POD_NAME}\n"
    proc = kube.run("create", "deployment", "web.v1", "--image=nginx", "-n", name)
    assert proc.returncode == 0 and proc.stderr == f"Warning: {WORKLOAD_NAME}\n", proc


def test_daemonset_warns_when_its_template_generation_moves(srv: RunningServer, ns: str) -> None:
    """No name warning for a DaemonSet; an update warns only when `spec.templateGeneration` moved."""
    base = f"{srv.url}/apis/apps/v1/namespaces/{ns}/daemonsets"
    body = {"metadata": {"name": "agent.v1"}, "spec": {"selector": {"matchLabels": {"app": "w"}},
                                                       "template": _template(terminationGracePeriodSeconds=-2)}}
    grace = _header("spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid "
                    "and will be treated as 1")
    r = requests.post(base, json=body)
    assert r.status_code == 201 and _warnings(r) == [grace], (r.text, _warnings(r))
    same = requests.patch(f"{base}/agent.v1", data=json.dumps({"spec": {"minReadySeconds": 5}}), headers=MERGE)
    assert same.status_code == 200 and _warnings(same) == []
    moved = requests.patch(f"{base}/agent.v1", data=json.dumps(
        {"spec": {"template": {"metadata": {"labels": {"app": "w", "v": "2"}}}}}), headers=MERGE)
    assert moved.status_code == 200 and _warnings(moved) == [grace]
    templates = f"{srv.url}/api/v1/namespaces/{ns}/podtemplates"
    r = requests.post(templates, json={"metadata": {"name": "t"}, "template": _template()})
    assert r.status_code == 201 and _warnings(r) == []
    changed = requests.patch(f"{templates}/t", data=json.dumps({"template": {"spec": {"imagePullSecrets": [{}]}}}),
                             headers=MERGE)
    assert changed.status_code == 200
    assert _warnings(changed) == [_header('template.spec.imagePullSecrets[0].name: invalid empty name ""')]


def _projected(*sources: dict[str, Any]) -> dict[str, Any]:
    return {"name": "foo", "projected": {"sources": list(sources)}}


def test_overlapping_paths_of_a_volumes_items() -> None:
    """`warningsForOverlappingVirtualPaths` (1.33): equal paths, and a path under another, the later one first;
    trailing slashes trimmed; a name that only shares a prefix (`test`/`testing`) is no overlap."""
    volumes = [
        {"name": "Test", "configMap": {"name": "foo", "items": [{"key": "foo", "path": "test"},
                                                                  {"key": "bar", "path": "test/app"},
                                                                  {"key": "baz", "path": "testing"}]}},
        {"name": "s", "secret": {"secretName": "foo",
                                 "items": [{"key": "a", "path": "x/"}, {"key": "b", "path": "x"}]}},
        {"name": "d", "downwardAPI": {"items": [{"path": "a", "fieldRef": {"fieldPath": "metadata.name"}},
                                                {"path": "a/b", "fieldRef": {"fieldPath": "metadata.name"}}]}},
        {"name": "plain", "configMap": {"name": "c"}},
    ]
    assert template_warnings("spec.template", {"spec": {"volumes": volumes}}) == [
        'volume "Test" (ConfigMap "foo"): overlapping paths: "test/app" with "test"',
        'volume "s" (Secret "foo"): overlapping paths: "x" with "x"',
        'volume "d" (DownwardAPI): overlapping paths: "a/b" with "a"',
    ]


def test_overlapping_paths_across_a_projected_volumes_sources() -> None:
    """Every earlier path of the volume is checked, its source named; an empty source is warned of in place
    (upstream's `multiple sources` and `ServiceAccount vs. DownwardAPI` cases)."""
    ctb = {"clusterTrustBundle": {"signerName": "Test", "path": "test/test"}}
    downward = {"downwardAPI": {"items": [{"fieldRef": {"fieldPath": "metadata.name"}, "path": "test"}]}}
    secret = {"secret": {"name": "Test", "items": [{"key": "foo", "path": "test"}]}}
    token = {"serviceAccountToken": {"path": "test"}}
    spec = {"volumes": [_projected(ctb, downward, secret, {}, token)]}
    w = 'volume "foo" (Projected): overlapping paths: '
    assert spec_and_meta_warnings("", spec, {}, template=False) == [
        w + '"test" (DownwardAPI) with "test/test" (ClusterTrustBundle "Test")',
        w + '"test" (Secret "Test") with "test/test" (ClusterTrustBundle "Test")',
        w + '"test" (Secret "Test") with "test" (DownwardAPI)',
        'volume "foo" (Projected) has no sources provided',
        w + '"test" (ServiceAccountToken) with "test/test" (ClusterTrustBundle "Test")',
        w + '"test" (ServiceAccountToken) with "test" (DownwardAPI)',
        w + '"test" (ServiceAccountToken) with "test" (Secret "Test")',
    ]
    twice = {"downwardAPI": {"items": [{"fieldRef": {"fieldPath": "metadata.name"}, "path": "test"}] * 2}}
    assert spec_and_meta_warnings("", {"volumes": [_projected({"serviceAccountToken": {"path": "test/test2"}},
                                                              twice)]}, {}, template=False) == [
        w + '"test" (DownwardAPI) with "test/test2" (ServiceAccountToken)',
        w + '"test" (DownwardAPI) with "test/test2" (ServiceAccountToken)',
        w + '"test" (DownwardAPI) with "test" (DownwardAPI)',
    ]


def test_overlapping_paths_come_between_the_volume_and_the_host_alias_warnings(srv: RunningServer, ns: str) -> None:
    """A pod's create: after the deprecated volume plugins, before the duplicates; a clusterTrustBundle source is
    dropped first (its gate is off in 1.33), leaving an empty source."""
    pod = _pod("p", volumes=[
        {"name": "g", "gitRepo": {"repository": "r"}},
        {"name": "v", "projected": {"sources": [
            {"configMap": {"name": "c", "items": [{"key": "k", "path": "conf"}]}},
            {"serviceAccountToken": {"path": "conf/token"}},
            {"clusterTrustBundle": {"signerName": "example.com/s", "path": "ca"}}]}}],
        hostAliases=[{"ip": "1.1.1.1"}, {"ip": "1.1.1.1"}])
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/pods", json=pod)
    assert r.status_code == 201, r.text
    assert _warnings(r) == [
        _header("spec.volumes[0].gitRepo: deprecated in v1.11, and disabled by default in v1.33+"),
        _header('volume "v" (Projected): overlapping paths: "conf/token" (ServiceAccountToken) with "conf" '
                '(ConfigMap "c")'),
        _header('volume "v" (Projected) has no sources provided'),
        _header('spec.hostAliases[1].ip: duplicate ip "1.1.1.1"')]


def test_kubectl_prints_the_overlapping_paths_warning(kube: Kube, tmp_path: Path) -> None:  # noqa: F811
    name = f"pw-{uuid.uuid4().hex[:8]}"
    kube.ok("create", "namespace", name)
    manifest = tmp_path / "pod.json"
    manifest.write_text(json.dumps(_pod("web", volumes=[{"name": "cfg", "secret": {
        "secretName": "s", "items": [{"key": "a", "path": "app"}, {"key": "b", "path": "app/extra.conf"}]}}])))
    proc = kube.run("create", "-f", str(manifest), "-n", name)
    assert proc.returncode == 0 and proc.stdout == "pod/web created\n", proc
    assert proc.stderr == 'Warning: volume "cfg" (Secret "s"): overlapping paths: "app/extra.conf" with "app"\n'


def test_a_port_name_an_earlier_port_has_is_warned_of() -> None:
    """kubernetes#122170 (in 1.33): any two containers' ports, sidecars and init containers first in the walk;
    the names are walked after every port's definition was."""
    spec = {"initContainers": [_c("side", restartPolicy="Always", ports=[{"containerPort": 80, "name": "http"}])],
            "containers": [_c("a", ports=[{"containerPort": 8080, "name": "http"}, {"containerPort": 9090}]),
                           _c("b", ports=[{"containerPort": 8081, "name": "http"}, {"containerPort": 9090}])]}
    first = "spec.template.spec.initContainers[0].ports[0]"
    assert template_warnings("spec.template", {"spec": spec}) == [
        "spec.template.spec.containers[1].ports[1]: duplicate port definition with "
        "spec.template.spec.containers[0].ports[1]"] + [
        f'spec.template.spec.containers[{i}].ports[0]: duplicate port name "http" with {first}, services and probes '
        f"that select ports by name will use {first}" for i in (0, 1)]


def test_deprecated_ip_formats_and_preferred_affinity_label_values() -> None:
    """1.33's kubernetes#128786 (nameservers, then host aliases: the last warnings) and kubernetes#128212 (a
    preferred node affinity term's values; a required term's are validation's)."""
    spec = {"dnsConfig": {"nameservers": ["1.2.3.4", "05.06.07.08", "2001:DB8::1"]},
            "hostAliases": [{"ip": "::ffff:1.2.3.4"}],
            "terminationGracePeriodSeconds": -1,
            "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
                "weight": 10, "preference": {"matchExpressions": [
                    {"key": "beta.kubernetes.io/os", "operator": "In", "values": ["linux", "-1"]}]}}]}}}
    pref = ("spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference"
            ".matchExpressions[0]")
    assert spec_and_meta_warnings("", spec, {}, template=False) == [
        f'{pref}.key: beta.kubernetes.io/os is deprecated since v1.14; use "kubernetes.io/os" instead',
        f"{pref}.values[1]: -1 is invalid, a valid label must be an empty string or consist of alphanumeric "
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
        "'my_value',  or "
        "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        "spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1",
        'spec.dnsConfig.nameservers[1]: non-standard IP address "05.06.07.08" will be considered invalid in a future '
        'Kubernetes release: use "5.6.7.8"',
        'spec.dnsConfig.nameservers[2]: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format '
        '("2001:db8::1")',
        'spec.hostAliases[0].ip: non-standard IP address "::ffff:1.2.3.4" will be considered invalid in a future '
        'Kubernetes release: use "1.2.3.4"',
    ]


def test_a_pod_with_a_deprecated_ip_format_is_created_and_warned(srv: RunningServer, ns: str) -> None:
    r = requests.post(f"{srv.url}/api/v1/namespaces/{ns}/pods", json=_pod(
        "dns", dnsPolicy="None", dnsConfig={"nameservers": ["010.0.0.10"]}))
    assert r.status_code == 201, r.text
    assert _warnings(r) == [_header('spec.dnsConfig.nameservers[0]: non-standard IP address "010.0.0.10" will be '
                                    'considered invalid in a future Kubernetes release: use "10.0.0.10"')]
