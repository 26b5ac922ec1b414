"""A write rehearsed off the event loop, then done on it: the long, pure part of a write (a custom resource's
schema `pattern`s and CEL rules, their cost walks) runs in a worker thread, and the write itself runs where every
other write runs, on the loop, reusing what the rehearsal computed.

Why two passes rather than the write in a thread: on the loop a write is synchronous, so nothing interleaves with
it (admission's checks, resourceVersion order, watch event order, optimistic concurrency: `guaranteed_update`
runs its update function under the store lock). A rehearsal must not hold that lock for seconds (every reader on
the loop takes it), so it runs the same registry code with the store in *rehearsal* mode: the lock is not held
across the write, and the store refuses to commit (`Rehearsed` is raised where the write would be stored). The
pure functions it passes through `Rehearsal.recall` remember their inputs and results. The second pass, on the
loop, is the real write: its `recall`s answer from memory when their inputs are equal to the rehearsal's (the
object read meanwhile may have changed: a write in between is then simply validated against the new state,
inline, as upstream's `GuaranteedUpdate` re-runs its function on a conflict), so every guarantee of an ordinary
write holds by construction, and the loop pays only equality checks and the write.

A rehearsed input that no longer matches raises `Unforeseen` in the commit pass (before anything is stored:
validation precedes the store call), and the caller rehearses again; after a few tries the write is done inline.

Upstream has no such split (Go validates on the request's goroutine, `staging/src/k8s.io/apiserver/pkg/registry/
generic/registry/store.go` `Create`/`Update`, `storage/etcd3/store.go` `GuaranteedUpdate`); this only keeps one
Python event loop from standing still meanwhile. The storage layer knows no registry: what is remembered is up to
its callers."""
from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

T = TypeVar("T")

REHEARSAL: contextvars.ContextVar["Rehearsal | None"] = contextvars.ContextVar("nsconform_rehearsal", default=None)


class Rehearsed(Exception):
    """Raised by a store in rehearsal mode where the write would be committed: the rehearsal is over."""


class Unforeseen(Exception):
    """The commit pass met a remembered computation whose inputs differ from the rehearsal's."""


@dataclass
class Rehearsal:
    """What one write's rehearsal remembered: (site, inputs, result, side effects) in the order they ran."""

    rehearsing: bool = True
    entries: list[tuple[str, Any, Any]] = field(default_factory=list)

    def recall(self, site: str, inputs: Any, compute: Callable[[], T], strict: bool = True) -> T:
        """`compute()`, remembered under (`site`, `inputs`) while rehearsing; in the commit pass the remembered
        result for equal inputs (`==`: the inputs must be plain data the caller no longer mutates), each used
        once; else `Unforeseen` (`strict`) or `compute()` again (a cheap draw, e.g. a generated name)."""
        if self.rehearsing:
            out = compute()
            self.entries.append((site, inputs, out))
            return out
        for i, (where, seen, out) in enumerate(self.entries):
            if where == site and seen == inputs:
                del self.entries[i]
                return out
        if strict:
            raise Unforeseen(site)
        return compute()


def rehearsing() -> bool:
    """True inside a rehearsal (the store must neither hold its lock across a write nor commit it)."""
    current = REHEARSAL.get()
    return current is not None and current.rehearsing


def recall(site: str, inputs: Callable[[], Any], compute: Callable[[], T], strict: bool = True) -> T:
    """`Rehearsal.recall` within a rehearsed write; elsewhere just `compute()` (`inputs` is then never built)."""
    rehearsal = REHEARSAL.get()
    if rehearsal is None:
        return compute()
    return rehearsal.recall(site, inputs(), compute, strict)


__all__ = ["REHEARSAL", "Rehearsal", "Rehearsed", "Unforeseen", "recall", "rehearsing"]
