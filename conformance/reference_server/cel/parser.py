"""A CEL parser of our own (cel-go's grammar, `github.com/google/cel-go/parser/gen/CEL.g4`) for what cel-rust does
not do: the type checker (`checker.py`) and the rewrites for cel-rust (`desugar.py`) need the AST.

It is the fast path: cel-go's own parser (`syntax.py`, ANTLR-generated) judges syntax, and its tree stands in
where this parser cannot read an expression cel-go reads (`parse` falls back on it; `ParseError` then means cel-go
refuses the expression too). Each node keeps its source span and, as cel-go's parser does,
the offset of the token that names it (an operator, the `.` of a selection, the `(` of a call, the `[` of an index),
where cel-go reports a checker error."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


class ParseError(Exception):
    pass


@dataclass
class Node:
    kind: str          # lit, ident, select, call, index, list, map, struct, unary, binary, cond
    start: int
    end: int
    at: int            # where cel-go reports an error on this node
    value: Any = None  # lit: (type name, python value); ident/select/call: the name; unary/binary: the operator
    args: list[Node] = field(default_factory=list)   # operands, call arguments, list elements
    target: Node | None = None                       # select/index operand, member call receiver
    optional: bool = False                             # `.?f`, `[?i]`
    entries: list[tuple[Node, Node, bool]] = field(default_factory=list)  # map/struct: key, value, optional
    opt_elems: frozenset[int] = frozenset()            # list: indexes of `?e` elements


_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*)
  | (?P<string>[rRbB]{0,2}(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))
  | (?P<num>0[xX][0-9a-fA-F]+[uU]?|(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?
            |[0-9]+[eE][+-]?[0-9]+)|[0-9]+[uU]?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\|\||&&|==|!=|<=|>=|\.\?|\[\?|[-+*/%!<>?:.,()\[\]{}])
  | (?P<quoted>`[^`]*`)
""", re.VERBOSE)
_RESERVED = frozenset({"as", "break", "const", "continue", "else", "for", "function", "if", "import", "let",
                       "loop", "package", "namespace", "return", "var", "void", "while"})


def _tokens(src: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(src):
        m = _TOKEN.match(src, pos)
        if not m:
            raise ParseError(f"unexpected character at {pos}")
        kind = m.lastgroup or ""
        if kind == "string" and m.group(0)[:1].isalpha() and not re.match(r"[rRbB]{1,2}['\"]", m.group(0)):
            raise ParseError("bad string prefix")
        if kind != "ws":
            out.append((kind, m.group(0), pos))
        pos = m.end()
    out.append(("eof", "", len(src)))
    return out


def _literal(kind: str, text: str) -> tuple[str, Any]:
    if kind == "num":
        if text[-1] in "uU":
            return "uint", int(text[:-1], 0)
        if text.lower().startswith("0x"):
            return "int", int(text, 16)
        if any(c in text for c in ".eE"):
            return "double", float(text)
        return "int", int(text)
    prefix = re.match(r"[rRbB]*", text).group(0).lower()  # type: ignore[union-attr]
    body = text[len(prefix):]
    quote = 3 if body[:3] in ("'''", '"""') else 1
    raw = body[quote:-quote].replace("\r\n", "\n").replace("\r", "\n")
    value = raw if "r" in prefix or "\\" not in raw else _ESCAPE.sub(_unescape, raw)
    if "r" not in prefix and "\\" in _ESCAPE.sub("", raw):
        raise ParseError("bad escape")
    return ("bytes" if "b" in prefix else "string"), value


# cel-go's `parser/unescape.go`: the escapes a quoted (not raw) literal may hold
_ESCAPE = re.compile(r"\\(?:[abfnrtv\\'\"`?]|[xX][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-3][0-7]{2})")
_SIMPLE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _unescape(m: re.Match[str]) -> str:
    code = m.group(0)[1:]
    if code[0] in _SIMPLE:
        return _SIMPLE[code[0]]
    if code[0] in "xXuU":
        return chr(int(code[1:], 16))
    if code[0].isdigit():
        return chr(int(code, 8))
    return code


class _Parser:
    def __init__(self, src: str):
        self.src, self.toks, self.i = src, _tokens(src), 0

    def peek(self, k: int = 0) -> tuple[str, str, int]:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def take(self, text: str | None = None) -> tuple[str, str, int]:
        tok = self.peek()
        if text is not None and tok[1] != text:
            raise ParseError(f"expected {text!r} at {tok[2]}")
        self.i += 1
        return tok

    def at(self, *texts: str) -> bool:
        tok = self.peek()
        return tok[0] in ("op", "ident") and tok[1] in texts

    def last_end(self) -> int:
        _, text, pos = self.toks[self.i - 1]
        return pos + len(text)

    def expr(self) -> Node:
        cond = self.binary(0)
        if self.at("?"):
            q = self.take()
            then = self.binary(0)
            self.take(":")
            other = self.expr()
            return Node("cond", cond.start, other.end, q[2], "_?_:_", [cond, then, other])
        return cond

    _LEVELS: tuple[tuple[str, ...], ...] = (("||",), ("&&",), ("<", "<=", ">=", ">", "==", "!=", "in"),
                                            ("+", "-"), ("*", "/", "%"))

    def binary(self, level: int) -> Node:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.at(*self._LEVELS[level]):
            op = self.take()
            right = self.binary(level + 1)
            name = "@in" if op[1] == "in" else f"_{op[1]}_"
            left = Node("binary", left.start, right.end, op[2], name, [left, right])
        return left

    def unary(self) -> Node:
        if self.at("!", "-"):
            op = self.take()
            if op[1] == "-" and self.peek()[0] == "num" and not self.peek()[1].endswith(("u", "U")):
                operand = self.member()
                if operand.kind == "lit":  # cel-go's grammar reads `-1` as one literal
                    kind, val = operand.value
                    return Node("lit", op[2], operand.end, op[2], (kind, -val))
                return Node("unary", op[2], operand.end, op[2], "-_", [operand])
            operand = self.unary()
            return Node("unary", op[2], operand.end, op[2], f"{op[1]}_", [operand])
        return self.member()

    def member(self) -> Node:
        node = self.primary()
        while True:
            if self.at(".", ".?"):
                op = self.take()
                name = self.take()
                if name[0] not in ("ident", "quoted"):
                    raise ParseError("expected a field name")
                if op[1] == "." and self.at("("):
                    paren = self.take()
                    args = self.arguments(")")
                    node = Node("call", node.start, self.last_end(), paren[2], name[1], args, target=node)
                else:
                    node = Node("select", node.start, name[2] + len(name[1]), op[2], name[1].strip("`"),
                                target=node, optional=op[1] == ".?")
            elif self.at("[", "[?"):
                op = self.take()
                index = self.expr()
                self.take("]")
                node = Node("index", node.start, self.last_end(), op[2], "_[_]", [index], target=node,
                            optional=op[1] == "[?")
            else:
                return node

    def arguments(self, close: str) -> list[Node]:
        args: list[Node] = []
        while not self.at(close):
            args.append(self.expr())
            if not self.at(close):
                self.take(",")
        self.take(close)
        return args

    def primary(self) -> Node:
        kind, text, pos = self.peek()
        if kind in ("num", "string"):
            self.take()
            return Node("lit", pos, pos + len(text), pos, _literal(kind, text))
        if kind == "ident":
            self.take()
            if text in ("true", "false"):
                return Node("lit", pos, pos + len(text), pos, ("bool", text == "true"))
            if text == "null":
                return Node("lit", pos, pos + len(text), pos, ("null_type", None))
            if text in _RESERVED or text == "in":
                raise ParseError("reserved identifier")
            if self.at("("):
                paren = self.take()
                args = self.arguments(")")
                return Node("call", pos, self.last_end(), paren[2], text, args)
            if self.at("{") and text[:1].isupper():
                return self.struct(text, pos)
            return Node("ident", pos, pos + len(text), pos, text)
        if text == ".":  # a leading dot: the root of a qualified name
            self.take()
            return self.primary()
        if text == "(":
            self.take()
            inner = self.expr()
            self.take(")")
            inner.start, inner.end = pos, self.last_end()
            return inner
        if text in ("[", "[?"):
            return self.list_literal(pos)
        if text == "{":
            self.take()
            entries = self.entries()
            return Node("map", pos, self.last_end(), pos, entries=entries)
        raise ParseError(f"unexpected {text!r} at {pos}")

    def list_literal(self, pos: int) -> Node:
        self.take()
        elems: list[Node] = []
        optional: set[int] = set()
        if self.toks[self.i - 1][1] == "[?":  # `[?x, ...]`: the tokenizer joined `[` and `?`
            optional.add(0)
        while not self.at("]"):
            if self.at("?"):
                self.take()
                optional.add(len(elems))
            elems.append(self.expr())
            if not self.at("]"):
                self.take(",")
        self.take("]")
        return Node("list", pos, self.last_end(), pos, args=elems, opt_elems=frozenset(optional))

    def entries(self, field_names: bool = False) -> list[tuple[Node, Node, bool]]:
        """A map literal's entries, or a message literal's (`field_names`: keys are names, not expressions)."""
        out: list[tuple[Node, Node, bool]] = []
        while not self.at("}"):
            optional = False
            if self.at("?"):
                self.take()
                optional = True
            if field_names:
                _, text, fpos = self.take()
                key = Node("lit", fpos, fpos + len(text), fpos, ("string", text))
            else:
                key = self.expr()
            self.take(":")
            out.append((key, self.expr(), optional))
            if not self.at("}"):
                self.take(",")
        self.take("}")
        return out

    def struct(self, name: str, pos: int) -> Node:
        brace = self.take("{")
        entries = self.entries(field_names=True)
        return Node("struct", pos, self.last_end(), brace[2], name, entries=entries)


def children(node: Node) -> tuple[Node | None, ...]:
    """A node's operands: its target (None when it has none), arguments or elements, and entries' keys and values."""
    return (node.target, *node.args, *(x for k, v, _ in node.entries for x in (k, v)))


def optional_chain(node: Node | None) -> bool:
    """Whether `node` is an optional selection or index (`.?f`, `[?k]`), or a selection or index of one."""
    while node is not None and node.kind in ("select", "index"):
        if node.optional:
            return True
        node = node.target
    return False


def qualified_name(node: Node) -> str | None:
    """`containers.ToQualifiedName`: `a.b.c` for a chain of (non-optional) selections on an identifier."""
    if node.kind == "ident":
        return node.value
    if node.kind == "select" and not node.optional and node.target is not None:
        inner = qualified_name(node.target)
        return f"{inner}.{node.value}" if inner else None
    return None


def parse_own(src: str) -> Node:
    """The AST of `src` by this parser alone (ParseError, or RecursionError when too deep): about a tenth of the
    time cel-go's generated one takes in Python."""
    p = _Parser(src)
    node = p.expr()
    if p.peek()[0] != "eof":
        raise ParseError(f"unexpected {p.peek()[1]!r} at {p.peek()[2]}")
    return node


def parse(src: str) -> Node:
    """The AST of `src`: this parser's, else cel-go's (`syntax.py`); ParseError when neither reads it."""
    try:
        return parse_own(src)
    except (ParseError, RecursionError) as exc:
        reason = str(exc) if isinstance(exc, ParseError) else "too deep"
    from . import syntax
    tree, issues = syntax.parse(src)
    if tree is None:
        raise ParseError(issues or reason)
    return tree
