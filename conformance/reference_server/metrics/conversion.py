"""The CRD conversion webhooks' metrics (`apiextensions-apiserver/pkg/apiserver/conversion/metrics.go`, v0.33,
recorded by `webhook_converter.go` `Convert` and the `converterMetric` wrapping every webhook converter):

- `apiserver_crd_conversion_webhook_duration_seconds{crd_name, from_version, to_version, succeeded}` per
  conversion whose versions differ;
- `apiserver_conversion_webhook_request_total{result, failure_type}` and
  `apiserver_conversion_webhook_duration_seconds{result, failure_type}` per call: `success` with no failure
  type, or `failure` with upstream's type (`conversion_webhook_call_failure`, `..._malformed_response_failure`,
  `..._partial_response_failure`, `..._invalid_converted_object_failure`).

registry/crconversion/webhook.py reports each conversion through the registry's `custom.observe_conversion`
(set by `ServerMetrics`)."""
from __future__ import annotations

from typing import Any

from .registry import CounterVec, HistogramVec

CRD_BUCKETS = tuple(0.001 * 2 ** i for i in range(15))  # ExponentialBuckets(0.001, 2, 15)
WEBHOOK_BUCKETS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 45, 60)


class ConversionMetrics:
    """`observe` once per conversion webhook call."""

    def __init__(self) -> None:
        self.crd_duration = HistogramVec(
            "apiserver_crd_conversion_webhook_duration_seconds", "CRD webhook conversion duration in seconds",
            ("crd_name", "from_version", "to_version", "succeeded"), CRD_BUCKETS)
        self.requests = CounterVec(
            "apiserver_conversion_webhook_request_total",
            "Counter for conversion webhook requests with success/failure and failure error type",
            ("result", "failure_type"))
        self.duration = HistogramVec(
            "apiserver_conversion_webhook_duration_seconds", "Conversion webhook request latency",
            ("result", "failure_type"), WEBHOOK_BUCKETS)

    def families(self) -> tuple[Any, ...]:
        return (self.crd_duration, self.requests, self.duration)

    def observe(self, crd_name: str, from_version: str, to_version: str, seconds: float, failure_type: str) -> None:
        """One call: `failure_type` empty for a success."""
        result = "failure" if failure_type else "success"
        self.requests.inc((result, failure_type))
        self.duration.observe((result, failure_type), seconds)
        if from_version != to_version:
            self.crd_duration.observe((crd_name, from_version, to_version, "false" if failure_type else "true"),
                                      seconds)


__all__ = ["ConversionMetrics"]
