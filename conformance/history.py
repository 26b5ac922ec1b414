"""Validate a recorded list/watch history, as etcd's robustness suite validates its watch history.

What the writers were acknowledged (`Write`) and what a watcher received (`Seen`) are compared without
reading meaning into resourceVersions: they are opaque strings, compared only for equality, and ordered only
by the order in which the server delivered them. Properties (Kubernetes API concepts, "Efficient detection of
changes": a watch from a LIST's resourceVersion delivers every later change, in order):

- `check_watch`: every acknowledged write is delivered exactly once (complete, unique), the writes of one
  object in the order they were made, with the state and resourceVersion the write was acknowledged with;
  and a write acknowledged before another was sent is delivered before it (real-time order).
- `check_resume`: a watch resumed from a resourceVersion the first one delivered (an event's or a BOOKMARK's)
  delivers exactly what the first one delivered after that point.
- `check_snapshot`: a LIST (all its pages together) is the state after some prefix of the delivered history.

Each returns the first `Violation` (with the events around it) or None. Pure functions, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["Write", "Seen", "Violation", "check_watch", "check_resume", "check_snapshot", "EVENT_OF_OP"]

Key = tuple[str, str]
"""(namespace, name) of an object."""

EVENT_OF_OP = {"create": "ADDED", "update": "MODIFIED", "delete": "DELETED"}
CONTEXT = 3  # events shown either side of a violation


@dataclass(frozen=True)
class Write:
    """One acknowledged write. `rv`/`state` None: not known (a DELETE answered with a Status, or a deletion
    made by the server itself, e.g. the namespace controller); `started`/`acked` are monotonic seconds."""

    key: Key
    op: str                      # create | update | delete
    rv: str | None = None
    state: Any = None
    started: float = 0.0
    acked: float = 0.0
    writer: str = ""

    def describe(self) -> str:
        rv = f" rv={self.rv}" if self.rv is not None else ""
        by = f" by {self.writer}" if self.writer else ""
        return f"{self.op} {self.key[0]}/{self.key[1]}{rv}{by}"


@dataclass(frozen=True)
class Seen:
    """One event a watcher received: `type` ADDED/MODIFIED/DELETED/BOOKMARK (bookmarks have no key)."""

    type: str
    key: Key | None
    rv: str | None
    state: Any = None

    def describe(self) -> str:
        where = f" {self.key[0]}/{self.key[1]}" if self.key else ""
        return f"{self.type}{where} rv={self.rv}"


@dataclass
class Violation:
    """The first thing a history got wrong: `message`, and the delivered events around `index`."""

    property: str                # complete | unique | order | real-time | state | resume | snapshot
    message: str
    index: int | None = None     # position in the delivered events (None: at the end / not about one event)
    around: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        where = f" (event #{self.index})" if self.index is not None else ""
        ctx = "".join(f"\n    {line}" for line in self.around)
        return f"{self.property}{where}: {self.message}" + (f"\n  events around it:{ctx}" if ctx else "")


def _around(events: Sequence[Seen], index: int | None) -> list[str]:
    if not events:
        return []
    i = len(events) - 1 if index is None or index >= len(events) else index
    lo, hi = max(0, i - CONTEXT), min(len(events), i + CONTEXT + 1)
    return [f"{'>' if j == index else ' '} #{j} {events[j].describe()}" for j in range(lo, hi)]


def _fail(prop: str, message: str, events: Sequence[Seen], index: int | None) -> Violation:
    return Violation(prop, message, index, _around(events, index))


def _matches(w: Write, e: Seen) -> bool:
    return EVENT_OF_OP[w.op] == e.type and (w.rv is None or w.rv == e.rv)


def check_watch(writes: Iterable[Write], events: Sequence[Seen]) -> Violation | None:
    """Every write delivered exactly once, per object in write order, as written, in real-time order.

    `writes` are the acknowledged writes made after the watch's starting point, each object's in the order
    they were made (one writer per object); `events` what the watch delivered (BOOKMARKs are ignored)."""
    per_key: dict[Key, list[Write]] = {}
    for w in writes:
        per_key.setdefault(w.key, []).append(w)
    done: dict[Key, int] = {k: 0 for k in per_key}
    matched_at: dict[int, int] = {}            # id(write) -> event index
    seen_rvs: dict[tuple[Key, str], int] = {}
    all_writes = [w for ws in per_key.values() for w in ws]
    changes = [(i, e) for i, e in enumerate(events) if e.type != "BOOKMARK"]
    for i, e in changes:
        assert e.key is not None
        if e.rv is not None:
            first = seen_rvs.get((e.key, e.rv))
            if first is not None:
                return _fail("unique", f"{e.describe()} was already delivered as event #{first}", events, i)
            seen_rvs[(e.key, e.rv)] = i
        todo = per_key.get(e.key, [])
        n = done.get(e.key, 0)
        if n >= len(todo):
            return _fail("unique" if todo else "complete",
                         f"{e.describe()}: no acknowledged write of this object is left to deliver "
                         f"(writes: {[w.describe() for w in todo] or 'none'})", events, i)
        want = todo[n]
        if not _matches(want, e):
            later = next((w for w in todo[n + 1:] if _matches(w, e)), None)
            if later is not None:
                delivered_later = any(_matches(want, x) for _, x in changes if _ > i and x.key == e.key)
                what = ("delivered before the earlier write " if delivered_later else
                        "delivered, but the earlier write was never delivered: ")
                return _fail("order" if delivered_later else "complete",
                             f"{e.describe()} ({later.describe()}) {what}{want.describe()}", events, i)
            return _fail("state", f"{e.describe()} is not the next write of this object, {want.describe()} "
                                  f"(type or resourceVersion differs)", events, i)
        if want.state is not None and e.state != want.state:
            return _fail("state", f"{e.describe()} carries {e.state!r}, but the write was acknowledged with "
                                  f"{want.state!r}", events, i)
        for other in all_writes:  # real-time order: acknowledged before this one was sent ⇒ delivered before
            if other.acked < want.started and id(other) not in matched_at:
                if not any(x.key == other.key and _matches(other, x) for _, x in changes if _ > i):
                    return _fail("complete", f"{other.describe()} was acknowledged but never delivered; "
                                             f"{e.describe()}, written after it, was", events, i)
                return _fail("real-time", f"{e.describe()} ({want.describe()}) delivered before "
                                          f"{other.describe()}, which was acknowledged before it was sent",
                             events, i)
        matched_at[id(want)] = i
        done[e.key] = n + 1
    for key, todo in per_key.items():
        if done[key] < len(todo):
            missing = todo[done[key]]
            return _fail("complete", f"{missing.describe()} was acknowledged but never delivered "
                                     f"({len(changes)} events delivered)", events, None)
    return None


def _ident(e: Seen) -> tuple[str, Key | None, str | None]:
    return e.type, e.key, e.rv


def check_resume(first: Sequence[Seen], point: int, resumed: Sequence[Seen]) -> Violation | None:
    """The watch resumed from the resourceVersion of `first[point]` (an event or a BOOKMARK) delivers exactly
    the changes `first` delivered after it, in the same order (BOOKMARKs are ignored on both sides)."""
    want = [e for e in first[point + 1:] if e.type != "BOOKMARK"]
    got = [e for e in resumed if e.type != "BOOKMARK"]
    origin = first[point].describe()
    for j, (w, g) in enumerate(zip(want, got)):
        if _ident(w) != _ident(g):
            return _fail("resume", f"resumed from {origin}: event #{j} is {g.describe()}, the first watch "
                                   f"delivered {w.describe()} there", got, j)
    if len(got) < len(want):
        return _fail("resume", f"resumed from {origin}: {len(want) - len(got)} later change(s) missing, from "
                               f"{want[len(got)].describe()}", got, None)
    if len(got) > len(want):
        return _fail("resume", f"resumed from {origin}: extra event {got[len(want)].describe()} after the "
                               f"{len(want)} the first watch delivered", got, len(want))
    return None


def check_snapshot(initial: Mapping[Key, str], events: Sequence[Seen],
                   listed: Mapping[Key, str]) -> Violation | None:
    """`listed` (key → resourceVersion, every page together) is the state after some prefix of `events`,
    starting from `initial` (the state the watch started from)."""
    state = dict(initial)
    best: tuple[int, int] | None = None    # (differences, prefix length)
    changes = [e for e in events if e.type != "BOOKMARK"]
    for k in range(len(changes) + 1):
        if k:
            e = changes[k - 1]
            assert e.key is not None
            if e.type == "DELETED":
                state.pop(e.key, None)
            else:
                state[e.key] = e.rv or ""
        diff = sum(1 for key in set(state) | set(listed) if state.get(key) != listed.get(key))
        if diff == 0:
            return None
        if best is None or diff < best[0]:
            best = (diff, k)
    assert best is not None
    state = dict(initial)
    for e in changes[:best[1]]:
        if e.type == "DELETED":
            state.pop(e.key, None)  # type: ignore[arg-type]
        else:
            state[e.key] = e.rv or ""  # type: ignore[index]
    diffs = [f"{key[0]}/{key[1]}: listed {listed.get(key)!r}, history {state.get(key)!r}"
             for key in sorted(set(state) | set(listed)) if state.get(key) != listed.get(key)]
    return _fail("snapshot", f"the list matches no point of the history; closest after {best[1]} change(s), "
                             f"{best[0]} object(s) differ: {'; '.join(diffs[:6])}", changes, best[1] - 1 if best[1]
                 else None)
