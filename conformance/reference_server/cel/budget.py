"""kube-apiserver's runtime cost limits over a run of evaluations: each call cancelled past `PerCallLimit`
(cel-go's `CostLimit`: `operation cancelled: actual cost limit exceeded`) and a budget the calls' actual costs
(`EvalDetails.ActualCost()`) are taken from (`staging/src/k8s.io/apiserver/pkg/apis/cel/config.go`:
`RuntimeCELCostBudget` per custom resource and per policy evaluation, `RuntimeCELCostBudgetMatchConditions`).

Cheap on the common path: an evaluation whose bound fits the per-call limit and what is left of the budget runs as
it always did, and the bound is taken from the budget; where its minimum and maximum are equal (and the
evaluation did not fail) that is its actual cost. The bound is `runtimecost.static_bound` (the walk's own costs over
what the expression tells: most admission expressions), else the caller's static estimate (`cost.py` over a
CRD's schema sizes, its maximum), else `static_bound` again with the size of the largest string, list or map of
the inputs. Only when a bound could pass a limit are the costs made exact: the earlier
evaluations whose bounds were ranges are walked (`runtimecost.py`) for their actual costs, and this one is walked
under the limit before it runs."""
from __future__ import annotations

from typing import Any

from .cost import Estimate
from .engine import EvalError, Program
from .exacttime import cost_view
from .runtimecost import LIMIT_EXCEEDED, CostLimitExceeded, largest_input, read_paths, static_bound, tracked_cost

PER_CALL_LIMIT = 1_000_000           # celconfig.PerCallLimit
RUNTIME_BUDGET = 10_000_000          # celconfig.RuntimeCELCostBudget
MATCH_CONDITIONS_BUDGET = 2_500_000  # celconfig.RuntimeCELCostBudgetMatchConditions
# the words of apiextensions' validation.go and of admission's plugin/cel/activation.go past the budget
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


class OutOfBudget(Exception):
    """The actual cost of an evaluation exceeded what was left of the budget (`rtCost > remainingBudget`)."""

    def __init__(self) -> None:
        super().__init__(OUT_OF_BUDGET)


class Budget:
    """What is left of a runtime cost budget, for evaluations run one after another."""

    __slots__ = ("total", "spent", "_pending", "per_call", "_largest")

    def __init__(self, total: int = RUNTIME_BUDGET, per_call: int = PER_CALL_LIMIT):
        self.total, self.per_call = total, per_call
        self.spent = 0  # exact costs, plus the estimates of the evaluations still pending
        self._pending: list[tuple[Program, dict[str, Any], int]] = []
        # an activation (held: a freed one's id may come again), its variables, its largest input
        self._largest: tuple[Any, int, int] = (None, 0, 0)

    @property
    def remaining(self) -> int:
        """What is left, exactly (the pending evaluations walked)."""
        self._settle()
        return self.total - self.spent

    def _settle(self) -> None:
        for program, activation, bound in self._pending:
            try:
                actual = tracked_cost(program.expression, cost_view(activation, program.times), limit=bound)
            except CostLimitExceeded:
                actual = bound
            except Exception:  # noqa: BLE001 - a walk this package cannot make: the estimate stands
                actual = bound
            self.spent += actual - bound
        self._pending.clear()

    def _largest_of(self, activation: dict[str, Any], expression: str) -> int:
        """`largest_input` within what `expression` reads; of the whole activation (once while its variables stay
        as many) where that is not known."""
        paths = read_paths(expression)
        if paths is not None:
            return largest_input(activation, paths)
        held, variables, largest = self._largest
        count = len(activation.get("variables") or ())
        if held is not activation or variables != count:
            largest = largest_input(activation)
            self._largest = (activation, count, largest)
        return largest

    def _fits(self, estimate: Estimate | None) -> bool:
        return estimate is not None and estimate[1] <= self.per_call and self.spent + estimate[1] <= self.total

    def evaluate(self, program: Program, activation: dict[str, Any], estimate: Estimate | None = None,
                 value_wanted: bool = True) -> Any:
        """The value of `program` over `activation`, its cost taken from the budget. `OutOfBudget` when its cost
        passes what is left; `EvalError` for its errors, `operation cancelled: actual cost limit exceeded` when
        it passes the per-call limit (its cost, as upstream's, is taken from the budget first). Without
        `value_wanted` only the cost is taken (None returned: the program runs only if its cost must be known)."""
        estimate = static_bound(program.expression) or estimate
        if not self._fits(estimate):  # bounded by the inputs' sizes, then
            estimate = static_bound(program.expression, self._largest_of(activation, program.expression)) or estimate
        if self._fits(estimate):
            assert estimate is not None
            if not value_wanted:
                self._pending.append((program, activation, estimate[1]))
                self.spent += estimate[1]
                return None
            try:
                value = program.evaluate(activation)
            except EvalError:
                self._pending.append((program, activation, estimate[1]))
                self.spent += estimate[1]
                raise
            if estimate[0] != estimate[1]:
                self._pending.append((program, activation, estimate[1]))
            self.spent += estimate[1]
            return value
        left = self.remaining
        limit = min(self.per_call, max(left, 0))
        try:
            cost = tracked_cost(program.expression, cost_view(activation, program.times), limit=limit)
        except CostLimitExceeded as exc:
            cost = exc.cost
        except Exception:  # noqa: BLE001 - a walk this package cannot make: the estimate, or nothing, is taken
            cost = min(estimate[1], limit) if estimate is not None else 0
        if cost > left:
            self.spent = self.total + 1
            raise OutOfBudget
        self.spent += cost
        if cost > self.per_call:
            raise EvalError(LIMIT_EXCEEDED)
        return program.evaluate(activation) if value_wanted else None


__all__ = ["MATCH_CONDITIONS_BUDGET", "OUT_OF_BUDGET", "PER_CALL_LIMIT", "RUNTIME_BUDGET", "Budget", "OutOfBudget"]
