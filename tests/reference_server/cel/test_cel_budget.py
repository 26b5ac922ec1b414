"""cel/budget.py: the per-call limit and the runtime budget from actual costs (in the order of apiextensions'
validation.go and admission's plugin/cel/activation.go: the cost checked against the budget first, then the call's
cancellation), the estimate taken without a walk where it fits, and ranges made exact only when a later evaluation
needs them."""
from __future__ import annotations

import pytest

from conformance.reference_server.cel import budget as budget_module
from conformance.reference_server.cel import compile_expression
from conformance.reference_server.cel.budget import OUT_OF_BUDGET, Budget, OutOfBudget
from conformance.reference_server.cel.engine import EvalError
from conformance.reference_server.cel.runtimecost import LIMIT_EXCEEDED

CONTAINS = compile_expression("a.contains(b)", ("a", "b"))


def test_an_estimate_that_fits_is_taken_without_a_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_walk(*args: object, **kwargs: object) -> int:
        raise AssertionError("walked")
    monkeypatch.setattr(budget_module, "tracked_cost", no_walk)
    b = Budget(100)
    assert b.evaluate(CONTAINS, {"a": "abc", "b": "b"}, (5, 5)) is True
    assert b.spent == 5 and b.remaining == 95


def test_ranges_are_made_exact_when_a_later_call_needs_them() -> None:
    """A call estimated at most 60 in a budget of 62; the next, bounded by its inputs' sizes at 3, does not fit
    beside that estimate: the first is walked for its actual cost (`a` 1, `b` 1, contains ceil(0.3) x ceil(0.1)
    = 1: 3), then the second."""
    b = Budget(62)
    assert b.evaluate(CONTAINS, {"a": "abc", "b": "b"}, (3, 60)) is True
    assert b.spent == 60
    assert b.evaluate(CONTAINS, {"a": "abc", "b": "x"}, (3, 60)) is False
    assert b.spent == 6


def test_past_the_per_call_limit_the_call_is_cancelled_and_its_cost_taken() -> None:
    """cel-go's `CostLimit`: `a.contains(b)` of 100 and 100 characters costs 2 + 10 x 10 = 102 > 100."""
    b = Budget(1_000, per_call=100)
    with pytest.raises(EvalError, match=LIMIT_EXCEEDED):
        b.evaluate(CONTAINS, {"a": "x" * 100, "b": "y" * 100}, (2, 200))
    assert b.remaining == 1_000 - 102


def test_a_cost_past_what_is_left_runs_out_of_the_budget() -> None:
    """`rtCost > remainingBudget` is checked before the call's own error: out of budget, not cancelled."""
    b = Budget(150, per_call=100)
    assert b.evaluate(CONTAINS, {"a": "x" * 50, "b": "y" * 50}, None) is False  # 2 + 5 x 5 = 27
    assert b.remaining == 123
    with pytest.raises(EvalError, match=LIMIT_EXCEEDED):  # 2 + 11 x 11 = 123: not past what is left
        Budget(150, per_call=100).evaluate(CONTAINS, {"a": "x" * 110, "b": "y" * 110}, None)
    with pytest.raises(OutOfBudget, match=OUT_OF_BUDGET):  # 2 + 15 x 15 = 227: past both, the budget first
        b.evaluate(CONTAINS, {"a": "x" * 150, "b": "y" * 150}, None)
    assert b.remaining < 0


def test_the_costs_add_up_to_the_budget_exactly() -> None:
    """Ten calls of 27 fit a budget of 270; an eleventh does not."""
    b = Budget(270)
    for _ in range(10):
        b.evaluate(CONTAINS, {"a": "x" * 50, "b": "y" * 50}, (2, 1_000))
    assert b.remaining == 0
    with pytest.raises(OutOfBudget):
        b.evaluate(CONTAINS, {"a": "x" * 50, "b": "y" * 50}, (2, 1_000))


def test_the_inputs_sizes_bound_what_the_expression_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """`a.contains(b)` has no bound of its own; over inputs of at most 4 characters it costs at most 2 + 1 x 1:
    taken without a walk."""
    def no_walk(*args: object, **kwargs: object) -> int:
        raise AssertionError("walked")
    monkeypatch.setattr(budget_module, "tracked_cost", no_walk)
    b = Budget()
    assert b.evaluate(CONTAINS, {"a": "abc", "b": "b"}) is True
    assert b.spent == 3
