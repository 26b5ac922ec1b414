"""`pkg/apis/coordination/validation/validation.go` `ValidateLeaseSpec` (1.33). `strategy` and `preferredHolder`
belong to the `CoordinatedLeaderElection` feature (beta in 1.33, off by default): registry/gateddrops.py drops
them."""
from __future__ import annotations

from typing import Any

from ...apierrors import FieldError, field_forbidden, field_invalid, field_not_supported
from ..validation import is_qualified_name

LEASE_STRATEGIES = ("OldestEmulationVersion",)


def _strategy_errors(strategy: str, path: str) -> list[FieldError]:
    """`ValidateCoordinatedLeaseStrategy`: a Kubernetes name, or a qualified `domain/name`."""
    if "/" not in strategy:
        if strategy not in LEASE_STRATEGIES:
            return [field_not_supported(path, strategy, LEASE_STRATEGIES)]
        return []
    return [field_invalid(path, strategy, m) for m in is_qualified_name(strategy)]


def lease_spec_errors(spec: dict[str, Any]) -> list[FieldError]:
    """`ValidateLeaseSpec`."""
    errs: list[FieldError] = []
    duration, transitions = spec.get("leaseDurationSeconds"), spec.get("leaseTransitions")
    if isinstance(duration, int) and duration <= 0:
        errs.append(field_invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"))
    if isinstance(transitions, int) and transitions < 0:
        errs.append(field_invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"))
    strategy = spec.get("strategy")
    if isinstance(strategy, str):
        # upstream passes fldPath.Child("strategy") to a function that adds Child("strategy") again
        errs += _strategy_errors(strategy, "spec.strategy.strategy")
    if spec.get("preferredHolder") and not strategy:
        errs.append(field_forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"))
    return errs
