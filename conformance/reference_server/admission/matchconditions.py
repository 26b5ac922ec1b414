"""CEL inputs and match conditions shared by the webhook and policy plugins:

- `admission_request` is `plugin/cel/filter.go` `CreateAdmissionRequest` (the `request` variable: the
  AdmissionRequest without uid, object and oldObject);
- `evaluate` runs an expression as `filter.go` `ForInput` does, its error worded `expression '<e>' resulted in
  error: <err>`;
- `match` is `webhook/matchconditions/matcher.go` `Match`: any condition false skips the webhook or policy; else
  evaluation errors follow the failure policy (`Fail`: the error, `utilerrors.NewAggregate`'s text; `Ignore`: no
  match)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import cel
from ..cel.environments import declared
from .webhooks import review
from .webhooks.matching import Attributes

EVERYTHING = declared(params=True, variables=True)  # evaluation: names were checked when the object was written


def admission_request(a: Attributes, user: Any, dry_run: bool, options: dict[str, Any] | None) -> dict[str, Any]:
    req = review.request(a, None, None, user, dry_run, options)["request"]
    for key in ("uid", "object", "oldObject"):
        req.pop(key, None)
    return req


def evaluate(expression: str, activation: dict[str, Any]) -> Any:
    """The expression's value; `cel.EvalError` worded as `ForInput`'s `cel.Error` detail."""
    try:
        return cel.compile_expression(expression, EVERYTHING).evaluate(activation)
    except cel.CompileError as exc:  # stored before this server compiled expressions
        raise cel.EvalError(f"expression '{expression}' resulted in error: compilation failed: {exc}") from None
    except cel.EvalError as exc:
        raise cel.EvalError(f"expression '{expression}' resulted in error: {exc}") from None


def aggregate(errors: list[str]) -> str:
    """`utilerrors.NewAggregate(errs).Error()`."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


@dataclass(frozen=True)
class MatchResult:
    matches: bool
    error: str = ""


def match(conditions: list[Any], activation: dict[str, Any], failure_policy: str | None) -> MatchResult:
    errors: list[str] = []
    for cond in conditions:
        if not isinstance(cond, dict):
            continue
        try:
            value = evaluate(str(cond.get("expression") or ""), activation)
        except cel.EvalError as exc:
            errors.append(str(exc))
            continue
        if value is False:
            return MatchResult(False)
    if errors:
        if (failure_policy or "Fail") == "Fail":
            return MatchResult(False, aggregate(errors))
        return MatchResult(False)
    return MatchResult(True)
