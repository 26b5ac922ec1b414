"""One policy evaluated for one binding and param (`plugin/policy/validating/validator.go` `Validate`): its
matchConditions, then `spec.variables` (in order), `validations` with their messages, `auditAnnotations`.
Returns the decisions the dispatcher acts on.

Runtime costs (`cel/budget.py`): the validations share `RuntimeCELCostBudget` (`plugin/cel/condition.go`
`ForInput`; a variable costs where it is first read, as upstream's lazy composition); past it the policy's one
decision is `validation failed due to running out of cost budget, no further validation rules will be run`. The
messageExpressions, all of them as upstream's message filter evaluates them, take what the validations left (past
it each decision that was not an error is `failed messageExpression: <that error>`); the audit annotations have a
budget of their own."""
from __future__ import annotations

import re
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from ... import cel
from ...cel.budget import OUT_OF_BUDGET, Budget, OutOfBudget
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


_READS = re.compile(r"\bvariables\s*\.\s*([A-Za-z_]\w*)")


class _Variables:
    """`spec.variables`, each evaluated when an expression first reads it (upstream's `CompositionEnv`: lazily,
    its cost taken from the budget of the expression that reads it), into `activation["variables"]`; a
    variable's error surfaces only in an expression that reads it."""

    def __init__(self, spec: dict[str, Any], activation: dict[str, Any]):
        self.spec = {str(v.get("name") or ""): str(v.get("expression") or "")
                     for v in spec.get("variables") or [] if isinstance(v, dict)}
        self.activation, self.errors = activation, {}
        self.values: dict[str, Any] = {}
        activation["variables"] = self.values

    def read_by(self, expression: str, budget: Budget) -> None:
        """Evaluate the variables `expression` reads (and those they read), in the order they are read."""
        if not self.spec or "variables" not in expression:
            return
        for name in _READS.findall(expression):
            if name not in self.spec or name in self.values or name in self.errors:
                continue
            source = self.spec[name]
            self.errors[name] = "variable is being evaluated"  # a cycle reads it as an error, not forever
            self.read_by(source, budget)
            del self.errors[name]
            try:
                program = cel.compile_expression(source, mc.EVERYTHING)
                self.values[name] = budget.evaluate(program, self.activation)
            except (cel.CompileError, cel.EvalError) as exc:
                self.errors[name] = str(exc)


def _evaluate(expression: str, activation: dict[str, Any], variables: _Variables, budget: Budget,
              value_wanted: bool = True) -> Any:
    variables.read_by(expression, budget)
    try:
        return mc.evaluate(expression, activation, budget, value_wanted)
    except cel.EvalError:
        for name, err in variables.errors.items():
            if re.search(r"\bvariables\s*\.\s*" + re.escape(name) + r"\b", expression):
                raise cel.EvalError(f"expression '{expression}' resulted in error: {err}") from None
        raise


def _message(v: dict[str, Any], value: Any) -> str:
    """The message of a failed validation: its messageExpression's string value (`value`), else `message`, else
    `failed expression: <expression>`."""
    message = ""
    if v.get("messageExpression"):
        if isinstance(value, str):
            message = value.strip()
            if len(message) > MAX_MESSAGE or "\n" in message:
                message = ""
    if not message and v.get("message"):
        message = str(v["message"]).strip()
    return message or f"failed expression: {str(v.get('expression') or '').strip()}"


def _messages(results: list[tuple[dict[str, Any], Any, str, float]], activation: dict[str, Any],
              variables: _Variables, budget: Budget) -> tuple[list[Any], str]:
    """Every validation's messageExpression value (None: none, or an error), over what the validations left of
    the budget, and the error that stopped them (out of budget), "" when none did. Upstream evaluates each one;
    that of a validation that did not fail is only costed here (`Budget.evaluate` without its value)."""
    values: list[Any] = []
    for v, value, error, _ in results:
        expression = str(v.get("messageExpression") or "")
        if not expression:
            values.append(None)
            continue
        try:
            values.append(_evaluate(expression, activation, variables, budget, value is not True and not error))
        except cel.EvalError:
            values.append(None)
        except OutOfBudget:
            return values, OUT_OF_BUDGET
    return values, ""


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
    variables = _Variables(spec, activation)
    budget = Budget()
    validations = [v for v in spec.get("validations") or [] if isinstance(v, dict)]
    results: list[tuple[dict[str, Any], Any, str, float]] = []  # validation, value, error, elapsed
    for v in validations:
        started = perf_counter()
        try:
            results.append((v, _evaluate(str(v.get("expression") or ""), activation, variables, budget), "",
                            perf_counter() - started))
        except cel.EvalError as exc:
            results.append((v, None, str(exc), perf_counter() - started))
        except OutOfBudget:
            return [Decision(OUT_OF_BUDGET, admitted=not fail)]
    messages, message_error = _messages(results, activation, variables, budget)
    out: list[Decision] = []
    for (v, value, error, elapsed), message in zip(results, messages):
        if error:
            out.append(Decision(error, elapsed=elapsed, admitted=not fail))
        elif message_error:
            out.append(Decision(f"failed messageExpression: {message_error}", elapsed=elapsed, admitted=not fail))
        elif value is not True:
            out.append(Decision(_message(v, message), v.get("reason") or "Invalid", elapsed=elapsed))
    audit = Budget()
    for ann in spec.get("auditAnnotations") or []:
        if not isinstance(ann, dict):
            continue
        expression = str(ann.get("valueExpression") or "").strip()
        started = perf_counter()
        try:
            value = _evaluate(expression, activation, variables, audit)
        except OutOfBudget:  # the audit filter's error replaces every decision, as the validation filter's
            return [Decision(OUT_OF_BUDGET, admitted=not fail)]
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
