"""A write request's random draws, pinned for the rest of the request: the generated name, a Service's ClusterIPs
and NodePorts. While admission webhooks are configured a write is run twice here, as a dry run shown to the
validating webhooks (the preview) and then for real; upstream runs it once (`staging/src/k8s.io/apiserver/pkg/
registry/generic/registry/store.go` `Create`: generateName, `BeginCreate` (the Service allocations), `BeforeCreate`,
the validating admission on that object, then the storage), so what a webhook validates is what is stored. The
preview's draws are remembered under (site, inputs) and the write draws the same values.

A session also carries what the registry needs to know about the request (`dry_run`: the request's own, so the
preview of a real write allocates as the write does, and a dry-run request's allocations are upstream's dry-run
answers) and the ClusterIPs whose IPAddress the request has already written through admission
(admission/serviceips.py), those the registry allocated (`allocated`: `BeginCreate`'s, before the Service's
validation, so a create that validation then refuses still writes and reverts their IPAddresses, as upstream),
and those it releases, which the request deletes through admission after the write (`released`).

Outside a request, a controller's writes may leave the IPAddresses they release to a sink (`releasing_to`): the
controller's worker deletes them through admission after its sync (admission/admitted.py).
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
        self.allocated: dict[str, dict[str, Any]] = {}  # ClusterIPs the registry allocated: their Service
        self.collided: dict[str, dict[str, Any]] = {}  # requested ClusterIPs found held: their Service
        self.defer_release = False  # IPAddresses to release are left to the request (`released`), not deleted
        self.released: list[str] = []

    def forget(self, site: str) -> None:
        """Draw `site` anew (an address the admission refused)."""
        for key in [k for k in self.values if k[0] == site]:
            del self.values[key]

    def repin(self, site: str, old: Any, new: Any) -> None:
        """What `site` drew as `old` is `new` from now on (an address whose IPAddress could not be written,
        followed by the next one of its walk)."""
        for key, value in list(self.values.items()):
            if key[0] == site and value == old:
                self.values[key] = new


class Allocated:
    """One store call's allocations (`BeginCreate`'s ClusterIPs, each with its Service), and those whose
    IPAddress the call wrote."""

    def __init__(self) -> None:
        self.ips: dict[str, dict[str, Any]] = {}
        self.written: set[str] = set()
        self.walks: dict[str, Iterator[str]] = {}  # a dynamic ClusterIP's walk: the free addresses after it


DRAWS: ContextVar[Draws | None] = ContextVar("nsconform_draws", default=None)
_DRY_ALLOCATION: ContextVar[bool] = ContextVar("nsconform_dry_allocation", default=False)
_ALLOCATED: ContextVar[Allocated | None] = ContextVar("nsconform_allocated", default=None)
_RELEASES: ContextVar[list[str] | None] = ContextVar("nsconform_releases", default=None)


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
    with resumed(Draws(dry_run)) as session:
        yield session


@contextmanager
def resumed(session: Draws) -> Iterator[Draws]:
    """`session` again (a controller's write made after its admission: the draws and reservations it pinned)."""
    token = DRAWS.set(session)
    try:
        yield session
    finally:
        DRAWS.reset(token)


@contextmanager
def allocation(dry_run: bool) -> Iterator[Allocated]:
    """A store call's allocation mode: dry (upstream's dry-run allocators) for a dry-run request, real for a real
    write and for the preview of one (the session says which); yields the call's allocations."""
    session = DRAWS.get()
    token = _DRY_ALLOCATION.set(session.dry_run if session is not None else dry_run)
    record = Allocated()
    token2 = _ALLOCATED.set(record)
    try:
        yield record
    finally:
        _ALLOCATED.reset(token2)
        _DRY_ALLOCATION.reset(token)


def allocated() -> Allocated | None:
    """The current store call's allocations."""
    return _ALLOCATED.get()


def note_allocated(ip: str, service: dict[str, Any]) -> None:
    """The strategy allocated `ip` for `service` (`BeginCreate`, before validation), unless dry."""
    if _DRY_ALLOCATION.get():
        return
    record, session = _ALLOCATED.get(), DRAWS.get()
    if record is not None:
        record.ips[ip] = service
    if session is not None:
        session.allocated[ip] = service


def note_walk(ip: str, walk: Iterator[str]) -> None:
    """The strategy drew the dynamic `ip` from `walk` (`allocateFromRange`'s iterator): should its IPAddress
    create fail, the store goes on with the walk's next address."""
    record = _ALLOCATED.get()
    if record is not None and not _DRY_ALLOCATION.get():
        record.walks[ip] = walk


def note_collided(ip: str, service: dict[str, Any]) -> None:
    """A requested `ip` the registry found held: upstream's `AllocateService` still makes (and admits) its
    IPAddress create, which storage then refuses (`ErrAllocated`)."""
    session = DRAWS.get()
    if session is not None and not _DRY_ALLOCATION.get():
        session.collided[ip] = service


@contextmanager
def releasing_to(sink: list[str]) -> Iterator[None]:
    """The ClusterIPs released within go to `sink` (deleted through admission by its owner) instead of the
    plain registry delete."""
    token = _RELEASES.set(sink)
    try:
        yield
    finally:
        _RELEASES.reset(token)


def release_sink() -> list[str] | None:
    """Where a release goes instead of the plain delete: the request's `released`, or a controller's sink."""
    session = DRAWS.get()
    if session is not None and session.defer_release:
        return session.released
    return _RELEASES.get()


def dry_allocation() -> bool:
    return _DRY_ALLOCATION.get()


__all__ = ["DRAWS", "Allocated", "Draws", "allocated", "allocation", "current", "draw", "dry_allocation", "note_allocated", "note_collided", "note_walk", "pinned",
           "release_sink", "releasing_to", "reserved", "resumed"]
