"""Kinds a namespace usually holds (the apps/batch ones acted on by controller/workloads/; ControllerRevisions
written by the StatefulSet and DaemonSet controllers, controller/history.py): apps/v1, batch/v1,
networking.k8s.io/v1, policy/v1, coordination.k8s.io/v1, discovery.k8s.io/v1. The namespace controller
deletes them with the rest of a namespace's content.

Each kind: its declaration, the v1 defaults clients see (`pkg/apis/{apps,batch,networking,policy}/v1/defaults.go`,
pod templates through `pod.default_pod_spec`), `metadata.generation` (1 on create, +1 on a spec change, as
their strategies) and the required-field checks of `pkg/apis/{apps,batch,discovery}/validation/validation.go`
(e.g. `spec.selector: Required value`; "`selector` does not match template `labels`").
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Callable

from ..apierrors import FieldError, field_invalid, field_not_supported, field_required
from ..goport.gojsonraw import exact
from .kinds import ResourceInfo
from .gateddrops import DropsDisabledFields
from .groupvalidation.coordination import lease_spec_errors
from .endpointwarnings import endpoint_slice_warnings
from .groupvalidation.discovery import endpoint_slice_errors
from .groupvalidation.networking import network_policy_spec_errors, selector_errors
from .ipfieldwarnings import network_policy_warnings
from .pod import default_pod_spec
from .podprepare import drop_disabled_template_fields
from .podwarnings import job_spec_warnings, name_warnings, pvc_spec_warnings, template_warnings
from .strategy import PerThread, Strategy
from .shapes import as_dict, as_list
from .workloadvalidation import apps, batch
from .workloadvalidation.gofmt import go_pointer, go_string_map
from .workloadvalidation.intstr import positive_int_or_percent
from .workloadvalidation.labelselector import selector_matches

_SPEC = frozenset({"spec", "status"})


@dataclass(frozen=True)
class GroupKind:
    group: str
    version: str
    info: ResourceInfo
    strategy: Callable[[ResourceInfo], Strategy]


class SpecStrategy(Strategy):
    """Generation bookkeeping and status kept from storage, as the apps/batch/policy strategies; a kind with a
    pod template names the path of its spec, whose fields of 1.33's disabled gates are dropped
    (`DropDisabledTemplateFields`, registry/podprepare.py)."""

    template_spec: tuple[str, ...] = ()

    def defaults(self, obj: dict[str, Any]) -> None:
        pass

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        """The kind's v1 defaults at decode time, as upstream: before the field manager, so the writer owns them
        (e.g. a defaulted `spec.replicas`, which a later write through `/scale` takes over)."""
        super().default(obj, update=update)
        if obj.get("spec") is None:
            obj["spec"] = {}
        if isinstance(obj.get("spec"), dict):
            self.defaults(obj)

    def spec_errors(self, spec: dict[str, Any]) -> list[FieldError]:
        return []

    def spec_update_errors(self, spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
        """The spec's errors on update: `spec_errors`, unless the kind's options depend on the stored spec."""
        return self.spec_errors(spec)

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        if not isinstance(obj.get("spec"), dict):
            obj["spec"] = {}
        self.defaults(obj)
        drop_disabled_template_fields(obj, None, self.template_spec)
        obj["metadata"]["generation"] = 1
        obj["status"] = self.initial_status()

    def initial_status(self) -> dict[str, Any]:
        return {}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + self.spec_errors(as_dict(obj.get("spec")))

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        if not isinstance(new.get("spec"), dict):
            new["spec"] = {}
        self.defaults(new)
        drop_disabled_template_fields(new, old, self.template_spec)
        new["status"] = old.get("status", self.initial_status())

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + self.spec_update_errors(as_dict(new.get("spec")),
                                                                           as_dict(old.get("spec")))

    def canonicalize(self, obj: dict[str, Any]) -> None:
        pass


class _Generation(SpecStrategy):
    """Bumps `metadata.generation` when the spec changes (after `_restore_system_meta` kept the old one)."""

    _old = PerThread()  # the stored spec and generation, between prepare_for_update and canonicalize

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        self._old = None
        super().prepare_for_create(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        self._old = (old.get("spec"), (old.get("metadata") or {}).get("generation", 1))

    def canonicalize(self, obj: dict[str, Any]) -> None:
        stored, self._old = self._old, None
        if stored is not None and stored[0] is not None:
            obj["metadata"]["generation"] = stored[1] + (obj.get("spec") != stored[0])


def _generation(obj: dict[str, Any]) -> Any:
    return as_dict(obj.get("metadata")).get("generation")


def _name_warnings(obj: dict[str, Any]) -> list[str]:
    return name_warnings(as_dict(obj.get("metadata")).get("name"), pod=False)


def _spec_template_warnings(obj: dict[str, Any]) -> list[str]:
    return template_warnings("spec.template", as_dict(obj.get("spec")).get("template"))


class _TemplateWarnings:
    """`WarningsOnCreate`/`WarningsOnUpdate` of the kinds with a `spec.template`: the name warning (`named`)
    and the template's on create; the template's on an update that moved the generation."""

    named = True

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return (_name_warnings(obj) if self.named else []) + _spec_template_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return _spec_template_warnings(new) if _generation(new) != _generation(old) else []


class OldTemplateOptions:
    """An update's `spec.template` judged with the stored one's pod validation options, as the apps strategies and
    `rcStrategy` pass `GetValidationOptionsFromPodTemplate(&new.Spec.Template, &old.Spec.Template)` (e.g. a
    required node affinity value that is not a label value may stay); `spec_errors` takes the old template."""

    def spec_errors(self, spec: dict[str, Any], old_template: Any = None) -> list[FieldError]:
        raise NotImplementedError

    def spec_update_errors(self, spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
        return self.spec_errors(spec, old_spec.get("template"))


def _template_spec(spec: dict[str, Any], key: str = "template") -> dict[str, Any]:
    template = spec.get(key) if isinstance(spec.get(key), dict) else {}
    spec[key] = template
    if not isinstance(template.get("spec"), dict):
        template["spec"] = {}
    default_pod_spec(template["spec"])
    return template


class DeploymentStrategy(OldTemplateOptions, _TemplateWarnings, _Generation):
    template_spec = ("spec", "template", "spec")

    def defaults(self, obj: dict[str, Any]) -> None:
        spec = obj["spec"]
        spec.setdefault("replicas", 1)
        strategy = spec.setdefault("strategy", {})
        if isinstance(strategy, dict):
            strategy.setdefault("type", "RollingUpdate")
            if strategy["type"] == "RollingUpdate":
                ru = strategy.setdefault("rollingUpdate", {})
                if isinstance(ru, dict):
                    ru.setdefault("maxUnavailable", "25%")
                    ru.setdefault("maxSurge", "25%")
        spec.setdefault("revisionHistoryLimit", 10)
        spec.setdefault("progressDeadlineSeconds", 600)
        _template_spec(spec)

    def spec_errors(self, spec: dict[str, Any], old_template: Any = None) -> list[FieldError]:
        return apps.deployment_spec(spec, old_template)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + apps.selector_immutable(as_dict(new.get("spec")),
                                                                           as_dict(old.get("spec")))


class ReplicaSetStrategy(OldTemplateOptions, _TemplateWarnings, _Generation):
    template_spec = ("spec", "template", "spec")

    def defaults(self, obj: dict[str, Any]) -> None:
        obj["spec"].setdefault("replicas", 1)
        _template_spec(obj["spec"])

    def initial_status(self) -> dict[str, Any]:
        return {"replicas": 0}

    def spec_errors(self, spec: dict[str, Any], old_template: Any = None) -> list[FieldError]:
        return apps.replicaset_spec(spec, old_template)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + apps.selector_immutable(as_dict(new.get("spec")),
                                                                           as_dict(old.get("spec")))


class StatefulSetStrategy(DropsDisabledFields, _Generation):
    template_spec = ("spec", "template", "spec")

    def defaults(self, obj: dict[str, Any]) -> None:
        spec = obj["spec"]
        spec.setdefault("replicas", 1)
        spec.setdefault("podManagementPolicy", "OrderedReady")
        update = spec.setdefault("updateStrategy", {})
        if isinstance(update, dict):
            update.setdefault("type", "RollingUpdate")
            if update["type"] == "RollingUpdate" and isinstance(update.setdefault("rollingUpdate", {}), dict):
                update["rollingUpdate"].setdefault("partition", 0)
        spec.setdefault("revisionHistoryLimit", 10)
        retention = spec.setdefault("persistentVolumeClaimRetentionPolicy", {})
        if isinstance(retention, dict):  # SetDefaults_StatefulSet: each unset policy Retain
            for key in ("whenDeleted", "whenScaled"):
                retention[key] = retention.get(key) or "Retain"
        _template_spec(spec)

    def initial_status(self) -> dict[str, Any]:
        return {"replicas": 0, "availableReplicas": 0}

    def spec_errors(self, spec: dict[str, Any]) -> list[FieldError]:
        return apps.statefulset_spec(spec)

    def spec_update_errors(self, spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
        """`ValidateStatefulSetUpdate`'s `AllowInvalidServiceName` (a stored name may be invalid; it is immutable)."""
        return apps.statefulset_spec(spec, allow_invalid_service_name=True)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        """No name warning (the name must be a DNS label); each claim template's path lacks `.spec`, as
        upstream's create prints it."""
        return _spec_template_warnings(obj) + _statefulset_warnings(obj, "")

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        """The claim templates' paths end in `.Spec` on update, as upstream prints them."""
        template = _spec_template_warnings(new) if _generation(new) != _generation(old) else []
        return template + _statefulset_warnings(new, ".Spec")

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + apps.statefulset_update(as_dict(new.get("spec")),
                                                                           as_dict(old.get("spec")))


def _statefulset_warnings(obj: dict[str, Any], claim_suffix: str) -> list[str]:
    """The claim templates' fractional storage and a negative revisionHistoryLimit."""
    spec = as_dict(obj.get("spec"))
    out = [w for i, claim in enumerate(as_list(spec.get("volumeClaimTemplates")))
           for w in pvc_spec_warnings(f"spec.volumeClaimTemplates[{i}]{claim_suffix}", as_dict(claim).get("spec"))]
    limit = spec.get("revisionHistoryLimit")
    if isinstance(limit, int) and limit < 0:
        out.append("spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is "
                   "recommended")
    return out


class DaemonSetStrategy(OldTemplateOptions, _TemplateWarnings, _Generation):
    template_spec = ("spec", "template", "spec")

    def defaults(self, obj: dict[str, Any]) -> None:
        spec = obj["spec"]
        update = spec.setdefault("updateStrategy", {})
        if isinstance(update, dict):
            update.setdefault("type", "RollingUpdate")
            if update["type"] == "RollingUpdate" and isinstance(update.setdefault("rollingUpdate", {}), dict):
                update["rollingUpdate"].setdefault("maxUnavailable", 1)
                update["rollingUpdate"].setdefault("maxSurge", 0)
        spec.setdefault("revisionHistoryLimit", 10)
        _template_spec(spec)

    def initial_status(self) -> dict[str, Any]:
        return {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
                "numberReady": 0}

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        """`PrepareForCreate`: `spec.templateGeneration` at least 1; apps/v1 shows it as an annotation."""
        super().prepare_for_create(obj)
        _set_template_generation(obj, max(_template_generation(obj) or 0, 1))

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        """`PrepareForUpdate`: the writer's value ignored; the old one, plus 1 when the template changed."""
        super().prepare_for_update(new, old)
        generation = _template_generation(old) or 1
        if (new.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template"):
            generation += 1
        _set_template_generation(new, generation)

    named = False

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        """The template's warnings when `spec.templateGeneration` moved."""
        moved = _template_generation(new) != _template_generation(old)
        return _spec_template_warnings(new) if moved else []

    def spec_errors(self, spec: dict[str, Any], old_template: Any = None) -> list[FieldError]:
        return apps.daemonset_spec(spec, old_template)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + apps.selector_immutable(as_dict(new.get("spec")),
                                                                           as_dict(old.get("spec")))


TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"  # appsv1.DeprecatedTemplateGeneration


def _template_generation(obj: dict[str, Any]) -> int | None:
    """A DaemonSet's internal `spec.templateGeneration`, read from apps/v1's annotation
    (`Convert_v1_DaemonSet_To_apps_DaemonSet`; a value that is not an integer, a decoding error upstream, is
    read as absent here)."""
    raw = ((obj.get("metadata") or {}).get("annotations") or {}).get(TEMPLATE_GENERATION)
    try:
        return int(raw) if isinstance(raw, str) else None
    except ValueError:
        return None


def _set_template_generation(obj: dict[str, Any], generation: int) -> None:
    """`Convert_apps_DaemonSet_To_v1_DaemonSet`: the annotation always written."""
    meta = obj["metadata"]
    meta["annotations"] = {**(meta.get("annotations") or {}), TEMPLATE_GENERATION: str(generation)}


def _job_defaults(spec: dict[str, Any], *, template: bool = False) -> None:
    """`SetDefaults_Job` (batch/v1): completions and parallelism 1 only when both are unset, backoffLimit 6 (the
    int32 maximum with backoffLimitPerIndex), a pod failure policy's condition patterns `status: True`, and a
    podReplacementPolicy of Failed with a pod failure policy (else TerminatingOrFailed). A CronJob's `jobTemplate`
    (`template`) gets none of these (`SetDefaults_Job` takes a Job), only the defaulters of its inner types: the
    condition patterns' status and the pod template's."""
    pfp = spec.get("podFailurePolicy")
    if not template:
        if spec.get("completions") is None and spec.get("parallelism") is None:
            spec["completions"] = 1
        spec.setdefault("parallelism", 1)
        spec.setdefault("backoffLimit", 6 if spec.get("backoffLimitPerIndex") is None else 2147483647)
        spec.setdefault("completionMode", "NonIndexed")
        spec.setdefault("suspend", False)
        spec.setdefault("podReplacementPolicy", "Failed" if isinstance(pfp, dict) else "TerminatingOrFailed")
    for rule in as_list(as_dict(pfp).get("rules")):
        for pattern in as_list(as_dict(rule).get("onPodConditions")):
            if isinstance(pattern, dict) and not pattern.get("status"):
                pattern["status"] = "True"
    _template_spec(spec)


def _generate_selector(spec: dict[str, Any], uid: str, name: str) -> None:
    """`generateSelector`: the job-name and controller-uid labels (legacy and prefixed) added to the template
    where the writer has not set them (a conflicting value is refused by validation), and the prefixed
    controller-uid label added to the selector."""
    if not isinstance(spec["template"].get("metadata"), dict):
        spec["template"]["metadata"] = {}
    tmeta = spec["template"]["metadata"]
    labels = tmeta.get("labels") if isinstance(tmeta.get("labels"), dict) else {}
    for key, value in (("job-name", name), ("batch.kubernetes.io/job-name", name), ("controller-uid", uid),
                       ("batch.kubernetes.io/controller-uid", uid)):
        labels.setdefault(key, value)
    tmeta["labels"] = labels
    selector = spec.get("selector") if isinstance(spec.get("selector"), dict) else {}
    if not isinstance(selector.get("matchLabels"), dict):
        selector["matchLabels"] = {}
    selector["matchLabels"].setdefault("batch.kubernetes.io/controller-uid", uid)
    spec["selector"] = selector


class JobStrategy(_Generation):
    """`job.Strategy.PrepareForCreate` generates the selector and template labels from the object's UID;
    validation is `ValidateJob` (+ `ValidateJobUpdate`), registry/workloadvalidation/batch.py."""

    template_spec = ("spec", "template", "spec")
    gc_policy = "OrphanDependents"  # `DefaultGarbageCollectionPolicy` for batch/v1 ("for back compatibility")

    def defaults(self, obj: dict[str, Any]) -> None:
        _job_defaults(obj["spec"])
        labels = as_dict(as_dict(obj["spec"].get("template")).get("metadata")).get("labels")
        meta = obj.get("metadata")
        if isinstance(labels, dict) and isinstance(meta, dict) and not meta.get("labels"):
            meta["labels"] = dict(labels)  # SetDefaults_Job: a Job without labels takes its template's

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        spec, meta = obj["spec"], obj["metadata"]
        if spec.get("manualSelector") is True:
            return
        uid = meta.setdefault("uid", str(uuid.uuid4()))  # the store keeps a strategy-set UID
        _generate_selector(spec, uid, meta.get("name", ""))

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return _name_warnings(obj) + job_spec_warnings("spec", obj.get("spec"))

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return job_spec_warnings("spec", new.get("spec")) if _generation(new) != _generation(old) else []

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return Strategy.validate(self, obj) + batch.validate_job(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateUpdate`: `ValidateJob` and `ValidateJobUpdate` (the spec checked twice, as upstream)."""
        old_template = as_dict(old.get("spec")).get("template")
        return (Strategy.validate_update(self, new, old)
                + batch.validate_job(new, prefixed=batch.prefixed_labels_required(old), old_template=old_template)
                + self.update_checks(new, old))

    def update_checks(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return batch.job_update(new, old)


def _job_template_spec(obj: dict[str, Any]) -> Any:
    return as_dict(as_dict(obj.get("spec")).get("jobTemplate")).get("spec")


class CronJobStrategy(_Generation):
    """Validation is `ValidateCronJobCreate` / `ValidateCronJobUpdate` (registry/workloadvalidation/batch.py)."""

    template_spec = ("spec", "jobTemplate", "spec", "template", "spec")

    def defaults(self, obj: dict[str, Any]) -> None:
        spec = obj["spec"]
        spec.setdefault("concurrencyPolicy", "Allow")
        spec.setdefault("suspend", False)
        spec.setdefault("successfulJobsHistoryLimit", 3)
        spec.setdefault("failedJobsHistoryLimit", 1)
        # `SetObjectDefaults_CronJob` defaults the pod spec of the job template (held by value), sent or not
        if not isinstance(spec.get("jobTemplate"), dict):
            spec["jobTemplate"] = {}
        jt = spec["jobTemplate"]
        if not isinstance(jt.get("spec"), dict):
            jt["spec"] = {}
        _job_defaults(jt["spec"], template=True)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return _name_warnings(obj) + job_spec_warnings("spec.jobTemplate.spec", _job_template_spec(obj))

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        """The job template's warnings when the generation moved; a schedule naming TZ, with upstream's path
        (`spec.spec.schedule`)."""
        out = job_spec_warnings("spec.jobTemplate.spec", _job_template_spec(new)) \
            if _generation(new) != _generation(old) else []
        schedule = as_dict(new.get("spec")).get("schedule")
        if isinstance(schedule, str) and "TZ" in schedule:
            out.append("cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see "
                       "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details")
        return out

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return (Strategy.validate(self, obj) + batch.cronjob_spec(as_dict(obj.get("spec")), None)
                + batch.cronjob_name(as_dict(obj.get("metadata")).get("name")))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return Strategy.validate_update(self, new, old) + batch.cronjob_spec(as_dict(new.get("spec")),
                                                                             as_dict(old.get("spec")))


class NetworkPolicyStrategy(_Generation):
    """`pkg/registry/networking/networkpolicy/strategy.go`: v1 defaults, status dropped, the generation, validation
    and `networkPolicyWarnings`."""

    def defaults(self, obj: dict[str, Any]) -> None:
        spec = obj["spec"]
        spec.setdefault("podSelector", {})
        if not spec.get("policyTypes"):
            spec["policyTypes"] = ["Ingress"] + (["Egress"] if spec.get("egress") else [])
        for rules in (spec.get("ingress"), spec.get("egress")):
            for rule in rules if isinstance(rules, list) else ():
                ports = rule.get("ports") if isinstance(rule, dict) else None
                for port in ports if isinstance(ports, list) else ():
                    if isinstance(port, dict):
                        port.setdefault("protocol", "TCP")

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        super().prepare_for_create(obj)
        obj.pop("status", None)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        super().prepare_for_update(new, old)
        new.pop("status", None)  # v1 has no status (nor `unknown field "status"` on the next write)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """`ValidateNetworkPolicy` (groupvalidation/networking.py)."""
        return super().validate(obj) + network_policy_spec_errors(as_dict(obj.get("spec")))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """`ValidateNetworkPolicyUpdate`: the stored policy's CIDRs stay allowed."""
        return super().validate_update(new, old) + network_policy_spec_errors(as_dict(new.get("spec")), old)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        """`networkPolicyWarnings`: the ipBlocks' CIDRs in a deprecated form (registry/ipfieldwarnings.py)."""
        return network_policy_warnings(obj)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return network_policy_warnings(new)


class LeaseStrategy(DropsDisabledFields, Strategy):
    """`pkg/registry/coordination/lease/strategy.go`: the CoordinatedLeaderElection fields dropped (the gate is off
    in 1.33: registry/gateddrops.py); `ValidateLease`/`ValidateLeaseUpdate` (groupvalidation/coordination.py)."""

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + lease_spec_errors(as_dict(obj.get("spec")))

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return super().validate_update(new, old) + lease_spec_errors(as_dict(new.get("spec")))


def go_pdb_spec(spec: dict[str, Any]) -> str:
    """`%#v` of the internal `policy.PodDisruptionBudgetSpec` (every field a pointer)."""
    return ("policy.PodDisruptionBudgetSpec{"
            f"MinAvailable:{go_pointer(spec.get('minAvailable'), '*intstr.IntOrString')}, "
            f"Selector:{go_pointer(spec.get('selector'), '*v1.LabelSelector')}, "
            f"MaxUnavailable:{go_pointer(spec.get('maxUnavailable'), '*intstr.IntOrString')}, "
            "UnhealthyPodEvictionPolicy:"
            f"{go_pointer(spec.get('unhealthyPodEvictionPolicy'), '*policy.UnhealthyPodEvictionPolicyType')}}}")


class PodDisruptionBudgetStrategy(_Generation):
    """`pkg/registry/policy/poddisruptionbudget/strategy.go`; `ValidatePodDisruptionBudgetSpec` of
    `pkg/apis/policy/validation/validation.go` on create and update (the spec may change; an update whose stored
    selector is invalid lets invalid label values through, `hasInvalidLabelValueInLabelSelector`)."""

    def initial_status(self) -> dict[str, Any]:
        return {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}

    def spec_errors(self, spec: dict[str, Any], relaxed: bool = False) -> list[FieldError]:
        errs: list[FieldError] = []
        if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
            errs.append(FieldError("FieldValueInvalid", "spec", f"Invalid value: {go_pdb_spec(spec)}: minAvailable "
                                                                "and maxUnavailable cannot be both set"))
        for key in ("minAvailable", "maxUnavailable"):
            if spec.get(key) is not None:
                errs += positive_int_or_percent(spec[key], f"spec.{key}")
        if isinstance(spec.get("selector"), dict):
            errs += selector_errors(spec["selector"], "spec.selector", relaxed)
        policy = spec.get("unhealthyPodEvictionPolicy")
        if policy is not None and policy not in ("AlwaysAllow", "IfHealthyBudget"):
            errs.append(field_not_supported("spec.unhealthyPodEvictionPolicy", policy, ["AlwaysAllow", "IfHealthyBudget"]))
        return errs

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        old_selector = as_dict(old.get("spec")).get("selector")
        relaxed = isinstance(old_selector, dict) and bool(selector_errors(old_selector, ""))
        return Strategy.validate_update(self, new, old) + self.spec_errors(as_dict(new.get("spec")), relaxed)


class ControllerRevisionStrategy(Strategy):
    """`pkg/registry/apps/controllerrevision/strategy.go`: no generation, no status, nothing prepared;
    `ValidateControllerRevision` (`data` required, `revision` not negative) and, on update,
    `ValidateControllerRevisionUpdate` (`data` immutable; `revision` may change: the controllers renumber a
    revision they roll back to)."""

    def _errors(self, obj: dict[str, Any]) -> list[FieldError]:
        errs: list[FieldError] = []
        if obj.get("data") is None:
            errs.append(field_required("data", "data is mandatory"))
        revision = obj.get("revision")
        if isinstance(revision, int) and not isinstance(revision, bool) and revision < 0:
            errs.append(field_invalid("revision", revision, "must be greater than or equal to 0"))
        return errs

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + self._errors(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errs = super().validate_update(new, old) + self._errors(new)
        data = new.get("data")
        if data is None and old.get("data") is not None or data is not None and (
                old.get("data") is None or exact(data) != exact(old["data"])):  # Semantic.DeepEqual: the bytes
            errs.append(field_invalid("data", None, "field is immutable") if data is None else FieldError(
                "FieldValueInvalid", "data", f"Invalid value: {_unknown_v(data)}: field is immutable"))
        return errs


def _unknown_v(data: Any) -> str:
    """`%#v` of the internal `runtime.Unknown` a `RawExtension` converts to (`runtime/embedded.go`), which 1.33's
    `field.Error.ErrorBody` prints (the pointer's value is no `Stringer`): its bytes as Go keeps them
    (gojsonraw.py: the bytes sent, whitespace too)."""
    raw = exact(data).encode()
    return ('runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, Raw:[]uint8{'
            + ", ".join(f"0x{b:x}" for b in raw) + '}, ContentEncoding:"", ContentType:"application/json"}')


class EndpointSliceStrategy(DropsDisabledFields, Strategy):
    """`pkg/registry/discovery/endpointslice/strategy.go`; `ValidateEndpointSliceCreate` and
    `ValidateEndpointSliceUpdate` (addressType immutable) of groupvalidation/discovery.py; the decode-time
    `SetDefaults_EndpointPort` of `pkg/apis/discovery/v1/defaults.go` (name "", protocol TCP)."""

    def default(self, obj: dict[str, Any], *, update: bool = False) -> None:
        super().default(obj, update=update)
        for port in obj.get("ports") if isinstance(obj.get("ports"), list) else ():
            if isinstance(port, dict):
                if port.get("name") is None:
                    port["name"] = ""
                if port.get("protocol") is None:
                    port["protocol"] = "TCP"

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return super().validate(obj) + endpoint_slice_errors(obj)

    def warnings_on_create(self, obj: dict[str, Any]) -> list[str]:
        return endpoint_slice_warnings(obj, create=True)

    def warnings_on_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[str]:
        return endpoint_slice_warnings(new, create=False)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errs = super().validate_update(new, old) + endpoint_slice_errors(new, update=True)
        if new.get("addressType") != old.get("addressType"):
            errs.append(field_invalid("addressType", new.get("addressType") or "", "field is immutable"))
        return errs


def _info(kind: str, plural: str, short: tuple[str, ...] = (), fields: frozenset[str] = _SPEC,
          categories: tuple[str, ...] = (), name_rule: str = "subdomain", update_validates_meta: bool = False,
          update_meta_calls: str = "", status_meta_calls: str = "") -> ResourceInfo:
    return ResourceInfo(kind, plural, kind.lower(), short, fields=fields, categories=categories, name_rule=name_rule,
                        update_validates_meta=update_validates_meta, update_meta_calls=update_meta_calls,
                        status_meta_calls=status_meta_calls)


ALL = ("all",)
WORKLOAD_KINDS: tuple[GroupKind, ...] = (
    GroupKind("apps", "v1", _info("DaemonSet", "daemonsets", ("ds",), categories=ALL), DaemonSetStrategy),
    GroupKind("apps", "v1", _info("Deployment", "deployments", ("deploy",), categories=ALL), DeploymentStrategy),
    GroupKind("apps", "v1", _info("ReplicaSet", "replicasets", ("rs",), categories=ALL), ReplicaSetStrategy),
    GroupKind("apps", "v1", _info("StatefulSet", "statefulsets", ("sts",), categories=ALL, name_rule="label"),
              StatefulSetStrategy),
    GroupKind("apps", "v1", _info("ControllerRevision", "controllerrevisions", fields=frozenset({"data", "revision"}),
                                  update_validates_meta=True), ControllerRevisionStrategy),
    GroupKind("batch", "v1", _info("CronJob", "cronjobs", ("cj",), categories=ALL), CronJobStrategy),
    # job strategy.go: `ValidateJob`, then `ValidateJobUpdate` (`ValidateObjectMetaUpdate` first)
    GroupKind("batch", "v1", _info("Job", "jobs", categories=ALL, update_meta_calls="MVUC"), JobStrategy),
    GroupKind("networking.k8s.io", "v1", _info("NetworkPolicy", "networkpolicies", ("netpol",)),
              NetworkPolicyStrategy),
    # `ValidatePodDisruptionBudget` (its update's) and `ValidatePodDisruptionBudgetStatusUpdate` judge no metadata
    GroupKind("policy", "v1", _info("PodDisruptionBudget", "poddisruptionbudgets", ("pdb",), update_meta_calls="-",
                                    status_meta_calls="-"),
              PodDisruptionBudgetStrategy),
    GroupKind("coordination.k8s.io", "v1", _info("Lease", "leases", fields=frozenset({"spec"})), LeaseStrategy),
    # `ValidateEndpointSliceUpdate` is `ValidateEndpointSlice` and the addressType's immutability, no ...MetaUpdate
    GroupKind("discovery.k8s.io", "v1", _info("EndpointSlice", "endpointslices", update_validates_meta=True,
                                              fields=frozenset({"addressType", "endpoints", "ports"}),
                                              update_meta_calls="M"),
              EndpointSliceStrategy),
)

__all__ = ["WORKLOAD_KINDS", "GroupKind", "go_string_map", "selector_matches"]
