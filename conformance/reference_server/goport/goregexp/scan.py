"""Where matches end, in time linear in the text: a lazily built DFA whose states are the NFA's threads in priority
order (RE2's `dfa.cc`, `kFirstMatch` and `kLongestMatch`). `first` runs leftmost-first: a thread that reaches
the match cuts the lower-priority ones, so the last match seen before every thread dies is the end of Go's
match; unanchored, a new start thread joins at the lowest priority at each rune until a match is seen (the Pike
VM's order, without its per-thread work). `longest` runs the reversed program anchored at that end to find the
match's start. Transitions are cached per (state, previous rune's kind, rune class); the cache is dropped past
`MAX_STATES`; a scan that keeps dropping it raises Thrashing and its caller runs the Pike VM instead
(O(text x program) either way, the scanner's constant being the smaller while its states fit)."""
from __future__ import annotations

from .dfa import _END, _START, LazyStates, _ctx, kind_of
from .program import MATCH_PC, Program, closure

MAX_STATES = 4096
MAX_RESETS = 1  # per scan: past this the states are thrashing; the caller falls back to the Pike VM


class Thrashing(Exception):
    """The scan dropped its cache more than `MAX_RESETS` times (the pattern's states do not fit)."""


class Scanner(LazyStates):
    def __init__(self, prog: Program, first: bool, anchored: bool) -> None:
        self.first, self.anchored, self.resets = first, anchored, 0
        super().__init__(prog, words=True)

    def start_key(self) -> tuple[tuple[int, ...], bool]:
        return (self.p.start,), False

    def closure(self, pcs: tuple[int, ...], ctx: int) -> tuple[list[int], bool]:
        """The rune readers reachable from `pcs` in priority order, and whether the match is; in `first` mode the
        threads after the match are cut."""
        threads = closure(self.p, pcs, ctx)
        if MATCH_PC not in threads:
            return threads, False
        at = threads.index(MATCH_PC)
        return (threads[:at] if self.first else threads[:at] + threads[at + 1:]), True

    def step(self, sid: int, ctx: int, c: str) -> tuple[int, bool]:
        pcs, seen_match = self.keys[sid]
        chars, matched = self.closure(pcs, ctx)
        p = self.p
        nxt = list(dict.fromkeys(p.out[pc] for pc in chars if p.accepts(pc, c)))
        seen_match = seen_match or matched
        if not self.anchored and not (self.first and seen_match):
            nxt.append(p.start)
        if len(self.keys) >= MAX_STATES:
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
        prev = kind_of(before, _START)
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
            if not self.keys[sid][0]:
                return last
            prev = cur
        _, matched = self.closure(self.keys[sid][0], _ctx(prev, kind_of(after, _END)))
        return end if matched else last
