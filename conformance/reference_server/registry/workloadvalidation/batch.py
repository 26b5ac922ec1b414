"""The batch/v1 kinds' spec validation, `pkg/apis/batch/validation/validation.go` (1.33) with the options its
strategies pass (`pkg/registry/batch/{job,cronjob}/strategy.go`): `ValidateJob` (`validateGeneratedSelector`,
`ValidateJobSpec` → `validateJobSpec`: counts, indexed completion, backoff limit per index, pod failure and
success policies, pod replacement policy, the template and its restartPolicy; an Indexed Job's longest pod
hostname), `ValidateJobUpdate` (immutable completions, selector, template, completionMode, podFailurePolicy,
backoffLimitPerIndex, successPolicy; elastic Indexed Jobs; scheduling directives of a suspended Job that never
started), and `ValidateCronJobCreate`/`ValidateCronJobUpdate` (schedule as robfig/cron parses it, TZ, timeZone,
concurrencyPolicy, history limits, the job template, a name of at most 52 characters).

`managedBy` (1.33's JobManagedBy, beta) is a domain-prefixed path of at most 63 bytes, immutable.

An immutable template or pod failure policy refused on update shows its value as JSON (upstream: Go's `%#v` of the
internal struct, pointer addresses included)."""
from __future__ import annotations

import json
from typing import Any

from ...apierrors import FieldError, GoValue, field_invalid, field_not_supported, field_required
from ...goport.gofmt import q_strings, sharp_v_ints
from ...wire.gosyntax import sharp_v as go_sharp_v

from ..groupvalidation.formats import domain_prefixed_path
from ..groupvalidation.storage import too_long
from ..job_status import indexes_format_error
from ..podvalidation import validate_pod_template_spec
from ..podvalidation.fields import field_duplicate, integer, nonnegative
from ..shapes import as_dict, as_list
from ..validation import is_dns1123_label, is_qualified_name
from .cron import CronError, load_location_error, parse_standard
from .gofmt import go_label_selector, go_string_map
from .labelselector import selector_matches, selector_parses, validate_label_selector

MAX_PARALLELISM_INDEXED = 100_000
MAX_FAILED_INDEXES = 100_000
COMPLETIONS_SOFT_LIMIT = 100_000
HIGH_COMPLETIONS_LIMIT = 10_000
ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
CONCURRENCY = ("Allow", "Forbid", "Replace")


def _omit(path: str, detail: str) -> FieldError:
    """`field.Invalid(path, field.OmitValueType{}, detail)`."""
    return FieldError("FieldValueInvalid", path, f"Invalid value: {detail}")


def _too_many(path: str, n: int, limit: int) -> FieldError:
    return FieldError("FieldValueTooMany", path, f"Too many: {n}: must have at most {limit} items")


def _success_policy_struct(policy: dict[str, Any]) -> str:
    """`%#v` of the dereferenced `*batch.SuccessPolicy`."""
    return go_sharp_v(policy, "batch.SuccessPolicy")


def _on_exit_codes(req: dict[str, Any], path: str, containers: set[str]) -> list[FieldError]:
    """`validatePodFailurePolicyRuleOnExitCodes`."""
    errs: list[FieldError] = []
    op = req.get("operator") or ""
    if not op:
        errs.append(field_required(f"{path}.operator", f"valid values: {q_strings(['In', 'NotIn'])}"))
    elif op not in ("In", "NotIn"):
        errs.append(field_not_supported(f"{path}.operator", op, ("In", "NotIn")))
    name = req.get("containerName")
    if name is not None and name not in containers:
        errs.append(field_invalid(f"{path}.containerName", name,
                                  "must be one of the container or initContainer names in the pod template"))
    values = req.get("values")
    items = [v for v in as_list(values) if integer(v) is not None]
    if not items:
        errs.append(FieldError("FieldValueInvalid", f"{path}.values",
                               f"Invalid value: {sharp_v_ints(values)}: at least one value is required"))
    elif len(items) > 255:
        errs.append(_too_many(f"{path}.values", len(items), 255))
    seen: set[int] = set()
    ordered = True
    for j, v in enumerate(items):
        if op == "In" and v == 0:
            errs.append(field_invalid(f"{path}.values[{j}]", v, "must not be 0 for the In operator"))
        if v in seen:
            errs.append(field_duplicate(f"{path}.values[{j}]", v))
        seen.add(v)
        if j and items[j - 1] > v:
            ordered = False
    if not ordered:
        errs.append(FieldError("FieldValueInvalid", f"{path}.values",
                               f"Invalid value: {sharp_v_ints(values)}: must be ordered"))
    return errs


def _on_pod_conditions(patterns: list[Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if len(patterns) > 20:
        errs.append(_too_many(path, len(patterns), 20))
    for j, pattern in enumerate(as_dict(p) for p in patterns):
        ctype = str(pattern.get("type") or "")
        errs += [field_invalid(f"{path}[{j}].type", ctype, m) for m in is_qualified_name(ctype)]
        status = pattern.get("status") or ""
        if not status:
            errs.append(field_required(f"{path}[{j}].status",
                                       f"valid values: {q_strings(['False', 'True', 'Unknown'])}"))
        elif status not in ("False", "True", "Unknown"):
            errs.append(field_not_supported(f"{path}[{j}].status", status, ("False", "True", "Unknown")))
    return errs


def _pod_failure_policy(spec: dict[str, Any], path: str) -> list[FieldError]:
    """`validatePodFailurePolicy`."""
    errs: list[FieldError] = []
    rules = as_list(as_dict(spec.get("podFailurePolicy")).get("rules"))
    if len(rules) > 20:
        errs.append(_too_many(f"{path}.rules", len(rules), 20))
    tspec = as_dict(as_dict(spec.get("template")).get("spec"))
    containers = {str(as_dict(c).get("name") or "") for k in ("containers", "initContainers")
                  for c in as_list(tspec.get(k))}
    for i, rule in enumerate(as_dict(r) for r in rules):
        here = f"{path}.rules[{i}]"
        action = rule.get("action") or ""
        if not action:
            errs.append(field_required(f"{here}.action", f"valid values: {q_strings(list(ACTIONS))}"))
        elif action == "FailIndex":
            if spec.get("backoffLimitPerIndex") is None:
                errs.append(field_invalid(f"{here}.action", action, "requires the backoffLimitPerIndex to be set"))
        elif action not in ACTIONS:
            errs.append(field_not_supported(f"{here}.action", action, ACTIONS))
        exit_codes, conditions = rule.get("onExitCodes"), as_list(rule.get("onPodConditions"))
        if isinstance(exit_codes, dict):
            errs += _on_exit_codes(exit_codes, f"{here}.onExitCodes", containers)
        if conditions:
            errs += _on_pod_conditions(conditions, f"{here}.onPodConditions")
        if isinstance(exit_codes, dict) and conditions:
            errs.append(_omit(here, "specifying both OnExitCodes and OnPodConditions is not supported"))
        if not isinstance(exit_codes, dict) and not conditions:
            errs.append(_omit(here, "specifying one of OnExitCodes and OnPodConditions is required"))
    return errs


def _success_policy(spec: dict[str, Any], path: str) -> list[FieldError]:
    """`validateSuccessPolicy` (completions are set: an Indexed Job requires them)."""
    errs: list[FieldError] = []
    rules = as_list(as_dict(spec.get("successPolicy")).get("rules"))
    completions = integer(spec.get("completions")) or 0
    if not rules:
        errs.append(field_required(f"{path}.rules", "at least one rules must be specified when the successPolicy is "
                                                    "specified"))
    if len(rules) > 20:
        errs.append(_too_many(f"{path}.rules", len(rules), 20))
    for i, rule in enumerate(as_dict(r) for r in rules):
        here = f"{path}.rules[{i}]"
        indexes, count = rule.get("succeededIndexes"), integer(rule.get("succeededCount"))
        if count is None and indexes is None:
            errs.append(field_required(here, "at least one of succeededCount or succeededIndexes must be specified"))
        total = 0
        if isinstance(indexes, str):
            if len(indexes) > 64 * 1024:
                errs.append(FieldError("FieldValueTooLong", f"{here}.succeededIndexes",
                                       f"Too long: may not be more than {64 * 1024} bytes"))
            problem = indexes_format_error(indexes, completions)
            if problem:
                errs.append(field_invalid(f"{here}.succeededIndexes", indexes,
                                          f"error parsing succeededIndexes: {problem}"))
            else:
                total = _count_indexes(indexes)
        if count is not None:
            errs += nonnegative(count, f"{here}.succeededCount")
            if count > completions:
                errs.append(field_invalid(f"{here}.succeededCount", count, f"must be less than or equal to "
                                                                           f"{completions} (the number of specified "
                                                                           "completions)"))
            if isinstance(indexes, str) and count > total:
                errs.append(field_invalid(f"{here}.succeededCount", count, f"must be less than or equal to {total} "
                                                                           "(the number of indexes in the specified "
                                                                           "succeededIndexes field)"))
    return errs


def _count_indexes(text: str) -> int:
    total = 0
    for part in (p for p in text.split(",") if p):
        low, _, high = part.partition("-")
        total += (int(high) if high else int(low)) - int(low) + 1
    return total


def job_spec(spec: dict[str, Any], path: str, old_template: Any = None) -> list[FieldError]:
    """`validateJobSpec` (`old_template`: an update's stored template, whose spec relaxes the pod options as
    `validationOptionsForJob` and the CronJob strategy's `GetValidationOptionsFromPodTemplate` do)."""
    errs: list[FieldError] = []
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished",
                "backoffLimitPerIndex"):
        errs += nonnegative(spec.get(key), f"{path}.{key}")
    parallelism, completions = integer(spec.get("parallelism")), integer(spec.get("completions"))
    per_index, max_failed = integer(spec.get("backoffLimitPerIndex")), integer(spec.get("maxFailedIndexes"))
    if max_failed is not None:
        errs += nonnegative(max_failed, f"{path}.maxFailedIndexes")
        if per_index is None:
            errs.append(field_required(f"{path}.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    managed_by = spec.get("managedBy")
    if isinstance(managed_by, str):
        errs += domain_prefixed_path(f"{path}.managedBy", managed_by)
        if len(managed_by.encode()) > 63:
            errs.append(too_long(f"{path}.managedBy", 63))
    mode = spec.get("completionMode")
    if mode is not None:
        if mode not in ("NonIndexed", "Indexed"):
            errs.append(field_not_supported(f"{path}.completionMode", mode, ("NonIndexed", "Indexed")))
        if mode == "Indexed":
            if completions is None:
                errs.append(field_required(f"{path}.completions", "when completion mode is Indexed"))
            if parallelism is not None and parallelism > MAX_PARALLELISM_INDEXED:
                errs.append(field_invalid(f"{path}.parallelism", parallelism, f"must be less than or equal to "
                                                                            f"{MAX_PARALLELISM_INDEXED} when "
                                                                            "completion mode is Indexed"))
            if completions is not None and max_failed is not None and max_failed > completions:
                errs.append(field_invalid(f"{path}.maxFailedIndexes", max_failed,
                                          "must be less than or equal to completions"))
            if max_failed is not None and max_failed > MAX_FAILED_INDEXES:
                errs.append(field_invalid(f"{path}.maxFailedIndexes", max_failed,
                                          f"must be less than or equal to {MAX_FAILED_INDEXES}"))
            if completions is not None and completions > COMPLETIONS_SOFT_LIMIT and per_index is not None:
                high = (f"when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per "
                        "index")
                if max_failed is None:
                    errs.append(field_required(f"{path}.maxFailedIndexes",
                                               f"must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}"))
                if parallelism is not None and parallelism > HIGH_COMPLETIONS_LIMIT:
                    errs.append(field_invalid(f"{path}.parallelism", parallelism,
                                              f"must be less than or equal to {HIGH_COMPLETIONS_LIMIT} {high}"))
                if max_failed is not None and max_failed > HIGH_COMPLETIONS_LIMIT:
                    errs.append(field_invalid(f"{path}.maxFailedIndexes", max_failed,
                                              f"must be less than or equal to {HIGH_COMPLETIONS_LIMIT} {high}"))
    if mode in (None, "NonIndexed"):
        if per_index is not None:
            errs.append(field_invalid(f"{path}.backoffLimitPerIndex", per_index, "requires indexed completion mode"))
        if max_failed is not None:
            errs.append(field_invalid(f"{path}.maxFailedIndexes", max_failed, "requires indexed completion mode"))
    has_pfp = isinstance(spec.get("podFailurePolicy"), dict)
    if has_pfp:
        errs += _pod_failure_policy(spec, f"{path}.podFailurePolicy")
    if isinstance(spec.get("successPolicy"), dict):
        if mode != "Indexed":
            errs.append(FieldError("FieldValueInvalid", f"{path}.successPolicy",
                                   f"Invalid value: {_success_policy_struct(spec['successPolicy'])}: requires "
                                   "indexed completion mode"))
        else:
            errs += _success_policy(spec, f"{path}.successPolicy")
    replacement = spec.get("podReplacementPolicy")
    if replacement is not None:
        if has_pfp and replacement != "Failed":
            errs.append(field_not_supported(f"{path}.podReplacementPolicy", replacement, ("Failed",)))
        elif not has_pfp and replacement not in ("Failed", "TerminatingOrFailed"):
            errs.append(field_not_supported(f"{path}.podReplacementPolicy", replacement,
                                            ("Failed", "TerminatingOrFailed")))
    template = as_dict(spec.get("template"))
    errs += validate_pod_template_spec(template, f"{path}.template", old_template)
    policy = as_dict(template.get("spec")).get("restartPolicy") or ""
    rpath = f"{path}.template.spec.restartPolicy"
    if policy in ("Always", ""):
        errs.append(field_required(rpath, 'valid values: "OnFailure", "Never"'))
    elif policy not in ("OnFailure", "Never"):
        errs.append(field_not_supported(rpath, policy, ("OnFailure", "Never")))
    elif has_pfp and policy != "Never":
        errs.append(field_invalid(rpath, policy, 'only "Never" is supported when podFailurePolicy is specified'))
    return errs


def _labels_mismatch(spec: dict[str, Any], path: str) -> list[FieldError]:
    """`LabelSelectorAsSelector(selector)` matches the template's labels (a nil selector matches nothing)."""
    selector = spec.get("selector")
    if isinstance(selector, dict) and not selector_parses(selector):
        return []
    labels = as_dict(as_dict(spec.get("template")).get("metadata")).get("labels")
    if isinstance(selector, dict) and selector_matches(selector, labels if isinstance(labels, dict) else {}):
        return []
    return [FieldError("FieldValueInvalid", f"{path}.template.metadata.labels",
                       f"Invalid value: {go_string_map(labels)}: `selector` does not match template `labels`")]


def _has_label(labels: Any, key: str, expected: str) -> list[FieldError]:
    """`ValidateHasLabel` on the template."""
    path = f"spec.template.metadata.labels[{key}]"
    if not isinstance(labels, dict) or key not in labels:
        return [field_required(path, f"must be '{expected}'")]
    if labels[key] != expected:
        return [FieldError("FieldValueInvalid", path, f"Invalid value: {go_string_map(labels)}: must be '{expected}'")]
    return []


def _generated_selector(job: dict[str, Any], prefixed: bool) -> list[FieldError]:
    """`validateGeneratedSelector`."""
    spec, meta = as_dict(job.get("spec")), as_dict(job.get("metadata"))
    if spec.get("manualSelector") is True or not isinstance(spec.get("selector"), dict):
        return []
    uid, name = str(meta.get("uid") or ""), str(meta.get("name") or "")
    errs = [field_required("metadata.uid")] if not uid else []
    labels = as_dict(as_dict(spec.get("template")).get("metadata")).get("labels")
    errs += _has_label(labels, "controller-uid", uid) + _has_label(labels, "job-name", name)
    expected = {"controller-uid": uid, "job-name": name}
    if prefixed:
        errs += _has_label(labels, "batch.kubernetes.io/controller-uid", uid)
        errs += _has_label(labels, "batch.kubernetes.io/job-name", name)
        expected.update({"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name})
    if selector_parses(spec["selector"]) and not selector_matches(spec["selector"], expected):
        errs.append(FieldError("FieldValueInvalid", "spec.selector", f"Invalid value: "
                                                                     f"{go_label_selector(spec['selector'])}: "
                                                                     "`selector` not auto-generated"))
    return errs


def validate_job(job: dict[str, Any], *, prefixed: bool = True, old_template: Any = None) -> list[FieldError]:
    """`ValidateJob` after the metadata: generated selector, `ValidateJobSpec`, the Indexed pod hostname."""
    spec, meta = as_dict(job.get("spec")), as_dict(job.get("metadata"))
    errs = _generated_selector(job, prefixed) + job_spec(spec, "spec", old_template)
    if isinstance(spec.get("selector"), dict):
        errs += validate_label_selector(spec["selector"], "spec.selector")
    else:
        errs.append(field_required("spec.selector"))
    errs += _labels_mismatch(spec, "spec")
    completions = integer(spec.get("completions"))
    if spec.get("completionMode") == "Indexed" and completions and completions > 0:
        hostname = f"{meta.get('name') or ''}-{completions - 1}"
        if is_dns1123_label(hostname):
            errs.append(field_invalid("metadata.name", meta.get("name") or "",
                                      f"will not able to create pod with invalid DNS label: {hostname}"))
    return errs


# the internal struct behind a pointer field `ValidateImmutableField` may print (dereferenced: Go's %#v)
_GO_STRUCTS = {"spec.podFailurePolicy": "batch.PodFailurePolicy", "spec.successPolicy": "batch.SuccessPolicy"}


def _immutable(new: Any, old: Any, path: str) -> list[FieldError]:
    """`ValidateImmutableField` (a nil/absent value and an empty one are equal to `Semantic.DeepEqual`)."""
    from .apps import _semantic

    if _semantic(new) == _semantic(old):
        return []
    if path.endswith("selector"):
        shown = go_label_selector(new) if isinstance(new, dict) else "null"
        return [FieldError("FieldValueInvalid", path, f"Invalid value: {shown}: field is immutable")]
    if path in _GO_STRUCTS and new is not None:
        new = GoValue(go_sharp_v(new, _GO_STRUCTS[path]))
    return [field_invalid(path, new, "field is immutable")]


_SCHEDULING = ("nodeSelector", "tolerations", "schedulingGates")


def _template_update(new: dict[str, Any], old: dict[str, Any], mutable_scheduling: bool) -> list[FieldError]:
    """`validatePodTemplateUpdate`: a suspended Job that never started may change its scheduling directives."""
    template, old_template = as_dict(new.get("template")), json.loads(json.dumps(as_dict(old.get("template"))))
    if mutable_scheduling:
        ometa, nmeta = old_template.setdefault("metadata", {}), as_dict(template.get("metadata"))
        for key in ("labels", "annotations"):
            ometa.pop(key, None)
            if key in nmeta:
                ometa[key] = nmeta[key]
        ospec, nspec = old_template.setdefault("spec", {}), as_dict(template.get("spec"))
        for key in _SCHEDULING:
            ospec.pop(key, None)
            if key in nspec:
                ospec[key] = nspec[key]
        naff, oaff = nspec.get("affinity"), as_dict(ospec.get("affinity"))
        if naff is None:
            oaff.pop("nodeAffinity", None)
            if not oaff:
                ospec.pop("affinity", None)
        else:
            oaff = dict(oaff)
            oaff.pop("nodeAffinity", None)
            if "nodeAffinity" in as_dict(naff):
                oaff["nodeAffinity"] = naff["nodeAffinity"]
            ospec["affinity"] = oaff
    return _immutable(template, old_template, "spec.template")


def job_update(new_job: dict[str, Any], old_job: dict[str, Any]) -> list[FieldError]:
    """`ValidateJobUpdate`'s spec rules, with the strategy's options (`getValidationOptionsFromJob`)."""
    new, old = as_dict(new_job.get("spec")), as_dict(old_job.get("spec"))
    errs = job_spec(new, "spec", old.get("template"))
    if isinstance(new.get("selector"), dict):
        errs += validate_label_selector(new["selector"], "spec.selector")
    else:
        errs.append(field_required("spec.selector"))
    errs += _labels_mismatch(new, "spec")
    if new.get("completionMode") == "Indexed":
        if integer(new.get("completions")) is not None and new.get("completions") != old.get("completions") \
                and new.get("completions") != new.get("parallelism"):
            errs.append(field_invalid("spec.completions", new.get("completions"),
                                      "can only be modified in tandem with spec.parallelism"))
    else:
        errs += _immutable(new.get("completions"), old.get("completions"), "spec.completions")
    errs += _immutable(new.get("selector"), old.get("selector"), "spec.selector")
    suspended_unstarted = old.get("suspend") is True and not as_dict(old_job.get("status")).get("startTime")
    errs += _template_update(new, old, suspended_unstarted)
    for key in ("completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy", "successPolicy"):
        errs += _immutable(new.get(key), old.get(key), f"spec.{key}")
    return errs


def prefixed_labels_required(old_job: dict[str, Any]) -> bool:
    """`RequirePrefixedLabels` on update: only when the stored template already has both prefixed labels."""
    labels = as_dict(as_dict(as_dict(as_dict(old_job.get("spec")).get("template")).get("metadata")).get("labels"))
    return "batch.kubernetes.io/job-name" in labels and "batch.kubernetes.io/controller-uid" in labels


# --- CronJob -----------------------------------------------------------------------------------------------


def _schedule(schedule: str, old: str | None, time_zone: Any) -> list[FieldError]:
    """`validateScheduleFormat`."""
    errs: list[FieldError] = []
    try:
        parse_standard(schedule)
    except CronError as exc:
        errs.append(field_invalid("spec.schedule", schedule, str(exc)))
    allow_tz = old is not None and "TZ" in old
    if allow_tz and "TZ" in schedule and time_zone is not None:
        errs.append(field_invalid("spec.schedule", schedule, "cannot use both timeZone field and TZ or CRON_TZ in "
                                                             "schedule"))
    elif not allow_tz and "TZ" in schedule:
        errs.append(field_invalid("spec.schedule", schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone "
                                                             "field instead"))
    return errs


def _time_zone(tz: Any) -> list[FieldError]:
    """`validateTimeZone`."""
    import re

    if tz is None:
        return []
    tz = str(tz)
    path = "spec.timeZone"
    if not tz:
        return [field_invalid(path, tz, "timeZone must be nil or non-empty string")]
    for part in tz.split("/"):
        if part in (".", "..") or part.startswith("-") or not re.fullmatch(r"[A-Za-z.\-_0-9+]{1,14}", part):
            return [field_invalid(path, tz, f"unknown time zone {tz}")]
    errs: list[FieldError] = []
    if tz.lower() == "local":
        errs.append(field_invalid(path, tz, "timeZone must be an explicit time zone as defined in "
                                            "https://www.iana.org/time-zones"))
    problem = load_location_error(tz) if tz != "Local" else None
    if problem:
        errs.append(field_invalid(path, tz, problem))
    return errs


def job_template_spec(jt: Any, old_template: Any = None) -> list[FieldError]:
    """`ValidateJobTemplateSpec`."""
    spec = as_dict(as_dict(jt).get("spec"))
    errs = job_spec(spec, "spec.jobTemplate.spec", old_template)
    if spec.get("selector") is not None:
        errs.append(FieldError("FieldValueInvalid", "spec.jobTemplate.spec.selector",
                               f"Invalid value: {go_label_selector(spec['selector'])}: `selector` will be "
                               "auto-generated"))
    if spec.get("manualSelector") is True:
        errs.append(field_not_supported("spec.jobTemplate.spec.manualSelector", True, ("nil", "false")))
    return errs


def cronjob_spec(spec: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """`validateCronJobSpec`."""
    errs: list[FieldError] = []
    schedule = spec.get("schedule") or ""
    if not schedule:
        errs.append(field_required("spec.schedule"))
    else:
        errs += _schedule(str(schedule), None if old is None else str(old.get("schedule") or ""), spec.get("timeZone"))
    errs += nonnegative(spec.get("startingDeadlineSeconds"), "spec.startingDeadlineSeconds")
    if old is None or old.get("timeZone") != spec.get("timeZone"):
        errs += _time_zone(spec.get("timeZone"))
    policy = spec.get("concurrencyPolicy") or ""
    if not policy:
        errs.append(field_required("spec.concurrencyPolicy"))
    elif policy not in CONCURRENCY:
        errs.append(field_not_supported("spec.concurrencyPolicy", policy, CONCURRENCY))
    old_template = as_dict(as_dict(as_dict(old).get("jobTemplate")).get("spec")).get("template")
    errs += job_template_spec(spec.get("jobTemplate"), old_template)
    errs += nonnegative(spec.get("successfulJobsHistoryLimit"), "spec.successfulJobsHistoryLimit")
    return errs + nonnegative(spec.get("failedJobsHistoryLimit"), "spec.failedJobsHistoryLimit")


def cronjob_name(name: Any) -> list[FieldError]:
    """`ValidateCronJobCreate`'s name limit: the controller appends an 11-character suffix to its Jobs' names."""
    if isinstance(name, str) and len(name) > 52:
        return [field_invalid("metadata.name", name, "must be no more than 52 characters")]
    return []


__all__ = ["cronjob_name", "cronjob_spec", "job_spec", "job_update", "prefixed_labels_required", "validate_job"]
