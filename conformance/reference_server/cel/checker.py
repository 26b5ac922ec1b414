"""A type inference over the AST (`parser.py`) in the manner of cel-go's checker (`github.com/google/cel-go/checker/
checker.go`, the standard declarations of `common/stdlib`, the Kubernetes libraries' declarations in
`staging/src/k8s.io/apiserver/pkg/cel/library/`): the output type an expression has and the `found no matching
overload for '<fn>' applied to '<args>'` / `undefined field '<f>'` errors, at the offsets cel-go reports them.

It is deliberately partial: `object`, `oldObject` and `params` are `dyn` (no schema, as upstream's write-time
compile), anything it cannot tell is `UNKNOWN`, and it reports an error only when every argument's type is known
and no declared overload of a function it knows can take them: an expression upstream accepts is never refused."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .engine import TYPE_NAMES
from .parser import Node
from .types import (BOOL, BYTES, CIDR, DOUBLE, DURATION, DYN, FORMAT, INT, IP, NULL, NUMBERS, OBJECTS, PRIMITIVES,
                    QUANTITY, SEMVER, STRING, TIMESTAMP, TYPE, UINT, UNKNOWN, URL, Type, list_of, map_of, optional_of)

A, B = Type("A"), Type("B")
# Libraries 1.33 introduces (base.go IntroducedVersion 1.33): its environment for new expressions is that of the
# default compatibility version, 1.32, without them; stored expressions (the status controller's) have them.
NEWER_THAN_COMPATIBILITY = frozenset({"semver", "isSemver", "major", "minor", "patch"})
VARIABLES = "kubernetes.variables"  # the composition's `variables` object
LIST_A, MAP_AB = list_of(A), map_of(A, B)


@dataclass(frozen=True)
class Overload:
    params: tuple[Type, ...]
    result: Type
    member: bool = False


def _o(*params: Type, result: Type, member: bool = False) -> Overload:
    return Overload(tuple(params), result, member)


def _same(types: tuple[Type, ...], result: Type | None = None, arity: int = 2) -> list[Overload]:
    return [_o(*([t] * arity), result=result or t) for t in types]


_COMPARABLE = (INT, UINT, DOUBLE, STRING, BYTES, BOOL, TIMESTAMP, DURATION)
_ORDER = _same(_COMPARABLE, BOOL) + [_o(x, y, result=BOOL) for x in NUMBERS for y in NUMBERS if x != y]

# The operators and standard functions (common/stdlib/standard.go), as the checker declares them.
STANDARD: dict[str, list[Overload]] = {
    "_+_": _same((INT, UINT, DOUBLE, STRING, BYTES)) + [
        _o(LIST_A, LIST_A, result=LIST_A), _o(TIMESTAMP, DURATION, result=TIMESTAMP),
        _o(DURATION, TIMESTAMP, result=TIMESTAMP), _o(DURATION, DURATION, result=DURATION)],
    "_-_": _same((INT, UINT, DOUBLE)) + [
        _o(TIMESTAMP, TIMESTAMP, result=DURATION), _o(TIMESTAMP, DURATION, result=TIMESTAMP),
        _o(DURATION, DURATION, result=DURATION)],
    "_*_": _same(NUMBERS), "_/_": _same(NUMBERS), "_%_": _same((INT, UINT)),
    "-_": _same((INT, DOUBLE), arity=1), "!_": [_o(BOOL, result=BOOL)],
    "_<_": _ORDER, "_<=_": _ORDER, "_>_": _ORDER, "_>=_": _ORDER,
    "_&&_": [_o(BOOL, BOOL, result=BOOL)], "_||_": [_o(BOOL, BOOL, result=BOOL)],
    "@in": [_o(A, LIST_A, result=BOOL), _o(A, MAP_AB, result=BOOL)],
    "_[_]": [_o(LIST_A, INT, result=A), _o(MAP_AB, A, result=B)],
    "size": [_o(t, result=INT, member=m) for t in (STRING, BYTES, LIST_A, MAP_AB) for m in (False, True)],
    "contains": [_o(STRING, STRING, result=BOOL, member=True)],
    "startsWith": [_o(STRING, STRING, result=BOOL, member=True)],
    "endsWith": [_o(STRING, STRING, result=BOOL, member=True)],
    "matches": [_o(STRING, STRING, result=BOOL, member=m) for m in (False, True)],
    "int": [_o(t, result=INT) for t in (INT, UINT, DOUBLE, STRING, TIMESTAMP, DURATION)],
    "uint": [_o(t, result=UINT) for t in (INT, UINT, DOUBLE, STRING)],
    "double": [_o(t, result=DOUBLE) for t in (INT, UINT, DOUBLE, STRING)],
    "string": [_o(t, result=STRING) for t in (INT, UINT, DOUBLE, BOOL, BYTES, STRING, TIMESTAMP, DURATION, IP,
                                              CIDR)],
    "bytes": [_o(t, result=BYTES) for t in (STRING, BYTES)],
    "bool": [_o(t, result=BOOL) for t in (BOOL, STRING)],
    "timestamp": [_o(t, result=TIMESTAMP) for t in (STRING, TIMESTAMP, INT)],
    "duration": [_o(t, result=DURATION) for t in (STRING, DURATION)],
    "dyn": [_o(A, result=DYN)], "type": [_o(A, result=TYPE)],
}


def _m(*params: Type, result: Type) -> Overload:
    return _o(*params, result=result, member=True)


_OPT_A = optional_of(A)
# The Kubernetes libraries and cel-go extensions 1.33's base environment enables (cel/library.py serves them).
LIBRARY: dict[str, list[Overload]] = {
    # library/lists.go
    "isSorted": [_m(LIST_A, result=BOOL)], "sum": [_m(LIST_A, result=A)],
    "min": [_m(LIST_A, result=A)], "max": [_m(LIST_A, result=A)],
    "indexOf": [_m(LIST_A, A, result=INT), _m(STRING, STRING, result=INT), _m(STRING, STRING, INT, result=INT)],
    "lastIndexOf": [_m(LIST_A, A, result=INT), _m(STRING, STRING, result=INT),
                    _m(STRING, STRING, INT, result=INT)],
    # library/regex.go
    "find": [_m(STRING, STRING, result=STRING)],
    "findAll": [_m(STRING, STRING, result=list_of(STRING)), _m(STRING, STRING, INT, result=list_of(STRING))],
    # cel-go ext/strings.go
    "charAt": [_m(STRING, INT, result=STRING)],
    "lowerAscii": [_m(STRING, result=STRING)], "upperAscii": [_m(STRING, result=STRING)],
    "replace": [_m(STRING, STRING, STRING, result=STRING), _m(STRING, STRING, STRING, INT, result=STRING)],
    "split": [_m(STRING, STRING, result=list_of(STRING)), _m(STRING, STRING, INT, result=list_of(STRING))],
    "substring": [_m(STRING, INT, result=STRING), _m(STRING, INT, INT, result=STRING)],
    "trim": [_m(STRING, result=STRING)],
    "join": [_m(list_of(STRING), result=STRING), _m(list_of(STRING), STRING, result=STRING)],
    "format": [_m(STRING, LIST_A, result=STRING)], "strings.quote": [_o(STRING, result=STRING)],
    # library/quantity.go (`sign` is declared global but called as a member: both are taken)
    "quantity": [_o(STRING, result=QUANTITY)], "isQuantity": [_o(STRING, result=BOOL)],
    "sign": [_o(QUANTITY, result=INT), _m(QUANTITY, result=INT)],
    "isGreaterThan": [_m(t, t, result=BOOL) for t in (QUANTITY, SEMVER)],
    "isLessThan": [_m(t, t, result=BOOL) for t in (QUANTITY, SEMVER)],
    "compareTo": [_m(t, t, result=INT) for t in (QUANTITY, SEMVER)],
    "asApproximateFloat": [_m(QUANTITY, result=DOUBLE)],
    "asInteger": [_m(QUANTITY, result=INT)], "isInteger": [_m(QUANTITY, result=BOOL)],
    "add": [_m(QUANTITY, QUANTITY, result=QUANTITY), _m(QUANTITY, INT, result=QUANTITY)],
    "sub": [_m(QUANTITY, QUANTITY, result=QUANTITY), _m(QUANTITY, INT, result=QUANTITY)],
    # library/semverlib.go (version 1)
    "semver": [_o(STRING, result=SEMVER), _o(STRING, BOOL, result=SEMVER)],
    "isSemver": [_o(STRING, result=BOOL), _o(STRING, BOOL, result=BOOL)],
    **{f: [_m(SEMVER, result=INT)] for f in ("major", "minor", "patch")},
    # library/ip.go, cidr.go
    "ip": [_o(STRING, result=IP), _m(CIDR, result=IP)], "isIP": [_o(STRING, result=BOOL)],
    "ip.isCanonical": [_o(STRING, result=BOOL)], "family": [_m(IP, result=INT)],
    **{f: [_m(IP, result=BOOL)] for f in ("isUnspecified", "isLoopback", "isLinkLocalMulticast",
                                          "isLinkLocalUnicast", "isGlobalUnicast")},
    "cidr": [_o(STRING, result=CIDR)], "isCIDR": [_o(STRING, result=BOOL)],
    "containsIP": [_m(CIDR, STRING, result=BOOL), _m(CIDR, IP, result=BOOL)],
    "containsCIDR": [_m(CIDR, STRING, result=BOOL), _m(CIDR, CIDR, result=BOOL)],
    "prefixLength": [_m(CIDR, result=INT)], "masked": [_m(CIDR, result=CIDR)],
    # library/urls.go
    "url": [_o(STRING, result=URL)], "isURL": [_o(STRING, result=BOOL)],
    **{f: [_m(URL, result=STRING)] for f in ("getScheme", "getHost", "getHostname", "getPort", "getEscapedPath")},
    "getQuery": [_m(URL, result=map_of(STRING, list_of(STRING)))],
    # library/format.go
    "format.named": [_o(STRING, result=optional_of(FORMAT))],
    "validate": [_m(FORMAT, STRING, result=optional_of(list_of(STRING)))],
    # cel-go ext/sets.go
    **{f"sets.{f}": [_o(LIST_A, LIST_A, result=BOOL)] for f in ("contains", "equivalent", "intersects")},
    # cel-go optional types (cel.OptionalTypes, enabled since 1.28)
    "optional.of": [_o(A, result=_OPT_A)], "optional.ofNonZeroValue": [_o(A, result=_OPT_A)],
    "optional.none": [_o(result=optional_of(DYN))],
    "hasValue": [_m(_OPT_A, result=BOOL)], "value": [_m(_OPT_A, result=A)],
    "orValue": [_m(_OPT_A, A, result=A)], "or": [_m(_OPT_A, _OPT_A, result=_OPT_A)],
}
FORMAT_NAMES = ("dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
                "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date",
                "datetime")
LIBRARY.update({f"format.{n}": [_o(result=FORMAT)] for n in FORMAT_NAMES})
DECLARATIONS = {**STANDARD, **LIBRARY}
_NAMESPACES = frozenset({"sets", "format", "optional", "ip", "strings", "math", "cel", "base64"})
_MACROS = frozenset({"has"})  # the global macro; every other global function 1.33 declares is in DECLARATIONS


def _bind(param: Type, arg: Type, env: dict[str, Type]) -> bool:
    """Whether `arg` may be passed as `param`, binding the type parameters A and B."""
    if param.name in ("A", "B"):
        bound = env.get(param.name)
        if bound is None:
            env[param.name] = arg
            return True
        if bound.vague or arg.vague:  # a parameter bound to dyn stays dyn, as cel-go's substitution
            return True
        if bound == arg or (bound in NUMBERS and arg in NUMBERS):  # heterogeneous numbers: not ours to refuse
            return True
        if bound.name == arg.name and len(bound.params) == len(arg.params):
            return all(_bind(p, a, env) for p, a in zip(bound.params, arg.params))
        return False
    if arg.vague:
        return True
    if param.name != arg.name or len(param.params) != len(arg.params):
        return False
    return all(_bind(p, a, env) for p, a in zip(param.params, arg.params))


def uncertain(t: Type) -> bool:
    """A type with a part this checker cannot tell."""
    return t == UNKNOWN or any(uncertain(p) for p in t.params)


def _inner(t: Type) -> Type:
    """The value type of an optional list element or map entry."""
    return t.params[0] if t.name == "optional_type" else UNKNOWN


def _substitute(t: Type, env: dict[str, Type]) -> Type:
    if t.name in ("A", "B"):
        return env.get(t.name, UNKNOWN)
    return Type(t.name, tuple(_substitute(p, env) for p in t.params)) if t.params else t


@dataclass
class Checker:
    """Types for the declared variables; the errors found, as (offset, message)."""

    variables: Mapping[str, Type]
    composition: Mapping[str, Type] | None = None
    objects: Mapping[str, Mapping[str, Type]] = field(default_factory=lambda: OBJECTS)
    unavailable: frozenset[str] = frozenset()  # global functions the environment does not declare
    errors: list[tuple[int, str]] = field(default_factory=list)
    exempt: int = 0  # inside a `format` call: its literals may mix types

    def fail(self, node: Node, message: str) -> Type:
        self.errors.append((node.at, message))
        return UNKNOWN

    def check(self, node: Node, scope: Mapping[str, Type] | None = None) -> Type:
        scope = scope or {}
        kind = node.kind
        if kind == "lit":
            return Type(node.value[0])
        if kind == "ident":
            if node.value in scope:
                return scope[node.value]
            if node.value not in self.variables and node.value in TYPE_NAMES:
                return TYPE
            return self.variables.get(node.value, UNKNOWN)
        if kind == "select":
            return self.select(node, scope)
        if kind == "index":
            operand = self.check(node.target, scope)  # type: ignore[arg-type]
            index = self.check(node.args[0], scope)
            if node.optional:
                inner = operand.params[0] if operand.name == "optional_type" else operand
                return optional_of(self.resolve(node, "_[_]", [inner, index], False))
            return self.resolve(node, "_[_]", [operand, index], False)
        if kind == "list":
            elems = [(e, self.check(e, scope)) for e in node.args]
            return list_of(self._join([(e, _inner(t) if i in node.opt_elems else t)
                                       for i, (e, t) in enumerate(elems)], every=False))
        if kind in ("map", "struct"):
            keys = [(k, self.check(k, scope)) for k, _, _ in node.entries]
            values = [(v, _inner(t) if opt else t) for (_, v, opt) in node.entries for t in [self.check(v, scope)]]
            if kind == "struct":
                return UNKNOWN
            return map_of(self._join(keys, every=True), self._join(values, every=True))
        if kind in ("unary", "binary"):
            args = [self.check(a, scope) for a in node.args]
            if node.value in ("_==_", "_!=_"):
                left, right = args
                if left != right and {left, right} <= PRIMITIVES - {NULL} and not {left, right} <= set(NUMBERS):
                    return self.fail(node, self._no_overload(node.value, args, False))
                return BOOL
            return self.resolve(node, node.value, args, False)
        if kind == "cond":
            cond, then, other = (self.check(a, scope) for a in node.args)
            if not cond.vague and cond != BOOL and not any(map(uncertain, (cond, then, other))):
                return self.fail(node, self._no_overload("_?_:_", [cond, then, other], False))
            return then if then == other else UNKNOWN
        if kind == "call":
            return self.call(node, scope)
        return UNKNOWN

    def _join(self, elems: list[tuple[Node, Type]], every: bool) -> Type:
        """A literal's element type. cel-go's `ValidateHomogeneousAggregateLiterals` (base.go, 1.29) refuses an
        element whose type is not the first's, dyn included (`expected type '<first>' but found '<other>'`): the
        first such element of a list, every such key and value of a map; literals inside a `format` call exempt."""
        if not elems:
            return UNKNOWN  # an empty literal's element type is a type parameter the checker may yet bind
        first, consistent = elems[0][1], True
        for node, t in elems[1:]:
            if t != first:
                consistent = False
                if not self.exempt and not uncertain(first) and not uncertain(t):
                    self.fail(node, f"expected type '{first.formatted()}' but found '{t.formatted()}'")
                    if not every:
                        break
        if consistent:
            return first
        return UNKNOWN if any(uncertain(t) for _, t in elems) else DYN

    def select(self, node: Node, scope: Mapping[str, Type]) -> Type:
        target = node.target
        assert target is not None
        # a qualified name (`sets`, `format`) is no variable of its own
        operand = self.check(target, scope)
        optional = operand.name == "optional_type"
        if optional:
            operand = operand.params[0]
        result = self.field(node, operand)
        return optional_of(result) if node.optional or optional else result

    def field(self, node: Node, operand: Type) -> Type:
        if operand.vague:
            return operand
        fields = self.composition if operand.name == VARIABLES else self.objects.get(operand.name)
        if fields is not None:
            if node.value not in fields:
                return self.fail(node, f"undefined field '{node.value}'")
            return fields[node.value]
        if operand.name == "map":
            return operand.params[1]
        if operand in PRIMITIVES or operand.name == "list":
            return self.fail(node, f"type '{operand.formatted()}' does not support field selection")
        return UNKNOWN

    def call(self, node: Node, scope: Mapping[str, Type]) -> Type:
        if node.value != "format":
            return self._call(node, scope)
        self.exempt += 1
        try:
            return self._call(node, scope)
        finally:
            self.exempt -= 1

    def _call(self, node: Node, scope: Mapping[str, Type]) -> Type:
        name, target = node.value, node.target
        if target is not None and target.kind == "ident" and target.value == "cel" and name == "bind" \
                and len(node.args) == 3 and node.args[0].kind == "ident":
            bound = self.check(node.args[1], scope)
            return self.check(node.args[2], {**scope, node.args[0].value: bound})
        if target is not None and target.kind == "ident" and target.value in _NAMESPACES \
                and target.value not in scope and target.value not in self.variables:
            qualified = f"{target.value}.{name}"
            if qualified in DECLARATIONS:
                return self.resolve(node, qualified, [self.check(a, scope) for a in node.args], False)
            return UNKNOWN
        if target is None and (name in self.unavailable or (name not in DECLARATIONS and name not in _MACROS)):
            for a in node.args:
                self.check(a, scope)
            return self.fail(node, f"undeclared reference to '{name}' (in container '')")
        if target is None and name == "has":
            if node.args and node.args[0].kind == "select":
                self.check(node.args[0], scope)
            return BOOL
        if target is not None and name in ("all", "exists", "exists_one", "map", "filter") \
                and len(node.args) in (2, 3) and node.args[0].kind == "ident":
            return self.comprehension(node, target, scope)
        args = [self.check(a, scope) for a in node.args]
        if name == "format" and target is not None and target.kind == "lit" and target.value[0] == "string" \
                and len(node.args) == 1 and node.args[0].kind == "list":
            self.check_format(node, target.value[1], node.args[0], scope)
        if target is not None:
            receiver = self.check(target, scope)
            if name in self.unavailable:
                return self.fail(node, f"undeclared reference to '{name}' (in container '')")
            return self.resolve(node, name, [receiver, *args], True)
        return self.resolve(node, name, args, False)

    def check_format(self, node: Node, fmt: str, literal: Node, scope: Mapping[str, Type]) -> None:
        """cel-go's `stringFormatValidator`: a literal format string with a list literal of arguments is checked
        at compile time, each clause against its argument's type, and the argument count."""
        from .libs.strformat import CLAUSE_TYPES, clause_verbs
        from .libs.values import LibraryError
        if "\\" in fmt:
            return  # escapes: this parser keeps a literal's source text, not its value
        elements = literal.args
        try:
            verbs = clause_verbs(fmt, len(elements))
        except LibraryError as exc:
            self.fail(node, str(exc))
            return
        for verb, element in zip(verbs, elements):
            allowed, clause = CLAUSE_TYPES[verb]
            bad = self._format_mismatch(element, allowed, verb == "s", scope)
            if bad is not None:
                self.fail(bad[0], f"error during formatting: {clause}, was given {bad[1]}")
                return
        if len(elements) > len(verbs):
            self.fail(node, f"too many arguments supplied to string.format (expected {len(verbs)}, got "
                            f"{len(elements)})")

    def _format_mismatch(self, element: Node, allowed: tuple[str, ...], nested: bool,
                         scope: Mapping[str, Type]) -> tuple[Node, str] | None:
        """The element (or, for `%s`, a member of a list or map literal) whose type the clause does not take."""
        probe = Checker(self.variables, self.composition, self.objects, self.unavailable, exempt=1)
        t = probe.check(element, scope)  # its own errors are the main pass's to report
        if uncertain(t) or t.name == "dyn":
            return None
        if t.name not in allowed:
            return element, t.name
        if nested and element.kind in ("list", "map"):
            members = element.args if element.kind == "list" else [x for k, v, _ in element.entries for x in (k, v)]
            for member in members:
                bad = self._format_mismatch(member, allowed, True, scope)
                if bad is not None:
                    return bad
        return None

    def comprehension(self, node: Node, target: Node, scope: Mapping[str, Type]) -> Type:
        rng = self.check(target, scope)
        elem = rng.params[0] if rng.name in ("list", "map") else (rng if rng.vague else UNKNOWN)
        inner = {**scope, node.args[0].value: elem}
        results = [self.check(a, inner) for a in node.args[1:]]
        if node.value in ("all", "exists", "exists_one"):
            return BOOL if len(node.args) == 2 else UNKNOWN
        if node.value == "filter":
            return list_of(elem)
        return list_of(results[-1])  # map(x, e) and map(x, p, e)

    def resolve(self, node: Node, name: str, args: list[Type], member: bool) -> Type:
        overloads = DECLARATIONS.get(name)
        if overloads is None:
            return UNKNOWN
        results = []
        for o in overloads:
            if len(o.params) != len(args):
                continue
            env: dict[str, Type] = {}
            if all(_bind(p, a, env) for p, a in zip(o.params, args)):
                results.append(_substitute(o.result, env))
        if not results:
            if any(map(uncertain, args)) or not any(len(o.params) == len(args) for o in overloads):
                return UNKNOWN  # not ours to refuse: a type we cannot tell, or an arity we do not declare
            return self.fail(node, self._no_overload(name, args, member))
        distinct = set(results)
        if len(distinct) == 1:
            return results[0]
        return DYN if all(not t.vague for t in distinct) and any(a.name == "dyn" for a in args) else UNKNOWN

    @staticmethod
    def _no_overload(name: str, args: list[Type], member: bool) -> str:
        shown = [a.formatted() for a in args]
        signature = f"{shown[0]}.({', '.join(shown[1:])})" if member else f"({', '.join(shown)})"
        return f"found no matching overload for '{name}' applied to '{signature}'"


def variable_types(names: frozenset[str], composition: Mapping[str, Type] | None = None,
                   typed: Mapping[str, Type] | None = None) -> dict[str, Type]:
    """The declared variables' types (`createEnvForOpts`): `object`, `oldObject`, `params` dyn unless `typed`
    gives them a schema's type (the status controller's type check), `request` and `namespaceObject` typed;
    `variables` the composition's object (its fields typed) when there is one."""
    from .types import NAMESPACE, REQUEST
    types = {"object": DYN, "oldObject": DYN, "params": DYN, "request": REQUEST, "namespaceObject": NAMESPACE,
             "variables": Type(VARIABLES) if composition is not None else UNKNOWN, **(typed or {})}
    return {n: types.get(n, UNKNOWN) for n in names}
