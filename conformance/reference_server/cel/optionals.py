"""cel-go's optional syntax (`cel.OptionalTypes()`, enabled since 1.28; semantics of `interpreter/attributes.go`
`applyQualifiers` and the `optional_*` macros of `parser/parser.go`) over cel-rust, which runs optional values
(`optional.of/none`, `hasValue`, `value`, `orValue`, `or`) but does not parse `.?`, `[?` or `?` entries.

An expression using them is rewritten from our parser's AST before cel-rust compiles it:

- `x.?f` -> `__opt_select(x, 'f')`, `x[?k]` -> `__opt_index(x, k)`; a selection or index after one of these in the
  same chain is optional too (`a.?b.c` is none when `c` is absent, as cel-go's qualifiers after an optional one);
- `[a, ?b]` -> `__opt_list([[false, a], [true, b]])` (a none element left out);
- `{k: v, ?k2: v2}` -> `__opt_map([[k, v, false], [k2, v2, true]])` (a none value's entry left out)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .libs.values import LibraryError
from .parser import Node, ParseError, parse

_OPS = {"@in": "in", "!_": "!", "-_": "-"}


def _uses_optionals(node: Node | None) -> bool:
    if node is None:
        return False
    if node.optional or node.opt_elems or any(opt for _, _, opt in node.entries):
        return True
    return any(_uses_optionals(n) for n in (node.target, *node.args, *(x for k, v, _ in node.entries
                                                                            for x in (k, v))))


def _optional_chain(node: Node | None) -> bool:
    """Whether `node` is an optional selection or index, or a selection or index of one."""
    while node is not None and node.kind in ("select", "index"):
        if node.optional:
            return True
        node = node.target
    return False


class _Emitter:
    def __init__(self, src: str):
        self.src = src

    def __call__(self, node: Node) -> str:
        if not _uses_optionals(node):
            return self.src[node.start:node.end]
        kind = node.kind
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
            args = ", ".join(self(a) for a in node.args)
            return f"{self(node.target)}.{node.value}({args})" if node.target else f"{node.value}({args})"
        if kind == "binary":
            op = _OPS.get(node.value, node.value.strip("_"))
            return f"({self(node.args[0])} {op} {self(node.args[1])})"
        if kind == "unary":
            return f"{_OPS[node.value]}({self(node.args[0])})"
        if kind == "cond":
            return f"({self(node.args[0])} ? {self(node.args[1])} : {self(node.args[2])})"
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
        raise ParseError(f"cannot rewrite a {kind} with optional syntax")


def desugar(expression: str) -> str | None:
    """`expression` without optional syntax, or None when it has none or our parser cannot read it."""
    try:
        tree = parse(expression)
        return _Emitter(expression)(tree) if _uses_optionals(tree) else None
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


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "__opt_select": opt_select, "__opt_index": opt_index, "__opt_list": opt_list, "__opt_map": opt_map,
}
