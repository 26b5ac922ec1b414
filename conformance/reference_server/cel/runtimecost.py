"""CEL's runtime cost as cel-go v0.23.2 tracks it (`interpreter/runtimecost.go`: `CostObserver`, `costCall`,
`actualSize`), with the Kubernetes libraries' `CallCost` (`staging/src/k8s.io/apiserver/pkg/cel/library/cost.go`)
and the sets library's trackers (`ext/sets.go` `trackSetsCost`).

cel-rust reports no cost, so an expression whose cost matters is walked here as cel-go's interpreter walks it,
node by node (compiled once an expression into one closure a node), each operation computed by Python where its
result is cel-go's for the operands' types, else by cel-rust (a one-operation program of `engine.py`, cached) over
its operands' values, and the cost observed as cel-go's observer adds it: identifiers and selections 1 (a presence
test 0: Kubernetes sets `PresenceTestHasCost(false)`), constants 0, list/map creation 10/30, `&&`, `||` and `?:`
nothing of their own (and only the operands evaluated; an identifier that is a branch of `?:` is resolved as a
conditional attribute, unobserved), each call its `costCall` from its arguments' actual sizes, macros as cel-go
expands them (`cost.py`'s `Coster.expand`: the loop condition and step per element, the accumulator's reads).
Past `limit` the walk stops as cel-go's tracker panics: `operation cancelled: actual cost limit exceeded`.

The walk takes some 0.3 to 1 µs a unit of cost: `budget.py` asks for it only where no bound fits a limit.
`static_bound` is such a bound without running, by the walk's own rules over what the expression tells (literal
sizes; with `largest`, the size of the largest string, list or map the expression reads, `largest_input` within
`read_paths`)."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .cost import ACCU, Coster, _Call, _Comprehension
from .library import FUNCTIONS as LIBRARY
from .desugar import NAMESPACES, merge, opt_index, opt_list, opt_map, opt_select
from .libs.values import TYPE_KEY, LibraryError
from .parser import Node, parse

LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"
STRING_TRAVERSAL, REGEX_STRING_LENGTH = 0.1, 0.25  # common/cost.go
LIST_CREATE, MAP_CREATE = 10, 30
MAX_NAME_FORMAT_REGEX_SIZE = 128  # apiserver/pkg/cel/limits.go: the estimator's size of a format's regex


class CostLimitExceeded(Exception):
    """The tracked cost passed the limit; `cost` is the cost when it did (cel-go's `ActualCost()` then)."""

    def __init__(self, cost: int):
        super().__init__(LIMIT_EXCEEDED)
        self.cost = cost


class _Err:
    """An error value (cel-go's `types.Err`): operations on it are errors, `&&`/`||` may absorb it."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def actual_size(value: Any) -> int:
    """`actualSize`: a string's code points, bytes', list's and map's lengths; an optional's value's; else 1."""
    if isinstance(value, (str, bytes, list, tuple)):
        return len(value)
    if isinstance(value, dict):
        return 1 if TYPE_KEY in value else len(value)
    from .engine import native
    if isinstance(value, native().OptionalValue) and value.has_value():
        return actual_size(value.value())
    return 1


def _ceil(x: float) -> int:
    return int(math.ceil(x))


def _traversal(value: Any) -> int:
    """Kubernetes' `traversalCost` (truncated, bytes of a string's UTF-8)."""
    if isinstance(value, str):
        return int(len(value.encode("utf-8", "surrogatepass")) * STRING_TRAVERSAL)
    if isinstance(value, bytes):
        return int(len(value) * STRING_TRAVERSAL)
    if isinstance(value, (list, tuple)):
        return sum(_traversal(v) for v in value)
    if isinstance(value, dict) and TYPE_KEY not in value:
        return sum(_traversal(k) + _traversal(v) for k, v in value.items())
    return 1


def _string_cost(value: Any, factor: float = 1.0) -> int:
    return _ceil(actual_size(value) * factor * STRING_TRAVERSAL)


def _regex_cost(text: Any, regex: Any) -> int:
    return _ceil((1.0 + actual_size(text)) * STRING_TRAVERSAL) * _ceil(actual_size(regex) * REGEX_STRING_LENGTH)


_ONE = frozenset({"check"}) | frozenset({
    "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason",
    "error", "errored", "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
    "isLinkLocalUnicast", "isGlobalUnicast", "format.named", "sign", "asInteger", "isInteger",
    "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "major", "minor", "patch",
    "getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery"})
_TRAVERSALS = frozenset({"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"})
_SETS = {"sets.contains": 1.0, "sets.intersects": 1.0, "sets.equivalent": 2.0}


def _library_cost(function: str, member: bool, args: list[Any], result: Any) -> int | None:
    """Kubernetes' `CostEstimator.CallCost` (args: the receiver first), None where it leaves the call to cel-go."""
    if function == "check":
        return 350000
    if function in _ONE:
        return 1
    if function in ("fieldSelector", "labelSelector") and len(args) >= 2:
        length = actual_size(args[1])  # selectorCostEstimate's max
        return LIST_CREATE + _ceil(length * STRING_TRAVERSAL) + _ceil(_ceil(length * 0.5) * 50.0)
    if function in _TRAVERSALS:
        return _traversal(args[0]) if args else 0
    if function in ("url", "lowerAscii", "upperAscii", "substring", "trim", "jsonpatch.escapeKey", "cidr", "isIP",
                    "isCIDR", "quantity", "isQuantity", "semver", "isSemver") and args:
        return _string_cost(args[0])
    if function in ("replace", "split") and args:
        return _string_cost(args[0], 2)
    if function == "join" and args:
        return _string_cost(result, 2)
    if function in ("find", "findAll") and len(args) >= 2:
        return _regex_cost(args[0], args[1])
    if function == "ip" and args:
        return 1 if member else _string_cost(args[0])
    if function == "ip.isCanonical" and args:
        return _string_cost(args[0], 2)
    if function in ("containsIP", "containsCIDR") and len(args) >= 2:
        cidr = actual_size(args[0])
        cost = _ceil((cidr + cidr) * STRING_TRAVERSAL)
        if function == "containsCIDR":
            cost += _ceil(cidr * STRING_TRAVERSAL) + 1
        if isinstance(args[1], str):
            cost += _string_cost(args[1])
        return cost
    if function == "validate" and len(args) >= 2:
        return _ceil((1.0 + actual_size(args[1])) * STRING_TRAVERSAL) * \
            _ceil(MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH)
    if function == "_==_" and len(args) == 2 and isinstance(args[0], dict) and TYPE_KEY in args[0]:
        return 1
    return None


_SCALARS = frozenset({int, float, bool, type(None)})
_OPERATORS = frozenset({"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_", "_+_"})


def call_cost(function: str, member: bool, args: list[Any], result: Any) -> int:
    """`CostTracker.costCall`: the sets trackers, then Kubernetes' estimator, then cel-go's per-overload costs
    (its overload told by the arguments' runtime types)."""
    if function not in _SIZED and function not in _ONE:
        return 1
    if len(args) == 2 and type(args[0]) in _SCALARS and type(args[1]) in _SCALARS and function in _OPERATORS:
        return 1  # numbers and booleans: size 1, `==` ceil(1 / 10)
    if function in _SETS and len(args) == 2:
        return 1 + int(actual_size(args[0]) * actual_size(args[1]) * _SETS[function])
    lib = _library_cost(function, member, args, result)
    if lib is not None:
        return lib
    a = args[0] if args else None
    b = args[1] if len(args) > 1 else None
    texts = (str, bytes)
    if function in ("startsWith", "endsWith") and isinstance(a, str) or \
            function in ("string", "bytes", "strings.quote") and isinstance(a, texts) or \
            function == "format" and member and isinstance(a, str):
        if function == "string" and not isinstance(a, bytes) or function == "bytes" and not isinstance(a, str):
            return 1
        return _string_cost(a)
    if function == "@in" and isinstance(b, (list, tuple)):
        return actual_size(b)
    if function in ("_==_", "_!=_") or function in ("_<_", "_>_", "_<=_", "_>=_") and (
            isinstance(a, str) and isinstance(b, str) or isinstance(a, bytes) and isinstance(b, bytes)):
        return _ceil(min(actual_size(a), actual_size(b)) * STRING_TRAVERSAL)
    if function == "_+_" and (isinstance(a, str) and isinstance(b, str) or isinstance(a, bytes)
                              and isinstance(b, bytes)):
        return _ceil((actual_size(a) + actual_size(b)) * STRING_TRAVERSAL)
    if function == "matches" and isinstance(a, str) and len(args) == 2:
        return _regex_cost(a, b)
    if function == "contains" and isinstance(a, str) and isinstance(b, str):
        return _string_cost(a) * _string_cost(b)
    return 1


# ---- the walk --------------------------------------------------------------------------------------------------
_STRICT_OPS = {"_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%", "_==_": "==", "_!=_": "!=",
               "_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">=", "@in": "in"}
_NAMES = ("__a", "__b", "__c", "__d", "__e", "__f", "__g", "__h")


def _template(function: str, member: bool, arity: int) -> str:
    """A one-operation expression over `__a`, `__b`, ... (the receiver first)."""
    names = _NAMES[:arity]
    if function in _STRICT_OPS and arity == 2:
        return f"__a {_STRICT_OPS[function]} __b"
    if function == "!_":
        return "!__a"
    if function == "-_":
        return "-__a"
    if function == "_[_]":
        return "__a[__b]"
    if member:
        return f"__a.{function}({', '.join(names[1:])})"
    return f"{function}({', '.join(names)})"


_NO = object()
_INT64 = range(-(1 << 63), 1 << 63)
_COMPARE = {"_==_": lambda a, b: a == b, "_!=_": lambda a, b: a != b, "_<_": lambda a, b: a < b,
            "_<=_": lambda a, b: a <= b, "_>_": lambda a, b: a > b, "_>=_": lambda a, b: a >= b}
_INT_ARITH = {"_+_": lambda a, b: a + b, "_-_": lambda a, b: a - b, "_*_": lambda a, b: a * b}


def _fast(function: str, args: list[Any]) -> Any:
    """The common operations on ints, doubles, strings and booleans, as cel-go computes them (`_NO`: leave it to
    cel-rust): comparisons of two values of one type, int arithmetic within int64, string concatenation,
    negation, `size`, a list's int index in range and a map's present string key."""
    if len(args) == 2:
        a, b = args
        ta, tb = type(a), type(b)
        if ta is tb and ta in (int, str, float, bool):
            compare = _COMPARE.get(function)
            if compare is not None:
                return compare(a, b)
            if ta is int:
                arith = _INT_ARITH.get(function)
                if arith is not None:
                    r = arith(a, b)
                    return r if r in _INT64 else _NO
            elif ta is str and function == "_+_":
                return a + b
        elif function == "_[_]":
            if ta is list and tb is int and 0 <= b < len(a):
                return a[b]
            if ta is dict and tb is str and b in a and TYPE_KEY not in a:
                return a[b]
        elif function == "@in" and ta is str and tb is list:
            return a in b
    elif len(args) == 1:
        a = args[0]
        if function == "!_" and type(a) is bool:
            return not a
        if function == "size" and (type(a) in (str, list, bytes) or type(a) is dict and TYPE_KEY not in a):
            return len(a)
    return _NO


class _Visitor:
    """Over cel-go's expanded AST (`Coster.expand`: macros as comprehensions, operators as calls): `call`, `fold`
    and `node` for the rest, `branch` telling an attribute resolved unobserved (its root identifier free)."""

    def __init__(self) -> None:
        from .checker import Checker
        self.coster = Coster(Checker({}), None, 0)

    def visit(self, e: Any, env: dict[str, Any], branch: bool = False) -> Any:
        if isinstance(e, _Call):
            return self.call(e, env, branch)
        if isinstance(e, _Comprehension):
            return self.fold(e, env)
        x = self.coster.expand(e)
        if x is not e:
            return self.visit(x, env, branch)
        return self.node(e, env, branch)

    def call(self, e: _Call, env: dict[str, Any], branch: bool) -> Any:
        raise NotImplementedError

    def fold(self, c: _Comprehension, env: dict[str, Any]) -> Any:
        raise NotImplementedError

    def node(self, e: Node, env: dict[str, Any], branch: bool) -> Any:
        raise NotImplementedError


def _apply(function: str, member: bool, args: list[Any]) -> Any:
    """The operation's value: Python's where it is cel-go's for the operands' types (`_fast`), else cel-rust's
    (an error value when it fails)."""
    fast = _fast(function, args)  # never for an error operand
    if fast is not _NO:
        return fast
    for a in args:
        if isinstance(a, _Err):
            return a
    from .engine import CompileError, EvalError, compile_expression
    if len(args) > len(_NAMES):
        return _Err("too many arguments")
    try:
        program = compile_expression(_template(function, member, len(args)), _NAMES[:len(args)])
        return program.evaluate(dict(zip(_NAMES, args)))
    except (CompileError, EvalError) as exc:
        return _Err(str(exc))


def _map_insert(args: list[Any]) -> Any:
    bad = next((a for a in args if isinstance(a, _Err)), None)
    if bad is not None:
        return bad
    try:
        return merge([args[0], {args[1]: args[2]} if len(args) == 3 else args[1]])
    except LibraryError as exc:
        return _Err(str(exc))


# ---- the walk compiled: one closure a node, built once an expression ------------------------------------------
class _Tracker:
    """`CostTracker`: the cost so far and the limit (`CostLimitExceeded` past it)."""

    __slots__ = ("cost", "limit")

    def __init__(self, limit: int | None):
        self.cost, self.limit = 0, limit if limit is not None else math.inf


Step = Callable[[dict[str, Any], _Tracker], Any]


def _charge(t: _Tracker, n: int) -> None:
    t.cost += n
    if t.cost > t.limit:
        raise CostLimitExceeded(t.cost)


def _first_error(values: list[Any]) -> Any:
    return next((v for v in values if isinstance(v, _Err)), None)


class _Compiler(_Visitor):
    """`_Walk`'s evaluation as closures `(env, tracker) -> value` (several times faster than visiting each node
    again each time it runs): the same costs, observed in the same order."""

    # `env` while compiling: the names comprehensions and binds declare around the node (never a namespace then)
    def node(self, e: Node, env: dict[str, Any], branch: bool) -> Step:
        kind = e.kind
        if kind == "lit":
            value = e.value[1]
            return lambda env, t: value
        if kind == "ident":
            name = e.value
            missing = _Err(f"no such attribute: {name}")
            if branch:
                return lambda env, t: env[name] if name in env else missing

            def ident(env: dict[str, Any], t: _Tracker) -> Any:
                t.cost += 1
                if t.cost > t.limit:
                    raise CostLimitExceeded(t.cost)
                return env[name] if name in env else missing
            return ident
        if kind == "select":
            target, field = self.visit(e.target, env, branch), e.value

            def select(env: dict[str, Any], t: _Tracker) -> Any:
                value = target(env, t)
                _charge(t, 1)
                if isinstance(value, _Err):
                    return value
                if isinstance(value, dict):
                    return value[field] if field in value else _Err(f"no such key: {field}")
                return _Err("no such overload")
            return select
        if kind == "call":  # has(x.f): the operand's cost, the test free (PresenceTestHasCost false)
            operand, field = self.visit(e.args[0].target, env, branch), e.args[0].value

            def has(env: dict[str, Any], t: _Tracker) -> Any:
                value = operand(env, t)
                return isinstance(value, dict) and field in value
            return has
        if kind == "list":
            elements, optional = [self.visit(a, env) for a in e.args], e.opt_elems

            def make_list(env: dict[str, Any], t: _Tracker) -> Any:
                values = [f(env, t) for f in elements]
                _charge(t, LIST_CREATE)
                bad = _first_error(values)
                if bad is not None:
                    return bad
                return opt_list([[i in optional, v] for i, v in enumerate(values)]) if optional else values
            return make_list
        if kind in ("map", "struct"):
            entries = [(self.visit(k, env) if kind == "map" else (lambda env, t, k=k: k), self.visit(v, env), o)
                       for k, v, o in e.entries]

            def make_map(env: dict[str, Any], t: _Tracker) -> Any:
                out: dict[Any, Any] = {}
                error = None
                for key_of, value_of, optional in entries:
                    key, value = key_of(env, t), value_of(env, t)
                    error = error or _first_error([key, value])
                    if not error:
                        out.update(opt_map([[key, value, optional]]))
                _charge(t, MAP_CREATE)
                return error or out
            return make_map
        failure = _Err(f"cannot evaluate a {kind}")
        return lambda env, t: failure

    def call(self, e: _Call, env: dict[str, Any], branch: bool) -> Step:
        f = e.function
        if f in _STRICT_OPS and e.target is None:
            operands = [self.visit(a, env) for a in e.args]

            def operator(env: dict[str, Any], t: _Tracker) -> Any:
                args = [o(env, t) for o in operands]
                result = _apply(f, False, args)
                t.cost += call_cost(f, False, args, result)
                if t.cost > t.limit:
                    raise CostLimitExceeded(t.cost)
                return result
            return operator
        if f in ("_&&_", "_||_"):
            terms, stop = [self.visit(a, env) for a in e.args], f == "_||_"

            def logic(env: dict[str, Any], t: _Tracker) -> Any:
                error = None
                for term in terms:
                    v = term(env, t)
                    if v is stop:
                        return stop
                    if not isinstance(v, bool):
                        error = error or (v if isinstance(v, _Err) else _Err("no such overload"))
                return error or (not stop)
            return logic
        if f == "_?_:_":
            test = self.visit(e.args[0], env)
            yes, no = self.visit(e.args[1], env, True), self.visit(e.args[2], env, True)

            def conditional(env: dict[str, Any], t: _Tracker) -> Any:
                c = test(env, t)
                if c is True or c is False:
                    return yes(env, t) if c else no(env, t)
                return c if isinstance(c, _Err) else _Err("no such overload")
            return conditional
        if f == "_?._":
            target, field = self.visit(e.args[0], env, branch), e.args[1].value[1]

            def optional_select(env: dict[str, Any], t: _Tracker) -> Any:
                value = target(env, t)
                _charge(t, 1)
                if isinstance(value, _Err):
                    return value
                try:
                    return opt_select(value, field)
                except Exception as exc:  # noqa: BLE001 - a library error is the value's error
                    return _Err(str(exc))
            return optional_select
        if f in ("_[_]", "_[?_]"):
            # an attribute as the key is resolved by its qualifier (`attrQualifier`): its root identifier free
            target, key_of, plain = self.visit(e.args[0], env, branch), self.visit(e.args[1], env, True), f == "_[_]"

            def index(env: dict[str, Any], t: _Tracker) -> Any:
                value, key = target(env, t), key_of(env, t)
                _charge(t, 1)
                if plain:
                    return _apply("_[_]", False, [value, key])
                bad = _first_error([value, key])
                if bad is not None:
                    return bad
                try:
                    return opt_index(value, key)
                except Exception as exc:  # noqa: BLE001
                    return _Err(str(exc))
            return index
        if f == "bind" and isinstance(e.target, Node) and e.target.kind == "ident" and e.target.value == "cel" \
                and len(e.args) == 3:  # cel.bind: a comprehension over []
            name, init = e.args[0].value, self.visit(e.args[1], env)
            body = self.visit(e.args[2], {**env, name: None})

            def bind(env: dict[str, Any], t: _Tracker) -> Any:
                _charge(t, LIST_CREATE)
                value = init(env, t)
                return body({**env, name: value}, t)
            return bind
        if f == "@not_strictly_false":
            operand = self.visit(e.args[0], env)

            def not_strictly_false(env: dict[str, Any], t: _Tracker) -> Any:
                v = operand(env, t)
                _charge(t, 1)
                return v is not False
            return not_strictly_false
        member, name = e.target is not None, f
        if member and isinstance(e.target, Node) and e.target.kind == "ident" and e.target.value not in env \
                and (e.target.value in NAMESPACES or f"{e.target.value}.{f}" in LIBRARY):
            member, name = False, f"{e.target.value}.{f}"
        operands = ([self.visit(e.target, env)] if member else []) + [self.visit(a, env) for a in e.args]
        insert = name == "cel.@mapInsert"

        def function(env: dict[str, Any], t: _Tracker) -> Any:
            args = [o(env, t) for o in operands]
            result = _map_insert(args) if insert else _apply(name, member, args)
            _charge(t, call_cost(name, member, args, result))
            return result
        return function

    def fold(self, c: _Comprehension, env: dict[str, Any]) -> Step:
        """`evalFold`: the range, the accumulator's start, per element the condition (stopping when it is false)
        and the step, then the result."""
        rng, init = self.visit(c.range, env), self.visit(c.init, env)
        var, var2, accu = c.var, c.var2, c.accu
        local = {**env, var: None, accu: None, **({var2: None} if var2 is not None else {})}  # names bound here
        cond, step, result = self.visit(c.cond, local), self.visit(c.step, local), self.visit(c.result, local)

        def comprehension(env: dict[str, Any], t: _Tracker) -> Any:
            values = rng(env, t)
            if isinstance(values, _Err):
                return values
            if isinstance(values, dict):
                items = list(values.items()) if var2 is not None else [(k, None) for k in values]
            elif isinstance(values, (list, tuple)):
                items = list(enumerate(values)) if var2 is not None else [(v, None) for v in values]
            else:
                return _Err("no such overload")
            inner = dict(env)
            inner[accu] = init(env, t)
            for first, second in items:
                inner[var] = first
                if var2 is not None:
                    inner[var2] = second
                if cond(inner, t) is False:
                    break
                inner[accu] = step(inner, t)
            inner.pop(var, None)
            if var2 is not None:
                inner.pop(var2, None)
            if var in env:
                inner[var] = env[var]
            return result(inner, t)
        return comprehension


_COMPILED: dict[str, Step] = {}


def _compiled(expression: str) -> Step:
    step = _COMPILED.get(expression)
    if step is None:
        if len(_COMPILED) > 1024:
            _COMPILED.clear()
        step = _COMPILED[expression] = _Compiler().visit(_tree(expression), {})
    return step


# ---- a bound without running: the walk's own costs over what the expression itself tells ---------------------
Bound = tuple[int, int]
_SIZED = frozenset({"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_", "_+_", "@in", "matches", "contains", "startsWith",
                    "endsWith", "string", "bytes", "strings.quote", "format", "fieldSelector", "labelSelector",
                    "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes", "url", "lowerAscii",
                    "upperAscii", "substring", "trim", "jsonpatch.escapeKey", "replace", "split", "join", "find",
                    "findAll", "cidr", "isIP", "isCIDR", "ip", "ip.isCanonical", "containsIP", "containsCIDR",
                    "quantity", "isQuantity", "semver", "isSemver", "validate"}) | frozenset(_SETS)


# operators whose results are numbers, booleans, durations or timestamps (size 1), whatever their operands
_SCALAR_RESULTS = frozenset({"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_", "_&&_", "_||_", "!_", "-_", "_*_", "_/_",
                             "_%_", "@in", "size"})


class _Unbounded(Exception):
    """The cost depends on sizes the expression does not tell (a comprehension over an input, a string op)."""


class _Bounder(_Visitor):
    """The (min, max) cost `_Walk` could add for an expression; `_Unbounded` when sizes it does not know decide it.
    Literal sizes are known (`x == 'admin'` costs at most ceil(5 / 10), `a + 1` is no concatenation); with
    `largest`, the size of the largest string, list or map in the inputs, so is every input's, every comprehension's
    length over one, and what `+`, `map` and `filter` make of them."""

    def __init__(self, largest: int | None = None) -> None:
        super().__init__()
        self.largest = largest

    def size(self, e: Any, env: dict[str, int | None]) -> int | None:
        """An upper bound of the value's `actualSize`, None when not known before running."""
        if isinstance(e, Node):
            x = self.coster.expand(e)
            if x is not e:
                return self.size(x, env)
            if e.kind == "lit":
                kind, value = e.value
                return len(value) if kind in ("string", "bytes") and value is not None else 1
            if e.kind == "list":
                return len(e.args)
            if e.kind in ("map", "struct"):
                return len(e.entries)
            if e.kind == "ident":
                return env[e.value] if e.value in env else self.largest
            if e.kind == "select":
                return self.largest
            if e.kind == "call":  # has()
                return 1
            return None
        if isinstance(e, _Comprehension):
            if e.var == "#unused":  # cel.bind
                return self.size(e.result, {**env, e.accu: self.size(e.init, env)})
            if isinstance(e.init, Node) and e.init.kind in ("list", "map"):  # map, filter, transform*: one a step
                return self.size(e.range, env)
            return 1
        if not isinstance(e, _Call):
            return None
        f = e.function
        if f in _SCALAR_RESULTS:
            return 1
        if f in ("_+_", "_-_"):
            if any(self.scalar(a, env) for a in e.args):
                return 1
            if f == "_+_":
                a, b = (self.size(x, env) for x in e.args)
                return None if a is None or b is None else a + b
            return None
        if f == "_?_:_":
            a, b = self.size(e.args[1], env), self.size(e.args[2], env)
            return None if a is None or b is None else max(a, b)
        if f in ("_[_]", "_?._", "_[?_]"):
            return self.largest
        return None

    def scalar(self, e: Any, env: dict[str, int | None]) -> bool:
        """A literal that is not a string or bytes, or an operation whose result is a number or boolean."""
        if isinstance(e, Node) and e.kind == "lit":
            return e.value[0] not in ("string", "bytes")
        x = self.coster.expand(e) if isinstance(e, Node) else e
        return isinstance(x, _Call) and (x.function in _SCALAR_RESULTS or x.function in ("_+_", "_-_") and any(
            self.scalar(a, env) for a in x.args))

    bound = _Visitor.visit

    def node(self, e: Node, env: dict[str, Any], branch: bool) -> Bound:
        kind = e.kind
        if kind == "lit":
            return 0, 0
        if kind == "ident":
            return (0, 0) if branch else (1, 1)
        if kind == "select":
            return _plus(self.bound(e.target, env, branch), (0, 1))  # an error may stop before the selection
        if kind == "call":
            return self.bound(e.args[0].target, env, branch)
        if kind == "list":
            return _plus(_sum(self.bound(a, env) for a in e.args), (LIST_CREATE, LIST_CREATE))
        if kind in ("map", "struct"):
            parts = [self.bound(v, env) for _, v, _ in e.entries]
            if kind == "map":
                parts += [self.bound(k, env) for k, _, _ in e.entries]
            return _plus(_sum(parts), (MAP_CREATE, MAP_CREATE))
        raise _Unbounded

    def _element(self, rng: Any, env: dict[str, int | None]) -> int | None:
        """An upper bound of the sizes of a range's elements (and keys)."""
        if isinstance(rng, Node) and rng.kind == "list":
            sizes = [self.size(a, env) for a in rng.args]
            return None if None in sizes else max(sizes, default=0)
        return self.largest

    def fold(self, c: _Comprehension, env: dict[str, int | None]) -> Bound:
        if c.var == "#unused":  # cel.bind
            inner = {**env, c.accu: self.size(c.init, env)}
            return _plus(_plus(self.bound(c.range, env), self.bound(c.init, env)), self.bound(c.result, inner))
        count = self.size(c.range, env)
        if count is None:
            raise _Unbounded
        element = self._element(c.range, env)
        accu = count if isinstance(c.init, Node) and c.init.kind in ("list", "map") else 1
        inner = {**env, c.accu: accu, c.var: element if c.var2 is None else 1}
        if c.var2 is not None:
            inner[c.var2] = element
        rng, init, result = self.bound(c.range, env), self.bound(c.init, env), self.bound(c.result, inner)
        loop = _plus(self.bound(c.cond, inner), self.bound(c.step, inner))
        return rng[0], rng[1] + init[1] + count * loop[1] + result[1]

    def call(self, e: _Call, env: dict[str, int | None], branch: bool) -> Bound:
        f = e.function
        if f in ("_&&_", "_||_"):
            parts = [self.bound(a, env) for a in e.args]
            return parts[0][0], sum(p[1] for p in parts)
        if f == "_?_:_":
            c, t = self.bound(e.args[0], env), self.bound(e.args[1], env, True)
            g = self.bound(e.args[2], env, True)
            return c[0] + min(t[0], g[0]), c[1] + max(t[1], g[1])
        if f in ("_?._", "_[_]", "_[?_]"):
            key = self.bound(e.args[1], env, True) if f != "_?._" else (0, 0)
            return _plus(_plus(self.bound(e.args[0], env, branch), key), (0, 1))
        if f == "bind" and isinstance(e.target, Node) and e.target.kind == "ident" and e.target.value == "cel":
            inner = {**env, e.args[0].value: self.size(e.args[1], env)}
            return _plus(_plus(self.bound(e.args[1], env), self.bound(e.args[2], inner)), (LIST_CREATE, LIST_CREATE))
        member = e.target is not None
        name = f
        if member and isinstance(e.target, Node) and e.target.kind == "ident" \
                and (e.target.value in NAMESPACES or f"{e.target.value}.{f}" in LIBRARY):
            member, name = False, f"{e.target.value}.{f}"
        operands = ([e.target] if member else []) + list(e.args)
        args = _sum(self.bound(a, env) for a in operands)
        if name == "check":
            own = 350000
        elif name not in _SIZED:
            own = 1
        else:
            own = self.sized_call(name, operands, env)
        return args[0] + (own if name not in _SIZED else 0), args[1] + own

    def sized_call(self, name: str, operands: list[Any], env: dict[str, int | None]) -> int:
        """`call_cost`'s most for a call whose cost may depend on its operands' sizes."""
        sizes = [self.size(o, env) for o in operands]
        if name in ("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_") and len(operands) == 2:
            known = [s for s in sizes if s is not None]
            if not known:
                raise _Unbounded
            return _ceil(min(known) * STRING_TRAVERSAL) if min(known) > 0 else 1
        if name == "_+_" and len(operands) == 2 and any(self.scalar(o, env) for o in operands):
            return 1
        if name == "@in" and len(operands) == 2 and sizes[1] is not None:
            return max(sizes[1], 1)
        if any(s is None for s in sizes) or name in _TRAVERSALS or name == "join":
            raise _Unbounded  # a traversal's cost is its elements'; a join's, its result's
        if name in ("string", "bytes"):  # of bytes or of a string, by the operand's size; else 1
            return max(1, _ceil(sizes[0] * STRING_TRAVERSAL))
        return max(call_cost(name, False, [_Sized(s) for s in sizes], _Sized(0)), 1)


class _Sized(str):
    """A stand-in operand of a known size for `call_cost`."""

    def __new__(cls, n: int) -> _Sized:
        return super().__new__(cls, "x" * n)


def _plus(a: Bound, b: Bound) -> Bound:
    return a[0] + b[0], a[1] + b[1]


def _sum(parts: Any) -> Bound:
    lo = hi = 0
    for p in parts:
        lo, hi = lo + p[0], hi + p[1]
    return lo, hi


_BOUNDS: dict[tuple[str, int | None], Bound | None] = {}


def static_bound(expression: str, largest: int | None = None) -> Bound | None:
    """The (min, max) of the cost `tracked_cost` could find for `expression` over any inputs (with `largest`: over
    inputs none of whose strings, lists and maps is longer), None when sizes decide it. Cached (admission
    expressions are few; `largest` is rounded up to a power of two)."""
    if largest is not None:
        largest = 1 << max(largest - 1, 0).bit_length()
    key = (expression, largest)
    if key not in _BOUNDS:
        if len(_BOUNDS) > 8192:
            _BOUNDS.clear()
        try:
            tree = _tree(expression)
            if largest is not None:  # an index or selection of a literal may yield the longest literal
                largest = max(largest, _longest_literal(tree))
            _BOUNDS[key] = _Bounder(largest).bound(tree, {})
        except Exception:  # noqa: BLE001 - _Unbounded, or what our parser cannot read: walked when it runs
            _BOUNDS[key] = None
    return _BOUNDS[key]


def _longest_literal(tree: Node) -> int:
    from .parser import children
    longest, todo = 1, [tree]
    while todo:
        node = todo.pop()
        if node.kind == "lit" and node.value[0] in ("string", "bytes") and node.value[1] is not None:
            longest = max(longest, len(node.value[1]))
        elif node.kind in ("list", "map", "struct"):
            longest = max(longest, len(node.args) + len(node.entries))
        todo.extend(c for c in children(node) if c is not None)
    return longest


_PATHS: dict[str, tuple[tuple[str, ...], ...] | None] = {}


def read_paths(expression: str) -> tuple[tuple[str, ...], ...] | None:
    """The inputs `expression` reads, as paths of field names from a variable (`object.metadata.name`): every
    value it can reach lies within them (comprehensions range over them, indexes select within them). None when
    our parser cannot read it. Cached."""
    if expression not in _PATHS:
        if len(_PATHS) > 4096:
            _PATHS.clear()
        from .parser import children
        paths: set[tuple[str, ...]] = set()
        try:
            todo = [_tree(expression)]
        except Exception:  # noqa: BLE001 - what our parser cannot read: every input counts
            _PATHS[expression] = None
            return None
        while todo:
            node = todo.pop()
            if node.kind in ("select", "ident"):
                chain: list[str] = []
                base = node
                while base.kind == "select" and base.target is not None:
                    chain.append(str(base.value))
                    base = base.target
                if base.kind == "ident":
                    paths.add((str(base.value), *reversed(chain)))
                    continue
                todo.append(base)
                continue
            todo.extend(c for c in children(node) if c is not None)
        _PATHS[expression] = tuple(sorted(paths))
    return _PATHS[expression]


def largest_input(activation: dict[str, Any], paths: tuple[tuple[str, ...], ...] | None = None) -> int:
    """The size of the largest string, bytes, list or map in `activation` (its values, and within them: map keys
    too), or only within the values at `paths` (`read_paths`). On the request path: one tight loop over JSON-like
    values."""
    if paths is None:
        todo = list(activation.values())
    else:
        todo = []
        for path in paths:
            value: Any = activation
            for name in path:
                value = value.get(name) if isinstance(value, dict) else None
            if value is not None:
                todo.append(value)
    largest = 1
    pop, extend = todo.pop, todo.extend
    while todo:
        value = pop()
        kind = type(value)
        if kind is str or kind is bytes:
            if len(value) > largest:
                largest = len(value)
        elif kind is dict:
            if len(value) > largest:
                largest = len(value)
            if value:
                try:
                    longest_key = max(map(len, value))
                except TypeError:  # keys that are not strings: each judged as a value
                    extend(value)
                else:
                    if longest_key > largest:
                        largest = longest_key
                extend(value.values())
        elif kind is list or kind is tuple:
            if len(value) > largest:
                largest = len(value)
            extend(value)
        elif isinstance(value, (str, bytes, dict, list, tuple)):  # subclasses
            extend([dict(value) if isinstance(value, dict) else list(value) if isinstance(value, (list, tuple))
                    else str(value) if isinstance(value, str) else bytes(value)])
    return largest


def _tree(expression: str) -> Node:
    return _parsed(expression)


def _parsed(expression: str, _cache: dict[str, Node] = {}) -> Node:  # noqa: B006 - a bounded cache
    tree = _cache.get(expression)
    if tree is None:
        if len(_cache) > 1024:
            _cache.clear()
        tree = _cache[expression] = parse(expression)
    return tree


def tracked_cost(expression: str, activation: dict[str, Any], functions: dict[str, Any] | None = None,
                 limit: int | None = None) -> int:
    """cel-go's `ActualCost()` of evaluating `expression` over `activation`; `CostLimitExceeded` past `limit`."""
    tracker = _Tracker(limit)
    _compiled(expression)({k: v for k, v in activation.items() if k != ACCU}, tracker)
    return tracker.cost


__all__ = ["LIMIT_EXCEEDED", "CostLimitExceeded", "actual_size", "call_cost", "largest_input", "read_paths",
           "static_bound", "tracked_cost"]
