"""cel-go's type checker (v0.23.2, the version kube-apiserver 1.33 vendors: `github.com/google/cel-go/checker/
checker.go`, its unification in `checker/types.go`, its messages in `checker/errors.go`) over our AST (`parser.py`),
with the declarations of 1.33's base environment (`common/stdlib/standard.go`, `cel/library.go`'s optional types,
`ext/strings.go` version 2, `ext/sets.go`, and the Kubernetes libraries of `staging/src/k8s.io/apiserver/pkg/cel/
library/`: lists, regex, urls, authz and authz selectors, quantity, ip, cidr, format, semver) as `environment/
base.go` configures them (`CrossTypeNumericComparisons(true)`; mixed literals are list(dyn)/map(dyn, dyn) for the
checker and refused by the `ValidateHomogeneousAggregateLiterals` validator, which, as cel-go's validators, runs
only when checking found no error).

Type parameters unify as cel-go's do (`_var<n>`, printed so in messages), `dyn` is assignable both ways, and a
type this checker cannot tell (`UNKNOWN`: a struct literal, a variable it has no type for) is cel-go's error type:
assignable to anything, never itself the cause of an error. `object`, `oldObject` and `params` are `dyn` (no schema,
as upstream's write-time compile) unless the status controller types them from a schema."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .parser import Node, qualified_name
from .types import (AUTHORIZER, BOOL, BYTES, CIDR, DECISION, DOUBLE, DURATION, DYN, FORMAT, GROUP_CHECK, INT, IP,
                    NULL, NUMBERS, OBJECTS, OPAQUE, PATH_CHECK, PRIMITIVES, QUANTITY, RECEIVER_ONLY, RESOURCE_CHECK,
                    SEMVER, STRING, TIMESTAMP, TYPE_IDENTS, UINT, UNKNOWN, URL, Type, list_of, map_of, optional_of,
                    type_of)
from .validators import CHECKS, literal_issue

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
# CrossTypeNumericComparisons(true): the orderings take mixed numbers; equality does not
_ORDER = _same(_COMPARABLE, BOOL) + [_o(x, y, result=BOOL) for x in NUMBERS for y in NUMBERS if x != y]
_OPT_A, _OPT_LIST, _OPT_MAP = optional_of(A), optional_of(LIST_A), optional_of(map_of(B, A))
_TIME_GETTERS = ("getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek")

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
    "_?_:_": [_o(BOOL, A, A, result=A)], "_==_": [_o(A, A, result=BOOL)], "_!=_": [_o(A, A, result=BOOL)],
    "@in": [_o(A, LIST_A, result=BOOL), _o(A, MAP_AB, result=BOOL)],
    "_[_]": [_o(LIST_A, INT, result=A), _o(MAP_AB, A, result=B),
             _o(_OPT_LIST, INT, result=_OPT_A), _o(_OPT_MAP, B, result=_OPT_A)],
    "_[?_]": [_o(LIST_A, INT, result=_OPT_A), _o(_OPT_LIST, INT, result=_OPT_A),
              _o(map_of(B, A), B, result=_OPT_A), _o(_OPT_MAP, B, result=_OPT_A)],
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
    "duration": [_o(t, result=DURATION) for t in (STRING, DURATION, INT)],
    "dyn": [_o(A, result=DYN)], "type": [_o(A, result=type_of(A))],
    **{f: [_o(TIMESTAMP, result=INT, member=True), _o(TIMESTAMP, STRING, result=INT, member=True)]
       for f in _TIME_GETTERS},
    **{f: [_o(TIMESTAMP, result=INT, member=True), _o(TIMESTAMP, STRING, result=INT, member=True),
           _o(DURATION, result=INT, member=True)]
       for f in ("getHours", "getMinutes", "getSeconds", "getMilliseconds")},
}


def _m(*params: Type, result: Type) -> Overload:
    return _o(*params, result=result, member=True)


# The Kubernetes libraries and cel-go extensions 1.33's base environment enables (cel/library.py serves them).
LIBRARY: dict[str, list[Overload]] = {
    # library/lists.go
    "isSorted": [_m(list_of(t), result=BOOL) for t in _COMPARABLE],
    "sum": [_m(list_of(t), result=t) for t in (INT, UINT, DOUBLE, DURATION)],
    "min": [_m(list_of(t), result=t) for t in _COMPARABLE], "max": [_m(list_of(t), result=t) for t in _COMPARABLE],
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
    "format": [_m(STRING, list_of(DYN), result=STRING)], "strings.quote": [_o(STRING, result=STRING)],
    # library/quantity.go (`sign` is declared global, `sign(q)`, though its doc comment shows `q.sign()`, which
    # cel-go's checker refuses)
    "quantity": [_o(STRING, result=QUANTITY)], "isQuantity": [_o(STRING, result=BOOL)],
    "sign": [_o(QUANTITY, result=INT)],
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
    "first": [_m(LIST_A, result=_OPT_A)], "last": [_m(LIST_A, result=_OPT_A)],
    "optional.unwrap": [_o(list_of(_OPT_A), result=LIST_A)], "unwrapOpt": [_m(list_of(_OPT_A), result=LIST_A)],
    # library/authz.go, and the authz selectors (AuthorizeWithSelectors, on by default in 1.33)
    "path": [_m(AUTHORIZER, STRING, result=PATH_CHECK)], "group": [_m(AUTHORIZER, STRING, result=GROUP_CHECK)],
    "serviceAccount": [_m(AUTHORIZER, STRING, STRING, result=AUTHORIZER)],
    "resource": [_m(GROUP_CHECK, STRING, result=RESOURCE_CHECK)],
    **{f: [_m(RESOURCE_CHECK, STRING, result=RESOURCE_CHECK)]
       for f in ("subresource", "namespace", "name", "fieldSelector", "labelSelector")},
    "check": [_m(PATH_CHECK, STRING, result=DECISION), _m(RESOURCE_CHECK, STRING, result=DECISION)],
    "errored": [_m(DECISION, result=BOOL)], "allowed": [_m(DECISION, result=BOOL)],
    "error": [_m(DECISION, result=STRING)], "reason": [_m(DECISION, result=STRING)],
}
FORMAT_NAMES = ("dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
                "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date",
                "datetime")
LIBRARY.update({f"format.{n}": [_o(result=FORMAT)] for n in FORMAT_NAMES})
DECLARATIONS = {**STANDARD, **LIBRARY}
# the receiver macros (parser/macro.go, ext/comprehensions.go, cel/library.go's optMap/optFlatMap): their arities
_ONE_VAR = {"all": (2,), "exists": (2,), "exists_one": (2,), "existsOne": (2,), "filter": (2,), "map": (2, 3)}
_TWO_VAR = {"all": (3,), "exists": (3,), "existsOne": (3,), "transformList": (3, 4), "transformMap": (3, 4),
            "transformMapEntry": (3, 4)}


def _is_param(t: Type) -> bool:
    return t.name in ("A", "B") or t.name.startswith("_var")


def _is_struct(t: Type) -> bool:
    """A message (object) type: what is neither primitive, aggregate, opaque, type, dyn, error nor a parameter."""
    return not (t in PRIMITIVES or t.vague or _is_param(t) or t.name in ("list", "map", "type") or t.name in OPAQUE)


def _nullable(t: Type) -> bool:
    """`internalIsAssignableNull`: null, and the legacy nullable kinds (opaque, message, timestamp, duration)."""
    return t == NULL or t.name in OPAQUE or t in (TIMESTAMP, DURATION) or _is_struct(t)


def assignable(m: dict[str, Type], t1: Type, t2: Type) -> bool:
    """cel-go's `internalIsAssignable`: whether `t1` may be used where `t2` is, binding type parameters in `m`."""
    if _is_param(t2):
        valid, bound = _substitution(m, t1, t2)
        if valid:
            return True
        if bound:
            return False
    if _is_param(t1):
        return _substitution(m, t2, t1)[0]
    if t1.vague or t2.vague:
        return True
    if t1 == NULL:
        return _nullable(t2)
    if t2 == NULL:
        return _nullable(t1)
    if t1.name == "type":
        return t2.name == "type"
    if t1.name in ("list", "map") or t1.name in OPAQUE:
        return t1.name == t2.name and len(t1.params) == len(t2.params) \
            and all(assignable(m, a, b) for a, b in zip(t1.params, t2.params))
    return t1 == t2


def _substitution(m: dict[str, Type], t1: Type, t2: Type) -> tuple[bool, bool]:
    """`isValidTypeSubstitution`: whether the parameter `t2` may stand for `t1`, and whether it was bound."""
    if t1 == t2:
        return True, True
    sub = m.get(t2.name)
    if sub is not None:
        if t1 == sub:
            return True, True
        if assignable(m, t1, sub):
            general = t1 if _less_specific(t1, sub) else sub
            if _not_within(m, t2, general):
                m[t2.name] = general
            return True, True
        return False, True
    if _not_within(m, t2, t1):
        m[t2.name] = t1
        return True, False
    return False, False


def _less_specific(t1: Type, t2: Type) -> bool:
    """`isEqualOrLessSpecific`."""
    if t1.name == "dyn" or _is_param(t1):
        return True
    if t2.name == "dyn" or _is_param(t2):
        return False
    if t1.name != t2.name or len(t1.params) != len(t2.params):
        return False
    if t1.name == "type":
        return True
    return all(_less_specific(a, b) for a, b in zip(t1.params, t2.params)) if t1.params else t1 == t2


def _not_within(m: dict[str, Type], t: Type, within: Type) -> bool:
    """The occurs check of `notReferencedIn`."""
    if t == within:
        return False
    if _is_param(within):
        sub = m.get(within.name)
        return True if sub is None else _not_within(m, t, sub)
    return all(_not_within(m, t, p) for p in within.params)


def substitute(m: Mapping[str, Type], t: Type, to_dyn: bool) -> Type:
    """`substitute`: bound parameters replaced by their types, unbound ones by dyn when `to_dyn`."""
    if _is_param(t):
        sub = m.get(t.name)
        if sub is not None:
            return substitute(m, sub, to_dyn)
        return DYN if to_dyn else t
    return Type(t.name, tuple(substitute(m, p, to_dyn) for p in t.params)) if t.params else t


def uncertain(t: Type) -> bool:
    """A type with a part this checker cannot tell."""
    return t == UNKNOWN or any(uncertain(p) for p in t.params)


def _root(node: Node) -> str:
    while node.target is not None:
        node = node.target
    return node.value


@dataclass
class Checker:
    """Types for the declared variables; the checker's errors and the validators' (as (offset, message))."""

    variables: Mapping[str, Type]
    composition: Mapping[str, Type] | None = None
    objects: Mapping[str, Mapping[str, Type]] = field(default_factory=lambda: OBJECTS)
    unavailable: frozenset[str] = frozenset()  # functions the environment does not declare
    errors: list[tuple[int, str]] = field(default_factory=list)
    validation: list[tuple[int, str]] = field(default_factory=list)
    exempt: int = 0  # inside a `format` call: its literals may mix types
    mapping: dict[str, Type] = field(default_factory=dict)
    fresh: int = 0
    literals: list[tuple[list[tuple[Node, Type]], bool]] = field(default_factory=list)  # for the validator
    # what cel-go's checked AST keeps for the cost estimator (`cost.py`): each node's type (id(node) -> type, before
    # the final substitution) and each resolved call's function name and matching overloads
    types: dict[int, Type] = field(default_factory=dict)
    references: dict[int, tuple[str, list[Overload]]] = field(default_factory=dict)

    def fail(self, node: Node, message: str) -> Type:
        self.errors.append((node.at, message))
        return UNKNOWN

    def issues(self) -> list[tuple[int, str]]:
        """What cel-go reports: the checker's errors, else the validators' (they run on a checked AST only)."""
        return sorted(self.errors or self.validation)

    def output(self, node: Node) -> Type:
        """The expression's type, unbound parameters as dyn (cel-go's final substitution); then the validator of
        literals, over the final types as cel-go's validators see them."""
        out = substitute(self.mapping, self.check(node), True)
        for elems, every in self.literals:
            self.homogeneous(elems, every)
        return out

    def new_var(self) -> Type:
        self.fresh += 1
        return Type(f"_var{self.fresh - 1}")

    def shown(self, t: Type, to_dyn: bool = False) -> str:
        t = substitute(self.mapping, t, to_dyn)
        return "*error*" if t == UNKNOWN else t.formatted()

    def check(self, node: Node, scope: Mapping[str, Type] | None = None) -> Type:
        t = self._check(node, scope or {})
        self.types[id(node)] = t
        return t

    def _check(self, node: Node, scope: Mapping[str, Type]) -> Type:
        kind = node.kind
        if kind == "lit":
            return Type(node.value[0])
        if kind == "ident":
            return self.ident(node, scope)
        if kind == "select":
            return self.select(node, scope)
        if kind == "index":
            operand = self.check(node.target, scope)  # type: ignore[arg-type]
            index = self.check(node.args[0], scope)
            return self.resolve(node, "_[?_]" if node.optional else "_[_]", [operand, index], False)
        if kind == "list":
            return self.list_literal(node, scope)
        if kind in ("map", "struct"):
            return self.map_literal(node, scope)
        if kind in ("unary", "binary"):
            args = [self.check(a, scope) for a in node.args]
            if node.value in ("_&&_", "_||_"):
                return self.logical(node.args, args)
            return self.resolve(node, node.value, args, False)
        if kind == "cond":
            args = [self.check(a, scope) for a in node.args]
            return self.resolve(node, "_?_:_", args, False)
        if kind == "call":
            return self.call(node, scope)
        return UNKNOWN

    def ident(self, node: Node, scope: Mapping[str, Type]) -> Type:
        name = node.value
        if name in scope:
            return scope[name]
        if name in self.variables:
            return self.variables[name]
        if name in TYPE_IDENTS:
            return type_of(TYPE_IDENTS[name])
        # the engine refuses the names no scope binds; these are the ones it lets through: qualified names'
        # roots, and a comprehension's variable used outside its macro
        return self.fail(node, f"undeclared reference to '{name}' (in container '')")

    def logical(self, nodes: list[Node], args: list[Type]) -> Type:
        """`_&&_`/`_||_`: each operand must be assignable to bool, else `expected type 'bool' but found ...`."""
        result = BOOL
        for node, t in zip(nodes, args):
            m = dict(self.mapping)
            if assignable(m, t, BOOL):
                self.mapping = m
            else:
                result = self.fail(node, f"expected type 'bool' but found '{self.shown(t)}'")
        return result

    def list_literal(self, node: Node, scope: Mapping[str, Type]) -> Type:
        joined: Type | None = None
        elems = []
        for i, e in enumerate(node.args):
            t = self.check(e, scope)
            if i in node.opt_elems:
                t = self.unwrap_optional(e, t)
            elems.append((e, t))
            joined = self.join(joined, t)
        if not self.exempt:
            self.literals.append((elems, False))
        return list_of(joined if joined is not None else self.new_var())

    def map_literal(self, node: Node, scope: Mapping[str, Type]) -> Type:
        key_type: Type | None = None
        value_type: Type | None = None
        keys, values = [], []
        for k, v, optional in node.entries:
            kt = self.check(k, scope) if node.kind == "map" else STRING
            key_type = self.join(key_type, kt)
            vt = self.check(v, scope)
            if optional:
                vt = self.unwrap_optional(v, vt)
            value_type = self.join(value_type, vt)
            keys.append((k, kt))
            values.append((v, vt))
        if node.kind == "struct":  # message literals: the objects' types are declared, not their constructors
            if node.value.lstrip(".").startswith("google.protobuf."):  # cel-go's registry knows protobuf's own
                return UNKNOWN
            if node.value not in self.objects:
                return self.fail(node, f"undeclared reference to '{node.value}' (in container '')")
            return UNKNOWN
        if not self.exempt:
            self.literals += [(keys, True), (values, True)]
        if key_type is None or value_type is None:
            return map_of(self.new_var(), self.new_var())
        return map_of(key_type, value_type)

    def unwrap_optional(self, node: Node, t: Type) -> Type:
        """An optional element or entry (`?e`): its value type; a non-optional one is cel-go's type mismatch."""
        t = substitute(self.mapping, t, False)
        if t.name == "optional_type":
            return t.params[0]
        if not t.vague:
            self.fail(node, f"expected type 'optional_type({self.shown(t)})' but found '{self.shown(t)}'")
        return t

    def join(self, previous: Type | None, current: Type) -> Type:
        """`joinTypes` with dyn aggregate element types: the more general of the two, or dyn."""
        if previous is None:
            return current
        m = dict(self.mapping)
        if assignable(m, previous, current):
            self.mapping = m
            return previous if _less_specific(previous, current) else current
        return DYN

    def homogeneous(self, elems: list[tuple[Node, Type]], every: bool) -> None:
        """cel-go's `ValidateHomogeneousAggregateLiterals` (base.go, 1.29): an element whose type is not the first's,
        dyn included (`expected type '<first>' but found '<other>'`): the first such element of a list, every such
        key and value of a map; literals inside a `format` call exempt."""
        if not elems:
            return
        first = substitute(self.mapping, elems[0][1], True)
        for node, t in elems[1:]:
            t = substitute(self.mapping, t, True)
            if t != first and not uncertain(first) and not uncertain(t):
                self.validation.append((node.at, f"expected type '{first.formatted()}' but found '{t.formatted()}'"))
                if not every:
                    return

    def select(self, node: Node, scope: Mapping[str, Type]) -> Type:
        target = node.target
        assert target is not None
        qualified = qualified_name(node)
        if qualified is not None and _root(node) not in scope:
            if qualified in self.variables:
                return self.variables[qualified]  # a qualified variable (`authorizer.requestResource`)
            if qualified in TYPE_IDENTS and _root(node) not in self.variables:
                return type_of(TYPE_IDENTS[qualified])  # a library type's name (`net.IP`)
        operand = substitute(self.mapping, self.check(target, scope), False)
        optional = operand.name == "optional_type"
        if optional:
            operand = operand.params[0]
        result = self.field(node, operand)
        return optional_of(result) if node.optional or optional else result

    def field(self, node: Node, operand: Type) -> Type:
        """`checkSelectField`: a map's value type, a declared object's field type, dyn on dyn; else an error."""
        if operand == UNKNOWN:
            return UNKNOWN
        if operand.name == "map":
            return operand.params[1]
        if _is_param(operand):
            assignable(self.mapping, DYN, operand)
            return DYN
        if operand.name == "dyn":
            return DYN
        fields = self.composition if operand.name == VARIABLES else self.objects.get(operand.name)
        if fields is not None:
            if node.value not in fields:
                return self.fail(node, f"undefined field '{node.value}'")
            return fields[node.value]
        if operand.name in RECEIVER_ONLY:  # `lookupFieldType`: the provider does not know the message
            return self.fail(node, f"unexpected failed resolution of '{operand.name}'")
        if _is_struct(operand):
            return UNKNOWN  # an object type whose fields this server does not know
        return self.fail(node, f"type '{self.shown(operand)}' does not support field selection")

    def call(self, node: Node, scope: Mapping[str, Type]) -> Type:
        if node.value != "format":
            return self._call(node, scope)
        self.exempt += 1
        try:
            return self._call(node, scope)
        finally:
            self.exempt -= 1

    def _declared(self, name: str) -> bool:
        return name in DECLARATIONS and name not in self.unavailable

    def _call(self, node: Node, scope: Mapping[str, Type]) -> Type:
        name, target, argn = node.value, node.target, node.args
        if argn and argn[0].kind == "lit" and name in CHECKS:  # the literal validators (validators.py)
            issue = literal_issue(name, *argn[0].value)
            if issue:
                self.validation.append((argn[0].at, issue))
        if target is None:
            if name == "has" and len(argn) == 1 and argn[0].kind == "select":
                self.check(argn[0], scope)
                return BOOL
            args = [self.check(a, scope) for a in argn]
            if not self._declared(name):
                return self.fail(node, f"undeclared reference to '{name}' (in container '')")
            return self.resolve(node, name, args, False)
        prefix = qualified_name(target)
        if prefix is not None and _root(target) not in scope and _root(target) not in self.variables \
                and self._declared(f"{prefix}.{name}"):
            return self.resolve(node, f"{prefix}.{name}", [self.check(a, scope) for a in argn], False)
        if len(argn) in _ONE_VAR.get(name, ()) and argn[0].kind == "ident":
            return self.comprehension(node, target, scope, 1)
        if len(argn) in _TWO_VAR.get(name, ()) and argn[0].kind == "ident" and argn[1].kind == "ident":
            return self.comprehension(node, target, scope, 2)
        if name in ("optMap", "optFlatMap") and len(argn) == 2 and argn[0].kind == "ident":
            return self.opt_map(node, target, scope)
        receiver = self.check(target, scope)
        args = [self.check(a, scope) for a in argn]
        if name == "format" and target.kind == "lit" and target.value[0] == "string" \
                and len(argn) == 1 and argn[0].kind == "list":
            self.check_format(node, target.value[1], argn[0], scope)
        if not self._declared(name):
            return self.fail(node, f"undeclared reference to '{name}' (in container '')")
        return self.resolve(node, name, [receiver, *args], True)

    def comprehension(self, node: Node, target: Node, scope: Mapping[str, Type], variables: int) -> Type:
        """The expansions of parser/macro.go and ext/comprehensions.go, typed as `checkComprehension` types them:
        the range must be a list, map or dyn; `all`/`exists` predicates join an `_&&_`/`_||_`, the others'
        predicates a `_?_:_` with the accumulator."""
        name, args = node.value, node.args
        rng = substitute(self.mapping, self.check(target, scope), False)
        if rng.name == "list":
            first, second = (INT, rng.params[0]) if variables == 2 else (rng.params[0], UNKNOWN)
        elif rng.name == "map":
            first, second = rng.params
        elif rng.vague or _is_param(rng):
            if _is_param(rng):
                assignable(self.mapping, DYN, rng)
            first = second = DYN if rng.name != "?" else UNKNOWN
        else:
            self.fail(target, f"expression of type '{self.shown(rng)}' cannot be range of a comprehension (must be "
                              "list, map, or dynamic)")
            first = second = UNKNOWN
        inner = {**scope, args[0].value: first}
        if variables == 2:
            inner[args[1].value] = second
        body = args[variables:]
        types = [self.check(a, inner) for a in body]
        if name in ("all", "exists"):
            self.logical(body[-1:], types[-1:])
            return BOOL
        if name in ("exists_one", "existsOne"):
            self.predicate(node, types[0], INT)
            return BOOL
        if name == "filter":
            self.predicate(node, types[0], list_of(first))
            return list_of(first)
        element = types[-1]
        if name == "transformMapEntry":
            return UNKNOWN
        result = map_of(first, element) if name == "transformMap" else list_of(element)
        if len(body) == 2:
            self.predicate(node, types[0], result)
        return result

    def predicate(self, node: Node, t: Type, accumulator: Type) -> None:
        """A macro's filter predicate in its `_?_:_(p, <step>, accu)`: not a bool is no matching overload."""
        m = dict(self.mapping)
        if assignable(m, t, BOOL):
            self.mapping = m
            return
        shown = self.shown(accumulator, True)
        self.fail(node, f"found no matching overload for '_?_:_' applied to '({self.shown(t, True)}, {shown}, "
                        f"{shown})'")

    def opt_map(self, node: Node, target: Node, scope: Mapping[str, Type]) -> Type:
        """`optMap`/`optFlatMap` (cel/library.go): the bound variable is the optional's value."""
        operand = substitute(self.mapping, self.check(target, scope), False)
        value = operand.params[0] if operand.name == "optional_type" else UNKNOWN
        result = self.check(node.args[1], {**scope, node.args[0].value: value})
        return optional_of(result) if node.value == "optMap" else result

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
            self.validation.append((node.at, str(exc)))
            return
        for verb, element in zip(verbs, elements):
            allowed, clause = CLAUSE_TYPES[verb]
            bad = self._format_mismatch(element, allowed, verb == "s", scope)
            if bad is not None:
                self.validation.append((bad[0].at, f"error during formatting: {clause}, was given {bad[1]}"))
                return
        if len(elements) > len(verbs):
            self.validation.append((node.at, f"too many arguments supplied to string.format (expected "
                                             f"{len(verbs)}, got {len(elements)})"))

    def _format_mismatch(self, element: Node, allowed: tuple[str, ...], nested: bool,
                         scope: Mapping[str, Type]) -> tuple[Node, str] | None:
        """The element (or, for `%s`, a member of a list or map literal) whose type the clause does not take."""
        probe = Checker(self.variables, self.composition, self.objects, self.unavailable, exempt=1)
        t = substitute(probe.mapping, probe.check(element, scope), True)  # its errors are the main pass's
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

    def resolve(self, node: Node, name: str, args: list[Type], member: bool) -> Type:
        """`resolveOverload`: every overload of the call's style whose parameters the arguments are assignable to
        (type parameters instantiated afresh), the first's result type, or dyn when they disagree."""
        result: Type | None = None
        matched: list[Overload] = []
        self.references[id(node)] = (name, matched)
        for o in DECLARATIONS[name]:
            if o.member != member or len(o.params) != len(args):
                continue
            fresh: dict[str, Type] = {}
            params = [self.instantiate(p, fresh) for p in o.params]
            m = dict(self.mapping)
            if all(assignable(m, a, p) for a, p in zip(args, params)):
                self.mapping = m
                matched.append(o)
                out = substitute(m, self.instantiate(o.result, fresh), False)
                if result is None:
                    result = out
                elif result not in (DYN, UNKNOWN) and out != result:
                    # an argument this checker could not type keeps the result untold, not dyn
                    result = UNKNOWN if any(map(uncertain, args)) else DYN
        if result is None:
            shown = [self.shown(a, True) for a in args]
            signature = f"{shown[0]}.({', '.join(shown[1:])})" if member else f"({', '.join(shown)})"
            return self.fail(node, f"found no matching overload for '{name}' applied to '{signature}'")
        return result

    def instantiate(self, t: Type, fresh: dict[str, Type]) -> Type:
        if t.name in ("A", "B"):
            if t.name not in fresh:
                fresh[t.name] = self.new_var()
            return fresh[t.name]
        return Type(t.name, tuple(self.instantiate(p, fresh) for p in t.params)) if t.params else t


def variable_types(names: frozenset[str], composition: Mapping[str, Type] | None = None,
                   typed: Mapping[str, Type] | None = None) -> dict[str, Type]:
    """The declared variables' types (`createEnvForOpts`): `object`, `oldObject`, `params` dyn unless `typed`
    gives them a schema's type (the status controller's type check), `request` and `namespaceObject` typed,
    `authorizer` and `authorizer.requestResource` (library/authz.go's types); `variables` the composition's object
    (its fields typed) when there is one."""
    from .types import NAMESPACE, REQUEST
    types = {"object": DYN, "oldObject": DYN, "params": DYN, "request": REQUEST, "namespaceObject": NAMESPACE,
             "authorizer": AUTHORIZER, "variables": Type(VARIABLES) if composition is not None else UNKNOWN,
             **(typed or {})}
    out = {n: types.get(n, UNKNOWN) for n in names}
    if "authorizer" in names:
        out["authorizer.requestResource"] = RESOURCE_CHECK
    return out
