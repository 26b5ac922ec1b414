"""Helpers of the KEP-33 suite: the suite plays a namespace initializer controller.

Why the tests hold a lock: KEP-33's configuration "doesn't support selection of namespaces, so there's
_no_ `Rules` field" — every configuration applies to every namespace created while it exists. Two
extension tests running at once would each see the other's initializers in their namespaces (and one
test's "last initializer removed" would never come). So the extension runs apart from the core suites
(plugin `_select_extensions`) and its tests run one at a time, also under `-n auto`, serialised by a file
lock per run. On a shared cluster, a user namespace created during the run gets the suite's pending
initializers too — the suite removes its configurations at once after each test, and the README says so.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import tempfile
from typing import Any, Iterator

import pytest

from conformance import assertions as A
from conformance.fixtures.namespaces import MANAGED_BY, RUN_LABEL, TEST_LABEL, test_id

GROUP = "admissionregistration.k8s.io"
VERSION = "v1alpha1"
CONFIGS = f"/apis/{GROUP}/{VERSION}/namespaceinitializerconfigurations"
KIND = "NamespaceInitializerConfiguration"
NOT_SERVED = ("target does not serve NamespaceInitializerConfiguration (admissionregistration.k8s.io/v1alpha1): "
              "KEP-33 namespace initializers were never merged upstream; on the reference server run "
              "`nsconform serve --feature-gates NamespaceInitializers=true` (embedded: "
              "--nsconform-feature-gates NamespaceInitializers=true)")
CONDITION = "Initializing"


def require_served(api: Any) -> None:
    """Skip (with the reason) unless discovery lists the configuration kind."""
    resp = api.get(f"/apis/{GROUP}/{VERSION}")
    if resp.status_code != 200:
        pytest.skip(NOT_SERVED)
    kinds = {r.get("kind") for r in (resp.json() or {}).get("resources") or []}
    if KIND not in kinds:
        pytest.skip(NOT_SERVED)


@contextlib.contextmanager
def serial(run_id: str) -> Iterator[None]:
    """One KEP-33 test at a time across the run's xdist workers (see the module docstring).

    The lock file is removed by whoever releases it, so a run leaves none behind in the temporary directory; a
    waiter that then wins the lock on the removed file sees that its path is gone (or is another file) and
    takes the lock again on the path's current file, so two holders never overlap."""
    path = os.path.join(tempfile.gettempdir(), f"nsconform-kep33-{run_id}.lock")
    while True:
        fh = open(path, "a+")
        fcntl.flock(fh, fcntl.LOCK_EX)
        held = os.fstat(fh.fileno())
        try:
            current = os.stat(path)
        except FileNotFoundError:
            current = None
        if current is not None and (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino):
            break
        fh.close()  # (releases the lock on a file no one else can find any more)
    try:
        yield
    finally:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        fh.close()  # the lock is released only once the path is gone


def initializer_name(tag: str) -> str:
    """A fully qualified initializer name no one else uses (three segments at least, as the KEP asks)."""
    return f"{tag}-{secrets.token_hex(3)}.init.nsconform.io"


class Configurations:
    """NamespaceInitializerConfigurations of one test: unique names, run labels, deleted in teardown."""

    def __init__(self, api: Any, run_id: str, nodeid: str):
        self.api = api
        self.labels = {MANAGED_BY[0]: MANAGED_BY[1], RUN_LABEL: run_id, TEST_LABEL: test_id(nodeid)}
        self.prefix = f"nsc-kep33-{secrets.token_hex(3)}"
        self.created: list[str] = []

    def create(self, suffix: str, initializers: list[str]) -> dict[str, Any]:
        name = f"{self.prefix}-{suffix}"
        body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": KIND,
                "metadata": {"name": name, "labels": dict(self.labels)},
                "initializers": [{"name": n} for n in initializers]}
        self.created.append(name)
        return A.expect_ok(self.api.post(CONFIGS, body), 201)

    def cleanup(self) -> list[str]:
        """Delete every configuration this test made; returns the ones that could not be deleted."""
        problems = []
        for name in self.created:
            try:
                code = self.api.delete(f"{CONFIGS}/{name}").status_code
            except Exception as exc:  # noqa: BLE001 - keep deleting the others
                problems.append(f"{name}: {exc}")
                continue
            if code not in (200, 202, 404):
                problems.append(f"{name}: DELETE answered {code}")
        return problems


def pending(ns: dict[str, Any]) -> list[str]:
    inits = (ns.get("spec") or {}).get("initializers")
    items = inits.get("pending") if isinstance(inits, dict) else None
    return [i.get("name") for i in items or [] if isinstance(i, dict)]


def condition(ns: dict[str, Any]) -> dict[str, Any] | None:
    return next((c for c in (ns.get("status") or {}).get("conditions") or []
                 if isinstance(c, dict) and c.get("type") == CONDITION), None)


def remove_initializer(api: Any, paths: Any, ns: str, name: str, attempts: int = 5) -> dict[str, Any]:
    """What an initializer controller does when done: GET, drop itself from pending, PUT (409: again)."""
    for _ in range(attempts):
        obj = A.expect_ok(api.get(paths.namespace(ns)))
        inits = (obj.get("spec") or {}).get("initializers") or {}
        inits["pending"] = [i for i in inits.get("pending") or [] if i.get("name") != name]
        obj["spec"]["initializers"] = inits
        resp = api.put(paths.namespace(ns), obj)
        if resp.status_code != 409:
            return A.expect_ok(resp)
    raise AssertionError(f"removing initializer {name} from namespace {ns}: {attempts} conflicts in a row")
