"""Named, deliberate bugs: each breaks exactly one rule so the suites can be shown to fail.

A `Deviations` set is passed down to the layers; each layer checks `deviations.active(name)` at the
exact point where the bug lives, so the correct path stays the default and the bug is one branch.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable


@dataclass(frozen=True)
class Deviation:
    name: str
    description: str
    clauses: tuple[str, ...] = field(default=())
    profiles: tuple[str, ...] = field(default=())
    """Profiles whose suites can see the bug; empty: every profile one of `clauses` applies to."""


_LIST = [
    ("no-default-finalizer", "the `kubernetes` finalizer is not added to spec.finalizers on create"),
    ("replace-user-finalizers", "user spec.finalizers on create are replaced by [kubernetes]"),
    ("accept-unqualified-finalizers", "unqualified non-standard finalizer names are accepted"),
    ("update-changes-finalizers", "PUT/PATCH of a namespace changes spec.finalizers"),
    ("finalize-any-verb", "finalize accepts POST/PATCH too (kubernetes profile); PUT/PATCH too (design)"),
    ("finalize-as-content", "/namespaces/x/finalize is treated as a content type: POST creates an object"),
    ("accept-namespace-mismatch", "a body namespace different from the path namespace is accepted"),
    ("no-namespace-defaulting", "an empty body namespace is not filled in from the path"),
    ("content-in-missing-namespace", "content can be created in a namespace that does not exist"),
    ("content-in-terminating-namespace", "content can be created in a Terminating namespace"),
    ("delete-keeps-active", "DELETE sets deletionTimestamp but leaves status.phase Active"),
    ("delete-immediately", "DELETE removes the namespace at once despite its finalizers"),
    ("controller-skips-content", "the controller removes `kubernetes` without deleting content"),
    ("controller-removes-foreign-finalizers", "the controller also removes foreign spec.finalizers"),
    ("vanish-with-content-finalizers", "the namespace is removed while content with finalizers remains"),
    ("cluster-list-misses-namespaces", "the cross-namespace list omits the items of one namespace"),
    ("watch-no-deleted", "namespace watches never send DELETED events"),
    ("cluster-watch-misses-events", "cross-namespace content watches miss events of one namespace"),
    ("accept-invalid-names", "namespace names are not validated"),
    ("names-unique-across-namespaces", "content names must be unique across namespaces, not per namespace"),
    ("phase-from-body", "status.phase from the create body is kept"),
    ("second-delete-conflict", "a repeated DELETE of a Terminating namespace answers 409"),
    ("default-deletable", "the `default` namespace can be deleted"),
    ("no-metadata-name-label", "the kubernetes.io/metadata.name label is not set"),
    ("plain-text-errors", "errors are answered as text/plain instead of a Status object"),
]

# The clauses each deviation breaks (the sensitivity run executes their tests against the deviation and
# expects at least one to fail). Owned by the sensitivity room; see conformance/sensitivity/.
_CLAUSES: dict[str, tuple[str, ...]] = {
    "no-default-finalizer": ("NS-FIN-001",),
    "replace-user-finalizers": ("NS-FIN-002",),
    "accept-unqualified-finalizers": ("NS-FIN-006",),
    "update-changes-finalizers": ("NS-FZE-001",),
    "finalize-any-verb": ("NS-FZE-007",),
    "finalize-as-content": ("NS-FZE-007", "NS-FZE-008"),
    "accept-namespace-mismatch": ("NS-CON-006",),
    "no-namespace-defaulting": ("NS-CON-008",),
    "content-in-missing-namespace": ("NS-CON-001",),
    "content-in-terminating-namespace": ("NS-CON-003",),
    "delete-keeps-active": ("NS-PHA-004",),
    "delete-immediately": ("NS-PHA-006",),
    "controller-skips-content": ("NS-LIF-001",),
    "controller-removes-foreign-finalizers": ("NS-LIF-002", "NS-LIF-003"),
    "vanish-with-content-finalizers": ("NS-LIF-005",),
    "cluster-list-misses-namespaces": ("NS-LW-006",),
    "watch-no-deleted": ("NS-LW-008",),
    "cluster-watch-misses-events": ("NS-LW-011",),
    "accept-invalid-names": ("NS-NAM-002",),
    "names-unique-across-namespaces": ("NS-CON-010",),
    "phase-from-body": ("NS-PHA-002",),
    "second-delete-conflict": ("NS-PHA-005",),
    "default-deletable": ("NS-IMM-002",),
    "no-metadata-name-label": ("NS-NAM-004",),
    "plain-text-errors": ("NS-ERR-001",),
}

# Clauses no server behaviour can break, with the reason (the sensitivity run's coverage check).
UNBREAKABLE: dict[str, str] = {
    "NS-COV-001": "a requirement on the conformance run, not on the server: the suites send every endpoint-table "
                  "request whatever the server answers, and the report counts requests, not answers",
}

DEVIATIONS: dict[str, Deviation] = {name: Deviation(name, desc, _CLAUSES.get(name, ())) for name, desc in _LIST}


class Deviations:
    """The set of active deviations of one server; immutable after construction."""

    def __init__(self, names: Iterable[str] = ()):
        names = tuple(names)
        unknown = [n for n in names if n not in DEVIATIONS]
        if unknown:
            raise ValueError(f"unknown deviation(s): {', '.join(unknown)}; known: {', '.join(sorted(DEVIATIONS))}")
        self._names = frozenset(names)

    def active(self, name: str) -> bool:
        """True when the named deviation is switched on (`name` must be a known deviation)."""
        assert name in DEVIATIONS, name
        return name in self._names

    @property
    def names(self) -> frozenset[str]:
        return self._names

    def __repr__(self) -> str:
        return f"Deviations({sorted(self._names)})"


NONE = Deviations()
