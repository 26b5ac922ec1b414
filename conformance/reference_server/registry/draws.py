"""A write request's random draws, pinned for the rest of the request: the generated name, a Service's ClusterIPs
and NodePorts. While admission webhooks are configured a write is run twice here, as a dry run shown to the
validating webhooks (the preview) and then for real; upstream runs it once (`staging/src/k8s.io/apiserver/pkg/
registry/generic/registry/store.go` `Create`: generateName, `BeginCreate` (the Service allocations), `BeforeCreate`,
the validating admission on that object, then the storage), so what a webhook validates is what is stored. The
preview's draws are remembered under (site, inputs) and the write draws the same values.

A session also carries what the registry needs to know about the request (`dry_run`: the request's own, so the
preview of a real write allocates as the write does, and a dry-run request's allocations are upstream's dry-run
answers) and the ClusterIPs whose IPAddress the request has already written through admission
(admission/serviceips.py) or was refused (`excluded`: the allocator goes on with another address), and those it
releases, which the request deletes through admission after the write (`released`).
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Hashable, Iterator, TypeVar

T = TypeVar("T")


class Draws:
    """One request's pinned draws."""

    def __init__(self, dry_run: bool):
        self.dry_run = dry_run
        self.values: dict[tuple[str, Hashable], Any] = {}
        self.reserved: set[str] = set()  # ClusterIPs whose IPAddress this request wrote
        self.excluded: set[str] = set()  # addresses refused to this request
        self.defer_release = False  # IPAddresses to release are left to the request (`released`), not deleted
        self.released: list[str] = []

    def forget(self, site: str) -> None:
        """Draw `site` anew (an address the admission refused)."""
        for key in [k for k in self.values if k[0] == site]:
            del self.values[key]


DRAWS: ContextVar[Draws | None] = ContextVar("nsconform_draws", default=None)
_DRY_ALLOCATION: ContextVar[bool] = ContextVar("nsconform_dry_allocation", default=False)


def draw(site: str, inputs: Hashable, compute: Callable[[], T]) -> T:
    """`compute()`, or within a session the value it drew for (`site`, `inputs`) before."""
    session = DRAWS.get()
    if session is None:
        return compute()
    key = (site, inputs)
    if key in session.values:
        return session.values[key]
    value = compute()
    session.values[key] = value
    return value


def current() -> Draws | None:
    return DRAWS.get()


def reserved() -> frozenset[str] | set[str]:
    """The ClusterIPs this request holds already (their IPAddress written)."""
    session = DRAWS.get()
    return session.reserved if session is not None else frozenset()


@contextmanager
def pinned(dry_run: bool) -> Iterator[Draws]:
    """A session for one request (nested: the outer one goes on)."""
    outer = DRAWS.get()
    if outer is not None:
        yield outer
        return
    session = Draws(dry_run)
    token = DRAWS.set(session)
    try:
        yield session
    finally:
        DRAWS.reset(token)


@contextmanager
def allocation(dry_run: bool) -> Iterator[None]:
    """A store call's allocation mode: dry (upstream's dry-run allocators) for a dry-run request, real for a real
    write and for the preview of one (the session says which)."""
    session = DRAWS.get()
    token = _DRY_ALLOCATION.set(session.dry_run if session is not None else dry_run)
    try:
        yield
    finally:
        _DRY_ALLOCATION.reset(token)


def dry_allocation() -> bool:
    return _DRY_ALLOCATION.get()


__all__ = ["DRAWS", "Draws", "allocation", "current", "draw", "dry_allocation", "pinned", "reserved"]
