"""Go's regular expression parser, `regexp/syntax/parse.go` (Go 1.24) with the flags `regexp.Compile` passes
(`syntax.Perl`: ClassNL | OneLine | PerlX | UnicodeGroups): the same grammar, the same parse stack (literal runs,
`|` merging single characters into classes, flattened concatenations and alternations) and the same errors,
`error parsing regexp: <code>: `<expr>``, including the limits (repeat counts of at most 1000 and their nested
product, 1000 levels of nesting, a compiled size of 128 MiB / 40-byte instructions, 32 Mi class runes).

Not ported: `factor` (common prefixes of an alternation pulled out), which changes the tree's shape but not what
it matches; the size and height limits are computed on the unfactored tree, a hair more generous than Go's on
an alternation of long shared prefixes. Invalid UTF-8 cannot reach us through JSON; a lone surrogate stands for it."""
from __future__ import annotations

from . import tables as T

# ops, in Go's order (mergeCharClass and swapVerticalBar compare them)
NO_MATCH, EMPTY, LITERAL, CHAR_CLASS, ANY_NOT_NL, ANY_CHAR, BEGIN_LINE, END_LINE, BEGIN_TEXT, END_TEXT, \
    WORD_BOUNDARY, NO_WORD_BOUNDARY, CAPTURE, STAR, PLUS, QUEST, REPEAT, CONCAT, ALTERNATE = range(1, 20)
LEFT_PAREN, VERTICAL_BAR = 128, 129

# flags
FOLD_CASE, LITERAL_FLAG, CLASS_NL, DOT_NL, ONE_LINE, NON_GREEDY, PERL_X, UNICODE_GROUPS, WAS_DOLLAR = \
    (1 << i for i in range(9))
PERL = CLASS_NL | ONE_LINE | PERL_X | UNICODE_GROUPS

MAX_REPEAT = 1000
MAX_HEIGHT = 1000
MAX_SIZE = (128 << 20) // 40
MAX_RUNES = (128 << 20) // 4

ERR_INVALID_CHAR_RANGE = "invalid character class range"
ERR_INVALID_ESCAPE = "invalid escape sequence"
ERR_INVALID_NAMED_CAPTURE = "invalid named capture"
ERR_INVALID_PERL_OP = "invalid or unsupported Perl syntax"
ERR_INVALID_REPEAT_OP = "invalid nested repetition operator"
ERR_INVALID_REPEAT_SIZE = "invalid repeat count"
ERR_INVALID_UTF8 = "invalid UTF-8"
ERR_MISSING_BRACKET = "missing closing ]"
ERR_MISSING_PAREN = "missing closing )"
ERR_MISSING_REPEAT_ARGUMENT = "missing argument to repetition operator"
ERR_TRAILING_BACKSLASH = "trailing backslash at end of expression"
ERR_UNEXPECTED_PAREN = "unexpected )"
ERR_NESTING_DEPTH = "expression nests too deeply"
ERR_LARGE = "expression too large"


class GoRegexpError(ValueError):
    """A pattern Go's `regexp.Compile` refuses; `str()` is Go's `*syntax.Error` text."""

    def __init__(self, code: str, expr: str) -> None:
        super().__init__(f"error parsing regexp: {code}: `{expr}`")
        self.code, self.expr = code, expr


class _Limit(Exception):
    def __init__(self, code: str) -> None:
        self.code = code


class Node:
    """A `syntax.Regexp`: `runes` holds a literal's runes or a class's flat [lo, hi, ...] ranges."""
    __slots__ = ("op", "sub", "runes", "flags", "min", "max", "cap", "name", "size", "height")

    def __init__(self, op: int, flags: int = 0) -> None:
        self.op, self.flags = op, flags
        self.sub: list[Node] = []
        self.runes: list[int] = []
        self.min = self.max = self.cap = 0
        self.name = ""
        self.size = self.height = -1  # the parser's memo (calcSize, calcHeight)

    def __repr__(self) -> str:
        return dump(self)


def _is_char_class(re: Node) -> bool:
    return (re.op == LITERAL and len(re.runes) == 1) or re.op in (CHAR_CLASS, ANY_NOT_NL, ANY_CHAR)


def _match_rune(re: Node, r: int) -> bool:
    if re.op == LITERAL:
        return len(re.runes) == 1 and re.runes[0] == r
    if re.op == CHAR_CLASS:
        return any(re.runes[i] <= r <= re.runes[i + 1] for i in range(0, len(re.runes), 2))
    if re.op == ANY_NOT_NL:
        return r != 0x0A
    return re.op == ANY_CHAR


def _append_literal(r: list[int], x: int, flags: int) -> list[int]:
    if flags & FOLD_CASE:
        return list(r) + [y for f in T.orbit(x) for y in (f, f)]
    return list(r) + [x, x]


def _merge_char_class(dst: Node, src: Node) -> None:
    if dst.op == ANY_CHAR:
        return
    if dst.op == ANY_NOT_NL:
        if _match_rune(src, 0x0A):
            dst.op = ANY_CHAR
    elif dst.op == CHAR_CLASS:
        dst.runes = _append_literal(dst.runes, src.runes[0], src.flags) if src.op == LITERAL \
            else list(dst.runes) + list(src.runes)
    elif dst.op == LITERAL:
        if src.runes[0] == dst.runes[0] and src.flags == dst.flags:
            return
        dst.op = CHAR_CLASS
        dst.runes = _append_literal(_append_literal([], dst.runes[0], dst.flags), src.runes[0], src.flags)


def _clean_alt(re: Node) -> None:
    if re.op == CHAR_CLASS:
        re.runes = list(T.clean(re.runes))
        if re.runes == [0, T.MAX_RUNE]:
            re.runes, re.op = [], ANY_CHAR
        elif re.runes == [0, 0x09, 0x0B, T.MAX_RUNE]:
            re.runes, re.op = [], ANY_NOT_NL


def _repeat_is_valid(re: Node, n: int) -> bool:
    if re.op == REPEAT:
        m = re.max
        if m == 0:
            return True
        if m < 0:
            m = re.min
        if m > n:
            return False
        if m > 0:
            n //= m
    return all(_repeat_is_valid(s, n) for s in re.sub)


def _min_fold_rune(r: int) -> int:
    return min(T.orbit(r))


def _unhex(c: str) -> int:
    return int(c, 16) if c in "0123456789abcdefABCDEF" and c else -1


class _Parser:
    def __init__(self, whole: str, flags: int) -> None:
        self.flags = flags
        self.stack: list[Node] = []
        self.num_cap = 0
        self.whole = whole
        self.num_regexp = 0
        self.num_runes = 0

    def new(self, op: int, flags: int = 0) -> Node:
        self.num_regexp += 1
        return Node(op, flags)

    # limits (checkLimits: runes, compiled size, height)
    def check_limits(self, re: Node) -> None:
        if self.num_runes > MAX_RUNES:
            raise _Limit(ERR_LARGE)
        if self.calc_size(re, True) > MAX_SIZE:
            raise _Limit(ERR_LARGE)
        if self.num_regexp >= MAX_HEIGHT and self.calc_height(re, True) > MAX_HEIGHT:
            raise _Limit(ERR_NESTING_DEPTH)

    def calc_size(self, re: Node, force: bool = False) -> int:
        if not force and re.size >= 0:
            return re.size
        op = re.op
        if op == LITERAL:
            size = len(re.runes)
        elif op in (CAPTURE, STAR):
            size = 2 + self.calc_size(re.sub[0])
        elif op in (PLUS, QUEST):
            size = 1 + self.calc_size(re.sub[0])
        elif op == CONCAT:
            size = sum(self.calc_size(s) for s in re.sub)
        elif op == ALTERNATE:
            size = sum(self.calc_size(s) for s in re.sub) + max(len(re.sub) - 1, 0)
        elif op == REPEAT:
            sub = self.calc_size(re.sub[0])
            if re.max == -1:
                size = 2 + sub if re.min == 0 else 1 + re.min * sub
            else:
                size = re.max * sub + (re.max - re.min)
        else:
            size = 0
        re.size = max(1, size)
        return re.size

    def calc_height(self, re: Node, force: bool = False) -> int:
        if not force and re.height >= 0:
            return re.height
        re.height = 1 + max((self.calc_height(s) for s in re.sub), default=0)
        return re.height

    # the parse stack
    def push(self, re: Node) -> Node | None:
        self.num_runes += len(re.runes)
        r = re.runes
        if re.op == CHAR_CLASS and len(r) == 2 and r[0] == r[1]:
            if self.maybe_concat(r[0], self.flags & ~FOLD_CASE):
                return None
            re.op, re.runes, re.flags = LITERAL, [r[0]], self.flags & ~FOLD_CASE
        elif re.op == CHAR_CLASS and ((len(r) == 4 and r[0] == r[1] and r[2] == r[3]
                                        and T.simple_fold(r[0]) == r[2] and T.simple_fold(r[2]) == r[0])
                                       or (len(r) == 2 and r[0] + 1 == r[1] and T.simple_fold(r[0]) == r[1]
                                           and T.simple_fold(r[1]) == r[0])):
            if self.maybe_concat(r[0], self.flags | FOLD_CASE):
                return None
            re.op, re.runes, re.flags = LITERAL, [r[0]], self.flags | FOLD_CASE
        else:
            self.maybe_concat(-1, 0)
        self.stack.append(re)
        self.check_limits(re)
        return re

    def maybe_concat(self, r: int, flags: int) -> bool:
        if len(self.stack) < 2:
            return False
        re1, re2 = self.stack[-1], self.stack[-2]
        if re1.op != LITERAL or re2.op != LITERAL or (re1.flags & FOLD_CASE) != (re2.flags & FOLD_CASE):
            return False
        re2.runes.extend(re1.runes)
        if r >= 0:
            re1.runes, re1.flags = [r], flags
            return True
        self.stack.pop()
        return False

    def literal(self, r: int) -> None:
        re = self.new(LITERAL, self.flags)
        re.runes = [_min_fold_rune(r) if self.flags & FOLD_CASE else r]
        self.push(re)

    def op(self, op: int) -> Node | None:
        return self.push(self.new(op, self.flags))

    def repeat(self, op: int, lo: int, hi: int, before: int, after: int, last_repeat: int, s: str) -> int:
        """`repeat`: positions into `s` (before: the operator's start; after: just past it)."""
        flags = self.flags
        if after < len(s) and s[after] == "?":
            after += 1
            flags ^= NON_GREEDY
        if last_repeat >= 0:
            raise GoRegexpError(ERR_INVALID_REPEAT_OP, s[last_repeat:after])
        if not self.stack or self.stack[-1].op >= LEFT_PAREN:
            raise GoRegexpError(ERR_MISSING_REPEAT_ARGUMENT, s[before:after])
        re = self.new(op, flags)
        re.min, re.max, re.sub = lo, hi, [self.stack[-1]]
        self.stack[-1] = re
        self.check_limits(re)
        if op == REPEAT and (lo >= 2 or hi >= 2) and not _repeat_is_valid(re, MAX_REPEAT):
            raise GoRegexpError(ERR_INVALID_REPEAT_SIZE, s[before:after])
        return after

    def concat(self) -> Node | None:
        self.maybe_concat(-1, 0)
        i = len(self.stack)
        while i > 0 and self.stack[i - 1].op < LEFT_PAREN:
            i -= 1
        subs = self.stack[i:]
        del self.stack[i:]
        if not subs:
            return self.push(self.new(EMPTY))
        return self.push(self.collapse(subs, CONCAT))

    def alternate(self) -> Node | None:
        i = len(self.stack)
        while i > 0 and self.stack[i - 1].op < LEFT_PAREN:
            i -= 1
        subs = self.stack[i:]
        del self.stack[i:]
        if subs:
            _clean_alt(subs[-1])
        if not subs:
            return self.push(self.new(NO_MATCH))
        return self.push(self.collapse(subs, ALTERNATE))

    def collapse(self, subs: list[Node], op: int) -> Node:
        if len(subs) == 1:
            return subs[0]
        re = self.new(op)
        for sub in subs:
            re.sub.extend(sub.sub if sub.op == op else [sub])
        if op == ALTERNATE:
            re.sub = self.merge_classes(re.sub)
            if len(re.sub) == 1:
                return re.sub[0]
        return re

    def merge_classes(self, sub: list[Node]) -> list[Node]:
        """`factor`'s rounds 3 and 4: runs of single characters and classes become one class; runs of empty
        matches one."""
        out: list[Node] = []
        run: list[Node] = []
        for re in sub + [None]:  # type: ignore[list-item]
            if re is not None and _is_char_class(re):
                run.append(re)
                continue
            if len(run) == 1:
                out.append(run[0])
            elif run:
                best = max(range(len(run)), key=lambda j: (run[j].op, len(run[j].runes), -j))
                head = run[best]
                for j, other in enumerate(run):
                    if j != best:
                        _merge_char_class(head, other)
                _clean_alt(head)
                out.append(head)
            run = []
            if re is not None:
                out.append(re)
        return [re for i, re in enumerate(out)
                if not (i + 1 < len(out) and re.op == EMPTY and out[i + 1].op == EMPTY)]

    def swap_vertical_bar(self) -> bool:
        st = self.stack
        n = len(st)
        if n >= 3 and st[n - 2].op == VERTICAL_BAR and _is_char_class(st[n - 1]) and _is_char_class(st[n - 3]):
            re1, re3 = st[n - 1], st[n - 3]
            if re1.op > re3.op:
                re1, re3 = re3, re1
                st[n - 3] = re3
            _merge_char_class(re3, re1)
            st.pop()
            return True
        if n >= 2 and st[n - 2].op == VERTICAL_BAR:
            if n >= 3:
                _clean_alt(st[n - 3])
            st[n - 2], st[n - 1] = st[n - 1], st[n - 2]
            return True
        return False

    def vertical_bar(self) -> None:
        self.concat()
        if not self.swap_vertical_bar():
            self.op(VERTICAL_BAR)

    def right_paren(self) -> None:
        self.concat()
        if self.swap_vertical_bar():
            self.stack.pop()
        self.alternate()
        if len(self.stack) < 2:
            raise GoRegexpError(ERR_UNEXPECTED_PAREN, self.whole)
        re1, re2 = self.stack.pop(), self.stack.pop()
        if re2.op != LEFT_PAREN:
            raise GoRegexpError(ERR_UNEXPECTED_PAREN, self.whole)
        self.flags = re2.flags
        if re2.cap == 0:
            self.push(re1)
        else:
            re2.op, re2.sub = CAPTURE, [re1]
            self.push(re2)

    # pieces
    def perl_flags(self, s: str, i: int) -> int:
        """`parsePerlFlags` at s[i:] == '(?...'; returns the position after what it read."""
        t = s[i:]
        starts_p = len(t) > 4 and t[2] == "P" and t[3] == "<"
        starts_name = len(t) > 3 and t[2] == "<"
        if starts_p or starts_name:
            expr_start = 4 if starts_p else 3
            end = t.find(">")
            if end < 0:
                _check_utf8(t)
                raise GoRegexpError(ERR_INVALID_NAMED_CAPTURE, t)
            capture, name = t[:end + 1], t[expr_start:end]
            _check_utf8(name)
            if not name or not all(c == "_" or (c.isascii() and c.isalnum()) for c in name):
                raise GoRegexpError(ERR_INVALID_NAMED_CAPTURE, capture)
            self.num_cap += 1
            re = self.op(LEFT_PAREN)
            assert re is not None
            re.cap, re.name = self.num_cap, name
            return i + end + 1
        j = i + 2
        flags, sign, saw_flag = self.flags, +1, False
        while j < len(s):
            c = s[j]
            _check_rune(s, j)
            j += 1
            if c == "i":
                flags |= FOLD_CASE
                saw_flag = True
            elif c == "m":
                flags &= ~ONE_LINE
                saw_flag = True
            elif c == "s":
                flags |= DOT_NL
                saw_flag = True
            elif c == "U":
                flags |= NON_GREEDY
                saw_flag = True
            elif c == "-":
                if sign < 0:
                    break
                sign, flags, saw_flag = -1, ~flags, False
            elif c in ":)":
                if sign < 0:
                    if not saw_flag:
                        break
                    flags = ~flags
                if c == ":":
                    self.op(LEFT_PAREN)
                self.flags = flags
                return j
            else:
                break
        raise GoRegexpError(ERR_INVALID_PERL_OP, s[i:j])

    def escape(self, s: str, i: int) -> tuple[int, int]:
        """`parseEscape` at s[i] == '\\': the rune and the position after it."""
        j = i + 1
        if j >= len(s):
            raise GoRegexpError(ERR_TRAILING_BACKSLASH, "")
        _check_rune(s, j)
        c = s[j]
        j += 1
        if c.isascii() and not c.isalnum():
            return ord(c), j
        if c in "1234567" and not (j < len(s) and "0" <= s[j] <= "7"):
            raise GoRegexpError(ERR_INVALID_ESCAPE, s[i:j])
        if c in "01234567":
            r = ord(c) - 48
            for _ in range(2):
                if j >= len(s) or not "0" <= s[j] <= "7":
                    break
                r = r * 8 + ord(s[j]) - 48
                j += 1
            return r, j
        if c == "x":
            def rune_at(k: int) -> tuple[str, int]:
                """`nextRune` inside the escape: the pattern's end there is an invalid escape."""
                if k >= len(s):
                    raise GoRegexpError(ERR_INVALID_ESCAPE, s[i:k])
                _check_rune(s, k)
                return s[k], k + 1
            c, j = rune_at(j)
            if c == "{":
                nhex, r = 0, 0
                while True:
                    c, j = rune_at(j)
                    if c == "}":
                        break
                    v = _unhex(c)
                    if v < 0:
                        raise GoRegexpError(ERR_INVALID_ESCAPE, s[i:j])
                    r = r * 16 + v
                    if r > T.MAX_RUNE:
                        raise GoRegexpError(ERR_INVALID_ESCAPE, s[i:j])
                    nhex += 1
                if nhex == 0:
                    raise GoRegexpError(ERR_INVALID_ESCAPE, s[i:j])
                return r, j
            x = _unhex(c)
            c, j = rune_at(j)  # at the end: nextRune("") decodes RuneError, not a hex digit
            y = _unhex(c)
            if x < 0 or y < 0:
                raise GoRegexpError(ERR_INVALID_ESCAPE, s[i:j])
            return x * 16 + y, j
        simple = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
        if c in simple:
            return simple[c], j
        raise GoRegexpError(ERR_INVALID_ESCAPE, s[i:j])

    def append_group(self, r: list[int], group: tuple[int, tuple[int, ...]]) -> list[int]:
        sign, cls = group
        if self.flags & FOLD_CASE:
            cls = T.folded(cls)
        return r + list(T.negate(cls) if sign < 0 else cls)

    def perl_class_escape(self, s: str, i: int, r: list[int]) -> tuple[list[int], int] | None:
        g = T.PERL_GROUPS.get(s[i:i + 2])
        if s[i:i + 1] != "\\" or g is None:
            return None
        return self.append_group(r, g), i + 2

    def named_class(self, s: str, i: int, r: list[int]) -> tuple[list[int], int] | None:
        if s[i:i + 2] != "[:":
            return None
        k = s.find(":]", i + 2)
        if k < 0:
            return None
        name = s[i:k + 2]
        g = T.POSIX_GROUPS.get(name)
        if g is None:
            raise GoRegexpError(ERR_INVALID_CHAR_RANGE, name)
        return self.append_group(r, g), k + 2

    def unicode_class(self, s: str, i: int, r: list[int]) -> tuple[list[int], int] | None:
        if not (self.flags & UNICODE_GROUPS) or s[i:i + 1] != "\\" or s[i + 1:i + 2] not in ("p", "P"):
            return None
        sign = -1 if s[i + 1] == "P" else +1
        j = i + 2
        if j < len(s):
            _check_rune(s, j)
        c = s[j] if j < len(s) else "\ufffd"
        if c != "{":
            end = min(j + 1, len(s))
            seq, name, nxt = s[i:end], s[i + 2:end], end
        else:
            end = s.find("}", i)
            if end < 0:
                _check_utf8(s[i:])
                raise GoRegexpError(ERR_INVALID_CHAR_RANGE, s[i:])
            seq, name, nxt = s[i:end + 1], s[i + 3:end], end + 1
            _check_utf8(name)
        if name.startswith("^"):
            sign, name = -sign, name[1:]
        if name == "Any":
            table: tuple[int, ...] = (0, T.MAX_RUNE)
        elif name in T.CATEGORIES:
            table = T.category(name)
        elif name in T.SCRIPTS:
            table = T.script(name)
        else:
            raise GoRegexpError(ERR_INVALID_CHAR_RANGE, seq)
        if self.flags & FOLD_CASE:
            table = T.folded(table)
        got = table if sign > 0 else T.negate(table)
        return (list(r) + list(got) if r else got), nxt  # type: ignore[return-value]  # shared, never mutated

    def class_char(self, s: str, i: int, whole_start: int) -> tuple[int, int]:
        if i >= len(s):
            raise GoRegexpError(ERR_MISSING_BRACKET, s[whole_start:])
        if s[i] == "\\":
            return self.escape(s, i)
        _check_rune(s, i)
        return ord(s[i]), i + 1

    def parse_class(self, s: str, i: int) -> int:
        start = i
        j = i + 1
        re = self.new(CHAR_CLASS, self.flags)
        cls: list[int] = []
        sign = +1
        if j < len(s) and s[j] == "^":
            sign = -1
            j += 1
            if not self.flags & CLASS_NL:
                cls += [0x0A, 0x0A]
        first = True
        while j >= len(s) or s[j] != "]" or first:
            first = False
            if len(s) - j > 2 and s[j] == "[" and s[j + 1] == ":":
                got = self.named_class(s, j, cls)
                if got is not None:
                    cls, j = got
                    continue
            got = self.unicode_class(s, j, cls)
            if got is not None:
                cls, j = got
                continue
            got = self.perl_class_escape(s, j, cls)
            if got is not None:
                cls, j = got
                continue
            rng = j
            lo, j = self.class_char(s, j, start)
            hi = lo
            if len(s) - j >= 2 and s[j] == "-" and s[j + 1] != "]":
                hi, j = self.class_char(s, j + 1, start)
                if hi < lo:
                    raise GoRegexpError(ERR_INVALID_CHAR_RANGE, s[rng:j])
            if self.flags & FOLD_CASE:
                cls += list(T.folded((lo, hi)))
            else:
                cls += [lo, hi]
        j += 1
        out = T.clean(cls)
        re.runes = list(T.negate(out) if sign < 0 else out)
        self.push(re)
        return j

    def parse_repeat(self, s: str, i: int) -> tuple[int, int, int] | None:
        """`parseRepeat` at s[i] == '{': (min, max, after) or None for a literal `{`; min -1 when too big."""
        def parse_int(k: int) -> tuple[int, int] | None:
            if k >= len(s) or not "0" <= s[k] <= "9":
                return None
            if s[k] == "0" and k + 1 < len(s) and "0" <= s[k + 1] <= "9":
                return None  # no leading zeros
            e = k
            while e < len(s) and "0" <= s[e] <= "9":
                e += 1
            return (int(s[k:e]) if e - k <= 9 else -1), e  # Go gives up (-1) past 1e8
        got = parse_int(i + 1)
        if got is None:
            return None
        lo, k = got
        if k >= len(s):
            return None
        if s[k] != ",":
            hi = lo
        else:
            k += 1
            if k >= len(s):
                return None
            if s[k] == "}":
                hi = -1
            else:
                got = parse_int(k)
                if got is None:
                    return None
                hi, k = got
                if hi < 0:
                    lo = -1
        if k >= len(s) or s[k] != "}":
            return None
        return lo, hi, k + 1

    def parse(self, s: str) -> Node:
        i, last_repeat = 0, -1
        n = len(s)
        while i < n:
            repeat = -1
            c = s[i]
            if c == "(":
                if self.flags & PERL_X and i + 1 < n and s[i + 1] == "?":
                    i = self.perl_flags(s, i)
                else:
                    self.num_cap += 1
                    re = self.op(LEFT_PAREN)
                    assert re is not None
                    re.cap = self.num_cap
                    i += 1
            elif c == "|":
                self.vertical_bar()
                i += 1
            elif c == ")":
                self.right_paren()
                i += 1
            elif c == "^":
                self.op(BEGIN_TEXT if self.flags & ONE_LINE else BEGIN_LINE)
                i += 1
            elif c == "$":
                if self.flags & ONE_LINE:
                    re = self.op(END_TEXT)
                    assert re is not None
                    re.flags |= WAS_DOLLAR
                else:
                    self.op(END_LINE)
                i += 1
            elif c == ".":
                self.op(ANY_CHAR if self.flags & DOT_NL else ANY_NOT_NL)
                i += 1
            elif c == "[":
                i = self.parse_class(s, i)
            elif c in "*+?":
                op = {"*": STAR, "+": PLUS, "?": QUEST}[c]
                after = self.repeat(op, 0, 0, i, i + 1, last_repeat, s)
                repeat, i = i, after
            elif c == "{":
                got = self.parse_repeat(s, i)
                if got is None:
                    self.literal(ord("{"))
                    i += 1
                else:
                    lo, hi, after = got
                    if lo < 0 or lo > MAX_REPEAT or hi > MAX_REPEAT or (hi >= 0 and lo > hi):
                        raise GoRegexpError(ERR_INVALID_REPEAT_SIZE, s[i:after])
                    after = self.repeat(REPEAT, lo, hi, i, after, last_repeat, s)
                    repeat, i = i, after
            elif c == "\\":
                i = self.backslash(s, i)
            else:
                _check_rune(s, i)
                self.literal(ord(c))
                i += 1
            last_repeat = repeat
        self.concat()
        if self.swap_vertical_bar():
            self.stack.pop()
        self.alternate()
        if len(self.stack) != 1:
            raise GoRegexpError(ERR_MISSING_PAREN, s)
        return self.stack[0]

    def backslash(self, s: str, i: int) -> int:
        nxt = s[i + 1:i + 2]
        if self.flags & PERL_X and nxt:
            if nxt in "AbBz":
                self.op({"A": BEGIN_TEXT, "b": WORD_BOUNDARY, "B": NO_WORD_BOUNDARY, "z": END_TEXT}[nxt])
                return i + 2
            if nxt == "C":
                raise GoRegexpError(ERR_INVALID_ESCAPE, s[i:i + 2])
            if nxt == "Q":
                end = s.find("\\E", i + 2)
                lit = s[i + 2:] if end < 0 else s[i + 2:end]
                for k, ch in enumerate(lit):
                    _check_rune(lit, k)
                    self.literal(ord(ch))
                return len(s) if end < 0 else end + 2
        got = self.unicode_class(s, i, [])
        if got is None:
            got = self.perl_class_escape(s, i, []) if self.flags & PERL_X else None
        if got is not None:
            re = self.new(CHAR_CLASS, self.flags)
            re.runes, i = got
            self.push(re)
            return i
        r, i = self.escape(s, i)
        self.literal(r)
        return i


def _check_rune(s: str, i: int) -> None:
    """`nextRune`'s invalid UTF-8: here a lone surrogate (what an undecodable byte becomes in a Python str)."""
    if 0xD800 <= ord(s[i]) <= 0xDFFF:
        raise GoRegexpError(ERR_INVALID_UTF8, s[i:])


def _check_utf8(s: str) -> None:
    for k in range(len(s)):
        _check_rune(s, k)


def parse(pattern: str, flags: int = PERL) -> Node:
    """`syntax.Parse(pattern, flags)`; raises GoRegexpError with Go's text."""
    p = _Parser(pattern, flags)
    try:
        return p.parse(pattern)
    except _Limit as exc:
        raise GoRegexpError(exc.code, pattern) from None
    except RecursionError:
        raise GoRegexpError(ERR_NESTING_DEPTH, pattern) from None


_NAMES = {NO_MATCH: "no", EMPTY: "emp", LITERAL: "lit", CHAR_CLASS: "cc", ANY_NOT_NL: "dnl", ANY_CHAR: "dot",
          BEGIN_LINE: "bol", END_LINE: "eol", BEGIN_TEXT: "bot", END_TEXT: "eot", WORD_BOUNDARY: "wb",
          NO_WORD_BOUNDARY: "nwb", CAPTURE: "cap", STAR: "star", PLUS: "plus", QUEST: "que", REPEAT: "rep",
          CONCAT: "cat", ALTERNATE: "alt"}


def dump(re: Node) -> str:
    """parse_test.go's `dump`: the tree's shape, for tests."""
    name = _NAMES.get(re.op, f"op{re.op}")
    if re.op in (STAR, PLUS, QUEST, REPEAT) and re.flags & NON_GREEDY:
        name = "n" + name
    if re.op == LITERAL:
        name = "str" if len(re.runes) > 1 else "lit"
        if re.flags & FOLD_CASE and any(T.simple_fold(r) != r for r in re.runes):
            name += "fold"
    if re.op == END_TEXT:
        body = "" if re.flags & WAS_DOLLAR else "\\z"
    elif re.op == LITERAL:
        body = "".join(map(chr, re.runes))
    elif re.op in (CONCAT, ALTERNATE):
        body = "".join(dump(s) for s in re.sub)
    elif re.op in (STAR, PLUS, QUEST):
        body = dump(re.sub[0])
    elif re.op == REPEAT:
        body = f"{re.min},{re.max} {dump(re.sub[0])}"
    elif re.op == CAPTURE:
        body = (re.name + ":" if re.name else "") + dump(re.sub[0])
    elif re.op == CHAR_CLASS:
        body = " ".join(f"{lo:#x}" if lo == hi else f"{lo:#x}-{hi:#x}"
                        for lo, hi in zip(re.runes[0::2], re.runes[1::2]))
    else:
        body = ""
    return f"{name}{{{body}}}"
