"""Field selectors as apimachinery's `fields.ParseSelector` reads them.

Follows staging/src/k8s.io/apimachinery/pkg/fields/selector.go (1.33): `splitTerms` (a backslash keeps the next
character, so `\\,` is no separator), the terms sorted (`sort.StringSlice`), empty ones skipped, `splitTerm` (the
first `!=`, `==` or `=`; the field keeps its spaces), `UnescapeValue` (`\\\\`, `\\,`, `\\=` only; a bare `=` is
refused with its code point, as `%v` of a rune prints it); a term with neither field nor value (`=`, `!=`) is
dropped, as `ParseSelector`'s own `Transform` drops it, before any field label is checked. The terms come back in that sorted order, the order in
which get.go's `FieldSelector.Transform` meets an unsupported field label.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..goport.gonet.strconv import to_bytes
from .labelselector import SelectorSyntaxError

__all__ = ["FieldTerm", "escape_value", "parse", "term_text", "unescape_value"]

_OPERATORS = ("!=", "==", "=")  # `termOperators`: `==` before `=`, so no `=` is left on the value


@dataclass(frozen=True)
class FieldTerm:
    """`hasTerm` (`op` "=", for `=` and `==`) or `notHasTerm` (`op` "!=")."""

    field: str
    op: str
    value: str


def _split_terms(selector: str) -> list[str]:
    """`splitTerms`: the comma-separated terms, escaped commas kept (with their backslash)."""
    if not selector:
        return []
    terms, start, in_slash = [], 0, False
    for i, c in enumerate(selector):
        if in_slash:
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c == ",":
            terms.append(selector[start:i])
            start = i + 1
    terms.append(selector[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    """`splitTerm`: the field, operator and raw value at the first operator."""
    for i in range(len(term)):
        for op in _OPERATORS:
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op):]
    return None


def unescape_value(s: str) -> str:
    """`UnescapeValue`: refuses an unknown escape, a trailing backslash, and a bare `,` or `=`."""
    if not any(c in s for c in "\\,="):
        return s
    out, in_slash = [], False
    for c in s:
        if in_slash:
            if c not in "\\,=":
                raise SelectorSyntaxError(f"invalid field selector: invalid escape sequence: \\{c}")
            out.append(c)
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c in ",=":
            raise SelectorSyntaxError(f"invalid field selector: unescaped character in value: {ord(c)}")
        else:
            out.append(c)
    if in_slash:
        raise SelectorSyntaxError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def escape_value(s: str) -> str:
    """`EscapeValue`: `\\`, `,` and `=` escaped, so the term reads back as it was (`hasTerm.String`)."""
    if not any(c in s for c in "\\,="):
        return s
    return s.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def term_text(term: FieldTerm) -> str:
    """`hasTerm.String` / `notHasTerm.String`: the term as a selector writes it."""
    return f"{term.field}{term.op}{escape_value(term.value)}"


def parse(selector: str) -> list[FieldTerm]:
    """`fields.ParseSelector(selector)`: the terms in upstream's (sorted) order, or `SelectorSyntaxError`."""
    out: list[FieldTerm] = []
    parts = _split_terms(selector)
    # `sort.StringSlice` compares bytes: a query's byte that is not UTF-8 (surrogate-escaped) sorts by its value
    for part in sorted(parts) if selector.isascii() else sorted(parts, key=to_bytes):
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise SelectorSyntaxError(f"invalid selector: '{selector}'; can't understand '{part}'")
        field, op, raw = split
        value = unescape_value(raw)
        if field or value:  # `Transform` of a term with neither is `Everything()`
            out.append(FieldTerm(field, "!=" if op == "!=" else "=", value))
    return out
