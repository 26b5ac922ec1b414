"""pytest side of the scale suite: `--scale N`, `--scale-objects M`, `--scale-rounds R`.

The suite is opt-in. Without `--scale` its test is skipped (with the reason) before any fixture runs;
with it, the run is the scale suite alone: every other test is deselected, since the suites' own traffic
would be measured along with the namespaces (and coverage is not judged on a partial run).
"""

from __future__ import annotations

import pytest

from ..argtypes import positive_int

__all__ = ["scale_options", "SCALE_GROUP", "DEFAULT_OBJECTS", "DEFAULT_ROUNDS", "SCALE_DATA_KEY"]

SCALE_DATA_KEY: pytest.StashKey[dict] = pytest.StashKey()
"""`item.stash[SCALE_DATA_KEY]`: the scale test's points, put on its reports as `nsconform_scale`
(an attribute survives xdist's report serialisation; the report room writes it to conformance.json)."""

SCALE_GROUP = "scale"
DEFAULT_OBJECTS = 2
DEFAULT_ROUNDS = 9


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("nsconform")
    g.addoption("--scale", dest="nsconform_scale", type=positive_int, default=None, metavar="N",
                help="run the scale suite alone: namespaces in steps 1, 3, 10, … up to N, timing per-namespace "
                     "and cross-namespace operations at each (growth is judged when N ≥ 1000)")
    g.addoption("--scale-objects", dest="nsconform_scale_objects", type=positive_int, default=DEFAULT_OBJECTS, metavar="M",
                help=f"ConfigMaps in each scale namespace (default {DEFAULT_OBJECTS})")
    g.addoption("--scale-rounds", dest="nsconform_scale_rounds", type=positive_int, default=DEFAULT_ROUNDS,
                metavar="R", help=f"timings per operation and step; the median counts (default {DEFAULT_ROUNDS})")


def scale_options(config: pytest.Config) -> tuple[int | None, int, int]:
    """(N or None, objects per namespace, rounds)."""
    return (config.getoption("nsconform_scale", default=None),
            max(1, int(config.getoption("nsconform_scale_objects", default=DEFAULT_OBJECTS) or 1)),
            int(config.getoption("nsconform_scale_rounds", default=DEFAULT_ROUNDS) or DEFAULT_ROUNDS))


def _is_scale(item: pytest.Item) -> bool:
    return item.get_closest_marker("scale") is not None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "scale: the opt-in scale suite (runs only with --scale N, and then alone)")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    n, _, _ = scale_options(config)
    if n is None:
        for item in items:
            if _is_scale(item):
                item.add_marker(pytest.mark.skip(reason="opt-in: run with --scale N (e.g. --scale 10000) to "
                                                        "measure growth with the number of namespaces"))
        return
    drop = [i for i in items if not _is_scale(i)]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = [i for i in items if _is_scale(i)]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    rep = yield
    data = item.stash.get(SCALE_DATA_KEY, None)
    if data is not None and rep.when in ("call", "teardown"):
        rep.nsconform_scale = data
    return rep
