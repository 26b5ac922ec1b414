"""What cel-rust does not parse or expand, rewritten from our parser's AST before cel-rust compiles it.

cel-go's optional syntax (`cel.OptionalTypes()`, enabled since 1.28; semantics of `interpreter/attributes.go`
`applyQualifiers` and the `optional_*` macros of `parser/parser.go`): cel-rust runs optional values
(`optional.of/none`, `hasValue`, `value`, `orValue`, `or`) but does not parse `.?`, `[?` or `?` entries.

- `x.?f` -> `__opt_select(x, 'f')`, `x[?k]` -> `__opt_index(x, k)`; a selection or index after one of these in the
  same chain is optional too (`a.?b.c` is none when `c` is absent, as cel-go's qualifiers after an optional one);
  `has(a.?b.c)` -> `__opt_has(a.?b', 'c')` (false when `a.?b` is none);
- `[a, ?b]` -> `__opt_list([[false, a], [true, b]])` (a none element left out);
- `{k: v, ?k2: v2}` -> `__opt_map([[k, v, false], [k2, v2, true]])` (a none value's entry left out).

`s.matches(p)` and `matches(s, p)` -> `__matches(s, p)`: Go's regexp rather than cel-rust's (library.py).

cel-go's two-variable comprehensions (`ext.TwoVarComprehensions()`, enabled since 1.32; `ext/comprehensions.go`),
over a list's indexes and values or a map's keys and values, become one-variable macros over `__keys(t)` with the
second variable replaced by `__at(t, first)`:

- `t.all(k, v, p)`, `exists`, `existsOne`/`exists_one` -> `__keys(t).all(k, p')`...;
- `t.transformList(k, v, [f,] e)` -> `__keys(t)[.filter(k, f')].map(k, e')`;
- `t.transformMap(k, v, [f,] e)` -> `__pairs(__keys(t)[.filter(k, f')].map(k, [k, e']))`;
- `t.transformMapEntry(k, v, [f,] e)` -> `__merge(their e')`, a key given twice an error.

Types as values (cel-go's `type(x)`, the type identifiers, the library types' names each library registers with
`cel.Types`): the library values are maps to cel-rust, so an expression that calls `type` or names a library type
has its types rewritten to tagged maps, equal when the types are: `type(e)` -> `__type(e, type(e))` (the value's
library type, else cel-rust's own answer, whose names are cel-go's), `int`, `net.IP`, ... -> `{'@cel.type':
'type', 'name': 'net.IP'}`.

cel-go's arithmetic where cel-rust's differs (libs/arith.py), each operand bound once by a one-element `map`
(`[e].map(__ea, ...)[0]`: cel-rust has no `cel.bind`) and tested by its runtime type, so the other types keep
cel-rust's own operators:
- always: `-e` (not a literal) -> an int's negation checked, a duration's exact; a conversion of a duration or
  timestamp (`int`, `string`, `duration`, `timestamp`) reads cel-rust's exact text of it, not Python's
  microseconds;
- `TIME` (the expression calls `duration` or `timestamp`, or its inputs hold durations: a CRD's `duration` and
  `date-time` fields): `a + b`, `a - b` of durations and timestamps computed exactly, with cel-go's overflow
  checks;
- `EXACT` (the program the engine runs again after cel-rust refused an operation: `no such overload`, an
  overflow, an index's type, a missing numeric key): also `a * b` of uints, `l[d]` of a double, `m[k]` of a
  number of another numeric type (libs/mapkeys.py), `v.f` and `has(v.f)` of a value that is not a map, as cel-go
  reads them;
- where the expression can make a map with numeric keys (a map literal's non-string key, `transformMap`, a
  policy's `variables`): `k in m`, `a == b` and `a != b` find keys of another numeric type (libs/mapkeys.py);
- with a CRD's paths to `date-time`/`duration` fields (exacttime.py): each read of one converted from the exact
  text its value may come as; at `TIME`, `s.format(args)` given each argument's exact text (`format_exact`)."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..goport.godur import DurationError, parse_duration
from . import exacttime
from .libs import arith, mapkeys
from .libs.conversions import REPLACED, WRAPPED, go_duration, go_timestamp
from .libs.values import TYPE_KEY, LibraryError, type_name
from .parser import Node, ParseError, children, optional_chain as _optional_chain, parse, qualified_name
from .types import TYPE_IDENTS


_COMPREHENSIONS = frozenset({"all", "exists", "exists_one", "map", "filter"})
_TWO_VAR = frozenset({"all", "exists", "existsOne", "exists_one", "transformList", "transformMap",
                      "transformMapEntry"})


def _two_var(node: Node) -> bool:
    return (node.kind == "call" and node.target is not None and node.value in _TWO_VAR
            and len(node.args) >= 3 and node.args[0].kind == "ident" and node.args[1].kind == "ident"
            and (node.value.startswith("transform") or len(node.args) == 3))


def _type_call(node: Node) -> bool:
    return node.kind == "call" and node.target is None and node.value == "type" and len(node.args) == 1


def _type_named(node: Node) -> str | None:
    """The type `node` names as a value (`int`, `net.IP`), if any."""
    if node.kind not in ("ident", "select"):
        return None
    name = qualified_name(node)
    return name if name in TYPE_IDENTS else None


def _asks_types(node: Node | None) -> bool:
    """Whether the expression calls `type` or names a library type (`net.IP`)."""
    if node is None:
        return False
    if _type_call(node) or (node.kind == "select" and _type_named(node)):
        return True
    return any(_asks_types(n) for n in children(node))


# what cel-rust reads exactly as Go does (it reads a duration's numbers as float64s, and neither `+` nor the micro
# sign): durations of one whole number of one unit (below 2^53 ns), timestamps in RFC 3339's strict form (two-digit
# hours, a `.` fraction of at most nine digits, offsets below 24 hours, years from 1)
_RUST_DURATION = re.compile(r"-?[0-9]+(?:ns|us|ms|s|m|h)", re.ASCII)
_RUST_TIMESTAMP = re.compile(r"(?!0000)[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?"
                             r"(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])", re.ASCII)


def _literal_form(node: Node) -> str | None:
    """The text cel-rust reads as Go reads a string literal argument of `duration`/`timestamp` (the literal
    validators accepted it), when cel-rust would read the literal's own text otherwise or not at all."""
    name, arg = node.value, node.args[0]
    kind, value = arg.value
    if kind != "string" or not isinstance(value, str):
        return None
    try:
        if name == "duration" and not (_RUST_DURATION.fullmatch(value) and abs(parse_duration(value)) < 1 << 53):
            return str(go_duration(value))
        if name == "timestamp" and not _RUST_TIMESTAMP.fullmatch(value):
            return str(go_timestamp(value))
    except (LibraryError, DurationError):
        return None
    return None


def _conversion(node: Node) -> bool:
    """A conversion cel-rust computes otherwise than cel-go (libs/conversions.py): of a value not known when
    compiling, of a literal of another type (`int('1')`, `string(1.5)`), or of a duration or timestamp literal
    cel-rust would misread."""
    if node.kind != "call" or node.target is not None or len(node.args) != 1 \
            or (node.value not in REPLACED and node.value not in WRAPPED):
        return False
    arg = node.args[0]
    if arg.kind != "lit":
        return True
    kind = arg.value[0]
    if node.value in REPLACED:
        return kind not in ("string", "int", "uint", "bool")
    if node.value in ("duration", "timestamp") and kind == "string":
        return _literal_form(node) is not None
    return kind != node.value


PLAIN, TIME, EXACT = 0, 1, 2  # how much of cel-go's arithmetic the rewrite takes over (module docstring)
_DUR, _TS = "type(duration('0s'))", "type(timestamp('1970-01-01T00:00:00Z'))"
# cel-rust's exact text of a duration (its `string()` rounds past 2^62 ns: whole seconds, then the rest's) or of a
# timestamp, read by libs/arith.py; '' for any other value
_DURATION_TEXT = "string({v}.getSeconds()) + ' ' + string({v} - duration(string({v}.getSeconds()) + 's'))"
_EXACT_TEXT = (f"(type({{v}}) == {_DUR} ? {_DURATION_TEXT} : type({{v}}) == {_TS} ? string({{v}}) : '')")
# the conversions whose argument may be a duration or timestamp cel-go converts
_TIME_CONVERSIONS = frozenset({"int", "string", "duration", "timestamp"})
# Names cel-go resolves as qualified functions (`math.greatest`, `sets.contains`, `cel.bind`, `optional.of`,
# `strings.quote`, `base64.encode`) or qualified type names (`net.IP`, `kubernetes.Quantity`,
# `google.protobuf.Timestamp`): never a field selection (and, to the engine, never an undeclared variable)
NAMESPACES = frozenset({"math", "sets", "cel", "optional", "strings", "base64", "format", "net", "kubernetes",
                        "google"})


def _negation(node: Node) -> bool:
    return node.kind == "unary" and node.value == "-_"


def _arith(node: Node, level: int, maps: bool = False) -> bool:
    """Whether `node` is an operation this level rewrites (beyond conversions); `maps`: the expression can make a
    map with numeric keys, so `in`, `==` and `!=` find a key of another numeric type (libs/mapkeys.py)."""
    if _negation(node):
        return True
    if (maps or level >= EXACT) and _map_operation(node):
        return True
    if level >= TIME and node.kind == "binary" and node.value in ("_+_", "_-_"):
        return True
    if level < EXACT:
        return False
    if node.kind == "binary" and node.value == "_*_":
        return True
    if node.kind in ("index", "select") and not node.optional and not _optional_chain(node.target):
        return node.kind == "index" or _field_selection(node)
    return False


def _map_operation(node: Node) -> bool:
    """`k in c`, unless `c` is a list literal (cel-rust's list `in` is cel-go's) or `k` a string literal; or
    `a == b`, `a != b` of operands that may be maps or lists holding them (not scalar literals)."""
    if node.kind != "binary":
        return False
    if node.value in ("_==_", "_!=_"):
        return not any(a.kind == "lit" for a in node.args)
    return node.value == "@in" and node.args[1].kind != "list" \
        and not (node.args[0].kind == "lit" and node.args[0].value[0] == "string")


def _numeric_maps(node: Node | None) -> bool:
    """Whether the expression can make a map with keys that are not strings: a map literal whose key is not a
    string literal, `transformMap`/`transformMapEntry`, or a policy's `variables` (made by other expressions). A
    custom resource's, a request's and a parameter object's maps come from JSON: string keys."""
    if node is None:
        return False
    if node.kind == "map" and any(not (k.kind == "lit" and k.value[0] == "string") for k, _, _ in node.entries):
        return True
    if node.kind == "call" and node.value in ("transformMap", "transformMapEntry"):
        return True
    if node.kind == "ident" and node.value == "variables":
        return True
    return any(_numeric_maps(n) for n in children(node))


def _field_selection(node: Node) -> bool:
    """A selection of a field, not a qualified function or type name (`math.greatest`, `net.IP`)."""
    root = node.target
    while root is not None and root.kind == "select":
        root = root.target
    return not (root is not None and root.kind == "ident" and root.value in NAMESPACES
                and qualified_name(node) is not None)


def _matches(node: Node) -> bool:
    """A `matches` call, receiver style or global: cel-rust's own runs Rust's `regex` crate (Unicode `\\d`/`\\w`/`\\b`,
    no `\\Q...\\E`, other limits); `__matches` runs Go's regexp (library.py)."""
    return node.kind == "call" and node.value == "matches" \
        and len(node.args) == (1 if node.target is not None else 2)


def _format_call(node: Node) -> bool:
    """`s.format(args)`: at TIME, its durations and timestamps handed over with their exact texts."""
    return node.kind == "call" and node.value == "format" and node.target is not None and len(node.args) == 1


def _needs_rewrite(node: Node | None, types: bool = False, level: int = PLAIN, maps: bool = False) -> bool:
    if node is None:
        return False
    if _conversion(node) or _matches(node) or _arith(node, level, maps) or (level >= TIME and _format_call(node)):
        return True
    if node.optional or node.opt_elems or any(opt for _, _, opt in node.entries) or _two_var(node):
        return True
    if types and (_type_call(node) or _type_named(node)):
        return True
    return any(_needs_rewrite(n, types, level, maps) for n in children(node))


def _bind(value: str, body: str, name: str = "__ea") -> str:
    """`body` with `name` bound to `value`, evaluated once."""
    return f"[{value}].map({name}, {body})[0]"


class _Emitter:
    def __init__(self, src: str, subst: dict[str, str] | None = None, types: bool = False,
                 bound: frozenset[str] = frozenset(), level: int = PLAIN, maps: bool = False,
                 times: tuple[dict[int, str], frozenset[int]] = ({}, frozenset())):
        self.src, self.subst, self.types, self.bound, self.level = src, subst or {}, types, bound, level
        # `times`: the nodes that read a duration or timestamp field (exacttime.py), and the nodes holding them
        self.maps, self.times = maps, times

    def inner(self, *bound: str, extra: dict[str, str] | None = None) -> _Emitter:
        """The emitter for a body where `bound` names are a macro's own (they shadow a substitution, and a type
        name)."""
        subst = {k: v for k, v in self.subst.items() if k not in bound}
        return _Emitter(self.src, {**subst, **(extra or {})}, self.types, self.bound | set(bound), self.level,
                        self.maps, self.times)

    def __call__(self, node: Node) -> str:
        marks = self.times[0]
        if id(node) in marks:  # a duration or timestamp field, read exactly
            if marks[id(node)].startswith(exacttime.EQUAL):  # values holding them, compared whole
                left, right = (self(a) for a in node.args)
                return exacttime.equal_source(left, right, marks[id(node)], node.value == "_!=_")
            return exacttime.wrap_source(self.emit(node), marks[id(node)])
        return self.emit(node)

    def emit(self, node: Node) -> str:
        if not self.subst and id(node) not in self.times[1] \
                and not _needs_rewrite(node, self.types, self.level, self.maps):
            return self.src[node.start:node.end]
        if _arith(node, self.level, self.maps):
            return self.arith(node)
        kind = node.kind
        named = _type_named(node) if self.types else None
        if named is not None and named.split(".")[0] not in self.bound and named not in self.subst:
            return f"{{'{TYPE_KEY}': 'type', 'name': '{named}'}}"
        if kind == "lit":
            return self.src[node.start:node.end]
        if kind == "ident":
            return f"({self.subst[node.value]})" if node.value in self.subst else node.value
        if kind == "select":
            assert node.target is not None
            if node.optional or _optional_chain(node.target):
                return f"__opt_select({self(node.target)}, {node.value!r})"
            return f"{self(node.target)}.{node.value}"
        if kind == "index":
            assert node.target is not None
            if node.optional or _optional_chain(node.target):
                return f"__opt_index({self(node.target)}, {self(node.args[0])})"
            return f"{self(node.target)}[{self(node.args[0])}]"
        if kind == "call":
            return self.call(node)
        if kind in ("binary", "unary", "cond"):
            return self.splice(node)
        if kind == "list":
            if not node.opt_elems:
                return "[" + ", ".join(self(e) for e in node.args) + "]"
            pairs = ", ".join(f"[{str(i in node.opt_elems).lower()}, {self(e)}]" for i, e in enumerate(node.args))
            return f"__opt_list([{pairs}])"
        if kind == "map":
            if not any(opt for _, _, opt in node.entries):
                return "{" + ", ".join(f"{self(k)}: {self(v)}" for k, v, _ in node.entries) + "}"
            triples = ", ".join(f"[{self(k)}, {self(v)}, {str(opt).lower()}]" for k, v, opt in node.entries)
            return f"__opt_map([{triples}])"
        raise ParseError(f"cannot rewrite a {kind}")

    def splice(self, node: Node) -> str:
        """An operator's own source with its operands rewritten: its parentheses and spacing kept (parentheses
        added at each level would soon exceed cel-rust's parser recursion limit of 96)."""
        out, pos = [], node.start
        for child in sorted(node.args, key=lambda c: c.start):
            out += [self.src[pos:child.start], self(child)]
            pos = child.end
        return "".join(out) + self.src[pos:node.end]

    def arith(self, node: Node) -> str:
        """cel-go's arithmetic for an operation cel-rust computes otherwise (libs/arith.py)."""
        if _negation(node):
            operand, negations = node.args[0], 1
            while _negation(operand) and self.src[node.start:operand.start].strip("- \t\r\n") == "":
                operand, negations = operand.args[0], negations + 1  # cel-go's parser drops `--`
            if negations % 2 == 0:
                return self(operand)
            exact = _DURATION_TEXT.format(v="__ea")
            return _bind(self(operand), f"type(__ea) == {_DUR} ? duration(__neg_duration({exact})) : "
                                        "type(__ea) == int ? __neg_int(__ea) : -__ea")
        if node.kind == "select":
            assert node.target is not None
            field = node.value if re.fullmatch(r"[A-Za-z_]\w*", node.value) else None
            select = f"__ea.{field}" if field else f"__ea[{node.value!r}]"
            return _bind(self(node.target), f"type(__ea) == map ? {select} : __no_field(__ea, {node.value!r})")
        left, right = (self(a) for a in ([node.target, node.args[0]] if node.kind == "index" else node.args))
        if node.kind == "index":
            body = (f"type(__ea) == map ? ({mapkeys.index_source('__ea', '__eb')}) : "
                    "type(__eb) == double && type(__ea) == list ? __ea[__list_index(__eb)] : __ea[__eb]")
        elif node.value == "@in":
            body = mapkeys.contains_source("__ea", "__eb")
        elif node.value in ("_==_", "_!=_"):
            body = mapkeys.equal_source("__ea", "__eb")
            body = body if node.value == "_==_" else f"!({body})"
        elif node.value == "_*_":
            body = "type(__ea) == uint && type(__eb) == uint ? uint(__umul(__ea, __eb)) : __ea * __eb"
        else:
            op = node.value[1]
            texts = ", ".join(f"__e{v}, " + _EXACT_TEXT.format(v=f"__e{v}") for v in "ab")
            call = f"__time_arith('{op}', {texts})"
            body = (f"type(__ea) == {_DUR} || type(__ea) == {_TS} || type(__eb) == {_DUR} || type(__eb) == {_TS}"
                    f" ? ((type(__ea) == {_TS}) != (type(__eb) == {_TS}) ? timestamp({call}) : duration({call}))"
                    f" : __ea {op} __eb")
        return _bind(left, _bind(right, body, "__eb"))

    def call(self, node: Node) -> str:
        name, target, args = node.value, node.target, node.args
        if _two_var(node):
            return self.two_var(node)
        if self.level >= EXACT and target is None and name == "has" and len(args) == 1 \
                and args[0].kind == "select" and not _optional_chain(args[0]) and args[0].target is not None:
            field = args[0].value
            test = f"has(__ea.{field})" if re.fullmatch(r"[A-Za-z_]\w*", field) else f"{field!r} in __ea"
            return _bind(self(args[0].target), f"type(__ea) == map ? {test} : __has_field(__ea, {field!r})")
        if _conversion(node):
            if name in ("duration", "timestamp") and args[0].kind == "lit" and args[0].value[0] == "string":
                return f"{name}({_literal_form(node)!r})"
            if name in _TIME_CONVERSIONS and args[0].kind != "lit":  # a duration or timestamp read exactly
                inner = _bind(self(args[0]), f"{REPLACED.get(name) or WRAPPED[name]}(__ea, "
                                             f"{_EXACT_TEXT.format(v='__ea')})")
                return inner if name in REPLACED else f"{name}({inner})"
            if name in REPLACED:
                return f"{REPLACED[name]}({self(args[0])})"
            return f"{name}({WRAPPED[name]}({self(args[0])}))"
        if self.level >= TIME and _format_call(node):  # libs/strformat.py `format_exact`
            pairs = f"type(__ef) == list ? __ef.map(__eg, [__eg, {_EXACT_TEXT.format(v='__eg')}]) : __ef"
            return f"__format_exact({self(target)}, {_bind(self(args[0]), pairs, '__ef')})"
        if _matches(node):
            operands = ([target] if target is not None else []) + list(args)
            return f"__matches({', '.join(self(a) for a in operands)})"
        if self.types and _type_call(node):
            value = self(args[0])
            return f"__type({value}, type({value}))"
        if target is None and name == "has" and len(args) == 1 and args[0].kind == "select" \
                and _optional_chain(args[0]):  # a presence test in an optional chain: `has(a.?b.c)`
            assert args[0].target is not None
            return f"__opt_has({self(args[0].target)}, {args[0].value!r})"
        if target is not None and name in _COMPREHENSIONS and len(args) in (2, 3) and args[0].kind == "ident":
            body = self.inner(args[0].value)
            return f"{self(target)}.{name}({args[0].value}, {', '.join(body(a) for a in args[1:])})"
        if target is not None and target.kind == "ident" and target.value == "cel" and name == "bind" \
                and len(args) == 3 and args[0].kind == "ident":
            return f"cel.bind({args[0].value}, {self(args[1])}, {self.inner(args[0].value)(args[2])})"
        rendered = ", ".join(self(a) for a in args)
        return f"{self(target)}.{name}({rendered})" if target is not None else f"{name}({rendered})"

    def two_var(self, node: Node) -> str:
        assert node.target is not None
        first, second = node.args[0].value, node.args[1].value
        target = self(node.target)
        body = self.inner(first, second, extra={second: f"__at({target}, {first})"})
        keys = f"__keys({target})"
        rest = [body(a) for a in node.args[2:]]
        name = node.value
        if name in ("all", "exists"):
            return f"{keys}.{name}({first}, {rest[0]})"
        if name in ("existsOne", "exists_one"):
            return f"{keys}.exists_one({first}, {rest[0]})"
        if len(rest) == 2:
            keys = f"{keys}.filter({first}, {rest[0]})"
        if name == "transformList":
            return f"{keys}.map({first}, {rest[-1]})"
        if name == "transformMap":  # keys and values in one pass: a map's order is not stable across reads
            return f"__pairs({keys}.map({first}, [{first}, {rest[-1]}]))"
        return f"__merge({keys}.map({first}, {rest[-1]}))"


def desugar(expression: str, level: int = PLAIN, times: exacttime.TimePaths = frozenset()) -> str | None:
    """`expression` rewritten for cel-rust (with `level` of cel-go's arithmetic; `times`: the paths from `self` to
    fields holding durations or timestamps, read exactly), or None when it needs no rewrite or our parser cannot
    read it."""
    try:
        tree = parse(expression)
        types, maps, marked = _asks_types(tree), _numeric_maps(tree), exacttime.mark(tree, times)
        return _Emitter(expression, types=types, level=level, maps=maps, times=marked)(tree) \
            if marked[0] or _needs_rewrite(tree, types, level, maps) else None
    except (ParseError, RecursionError):
        return None


def _optional() -> Any:
    from .engine import native
    return native().OptionalValue


def _unwrap(target: Any) -> tuple[bool, Any]:
    if isinstance(target, _optional()):
        return (True, target.value()) if target.has_value() else (False, None)
    return True, target


def opt_select(target: Any, name: str) -> Any:
    present, value = _unwrap(target)
    optional = _optional()
    if not present:
        return optional.none()
    if not isinstance(value, dict):
        raise LibraryError(f"no such overload: optional field selection of '{name}'")
    return optional.of(value[name]) if name in value else optional.none()


def opt_index(target: Any, key: Any) -> Any:
    present, value = _unwrap(target)
    optional = _optional()
    if not present:
        return optional.none()
    if isinstance(value, (list, tuple)):
        if isinstance(key, bool) or not isinstance(key, (int, float)) or key != int(key):
            raise LibraryError("no such overload: optional index")
        return optional.of(value[int(key)]) if 0 <= key < len(value) else optional.none()
    if isinstance(value, dict):
        return optional.of(value[key]) if key in value else optional.none()
    raise LibraryError("no such overload: optional index")


def opt_has(target: Any, name: str) -> bool:
    """`has()` of a field of an optional value: false when the value is none."""
    present, value = _unwrap(target)
    if not present:
        return False
    if not isinstance(value, dict):
        raise LibraryError(f"no such overload: presence test of '{name}'")
    return name in value


def _entry_value(value: Any) -> tuple[bool, Any]:
    if not isinstance(value, _optional()):
        raise LibraryError("cannot initialize optional entry from non-optional value")
    return _unwrap(value)


def opt_list(pairs: list[list[Any]]) -> list[Any]:
    out = []
    for optional, value in pairs:
        if optional:
            present, value = _entry_value(value)
            if not present:
                continue
        out.append(value)
    return out


def opt_map(triples: list[list[Any]]) -> dict[Any, Any]:
    out = {}
    for key, value, optional in triples:
        if optional:
            present, value = _entry_value(value)
            if not present:
                continue
        out[key] = value
    return out


def keys(target: Any) -> list[Any]:
    if isinstance(target, dict):
        return list(target)
    if isinstance(target, (list, tuple)):
        return list(range(len(target)))
    raise LibraryError("no such overload")


def at(target: Any, key: Any) -> Any:
    return target[key]


def pairs(entries: list[list[Any]]) -> dict[Any, Any]:
    return {k: v for k, v in entries}


def merge(maps: list[Any]) -> dict[Any, Any]:
    """`transformMapEntry`'s result: the entries of every map, a key given twice an error."""
    out: dict[Any, Any] = {}
    for m in maps:
        if not isinstance(m, dict):
            raise LibraryError("no such overload")
        for k, v in m.items():
            if k in out:
                raise LibraryError(f"insert failed: key {k} already exists")
            out[k] = v
    return out


def type_of(value: Any, builtin: str) -> dict[str, Any]:
    """A value's type: its library type's, else the name cel-rust gave (`builtin`)."""
    return {TYPE_KEY: "type", "name": type_name(value) or builtin}


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "__type": type_of, "__opt_select": opt_select, "__opt_has": opt_has, "__opt_index": opt_index, "__opt_list": opt_list, "__opt_map": opt_map,
    "__keys": keys, "__at": at, "__pairs": pairs, "__merge": merge, **arith.FUNCTIONS, **mapkeys.FUNCTIONS,
    **exacttime.FUNCTIONS,
}
