"""Suite tests that wait come first; those sharing `module_namespaces` form one xdist group per module."""

from __future__ import annotations

import pytest

from conformance.scheduling import group_and_order

pytest_plugins = ["pytester"]

SOURCE = """
import pytest

@pytest.fixture
def waiter():
    return None

@pytest.fixture(scope="module")
def module_namespaces():
    return None

@pytest.fixture(scope="module")
def shared_state(module_namespaces):
    return None

def test_quick():
    pass

def test_waits(waiter):
    pass

@pytest.mark.parametrize("kind", ["a", "b"])
def test_reads_shared(shared_state, kind):
    pass
"""


def names(items: list[pytest.Item]) -> list[str]:
    return [i.nodeid.split("::")[-1] for i in items]


def test_shared_ones_grouped_order_kept_without_loadgroup(pytester: pytest.Pytester) -> None:
    items = pytester.getitems(SOURCE)
    group_and_order(items[0].config, items)
    assert names(items) == ["test_quick", "test_waits", "test_reads_shared[a]", "test_reads_shared[b]"]
    groups = [m.args for i in items for m in i.iter_markers("xdist_group")]
    assert groups == [(f"shared-{items[0].module.__name__}",)] * 2
    assert not any("@" in i.nodeid for i in items)


def test_loadgroup_worker_gets_the_group_in_the_nodeid(pytester: pytest.Pytester) -> None:
    items = pytester.getitems(SOURCE)
    if not hasattr(items[0], "_id"):
        pytest.skip("pytest 8: xdist's own worker hook appends the group")
    items[0].config.option.loadgroup = True  # as on an xdist worker under --dist loadgroup
    group_and_order(items[0].config, items)
    assert [n.split("@")[0] for n in names(items)] == [
        "test_waits", "test_reads_shared[a]", "test_reads_shared[b]", "test_quick"]
    shared = [i.nodeid for i in items if "reads_shared" in i.nodeid]
    assert all(n.endswith(f"@shared-{items[1].module.__name__}") for n in shared), shared
    assert not any("@" in i.nodeid for i in items if "reads_shared" not in i.nodeid)


TWO_MODULES = {
    "test_a_first": """
def test_a():
    pass
""",
    "test_b_records": """
import pytest

def test_b_quick():
    pass

@pytest.mark.background("x")
def test_b_reads():
    pass

def test_b_other():
    pass
""",
}


def test_serial_run_moves_background_readers_last(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(**TWO_MODULES)
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider")
    group_and_order(items[0].config, items)
    assert names(items) == ["test_a", "test_b_quick", "test_b_other", "test_b_reads"]
    assert [m.args for m in items[-1].iter_markers("xdist_group")] == [(f"shared-{items[-1].module.__name__}",)]


def test_loadgroup_worker_puts_background_readers_first_in_their_group(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(**TWO_MODULES)
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider")
    items[0].config.option.loadgroup = True  # as on an xdist worker under --dist loadgroup
    group_and_order(items[0].config, items)
    assert [n.split("@")[0] for n in names(items)] == ["test_b_reads", "test_a", "test_b_quick", "test_b_other"]
