"""Order and group suite tests so that a parallel run against a slow cluster waits as little as possible.

Against a real cluster a run's time is the namespace controller's passes, not CPU: about a dozen tests
(and the module fixtures behind `module_namespaces`) each wait for one pass. Two things keep `-n N`
close to its floor (benchmarks/README.md, "Issue 11 re-measured"):

* a module's tests that share `module_namespaces` go to one xdist worker (an `xdist_group` mark, honoured
  by `--dist loadgroup`, which `nsconform run` passes with `-n`), so the shared state costs one pass in
  the run, not one per worker that happens to run one of its tests;
* under `--dist loadgroup`, tests that wait (they take `waiter` as an argument, or use
  `module_namespaces`) come first, so no worker starts a five-second wait after the others have run
  out of work.

Other `--dist` modes are unchanged (measured: under `--dist load` the reordering made `-n 4` slower, 60.7 s
against 51.7 s). Other runs (serial, `--dist load`) move the tests that read a background recording (conformance/background.py,
marked `background`) to the end: the recordings start with the first test and wait while everything else
runs. Under `--dist loadgroup` such tests are grouped like `module_namespaces` users and come first, so one
worker records once, as a slow cluster's run needs.
"""

from __future__ import annotations

import inspect

import pytest

from .background import MARK as BACKGROUND

SHARED = "module_namespaces"
"""A module-scoped fixture whose state costs a controller pass; its users are grouped."""
WAITER = "waiter"
"""Asked for by name by a test that waits itself (every test has it indirectly, through `namespaces`)."""


def group_and_order(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark shared-fixture tests with one `xdist_group` per module; on a loadgroup worker, also move
    waiting tests to the front (stable: otherwise collection order); elsewhere, background readers last."""
    loadgroup = bool(getattr(config.option, "loadgroup", False))  # set on xdist workers under --dist loadgroup
    for item in items:
        names = getattr(item, "fixturenames", ())
        if (SHARED in names or item.get_closest_marker(BACKGROUND)) and not item.get_closest_marker("xdist_group"):
            group = f"shared-{item.module.__name__.rsplit('.', 1)[-1]}"
            item.add_marker(pytest.mark.xdist_group(group))
            if loadgroup:
                _suffix_nodeid(item, group)
    if loadgroup:  # under --dist load the front would be dealt round-robin, a shared module's tests to every worker
        items.sort(key=lambda i: not _waits(i))
    else:  # serial, or an xdist worker under --dist load (every worker collects, and reorders, alike)
        _background_last(items)


def _background_last(items: list[pytest.Item]) -> None:
    """Background readers to the end (stable)."""
    items.sort(key=lambda i: i.get_closest_marker(BACKGROUND) is not None)


def _waits(item: pytest.Item) -> bool:
    if SHARED in getattr(item, "fixturenames", ()) or item.get_closest_marker(BACKGROUND):
        return True
    function = getattr(item, "function", None)
    try:
        return function is not None and WAITER in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _suffix_nodeid(item: pytest.Item, group: str) -> None:
    """What xdist's worker does for an `xdist_group` mark (`nodeid@group`, the scheduler's unit of work).
    pytest-xdist 3.8 assigns `item._nodeid`, which pytest 9 no longer reads (it keeps the id in `_id`),
    so under pytest 9 `--dist loadgroup` silently groups nothing; set it here in that case only."""
    if not hasattr(item, "_id") or "@" in item.nodeid.rsplit("]", 1)[-1]:
        return  # pytest 8: xdist's own hook (after this one) appends the suffix
    try:
        from _pytest.nodes import NodeId  # pytest >= 9 (private: a later pytest may move it)
        item._id = NodeId.parse(f"{item.nodeid}@{group}")
    except (ImportError, AttributeError, TypeError, ValueError):
        return  # the run stays correct, only ungrouped (as plain --dist load)
