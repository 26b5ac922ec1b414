"""A compiled yes/no check for the package's own schemas: the suites validate ~600 bodies a run, and jsonschema
spends ~0.5 ms on each walking the schema afresh (a validator `evolve`d per keyword). Here each schema becomes a
tree of closures once.

The check only ever answers "valid" when jsonschema (Draft 2020-12, the package's format checker) would find
no error; anything else, and every keyword it does not implement, sends the body to jsonschema, which alone
words the failure. So a verdict never changes, only the time a valid body takes.
"""

from __future__ import annotations

from typing import Any, Callable

import jsonschema
from jsonschema._utils import equal
from referencing._core import Resolver

BASE_URI = "https://nsconform.dev/schemas/"  # (the package's documents: a $ref into one resolves to its root)

Check = Callable[[Any], bool]

_VALIDATOR = jsonschema.Draft202012Validator
_TYPES = _VALIDATOR.TYPE_CHECKER
_FORMATS = _VALIDATOR.FORMAT_CHECKER
# keywords compiled below; any other assertion keyword jsonschema knows makes the schema "not compilable"
_SUPPORTED = frozenset({"$ref", "type", "properties", "required", "additionalProperties", "items", "const", "enum",
                        "minimum", "maximum", "minLength", "minItems", "allOf", "if", "then", "else", "format"})
_EXACT = {"object": dict, "array": list, "string": str, "null": type(None), "boolean": bool}


class NotCompilable(Exception):
    """The schema uses a keyword (or keyword shape) this module does not implement: use jsonschema alone."""


def compile_schema(schema: Any, resolver: Resolver) -> Check:
    """`check(body) -> bool`: True only when jsonschema would find `body` valid against `schema`."""
    return _Compiler(schema).compile(schema, resolver)


class _Compiler:
    def __init__(self, root: Any) -> None:
        self._root = root
        self._done: dict[int, list[Check]] = {}  # id(subschema) -> a cell, so recursive $refs terminate

    def compile(self, node: Any, resolver: Resolver) -> Check:
        if node is True:
            return lambda _i: True
        if node is False:
            return lambda _i: False
        if not isinstance(node, dict):
            raise NotCompilable(f"schema {node!r}")
        key = id(node)
        if key in self._done:
            cell = self._done[key]
            return lambda i: cell[0](i)
        cell: list[Check] = [lambda _i: False]
        self._done[key] = cell
        if "$id" in node and node is not self._root and not node["$id"].startswith(BASE_URI):
            raise NotCompilable("a nested $id")  # (none of the package's schemas has one)
        unknown = sorted(k for k in node if k in _VALIDATOR.VALIDATORS and k not in _SUPPORTED)
        if unknown:
            raise NotCompilable(f"keywords {unknown}")
        checks = [c for c in (self._keyword(k, node, resolver) for k in node if k in _SUPPORTED) if c is not None]
        if not checks:
            fn: Check = lambda _i: True  # noqa: E731
        elif len(checks) == 1:
            fn = checks[0]
        else:
            fn = lambda i: all(c(i) for c in checks)  # noqa: E731
        cell[0] = fn
        return fn

    def _keyword(self, k: str, node: dict[str, Any], resolver: Resolver) -> Check | None:
        v = node[k]
        if k == "$ref":
            resolved = resolver.lookup(v)
            return self.compile(resolved.contents, resolved.resolver)
        if k == "type":
            return _type(v)
        if k == "properties":
            props = [(name, self.compile(sub, resolver)) for name, sub in v.items()]
            return lambda i: not isinstance(i, dict) or all(c(i[n]) for n, c in props if n in i)
        if k == "required":
            names = tuple(v)
            return lambda i: not isinstance(i, dict) or all(n in i for n in names)
        if k == "additionalProperties":
            if "patternProperties" in node:
                raise NotCompilable("patternProperties")
            known = frozenset(node.get("properties", {}))
            extra = self.compile(v, resolver)
            return lambda i: not isinstance(i, dict) or all(extra(i[n]) for n in i if n not in known)
        if k == "items":
            if "prefixItems" in node:
                raise NotCompilable("prefixItems")
            each = self.compile(v, resolver)
            return lambda i: not isinstance(i, list) or all(each(x) for x in i)
        if k == "const":
            return lambda i: equal(i, v)
        if k == "enum":
            choices = list(v)
            return lambda i: any(equal(c, i) for c in choices)
        if k == "minimum":
            return lambda i: not _TYPES.is_type(i, "number") or not i < v
        if k == "maximum":
            return lambda i: not _TYPES.is_type(i, "number") or not i > v
        if k == "minLength":
            return lambda i: not isinstance(i, str) or len(i) >= v
        if k == "minItems":
            return lambda i: not isinstance(i, list) or len(i) >= v
        if k == "allOf":
            parts = [self.compile(sub, resolver) for sub in v]
            return lambda i: all(p(i) for p in parts)
        if k == "if":  # the condition must be exact: an `if` jsonschema would pass but this fails is refused
            return _if_then_else(self.compile(v, resolver), node, resolver, self)
        if k in ("then", "else"):
            return None  # (compiled with their `if`; without one jsonschema ignores them)
        if k == "format":
            return lambda i: _FORMATS.conforms(i, v)
        raise NotCompilable(k)  # pragma: no cover - _SUPPORTED and this list are the same


def _type(v: Any) -> Check:
    names = [v] if isinstance(v, str) else list(v)
    if len(names) == 1 and names[0] in _EXACT:
        exact = _EXACT[names[0]]
        if exact is dict or exact is list or exact is str:  # jsonschema: isinstance(instance, dict | list | str)
            return lambda i: isinstance(i, exact)
    return lambda i: any(_TYPES.is_type(i, n) for n in names)


def _if_then_else(cond: Check, node: dict[str, Any], resolver: Resolver, compiler: _Compiler) -> Check:
    if not _exact(node["if"]):
        raise NotCompilable("an `if` this module cannot decide exactly")
    then = compiler.compile(node["then"], resolver) if "then" in node else None
    other = compiler.compile(node["else"], resolver) if "else" in node else None

    def check(i: Any) -> bool:
        if cond(i):
            return then is None or then(i)
        return other is None or other(i)
    return check


def _exact(node: Any) -> bool:
    """Is the compiled check of this `if` schema exactly jsonschema's verdict (not merely "valid implies
    valid")? True for the shapes the package uses: properties holding const/enum/type/required, and booleans."""
    if isinstance(node, bool):
        return True
    if not isinstance(node, dict):
        return False
    for k, v in node.items():
        if k not in _VALIDATOR.VALIDATORS:
            continue
        if k in ("const", "enum", "type", "required", "minimum", "maximum", "minLength", "minItems"):
            continue
        if k == "properties" and all(_exact(sub) for sub in v.values()):
            continue
        return False
    return True
