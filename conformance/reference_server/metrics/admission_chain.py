"""The admission chain's step and controller families (`k8s.io/apiserver/pkg/admission/metrics/metrics.go`,
v0.33.1: `apiserver_admission_step_admission_duration_seconds`, its `_summary`, and
`apiserver_admission_controller_admission_duration_seconds`), recorded once a write's answer is ready from the
request's admission trace (admission/chain.py).

As upstream's chain (`chain.go`, decorated by `WithControllerMetrics` per named plugin and `WithStepMetrics` per
phase): the mutating phase records every default-on plugin that handles the operation and is mutating, as
`admit`, in order, then the step; the validating phase likewise as `validate`. The plugin that refused is recorded
`rejected="true"` and ends the chain: no later plugin of its phase is recorded, and no validating phase follows a
mutating refusal. A write that failed elsewhere records the phases it reached: a 422 of the strategy's validation
(between the phases) the mutating one, a create's 409 (`AlreadyExists`, at storage) both, an error before
admission (400, 404 of a missing object, 415, ...) none. A delete collection runs the mutating phase once and the
validating phase once per deleted item (`DeleteCollection`), each item observed with its share of the time noted.

A plugin's duration is the time our code of that plugin took (admission/chain.py `timed`); a plugin with nothing
to do for the request here (not modelled, or not for this resource: upstream's returns at once) is observed
as 0 s; a phase's step duration is the sum of its plugins'.
"""
from __future__ import annotations

from bisect import bisect_left
from typing import Any

from ..admission.chain import ADMIT, DELETE, VALIDATE, Trace, phase
from .registry import ALPHA, STABLE, HistogramVec, SummaryVec

BUCKETS = (0.005, 0.025, 0.1, 0.5, 1.0, 2.5)
DELETECOLLECTION = "DELETECOLLECTION"  # the note of a collection's DELETE (operation DELETE)


class _Histogram(HistogramVec):
    """A HistogramVec whose cells `AdmissionChainMetrics` caches per phase (forgotten on reset)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.cache: dict[tuple[str, str, str], list[tuple[tuple[str, str], list[float]]]] = {}

    def reset(self) -> None:
        super().reset()
        self.cache.clear()


class AdmissionChainMetrics:
    """`record(operation, trace, code)` once per admitted write."""

    def __init__(self) -> None:
        self.step = _Histogram(
            "apiserver_admission_step_admission_duration_seconds",
            "Admission sub-step latency histogram in seconds, broken out for each operation and API resource and "
            "step type (validate or admit).", ("type", "operation", "rejected"), BUCKETS, STABLE)
        self.step_summary = SummaryVec(
            "apiserver_admission_step_admission_duration_seconds_summary",
            "Admission sub-step latency summary in seconds, broken out for each operation and API resource and "
            "step type (validate or admit).", ("type", "operation", "rejected"), ALPHA)
        self.controller = _Histogram(
            "apiserver_admission_controller_admission_duration_seconds",
            "Admission controller latency histogram in seconds, identified by name and broken out for each "
            "operation and API resource and type (validate or admit).", ("name", "type", "operation", "rejected"),
            BUCKETS, STABLE)

    def families(self) -> tuple[Any, ...]:
        return self.step, self.step_summary, self.controller

    def _plugins(self, operation: str, step_type: str, rejected: str) -> list[tuple[tuple[str, str], list[float]]]:
        """The phase's plugins with their cells for `rejected` (the last one's is what a refusal records)."""
        key = (operation, step_type, rejected)
        cached = self.controller.cache.get(key)
        if cached is None:
            cached = self.controller.cache[key] = [
                (plugin, self.controller.cells((plugin[0], step_type, operation, rejected)))
                for plugin in phase(operation, step_type)]
        return cached

    def _phase(self, operation: str, step_type: str, seconds: dict[tuple[str, str], float],
               refused: tuple[str, str] | None) -> None:
        total = 0.0
        plugins = self._plugins(operation, step_type, "false")
        if refused is not None:
            cut = next((i for i, (plugin, _) in enumerate(plugins) if plugin == refused), None)
            if cut is not None:
                plugins = plugins[:cut] + [self._plugins(operation, step_type, "true")[cut]]
        for plugin, cells in plugins:
            value = seconds.get(plugin)
            if value:
                cells[bisect_left(BUCKETS, value)] += 1
                cells[-2] += value
                total += value
            else:
                cells[0] += 1
            cells[-1] += 1
        labels = (step_type, operation, "true" if refused is not None else "false")
        self.step.observe(labels, total)
        self.step_summary.observe(labels, total)

    def record(self, operation: str, trace: Trace, code: int | None) -> None:
        """A write's answer: `operation` CREATE, UPDATE, DELETE or DELETECOLLECTION (a PUT or apply answered 201
        created: CREATE), `code` its status (None: the client went away before it)."""
        if code is None:
            return
        if code == 201 and operation != DELETECOLLECTION:
            operation = "CREATE"
        seconds = trace.seconds
        if code < 400:
            if operation == DELETECOLLECTION:
                self._phase(DELETE, ADMIT, seconds, None)
                items = max(trace.items, 0)
                each = {key: value / items for key, value in seconds.items()} if items else seconds  # their share
                for _ in range(items):
                    self._phase(DELETE, VALIDATE, each, None)
                return
            self._phase(operation, ADMIT, seconds, None)
            self._phase(operation, VALIDATE, seconds, None)
            return
        if operation == DELETECOLLECTION:
            operation = DELETE
        refused = trace.rejected
        if refused is not None:
            if refused[1] == ADMIT:
                self._phase(operation, ADMIT, seconds, refused)
                return
            self._phase(operation, ADMIT, seconds, None)
            self._phase(operation, VALIDATE, seconds, refused)
            return
        if code == 422 or (code == 409 and operation != "CREATE"):
            self._phase(operation, ADMIT, seconds, None)
        elif code == 409:  # AlreadyExists: at storage, after both phases
            self._phase(operation, ADMIT, seconds, None)
            self._phase(operation, VALIDATE, seconds, None)


__all__ = ["AdmissionChainMetrics", "BUCKETS", "DELETECOLLECTION"]
