"""CEL inputs and match conditions shared by the webhook and policy plugins:

- `admission_request` is `plugin/cel/filter.go` `CreateAdmissionRequest` (the `request` variable: the
  AdmissionRequest without uid, object and oldObject);
- `evaluate` runs an expression as `filter.go` `ForInput` does, its error worded `expression '<e>' resulted in
  error: <err>`;
- `match` is `webhook/matchconditions/matcher.go` `Match`: any condition false skips the webhook or policy; else
  evaluation errors follow the failure policy (`Fail`: the error, `utilerrors.NewAggregate`'s text; `Ignore`: no
  match);
- `authorizer` is the `authorizer` variable's value for a request and `authorizing` installs the server's
  authorizer for the checks an expression makes (`cel/libs/authz.py`; upstream's `NewAuthorizerVal` over the
  apiserver's authorizer: RBAC under `--authorization rbac`, AlwaysAllow otherwise)."""
from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from .. import cel
from ..cel.budget import MATCH_CONDITIONS_BUDGET, OUT_OF_BUDGET, Budget, OutOfBudget
from ..cel.environments import declared
from .webhooks import review
from .webhooks.matching import Attributes

EVERYTHING = declared(params=True, variables=True)  # evaluation: names were checked when the object was written


def admission_request(a: Attributes, user: Any, dry_run: bool, options: dict[str, Any] | None) -> dict[str, Any]:
    req = review.request(a, None, None, user, dry_run, options)["request"]
    for key in ("uid", "object", "oldObject"):
        req.pop(key, None)
    return req


def authorizer(request: dict[str, Any]) -> dict[str, Any]:
    """The `authorizer` variable (its `requestResource` the request's) for an `admission_request`."""
    from ..cel.libs.authz import authorizer_value
    return authorizer_value(request)


def authorizing(server_authorizer: Any) -> AbstractContextManager[None]:
    """While the block runs, `authorizer` checks ask `server_authorizer` (`authorize(Attributes) -> (allowed,
    reason)`, the one the HTTP layer uses; None: AlwaysAllow, as kube-apiserver without RBAC)."""
    from ..cel.libs.authz import Request
    from ..cel.libs.authz import authorizing as install
    if server_authorizer is None:
        return install(None)
    from ..auth.rbac import Attributes as AuthzAttributes
    from ..auth.rbac import UserInfo

    def ask(r: Request) -> tuple[bool, str, str]:
        info = r.user
        user = UserInfo(str(info.get("username") or ""), str(info.get("uid") or ""),
                        tuple(info.get("groups") or ()), {k: tuple(v) for k, v in (info.get("extra") or {}).items()})
        attrs = AuthzAttributes(user, r.verb, api_group=r.group, resource=r.resource, subresource=r.subresource,
                                namespace=r.namespace, name=r.name, resource_request=r.resource_request,
                                path=r.path, api_version="*" if r.resource_request else "")
        allowed, reason = server_authorizer.authorize(attrs)
        return allowed, reason, ""
    return install(ask)


def evaluate(expression: str, activation: dict[str, Any], budget: Budget, value_wanted: bool = True) -> Any:
    """The expression's value, its cost taken from `budget` (`OutOfBudget` past it); `cel.EvalError` worded as
    `ForInput`'s `cel.Error` detail."""
    try:
        program = cel.compile_expression(expression, EVERYTHING)
        return budget.evaluate(program, activation, None, value_wanted)
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
    """Every condition evaluated (as `ForInput`, over `RuntimeCELCostBudgetMatchConditions`: past it, the
    failure policy's answer with its error), then any false one skips."""
    errors: list[str] = []
    budget = Budget(MATCH_CONDITIONS_BUDGET)
    values = []
    for cond in conditions:
        if not isinstance(cond, dict):
            continue
        try:
            values.append(evaluate(str(cond.get("expression") or ""), activation, budget))
        except cel.EvalError as exc:
            errors.append(str(exc))
        except OutOfBudget:
            if (failure_policy or "Fail") == "Fail":
                return MatchResult(False, OUT_OF_BUDGET)
            return MatchResult(False)
    if any(value is False for value in values):
        return MatchResult(False)
    if errors:
        if (failure_policy or "Fail") == "Fail":
            return MatchResult(False, aggregate(errors))
        return MatchResult(False)
    return MatchResult(True)
