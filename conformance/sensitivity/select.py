"""pytest plugin: run only the suite tests of some clauses (`-p conformance.sensitivity.select`).

The clause ids come from `--nsconform-select-clauses ID[,ID...]` (repeatable) or, when the option is
absent, from the environment variable `NSCONFORM_SELECT_CLAUSES` (comma separated). A test is kept when
any of its `@pytest.mark.clause(...)` ids is selected; every other test is deselected through the
ordinary `pytest_deselected` hook, so reports and the terminal summary count it as deselected. Without
any id the plugin does nothing. The harness plugin is not touched: it still checks markers against the
catalogue first (its hook is `tryfirst`, this one `trylast`).
"""

from __future__ import annotations

import os
from typing import Iterable

import pytest

ENV = "NSCONFORM_SELECT_CLAUSES"

__all__ = ["ENV", "selected_clauses", "split_ids"]


def split_ids(values: Iterable[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if part and part not in out:
                out.append(part)
    return out


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("nsconform").addoption(
        "--nsconform-select-clauses", dest="nsconform_select_clauses", action="append", default=[],
        metavar="ID[,ID...]", help=f"run only the tests of these clauses (repeatable; default: ${ENV})")


def selected_clauses(config: pytest.Config) -> list[str]:
    ids = split_ids(config.getoption("nsconform_select_clauses", default=[]) or [])
    if not ids:
        ids = split_ids([os.environ.get(ENV, "")])
    return ids


def _item_clauses(item: pytest.Item) -> set[str]:
    return {str(a) for mark in item.iter_markers("clause") for a in mark.args}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = set(selected_clauses(config))
    if not wanted:
        return
    keep, drop = [], []
    for item in items:
        (keep if _item_clauses(item) & wanted else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    ids = selected_clauses(config)
    return [f"nsconform: only the tests of clause(s) {', '.join(ids)}"] if ids else None
