"""Where matches end, in time linear in the text: a lazily built DFA whose states are the NFA's threads in priority
order (RE2's `dfa.cc`, `kFirstMatch` and `kLongestMatch`). `first` runs leftmost-first: a thread that reaches
the match cuts the lower-priority ones, so the last match seen before every thread dies is the end of Go's
match; unanchored, a new start thread joins at the lowest priority at each rune until a match is seen (the Pike
VM's order, without its per-thread work). `longest` runs the reversed program anchored at that end to find the
match's start. Transitions are cached per (state, previous rune's kind, rune class); the cache is dropped past
`MAX_STATES`; a scan that keeps dropping it raises Thrashing and its caller runs the Pike VM instead
(O(text x program) either way, the scanner's constant being the smaller while its states fit)."""
from __future__ import annotations

from bisect import bisect_right

from .dfa import _END, _START, _WORDS, _ctx
from .program import CHAR, MATCH_PC, Program, closure, is_word

MAX_STATES = 4096
MAX_RESETS = 1  # per scan: past this the states are thrashing; the caller falls back to the Pike VM


class Thrashing(Exception):
    """The scan dropped its cache more than `MAX_RESETS` times (the pattern's states do not fit)."""


class Scanner:
    def __init__(self, prog: Program, first: bool, anchored: bool) -> None:
        self.p, self.first, self.anchored = prog, first, anchored
        bounds = {0x0A, 0x0B, *map(ord, _WORDS)}
        for pc, k in enumerate(prog.kind):
            if k == CHAR:
                bounds.update(prog.arg[pc])
        self.bounds = sorted(bounds)
        self.classes: dict[str, int] = {}
        self.kinds: dict[int, int] = {}
        self.resets = 0
        self.reset()

    def reset(self) -> None:
        self.ids: dict[tuple[tuple[int, ...], bool], int] = {}
        self.states: list[tuple[tuple[int, ...], bool]] = []
        self.trans: list[dict[int, tuple[int, bool]]] = []
        self.initial = self.state(((self.p.start,), False))

    def state(self, key: tuple[tuple[int, ...], bool]) -> int:
        sid = self.ids.get(key)
        if sid is None:
            sid = self.ids[key] = len(self.states)
            self.states.append(key)
            self.trans.append({})
        return sid

    def kind_of(self, c: str | None, edge: int) -> int:
        if c is None:
            return edge
        return (1 if c == "\n" else 0) | (2 if is_word(c) else 0)

    def cls(self, c: str) -> int:
        k = bisect_right(self.bounds, ord(c))
        self.classes[c] = k
        self.kinds.setdefault(k, self.kind_of(c, 0))
        return k

    def closure(self, pcs: tuple[int, ...], ctx: int) -> tuple[list[int], bool]:
        """The rune readers reachable from `pcs` in priority order, and whether the match is; in `first` mode the
        threads after the match are cut."""
        threads = closure(self.p, pcs, ctx)
        if MATCH_PC not in threads:
            return threads, False
        at = threads.index(MATCH_PC)
        return (threads[:at] if self.first else threads[:at] + threads[at + 1:]), True

    def step(self, sid: int, ctx: int, c: str) -> tuple[int, bool]:
        pcs, seen_match = self.states[sid]
        chars, matched = self.closure(pcs, ctx)
        p = self.p
        nxt = list(dict.fromkeys(p.out[pc] for pc in chars if p.accepts(pc, c)))
        seen_match = seen_match or matched
        if not self.anchored and not (self.first and seen_match):
            nxt.append(p.start)
        if len(self.states) >= MAX_STATES:
            self.resets += 1
            if self.resets > MAX_RESETS:
                raise Thrashing
            self.reset()
        return self.state((tuple(nxt), seen_match)), matched

    def scan(self, s: str, start: int, end: int, before: str | None, after: str | None) -> int:
        """The last position in s[start:end] where a match ends (the context beyond the bounds: `before`,
        `after`, None for the text's own edges); -1 when none does."""
        self.resets = 0
        sid = self.initial
        prev = self.kind_of(before, _START)
        last = -1
        for i in range(start, end):
            c = s[i]
            k = self.classes.get(c)
            if k is None:
                k = self.cls(c)
            cur = self.kinds[k]
            key = prev << 24 | k
            got = self.trans[sid].get(key)
            if got is None:
                generation = self.trans
                got = self.step(sid, _ctx(prev, cur), c)
                if generation is self.trans:
                    self.trans[sid][key] = got
            sid, matched = got
            if matched:
                last = i
            if not self.states[sid][0]:
                return last
            prev = cur
        _, matched = self.closure(self.states[sid][0], _ctx(prev, self.kind_of(after, _END)))
        return end if matched else last
