"""Does the pattern match anywhere in the text? A lazily built DFA over program.py's NFA, as RE2's `dfa.go`/
`dfa.cc` answers the match/no-match question: states are sets of NFA instructions, built on first need and kept
(the cache is dropped past `MAX_STATES` and rebuilt, as RE2 does); runes are read by equivalence classes (runes no
instruction tells apart share transitions), so time is linear in the text: one dict lookup per rune once the
states it visits exist, at worst one closure of the program per rune (O(text x program))."""
from __future__ import annotations

from bisect import bisect_right
from typing import Any, Hashable

from .program import BOL, BOT, CHAR, EOL, EOT, MATCH_PC, NWB, WB, Program, closure, is_word

MAX_STATES = 4096
_MATCHED = -1
_START, _END = 4, 4  # the "kind" of the missing rune before the text and after it
_WORDS = "0:A[_`a{"  # the bounds of ASCII word characters


class LazyStates:
    """What both lazy DFAs keep (this one and scan.py's): rune classes, runes no instruction tells apart sharing
    one, with each class's newline/word kind; and interned states, each with its cached transitions."""

    def __init__(self, prog: Program, words: bool) -> None:
        self.p = prog
        bounds = {0x0A, 0x0B}
        for pc, k in enumerate(prog.kind):
            if k == CHAR:
                bounds.update(prog.arg[pc])
        if words:
            bounds.update(map(ord, _WORDS))
        self.bounds = sorted(bounds)
        self.classes: dict[str, int] = {}
        self.kinds: dict[int, int] = {}  # class -> newline (1) / word (2) bits
        self.reset()

    def start_key(self) -> Hashable:
        raise NotImplementedError

    def reset(self) -> None:
        self.ids: dict[Any, int] = {}
        self.keys: list[Any] = []
        self.trans: list[dict[int, Any]] = []
        self.initial = self.state(self.start_key())

    def state(self, key: Hashable) -> int:
        sid = self.ids.get(key)
        if sid is None:
            sid = self.ids[key] = len(self.keys)
            self.keys.append(key)
            self.trans.append({})
        return sid

    def cls(self, c: str) -> int:
        k = bisect_right(self.bounds, ord(c))
        self.classes[c] = k
        self.kinds.setdefault(k, kind_of(c, 0))
        return k


def kind_of(c: str | None, edge: int) -> int:
    """A rune's kind for the empty-width assertions: newline (1), ASCII word (2); `edge` beyond the text."""
    if c is None:
        return edge
    return (1 if c == "\n" else 0) | (2 if is_word(c) else 0)


class DFA(LazyStates):
    def __init__(self, prog: Program) -> None:
        super().__init__(prog, words=prog.has_asserts)

    def start_key(self) -> frozenset[int]:
        return frozenset((self.p.start,))

    def closure(self, pcs: frozenset[int], ctx: int) -> tuple[list[int], bool]:
        """The rune-reading instructions reachable from `pcs` through splits and the assertions `ctx` meets."""
        threads = closure(self.p, pcs, ctx)
        return [pc for pc in threads if pc != MATCH_PC], MATCH_PC in threads

    def step(self, sid: int, ctx: int, c: str | None) -> int:
        chars, matched = self.closure(self.keys[sid], ctx)
        if matched:
            return _MATCHED
        if c is None:
            return sid
        p = self.p
        nxt = frozenset([p.out[pc] for pc in chars if p.accepts(pc, c)] + [p.start])
        if len(self.keys) >= MAX_STATES:
            self.reset()
        return self.state(nxt)

    def search(self, s: str) -> bool:
        """Whether the program matches somewhere in `s` (unanchored, as `regexp.MatchString`)."""
        sid = self.initial
        classes, kinds, trans = self.classes, self.kinds, self.trans
        asserts = self.p.has_asserts
        prev_kind = _START
        for i, c in enumerate(s):
            k = classes.get(c)
            if k is None:
                k = self.cls(c)
            key = (prev_kind << 24 | k) if asserts else k
            nxt = trans[sid].get(key)
            if nxt is None:
                ctx = _ctx(prev_kind, kinds[k]) if asserts else 0
                generation = self.trans
                nxt = self.step(sid, ctx, c)
                if nxt == _MATCHED:
                    return True
                if generation is self.trans:
                    trans[sid][key] = nxt
                else:  # the cache was dropped: carry on in the new one
                    classes, trans = self.classes, self.trans
            sid = nxt
            prev_kind = kinds[k]
        return self.step(sid, _ctx(prev_kind, _END) if asserts else 0, None) == _MATCHED


def _ctx(prev: int, cur: int) -> int:
    op = 0
    if prev == _START:
        op |= BOT | BOL
    elif prev & 1:
        op |= BOL
    if cur == _END:
        op |= EOT | EOL
    elif cur & 1:
        op |= EOL
    pw = prev != _START and bool(prev & 2)
    cw = cur != _END and bool(cur & 2)
    return op | (WB if pw != cw else NWB)
