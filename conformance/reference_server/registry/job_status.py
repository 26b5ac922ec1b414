"""A Job's `/status` rules: `pkg/apis/batch/validation/validation.go` `validateJobStatus` and
`ValidateJobStatusUpdate`, with the `JobStatusValidationOptions` that 1.33's registry passes
(`pkg/registry/batch/job/strategy.go` `getStatusValidationOptions`, the JobManagedBy gate being on by default
since 1.32): most rules judge only a write that changes the fields they are about, so a Job whose status is
already odd can still be updated elsewhere.

Values in messages as `field.ErrorBody` prints them: conditions' errors omit the value (`field.OmitValueType`),
times are Go's `time.Time.String()` (`2026-01-02 03:04:05 +0000 UTC`), `uncountedTerminatedPods` Go's `%#v` of
the internal struct.
"""
from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from ..apierrors import FieldError, field_invalid, field_required
from ..goport.gofmt import go_quote, sharp_v_strings
from .meta import parse_time
from .shapes import as_dict, as_int, as_list

NEGATIVE = "must be greater than or equal to 0"
_INT = re.compile(r"[+-]?[0-9]+")


def _opt_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def condition_true(status: dict[str, Any], ctype: str) -> bool:
    """`IsConditionTrue`."""
    return any(as_dict(c).get("type") == ctype and as_dict(c).get("status") == "True"
               for c in as_list(status.get("conditions")))


def finished(status: dict[str, Any]) -> bool:
    """`IsJobFinished`: Complete or Failed is True."""
    return condition_true(status, "Complete") or condition_true(status, "Failed")


def _time(value: Any) -> _dt.datetime | None:
    """A `metav1.Time` (RFC 3339, second precision) or None when unset or unreadable."""
    t = parse_time(value)
    return None if t is None else t.astimezone(_dt.timezone.utc).replace(microsecond=0)


def _go_time(t: _dt.datetime) -> str:
    """`time.Time.String()` of a UTC time (kube-apiserver runs in UTC)."""
    return t.strftime("%Y-%m-%d %H:%M:%S +0000 UTC")


def _omit(path: str, detail: str) -> FieldError:
    """`field.Invalid(path, field.OmitValueType{}, detail)`: no value in the message."""
    return FieldError("FieldValueInvalid", path, f"Invalid value: {detail}")


def _invalid_raw(path: str, shown: str, detail: str) -> FieldError:
    return FieldError("FieldValueInvalid", path, f"Invalid value: {shown}: {detail}")


def _go_uids(value: Any) -> str:
    return sharp_v_strings(value, "[]types.UID")


def _uncounted_repr(u: dict[str, Any]) -> str:
    """`%#v` of `*batch.UncountedTerminatedPods`, dereferenced by ErrorBody."""
    return f"batch.UncountedTerminatedPods{{Succeeded:{_go_uids(u.get('succeeded'))}, " \
           f"Failed:{_go_uids(u.get('failed'))}}}"


def _interval(text: str, completions: int) -> tuple[int, int]:
    """`parseIndexInterval`."""
    limits = text.split("-")
    if len(limits) > 2:
        raise ValueError(f'the fragment {go_quote(text)} violates the requirement that an index interval can '
                         "have at most two parts separated by '-'")
    bounds = []
    for part in limits:
        if not _INT.fullmatch(part):
            raise ValueError(f"cannot convert string to integer for index: {go_quote(part)}")
        if int(part) >= completions:
            raise ValueError(f"too large index: {go_quote(part)}")
        bounds.append(int(part))
    if len(bounds) == 2 and bounds[0] >= bounds[1]:
        raise ValueError(f"non-increasing order, previous: {bounds[0]}, current: {bounds[1]}")
    return bounds[0], bounds[-1]


def indexes_format_error(text: str, completions: int) -> str | None:
    """`validateIndexesFormat`: None when `text` is a valid increasing list of intervals below completions."""
    if not text:
        return None
    last = None
    for part in text.split(","):
        try:
            x, y = _interval(part, completions)
        except ValueError as exc:
            return str(exc)
        if last is not None and last >= x:
            return f"non-increasing order, previous: {last}, current: {x}"
        last = y
    return None


def _overlap_error(completed: str, failed: str, completions: int) -> str | None:
    """`validateFailedIndexesNotOverlapCompleted` (unparsable intervals skipped: the format rule reports them)."""
    if not completed or not failed:
        return None

    def parsed(parts: list[str], i: int) -> tuple[int, int] | None:
        try:
            return _interval(parts[i], completions)
        except ValueError:
            return None
    cs, fs = completed.split(","), failed.split(",")
    ci = fi = 0
    c, f = parsed(cs, 0), parsed(fs, 0)
    while ci < len(cs) and fi < len(fs):
        if c is None:
            ci += 1
            c = parsed(cs, ci) if ci < len(cs) else c
        elif f is None:
            fi += 1
            f = parsed(fs, fi) if fi < len(fs) else f
        else:
            if c[0] <= f[1] and f[0] <= c[1]:
                return f"failedIndexes and completedIndexes overlap at index: {max(c[0], f[0])}"
            if c[0] <= f[0]:
                ci += 1
                c = parsed(cs, ci) if ci < len(cs) else c
            else:
                fi += 1
                f = parsed(fs, fi) if fi < len(fs) else f
    return None


def options(new: dict[str, Any], old: dict[str, Any]) -> dict[str, bool]:
    """`getStatusValidationOptions` with JobManagedBy on: which rules this write is judged by."""
    s, o, spec = as_dict(new.get("status")), as_dict(old.get("status")), as_dict(new.get("spec"))
    indexed = spec.get("completionMode") == "Indexed"

    def changed(fn: Any) -> bool:
        return fn(o) != fn(s)
    finished_c = changed(finished)
    complete_c = changed(lambda st: condition_true(st, "Complete"))
    failed_c = changed(lambda st: condition_true(st, "Failed"))
    target_c = changed(lambda st: condition_true(st, "FailureTarget"))
    criteria_c = changed(lambda st: condition_true(st, "SuccessCriteriaMet"))
    completed_idx_c = (o.get("completedIndexes") or "") != (s.get("completedIndexes") or "")
    failed_idx_c = o.get("failedIndexes") != s.get("failedIndexes")
    active_c = as_int(o.get("active")) != as_int(s.get("active"))
    ready_c = _opt_int(o.get("ready")) != _opt_int(s.get("ready"))
    terminating_c = _opt_int(o.get("terminating")) != _opt_int(s.get("terminating"))
    start_c = _time(o.get("startTime")) != _time(s.get("startTime"))
    completion_c = _time(o.get("completionTime")) != _time(s.get("completionTime"))
    uncounted_c = _uncounted_norm(o.get("uncountedTerminatedPods")) != _uncounted_norm(s.get("uncountedTerminatedPods"))
    return {
        "decreasing_succeeded": not indexed or spec.get("completions") != spec.get("parallelism"),
        "invalid_completed_indexes": completed_idx_c,
        "invalid_failed_indexes": failed_idx_c,
        "completed_indexes_non_indexed": completed_idx_c,
        "failed_indexes_no_backoff_limit_per_index": failed_idx_c,
        "failed_indexes_overlapping": failed_idx_c or completed_idx_c,
        "failed_without_failure_target": failed_c or failed_idx_c,
        "complete_without_success_criteria": complete_c or criteria_c,
        "finished_with_active": finished_c or active_c,
        "finished_with_terminating": finished_c or terminating_c,
        "finished_without_start": finished_c or start_c,
        "finished_with_uncounted": finished_c or uncounted_c,
        "start_time_update_unsuspended": start_c,
        "completion_before_start": start_c or completion_c,
        "not_complete_with_completion_time": complete_c or completion_c,
        "complete_without_completion_time": complete_c or completion_c,
        "complete_with_failed": complete_c or failed_c,
        "complete_with_failure_target": complete_c or target_c,
        "more_ready_than_active": ready_c or active_c,
    }


def _uncounted_norm(value: Any) -> Any:
    """`apiequality.Semantic.DeepEqual` of the pointers: nil and empty lists alike inside, nil apart from {}."""
    if not isinstance(value, dict):
        return None
    return tuple(tuple(str(u) for u in as_list(value.get(k))) for k in ("succeeded", "failed"))


def validate_job_status(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """`validateJobStatus` + `ValidateJobStatusUpdate` with `options(new, old)`."""
    opts = options(new, old)
    s, o, spec = as_dict(new.get("status")), as_dict(old.get("status")), as_dict(new.get("spec"))
    errs: list[FieldError] = []
    for name in ("active", "succeeded", "failed", "ready", "terminating"):
        value = _opt_int(s.get(name))
        if value is not None and value < 0:
            errs.append(field_invalid(f"status.{name}", value, NEGATIVE))
    uncounted = s.get("uncountedTerminatedPods")
    if isinstance(uncounted, dict):
        seen: set[str] = set()
        for key in ("succeeded", "failed"):
            for i, uid in enumerate(as_list(uncounted.get(key))):
                path = f"status.uncountedTerminatedPods.{key}[{i}]"
                if uid == "":
                    errs.append(field_invalid(path, uid, "must not be empty"))
                elif uid in seen:
                    quoted = go_quote(uid)
                    errs.append(FieldError("FieldValueDuplicate", path, f"Duplicate value: {quoted}"))
                else:
                    seen.add(uid)
    complete, failed = condition_true(s, "Complete"), condition_true(s, "Failed")
    target, criteria = condition_true(s, "FailureTarget"), condition_true(s, "SuccessCriteriaMet")
    start, completion = _time(s.get("startTime")), _time(s.get("completionTime"))
    done = complete or failed
    if opts["complete_with_failed"] and complete and failed:
        errs.append(_omit("status.conditions", "cannot set Complete=True and Failed=true conditions"))
    if opts["complete_with_failure_target"] and complete and target:
        errs.append(_omit("status.conditions", "cannot set Complete=True and FailureTarget=true conditions"))
    if opts["not_complete_with_completion_time"] and completion is not None and not complete:
        errs.append(_invalid_raw("status.completionTime", _go_time(completion),
                                 "cannot set completionTime when there is no Complete=True condition"))
    if opts["complete_without_completion_time"] and completion is None and complete:
        errs.append(field_required("status.completionTime", "completionTime is required for Complete jobs"))
    if opts["completion_before_start"] and start is not None and completion is not None and completion < start:
        errs.append(_invalid_raw("status.completionTime", _go_time(completion),
                                 "completionTime cannot be set before startTime"))
    if opts["failed_without_failure_target"] and failed and not target:
        errs.append(_omit("status.conditions",
                          "cannot set Failed=True condition without the FailureTarget=true condition"))
    if opts["complete_without_success_criteria"] and complete and not criteria:
        errs.append(_omit("status.conditions",
                          "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"))
    active = as_int(s.get("active"))
    if opts["finished_with_active"] and active > 0 and done:
        errs.append(field_invalid("status.active", active, "active>0 is invalid for finished job"))
    if opts["finished_without_start"] and start is None and done:
        errs.append(field_required("status.startTime", "startTime is required for finished job"))
    if opts["finished_with_uncounted"] and done and isinstance(uncounted, dict) and \
            as_list(uncounted.get("failed")) + as_list(uncounted.get("succeeded")):
        errs.append(_invalid_raw("status.uncountedTerminatedPods", _uncounted_repr(uncounted),
                                 "uncountedTerminatedPods needs to be empty for finished job"))
    completions = _opt_int(spec.get("completions"))
    completed_idx = s.get("completedIndexes") if isinstance(s.get("completedIndexes"), str) else ""
    failed_idx = s.get("failedIndexes") if isinstance(s.get("failedIndexes"), str) else None
    per_index = spec.get("backoffLimitPerIndex") is not None
    if opts["invalid_completed_indexes"] and completions is not None:
        err = indexes_format_error(completed_idx, completions)
        if err:
            errs.append(field_invalid("status.completedIndexes", completed_idx, f"error parsing completedIndexes: {err}"))
    if opts["invalid_failed_indexes"] and completions is not None and per_index and failed_idx is not None:
        err = indexes_format_error(failed_idx, completions)
        if err:
            errs.append(field_invalid("status.failedIndexes", failed_idx, f"error parsing failedIndexes: {err}"))
    if opts["completed_indexes_non_indexed"] and completed_idx and spec.get("completionMode") != "Indexed":
        errs.append(field_invalid("status.completedIndexes", completed_idx,
                                  "cannot set non-empty completedIndexes when non-indexed completion mode"))
    if opts["failed_indexes_no_backoff_limit_per_index"] and not per_index and failed_idx is not None:
        errs.append(field_invalid("status.failedIndexes", failed_idx,
                                  "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
    if opts["failed_indexes_overlapping"] and completions is not None and failed_idx is not None:
        err = _overlap_error(completed_idx, failed_idx, completions)
        if err:
            errs.append(field_invalid("status.failedIndexes", failed_idx, err))
    terminating, ready = _opt_int(s.get("terminating")), _opt_int(s.get("ready"))
    if opts["finished_with_terminating"] and terminating is not None and terminating > 0 and done:
        errs.append(field_invalid("status.terminating", terminating, "terminating>0 is invalid for finished job"))
    if opts["more_ready_than_active"] and ready is not None and ready > active:
        errs.append(field_invalid("status.ready", ready, "cannot set more ready pods than active"))
    if criteria and failed:
        errs.append(_omit("status.conditions", "cannot set SuccessCriteriaMet=True and Failed=true conditions"))
    if criteria and target:
        errs.append(_omit("status.conditions", "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
    if spec.get("successPolicy") is not None and not criteria and complete:
        errs.append(_omit("status.conditions",
                          "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"))
    # ValidateJobStatusUpdate
    for ctype in ("Failed", "Complete", "FailureTarget"):  # RejectDisablingTerminalCondition: always
        if condition_true(o, ctype) and not condition_true(s, ctype):
            errs.append(_omit("status.conditions", f"cannot disable the terminal {ctype}=True condition"))
    if as_int(s.get("failed")) < as_int(o.get("failed")):  # RejectDecreasingFailedCounter: always
        errs.append(field_invalid("status.failed", as_int(s.get("failed")), "cannot decrease the failed counter"))
    if opts["decreasing_succeeded"] and as_int(s.get("succeeded")) < as_int(o.get("succeeded")):
        errs.append(field_invalid("status.succeeded", as_int(s.get("succeeded")), "cannot decrease the succeeded counter"))
    old_completion, old_start = _time(o.get("completionTime")), _time(o.get("startTime"))
    if completion is not None and old_completion is not None and completion != old_completion:  # always
        errs.append(_invalid_raw("status.completionTime", _go_time(completion), "completionTime cannot be mutated"))
    if opts["start_time_update_unsuspended"] and old_start is not None and old_start != start and \
            not spec.get("suspend"):
        errs.append(field_required("status.startTime", "startTime cannot be removed for unsuspended job"))
    old_criteria = condition_true(o, "SuccessCriteriaMet")
    if old_criteria and not criteria:
        errs.append(_omit("status.conditions", "cannot disable the SuccessCriteriaMet=True condition"))
    if condition_true(o, "Complete") and not old_criteria and criteria:
        errs.append(_omit("status.conditions",
                          "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
    return errs
