"""registry/propagation.py: the finalizers a DELETE writes, as upstream store.go decides them (options first,
then the object's own GC finalizer, then the kind's default policy)."""
from __future__ import annotations

import pytest

from conformance.reference_server.registry.propagation import deletion_finalizers


class Kind:
    def __init__(self, policy: str | None = None):
        if policy is not None:
            self.gc_policy = policy


@pytest.mark.parametrize("policy,finalizers,propagation,orphan,expected", [
    (None, [], None, None, (False, [])),                                   # background: nothing written
    (None, [], "Background", None, (False, [])),
    (None, [], "Foreground", None, (True, ["foregroundDeletion"])),
    (None, [], "Orphan", None, (True, ["orphan"])),
    (None, [], None, True, (True, ["orphan"])),
    (None, [], None, False, (False, [])),                                  # orphanDependents=false: not foreground
    (None, ["a.io/x", "orphan"], "Background", None, (True, ["a.io/x"])),  # the option takes a GC finalizer off
    (None, ["foregroundDeletion"], None, None, (False, ["foregroundDeletion"])),  # kept without options
    (None, ["orphan"], "Foreground", None, (True, ["foregroundDeletion"])),
    ("OrphanDependents", [], None, None, (True, ["orphan"])),               # batch/v1 Job's default
    ("OrphanDependents", [], "Background", None, (False, [])),
    ("OrphanDependents", ["foregroundDeletion"], None, None, (False, ["foregroundDeletion"])),
    ("DeleteDependents", [], None, None, (False, [])),
    ("Unsupported", [], "Orphan", None, (False, [])),
    ("Unsupported", ["orphan"], None, None, (True, [])),
])
def test_deletion_finalizers(policy, finalizers, propagation, orphan, expected) -> None:
    assert deletion_finalizers(Kind(policy), {"finalizers": finalizers}, propagation, orphan) == expected
