"""The admission webhooks' metrics (`k8s.io/apiserver/pkg/admission/metrics/metrics.go`, v0.33.1, recorded by
`admission/plugin/webhook/mutating/dispatcher.go` and `validating/dispatcher.go`) and ValidatingAdmissionPolicy's
(`admission/plugin/policy/validating/metrics/metrics.go`, BETA, recorded by `policy/validating/dispatcher.go`).

Per call, as the dispatchers: `apiserver_admission_webhook_admission_duration_seconds` and
`apiserver_admission_webhook_request_total` (type `admit` for a mutating webhook, `validating` for a validating
one: upstream's two dispatchers pass these strings, not the `validate` of its step metrics), with the code of the
outcome: 200 for an answer that allows, the denial's code (at least 400) for one that refuses, the calling error's
(400 for a call that failed, the webhook's HTTP status for an error answer, 503 for an answer that is no valid
review); `rejected` is true for a denial and for a failed call under `failurePolicy: Fail`.
`apiserver_admission_webhook_rejection_count` counts the refusals (`no_error` for a denial,
`calling_webhook_error` for a failed call under Fail) and `apiserver_admission_webhook_fail_open_count` a failed
call under Ignore. Codes above 600 are counted as 600.
Each call's time is also added to the request's webhook time (admission/webhooks/latency.py), which the request's
SLI duration leaves out.

ValidatingAdmissionPolicy: as upstream's dispatcher, a validation that passes records nothing; one that fails is
recorded once for each of its binding's `validationActions` (`deny`, `warn`, `audit`), an evaluation error under
`failurePolicy: Ignore` as `allow`, an audit annotation's error as `deny`; `error_type` is upstream's
`ErrorType`, which judges by the message, so a plain denial is `invalid_error`; the duration is the validation
expression's evaluation (0 for an error before any expression, as a matchConditions error).

The plugins find this object as their registry's `admission_metrics` (set by `ServerMetrics`): without one (a
registry no server serves) nothing is recorded.
"""
from __future__ import annotations

from typing import Any

from ..admission.webhooks.latency import track
from .registry import BETA, STABLE, CounterVec, HistogramVec

WEBHOOK_BUCKETS = (0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25)
_WEBHOOK_LABELS = ("name", "type", "operation")
POLICY_BUCKETS = (0.0000005, 0.001, 0.01, 0.1, 1.0)
_POLICY_LABELS = ("policy", "policy_binding", "error_type", "enforcement_action")


class AdmissionMetrics:
    """The webhook and policy families: `observe_webhook` once per webhook call, `observe_policy` once per
    decision acted on."""

    def __init__(self) -> None:
        self.webhook_duration = HistogramVec(
            "apiserver_admission_webhook_admission_duration_seconds",
            "Admission webhook latency histogram in seconds, identified by name and broken out for each operation "
            "and API resource and type (validate or admit).", _WEBHOOK_LABELS + ("rejected",), WEBHOOK_BUCKETS,
            STABLE)
        self.webhook_requests = CounterVec(
            "apiserver_admission_webhook_request_total",
            "Admission webhook request total, identified by name and broken out for each admission type "
            "(validating or admit) and operation. Additional labels specify whether the request was rejected or "
            "not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics "
            "cardinality bounded.", _WEBHOOK_LABELS + ("code", "rejected"))
        self.webhook_rejections = CounterVec(
            "apiserver_admission_webhook_rejection_count",
            "Admission webhook rejection count, identified by name and broken out for each admission type "
            "(validating or admit) and operation. Additional labels specify an error type (calling_webhook_error "
            "or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero "
            "rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver "
            "when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the "
            "metrics cardinality bounded.", _WEBHOOK_LABELS + ("error_type", "rejection_code"))
        self.webhook_fail_open = CounterVec(
            "apiserver_admission_webhook_fail_open_count",
            "Admission webhook fail open count, identified by name and broken out for each admission type "
            "(validating or admit).", ("name", "type"))

        self.policy_checks = CounterVec(
            "apiserver_validating_admission_policy_check_total",
            "Validation admission policy check total, labeled by policy and further identified by binding and "
            "enforcement action taken.", _POLICY_LABELS, BETA)
        self.policy_duration = HistogramVec(
            "apiserver_validating_admission_policy_check_duration_seconds",
            "Validation admission latency for individual validation expressions in seconds, labeled by policy and "
            "further including binding and enforcement action taken.", _POLICY_LABELS, POLICY_BUCKETS, BETA)

    def families(self) -> tuple[Any, ...]:
        return (self.webhook_duration, self.webhook_requests, self.webhook_rejections, self.webhook_fail_open,
                self.policy_checks, self.policy_duration)

    def observe_policy(self, policy: str, binding: str, decision: Any, action: str) -> None:
        """One decision of a ValidatingAdmissionPolicy's binding acted on (`allow` for an error ignored, `deny`,
        `warn`, `audit`): `dispatcher.go`'s `ObserveAdmission`/`ObserveRejection`/`ObserveWarn`/`ObserveAudit`."""
        key = (policy, binding, decision.error_type, action)
        self.policy_checks.inc(key)
        self.policy_duration.observe(key, decision.elapsed)

    def observe_webhook(self, name: str, mutating: bool, operation: str, seconds: float, code: int,
                        error_type: str = "", fail_open: bool = False) -> None:
        """One call: `code` its outcome's, `error_type` set for a refusal (`no_error` for a denial,
        `calling_webhook_error` for a failed call under Fail), `fail_open` for a failed call under Ignore."""
        kind = "admit" if mutating else "validating"
        code = min(code, 600)
        rejected = "true" if error_type else "false"
        if error_type:
            self.webhook_rejections.inc((name, kind, operation, error_type, str(code)))
        if fail_open:
            self.webhook_fail_open.inc((name, kind))
        self.webhook_requests.inc((name, kind, operation, str(code), rejected))
        self.webhook_duration.observe((name, kind, operation, rejected), seconds)
        track(mutating, seconds)  # left out of the request's SLI duration


__all__ = ["AdmissionMetrics", "WEBHOOK_BUCKETS"]
