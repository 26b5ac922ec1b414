"""Group `immortal`: `default`, `kube-system` and `kube-public` cannot be deleted."""

from __future__ import annotations

import pytest

from conformance import assertions as A
from conformance.suites import read_namespace

IMMORTAL = ["default", "kube-system", "kube-public"]


def _present_or_skip(api, paths, name):
    resp = api.get(paths.namespace(name))
    if resp.status_code == 404 and name != "default":
        pytest.skip(f"namespace {name} does not exist on this target")
    return read_namespace(api, paths, name)


def _expect_refused(api, paths, name, resp):
    A.expect_status(resp, 403, reason="Forbidden",
                    message=f'namespaces "{name}" is forbidden: this namespace may not be deleted',
                    details={"name": name, "kind": "namespaces"})
    stored = read_namespace(api, paths, name)
    assert A.phase(stored) == "Active" and not stored["metadata"].get("deletionTimestamp"), (
        f"after the refused DELETE, {name} is phase {A.phase(stored)!r} with deletionTimestamp "
        f"{stored['metadata'].get('deletionTimestamp')!r}")


@pytest.mark.clause("NS-IMM-001")
@pytest.mark.parametrize("name", IMMORTAL)
def test_immortal_namespace_delete_refused_dry_run(api, paths, name):
    """A dry-run DELETE of an immortal namespace is refused with 403 Forbidden; it stays Active."""
    _present_or_skip(api, paths, name)
    _expect_refused(api, paths, name, api.delete(paths.namespace(name), params={"dryRun": "All"}))


@pytest.mark.disruptive
@pytest.mark.clause("NS-IMM-002")
def test_default_namespace_delete_refused(api, paths):
    """A real DELETE of `default` is refused with 403 Forbidden; it stays Active."""
    _present_or_skip(api, paths, "default")
    _expect_refused(api, paths, "default", api.delete(paths.namespace("default")))
