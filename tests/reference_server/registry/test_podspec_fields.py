"""The pod-spec rules beyond the common ones (registry/podvalidation/: security.py, downwardapi.py, volumes.py,
affinity.py's topology spread, podspec.py's gates, host aliases, DNS config, overhead, OS): each case is one
client mistake and the exact `field.Error` text of `pkg/apis/core/validation/validation.go` (1.33), in upstream's
order. Each of these manifests was accepted before."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.registry.kinds import ResourceInfo
from conformance.reference_server.registry.pod import PodStrategy
from conformance.reference_server.registry.podvalidation import validate_pod_object, validate_pod_template_spec

from tests.reference_server.registry.test_podvalidation import c0, pod_errors

SYSCTL_RE = "^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"
CPU_DIVISOR = "only divisor's values 1m and 1 are supported with the cpu resource"
MODE = "must be a number between 0 and 0777 (octal), both inclusive"


def spread(**extra: Any) -> dict[str, Any]:
    return {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"}}, **extra}


CASES = [
    # topologySpreadConstraints
    (lambda s: s.update(topologySpreadConstraints=[
        {"maxSkew": 0, "whenUnsatisfiable": "Sometimes"},
        spread(minDomains=0, whenUnsatisfiable="ScheduleAnyway", nodeAffinityPolicy="Always"),
        spread(), spread(matchLabelKeys=["app", "Bad Key"])]),
     ["spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
      "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty",
      'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Sometimes": supported values: '
      '"DoNotSchedule", "ScheduleAnyway"',
      "spec.topologySpreadConstraints[1].minDomains: Invalid value: 0: must be greater than zero",
      "spec.topologySpreadConstraints[1].minDomains: Invalid value: 0: can only use minDomains if "
      "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
      'spec.topologySpreadConstraints[1].nodeAffinityPolicy: Unsupported value: "Always": supported values: '
      '"Honor", "Ignore"',
      'spec.topologySpreadConstraints[2].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"',
      'spec.topologySpreadConstraints[3].matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and '
      "labelSelector",
      'spec.topologySpreadConstraints[3].matchLabelKeys[1]: Invalid value: "Bad Key": name part must consist of '
      "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
      "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]),
    # readiness and scheduling gates, host aliases, dnsConfig
    (lambda s: s.update(readinessGates=[{"conditionType": "example.com/ready"}, {"conditionType": "not ok"}],
                        schedulingGates=[{"name": "example.com/wait"}, {"name": "example.com/wait"}],
                        hostAliases=[{"ip": "10.0.0.300", "hostnames": ["ok.example", "Not_OK"]}],
                        dnsConfig={"nameservers": ["1.1.1.1", "8.8.8.8", "9.9.9.9", "1.0.0.1"],
                                   "searches": [".", "_sip._tcp.example.com.", "Bad.Domain."],
                                   "options": [{"value": "2"}]}),
     ['spec.dnsConfig.nameservers: Invalid value: []string{"1.1.1.1", "8.8.8.8", "9.9.9.9", "1.0.0.1"}: must not '
      "have more than 3 nameservers",
      'spec.dnsConfig.searches[2]: Invalid value: "Bad.Domain": a lowercase RFC 1123 subdomain must consist of lower '
      "case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. "
      "'example.com', regex used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*"
      "[a-z0-9])?)*')",
      "spec.dnsConfig.options[0]: Required value: must not be empty",
      'spec.readinessGates[1].conditionType: Invalid value: "not ok": name part must consist of alphanumeric '
      "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
      "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'spec.schedulingGates[1]: Duplicate value: "example.com/wait"',
      'spec.hostAliases[0].ip: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or '
      "2001:db8::ffff)",
      'spec.hostAliases[0].hostnames[1]: Invalid value: "Not_OK": a lowercase RFC 1123 subdomain must consist of '
      "lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
      "'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
    # the pod security context: sysctls, seccomp, AppArmor, policies
    (lambda s: s.update(hostNetwork=True, shareProcessNamespace=True, hostPID=True, securityContext={
        "sysctls": [{"name": "net.core.somaxconn", "value": "1"}, {"name": "Kernel.Bad"}, {"name": ""},
                    {"name": "kernel.shm_rmid_forced"}, {"name": "kernel.shm_rmid_forced"}],
        "fsGroupChangePolicy": "Sometimes",
        "seccompProfile": {"type": "RuntimeDefault", "localhostProfile": "p.json"},
        "appArmorProfile": {"type": "Localhost"},
        "supplementalGroupsPolicy": "Loose", "seLinuxChangePolicy": "Never"}),
     ["spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot "
      "both be enabled",
      'spec.securityContext.sysctls[0].name: Invalid value: "net.core.somaxconn": may not be specified when '
      "'hostNetwork' is true",
      f'spec.securityContext.sysctls[1].name: Invalid value: "Kernel.Bad": must have at most 253 characters and '
      f"match regex {SYSCTL_RE}",
      "spec.securityContext.sysctls[2].name: Required value",
      'spec.securityContext.sysctls[4].name: Duplicate value: "kernel.shm_rmid_forced"',
      'spec.securityContext.fsGroupChangePolicy: Unsupported value: "Sometimes": supported values: "Always", '
      '"OnRootMismatch"',
      'spec.securityContext.seccompProfile.localhostProfile: Invalid value: core.SeccompProfile{Type:"RuntimeDefault",'
      " LocalhostProfile:(*string)(0xc000000000)}: can only be set when seccomp type is Localhost",
      "spec.securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is "
      "Localhost",
      'spec.securityContext.supplementalGroupsPolicy: Unsupported value: "Loose": supported values: "Merge", '
      '"Strict"',
      'spec.securityContext.seLinuxChangePolicy: Unsupported value: "Never": supported values: "MountOption", '
      '"Recursive"']),
    # a container's security context
    (lambda s: c0(s).update(securityContext={
        "privileged": True, "allowPrivilegeEscalation": False, "procMount": "Unmasked",
        "seccompProfile": {"type": "Localhost", "localhostProfile": "/etc/p.json"},
        "appArmorProfile": {"type": "Strict"}, "windowsOptions": {"runAsUserName": "a\\b\\c"}}),
     ['spec.containers[0].securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use '
      "`Unmasked`",
      'spec.containers[0].securityContext.seccompProfile.localhostProfile: Invalid value: "/etc/p.json": must be a '
      "relative path",
      "spec.containers[0].securityContext: Invalid value: core.SecurityContext{Capabilities:(*core.Capabilities)(nil), "
      "Privileged:(*bool)(0xc000000000), SELinuxOptions:(*core.SELinuxOptions)(nil), "
      "WindowsOptions:(*core.WindowsSecurityContextOptions)(0xc000000000), RunAsUser:(*int64)(nil), "
      "RunAsGroup:(*int64)(nil), RunAsNonRoot:(*bool)(nil), ReadOnlyRootFilesystem:(*bool)(nil), "
      "AllowPrivilegeEscalation:(*bool)(0xc000000000), ProcMount:(*core.ProcMountType)(0xc000000000), "
      "SeccompProfile:(*core.SeccompProfile)(0xc000000000), AppArmorProfile:(*core.AppArmorProfile)(0xc000000000)}: "
      "cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
      'spec.containers[0].securityContext.windowsOptions.runAsUserName: Invalid value: "a\\\\b\\\\c": runAsUserName '
      "cannot contain more than one backslash",
      'spec.containers[0].securityContext.appArmorProfile.type: Unsupported value: "Strict": supported values: '
      '"Localhost", "RuntimeDefault", "Unconfined"']),
    # os.name: the Windows rules
    (lambda s: s.update(os={"name": "windows"}, hostPID=True, securityContext={"runAsUser": 1})
     or c0(s).update(securityContext={"privileged": False}),
     ["spec.hostPID: Forbidden: cannot be set for a windows pod",
      "spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod",
      "spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod"]),
    (lambda s: s.update(os={"name": "plan9"}),
     ['spec.os: Unsupported value: "plan9": supported values: "linux", "windows"']),
    (lambda s: s.update(os={}), ["spec.os.name: Required value: cannot be empty"]),
    # volumes' own fields
    (lambda s: s.update(volumes=[
        {"name": "a", "configMap": {"name": "cm", "defaultMode": 1000,
                                    "items": [{"key": "k", "path": "../x"}, {"path": "/abs", "mode": -1}]}},
        {"name": "b", "hostPath": {"path": "/var/../etc", "type": "Folder"}},
        {"name": "c", "nfs": {"server": "nfs", "path": "share"}},
        {"name": "d", "csi": {"driver": "Bad_Driver"}},
        {"name": "e", "downwardAPI": {"items": [{"path": "..labels", "fieldRef": {"fieldPath": "spec.nodeName"}},
                                                {"path": "cpu", "resourceFieldRef": {"resource": "limits.cpu",
                                                                                     "divisor": "2"}}]}}]),
     [f"spec.volumes[0].configMap.defaultMode: Invalid value: 1000: {MODE}",
      'spec.volumes[0].configMap.items[0].path: Invalid value: "../x": must not contain \'..\'',
      "spec.volumes[0].configMap.items[1].key: Required value",
      'spec.volumes[0].configMap.items[1].path: Invalid value: "/abs": must be a relative path',
      f"spec.volumes[0].configMap.items[1].mode: Invalid value: -1: {MODE}",
      'spec.volumes[1].hostPath.path: Invalid value: "/var/../etc": must not contain \'..\'',
      'spec.volumes[1].hostPath.type: Unsupported value: "Folder": supported values: "", "BlockDevice", '
      '"CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
      'spec.volumes[2].nfs.path: Invalid value: "share": must be an absolute path',
      'spec.volumes[3].csi.driver: Invalid value: "Bad_Driver": a lowercase RFC 1123 subdomain must consist of lower '
      "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
      "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'spec.volumes[4].downwardAPI.path: Invalid value: "..labels": must not start with \'..\'',
      'spec.volumes[4].downwardAPI.fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: '
      '"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"',
      "spec.volumes[4].downwardAPI.resourceFieldRef.containerName: Required value",
      f'spec.volumes[4].downwardAPI.resourceFieldRef.divisor: Invalid value: "limits.cpu": {CPU_DIVISOR}']),
    (lambda s: s.update(serviceAccountName="sa", volumes=[{"name": "p", "projected": {"sources": [
        {"secret": {"name": "s", "items": [{"key": "a", "path": "x"}]},
         "configMap": {"name": "c", "items": [{"key": "b", "path": "x"}]}},
        {"serviceAccountToken": {"path": "token", "expirationSeconds": 60}}]}}]),
     ['spec.volumes[0].projected: Invalid value: "c": conflicting duplicate paths',
      "spec.volumes[0].projected.sources[0]: Forbidden: may not specify more than 1 volume type per source",
      "spec.volumes[0].projected.sources[1].serviceAccountToken.expirationSeconds: Invalid value: 60: may not "
      "specify a duration less than 10 minutes"]),
    (lambda s: s.update(volumes=[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
        "metadata": {"name": "x", "labels": {"a": "b"}}, "spec": {"resources": {"requests": {"storage": "-1Gi"}}}}}}]),
     ["spec.volumes[0].ephemeral.volumeClaimTemplate.metadata.name: Forbidden: cannot be set",
      "spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes: Required value: at least 1 access mode is "
      "required",
      'spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources[storage]: Invalid value: "-1Gi": must be greater '
      "than zero"]),
    # containers: mounts, devices, resize policy, sleep, the downward API in env
    (lambda s: s.update(volumes=[{"name": "data", "emptyDir": {}}, {"name": "claim",
                                                                   "persistentVolumeClaim": {"claimName": "c"}}])
     or c0(s).update(volumeMounts=[{"name": "data", "mountPath": "/d", "subPath": "../up",
                                    "mountPropagation": "Bidirectional", "recursiveReadOnly": "Enabled"},
                                   {"name": "claim", "mountPath": "/dev/xvda"}],
                     volumeDevices=[{"name": "data", "devicePath": "/dev/xvda"}, {"name": "claim", "devicePath": ""}],
                     resizePolicy=[{"resourceName": "cpu", "restartPolicy": "Sometimes"},
                                   {"resourceName": "cpu", "restartPolicy": "NotRequired"},
                                   {"resourceName": "gpu", "restartPolicy": "NotRequired"}],
                     lifecycle={"preStop": {"sleep": {"seconds": 31}}},
                     env=[{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "spec.bogus"}}},
                          {"name": "C", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "5m"}}}]),
     ['spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "spec.bogus": error converting '
      "fieldPath: field label not supported: spec.bogus",
      f'spec.containers[0].env[1].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": {CPU_DIVISOR}',
      'spec.containers[0].volumeMounts[0].name: Invalid value: "data": must not already exist in volumeDevices',
      'spec.containers[0].volumeMounts.subPath: Invalid value: "../up": must not contain \'..\'',
      "spec.containers[0].volumeMounts.mountPropagation: Forbidden: Bidirectional mount propagation is available "
      "only to privileged containers",
      "spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when readOnly is true",
      "spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when mountPropagation is "
      "None or not specified",
      'spec.containers[0].volumeMounts[1].name: Invalid value: "claim": must not already exist in volumeDevices',
      'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/dev/xvda": must not already exist as a path in '
      "volumeDevices",
      'spec.containers[0].volumeDevices[0].name: Invalid value: "data": can only use volume source type of '
      "PersistentVolumeClaim or Ephemeral for block mode",
      'spec.containers[0].volumeDevices[0].name: Invalid value: "data": must not already exist in volumeMounts',
      'spec.containers[0].volumeDevices[0].devicePath: Invalid value: "/dev/xvda": must not already exist as a path '
      "in volumeMounts",
      "spec.containers[0].volumeDevices[1].devicePath: Required value",
      'spec.containers[0].volumeDevices[1].name: Invalid value: "claim": must not already exist in volumeMounts',
      'spec.containers[0].resizePolicy: Unsupported value: "Sometimes": supported values: "NotRequired", '
      '"RestartContainer"',
      'spec.containers[0].resizePolicy[1]: Duplicate value: "cpu"',
      'spec.containers[0].resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory"',
      "spec.containers[0].lifecycle.preStop.sleep: Invalid value: 31: must be non-negative and less than "
      "terminationGracePeriodSeconds (30)"]),
]


@pytest.mark.parametrize("change, expected", CASES)
def test_pod_spec_field_errors(change: Any, expected: list[str]) -> None:
    assert pod_errors(change) == expected


def test_linux_pod_overhead_and_windows_options() -> None:
    """`validateOverhead` (container resource rules at `overhead.limits`), then `validateOS`'s Linux rules, which
    also reach the containers' Windows options; Windows hostProcess containers need hostNetwork."""
    def change(s: dict[str, Any]) -> None:
        s.update(os={"name": "linux"}, securityContext={"windowsOptions": {}}, overhead={"cpu": "-1"})
        c0(s).update(securityContext={"windowsOptions": {"hostProcess": True}})

    assert pod_errors(change) == [
        "spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers",
        'spec.overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
        "spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
        "spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod"]


def test_valid_hardened_pod_passes() -> None:
    """A restricted-profile pod as kubectl users write it stays valid (a sidecar may carry a resizePolicy:
    1.33's AllowSidecarResizePolicy)."""
    def change(s: dict[str, Any]) -> None:
        s.update(securityContext={"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"},
                                  "sysctls": [{"name": "net.ipv4.ip_local_port_range", "value": "1024 65000"}]},
                 topologySpreadConstraints=[spread(), spread(topologyKey="host", whenUnsatisfiable="ScheduleAnyway",
                                                             matchLabelKeys=["pod-template-hash"])],
                 volumes=[{"name": "cfg", "configMap": {"name": "c", "items": [{"key": "a", "path": "a.conf"}]}},
                          {"name": "info", "downwardAPI": {"items": [
                              {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
                              {"path": "mem", "resourceFieldRef": {"containerName": "c", "resource": "limits.memory",
                                                                   "divisor": "1Mi"}}]}}],
                 os={"name": "linux"}, readinessGates=[{"conditionType": "example.com/ready"}],
                 initContainers=[{"name": "proxy", "image": "envoy", "restartPolicy": "Always",
                                  "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]}])
        c0(s).update(securityContext={"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]},
                                      "appArmorProfile": {"type": "RuntimeDefault"}},
                     volumeMounts=[{"name": "cfg", "mountPath": "/etc/app", "readOnly": True,
                                    "recursiveReadOnly": "IfPossible"}],
                     lifecycle={"preStop": {"sleep": {"seconds": 0}}})

    assert pod_errors(change) == []


def test_template_spec_gets_the_same_rules() -> None:
    """`ValidatePodTemplateSpec` runs `ValidatePodSpec`: a Deployment's template is refused alike."""
    spec = {"containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Always",
                            "terminationMessagePolicy": "File"}],
            "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "terminationGracePeriodSeconds": 30,
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Never"}]}
    errs = [str(e) for e in validate_pod_template_spec({"spec": spec}, "spec.template")]
    assert errs == ['spec.template.spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Never": '
                    'supported values: "DoNotSchedule", "ScheduleAnyway"']


def created_pod(spec_change: Any, annotations: dict[str, str]) -> dict[str, Any]:
    pod = {"metadata": {"name": "p", "namespace": "n", "annotations": annotations},
           "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    spec_change(pod["spec"])
    strategy = PodStrategy(ResourceInfo("Pod", "pods", "pod", ()))
    strategy.default(pod)
    strategy.prepare_for_create(pod)
    return pod


def test_pod_annotations_and_create_rules() -> None:
    """`validatePodMetadataAndSpec`'s annotations (before the spec) and `ValidatePodCreate`'s rules (after it)."""
    def change(s: dict[str, Any]) -> None:
        s.update(nodeName="node-1", schedulingGates=[{"name": "example.com/wait"}],
                 ephemeralContainers=[{"name": "debug", "image": "busybox", "imagePullPolicy": "Always",
                                       "terminationMessagePolicy": "File"}],
                 securityContext={"seccompProfile": {"type": "RuntimeDefault"}})
        c0(s).update(securityContext={"appArmorProfile": {"type": "Localhost", "localhostProfile": "a"}})

    pod = created_pod(change, {
        "controller.kubernetes.io/pod-deletion-cost": "007",
        "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
        "container.seccomp.security.alpha.kubernetes.io/c": "chrome",
        "container.apparmor.security.beta.kubernetes.io/c": "localhost/b",
        "container.apparmor.security.beta.kubernetes.io/gone": "strict"})
    assert [str(e) for e in validate_pod_object(pod, create=True)] == [
        'metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "007": must be a 32bit '
        "integer",
        'metadata.annotations.container.seccomp.security.alpha.kubernetes.io/c: Invalid value: "chrome": must be a '
        "valid seccomp profile",
        'metadata.annotations[container.apparmor.security.beta.kubernetes.io/gone]: Invalid value: "gone": container '
        "not found",
        'metadata.annotations[container.apparmor.security.beta.kubernetes.io/gone]: Invalid value: "strict": invalid '
        'AppArmor profile name: "strict"',
        "spec.ephemeralContainers: Forbidden: cannot be set on create",
        "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared",
        "spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match",
        "spec.containers[0].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile in "
        "annotation and field must match"]
    assert [str(e) for e in validate_pod_object(pod, create=False)][:4] == \
        [str(e) for e in validate_pod_object(pod, create=True)][:4]
    assert validate_pod_object(created_pod(lambda s: None, {
        "controller.kubernetes.io/pod-deletion-cost": "-100",
        "seccomp.security.alpha.kubernetes.io/pod": "runtime/default"}), create=True) == []


def test_the_pod_strategy_runs_the_create_rules_and_annotation_checks():
    """`ValidatePodCreate` through the pod store: ephemeral containers cannot come with the create, and the
    annotations are checked (podvalidation/podmeta.py, wired into registry/pod.py)."""
    import pytest as _pytest

    from conformance.reference_server.apierrors import StatusError
    from conformance.reference_server.server import build_context
    registry = build_context(flavor="bare").registry
    pods = registry.content("pods")
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}],
                     "ephemeralContainers": [{"name": "d", "image": "busybox"}]}}
    with _pytest.raises(StatusError) as err:
        pods.create(body)
    assert "spec.ephemeralContainers: Forbidden: cannot be set on create" in err.value.status["message"]


def test_dns_search_list_length_counts_bytes_as_go_does():
    """`validatePodDNSConfig`: `len(strings.Join(searches, " ")) > 2048` counts bytes; 7 search paths of 150 `é`
    are 1056 characters but 2106 bytes (and each path is over 253 bytes, `IsDNS1123SubdomainWithUnderscore`)."""
    searches = ["é" * 150] * 7
    errs = pod_errors(lambda s: s.update(dnsPolicy="None", dnsConfig={"nameservers": ["1.1.1.1"],
                                                                      "searches": searches}))
    total = [e for e in errs if e.startswith("spec.dnsConfig.searches: ")]
    assert len(total) == 1 and total[0].endswith(": must not have more than 2048 characters (including spaces) in "
                                                 "the search list")
    assert "must be no more than 253 characters" in next(e for e in errs if e.startswith("spec.dnsConfig.searches[0]"))
    ascii_ok = pod_errors(lambda s: s.update(dnsPolicy="None", dnsConfig={"nameservers": ["1.1.1.1"],
                                                                          "searches": ["a" * 63] * 7}))
    assert ascii_ok == []


def test_free_text_lengths_count_bytes_as_go_does():
    """`IsConfigMapKey`'s 253 and quobyte's tenant (`len(volume.Tenant) >= 65`) are byte counts: 200 `é` (400
    bytes) and 40 `é` (80 bytes) are over them, though under in characters."""
    from conformance.reference_server.registry.podvalidation.fields import config_map_key_errors
    from conformance.reference_server.registry.podvalidation.legacyvolumes import _quobyte as quobyte_errors
    assert "must be no more than 253 characters" in config_map_key_errors("é" * 200)
    errs = quobyte_errors({"registry": "reg:7861", "volume": "v", "tenant": "é" * 40}, "spec.volumes[0].quobyte")
    assert [str(e) for e in errs][:1] == ["spec.volumes[0].quobyte.tenant: Required value: must be a UUID and may "
                                          "not exceed a length of 64 characters"]
