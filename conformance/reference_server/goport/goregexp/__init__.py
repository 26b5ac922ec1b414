"""Go's `regexp` for every pattern the server judges: CRD schema `pattern`s (their errors when the CRD is written,
their matching on custom resource writes) and CEL's `matches`, `find` and `findAll`.

- parser.py: `regexp/syntax/parse.go` (Go 1.24, `syntax.Perl` flags as `regexp.Compile` uses), Go's error texts;
- tables.py: the Perl, POSIX and Unicode classes and case folding it reads;
- program.py: the parsed tree as an NFA program (`syntax/compile.go`);
- dfa.py: the match/no-match question in time linear in the text (a lazy DFA, as RE2's);
- scan.py: the leftmost-first match for `find`/`findAll` (DFAs over ordered threads, forward for the end and
  over the reversed program for the start: linear in the text, no backtracking);
- pike.py: the same answer by a Pike VM (slower; the reference the scanners are tested against).

Python's `re` is not used: it backtracks (exponential on `(a+)+$`), reads `$` as "before a final newline", and
has neither `\\pL`, `\\Q...\\E`, `(?U)` nor Go's ASCII `\\b`/`\\d`/`\\w`/`\\s`."""
from __future__ import annotations

import functools
import threading

from .dfa import DFA
from .parser import GoRegexpError, parse
from .program import Program, compile_tree, reversed_tree
from .pike import leftmost_first
from .scan import Scanner, Thrashing

__all__ = ["GoRegexpError", "Regexp", "compile", "error_text"]


class Regexp:
    """A compiled pattern (`*regexp.Regexp`), matched with Go's semantics. Safe for concurrent use, as Go's (which
    keeps a pool of matching machines): the lazy DFA and scanners, whose state caches grow as they match, are each
    thread's own (a write's validation may run in a rehearsal thread while the event loop matches the same
    pattern: http/rehearse.py)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.tree = parse(pattern)
        self._prog: Program | None = None
        self._machines = threading.local()  # .dfa: DFA, .scanners: (forward, backward) Scanner

    @property
    def prog(self) -> Program:
        """The NFA program, built on first match (a pattern only judged never pays for it)."""
        if self._prog is None:
            self._prog = compile_tree(self.tree)
        return self._prog

    def search(self, s: str) -> bool:
        """`MatchString`: whether the pattern matches anywhere in `s`."""
        dfa = getattr(self._machines, "dfa", None)
        if dfa is None:
            dfa = self._machines.dfa = DFA(self.prog)
        return dfa.search(s)

    def span(self, s: str, pos: int = 0) -> tuple[int, int] | None:
        """Go's leftmost-first match at or after `pos` (`doExecute`): its end by the forward scan, its start by the
        reversed program run back from that end."""
        scanners = getattr(self._machines, "scanners", None)
        if scanners is None:
            scanners = self._machines.scanners = (
                Scanner(self.prog, first=True, anchored=False),
                Scanner(compile_tree(reversed_tree(self.tree)), first=False, anchored=True))
        forward, backward = scanners
        before = s[pos - 1] if pos > 0 else None
        try:
            end = forward.scan(s, pos, len(s), before, None)
            if end < 0:
                return None
            back = s[pos:end][::-1]
            length = backward.scan(back, 0, len(back), s[end] if end < len(s) else None, before)
        except Thrashing:
            return leftmost_first(self.prog, s, pos)
        return end - length, end

    def find(self, s: str) -> str | None:
        """`FindString`'s match, None when there is none (Go's "" for both)."""
        if not self.search(s):
            return None
        span = self.span(s)
        return None if span is None else s[span[0]:span[1]]

    def find_all(self, s: str, n: int = -1) -> list[str]:
        """`FindAllString(s, n)`: successive non-overlapping matches, an empty one not right after a match."""
        if n == 0 or not self.search(s):
            return []
        limit = len(s) + 1 if n < 0 else n
        out: list[str] = []
        pos, prev_end = 0, -1
        while len(out) < limit and pos <= len(s):
            span = self.span(s, pos)
            if span is None:
                break
            start, end = span
            accept = True
            if end == pos:  # an empty match
                if start == prev_end:
                    accept = False
                pos += 1
            else:
                pos = end
            prev_end = end
            if accept:
                out.append(s[start:end])
        return out


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> Regexp | GoRegexpError:
    try:
        return Regexp(pattern)
    except GoRegexpError as exc:
        return exc


def compile(pattern: str) -> Regexp:  # regexp.Compile
    """`regexp.Compile(pattern)`; raises GoRegexpError (its `str()` is Go's message). Compiled patterns are kept."""
    got = _compiled(pattern)
    if isinstance(got, GoRegexpError):
        raise got
    return got


def error_text(pattern: str) -> str | None:
    """Go's `regexp.Compile` error text for `pattern`, None when Go compiles it."""
    got = _compiled(pattern)
    return str(got) if isinstance(got, GoRegexpError) else None
