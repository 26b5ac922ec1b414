"""A request's time in admission webhooks (`k8s.io/apiserver/pkg/endpoints/request/webhook_duration.go`
`LatencyTrackers`: the mutating calls summed, the validating ones, made in parallel, their longest), which
`apiserver_request_sli_duration_seconds` leaves out (metrics/apiserver.py). Kept in a context variable that the
request's task carries; nothing is made for a request that calls no webhook."""
from __future__ import annotations

from contextvars import ContextVar

# [mutating seconds (sum), validating seconds (max)] of the request this task serves
SPENT: ContextVar[list[float] | None] = ContextVar("nsconform_webhook_seconds", default=None)


def tracking() -> list[float]:
    """The current request's cells, made if need be (before parallel calls, so that their tasks share them)."""
    spent = SPENT.get()
    if spent is None:
        spent = [0.0, 0.0]
        SPENT.set(spent)
    return spent


def track(mutating: bool, seconds: float) -> None:
    spent = tracking()
    if mutating:
        spent[0] += seconds
    elif seconds > spent[1]:
        spent[1] = seconds


def take() -> float:
    """The webhook time of the request this task served (0 when none), forgotten (a connection's next request
    may run in the same context)."""
    spent = SPENT.get()
    if spent is None:
        return 0.0
    SPENT.set(None)
    return spent[0] + spent[1]


__all__ = ["SPENT", "take", "track", "tracking"]
