"""Go's `encoding/json` syntax errors (src/encoding/json/scanner.go, Go 1.24): the text of the `SyntaxError` that
`json.Unmarshal` (`checkValid`) returns for a body that is not JSON, which kube-apiserver puts after `json parse
error: `. Python's `json` module finds the same bodies invalid but words them its own way (`Expecting property
name enclosed in double quotes at offset 1`); this scanner runs only on that error path, over the raw bytes as
Go's does, and says what Go says (`invalid character 'b' looking for beginning of object key string`)."""
from __future__ import annotations

from typing import Callable

from ..goport.gonet.strconv import quote

_SPACE = frozenset(b" \t\r\n")
_DIGITS = frozenset(b"0123456789")
_HEX = frozenset(b"0123456789abcdefABCDEF")
_OBJECT_KEY, _OBJECT_VALUE, _ARRAY_VALUE = 0, 1, 2


class _Error(Exception):
    pass


def quote_char(c: int) -> str:
    """scanner.go `quoteChar`: the byte as a rune, in single quotes."""
    if c == 0x27:
        return "'\\''"
    if c == 0x22:
        return "'\"'"
    return "'" + quote(chr(c))[1:-1] + "'"


class _Scanner:
    def __init__(self) -> None:
        self.stack: list[int] = []
        self.end_top = False
        self.step: Callable[[int], None] = self.begin_value

    def fail(self, c: int, context: str) -> None:
        raise _Error(f"invalid character {quote_char(c)} {context}")

    def begin_value_or_empty(self, c: int) -> None:
        if c in _SPACE:
            return
        if c == 0x5D:  # ]
            return self.end_value(c)
        self.begin_value(c)

    def begin_value(self, c: int) -> None:
        if c in _SPACE:
            return
        if c == 0x7B:  # {
            self.step = self.begin_string_or_empty
            self.stack.append(_OBJECT_KEY)
        elif c == 0x5B:  # [
            self.step = self.begin_value_or_empty
            self.stack.append(_ARRAY_VALUE)
        elif c == 0x22:
            self.step = self.in_string
        elif c == 0x2D:  # -
            self.step = self.neg
        elif c == 0x30:
            self.step = self.zero
        elif 0x31 <= c <= 0x39:
            self.step = self.one
        elif c in b"tfn":
            self.step = self.literal(c)
        else:
            self.fail(c, "looking for beginning of value")

    def begin_string_or_empty(self, c: int) -> None:
        if c in _SPACE:
            return
        if c == 0x7D:  # }
            self.stack[-1] = _OBJECT_VALUE
            return self.end_value(c)
        self.begin_string(c)

    def begin_string(self, c: int) -> None:
        if c in _SPACE:
            return
        if c == 0x22:
            self.step = self.in_string
            return
        self.fail(c, "looking for beginning of object key string")

    def end_value(self, c: int) -> None:
        if not self.stack:
            self.step = self.end_top_step
            self.end_top = True
            return self.end_top_step(c)
        if c in _SPACE:
            self.step = self.end_value
            return
        top = self.stack[-1]
        if top == _OBJECT_KEY:
            if c == 0x3A:  # :
                self.stack[-1] = _OBJECT_VALUE
                self.step = self.begin_value
                return
            self.fail(c, "after object key")
        if top == _OBJECT_VALUE:
            if c == 0x2C:  # ,
                self.stack[-1] = _OBJECT_KEY
                self.step = self.begin_string
                return
            if c == 0x7D:
                self.stack.pop()
                self.step = self.end_value
                return
            self.fail(c, "after object key:value pair")
        if c == 0x2C:
            self.step = self.begin_value
            return
        if c == 0x5D:
            self.stack.pop()
            self.step = self.end_value
            return
        self.fail(c, "after array element")

    def end_top_step(self, c: int) -> None:
        if c not in _SPACE:
            self.fail(c, "after top-level value")

    def in_string(self, c: int) -> None:
        if c == 0x22:
            self.step = self.end_value
        elif c == 0x5C:
            self.step = self.in_string_esc
        elif c < 0x20:
            self.fail(c, "in string literal")

    def in_string_esc(self, c: int) -> None:
        if c in b'bfnrt\\/"':
            self.step = self.in_string
        elif c == 0x75:  # u
            self.step = self.hex_digits(4)
        else:
            self.fail(c, "in string escape code")

    def hex_digits(self, left: int) -> Callable[[int], None]:
        def step(c: int) -> None:
            if c not in _HEX:
                self.fail(c, "in \\u hexadecimal character escape")
            self.step = self.in_string if left == 1 else self.hex_digits(left - 1)
        return step

    def neg(self, c: int) -> None:
        if c == 0x30:
            self.step = self.zero
        elif 0x31 <= c <= 0x39:
            self.step = self.one
        else:
            self.fail(c, "in numeric literal")

    def one(self, c: int) -> None:
        if c in _DIGITS:
            return
        self.zero(c)

    def zero(self, c: int) -> None:
        if c == 0x2E:  # .
            self.step = self.dot
        elif c in b"eE":
            self.step = self.exp
        else:
            self.end_value(c)

    def dot(self, c: int) -> None:
        if c in _DIGITS:
            self.step = self.dot0
            return
        self.fail(c, "after decimal point in numeric literal")

    def dot0(self, c: int) -> None:
        if c in _DIGITS:
            return
        if c in b"eE":
            self.step = self.exp
            return
        self.end_value(c)

    def exp(self, c: int) -> None:
        if c in b"+-":
            self.step = self.exp_sign
            return
        self.exp_sign(c)

    def exp_sign(self, c: int) -> None:
        if c in _DIGITS:
            self.step = self.exp0
            return
        self.fail(c, "in exponent of numeric literal")

    def exp0(self, c: int) -> None:
        if c in _DIGITS:
            return
        self.end_value(c)

    def literal(self, first: int) -> Callable[[int], None]:
        word = {0x74: "true", 0x66: "false", 0x6E: "null"}[first]

        def expect(i: int) -> Callable[[int], None]:
            def step(c: int) -> None:
                if c != ord(word[i]):
                    self.fail(c, f"in literal {word} (expecting {quote_char(ord(word[i]))})")
                self.step = self.end_value if i == len(word) - 1 else expect(i + 1)
            return step
        return expect(1)


def syntax_error(raw: bytes) -> str | None:
    """The message of the SyntaxError Go's `checkValid` finds in `raw`; None when Go's scanner accepts it."""
    s = _Scanner()
    try:
        for c in raw:
            s.step(c)
            if s.end_top and s.step != s.end_top_step:
                break
        if s.end_top:
            return None
        s.step(0x20)  # scanner.eof
        return None if s.end_top else "unexpected end of JSON input"
    except _Error as exc:
        return str(exc)


__all__ = ["quote_char", "syntax_error"]
