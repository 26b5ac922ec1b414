"""Label selectors as apimachinery's `labels.Parse` reads them, branch for branch.

Follows staging/src/k8s.io/apimachinery/pkg/labels/selector.go (1.33): the `Lexer` (`Lex`, `scanIDOrKeyword`,
`scanSpecialSymbol`; a NUL character ends the selector as Go's `read` returning 0 does), the `Parser` (`parse`,
`parseRequirement`, `parseKeyAndInferOperator`, `parseOperator`, `parseValues`, `parseIdentifiersList`,
`parseExactValue`, with `in`/`notin` read as identifiers where values are expected), `NewRequirement`'s checks
(values validated as the sorted set, `values[i][key]`, aggregated) and `Requirement.Matches` (`gt`/`lt` compare
`strconv.ParseInt` values). Every error text is upstream's, so the list handler's 400 carries it unchanged
(`Convert_string_To_labels_Selector` returns the parser's error; get.go wraps it in `NewBadRequest`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..apierrors import FieldError, aggregate, field_invalid
from .validation import is_label_value, is_qualified_name

__all__ = ["LabelRequirement", "SelectorSyntaxError", "parse"]


class SelectorSyntaxError(ValueError):
    """A selector `labels.Parse` refuses; `str()` is upstream's error text."""


# Tokens (`Token`), in upstream's order.
_ERROR, _EOS, _CLOSE, _COMMA, _NOT, _DEQ, _EQ, _GT, _IDENT, _IN, _LT, _NEQ, _NOTIN, _OPEN = range(14)
_STRING2TOKEN = {")": _CLOSE, ",": _COMMA, "!": _NOT, "==": _DEQ, "=": _EQ, ">": _GT, "in": _IN, "<": _LT,
                 "!=": _NEQ, "notin": _NOTIN, "(": _OPEN}
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")
_NUL = "\0"
# `parseOperator`'s tokens → `selection.Operator`; its error lists `binaryOperators`.
_OPERATORS = {_IN: "in", _NOTIN: "notin", _EQ: "=", _DEQ: "==", _NEQ: "!=", _GT: "gt", _LT: "lt"}
_BINARY = "in, notin, =, ==, !=, gt, lt"
_INT64 = re.compile(r"[+-]?[0-9]+\Z")


def _lex(s: str) -> list[tuple[int, str]]:
    """`Parser.scan`: every token up to and including the end of string."""
    pos, n = 0, len(s)
    out: list[tuple[int, str]] = []

    def read() -> str:  # `Lexer.read`: 0 at the end (not advancing), else the character
        nonlocal pos
        if pos < n:
            pos += 1
            return s[pos - 1]
        return _NUL

    while True:
        ch = read()
        while ch in _WHITESPACE:  # `skipWhiteSpaces`
            ch = read()
        if ch == _NUL:
            out.append((_EOS, ""))
            return out
        pos -= 1
        buf = ""
        if ch in _SPECIAL:  # `scanSpecialSymbol`: the longest run of symbols that is a token
            last: tuple[int, str] | None = None
            while True:
                ch = read()
                if ch == _NUL:
                    break
                if ch not in _SPECIAL:
                    pos -= 1
                    break
                buf += ch
                if buf in _STRING2TOKEN:
                    last = (_STRING2TOKEN[buf], buf)
                elif last is not None:
                    pos -= 1
                    break
            out.append(last if last is not None else (_ERROR, f"error expected: keyword found '{buf}'"))
        else:  # `scanIDOrKeyword`
            while True:
                ch = read()
                if ch == _NUL:
                    break
                if ch in _SPECIAL or ch in _WHITESPACE:
                    pos -= 1
                    break
                buf += ch
            out.append((_STRING2TOKEN.get(buf, _IDENT), buf))


def go_parse_int(s: str) -> int | None:
    """`strconv.ParseInt(s, 10, 64)`: an optional sign, decimal digits, within int64; None when it fails."""
    if not _INT64.match(s):
        return None
    v = int(s)
    return v if -(1 << 63) <= v < (1 << 63) else None


@dataclass(frozen=True)
class LabelRequirement:
    """`labels.Requirement`: `op` is the `selection.Operator` (`exists` and `!` for the unary ones)."""

    key: str
    op: str
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        """`Requirement.Matches`."""
        if self.op in ("in", "=", "=="):
            return self.key in labels and labels[self.key] in self.values
        if self.op in ("notin", "!="):
            return self.key not in labels or labels[self.key] not in self.values
        if self.op == "exists":
            return self.key in labels
        if self.op == "!":
            return self.key not in labels
        if self.key not in labels or len(self.values) != 1:  # gt, lt
            return False
        have, bound = go_parse_int(labels[self.key]), go_parse_int(self.values[0])
        if have is None or bound is None:
            return False
        return have > bound if self.op == "gt" else have < bound


def _new_requirement(key: str, op: str, values: list[str]) -> LabelRequirement:
    """`NewRequirement(key, op, vals, field.WithPath(nil))` for what the parser hands it (the key is valid)."""
    errs: list[FieldError] = []
    if op in ("gt", "lt"):
        errs += [field_invalid(f"values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer")
                 for i, v in enumerate(values) if go_parse_int(v) is None]
    for i, v in enumerate(values):
        bad = is_label_value(v)
        if bad:
            errs.append(field_invalid(f"values[{i}][{key}]", v, "; ".join(bad)))
    if errs:
        raise SelectorSyntaxError(aggregate(errs))
    return LabelRequirement(key, op, tuple(values))


class _Parser:
    def __init__(self, selector: str) -> None:
        self.items = _lex(selector)
        self.position = 0

    def lookahead(self, values: bool) -> tuple[int, str]:
        tok, lit = self.items[self.position]
        if values and tok in (_IN, _NOTIN):  # `Values` context: `in`/`notin` are identifiers
            tok = _IDENT
        return tok, lit

    def consume(self, values: bool) -> tuple[int, str]:
        out = self.lookahead(values)
        self.position += 1
        return out

    def parse(self) -> list[LabelRequirement]:
        reqs: list[LabelRequirement] = []
        while True:
            tok, lit = self.lookahead(True)
            if tok in (_IDENT, _NOT):
                try:
                    reqs.append(self.requirement())
                except SelectorSyntaxError as e:
                    raise SelectorSyntaxError(f"unable to parse requirement: {e}") from None
                t, l = self.consume(True)
                if t == _EOS:
                    return reqs
                if t != _COMMA:
                    raise SelectorSyntaxError(f"found '{l}', expected: ',' or 'end of string'")
                t2, l2 = self.lookahead(True)
                if t2 not in (_IDENT, _NOT):
                    raise SelectorSyntaxError(f"found '{l2}', expected: identifier after ','")
            elif tok == _EOS:
                return reqs
            else:
                raise SelectorSyntaxError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def requirement(self) -> LabelRequirement:
        """`parseRequirement` with `parseKeyAndInferOperator` and `parseOperator`."""
        op = ""
        tok, key = self.consume(True)
        if tok == _NOT:
            op = "!"
            tok, key = self.consume(True)
        if tok != _IDENT:
            raise SelectorSyntaxError(f"found '{key}', expected: identifier")
        bad = is_qualified_name(key)  # `validateLabelKey(k, nil)`
        if bad:
            raise SelectorSyntaxError(str(field_invalid("<nil>", key, "; ".join(bad))))
        if self.lookahead(True)[0] in (_EOS, _COMMA) and op != "!":
            op = "exists"
        if op:  # `!key` takes no operator: what follows it is the next requirement's business
            return _new_requirement(key, op, [])
        tok, lit = self.consume(False)
        if tok not in _OPERATORS:
            raise SelectorSyntaxError(f"found '{lit}', expected: {_BINARY}")
        op = _OPERATORS[tok]
        values = self.values() if op in ("in", "notin") else self.exact_value()
        return _new_requirement(key, op, sorted(values))  # `values.List()`: the set, sorted

    def values(self) -> set[str]:
        """`parseValues`: `()` is the set {""}."""
        tok, lit = self.consume(True)
        if tok != _OPEN:
            raise SelectorSyntaxError(f"found '{lit}' expected: '('")
        tok, lit = self.lookahead(True)
        if tok == _CLOSE:
            self.consume(True)
            return {""}
        if tok not in (_IDENT, _COMMA):
            raise SelectorSyntaxError(f"found '{lit}', expected: ',', ')' or identifier")
        out = self.identifiers()
        self.consume(True)  # `parseIdentifiersList` returns only with `)` next
        return out

    def identifiers(self) -> set[str]:
        """`parseIdentifiersList`: a leading, trailing or doubled comma adds "" (a doubled one is read as one
        piece, so `(a,,)` ends in a comma before `)`: refused)."""
        out: set[str] = set()
        while True:
            tok, lit = self.consume(True)
            if tok == _IDENT:
                out.add(lit)
                tok2, lit2 = self.lookahead(True)
                if tok2 == _CLOSE:
                    return out
                if tok2 != _COMMA:
                    raise SelectorSyntaxError(f"found '{lit2}', expected: ',' or ')'")
            elif tok == _COMMA:
                if not out:
                    out.add("")
                tok2 = self.lookahead(True)[0]
                if tok2 == _CLOSE:
                    out.add("")
                    return out
                if tok2 == _COMMA:  # 1.33 consumes the second comma too: `(a,,)` is then refused at `)`
                    self.consume(True)
                    out.add("")
            else:
                raise SelectorSyntaxError(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        """`parseExactValue`: nothing before `,` or the end is the empty value."""
        if self.lookahead(True)[0] in (_EOS, _COMMA):
            return {""}
        tok, lit = self.consume(True)
        if tok == _IDENT:
            return {lit}
        raise SelectorSyntaxError(f"found '{lit}', expected: identifier")


def parse(selector: str) -> list[LabelRequirement]:
    """`labels.Parse(selector)`: the requirements (ANDed), or `SelectorSyntaxError` with upstream's text."""
    return _Parser(selector).parse()
