"""Pod-spec validation (registry/podvalidation/, `pkg/apis/core/validation/validation.go` 1.33) through the pod
and pod-template strategies: each case is one client mistake and the exact `field.Error` text upstream sends, in
upstream's order (the expected texts are those of upstream's validation functions and their tests)."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.reference_server.registry.kinds import ResourceInfo
from conformance.reference_server.registry.pod import PodStrategy
from conformance.reference_server.registry.podvalidation import validate_pod_template_spec
from conformance.reference_server.registry.pod import default_pod_spec

POD = {"metadata": {"name": "p", "namespace": "n"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}


def pod_errors(change: Any) -> list[str]:
    pod = copy.deepcopy(POD)
    change(pod["spec"])
    strategy = PodStrategy(ResourceInfo("Pod", "pods", "pod", ()))
    strategy.default(pod)
    strategy.prepare_for_create(pod)
    return [str(e) for e in strategy.validate(pod)]


def c0(spec: dict[str, Any]) -> dict[str, Any]:
    return spec["containers"][0]


@pytest.mark.parametrize("change, expected", [
    (lambda s: c0(s).update(name="Web_1"),
     ['spec.containers[0].name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case '
      "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
      "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]),
    (lambda s: s.update(initContainers=[{"name": "c", "image": "busybox"}]),
     ['spec.initContainers[0].name: Duplicate value: "c"']),
    (lambda s: c0(s).update(ports=[{"containerPort": 0}, {"containerPort": 70000, "protocol": "ICMP"}]),
     ["spec.containers[0].ports[0].containerPort: Required value",
      "spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
      'spec.containers[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"']),
    (lambda s: c0(s).update(ports=[{"containerPort": 80, "name": "http"}, {"containerPort": 81, "name": "http"},
                                   {"containerPort": 82, "name": "web-server-long-name"}]),
     ['spec.containers[0].ports[1].name: Duplicate value: "http"',
      'spec.containers[0].ports[2].name: Invalid value: "web-server-long-name": must be no more than 15 characters']),
    (lambda s: c0(s).update(env=[{"name": ""}, {"name": "A=B", "value": "x"}, {"name": "my.var-1 x"}]),
     ["spec.containers[0].env[0].name: Required value",
      'spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of '
      "printable ASCII characters other than '='"]),
    (lambda s: c0(s).update(env=[{"name": "A", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                                 {"name": "B", "valueFrom": {}},
                                 {"name": "C", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"},
                                                             "configMapKeyRef": {"name": "m", "key": "k"}}}]),
     ['spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
      'spec.containers[0].env[1].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, '
      "`configMapKeyRef` or `secretKeyRef`",
      'spec.containers[0].env[2].valueFrom: Invalid value: "": may not have more than one field specified at a '
      "time"]),
    (lambda s: c0(s).update(resources={"limits": {"cpu": "500m"}, "requests": {"cpu": "1", "memory": "1Gi"}}),
     ['spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m']),
    (lambda s: c0(s).update(resources={"requests": {"example.com/gpu": "1", "gpu": "1"}}),
     ["spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
      'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully '
      "qualified",
      'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for '
      "containers"]),
    (lambda s: c0(s).update(volumeMounts=[{"name": "data", "mountPath": "/d"}, {"name": "cfg", "mountPath": "/d"}]),
     ['spec.containers[0].volumeMounts[0].name: Not found: "data"',
      'spec.containers[0].volumeMounts[1].name: Not found: "cfg"',
      'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/d": must be unique']),
    (lambda s: s.update(volumes=[{"name": "v", "emptyDir": {}, "configMap": {"name": "c"}},
                                 {"name": "w", "secret": {}}, {"name": "w", "emptyDir": {}}]),
     ["spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type",
      "spec.volumes[1].secret.secretName: Required value"]),
    (lambda s: s.update(restartPolicy="Sometimes", dnsPolicy="Cluster"),
     ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", '
      '"Default", "None"']),
    (lambda s: c0(s).update(imagePullPolicy="Sometimes", terminationMessagePolicy="Log"),
     ['spec.containers[0].terminationMessagePolicy: Unsupported value: "Log": supported values: "File", '
      '"FallbackToLogsOnError"',
      'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", '
      '"IfNotPresent", "Never"']),
    (lambda s: c0(s).update(livenessProbe={"successThreshold": 2}, readinessProbe={"httpGet": {"port": 0}}),
     ["spec.containers[0].livenessProbe: Required value: must specify a handler type",
      "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
      "spec.containers[0].readinessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive"]),
    (lambda s: s.update(initContainers=[{"name": "i", "image": "busybox", "readinessProbe": {"exec": {}}}]),
     ["spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without "
      "restartPolicy=Always"]),
    (lambda s: s.update(tolerations=[{"operator": "Equal", "value": "x"}, {"key": "k", "tolerationSeconds": 5,
                                                                         "effect": "NoSchedule"}]),
     ['spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which '
      'means "match all values and all keys"',
      'spec.tolerations[1].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when '
      "`tolerationSeconds` is set"]),
    (lambda s: s.update(nodeSelector={"disk type": "ssd"}),
     ['spec.nodeSelector: Invalid value: "disk type": name part must consist of alphanumeric characters, \'-\', '
      "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
      "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]),
    (lambda s: c0(s).update(image=" nginx", securityContext={"runAsUser": -1}),
     ["spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
      'spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace']),
])
def test_pod_spec_errors(change: Any, expected: list[str]) -> None:
    assert pod_errors(change) == expected


def test_valid_pod_defaults_requests_from_limits_and_passes() -> None:
    """`SetDefaults_Pod`: a pod's missing requests take its limits (templates keep theirs unset)."""
    pod = copy.deepcopy(POD)
    c0(pod["spec"])["resources"] = {"limits": {"cpu": "1", "example.com/gpu": "2"}}
    strategy = PodStrategy(ResourceInfo("Pod", "pods", "pod", ()))
    strategy.prepare_for_create(pod)
    assert strategy.validate(pod) == []
    assert c0(pod["spec"])["resources"]["requests"] == {"cpu": "1", "example.com/gpu": "2"}


def test_empty_image_defaults_pull_policy_so_only_the_image_is_required() -> None:
    assert pod_errors(lambda s: c0(s).update(image="")) == ["spec.containers[0].image: Required value"]


def test_template_labels_and_ephemeral_containers() -> None:
    """`ValidatePodTemplateSpec`: the labels' path has no `metadata` (upstream's), templates may not hold ephemeral
    containers; whitespace around an image is a pod-only rule."""
    spec = {"containers": [{"name": "c", "image": " nginx"}], "ephemeralContainers": [{"name": "e", "image": "x"}]}
    default_pod_spec(spec)
    errs = [str(e) for e in validate_pod_template_spec({"metadata": {"labels": {"a": "b c"}}, "spec": spec},
                                                       "spec.template")]
    assert errs == [
        'spec.template.labels: Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
        "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        "spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"]


def test_affinity() -> None:
    """`validateAffinity`: node selector terms and requirements, weights, pod affinity terms' topologyKey."""
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In"}, {"key": "cpu", "operator": "Gt",
                                                                          "values": ["1", "2"]}],
                 "matchFields": [{"key": "metadata.uid", "operator": "In", "values": ["x"]}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "preference": {}}]},
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"app": "x"}}}],
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 101, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}}]}}
    assert pod_errors(lambda s: s.update(affinity=affinity)) == [
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        ".matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        ".matchExpressions[1].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        '.matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key',
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: "
        "must be in the range 1-100",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required "
        "value: can not be empty",
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid "
        'value: "": name part must be non-empty',
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid "
        "value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
        "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: "
        "101: must be in the range 1-100"]
