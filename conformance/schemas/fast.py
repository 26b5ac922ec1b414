"""A compiled yes/no check for the package's own schemas: the suites validate ~600 bodies a run, and jsonschema
spends ~0.5 ms on each walking the schema afresh (a validator `evolve`d per keyword). Here each schema becomes a
tree of closures once.

The check only ever answers "valid" when jsonschema (Draft 2020-12, the package's format checker) would find
no error; anything else, and every keyword it does not implement, sends the body to jsonschema, which alone
words the failure. So a verdict never changes, only the time a valid body takes.

It does not import jsonschema (or referencing): a run whose bodies are all valid never needs them, and their
import is a quarter of a second of every run's start-up. Types, equality and the one format the package's
schemas use are written out here with jsonschema's semantics; `$ref`s resolve through `Documents`.
"""

from __future__ import annotations

import calendar
import re
from typing import Any, Callable, Mapping
from urllib.parse import urljoin, urldefrag

BASE_URI = "https://nsconform.dev/schemas/"  # (the package's documents: a $ref into one resolves to its root)

Check = Callable[[Any], bool]

# Draft 2020-12's assertion and applicator keywords (jsonschema's Draft202012Validator.VALIDATORS)
_KEYWORDS = frozenset({
    "$dynamicRef", "$ref", "additionalProperties", "allOf", "anyOf", "const", "contains", "dependentRequired",
    "dependentSchemas", "enum", "exclusiveMaximum", "exclusiveMinimum", "format", "if", "items", "maxItems",
    "maxLength", "maxProperties", "maximum", "minItems", "minLength", "minProperties", "minimum", "multipleOf",
    "not", "oneOf", "pattern", "patternProperties", "prefixItems", "properties", "propertyNames", "required",
    "type", "unevaluatedItems", "unevaluatedProperties", "uniqueItems"})
# keywords compiled below; any other assertion keyword jsonschema knows makes the schema "not compilable"
_SUPPORTED = frozenset({"$ref", "type", "properties", "required", "additionalProperties", "items", "const", "enum",
                        "minimum", "maximum", "minLength", "minItems", "allOf", "if", "then", "else", "format"})
_EXACT = {"object": dict, "array": list, "string": str, "null": type(None), "boolean": bool}


class NotCompilable(Exception):
    """The schema uses a keyword (or keyword shape) this module does not implement: use jsonschema alone."""


class Documents:
    """Resolves `$ref`s among the package's documents (by `$id`) and JSON pointers inside them: what
    `referencing.Registry.resolver(...).lookup` answers for them, as `.contents` and `.resolver`."""

    def __init__(self, by_uri: Mapping[str, Any], base_uri: str) -> None:
        self._by_uri = by_uri
        self.base_uri = base_uri
        self.contents: Any = None
        self.resolver: "Documents" = self

    def lookup(self, ref: str) -> "Documents":
        uri, fragment = urldefrag(self.base_uri + ref if ref.startswith("#") else urljoin(self.base_uri, ref))
        if uri not in self._by_uri:
            raise NotCompilable(f"unresolvable $ref {ref!r}")
        node = self._by_uri[uri]
        for token in (fragment.split("/")[1:] if fragment else ()):
            token = token.replace("~1", "/").replace("~0", "~")
            try:
                node = node[int(token)] if isinstance(node, list) else node[token]
            except (KeyError, IndexError, ValueError, TypeError):
                raise NotCompilable(f"unresolvable $ref {ref!r}") from None
        found = Documents(self._by_uri, uri)
        found.contents = node
        return found


def compile_schema(schema: Any, resolver: Any) -> Check:
    """`check(body) -> bool`: True only when jsonschema would find `body` valid against `schema`."""
    return _Compiler(schema).compile(schema, resolver)


class _Compiler:
    def __init__(self, root: Any) -> None:
        self._root = root
        self._done: dict[int, list[Check]] = {}  # id(subschema) -> a cell, so recursive $refs terminate

    def compile(self, node: Any, resolver: Any) -> Check:
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
        unknown = sorted(k for k in node if k in _KEYWORDS and k not in _SUPPORTED)
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

    def _keyword(self, k: str, node: dict[str, Any], resolver: Any) -> Check | None:
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
            return lambda i: not _is_type(i, "number") or not i < v
        if k == "maximum":
            return lambda i: not _is_type(i, "number") or not i > v
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
            if v != "date-time":
                raise NotCompilable(f"format {v!r}")
            return lambda i: not isinstance(i, str) or _rfc3339(i)
        raise NotCompilable(k)  # pragma: no cover - _SUPPORTED and this list are the same


def _type(v: Any) -> Check:
    names = [v] if isinstance(v, str) else list(v)
    if len(names) == 1 and names[0] in _EXACT:
        exact = _EXACT[names[0]]
        if exact is dict or exact is list or exact is str:  # jsonschema: isinstance(instance, dict | list | str)
            return lambda i: isinstance(i, exact)
    if any(n not in _TYPE_NAMES for n in names):
        raise NotCompilable(f"type {v!r}")
    return lambda i: any(_is_type(i, n) for n in names)


_TYPE_NAMES = frozenset({"object", "array", "string", "null", "boolean", "number", "integer"})


def _is_type(i: Any, name: str) -> bool:
    """jsonschema's Draft 2020-12 type checker: booleans are not numbers, 1.0 is an integer."""
    if name == "number":
        return isinstance(i, (int, float)) and not isinstance(i, bool)
    if name == "integer":
        if isinstance(i, bool):
            return False
        return isinstance(i, int) or (isinstance(i, float) and i.is_integer())
    if name == "boolean":
        return isinstance(i, bool)
    return isinstance(i, _EXACT[name])


def equal(one: Any, two: Any) -> bool:
    """jsonschema's `_utils.equal`: JSON equality, where True is not 1 and False is not 0."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(equal(one[k], two[k]) for k in one)
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two))
    if isinstance(one, bool) != isinstance(two, bool):
        return False
    return bool(one == two)


_DATE_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))")


def _rfc3339(text: str) -> bool:
    """A strict RFC 3339 date-time (what `rfc3339-validator` accepts, or narrower: jsonschema then decides, and
    without that package installed it checks no date-time at all)."""
    m = _DATE_TIME.fullmatch(text)
    if m is None:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1] and hour < 24 and minute < 60
            and second < 60):
        return False
    return m.group(7) is None or (int(m.group(7)) < 24 and int(m.group(8)) < 60)


def _if_then_else(cond: Check, node: dict[str, Any], resolver: Any, compiler: _Compiler) -> Check:
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
        if k not in _KEYWORDS:
            continue
        if k in ("const", "enum", "type", "required", "minimum", "maximum", "minLength", "minItems"):
            continue
        if k == "properties" and all(_exact(sub) for sub in v.values()):
            continue
        return False
    return True
