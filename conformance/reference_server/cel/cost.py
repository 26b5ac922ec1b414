"""CEL's static cost estimate (`cel.Env.EstimateCost`) over a checked AST: cel-go v0.23.2's `checker/cost.go` (the
coster: identifiers and selections cost 1, literals 0, list/map/struct creation 10/30/40, comprehensions their range's
size times the cost of a step and its loop condition, the per-overload costs of the standard library in
`functionCost`, and the sizes it tracks for strings, bytes, lists and maps), with the overload estimators of
`ext/sets.go`, and, asked first, the Kubernetes libraries' `EstimateCallCost` (`libcost.py`).

Macros are costed as cel-go expands them (`parser/macro.go`, `ext/comprehensions.go`, `cel/library.go`'s optMap and
optFlatMap). Sizes the expression does not tell come from a size estimator of field paths (`self.spec.items.@items`,
as `checker.AstNode.Path`), the CRD's `registry/crdrules/cost.py` for x-kubernetes-validations.

Quirks kept: the v0.23.2 coster hands the library estimator a non-nil target pointer for global calls too, so
`cidr()`, `isIP()`, `quantity()`, `semver()` ... are costed by their argument's size."""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .checker import _ONE_VAR, _TWO_VAR, Checker, Overload, substitute
from .parser import Node
from .types import BOOL, DOUBLE, DURATION, DYN, INT, TIMESTAMP, UINT, Type, list_of

MAX = (1 << 64) - 1
Estimate = tuple[int, int]  # (min, max): a cost, or a size (`SizeEstimate`)
UNKNOWN_SIZE: Estimate = (0, MAX)
SizeEstimator = Callable[[tuple[str, ...], Type], "Estimate | None"]

# common/cost.go
SELECT_AND_IDENT, CONST, LIST_CREATE, MAP_CREATE, STRUCT_CREATE = 1, 0, 10, 30, 40
STRING_TRAVERSAL, REGEX_STRING_LENGTH = 0.1, 0.25
ACCU = "@result"


def add(a: Estimate, b: Estimate) -> Estimate:
    return min(a[0] + b[0], MAX), min(a[1] + b[1], MAX)


def multiply(a: Estimate, b: Estimate) -> Estimate:
    return min(a[0] * b[0], MAX), min(a[1] * b[1], MAX)


def _factor(x: int, f: float) -> int:
    """`multiplyByCostFactor`: the product rounded up, MaxUint64 on overflow (in float64, as Go computes it)."""
    xf = float(x)
    if xf > 0 and f > 0 and xf > MAX / f:
        return MAX
    c = math.ceil(xf * f)
    return MAX if c >= 2.0 ** 64 else int(c)


def factor(a: Estimate, f: float) -> Estimate:
    return _factor(a[0], f), _factor(a[1], f)


def union(a: Estimate, b: Estimate) -> Estimate:
    return min(a[0], b[0]), max(a[1], b[1])


@dataclass(frozen=True)
class _Entry:
    """`entrySizeEstimate`: a list's or map's key and value sizes."""
    container: str
    key: Estimate
    val: Estimate


def _union_entries(a: _Entry | None, b: _Entry | None) -> _Entry | None:
    if a is None or b is None:
        return None
    return _Entry(a.container, union(a.key, b.key), union(a.val, b.val))


@dataclass
class _Local:
    path: tuple[str, ...]
    size: Estimate | None
    entry: _Entry | None


@dataclass
class _Comprehension:
    """A macro as cel-go expands it."""
    range: Any
    var: str
    var2: str | None
    init: Any
    cond: Any
    step: Any
    result: Any
    accu: str = ACCU


@dataclass
class _Call:
    """A call of the expanded AST: function, member target, arguments, overload ids."""
    function: str
    target: Any
    args: list[Any]
    ids: list[str]


@dataclass
class AstNode:
    """`checker.AstNode`: what the estimators see of an argument."""
    path: tuple[str, ...] | None
    type: Type
    expr: Any
    computed: Estimate | None


def _lit(kind: str, value: Any) -> Node:
    return Node("lit", 0, 0, 0, (kind, value))


def _ident(name: str) -> Node:
    return Node("ident", 0, 0, 0, name)


_SCALARS = {BOOL, DOUBLE, DURATION, INT, TIMESTAMP, UINT}
_COMPARISONS = {"_<_": "less", "_<=_": "less_equals", "_>_": "greater", "_>=_": "greater_equals"}


def overload_id(function: str, o: Overload) -> str:
    """The cel-go/Kubernetes overload id of a declared overload, where a cost depends on it (else the function)."""
    p = [t.name for t in o.params]
    if function == "_+_" and p[0] in ("string", "bytes", "list"):
        return f"add_{p[0]}"
    if function in _COMPARISONS and p[0] == p[-1] and p[0] in ("string", "bytes"):
        return f"{_COMPARISONS[function]}_{p[0]}"
    if function in ("_==_", "_!=_"):
        return "equals" if function == "_==_" else "not_equals"
    if function == "@in":
        return "in_list" if p[1] == "list" else "in_map"
    if function in ("matches", "contains", "startsWith", "endsWith") and o.member:
        return {"matches": "matches_string", "contains": "contains_string", "startsWith": "starts_with_string",
                "endsWith": "ends_with_string"}[function]
    if function == "string" and p == ["bytes"]:
        return "bytes_to_string"
    if function == "bytes" and p == ["string"]:
        return "string_to_bytes"
    if function == "format" and o.member:
        return "string_format"
    if function == "strings.quote":
        return "strings_quote"
    if function == "_[_]" and p[0] in ("list", "map"):
        return f"index_{p[0]}"
    if function.startswith("sets."):
        return f"list_sets_{function[5:]}_list"
    if function == "ip" and o.member:
        return "cidr_ip"
    if function in ("containsIP", "containsCIDR"):
        kind = "ip" if function == "containsIP" else "cidr"
        return f"cidr_contains_{kind}_{'string' if p[1] == 'string' else kind}"
    if function == "_?_:_":
        return "conditional"
    return function


class Coster:
    """cel-go's `coster` over this package's AST and the checker's types and references."""

    def __init__(self, checker: Checker, sizes: SizeEstimator | None = None, presence_cost: int = 1,
                 tracked: bool = False) -> None:
        self.checker = checker
        # `tracked`: startsWith/endsWith costed by the receiver's size, as the runtime tracker costs them (the
        # estimator sizes the argument), so that the estimate bounds the tracked cost (cel/budget.py)
        self.tracked = tracked
        self.presence_cost = presence_cost  # `PresenceTestHasCost`: Kubernetes' base environment sets it to 0
        self.size_estimator = sizes
        self.types: dict[int, Type] = {}
        self.paths: dict[int, tuple[str, ...]] = {}
        self.sizes: dict[int, Estimate] = {}
        self.entries: dict[int, _Entry] = {}
        self.locals: dict[str, list[_Local]] = {}
        self.expanded: dict[int, Any] = {}

    # ---- types and the expanded AST -------------------------------------------------------------------------------
    def type_of(self, e: Any) -> Type:
        t = self.types.get(id(e))
        if t is None:
            if isinstance(e, Node) and e.kind == "lit":
                return Type(e.value[0])
            t = self.checker.types.get(id(e), DYN)
        return substitute(self.checker.mapping, t, True)

    def expand(self, e: Node) -> Any:
        """The node as cel-go's AST has it: a `_Call`, a `_Comprehension`, or the node itself."""
        key = id(e)
        if key not in self.expanded:
            self.expanded[key] = self._expand(e)
        return self.expanded[key]

    def _synthetic(self, node: Any, t: Type) -> Any:
        self.types[id(node)] = t
        return node

    def _call(self, function: str, target: Any, args: list[Any], ids: list[str], t: Type) -> _Call:
        return self._synthetic(_Call(function, target, args, ids), t)

    def _refs(self, e: Node) -> tuple[str, list[str]]:
        name, matched = self.checker.references.get(id(e), (e.value, []))
        return name, [overload_id(name, o) for o in matched]

    def _expand(self, e: Node) -> Any:
        k = e.kind
        if k in ("unary", "binary"):
            if e.value in ("_&&_", "_||_"):
                return _Call(e.value, None, list(e.args), ["logical_and" if e.value == "_&&_" else "logical_or"])
            return _Call(e.value, None, list(e.args), self._refs(e)[1])
        if k == "cond":
            return _Call("_?_:_", None, list(e.args), ["conditional"])
        if k == "index":
            fn = "_[?_]" if e.optional else "_[_]"
            return _Call(fn, None, [e.target, e.args[0]], self._refs(e)[1])
        if k == "select" and e.optional:
            return _Call("_?._", None, [e.target, _lit("string", e.value)], ["select_optional_field"])
        if k != "call":
            return e
        if e.target is None and e.value == "has" and len(e.args) == 1 and e.args[0].kind == "select":
            return e  # a presence test
        if id(e) in self.checker.references:
            name, ids = self._refs(e)
            member = bool(ids) and any(o.member for o in self.checker.references[id(e)][1])
            if e.target is not None and member:
                return _Call(name, e.target, list(e.args), ids)
            return _Call(name, None, list(e.args), ids)
        if e.target is not None:
            n = len(e.args)
            if n in _ONE_VAR.get(e.value, ()) and e.args[0].kind == "ident":
                return self._macro(e, e.args[0].value, None, e.args[1:])
            if n in _TWO_VAR.get(e.value, ()) and e.args[0].kind == "ident" and e.args[1].kind == "ident":
                return self._macro(e, e.args[0].value, e.args[1].value, e.args[2:])
            if e.value in ("optMap", "optFlatMap") and n == 2 and e.args[0].kind == "ident":
                return self._opt_map(e)
        return _Call(e.value, e.target, list(e.args), [])

    def _macro(self, e: Node, var: str, var2: str | None, body: list[Node]) -> _Comprehension:
        """`makeQuantifier`, `MakeMap`, `MakeFilter` and the two-variable macros of ext/comprehensions.go."""
        name, rng = e.value, e.target
        call = self._call

        def accu(t: Type) -> Node:
            return self._synthetic(_ident(ACCU), t)
        if name in ("all", "exists"):
            init = _lit("bool", name == "all")
            if name == "all":
                cond = call("@not_strictly_false", None, [accu(BOOL)], ["not_strictly_false"], BOOL)
                step = call("_&&_", None, [accu(BOOL), body[-1]], ["logical_and"], BOOL)
            else:
                negated = call("!_", None, [accu(BOOL)], ["logical_not"], BOOL)
                cond = call("@not_strictly_false", None, [negated], ["not_strictly_false"], BOOL)
                step = call("_||_", None, [accu(BOOL), body[-1]], ["logical_or"], BOOL)
            return _Comprehension(rng, var, var2, init, cond, step, accu(BOOL))
        if name in ("exists_one", "existsOne"):
            plus = call("_+_", None, [accu(INT), _lit("int", 1)], ["add_int64"], INT)
            step = call("_?_:_", None, [body[-1], plus, accu(INT)], ["conditional"], INT)
            result = call("_==_", None, [accu(INT), _lit("int", 1)], ["equals"], BOOL)
            return _Comprehension(rng, var, var2, _lit("int", 0), _lit("bool", True), step, result)
        out = self.checker.types.get(id(e), DYN)
        out = substitute(self.checker.mapping, out, True)
        if name == "filter":
            item = self._synthetic(_ident(var), out.params[0] if out.params else DYN)
            element = self._synthetic(Node("list", 0, 0, 0, args=[item]), out)
            added = call("_+_", None, [accu(out), element], ["add_list"], out)
            step = call("_?_:_", None, [body[0], added, accu(out)], ["conditional"], out)
            init = self._synthetic(Node("list", 0, 0, 0), out)
        elif name in ("transformMap", "transformMapEntry"):
            values = [_ident(var), body[-1]] if name == "transformMap" else [body[-1]]
            added = call("cel.@mapInsert", None, [accu(out), *values], ["cel.@mapInsert"], out)
            step = (call("_?_:_", None, [body[0], added, accu(out)], ["conditional"], out) if len(body) == 2
                    else added)
            init = self._synthetic(Node("map", 0, 0, 0), out)
        else:  # map, transformList
            element = self._synthetic(Node("list", 0, 0, 0, args=[body[-1]]), out)
            added = call("_+_", None, [accu(out), element], ["add_list"], out)
            step = (call("_?_:_", None, [body[0], added, accu(out)], ["conditional"], out) if len(body) == 2
                    else added)
            init = self._synthetic(Node("list", 0, 0, 0), out)
        return _Comprehension(rng, var, var2, init, _lit("bool", True), step, accu(out))

    def _opt_map(self, e: Node) -> _Call:
        """cel/library.go: `optMap(v, f)` is `t.hasValue() ? optional.of(bind(v, t.value(), f)) : optional.none()`,
        `optFlatMap` without the `optional.of`."""
        t = self.type_of(e.target)
        inner = t.params[0] if t.name == "optional_type" and t.params else DYN
        has = self._call("hasValue", e.target, [], ["optional_hasValue"], BOOL)
        value = self._call("value", e.target, [], ["optional_value"], inner)
        bound = _Comprehension(self._synthetic(Node("list", 0, 0, 0), list_of(DYN)), "#unused", None, value,
                               _lit("bool", False), _ident(e.args[0].value), e.args[1], accu=e.args[0].value)
        out = self.type_of(e)
        if e.value == "optMap":
            bound = self._call("optional.of", None, [bound], ["optional_of"], out)
        none = self._call("optional.none", None, [], ["optional_none"], out)
        return _Call("_?_:_", None, [has, bound, none], ["conditional"])

    # ---- the coster -------------------------------------------------------------------------------------------
    def cost(self, e: Any) -> Estimate:
        if e is None:
            return 0, 0
        if isinstance(e, Node):
            x = self.expand(e)
            if x is not e:
                self.types.setdefault(id(x), self.type_of(e))
                c = self.cost(x)
                self._alias(e, x)
                return c
            k = e.kind
            if k == "lit":
                return CONST, CONST
            if k == "ident":
                return self.cost_ident(e)
            if k == "select":
                return self.cost_select(e)
            if k == "call":  # a presence test
                return self.cost_presence(e.args[0])
            if k == "list":
                return self.cost_list(e)
            if k in ("map", "struct"):
                return self.cost_map(e)
            return 0, 0
        if isinstance(e, _Call):
            return self.cost_call(e)
        if isinstance(e, _Comprehension):
            return self.cost_bind(e) if e.var == "#unused" else self.cost_comprehension(e)
        return 0, 0

    def _alias(self, e: Node, x: Any) -> None:
        for table in (self.paths, self.sizes, self.entries):
            if id(x) in table:
                table[id(e)] = table[id(x)]  # type: ignore[index]

    def cost_ident(self, e: Node) -> Estimate:
        local = self._peek(e.value)
        self.paths[id(e)] = local.path if local is not None else (e.value,)
        return SELECT_AND_IDENT, SELECT_AND_IDENT

    def cost_presence(self, sel: Node) -> Estimate:
        return add((self.presence_cost, self.presence_cost), self.cost(sel.target))

    def cost_select(self, e: Node) -> Estimate:
        total = self.cost(e.target)
        t = self.type_of(e.target)
        if t.name == "map" or _is_struct(t):
            total = add(total, (SELECT_AND_IDENT, SELECT_AND_IDENT))
        self.paths[id(e)] = (*self.get_path(e.target), e.value)
        return total

    def cost_list(self, e: Node) -> Estimate:
        total: Estimate = (0, 0)
        item: Estimate = (MAX, 0) if e.args else (0, 0)
        for x in e.args:
            total = add(total, self.cost(x))
            item = union(item, self.size_or_unknown(x))
        self.entries[id(e)] = _Entry("list", (1, 1), item)
        return add(total, (LIST_CREATE, LIST_CREATE))

    def cost_map(self, e: Node) -> Estimate:
        total: Estimate = (0, 0)
        if e.kind == "struct":
            for _, v, _ in e.entries:
                total = add(total, self.cost(v))
            return add(total, (STRUCT_CREATE, STRUCT_CREATE))
        key: Estimate = (MAX, 0) if e.entries else (0, 0)
        val = key
        for k, v, _ in e.entries:
            total = add(add(total, self.cost(k)), self.cost(v))
            key, val = union(key, self.size_or_unknown(k)), union(val, self.size_or_unknown(v))
        self.entries[id(e)] = _Entry("map", key, val)
        return add(total, (MAP_CREATE, MAP_CREATE))

    def cost_comprehension(self, c: _Comprehension) -> Estimate:
        total = add(self.cost(c.range), self.cost(c.init))
        self._push_local(c.accu, c.init)
        entry = self.compute_entry(c.range)
        container = entry.container if entry is not None else self.type_of(c.range).name
        path = self.get_path(c.range)
        if c.var2 is not None:
            self._push(c.var, (*path, "@indices" if container == "list" else "@keys"),
                       entry.key if entry else None)
            self._push(c.var2, (*path, "@items" if container == "list" else "@values"),
                       entry.val if entry else None)
        else:
            size = (entry.val if container == "list" else entry.key) if entry else None
            self._push(c.var, (*path, "@items" if container == "list" else "@keys"), size)
        loop = self.cost(c.cond)
        step = self.cost(c.step)
        self._pop(c.var)
        if c.var2 is not None:
            self._pop(c.var2)
        total = add(total, self.cost(c.result))
        self._pop(c.accu)
        count = self.size_or_unknown(c.range)
        total = add(total, multiply(count, add(step, loop)))
        init = c.init
        if isinstance(init, Node) and init.kind == "lit":
            self._set_size(c, self.compute_size(init))
        elif isinstance(init, Node) and init.kind in ("list", "map"):
            self._set_size(c, count)
            step_entry = self.compute_entry(c.step)
            if step_entry is not None:
                self.entries[id(c)] = step_entry
        return total

    def cost_bind(self, c: _Comprehension) -> Estimate:
        total = add(self.cost(c.range), self.cost(c.init))
        self._push_local(c.accu, c.init)
        total = add(total, self.cost(c.result))
        self._pop(c.accu)
        self._set_size(c, self.compute_size(c.result))
        entry = self.compute_entry(c.result)
        if entry is not None:
            self.entries[id(c)] = entry
        return total

    def cost_call(self, e: _Call) -> Estimate:
        if e.function == "dyn" and e.args:
            arg_cost = self.cost(e.args[0])
            self._set_size(e, self.compute_size(e.args[0]))
            entry = self.compute_entry(e.args[0])
            if entry is not None:
                self.entries[id(e)] = entry
            return add((1, 1), arg_cost)
        arg_costs = [self.cost(a) for a in e.args]
        arg_nodes = [self.ast_node(a) for a in e.args]
        if not e.ids:
            return 0, 0
        total: Estimate = (0, 0)
        target: AstNode | None = None
        if e.target is not None:
            total = add(total, self.cost(e.target))
            target = self.ast_node(e.target)
        fn_cost: Estimate = (MAX, 0)
        result: Estimate | None = None
        for oid in e.ids:
            cost, size = self.function_cost(e, e.function, oid, target, arg_nodes, arg_costs)
            fn_cost = union(fn_cost, cost)
            if size is not None:
                result = size if result is None else union(result, size)
            if oid in ("index_list", "index_map") and e.args:
                entry = self.compute_entry(e.args[0])
                result = entry.val if entry is not None else None
                self.paths[id(e)] = (*self.get_path(e.args[0]), "@items" if oid == "index_list" else "@values")
            if result is None:
                result = self.compute_size(e)
        self._set_size(e, result)
        return add(total, fn_cost)

    def function_cost(self, e: _Call, function: str, oid: str, target: AstNode | None, args: list[AstNode],
                      arg_costs: list[Estimate]) -> tuple[Estimate, Estimate | None]:
        arg_sum: Estimate = (0, 0)
        for a in arg_costs:
            arg_sum = add(arg_sum, a)
        if oid.startswith("list_sets_") and len(args) == 2:  # ext/sets.go estimateSetsCost
            f = 2 if oid == "list_sets_equivalent_list" else 1
            est = add(factor(multiply(self.sized(args[0]), self.sized(args[1])), f), (1, 1))
            return add(est, arg_sum), None
        from .libcost import library_cost
        library = library_cost(function, oid, target, args, self.sized)
        if library is not None:
            return add(library[0], arg_sum), library[1]
        if oid == "string_format" and target is not None:
            return add(factor(self.sized(target), STRING_TRAVERSAL), arg_sum), None
        if oid == "string_to_bytes" and len(args) == 1:
            sz = self.sized(args[0])
            return add(factor(sz, STRING_TRAVERSAL), arg_sum), (sz[0], (sz[1] * 4) & MAX)  # Go's uint64 wraps
        if oid == "bytes_to_string" and len(args) == 1:
            sz = self.sized(args[0])
            return add(factor(sz, STRING_TRAVERSAL), arg_sum), (sz[0] // 4, sz[1])
        if oid == "strings_quote" and len(args) == 1:
            sz = self.sized(args[0])
            return add(factor(sz, STRING_TRAVERSAL), arg_sum), (sz[0] + 2, (sz[1] * 2 + 2) & MAX)
        if oid in ("starts_with_string", "ends_with_string") and len(args) == 1:
            sized = self.sized(target) if self.tracked and target is not None else self.sized(args[0])
            return add(factor(sized, STRING_TRAVERSAL), arg_sum), None
        if oid == "in_list" and len(args) == 2:
            return add(factor(self.sized(args[1]), 1), arg_sum), None
        if oid == "matches_string" and target is not None and len(args) == 1:
            s = factor(add(self.sized(target), (1, 1)), STRING_TRAVERSAL)
            r = factor(self.sized(args[0]), REGEX_STRING_LENGTH)
            return add(multiply(s, r), arg_sum), None
        if oid == "contains_string" and target is not None and len(args) == 1:
            s = factor(self.sized(target), STRING_TRAVERSAL)
            return add(multiply(s, factor(self.sized(args[0]), STRING_TRAVERSAL)), arg_sum), None
        if oid in ("logical_or", "logical_and"):
            lhs, rhs = arg_costs
            return (lhs[0], add(lhs, rhs)[1]), None
        if oid == "conditional":
            result = union(self.sized(args[1]), self.sized(args[2]))
            entry = _union_entries(self.compute_entry(args[1].expr), self.compute_entry(args[2].expr))
            if entry is not None:
                self.entries[id(e)] = entry
            return add(arg_costs[0], union(arg_costs[1], arg_costs[2])), result
        if oid in ("add_string", "add_bytes", "add_list") and len(args) == 2:
            result = add(self.sized(args[0]), self.sized(args[1]))
            entry = _union_entries(self.compute_entry(args[0].expr), self.compute_entry(args[1].expr))
            if entry is not None:
                self.entries[id(e)] = entry
            if oid == "add_list":
                return add((1, 1), arg_sum), result
            return add(factor(result, STRING_TRAVERSAL), arg_sum), result
        if oid in ("equals", "not_equals") or (oid.endswith(("_string", "_bytes")) and
                                               oid.split("_")[0] in ("less", "greater")):
            lhs, rhs = self.sized(args[0]), self.sized(args[1])
            smallest = min(lhs[1], rhs[1])
            return add(factor((1 if smallest > 0 else 0, smallest), STRING_TRAVERSAL), arg_sum), None
        return add((1, 1), arg_sum), None

    def sized(self, node: AstNode) -> Estimate:
        """`sizeEstimate`: the computed size, else the estimator's, else unknown."""
        if node.computed is not None:
            return node.computed
        if node.path and self.size_estimator is not None:
            est = self.size_estimator(node.path, node.type)
            if est is not None:
                return est
        return UNKNOWN_SIZE

    # ---- paths and sizes -------------------------------------------------------------------------------------
    def ast_node(self, e: Any) -> AstNode:
        path: tuple[str, ...] | None = self.get_path(e)
        if path and path[0] == ACCU:
            path = None
        return AstNode(path, self.type_of(e), e, self.compute_size(e))

    def get_path(self, e: Any) -> tuple[str, ...]:
        if isinstance(e, Node) and e.kind == "ident":
            local = self._peek(e.value)
            if local is not None:
                return local.path
        if isinstance(e, Node) and id(e) in self.expanded and id(e) not in self.paths:
            x = self.expanded[id(e)]
            return self.paths.get(id(x), ())
        return self.paths.get(id(e), ())

    def _set_size(self, e: Any, size: Estimate | None) -> None:
        if size is not None:
            self.sizes[id(e)] = size

    def size_or_unknown(self, e: Any) -> Estimate:
        size = self.compute_size(e)
        return size if size is not None else UNKNOWN_SIZE

    def compute_size(self, e: Any) -> Estimate | None:
        if id(e) in self.sizes:
            return self.sizes[id(e)]
        if isinstance(e, Node) and id(e) in self.expanded and self.expanded[id(e)] is not e:
            x = self.expanded[id(e)]
            if id(x) in self.sizes:
                return self.sizes[id(x)]
        fixed = _expr_size(e)
        if fixed is not None:
            return fixed
        path = self.get_path(e)
        if path and self.size_estimator is not None:
            est = self.size_estimator(path, self.type_of(e))
            if est is not None:
                self.sizes[id(e)] = est
                return est
        t = self.type_of(e)
        if _is_scalar(t):
            return 1, 1
        if isinstance(e, Node) and e.kind == "ident":
            local = self._peek(e.value)
            if local is not None and local.size is not None:
                return local.size
        return None

    def compute_entry(self, e: Any) -> _Entry | None:
        if id(e) in self.entries:
            return self.entries[id(e)]
        if isinstance(e, Node) and id(e) in self.expanded:
            x = self.expanded[id(e)]
            if id(x) in self.entries:
                return self.entries[id(x)]
        if isinstance(e, Node) and e.kind == "ident":
            local = self._peek(e.value)
            if local is not None and local.entry is not None:
                return local.entry
        return None

    # ---- local variables -------------------------------------------------------------------------------------
    def _push(self, name: str, path: tuple[str, ...], size: Estimate | None, entry: _Entry | None = None) -> None:
        self.locals.setdefault(name, []).append(_Local(path, size, entry))

    def _push_local(self, name: str, e: Any) -> None:
        self._push(name, self.get_path(e), self.compute_size(e), self.compute_entry(e))

    def _pop(self, name: str) -> None:
        self.locals[name].pop()

    def _peek(self, name: str) -> _Local | None:
        stack = self.locals.get(name)
        return stack[-1] if stack else None


def _is_struct(t: Type) -> bool:
    from .checker import _is_struct as struct
    return struct(t) and t.name not in ("dyn", "?")


def _is_scalar(t: Type) -> bool:
    if t.name == "optional_type" and t.params:
        return _is_scalar(t.params[0])
    return t in _SCALARS


def _expr_size(e: Any) -> Estimate | None:
    if not isinstance(e, Node):
        return None
    if e.kind == "lit":
        kind, value = e.value
        if kind == "string":
            return len(value), len(value)
        if kind == "bytes":
            n = len(value.encode("latin-1", "surrogatepass")) if isinstance(value, str) else len(value)
            return n, n
        return 1, 1
    if e.kind == "list":
        return len(e.args), len(e.args)
    if e.kind == "map":
        return len(e.entries), len(e.entries)
    return None


def estimate(tree: Node, checker: Checker, sizes: SizeEstimator | None = None, presence_cost: int = 0,
             tracked: bool = False) -> Estimate:
    """`EstimateCost` of a checked expression: its (min, max) cost (`has()` free, as Kubernetes configures it)."""
    return Coster(checker, sizes, presence_cost, tracked).cost(tree)


def estimate_expression(expression: str, variables: Mapping[str, Type], sizes: SizeEstimator | None = None,
                        objects: Mapping[str, Mapping[str, Type]] | None = None, presence_cost: int = 0
                        ) -> Estimate | None:
    """Parse, check and estimate `expression`; None when this package cannot parse or check it."""
    from .parser import ParseError, parse
    from .types import OBJECTS
    try:
        tree = parse(expression)
        checker = Checker(variables, None, {**OBJECTS, **(objects or {})})
        checker.output(tree)
        if checker.errors:
            return None
        return estimate(tree, checker, sizes, presence_cost)
    except (ParseError, RecursionError):
        return None


__all__ = ["MAX", "AstNode", "Coster", "Estimate", "SizeEstimator", "estimate", "estimate_expression"]
