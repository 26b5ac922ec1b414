"""Go's `regexp.Compile` errors for a CRD schema's `pattern` (`regexp/syntax/parse.go`): the error kinds a schema
author meets, with Go's text `error parsing regexp: <code>: `<expr>``. RE2 syntax Go accepts is accepted here;
a pattern Go would refuse for a reason not scanned here (e.g. an invalid character class name) is accepted."""
from __future__ import annotations

_REPEAT = "*+?"


def _repeat_len(p: str, i: int) -> int:
    """Length of the repetition operator at p[i] (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe `?`), or 0."""
    if p[i] in _REPEAT:
        n = 1
    elif p[i] == "{":
        j = p.find("}", i)
        body = p[i + 1:j] if j > 0 else ""
        lo, _, hi = body.partition(",")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            return 0  # a literal `{`
        n = j - i + 1
    else:
        return 0
    return n + 1 if i + n < len(p) and p[i + n] == "?" else n


def regexp_error(p: str) -> str | None:
    """`regexp.Compile(p)`'s error text, or None when Go would compile it."""
    def err(code: str, expr: str) -> str:
        return f"error parsing regexp: {code}: `{expr}`"
    depth, i, can_repeat, last_repeat = 0, 0, False, -1
    while i < len(p):
        c = p[i]
        if c == "\\":
            if i + 1 >= len(p):
                return "error parsing regexp: trailing backslash at end of expression: ``"
            e = p[i + 1]
            if e.isdigit() and e != "0" or e.isalpha() and e not in "abfnrtvxpPdDsSwWbBAzQEC":
                return err("invalid escape sequence", p[i:i + 2])
            i, can_repeat, last_repeat = i + 2, True, -1
            continue
        if c == "[":
            j = i + 1
            if j < len(p) and p[j] == "^":
                j += 1
            if j < len(p) and p[j] == "]":
                j += 1
            while j < len(p) and p[j] != "]":
                j += 2 if p[j] == "\\" else 1
            if j >= len(p):
                return err("missing closing ]", p[i:])
            i, can_repeat, last_repeat = j + 1, True, -1
            continue
        n = _repeat_len(p, i)
        if n:
            if last_repeat >= 0:
                return err("invalid nested repetition operator", p[last_repeat:i + n])
            if not can_repeat:
                return err("missing argument to repetition operator", p[i:i + n])
            last_repeat, i = i, i + n
            continue
        if c == "(":
            i += 1
            if p.startswith("?", i):
                if p.startswith(("?P<", "?<"), i):
                    close = p.find(">", i)
                    if close < 0:
                        return err("invalid named capture", p[i - 1:])
                    i = close + 1
                else:
                    j = i + 1
                    while j < len(p) and p[j] in "imsU-":
                        j += 1
                    if j >= len(p) or p[j] not in ":)" or (p[j] == ")" and j == i + 1):
                        return err("invalid or unsupported Perl syntax", p[i - 1:j + 1])
                    if p[j] == ")":  # flags only, no group
                        i, can_repeat, last_repeat = j + 1, False, -1
                        continue
                    i = j + 1
            depth, can_repeat, last_repeat = depth + 1, False, -1
            continue
        if c == ")":
            if depth == 0:
                return err("unexpected )", p)
            depth -= 1
            i, can_repeat, last_repeat = i + 1, True, -1
            continue
        can_repeat, last_repeat, i = c != "|", -1, i + 1
    if depth:
        return err("missing closing )", p)
    return None
