"""Everything a run leaves behind: conformance.json/html/md, coverage, Allure metadata, `nsconform report`.

The harness plugin wires this in (details in `conformance.report.pytest_hooks`):
`ReportPlugin` on the controller, `AllureEnricher` on every process, `attach_exchanges` after each test.
"""

from __future__ import annotations

__all__ = ["ReportPlugin", "AllureEnricher", "attach_exchanges", "build_run", "coverage_failures", "uncovered"]


def __getattr__(name: str):  # lazy: `nsconform report` should not import pytest/allure machinery it does not use
    if name == "ReportPlugin":
        from .pytest_hooks import ReportPlugin
        return ReportPlugin
    if name in ("AllureEnricher", "attach_exchanges"):
        from . import allure as _allure
        return getattr(_allure, name)
    if name == "build_run":
        from .model import build_run
        return build_run
    if name in ("coverage_failures", "uncovered"):
        from . import coverage
        return getattr(coverage, name)
    raise AttributeError(name)
