"""cel-go's parser front end: its ANTLR grammar (`parser/gen/CEL.g4`, generated for Python in `gen/`), error
listener, recovery limits and visitor (`parser/parser.go`, `parser/helper.go`, `parser/errors.go`,
`parser/unescape.go`, `common/errors.go`, `common/error.go`, the macros of `parser/macro.go`,
`ext/comprehensions.go` and `cel/library.go`'s optional types), all of cel-go v0.23.2, with the options
kube-apiserver's environment gives it (`apiserver/pkg/cel/environment/base.go`: `cel.OptionalTypes` turns optional
syntax on, `ext.TwoVarComprehensions` adds its macros; identifier escapes stay off and the limits at their
defaults: 250 levels of recursion, 100,000 code points, 100 reported errors, 30 recoveries of 256 tokens).

It judges syntax as cel-go does, with its words: ANTLR's DefaultErrorStrategy messages prefixed `Syntax error: `,
`reserved identifier: x`, `invalid argument to has() macro`, `argument must be a simple name`, literal and escape
errors, `expression recursion limit exceeded: 250`; `issues_text` prints them in `common/errors.go`'s layout. The
tree it builds is `parser.py`'s `Node`, used where the hand-written parser there cannot read an expression.

The ANTLR runtime is `antlr4-python3-runtime` 4.7.2 (the version of Debian's tool that generated `gen/`; cel-go
uses 4.13: the messages of cel-go's own parser tests are the same), imported on first use (~0.1 s): about half a
millisecond for a usual expression, some 50 µs a token, which is why each expression is judged once (cached)."""
from __future__ import annotations

import re
import sys
import threading
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .parser import Node


@dataclass(frozen=True)
class Options:
    """cel-go's parser options (`parser/options.go`), defaulted as `NewParser` and kube-apiserver leave them."""

    max_recursion: int = 250
    error_reporting_limit: int = 100
    error_recovery_limit: int = 30
    lookahead_limit: int = 256
    max_code_points: int = 100_000
    optional_syntax: bool = True      # cel.OptionalTypes (1.28+)
    escaped_idents: bool = False      # cel.EnableIdentifierEscapeSyntax: not set by kube-apiserver
    extended_macros: bool = True      # ext.TwoVarComprehensions (1.32+), optMap/optFlatMap; False: AllMacros only


KUBERNETES = Options()
MAX_RECURSION = KUBERNETES.max_recursion
ERROR_REPORTING_LIMIT = KUBERNETES.error_reporting_limit
_RESERVED = frozenset({"as", "break", "const", "continue", "else", "false", "for", "function", "if", "import", "in",
                       "let", "loop", "package", "namespace", "null", "return", "true", "var", "void", "while"})
_RESERVED_NO_VIABLE = re.compile(r"no viable alternative at input '.(true|false|null)'")
# (name, argument count) of the receiver macros in 1.33's environment (standard, two-variable comprehensions,
# optional types); `has` is the one global macro
_QUANTIFIERS = {("all", 2), ("exists", 2), ("exists_one", 2), ("existsOne", 2), ("map", 2), ("map", 3),
                ("filter", 2)}
_TWO_VAR = {("all", 3), ("exists", 3), ("existsOne", 3), ("exists_one", 3), ("transformList", 3),
            ("transformList", 4), ("transformMap", 3), ("transformMap", 4), ("transformMapEntry", 3),
            ("transformMapEntry", 4)}
_ACCUMULATORS = frozenset({"@result", "__result__"})  # the hidden accumulator and parser.AccumulatorName
_OPT_MACROS = {("optMap", 2): "optMap", ("optFlatMap", 2): "optFlatMap"}

Issue = tuple[int, int, str]   # line (1-based; -1: no location), column (0-based), message


class _Stop(Exception):
    """Ends the parse: cel-go's panics (recursion, lookahead, too many errors), with an internal error or none."""

    def __init__(self, message: str | None):
        super().__init__(message)
        self.message = message


_runtime: Any = None


def _load() -> Any:
    """The ANTLR runtime and the generated parser, imported once (the runtime 4.7.2 imports `typing.io`, which
    Python 3.13 removed: `typing` has the same names)."""
    global _runtime
    if _runtime is None:
        import types
        import typing
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                import typing.io  # noqa: F401
            except ImportError:
                sys.modules["typing.io"] = types.SimpleNamespace(TextIO=typing.TextIO)  # type: ignore[assignment]
            import antlr4
            from antlr4.error.ErrorListener import ErrorListener
            from antlr4.error.ErrorStrategy import DefaultErrorStrategy
            from antlr4.tree.Tree import ParseTreeListener
            from .gen.CELLexer import CELLexer
            from .gen.CELParser import CELParser
        _runtime = types.SimpleNamespace(antlr4=antlr4, ErrorListener=ErrorListener, CELLexer=CELLexer,
                                         CELParser=CELParser, DefaultErrorStrategy=DefaultErrorStrategy,
                                         ParseTreeListener=ParseTreeListener, P=CELParser)
        _runtime.classes = _classes(_runtime)
    return _runtime


def _classes(rt: Any) -> Any:
    """The listener, error strategy and parser subclass cel-go installs (`parser.go` `parse`)."""

    class Listener(rt.ErrorListener):
        """`parser.SyntaxError`: `Syntax error: <ANTLR's message>`, at most 100 of them."""

        def __init__(self, issues: list[Issue], opts: Options):
            self.issues, self.reports, self.limit = issues, 0, opts.error_reporting_limit

        def syntaxError(self, recognizer: Any, offendingSymbol: Any, line: int, column: int, msg: str,
                        e: Any) -> None:
            if "no viable alternative" in msg:
                msg = _RESERVED_NO_VIABLE.sub(r"mismatched input '\1' expecting IDENTIFIER", msg)
            if self.reports < self.limit:
                self.reports += 1
                self.issues.append((line, column, f"Syntax error: {msg}"))
            else:
                self.issues.append((line, column, f"Syntax error: More than {self.limit} syntax errors"))
                raise _Stop(None)

    class Strategy(rt.DefaultErrorStrategy):
        """`recoveryLimitErrorStrategy`: 30 recoveries, 256 tokens consumed by each."""

        def __init__(self, opts: Options) -> None:
            super().__init__()
            self.attempts, self.limit, self.lookahead_limit = 0, opts.error_recovery_limit, opts.lookahead_limit
            self.recovering = False

        def _check(self, recognizer: Any) -> None:
            if self.attempts == self.limit:
                self.attempts += 1
                message = f"error recovery attempt limit exceeded: {self.limit}"
                recognizer.notifyErrorListeners(message, None, None)
                raise _Stop(None)
            self.attempts += 1

        def recover(self, recognizer: Any, e: Any) -> None:
            self._check(recognizer)
            recognizer.lookahead = 0
            self.recovering = True
            try:
                super().recover(recognizer, e)
            finally:
                self.recovering = False

        def recoverInline(self, recognizer: Any) -> Any:
            self._check(recognizer)
            recognizer.lookahead = 0
            self.recovering = True
            try:
                return super().recoverInline(recognizer)
            finally:
                self.recovering = False

    class Parser(rt.CELParser):
        """The generated parser; `consume` counts the tokens an error recovery skips (`lookaheadConsumer`)."""

        lookahead = 0

        def consume(self) -> Any:
            handler = self._errHandler
            if handler.recovering:
                if self.lookahead >= handler.lookahead_limit:
                    raise _Stop(f"error recovery token lookahead limit exceeded: {handler.lookahead_limit}")
                self.lookahead += 1
            return super().consume()

    class Depth(rt.ParseTreeListener):
        """`recursionListener`: no rule nested more than 250 deep."""

        def __init__(self, limit: int) -> None:
            self.depth: dict[int, int] = {}
            self.limit = limit

        def enterEveryRule(self, ctx: Any) -> None:
            index = ctx.getRuleIndex()
            depth = self.depth.get(index, 0) + 1
            self.depth[index] = depth
            if depth > self.limit:
                raise _Stop(f"expression recursion limit exceeded: {self.limit}")

        def exitEveryRule(self, ctx: Any) -> None:
            index = ctx.getRuleIndex()
            if self.depth.get(index, 0) > 0:
                self.depth[index] -= 1

        def visitTerminal(self, node: Any) -> None:
            pass

        def visitErrorNode(self, node: Any) -> None:
            pass

    import types
    return types.SimpleNamespace(Listener=Listener, Strategy=Strategy, Parser=Parser, Depth=Depth)


def line_col(src: str, offset: int) -> tuple[int, int]:
    """The 1-based line and 0-based column (in code points, as cel-go's runes) of an offset."""
    return src.count("\n", 0, offset) + 1, offset - (src.rfind("\n", 0, offset) + 1)


class _Visitor:
    """`parser.go`'s visitor over the ANTLR tree: builds `Node`s and reports cel-go's non-grammar errors."""

    def __init__(self, src: str, issues: list[Issue], opts: Options):
        self.src, self.issues, self.depth, self.opts = src, issues, 0, opts
        self.P = _load().P

    # errors and nodes
    def error_at(self, offset: int, message: str) -> Node:
        line, col = line_col(self.src, offset)
        self.issues.append((line, col, message))
        return Node("error", offset, offset, offset)

    @staticmethod
    def span(ctx: Any) -> tuple[int, int]:
        stop = ctx.stop if ctx.stop is not None and ctx.stop.stop >= ctx.start.start else ctx.start
        return ctx.start.start, max(stop.stop + 1, ctx.start.start)

    def visit(self, ctx: Any) -> Node:
        self.parens = None
        ctx = self.unnest(ctx)
        parens = self.parens
        method = _DISPATCH.get(type(ctx).__name__)
        if method is None:
            if not self.issues:
                return self.error_at_none(f"unknown parse element encountered: <<{type(ctx).__name__}>>")
            return Node("error", 0, 0, 0)
        deep = method in _DEEP
        if deep:
            self.depth += 1
            if self.depth > self.opts.max_recursion:
                raise _Stop("max recursion depth exceeded")
        try:
            node: Node = getattr(self, method)(ctx)
        finally:
            if deep:
                self.depth -= 1
        if parens is not None:  # `(e)`: the node spans its parentheses, as parser.py's nodes do
            node.start, node.end = parens
        return node

    def error_at_none(self, message: str) -> Node:
        self.issues.append((-1, -1, message))
        return Node("error", 0, 0, 0)

    def unnest(self, t: Any) -> Any:
        P = self.P
        while t is not None:
            if isinstance(t, P.ExprContext):
                if t.op is not None:
                    return t
                t = t.e
            elif isinstance(t, P.ConditionalOrContext):
                if t.ops:
                    return t
                t = t.e
            elif isinstance(t, P.ConditionalAndContext):
                if t.ops:
                    return t
                t = t.e
            elif isinstance(t, P.RelationContext):
                if t.op is not None:
                    return t
                t = t.calc()
            elif isinstance(t, P.CalcContext):
                if t.op is not None:
                    return t
                t = t.unary()
            elif isinstance(t, P.MemberExprContext):
                t = t.member()
            elif isinstance(t, P.PrimaryExprContext):
                t = t.primary()
            elif isinstance(t, P.NestedContext):
                if t.e is None:
                    return t
                if self.parens is None:
                    self.parens = self.span(t)
                t = t.e
            elif isinstance(t, P.ConstantLiteralContext):
                t = t.literal()
            else:
                return t
        return t

    # rules
    def v_start(self, ctx: Any) -> Node:
        return self.visit(ctx.expr())

    def v_expr(self, ctx: Any) -> Node:
        cond, then, other = self.visit(ctx.e), self.visit(ctx.e1), self.visit(ctx.e2)
        start, end = self.span(ctx)
        return self.call_or_macro(Node("cond", start, end, ctx.op.start, "_?_:_", [cond, then, other]))

    def v_logic(self, ctx: Any) -> Node:
        name = "_||_" if isinstance(ctx, self.P.ConditionalOrContext) else "_&&_"
        node = self.visit(ctx.e)
        for i, op in enumerate(ctx.ops):
            if i >= len(ctx.e1):
                return self.error_at(ctx.start.start, f"unexpected character, wanted '{name[1:3]}'")
            right = self.visit(ctx.e1[i])
            node = Node("binary", node.start, right.end, op.start, name, [node, right])
        return node

    def v_binary(self, ctx: Any) -> Node:
        text = ctx.op.text if ctx.op is not None else ""
        if text not in _BINARY:
            return self.error_at(ctx.start.start, "operator not found")
        sub = ctx.relation if isinstance(ctx, self.P.RelationContext) else ctx.calc
        left = self.visit(sub(0))
        right = self.visit(sub(1))
        return Node("binary", left.start, right.end, ctx.op.start, _BINARY[text], [left, right])

    def v_unary_error(self, ctx: Any) -> Node:
        start, end = self.span(ctx)
        return Node("lit", start, end, start, ("string", "<<error>>"))

    def v_not(self, ctx: Any) -> Node:
        operand = self.visit(ctx.member())
        if len(ctx.ops) % 2 == 0:
            return operand
        name = "!_" if isinstance(ctx, self.P.LogicalNotContext) else "-_"
        return Node("unary", ctx.ops[0].start, operand.end, ctx.ops[0].start, name, [operand])

    def ident_text(self, ctx: Any, at: int) -> str | None:
        """`normalizeIdent`: an escaped identifier is refused (kube-apiserver does not enable the syntax); its
        error is reported at `at`."""
        if isinstance(ctx, self.P.SimpleIdentifierContext) and ctx.ident is not None:
            return ctx.ident.text
        if isinstance(ctx, self.P.EscapedIdentifierContext) and ctx.ident is not None:
            if self.opts.escaped_idents:
                return ctx.ident.text[1:-1]
            self.error_at(at, "unsupported syntax: '`'")
            return None
        self.error_at(at, "unsupported ident kind")
        return None

    def v_select(self, ctx: Any) -> Node:
        operand = self.visit(ctx.member())
        if ctx.ident is None or ctx.op is None:
            return Node("error", *self.span(ctx), ctx.start.start)
        name = self.ident_text(ctx.ident, ctx.ident.start.start)
        end = self.span(ctx)[1]
        if ctx.opt is not None and not self.opts.optional_syntax:
            return self.error_at(ctx.op.start, "unsupported syntax '.?'")
        return Node("select", operand.start, end, ctx.op.start, name or "", target=operand,
                    optional=ctx.opt is not None)

    def v_member_call(self, ctx: Any) -> Node:
        operand = self.visit(ctx.member())
        if ctx.ident is None:
            return Node("error", *self.span(ctx), ctx.start.start)
        args = self.expr_list(ctx.args)
        end = self.span(ctx)[1]
        at = ctx.paren.start if ctx.paren is not None else ctx.ident.start
        return self.call_or_macro(Node("call", operand.start, end, at, ctx.ident.text, args, target=operand))

    def v_index(self, ctx: Any) -> Node:
        target = self.visit(ctx.member())
        if ctx.op is None:
            return Node("error", *self.span(ctx), ctx.start.start)
        index = self.visit(ctx.index)
        if ctx.opt is not None and not self.opts.optional_syntax:
            return self.error_at(ctx.op.start, "unsupported syntax '[?'")
        return Node("index", target.start, self.span(ctx)[1], ctx.op.start, "_[_]", [index], target=target,
                    optional=ctx.opt is not None)

    def v_message(self, ctx: Any) -> Node:
        name = ".".join(t.text for t in ctx.ids)
        if ctx.leadingDot is not None:
            name = "." + name
        entries: list[tuple[Node, Node, bool]] = []
        fields = ctx.entries
        if fields is not None and fields.fields:
            for i, field in enumerate(fields.fields):
                if i >= len(fields.cols) or i >= len(fields.values):
                    entries = []
                    break
                if self.optional_refused(field.opt, field.start.start):
                    continue
                escape = field.escapeIdent()
                fname = self.ident_text(escape, fields.start.start)
                if fname is None:
                    continue
                key = Node("lit", escape.start.start, escape.start.stop + 1, escape.start.start, ("string", fname))
                entries.append((key, self.visit(fields.values[i]), field.opt is not None))
        start, end = self.span(ctx)
        return Node("struct", start, end, ctx.op.start, name, entries=entries)

    def v_ident(self, ctx: Any) -> Node:
        if ctx.ident is None:
            return Node("error", *self.span(ctx), ctx.start.start)
        name = ctx.ident.text
        if name in _RESERVED:
            return self.error_at(ctx.start.start, f"reserved identifier: {name}")
        pos = ctx.ident.start
        return Node("ident", pos, pos + len(name), pos, name)

    def v_global_call(self, ctx: Any) -> Node:
        if ctx.ident is None:
            return Node("error", *self.span(ctx), ctx.start.start)
        name = ctx.ident.text
        if name in _RESERVED:
            return self.error_at(ctx.start.start, f"reserved identifier: {name}")
        args = self.expr_list(ctx.args)
        start, end = self.span(ctx)
        node = Node("call", ctx.ident.start, end, ctx.op.start, name, args)
        return node if ctx.leadingDot is not None else self.call_or_macro(node)  # `.has(x)` names no macro

    def v_list(self, ctx: Any) -> Node:
        elems: list[Node] = []
        optional: set[int] = set()
        if ctx.elems is not None:
            for i, e in enumerate(ctx.elems.elems):
                elems.append(self.visit(e.e))
                if e.opt is not None and not self.optional_refused(e.opt, e.opt.start):
                    optional.add(i)
        start, end = self.span(ctx)
        return Node("list", start, end, ctx.op.start, args=elems, opt_elems=frozenset(optional))

    def optional_refused(self, opt: Any, at: int) -> bool:
        """An optional element, entry or field (`?x`) where optional syntax is off: cel-go's error, and skipped."""
        if opt is not None and not self.opts.optional_syntax:
            self.error_at(at, "unsupported syntax '?'")
            return True
        return False

    def v_map(self, ctx: Any) -> Node:
        entries: list[tuple[Node, Node, bool]] = []
        init = ctx.entries
        if init is not None and init.keys:
            for i, _col in enumerate(init.cols):
                if i >= len(init.keys) or i >= len(init.values):
                    entries = []
                    break
                key = init.keys[i]
                if self.optional_refused(key.opt, key.start.start):
                    continue
                entries.append((self.visit(key.e), self.visit(init.values[i]), key.opt is not None))
        start, end = self.span(ctx)
        return Node("map", start, end, ctx.op.start, entries=entries)

    def literal(self, ctx: Any, value: tuple[str, Any]) -> Node:
        start, end = self.span(ctx)
        return Node("lit", start, end, start, value)

    def v_int(self, ctx: Any) -> Node:
        text = ctx.tok.text
        base = 16 if text.startswith("0x") else 10
        value = int(text[2:] if base == 16 else text, base) * (-1 if ctx.sign is not None else 1)
        if not -(1 << 63) <= value < (1 << 63):
            return self.error_at(ctx.start.start, "invalid int literal")
        return self.literal(ctx, ("int", value))

    def v_uint(self, ctx: Any) -> Node:
        text = ctx.tok.text[:-1]
        value = int(text[2:], 16) if text.startswith("0x") else int(text)
        if value >= 1 << 64:
            return self.error_at(ctx.start.start, "invalid uint literal")
        return self.literal(ctx, ("uint", value))

    def v_double(self, ctx: Any) -> Node:
        value = float(ctx.tok.text) * (-1 if ctx.sign is not None else 1)
        if value in (float("inf"), float("-inf")):  # strconv.ParseFloat: out of range
            return self.error_at(ctx.start.start, "invalid double literal")
        return self.literal(ctx, ("double", value))

    def v_string(self, ctx: Any) -> Node:
        is_bytes = isinstance(ctx, self.P.BytesContext)
        text = ctx.tok.text[1:] if is_bytes else ctx.tok.text
        try:
            value = unescape(text, is_bytes)
        except ValueError as exc:
            self.error_at(ctx.start.start, str(exc))
            value = text
        return self.literal(ctx, ("bytes" if is_bytes else "string", value))

    def v_true(self, ctx: Any) -> Node:
        return self.literal(ctx, ("bool", True))

    def v_false(self, ctx: Any) -> Node:
        return self.literal(ctx, ("bool", False))

    def v_null(self, ctx: Any) -> Node:
        return self.literal(ctx, ("null_type", None))

    def v_nested(self, ctx: Any) -> Node:  # `()` after an error: nothing inside
        return Node("error", *self.span(ctx), ctx.start.start)

    def expr_list(self, ctx: Any) -> list[Node]:
        return [] if ctx is None else [self.visit(e) for e in ctx.e]

    # macros (`expandMacro`): argument errors are reported at the argument
    def call_or_macro(self, node: Node) -> Node:
        if node.kind != "call":
            return node
        args, key = node.args, (node.value, len(node.args))
        if node.target is None:
            if key == ("has", 1) and (args[0].kind != "select" or args[0].optional):
                return self.error_at(args[0].at, "invalid argument to has() macro")
            return node
        if key in _QUANTIFIERS:
            if args[0].kind != "ident":
                wording = "argument is not an identifier" if key[0] in ("map", "filter") else \
                    "argument must be a simple name"
                return self.error_at(args[0].at, wording)
            if args[0].value in _ACCUMULATORS:
                return self.error_at(args[0].at, "iteration variable overwrites accumulator variable")
        if not self.opts.extended_macros:
            return node
        if key in _TWO_VAR:
            for arg in args[:2]:
                if arg.kind != "ident":
                    return self.error_at(arg.at, "argument must be a simple name")
            if args[0].value == args[1].value:
                return self.error_at(args[1].at, f"duplicate variable name: {args[0].value}")
            for arg in args[:2]:
                if arg.value in _ACCUMULATORS:
                    return self.error_at(arg.at, "iteration variable overwrites accumulator variable")
        if key in _OPT_MACROS and args[0].kind != "ident":
            return self.error_at(args[0].at, f"{_OPT_MACROS[key]}() variable name must be a simple identifier")
        return node


_BINARY = {"<": "_<_", "<=": "_<=_", ">=": "_>=_", ">": "_>_", "==": "_==_", "!=": "_!=_", "in": "@in",
           "*": "_*_", "/": "_/_", "%": "_%_", "+": "_+_", "-": "_-_"}
_DISPATCH = {
    "StartContext": "v_start", "ExprContext": "v_expr", "ConditionalOrContext": "v_logic",
    "ConditionalAndContext": "v_logic", "RelationContext": "v_binary", "CalcContext": "v_binary",
    "UnaryContext": "v_unary_error", "LogicalNotContext": "v_not", "NegateContext": "v_not",
    "SelectContext": "v_select", "MemberCallContext": "v_member_call", "IndexContext": "v_index",
    "CreateMessageContext": "v_message", "IdentContext": "v_ident", "GlobalCallContext": "v_global_call",
    "CreateListContext": "v_list", "CreateStructContext": "v_map", "IntContext": "v_int", "UintContext": "v_uint",
    "DoubleContext": "v_double", "StringContext": "v_string", "BytesContext": "v_string",
    "BoolTrueContext": "v_true", "BoolFalseContext": "v_false", "NullContext": "v_null",
    "NestedContext": "v_nested",
}
# the rules whose visits count toward the visitor's recursion depth (`Visit`)
_DEEP = frozenset({"v_expr", "v_binary", "v_select", "v_member_call", "v_index"})


def unescape(text: str, is_bytes: bool) -> str:
    """`parser/unescape.go`: a quoted literal's value; ValueError with cel-go's words for a bad escape."""
    value = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(value) < 2:
        raise ValueError("unable to unescape string")
    raw = value[0] in "rR"
    if raw:
        value = value[1:]
    n = len(value)
    if value[0] != value[-1] or value[0] not in "\"'":
        raise ValueError("unable to unescape string")
    if n >= 6 and value[:3] in ("'''", '"""'):
        if value[-3:] != value[:3]:
            raise ValueError("unable to unescape string")
        value = '"' + value[3:-3] + '"'
    value = value[1:-1]
    if raw or "\\" not in value:
        return value
    out: list[str] = []
    i = 0
    while i < len(value):
        c = value[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        if i + 1 >= len(value):
            raise ValueError("unable to unescape string, found '\\' as last character")
        c, i = value[i + 1], i + 2
        if c in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[c])
        elif c in "xXuU":
            size = {"x": 2, "X": 2, "u": 4, "U": 8}[c]
            if is_bytes and c in "uU":
                raise ValueError("unable to unescape string")
            digits = value[i:i + size]
            if len(digits) < size or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError("unable to unescape string")
            code, i = int(digits, 16), i + size
            if not is_bytes and (code > 0x10FFFF or 0xD800 <= code <= 0xDFFF):
                raise ValueError("invalid unicode code point")
            out.append(chr(code))
        elif c in "0123":
            digits = value[i:i + 2]
            if len(digits) < 2 or not all(d in "01234567" for d in digits):
                raise ValueError("unable to unescape octal sequence in string")
            out.append(chr(int(c + digits, 8)))
            i += 2
        else:
            raise ValueError("unable to unescape string")
    return "".join(out)


_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\",
                   "'": "'", '"': '"', "`": "`", "?": "?"}


def _parse(src: str, opts: Options) -> tuple[Node | None, list[Issue]]:
    """`parser.parse`: lexer and parser with cel-go's listener, strategy and recursion listener, then the visitor;
    the tree, or None when there are issues."""
    issues: list[Issue] = []
    if len(src) > opts.max_code_points:
        return None, [(-1, -1, f"expression code point size exceeds limit: size: {len(src)}, "
                               f"limit {opts.max_code_points}")]
    rt = _load()
    listener = rt.classes.Listener(issues, opts)
    lexer = rt.CELLexer(rt.antlr4.InputStream(src))
    lexer.removeErrorListeners()
    lexer.addErrorListener(listener)
    parser = rt.classes.Parser(rt.antlr4.CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(listener)
    parser.addParseListener(rt.classes.Depth(opts.max_recursion))
    parser._errHandler = rt.classes.Strategy(opts)
    node: Node | None = None
    with _DEEP_STACK:
        try:
            tree = parser.start()
            try:
                node = _Visitor(src, issues, opts).visit(tree)
            except (AttributeError, TypeError, IndexError):
                # a tree the error recovery left incomplete in a way cel-go's visitor tolerates and this one does
                # not: the grammar's errors are reported already
                if not issues:
                    raise
        except _Stop as stop:
            if stop.message is not None:
                issues.append((-1, -1, stop.message))
    return (node if not issues else None), issues


class _DeepStack:
    """The interpreter's recursion limit raised for one parse at a time (250 nested rules are some 9 Python frames
    each; the store's offload thread compiles too, hence the lock)."""

    def __init__(self) -> None:
        self.lock, self.saved = threading.Lock(), 0

    def __enter__(self) -> None:
        self.lock.acquire()
        self.saved = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.saved, 20_000))

    def __exit__(self, *exc: object) -> None:
        sys.setrecursionlimit(self.saved)
        self.lock.release()


_DEEP_STACK = _DeepStack()


def display(src: str, line: int, col: int, message: str) -> str:
    """`common.Error.ToDisplayString`: `ERROR: <input>:L:C: message`, the source line (tabs as spaces) and a caret
    under the column, a wide dot for each multi-byte character before it; no snippet without a location."""
    text = f"ERROR: <input>:{line}:{col + 1}: {message}"
    lines = src.split("\n")
    if 1 <= line <= len(lines):
        snippet = lines[line - 1].replace("\t", " ")
        dots = "".join("\uff0e" if ch > "\x7f" else "." for ch in snippet[:max(col, 0)])
        caret = "\uff3e" if col < len(snippet) and snippet[col] > "\x7f" else "^"
        text += f"\n | {snippet}\n | {dots}{caret}"
    return text


def issues_text(src: str, issues: list[Issue], limit: int = ERROR_REPORTING_LIMIT) -> str:
    """`common.Errors.ToDisplayString`: sorted by position, at most 100, then how many more there were."""
    ordered = sorted(issues, key=lambda i: (i[0], i[1]))
    out = [display(src, line, col, message) for line, col, message in ordered[:limit]]
    if len(issues) > limit:
        out.append(f"{len(issues) - limit} more errors were truncated")
    return "\n".join(out)


@lru_cache(maxsize=4096)
def parse(src: str, opts: Options = KUBERNETES) -> tuple[Node | None, str]:
    """cel-go's parse of `src`: its tree (None when it does not parse) and its issues text ("" when none)."""
    node, issues = _parse(src, opts)
    return node, issues_text(src, issues) if issues else ""
