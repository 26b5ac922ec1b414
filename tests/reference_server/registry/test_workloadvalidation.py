"""The apps/v1 and batch/v1 kinds' spec validation (registry/workloadvalidation/, upstream
`pkg/apis/{apps,batch}/validation/validation.go` 1.33 and robfig/cron v3's parser) through the kinds' strategies:
upstream's texts, in upstream's order, on create and on update."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.reference_server.registry.workloads import WORKLOAD_KINDS
from conformance.reference_server.registry.workloadvalidation.cron import CronError, parse_standard

KINDS = {g.info.kind: g for g in WORKLOAD_KINDS}
TEMPLATE = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
APPS = {"selector": {"matchLabels": {"app": "x"}}, "template": TEMPLATE}
JOB_TEMPLATE = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}


def strategy(kind: str) -> Any:
    g = KINDS[kind]
    return g.strategy(g.info)


def created(kind: str, spec: dict[str, Any], name: str = "x") -> tuple[Any, dict[str, Any]]:
    s = strategy(kind)
    obj = {"metadata": {"name": name, "namespace": "n"}, "spec": copy.deepcopy(spec)}
    s.default(obj)
    s.prepare_for_create(obj)
    return s, obj


def errors(kind: str, spec: dict[str, Any], name: str = "x") -> list[str]:
    s, obj = created(kind, spec, name)
    return [str(e) for e in s.validate(obj)]


def update_errors(kind: str, spec: dict[str, Any], change: Any) -> list[str]:
    s, old = created(kind, spec)
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    change(new["spec"])
    s.default(new, update=True)
    s.prepare_for_update(new, old)
    return [str(e) for e in s.validate_update(new, old)]


def test_valid_bodies_pass() -> None:
    for kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"):
        assert errors(kind, APPS) == [], kind
    assert errors("Job", {"template": JOB_TEMPLATE}) == []
    assert errors("CronJob", {"schedule": "*/5 * * * MON-FRI", "timeZone": "Europe/Berlin",
                              "jobTemplate": {"spec": {"template": JOB_TEMPLATE}}}) == []


@pytest.mark.parametrize("kind, spec, expected", [
    ("Deployment", {**APPS, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0,
                                                                                   "maxUnavailable": "0%"}}},
     ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, '
      'StrVal:"0%"}: may not be 0 when `maxSurge` is 0']),
    ("Deployment", {**APPS, "strategy": {"rollingUpdate": {"maxSurge": "x", "maxUnavailable": "150%"}}},
     ['spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"x"}: a '
      "valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used "
      "for validation is '[0-9]+%')",
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, '
      'StrVal:"150%"}: must not be greater than 100%']),
    ("Deployment", {**APPS, "strategy": {"type": "Recreate", "rollingUpdate": {}}},
     ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]),
    ("Deployment", {**APPS, "strategy": {"type": "BlueGreen"}},
     ['spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"BlueGreen", '
      'RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"']),
    ("Deployment", {**APPS, "replicas": -1, "minReadySeconds": 700, "revisionHistoryLimit": -2},
     ["spec.replicas: Invalid value: -1: must be greater than or equal to 0",
      "spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
      "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"]),
    ("Deployment", {"selector": {}, "template": TEMPLATE},
     ["spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
      "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"]),
    ("Deployment", {"selector": {"matchExpressions": [{"key": "app", "operator": "Is"}]}, "template": TEMPLATE},
     ['spec.selector.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator',
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), '
      'MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"Is", '
      'Values:[]string(nil)}}}: invalid label selector']),
    ("ReplicaSet", {**APPS, "template": {**TEMPLATE, "spec": {**TEMPLATE["spec"], "restartPolicy": "Never",
                                                                "activeDeadlineSeconds": 5}}},
     ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"]),
    ("StatefulSet", {**APPS, "podManagementPolicy": "Random", "updateStrategy": {"type": "Canary"},
                     "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Keep"}, "ordinals": {"start": -1}},
     ["spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
      'spec.updateStrategy: Invalid value: apps.StatefulSetUpdateStrategy{Type:"Canary", '
      "RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' or 'OnDelete'",
      'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: '
      '"Retain", "Delete"',
      "spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"]),
    # maxUnavailable is dropped before validation (MaxUnavailableStatefulSet is off in 1.33: registry/gateddrops.py)
    ("StatefulSet", {**APPS, "updateStrategy": {"rollingUpdate": {"partition": -1, "maxUnavailable": 0}}},
     ["spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0"]),
    # upstream does not run ValidatePodTemplateSpec on a StatefulSet's template ("TODO: Add validation for PodSpec")
    ("StatefulSet", {**APPS, "template": {**TEMPLATE, "spec": {"containers": []}}}, []),
    ("DaemonSet", {"template": TEMPLATE},
     ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match '
      "template `labels`"]),
    ("DaemonSet", {**APPS, "updateStrategy": {"rollingUpdate": {"maxUnavailable": 0, "maxSurge": 0}}},
     ["spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"]),
    ("DaemonSet", {**APPS, "updateStrategy": {"type": "Always"}},
     ['spec.updateStrategy: Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Always", '
      'RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"']),
])
def test_apps_errors(kind: str, spec: dict[str, Any], expected: list[str]) -> None:
    assert errors(kind, spec) == expected


def test_statefulset_name_is_a_dns_label_and_its_spec_mostly_immutable() -> None:
    assert errors("StatefulSet", APPS, name="db.v1") == ['metadata.name: Invalid value: "db.v1": must not contain dots']
    assert update_errors("StatefulSet", APPS, lambda s: s.update(replicas=3, minReadySeconds=5)) == []
    assert update_errors("StatefulSet", APPS, lambda s: s.update(serviceName="db")) == [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
        "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "DaemonSet"])
def test_selector_immutable(kind: str) -> None:
    def change(s: dict[str, Any]) -> None:
        s["selector"] = {"matchLabels": {"app": "x", "tier": "web"}}
        s["template"]["metadata"]["labels"]["tier"] = "web"
    assert update_errors(kind, APPS, change) == [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x", "tier":"web"}, '
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"]


def job(**spec: Any) -> dict[str, Any]:
    return {"template": copy.deepcopy(JOB_TEMPLATE), **spec}


@pytest.mark.parametrize("spec, expected", [
    (job(parallelism=-1, backoffLimit=-1, activeDeadlineSeconds=-1),
     ["spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
      "spec.activeDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
      "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"]),
    (job(completionMode="Indexed", parallelism=100001, backoffLimitPerIndex=1, maxFailedIndexes=3, completions=2),
     ["spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when completion mode is Indexed",
      "spec.maxFailedIndexes: Invalid value: 3: must be less than or equal to completions"]),
    (job(backoffLimitPerIndex=1, completionMode="Sorted"),
     ['spec.completionMode: Unsupported value: "Sorted": supported values: "NonIndexed", "Indexed"']),
    (job(backoffLimitPerIndex=1),
     ["spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"]),
    (job(successPolicy={"rules": [{"succeededCount": 1}]}),
     ["spec.successPolicy: Invalid value: batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{"
      "batch.SuccessPolicyRule{SucceededIndexes:(*string)(nil), SucceededCount:(*int32)(0xc000000000)}}}: requires "
      "indexed completion mode"]),
    (job(completionMode="Indexed", completions=3, successPolicy={"rules": [{"succeededIndexes": "0-1,5",
                                                                             "succeededCount": 4}]}),
     ['spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-1,5": error parsing succeededIndexes: too '
      'large index: "5"',
      "spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 3 (the number of "
      "specified completions)",
      "spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 0 (the number of "
      "indexes in the specified succeededIndexes field)"]),
    (job(podFailurePolicy={"rules": [{"action": "Retry", "onExitCodes": {"operator": "In", "values": [0, 3, 2, 2],
                                                                          "containerName": "x"}},
                                     {"action": "FailJob"}]}),
     ['spec.podFailurePolicy.rules[0].action: Unsupported value: "Retry": supported values: "Count", "FailIndex", '
      '"FailJob", "Ignore"',
      'spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "x": must be one of the container or '
      "initContainer names in the pod template",
      "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator",
      "spec.podFailurePolicy.rules[0].onExitCodes.values[3]: Duplicate value: 2",
      "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{0, 3, 2, 2}: must be ordered",
      "spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is "
      "required"]),
    (job(podFailurePolicy={"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]},
         template={"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "b"}]}}),
     ['spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
      "podFailurePolicy is specified"]),
    (job(podReplacementPolicy="Always"),
     ['spec.podReplacementPolicy: Unsupported value: "Always": supported values: "Failed", "TerminatingOrFailed"']),
    (job(manualSelector=True),
     ["spec.selector: Required value",
      "spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template "
      "`labels`"]),
])
def test_job_errors(spec: dict[str, Any], expected: list[str]) -> None:
    assert errors("Job", spec) == expected


def test_job_generated_selector_keeps_the_writers_labels_and_refuses_a_conflict() -> None:
    """`generateSelector` adds only the labels the writer has not set; `validateGeneratedSelector` refuses a
    conflicting one, and the selector then no longer matches the expected labels."""
    spec = job()
    spec["template"]["metadata"] = {"labels": {"job-name": "other"}}
    s, obj = created("Job", spec, name="j")
    uid = obj["metadata"]["uid"]
    labels = obj["spec"]["template"]["metadata"]["labels"]
    assert labels == {"job-name": "other", "batch.kubernetes.io/job-name": "j", "controller-uid": uid,
                      "batch.kubernetes.io/controller-uid": uid}
    assert [str(e) for e in s.validate(obj)] == [
        'spec.template.metadata.labels[job-name]: Invalid value: map[string]string{"batch.kubernetes.io/controller-uid"'
        f':"{uid}", "batch.kubernetes.io/job-name":"j", "controller-uid":"{uid}", "job-name":"other"}}: must be \'j\'']


def test_job_defaults_follow_set_defaults_job() -> None:
    _, obj = created("Job", job(parallelism=3, backoffLimitPerIndex=1, completionMode="Indexed", completions=4,
                                podFailurePolicy={"rules": [{"action": "FailIndex",
                                                             "onPodConditions": [{"type": "DisruptionTarget"}]}]}))
    spec = obj["spec"]
    assert (spec["parallelism"], spec["completions"], spec["backoffLimit"]) == (3, 4, 2147483647)
    assert spec["podReplacementPolicy"] == "Failed"
    assert spec["podFailurePolicy"]["rules"][0]["onPodConditions"][0]["status"] == "True"
    _, obj = created("Job", job(parallelism=2))
    assert "completions" not in obj["spec"]  # a work-queue Job: only both unset default to 1


def test_job_update_immutables_and_indexed_elasticity() -> None:
    base = job(completionMode="Indexed", completions=2, parallelism=2)
    assert update_errors("Job", base, lambda s: s.update(completions=3, parallelism=3)) == []
    assert update_errors("Job", base, lambda s: s.update(completions=3)) == [
        "spec.completions: Invalid value: 3: can only be modified in tandem with spec.parallelism"]
    assert update_errors("Job", job(), lambda s: s.update(completions=2)) == [
        "spec.completions: Invalid value: 2: field is immutable"]
    errs = update_errors("Job", job(), lambda s: s["template"]["spec"]["containers"][0].update(image="other"))
    assert [e.split(":")[0] for e in errs] == ["spec.template"] and errs[0].endswith("field is immutable")
    # a suspended Job that never started may change its scheduling directives
    assert update_errors("Job", job(suspend=True),
                         lambda s: s["template"]["spec"].update(nodeSelector={"zone": "a"})) == []


@pytest.mark.parametrize("schedule, message", [
    ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
    ("0 24 * * *", "end of range (24) above maximum (23): 24"),
    ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("*/2/3 * * * *", "too many slashes: */2/3"),
    ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
    ("0 0 * FOO *", 'failed to parse int from FOO: strconv.Atoi: parsing "FOO": invalid syntax'),
    ("@fortnightly", "unrecognized descriptor: @fortnightly"),
    ("@every 90", 'failed to parse duration @every 90: time: missing unit in duration "90"'),
    ("", "empty spec string"),
])
def test_cron_parser_messages(schedule: str, message: str) -> None:
    with pytest.raises(CronError) as exc:
        parse_standard(schedule)
    assert str(exc.value) == message


@pytest.mark.parametrize("schedule", ["@hourly", "@every 1h30m", "0 0 1 jan,JUL sun-sat", "*/15 9-17 * * 1-5",
                                      "CRON_TZ=UTC 0 * * * *", "? * * * *"])
def test_cron_parser_accepts(schedule: str) -> None:
    parse_standard(schedule)


def test_cronjob_errors() -> None:
    spec = {"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": JOB_TEMPLATE}}}
    assert errors("CronJob", {**spec, "schedule": "TZ=Europe/Paris 0 * * * *", "timeZone": "Moon/Base",
                              "concurrencyPolicy": "Sometimes", "startingDeadlineSeconds": -5,
                              "successfulJobsHistoryLimit": -1}, name="n" * 53) == [
        'spec.schedule: Invalid value: "TZ=Europe/Paris 0 * * * *": cannot use TZ or CRON_TZ in schedule, use '
        "timeZone field instead",
        "spec.startingDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0",
        'spec.timeZone: Invalid value: "Moon/Base": unknown time zone Moon/Base',
        'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
        "spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
        f'metadata.name: Invalid value: "{"n" * 53}": must be no more than 52 characters']
    assert errors("CronJob", {**spec, "timeZone": "Local"}) == [
        'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in '
        "https://www.iana.org/time-zones"]
    bad_template = {"spec": {"selector": {"matchLabels": {"a": "b"}}, "manualSelector": True,
                             "template": JOB_TEMPLATE}}
    assert errors("CronJob", {**spec, "jobTemplate": bad_template}) == [
        'spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, '
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated",
        'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"']
    # a TZ already in the stored schedule may stay (ratcheting); a long name may be updated
    assert update_errors("CronJob", {**spec, "schedule": "0 * * * *"}, lambda s: s.update(schedule="*/5 * * * *")) == []


@pytest.mark.parametrize("job_template", ["missing", None, {}, {"spec": None}])
def test_cronjob_without_a_job_template_is_defaulted_as_an_empty_one(job_template: Any) -> None:
    """`SetObjectDefaults_CronJob` (pkg/apis/batch/v1/zz_generated.defaults.go) defaults the pod spec of the job
    template, a struct held by value, whether it was sent or not: the errors are an empty template's (no Required
    terminationGracePeriodSeconds, restartPolicy or dnsPolicy)."""
    spec: dict[str, Any] = {"schedule": "0 * * * *"}
    if job_template != "missing":
        spec["jobTemplate"] = job_template
    empty = errors("CronJob", {**spec, "jobTemplate": {"spec": {"template": {"spec": {}}}}})
    assert empty == ["spec.jobTemplate.spec.template.spec.containers: Required value",
                     'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", '
                     '"Never"']
    assert errors("CronJob", spec) == empty


def test_job_managed_by_is_a_short_domain_prefixed_path_and_immutable() -> None:
    """`validateJobSpec`'s managedBy (1.33's JobManagedBy): `IsDomainPrefixedPath`, at most 63 bytes; immutable on
    update (`ValidateJobSpecUpdate`)."""
    assert errors("Job", job(managedBy="kueue")) == [
        'spec.managedBy: Invalid value: "kueue": must be a domain-prefixed path (such as "acme.io/foo")']
    long_path = "example.com/" + "x" * 60
    assert errors("Job", job(managedBy="Example.com/a b")) == [
        'spec.managedBy: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        'spec.managedBy: Invalid value: "a b": Invalid path (regex used for validation is '
        "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"]
    assert errors("Job", job(managedBy=long_path)) == ["spec.managedBy: Too long: may not be more than 63 bytes"]
    assert errors("Job", job(managedBy="kueue.x-k8s.io/multikueue")) == []
    assert update_errors("Job", job(managedBy="kueue.x-k8s.io/multikueue"),
                         lambda s: s.update(managedBy="example.com/other")) == [
        'spec.managedBy: Invalid value: "example.com/other": field is immutable']


def _required_affinity(value: str) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": [value]}]}]}}}


def _core_strategy(kind: str) -> Any:
    from conformance.reference_server.registry.kinds import CONTENT_KINDS
    from conformance.reference_server.registry.replication import (PodTemplateStrategy,
                                                                   ReplicationControllerStrategy)

    info = next(i for i in CONTENT_KINDS if i.kind == kind)
    return {"PodTemplate": PodTemplateStrategy, "ReplicationController": ReplicationControllerStrategy}[kind](info)


def _pod_template(obj: dict[str, Any]) -> dict[str, Any]:
    """The pod template a kind's object holds."""
    if "template" in obj:
        return obj["template"]
    spec = obj["spec"]
    return spec["jobTemplate"]["spec"]["template"] if "jobTemplate" in spec else spec["template"]


def _affinity_update_errors(kind: str, stored: str, written: str) -> list[str]:
    """An update of a `kind` stored with a required node affinity value `stored` (as written before 1.33 refused
    such values) that writes `written` there (and, where the template may change, a new image too)."""
    template = copy.deepcopy(JOB_TEMPLATE if kind in ("Job", "CronJob") else TEMPLATE)
    body: dict[str, Any] = {
        "PodTemplate": {"template": template},
        "ReplicationController": {"spec": {"selector": {"app": "x"}, "template": template}},
        "Job": {"spec": {"template": template}},
        "CronJob": {"spec": {"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": template}}}},
    }.get(kind, {"spec": {**APPS, "template": template}})
    s = _core_strategy(kind) if kind in ("PodTemplate", "ReplicationController") else strategy(kind)
    old = {"metadata": {"name": "x", "namespace": "n"}, **body}
    s.default(old)
    _pod_template(old)["spec"]["affinity"] = _required_affinity(stored)
    s.prepare_for_create(old)
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    _pod_template(new)["spec"]["affinity"] = _required_affinity(written)
    if kind != "Job":  # a Job's template is immutable
        _pod_template(new)["spec"]["containers"][0]["image"] = "nginx:2"
    s.default(new, update=True)
    s.prepare_for_update(new, old)
    return [str(e) for e in s.validate_update(new, old)]


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "DaemonSet", "Job", "CronJob", "PodTemplate",
                                  "ReplicationController"])
def test_a_stored_templates_invalid_required_affinity_value_may_stay(kind: str) -> None:
    """Every pod-template strategy's `ValidateUpdate` passes `GetValidationOptionsFromPodTemplate(new, old)`: a
    required node affinity value that is not a label value (kubernetes#128212) is kept on an update of a template
    that already held one (`AllowInvalidLabelValueInRequiredNodeAffinity`), and refused where the stored one held
    none. (A StatefulSet's pod spec is not validated in 1.33: kubernetes#131790 came in 1.34.)"""
    value_error = f"{_required_path(kind)}: Invalid value: \"-bad\""
    assert not [e for e in _affinity_update_errors(kind, "a b", "-bad") if "nodeSelectorTerms[0]" in e]
    errs = _affinity_update_errors(kind, "ok", "-bad")
    assert [e for e in errs if e.startswith(value_error)], errs


def _required_path(kind: str) -> str:
    prefix = {"PodTemplate": "template", "CronJob": "spec.jobTemplate.spec.template"}.get(kind, "spec.template")
    return (f"{prefix}.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
            ".matchExpressions[0].values[0]")


def test_a_statefulsets_service_name_is_a_dns_label_on_create() -> None:
    """`ValidateStatefulSetSpec` (kubernetes#130233, in 1.33): a given `serviceName` (the pods' subdomain) must be a
    DNS-1123 label; an update tolerates a stored invalid one (`AllowInvalidServiceName`)."""
    assert errors("StatefulSet", {**APPS, "serviceName": "web"}) == []
    assert errors("StatefulSet", {**APPS, "serviceName": "web.example"}) == [
        'spec.serviceName: Invalid value: "web.example": must not contain dots']
    assert errors("StatefulSet", {**APPS, "serviceName": "Web"}) == [
        'spec.serviceName: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric '
        "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
        "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]
    assert update_errors("StatefulSet", {**APPS, "serviceName": "web.example"}, lambda s: s.update(replicas=3)) == []
