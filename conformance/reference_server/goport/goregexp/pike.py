"""Where the leftmost-first match is: a Pike VM over program.py's NFA (Go's `regexp/exec.go`: `machine.step` and
`machine.add`, threads in priority order, a match cutting the lower-priority ones), so a match is Go's (the
leftmost start, then the first alternative in priority order) in O(text x program) time, never a backtracking
blow-up. The fallback of scan.py's scanners when their states thrash, and the reference they are tested against."""
from __future__ import annotations

from .program import CHAR, MATCH, Program, context, follow


def _add(p: Program, threads: list[tuple[int, int]], seen: set[int], pc: int, start: int, ctx: int) -> None:
    """Queue, in priority order, the rune readers and the match `pc` reaches, each with the match's `start`."""
    found: list[int] = []
    follow(p, pc, ctx, seen, found)
    threads.extend((t, start) for t in found)


def leftmost_first(p: Program, s: str, pos: int = 0) -> tuple[int, int] | None:
    """The (start, end) of the first match at or after `pos`, as Go's `doExecute` finds it."""
    n = len(s)
    matched: tuple[int, int] | None = None
    threads: list[tuple[int, int]] = []
    seen: set[int] = set()
    ctx = context(s, pos)
    for i in range(pos, n + 1):
        if matched is None:
            _add(p, threads, seen, p.start, i, ctx)
        if not threads:
            if matched is not None:
                break
            if i < n:
                ctx, seen = context(s, i + 1), set()
            continue
        c = s[i] if i < n else None
        nctx = context(s, i + 1) if i < n else 0
        nxt: list[tuple[int, int]] = []
        nseen: set[int] = set()
        for pc, start in threads:
            if p.kind[pc] == MATCH:
                matched = (start, i)
                break  # threads after this one have lower priority
            if c is not None and p.kind[pc] == CHAR and p.accepts(pc, c):
                _add(p, nxt, nseen, p.out[pc], start, nctx)
        threads, seen, ctx = nxt, nseen, nctx
    return matched
