"""The pod-spec rules that were accepted before: `validateEphemeralContainers` on the pod spec path, the claim
names ephemeral volumes imply, the legacy in-tree volume sources' own rules (podvalidation/legacyvolumes.py), and
the pod strategy's own changes (registry/podprepare.py: resourceClaims dropped while DynamicResourceAllocation is
off, matchLabelKeys merged into the affinity selectors, the SchedulingGated condition). Expected texts are
`pkg/apis/core/validation/validation.go`'s and `pkg/registry/core/pod/strategy.go`'s (1.33)."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.reference_server.registry.kinds import ResourceInfo
from conformance.reference_server.registry.pod import PodStrategy
from conformance.reference_server.registry.podvalidation import validate_pod_template_spec
from conformance.reference_server.registry.podvalidation.legacyvolumes import split_host_port

from tests.reference_server.registry.test_podvalidation import POD, pod_errors

EPH = "spec.ephemeralContainers[0]"
NOT_FOR_EPHEMERAL = "Forbidden: cannot be set for an Ephemeral Container"
CLAIM = {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"],
                                          "resources": {"requests": {"storage": "1Gi"}}}}}
LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
             "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def strategy() -> PodStrategy:
    return PodStrategy(ResourceInfo("Pod", "pods", "pod", ()))


def created(spec: dict[str, Any], labels: dict[str, str] | None = None) -> dict[str, Any]:
    pod = {"metadata": {"name": "p", "namespace": "n", "labels": labels or {}}, "spec": spec}
    s = strategy()
    s.default(pod)
    s.prepare_for_create(pod)
    return pod


def test_ephemeral_containers_get_every_container_rule_on_the_pod_spec_path() -> None:
    """`validateEphemeralContainers` in `ValidatePodSpec`: the common container rules, `validateContainerOnlyForPod`,
    the name, the target, the allow-list (in the Go struct's order), subPaths; then `ValidatePodCreate`'s refusal."""
    def change(s: dict[str, Any]) -> None:
        s["volumes"] = [{"name": "v", "emptyDir": {}}]
        s["ephemeralContainers"] = [{
            "name": "c", "image": " busybox", "targetContainerName": "nope", "terminationMessagePolicy": "Sometimes",
            "ports": [{"containerPort": 80}], "resources": {"limits": {"cpu": "1"}},
            "lifecycle": {"preStop": {"exec": {"command": ["x"]}}},
            "volumeMounts": [{"name": "v", "mountPath": "/v", "subPath": "s"}, {"name": "nope", "mountPath": "/w"}]}]

    assert pod_errors(change) == [
        f'{EPH}.terminationMessagePolicy: Unsupported value: "Sometimes": supported values: "File", '
        '"FallbackToLogsOnError"',
        f'{EPH}.volumeMounts[1].name: Not found: "nope"',
        f'{EPH}.image: Invalid value: " busybox": must not have leading or trailing whitespace',
        f'{EPH}.name: Duplicate value: "c"',
        f'{EPH}.targetContainerName: Not found: "nope"',
        f"{EPH}.ports: {NOT_FOR_EPHEMERAL}",
        f"{EPH}.resources: {NOT_FOR_EPHEMERAL}",
        f"{EPH}.lifecycle: {NOT_FOR_EPHEMERAL}",
        f"{EPH}.volumeMounts[0].subPath: {NOT_FOR_EPHEMERAL}",
        "spec.ephemeralContainers: Forbidden: cannot be set on create"]


def test_ephemeral_containers_are_defaulted_as_the_others() -> None:
    """`SetDefaults_EphemeralContainer`: no Required errors for the fields defaulting fills."""
    pod = created({"containers": [{"name": "c", "image": "nginx"}],
                   "ephemeralContainers": [{"name": "d", "image": "busybox:1"}]})
    assert pod["spec"]["ephemeralContainers"][0] == {
        "name": "d", "image": "busybox:1", "imagePullPolicy": "IfNotPresent", "resources": {},
        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}


def test_a_template_checks_ephemeral_containers_too() -> None:
    template = {"metadata": {}, "spec": copy.deepcopy(POD["spec"])}
    template["spec"]["ephemeralContainers"] = [{"name": "d", "image": "busybox", "ports": [{"containerPort": 1}]}]
    from conformance.reference_server.registry.pod import default_pod_spec
    default_pod_spec(template["spec"])
    assert [str(e) for e in validate_pod_template_spec(template, "template")] == [
        f"template.spec.ephemeralContainers[0].ports: {NOT_FOR_EPHEMERAL}",
        "template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"]


def test_an_ephemeral_volume_implies_a_claim_name() -> None:
    """`ValidateVolumes` with the pod's metadata: the `<pod>-<volume>` claim must be a valid name, and no
    persistentVolumeClaim volume may name it; a template (no podMeta) checks neither."""
    def change(s: dict[str, Any]) -> None:
        s["volumes"] = [{"name": "data", "ephemeral": CLAIM},
                        {"name": "other", "persistentVolumeClaim": {"claimName": "p-data"}}]

    assert pod_errors(change) == ['spec.volumes[1].persistentVolumeClaim.claimName: Invalid value: "p-data": must '
                                  "not reference a PVC that gets created for an ephemeral volume"]
    long = "a" * 250
    pod = created({"containers": [{"name": "c", "image": "nginx"}], "volumes": [{"name": "data", "ephemeral": CLAIM}]})
    pod["metadata"]["name"] = long
    assert [str(e) for e in strategy().validate(pod)] == [
        f'spec.volumes[0].name: Invalid value: "data": PVC name "{long}-data": must be no more than 253 characters']
    template = {"metadata": {}, "spec": copy.deepcopy(pod["spec"])}
    change(template["spec"])
    assert validate_pod_template_spec(template, "template") == []


@pytest.mark.parametrize("source, expected", [
    ({"gcePersistentDisk": {"pdName": "d", "partition": 256}},
     ["persistentDisk.partition: Invalid value: 256: must be between 1 and 255, inclusive"]),
    ({"awsElasticBlockStore": {"volumeID": "", "partition": -1}},
     ["awsElasticBlockStore.volumeID: Required value",
      "awsElasticBlockStore.partition: Invalid value: -1: must be between 1 and 255, inclusive"]),
    ({"iscsi": {"targetPortal": "10.0.0.1:3260" * 6, "iqn": "iqn.2001-04.com.example", "lun": 300,
                "chapAuthSession": True, "initiatorName": "eui.123"}},
     ['iscsi.iqn: Invalid value: "iqn.2001-04.com.example": must be valid format',
      "iscsi.lun: Invalid value: 300: must be between 0 and 255, inclusive",
      "iscsi.secretRef: Required value",
      'iscsi.initiatorname: Invalid value: "eui.123": must be valid format',
      'name: Invalid value: "v": Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if '
      "iscsi.initiatorName is specified."]),
    ({"iscsi": {"targetPortal": "t", "iqn": "xyz"}},
     ['iscsi.iqn: Invalid value: "xyz": must be valid format starting with iqn, eui, or naa']),
    ({"iscsi": {"targetPortal": "t", "iqn": "iqn.2001-04.com.example:storage"}}, []),
    ({"flocker": {"datasetName": "a/b", "datasetUUID": "u"}},
     ['flocker: Invalid value: "resource": datasetName and datasetUUID can not be specified simultaneously',
      "flocker.datasetName: Invalid value: \"a/b\": must not contain '/'"]),
    ({"flocker": {}}, ["flocker: Required value: one of datasetName and datasetUUID is required"]),
    ({"cinder": {"volumeID": "v", "secretRef": {}}}, ["cinder.secretRef.name: Required value"]),
    ({"quobyte": {"registry": "h:1,nohost,[::1]:7", "volume": ""}},
     ['quobyte.registry: Invalid value: "h:1,nohost,[::1]:7": must be a host:port pair or multiple pairs separated '
      "by commas", "quobyte.volume: Required value"]),
    ({"quobyte": {"registry": "h:1", "tenant": "x" * 65, "volume": "v"}},
     ["quobyte.tenant: Required value: must be a UUID and may not exceed a length of 64 characters"]),
    ({"flexVolume": {"driver": "d", "options": {"kubernetes.io/x": "1", "a.k8s.io": "2", "ok": "3"}}},
     ['flexVolume.options[kubernetes.io/x]: Invalid value: "kubernetes.io/x": kubernetes.io and k8s.io namespaces '
      "are reserved",
      'flexVolume.options[a.k8s.io]: Invalid value: "a.k8s.io": kubernetes.io and k8s.io namespaces are reserved']),
    ({"azureDisk": {"diskName": "d", "diskURI": "/x", "cachingMode": "Fast", "kind": "Managed"}},
     ['azureDisk.cachingMode: Unsupported value: "Fast": supported values: "None", "ReadOnly", "ReadWrite"',
      'azureDisk.diskURI: Unsupported value: "/x": supported values: "/subscriptions/{sub-id}/resourcegroups/'
      '{group-name}/providers/microsoft.compute/disks/{disk-id}"']),
    ({"azureDisk": {"diskName": "d", "diskURI": "/x"}},  # kind defaults to Shared: a blob URI
     ['azureDisk.diskURI: Unsupported value: "/x": supported values: "https://{account-name}.blob.core.windows.net/'
      '{container-name}/{disk-name}.vhd"']),
    ({"storageos": {"volumeName": "Bad_Name", "volumeNamespace": "NS", "secretRef": {"name": ""}}},
     [f'storageos.volumeName: Invalid value: "Bad_Name": {LABEL_MSG}',
      f'storageos.volumeNamespace: Invalid value: "NS": {LABEL_MSG}', "storageos.secretRef.name: Required value"]),
    ({"fc": {"targetWWNs": ["a"], "wwids": ["b"], "lun": 256}},
     ['fc.targetWWNs: Invalid value: []string{"a"}: targetWWNs and wwids can not be specified simultaneously',
      "fc.lun: Invalid value: 256: must be between 0 and 255, inclusive"]),
    ({"fc": {"targetWWNs": ["a"]}}, ["fc.lun: Required value: lun is required if targetWWNs is specified"]),
    ({"fc": {}}, ["fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both"]),
])
def test_legacy_volume_sources(source: dict[str, Any], expected: list[str]) -> None:
    assert pod_errors(lambda s: s.update(volumes=[{"name": "v", **source}])) == \
        [f"spec.volumes[0].{e}" for e in expected]


def test_the_iscsi_name_length_is_checked_when_iscsi_is_not_the_first_source() -> None:
    source = {"nfs": {"server": "s", "path": "/p"},
              "iscsi": {"targetPortal": "x" * 70, "iqn": "naa." + "0" * 32, "initiatorName": "naa." + "0" * 32}}
    assert pod_errors(lambda s: s.update(volumes=[{"name": "v", **source}])) == [
        "spec.volumes[0].iscsi: Forbidden: may not specify more than 1 volume type",
        'spec.volumes[0].name: Invalid value: "v": Total length of <volume name>:<iscsi.targetPortal> must be under '
        "64 characters if iscsi.initiatorName is specified."]


@pytest.mark.parametrize("hostport, ok", [
    ("h:1", True), ("h:", True), ("[::1]:7", True), ("", False), ("nohost", False), ("a:b:c", False),
    ("[::1]", False), ("[::1]x:7", False), ("[::1]:7]", False), ("h[:1", False)])
def test_split_host_port_reads_as_go(hostport: str, ok: bool) -> None:
    assert split_host_port(hostport) is ok


def test_resource_claims_are_dropped_while_dynamic_resource_allocation_is_off() -> None:
    """`dropDisabledDynamicResourceAllocationFields`: on create, and on an update of a pod stored without
    resourceClaims; a pod stored with them keeps them."""
    spec = {"containers": [{"name": "c", "image": "nginx", "resources": {"claims": [{"name": "gpu"}]}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimName": "x"}]}
    pod = created(copy.deepcopy(spec))
    assert "resourceClaims" not in pod["spec"] and pod["spec"]["containers"][0]["resources"] == {}
    new = copy.deepcopy(pod)
    new["spec"].update(copy.deepcopy(spec))
    s = strategy()
    s.prepare_for_update(new, pod)
    assert "resourceClaims" not in new["spec"] and "claims" not in new["spec"]["containers"][0]["resources"]
    old = copy.deepcopy(pod)
    old["spec"]["resourceClaims"] = spec["resourceClaims"]
    new = copy.deepcopy(old)
    new["spec"]["containers"][0]["resources"] = {"claims": [{"name": "gpu"}]}
    s.prepare_for_update(new, old)
    assert new["spec"]["resourceClaims"] and new["spec"]["containers"][0]["resources"]["claims"]


def test_match_label_keys_are_merged_into_the_affinity_selectors() -> None:
    """`mutatePodAffinity`: the pod's values for matchLabelKeys (`In`) and mismatchLabelKeys (`NotIn`), keys the
    pod lacks skipped, a term without a labelSelector untouched."""
    term = {"topologyKey": "zone", "labelSelector": {"matchLabels": {"tier": "x"}},
            "matchLabelKeys": ["app", "absent"], "mismatchLabelKeys": ["ver"]}
    affinity = {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [copy.deepcopy(term),
                                                            {"topologyKey": "zone", "matchLabelKeys": []}],
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": copy.deepcopy(term)}]}}
    pod = created({"containers": [{"name": "c", "image": "nginx"}], "affinity": affinity},
                  labels={"app": "web", "ver": "1"})
    merged = [{"key": "app", "operator": "In", "values": ["web"]}, {"key": "ver", "operator": "NotIn", "values": ["1"]}]
    anti = pod["spec"]["affinity"]["podAntiAffinity"]
    assert anti["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"] == {
        "matchLabels": {"tier": "x"}, "matchExpressions": merged}
    assert "labelSelector" not in anti["requiredDuringSchedulingIgnoredDuringExecution"][1]
    assert anti["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]["labelSelector"][
        "matchExpressions"] == merged
    assert strategy().validate(pod) == []


def test_a_key_both_in_match_label_keys_and_the_selector_is_refused_after_the_merge() -> None:
    term = {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["app"]}
    pod = created({"containers": [{"name": "c", "image": "nginx"}],
                   "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}},
                  labels={"app": "web"})
    assert [str(e) for e in strategy().validate(pod)] == [
        'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]: Invalid value: "app": '
        "exists in both matchLabelKeys and labelSelector"]


def test_a_gated_pod_is_created_with_the_scheduling_gated_condition() -> None:
    pod = created({"containers": [{"name": "c", "image": "nginx"}], "schedulingGates": [{"name": "example.com/a"}]})
    [condition] = pod["status"]["conditions"]
    assert {k: v for k, v in condition.items() if k != "lastTransitionTime"} == {
        "type": "PodScheduled", "status": "False", "lastProbeTime": None, "reason": "SchedulingGated",
        "message": "Scheduling is blocked due to non-empty scheduling gates"}
    assert condition["lastTransitionTime"].endswith("Z")
    assert "conditions" not in created({"containers": [{"name": "c", "image": "nginx"}]})["status"]


def test_stop_signals_are_dropped_while_container_stop_signals_is_off() -> None:
    """`dropContainerStopSignals` (ContainerStopSignals alpha, off in 1.33): the field, and a lifecycle left
    empty; kept when the stored pod uses it."""
    spec = {"containers": [{"name": "c", "image": "nginx", "lifecycle": {"stopSignal": "SIGUSR1"}},
                           {"name": "d", "image": "nginx", "lifecycle": {
                               "stopSignal": "SIGTERM", "preStop": {"exec": {"command": ["x"]}}}}]}
    pod = created(copy.deepcopy(spec))
    assert "lifecycle" not in pod["spec"]["containers"][0]
    assert pod["spec"]["containers"][1]["lifecycle"] == {"preStop": {"exec": {"command": ["x"]}}}
    old = copy.deepcopy(pod)
    old["spec"]["containers"][1]["lifecycle"]["stopSignal"] = "SIGTERM"
    new = copy.deepcopy(old)
    new["spec"]["containers"][0]["lifecycle"] = {"stopSignal": "SIGINT"}
    strategy().prepare_for_update(new, old)
    assert new["spec"]["containers"][0]["lifecycle"] == {"stopSignal": "SIGINT"}


@pytest.mark.parametrize("group, plural, body", [
    ("apps", "deployments", {"spec": {"selector": {"matchLabels": {"a": "b"}}, "template": "T"}}),
    ("batch", "cronjobs", {"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": "T"}}}}),
    ("", "podtemplates", {"template": "T"}),
])
def test_templates_drop_them_too(group: str, plural: str, body: dict[str, Any]) -> None:
    """`DropDisabledTemplateFields` in the workload strategies' PrepareForCreate/PrepareForUpdate."""
    import json

    from conformance.reference_server.registry import Registry
    from conformance.reference_server.storage.memory import MemoryStore
    template = {"metadata": {"labels": {"a": "b"}}, "spec": {
        "restartPolicy": "OnFailure" if plural == "cronjobs" else "Always",
        "containers": [{"name": "c", "image": "nginx", "resources": {"claims": [{"name": "gpu"}]},
                        "lifecycle": {"stopSignal": "SIGUSR1"}}],
        "resourceClaims": [{"name": "gpu", "resourceClaimName": "x"}]}}
    body = json.loads(json.dumps(body).replace('"T"', json.dumps(template)))
    registry = Registry(MemoryStore())
    registry.namespaces.create({"metadata": {"name": "n"}})
    store = registry.content(plural) if not group else registry.group(group, plural)
    obj = {**body, "metadata": {"name": "w", "namespace": "n"}}
    store.strategy.default(obj)
    got = store.create(obj)
    text = json.dumps(got)
    assert "resourceClaims" not in text and "claims" not in text and "stopSignal" not in text


def test_apparmor_fields_and_annotations_are_synced_on_create() -> None:
    """`applyAppArmorVersionSkew`: a field (the container's, else the pod's) writes the missing annotation; an
    annotation without a container field sets it unless the pod-level profile is the same."""
    from conformance.reference_server.warning import RECORDER

    key = "container.apparmor.security.beta.kubernetes.io/"
    pod = {"metadata": {"name": "p", "namespace": "n", "annotations": {
        f"{key}b": "localhost/prof", f"{key}c": "runtime/default", f"{key}d": "bogus"}},
        "spec": {"securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}},
                 "initContainers": [{"name": "i", "image": "busybox"}],
                 "containers": [{"name": "a", "image": "nginx",
                                 "securityContext": {"appArmorProfile": {"type": "Unconfined"}}},
                                {"name": "b", "image": "nginx"}, {"name": "c", "image": "nginx"},
                                {"name": "d", "image": "nginx"}]}}
    s = strategy()
    s.default(pod)
    token = RECORDER.set([])
    try:
        s.prepare_for_create(pod)
        warnings = RECORDER.get()
    finally:
        RECORDER.reset(token)
    assert pod["metadata"]["annotations"] == {
        f"{key}b": "localhost/prof", f"{key}c": "runtime/default", f"{key}d": "bogus",
        f"{key}i": "runtime/default", f"{key}a": "unconfined"}
    containers = {c["name"]: c for c in pod["spec"]["containers"]}
    assert containers["b"]["securityContext"] == {"appArmorProfile": {"type": "Localhost",
                                                                      "localhostProfile": "prof"}}
    assert "securityContext" not in containers["c"] and "securityContext" not in containers["d"]
    assert warnings == [f'metadata.annotations[{key}{n}]: deprecated since v1.30; use the "appArmorProfile" field '
                        "instead" for n in ("b", "d")]
    windows = created({"os": {"name": "windows"}, "containers": [{"name": "a", "image": "nginx"}],
                       "securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}}})
    assert not windows["metadata"].get("annotations")


def test_pod_level_resources_trust_bundles_and_image_volumes_are_dropped() -> None:
    """PodLevelResources (alpha), ClusterTrustBundleProjection (beta, off) and ImageVolume (off) in 1.33:
    `dropDisabledPodLevelResources`, `dropDisabledClusterTrustBundleProjection`, `dropImageVolumes`."""
    pod = created({"resources": {"limits": {"cpu": "1"}},
                   "volumes": [{"name": "img", "image": {"reference": "busybox"}},
                               {"name": "ctb", "projected": {"sources": [
                                   {"clusterTrustBundle": {"signerName": "example.com/s", "path": "b.pem"}},
                                   {"configMap": {"name": "cm"}}]}}],
                   "containers": [{"name": "c", "image": "nginx",
                                   "volumeMounts": [{"name": "img", "mountPath": "/img"}]},
                                  {"name": "d", "image": "nginx", "volumeMounts": [
                                      {"name": "img", "mountPath": "/img"}, {"name": "ctb", "mountPath": "/ctb"}]}]})
    spec = pod["spec"]
    assert "resources" not in spec
    assert [v["name"] for v in spec["volumes"]] == ["ctb"]
    assert spec["volumes"][0]["projected"]["sources"] == [{}, {"configMap": {"name": "cm"}}]
    assert "volumeMounts" not in spec["containers"][0]
    assert spec["containers"][1]["volumeMounts"] == [{"name": "ctb", "mountPath": "/ctb"}]
    assert strategy().validate(pod) == []
