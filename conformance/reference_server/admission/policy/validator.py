"""One policy evaluated for one binding and param (`plugin/policy/validating/validator.go` `Validate`): its
matchConditions, then `spec.variables` (in order), `validations` with their messages, `auditAnnotations`.
Returns the decisions the dispatcher acts on."""
from __future__ import annotations

import re
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from ... import cel
from .. import matchconditions as mc

MAX_MESSAGE = 5 * 1024  # celconfig.MaxEvaluatedMessageExpressionSizeBytes


@dataclass(frozen=True)
class Decision:
    """A deny (`ActionDeny`): evaluated false (`reason` set) or an evaluation error under `failurePolicy: Fail`;
    or, `admitted`, an evaluation error under `Ignore` (upstream's `ActionAdmit` with `EvalError`, which only
    the metrics see). Other admits are not recorded. `elapsed`: the expression's evaluation, in seconds."""

    message: str
    reason: str = ""
    error: bool = False  # an audit annotation's error denies whatever the binding's actions say
    elapsed: float = 0.0
    admitted: bool = False

    @property
    def error_type(self) -> str:
        """`validating.ErrorType` (errors.go): by the message, whatever the evaluation was (a plain deny is
        `invalid_error` too, as upstream)."""
        if self.message.startswith("compilation"):
            return "compile_error"
        if self.message.startswith("validation failed due to running out of cost budget"):
            return "out_of_budget"
        return "invalid_error"


def _variables(spec: dict[str, Any], activation: dict[str, Any]) -> dict[str, str]:
    """Evaluate `spec.variables` into `activation["variables"]`; the errors by name (upstream evaluates lazily:
    a variable's error surfaces only in an expression that reads it, as here)."""
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    activation["variables"] = values
    for var in spec.get("variables") or []:
        if not isinstance(var, dict):
            continue
        name = str(var.get("name") or "")
        try:
            values[name] = cel.compile_expression(str(var.get("expression") or ""), mc.EVERYTHING) \
                .evaluate(activation)
        except (cel.CompileError, cel.EvalError) as exc:
            errors[name] = str(exc)
    return errors


def _evaluate(expression: str, activation: dict[str, Any], var_errors: dict[str, str]) -> Any:
    try:
        return mc.evaluate(expression, activation)
    except cel.EvalError:
        for name, err in var_errors.items():
            if re.search(r"\bvariables\s*\.\s*" + re.escape(name) + r"\b", expression):
                raise cel.EvalError(f"expression '{expression}' resulted in error: {err}") from None
        raise


def _message(v: dict[str, Any], activation: dict[str, Any], var_errors: dict[str, str]) -> str:
    message = ""
    if v.get("messageExpression"):
        try:
            value = _evaluate(str(v["messageExpression"]), activation, var_errors)
        except cel.EvalError:
            value = None
        if isinstance(value, str):
            message = value.strip()
            if len(message) > MAX_MESSAGE or "\n" in message:
                message = ""
    if not message and v.get("message"):
        message = str(v["message"]).strip()
    return message or f"failed expression: {str(v.get('expression') or '').strip()}"


def validate(policy: dict[str, Any], activation: dict[str, Any]) -> list[Decision]:
    spec = policy.get("spec") or {}
    fail = (spec.get("failurePolicy") or "Fail") == "Fail"
    conditions = spec.get("matchConditions") or []
    if conditions:
        result = mc.match(conditions, activation, spec.get("failurePolicy"))
        if result.error:
            return [Decision(result.error)]
        if not result.matches:
            return []
    var_errors = _variables(spec, activation)
    out: list[Decision] = []
    for v in spec.get("validations") or []:
        if not isinstance(v, dict):
            continue
        started = perf_counter()
        try:
            value = _evaluate(str(v.get("expression") or ""), activation, var_errors)
        except cel.EvalError as exc:
            out.append(Decision(str(exc), elapsed=perf_counter() - started, admitted=not fail))
            continue
        if value is not True:
            elapsed = perf_counter() - started
            out.append(Decision(_message(v, activation, var_errors), v.get("reason") or "Invalid", elapsed=elapsed))
    for ann in spec.get("auditAnnotations") or []:
        if not isinstance(ann, dict):
            continue
        expression = str(ann.get("valueExpression") or "").strip()
        started = perf_counter()
        try:
            value = _evaluate(expression, activation, var_errors)
        except cel.EvalError as exc:
            if fail:
                out.append(Decision(str(exc), error=True, elapsed=perf_counter() - started))
            continue
        if value is not None and not isinstance(value, str):
            out.append(Decision(f"valueExpression '{ann.get('valueExpression')}' resulted in unsupported return "
                                f"type: {cel.runtime_type(value)}. Return type must be either string or null.",
                                error=True))
        # a string value is an audit annotation `<policy>/<key>`: there is no audit log to publish it to
    return out
