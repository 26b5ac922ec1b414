"""A parsed Go regexp as a Thompson NFA program (`regexp/syntax/compile.go`'s instructions: rune classes, splits
in priority order, empty-width assertions, match), what dfa.py and pike.py run. Captures are not recorded (only
the whole match is asked for); counted repetitions are expanded as Go's `simplify.go` does."""
from __future__ import annotations

import sys
from bisect import bisect_right
from dataclasses import dataclass, field

from . import parser as P
from . import tables as T

CHAR, SPLIT, JMP, ASSERT, MATCH = range(5)
MATCH_PC = 0  # every program's match instruction
# empty-width conditions (syntax.EmptyOp)
BOT, EOT, BOL, EOL, WB, NWB = (1 << i for i in range(6))
_ASSERTS = {P.BEGIN_TEXT: BOT, P.END_TEXT: EOT, P.BEGIN_LINE: BOL, P.END_LINE: EOL, P.WORD_BOUNDARY: WB,
            P.NO_WORD_BOUNDARY: NWB}
_WORD = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")


def is_word(c: str | None) -> bool:
    """`syntax.IsWordChar`: ASCII letters, digits and underscore."""
    return c is not None and c in _WORD


def context(s: str, i: int) -> int:
    """`syntax.EmptyOpContext` between s[i-1] and s[i]."""
    prev = s[i - 1] if i > 0 else None
    cur = s[i] if i < len(s) else None
    op = 0
    if prev is None:
        op |= BOT | BOL
    elif prev == "\n":
        op |= BOL
    if cur is None:
        op |= EOT | EOL
    elif cur == "\n":
        op |= EOL
    return op | (WB if is_word(prev) != is_word(cur) else NWB)


@dataclass
class Program:
    kind: list[int] = field(default_factory=list)
    out: list[int] = field(default_factory=list)
    out1: list[int] = field(default_factory=list)
    arg: list[tuple[int, ...]] = field(default_factory=list)  # CHAR: (lo, hi+1, ...) bounds; ASSERT: (cond,)
    start: int = 0
    has_asserts: bool = False

    def emit(self, kind: int, out: int = -1, out1: int = -1, arg: tuple[int, ...] = ()) -> int:
        self.kind.append(kind)
        self.out.append(out)
        self.out1.append(out1)
        self.arg.append(arg)
        return len(self.kind) - 1

    def accepts(self, pc: int, c: str) -> bool:
        return bisect_right(self.arg[pc], ord(c)) & 1 == 1


def follow(p: Program, root: int, ctx: int, seen: set[int], out: list[int]) -> None:
    """Append to `out`, in priority order, the rune readers and the match reachable from `root` through splits and
    the empty-width assertions `ctx` meets (`seen`: the instructions visited at this position, shared by the roots
    followed there)."""
    kind, nxt, alt, arg = p.kind, p.out, p.out1, p.arg
    todo = [root]
    while todo:
        pc = todo.pop()
        if pc in seen:
            continue
        seen.add(pc)
        k = kind[pc]
        if k == SPLIT:
            todo.append(alt[pc])
            todo.append(nxt[pc])
        elif k == JMP:
            todo.append(nxt[pc])
        elif k == ASSERT:
            if ctx & arg[pc][0]:
                todo.append(nxt[pc])
        else:
            out.append(pc)


def closure(p: Program, roots: tuple[int, ...] | frozenset[int], ctx: int) -> list[int]:
    """`follow` from each root in turn: the threads at one position, in priority order."""
    seen: set[int] = set()
    out: list[int] = []
    for root in roots:
        follow(p, root, ctx, seen, out)
    return out


def _bounds(ranges: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x + (i & 1) for i, x in enumerate(ranges))


class _Compiler:
    def __init__(self) -> None:
        self.p = Program()
        self.match = self.p.emit(MATCH)  # pc 0: MATCH_PC
        self.bounds: dict[int, tuple[object, tuple[int, ...]]] = {}

    def char(self, ranges: list[int] | tuple[int, ...], nxt: int) -> int:
        key = id(ranges)
        got = self.bounds.get(key)
        if got is None or got[0] is not ranges:  # one bounds tuple per class, however often a repeat copies it
            got = self.bounds[key] = (ranges, _bounds(ranges))
        return self.p.emit(CHAR, nxt, arg=got[1])

    def split(self, first: int, second: int) -> int:
        return self.p.emit(SPLIT, first, second)

    def node(self, re: P.Node, nxt: int) -> int:
        """The program for `re` followed by `nxt`, built back to front; returns its entry."""
        op = re.op
        if op == P.EMPTY:
            return nxt
        if op == P.NO_MATCH:
            return self.char((), nxt)
        if op == P.LITERAL:
            for r in reversed(re.runes):
                if re.flags & P.FOLD_CASE:
                    nxt = self.char(T.clean([y for f in T.orbit(r) for y in (f, f)]), nxt)
                else:
                    nxt = self.char((r, r), nxt)
            return nxt
        if op == P.CHAR_CLASS:
            return self.char(re.runes, nxt)
        if op == P.ANY_NOT_NL:
            return self.char((0, 0x09, 0x0B, T.MAX_RUNE), nxt)
        if op == P.ANY_CHAR:
            return self.char((0, T.MAX_RUNE), nxt)
        if op in _ASSERTS:
            self.p.has_asserts = True
            return self.p.emit(ASSERT, nxt, arg=(_ASSERTS[op],))
        if op == P.CAPTURE:
            return self.node(re.sub[0], nxt)
        if op == P.CONCAT:
            for sub in reversed(re.sub):
                nxt = self.node(sub, nxt)
            return nxt
        if op == P.ALTERNATE:
            entry = self.node(re.sub[-1], nxt)
            for sub in reversed(re.sub[:-1]):
                entry = self.split(self.node(sub, nxt), entry)
            return entry
        greedy = not re.flags & P.NON_GREEDY
        if op == P.STAR:
            return self.loop(re.sub[0], nxt, greedy, plus=False)
        if op == P.PLUS:
            return self.loop(re.sub[0], nxt, greedy, plus=True)
        if op == P.QUEST:
            return self.optional(re.sub[0], nxt, greedy)
        if op == P.REPEAT:
            return self.repeat(re, nxt, greedy)
        raise ValueError(f"op {op}")

    def loop(self, sub: P.Node, nxt: int, greedy: bool, plus: bool) -> int:
        if not plus and nullable(sub):
            # compile.go's `star`: a loop over what can match empty is (x+)? so that priorities stay right
            # (golang.org/issue/46123: `(|a)*` on "aa" matches "")
            return self.optional_to_entry(self.loop(sub, nxt, greedy, plus=True), nxt, greedy)
        head = self.split(-1, -1)
        body = self.node(sub, head)
        p = self.p
        p.out[head], p.out1[head] = (body, nxt) if greedy else (nxt, body)
        return body if plus else head

    def optional_to_entry(self, body: int, nxt: int, greedy: bool) -> int:
        return self.split(body, nxt) if greedy else self.split(nxt, body)

    def optional(self, sub: P.Node, nxt: int, greedy: bool) -> int:
        body = self.node(sub, nxt)
        return self.split(body, nxt) if greedy else self.split(nxt, body)

    def repeat(self, re: P.Node, nxt: int, greedy: bool) -> int:
        """x{n,m}: n copies, then m-n nested optional ones (x(x(x)?)?)?; x{n,}: n-1 copies and x+ (x* if n=0)."""
        sub, lo, hi = re.sub[0], re.min, re.max
        if hi == -1:
            entry = self.loop(sub, nxt, greedy, plus=lo > 0)
            for _ in range(max(lo - 1, 0)):
                entry = self.node(sub, entry)
            return entry
        entry = nxt
        for _ in range(hi - lo):
            entry = self.optional_to(sub, entry, nxt, greedy)
        for _ in range(lo):
            entry = self.node(sub, entry)
        return entry

    def optional_to(self, sub: P.Node, then: int, skip: int, greedy: bool) -> int:
        body = self.node(sub, then)
        return self.split(body, skip) if greedy else self.split(skip, body)


def nullable(re: P.Node) -> bool:
    """Whether `re` can match the empty string (compile.go's `frag.nullable`)."""
    op = re.op
    if op in (P.LITERAL, P.CHAR_CLASS, P.ANY_CHAR, P.ANY_NOT_NL, P.NO_MATCH):
        return False
    if op in (P.CAPTURE, P.PLUS):
        return nullable(re.sub[0])
    if op == P.REPEAT:
        return re.min == 0 or nullable(re.sub[0])
    if op == P.CONCAT:
        return all(nullable(s) for s in re.sub)
    if op == P.ALTERNATE:
        return any(nullable(s) for s in re.sub)
    return True  # empty, assertions, star, quest


def compile_tree(re: P.Node) -> Program:
    """The program of a parsed pattern (recursion as deep as the tree: Go allows 1000 levels)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    try:
        c = _Compiler()
        c.p.start = c.node(re, c.match)
        return c.p
    finally:
        sys.setrecursionlimit(limit)


_MIRROR = {P.BEGIN_TEXT: P.END_TEXT, P.END_TEXT: P.BEGIN_TEXT, P.BEGIN_LINE: P.END_LINE, P.END_LINE: P.BEGIN_LINE}


def reversed_tree(re: P.Node) -> P.Node:
    """The pattern read right to left (`syntax.Compile`'s `reversed` programs, which RE2 runs backwards from a
    match's end to find its start): concatenations and literals reversed, begin and end assertions swapped."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    try:
        return _reverse(re)
    finally:
        sys.setrecursionlimit(limit)


def _reverse(re: P.Node) -> P.Node:
    out = P.Node(_MIRROR.get(re.op, re.op), re.flags)
    out.runes, out.min, out.max = re.runes, re.min, re.max
    if re.op == P.LITERAL:
        out.runes = list(reversed(re.runes))
    subs = [_reverse(s) for s in re.sub]
    out.sub = list(reversed(subs)) if re.op == P.CONCAT else subs
    return out
