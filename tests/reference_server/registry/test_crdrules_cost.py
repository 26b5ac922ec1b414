"""The CRD write's cost estimate (`registry/crdrules/cost.py` with `cel/cost.py`) against apiextensions-apiserver
v0.33's `pkg/apiserver/schema/cel/compilation_test.go` `TestCostEstimation`: each schema generator ported, each rule's
MaxCost without limits and with maxItems/maxProperties/maxLength set, upstream's numbers; and the messages and
cardinality of `pkg/apis/apiextensions/validation/validation.go`."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.reference_server.registry.crdrules import cost
from conformance.reference_server.registry.crdrules.compiler import Types, compile_rule


def _type(name: str) -> dict[str, Any]:
    """`parseRuleType`."""
    if name in ("duration", "date", "date-time"):
        return {"type": "string", "format": name}
    if name == "int-or-string":
        return {"x-kubernetes-int-or-string": True}
    return {"type": name}


def _rule(schema: dict[str, Any], rule: str) -> dict[str, Any]:
    return {**schema, "x-kubernetes-validations": [{"rule": rule}]}


def _limit(schema: dict[str, Any], key: str, most: int | None) -> dict[str, Any]:
    return {**schema, key: most} if most is not None else schema


_STRINGS = {"required": {"type": "string"}, "optional": {"type": "string"}}
OBJECT_ITEM = {"type": "object", "properties": _STRINGS, "required": ["required"]}
MAP_ITEM = {"type": "object", "additionalProperties": {"type": "number"}}
ARRAY_ITEM = {"type": "array", "items": {"type": "number"}}


def generate(kind: str, args: list[Any], most: int | None) -> dict[str, Any]:
    """The generators of compilation_test.go, `most` their maxItems/maxProperties/maxLength."""
    if kind == "array":
        return _rule(_limit({"type": "array", "items": _type(args[0])}, "maxItems", most), args[1])
    if kind == "array_of_arrays":
        return _rule(_limit({"type": "array", "items": {"type": "array", "items": {"type": args[0]}}},
                            "maxItems", most), args[1])
    if kind == "object_array":
        return _rule(_limit({"type": "array", "items": OBJECT_ITEM}, "maxItems", most), args[0])
    if kind == "map_array":
        return _rule(_limit({"type": "array", "items": {"type": "object", "additionalProperties": {
            "type": args[0]}}}, "maxItems", most), args[1])
    if kind == "map_of":
        return _rule(_limit({"type": "object", "additionalProperties": _type(args[0])}, "maxProperties", most),
                     args[1])
    if kind == "map_of_item":
        return _rule(_limit({"type": "object", "additionalProperties": copy.deepcopy(args[0])}, "maxProperties",
                            most), args[1])
    if kind == "string":
        return _rule(_limit({"type": "string"}, "maxLength", most), args[0])
    if kind == "byte_string":
        return _rule(_limit({"type": "string", "format": "byte"}, "maxLength", most), args[0])
    if kind == "enum":
        return _rule(_limit({"type": "string", "enum": args[1:]}, "maxLength", most), args[0])
    if kind == "nested":
        return _rule(_limit({"type": "object", "additionalProperties": _limit({"type": "string"}, "maxLength", most)},
                            "maxProperties", most), args[0])
    value = {"type": "object", "properties": _STRINGS, "required": ["required"]}
    if kind == "all_max_nested":
        items = _limit({"type": "object", "additionalProperties": _limit(value, "maxProperties", most)},
                       "maxProperties", most)
        return _rule(_limit({"type": "array", "items": items}, "maxItems", most), args[0])
    assert kind == "one_max_nested"
    items = _limit({"type": "object", "additionalProperties": value}, "maxProperties", most)
    return _rule({"type": "array", "items": items}, args[0])


def max_cost(schema: dict[str, Any]) -> int:
    """`Compile(s, SchemaDeclType(s, false), ...)[0].MaxCost`."""
    types = Types()
    decl = cost.decl_type(schema)
    assert decl is not None
    compiled = compile_rule(schema["x-kubernetes-validations"][0], schema, types.of(schema, "selfType"), types,
                            sizes=cost.size_estimator(decl))
    assert not compiled.error, compiled.error
    return compiled.max_cost


TABLE = [
    ('array', ['number', 'self.all(x, true)'], 4718591, 10, 32),
    ('array', ['string', 'self.all(x, true)'], 3145727, 20, 62),
    ('array', ['boolean', 'self.all(x, true)'], 1887437, 5, 17),
    ('array_of_arrays', ['number', 'self.all(x, true)'], 3145727, 100, 302),
    ('object_array', ['self.all(x, true)'], 555128, 50, 152),
    ('map_of', ['number', 'self.all(x, true)'], 1348169, 10, 32),
    ('map_of', ['number', 'has(self.x)'], 0, 100, 0),
    ('map_of', ['string', 'self.all(x, true)'], 1179647, 3, 11),
    ('map_of', ['string', 'has(self.x)'], 0, 550, 0),
    ('map_of', ['boolean', 'self.all(x, true)'], 943718, 100, 302),
    ('map_of', ['boolean', 'has(self.x)'], 0, 1024, 0),
    ('string', ["self.contains('test')"], 314574, 10, 5),
    ('string', ["self.startsWith('test')"], 2, 15, 2),
    ('string', ["self.endsWith('test')"], 2, 30, 2),
    ('string', ['size(self + "hello") > size("hello")'], 314578, 4, 7),
    ('array', ['number', 'self[1] == 0.0'], 2, 5000, 2),
    ('array', ['string', 'self[1] == self[1]'], 314577, 8, 314577),
    ('array', ['number', 'self.all(x, self.all(y, true))'], 0, 10, 352),
    ('array', ['number', 'self.all(x, self.all(y, self.all(z, true)))'], 0, 10, 3552),
    ('string', ['self.matches("x")'], 314574, 50, 22),
    ('string', ['"".matches("(((((((((())))))))))[0-9]")'], 7, 10, 7),
    ('string', ['self.matches("")'], 1, 100, 1),
    ('nested', ['self.all(x, x.contains(self[x]))'], 2752507, 10, 72),
    ('array', ['number', 'self[3] == 0.0'], 2, 0, 2),
    ('map_of', ['number', 'self["x"] == 0.0'], 2, 0, 2),
    ('string', ['self == "x"'], 2, 0, 1),
    ('byte_string', ['self == b"x"'], 2, 0, 1),
    ('array', ['number', 'self.all(x, x == 0.0)'], 6291454, 6291456, 25165826),
    ('all_max_nested', ['self.all(x, x["y"].required == "z")'], 7340027, 10, 72),
    ('one_max_nested', ['self.all(x, x["y"].required == "z")'], 7340027, 10, 7340027),
    ('array', ['int-or-string', 'self.all(x, true)'], 4718591, 10, 32),
    ('array', ['int-or-string', 'self[0] == 5'], 3, 10, 3),
    ('array', ['boolean', 'self[0] == false'], 2, 25, 2),
    ('object_array', ['self[0] == null'], 2, 422, 2),
    ('array_of_arrays', ['number', 'self[0][0] == -1.0'], 3, 51, 3),
    ('map_array', ['number', 'self.all(x, x.y == 25.2)'], 6291452, 12, 74),
    ('map_array', ['number', 'self[0].x > 2.0'], 4, 3000, 4),
    ('array', ['duration', 'self.all(x, true)'], 2359295, 5, 17),
    ('array', ['duration', 'self[0].getHours() == 2'], 4, 525, 4),
    ('array', ['date', 'self.all(x, true)'], 725936, 15, 47),
    ('array', ['date', 'self[2].getDayOfMonth() == 13'], 4, 42, 4),
    ('array', ['date-time', 'self.all(x, true)'], 428963, 25, 77),
    ('array', ['date-time', 'self[2].getMinutes() == 45'], 4, 99, 4),
    ('map_of', ['int-or-string', 'self.all(x, true)'], 1348169, 15, 47),
    ('map_of', ['int-or-string', 'has(self.x)'], 0, 5000, 0),
    ('map_of_item', [OBJECT_ITEM, 'self.all(x, true)'], 428963, 20, 62),
    ('map_of_item', [OBJECT_ITEM, 'has(self.x)'], 0, 9001, 0),
    ('map_of_item', [MAP_ITEM, 'self.all(x, true)'], 1179647, 10, 32),
    ('map_of_item', [MAP_ITEM, 'has(self.x)'], 0, 101, 0),
    ('map_of_item', [ARRAY_ITEM, 'self.all(x, true)'], 1179647, 25, 77),
    ('map_of_item', [ARRAY_ITEM, 'has(self.x)'], 0, 40000, 0),
    ('map_of', ['duration', 'self.all(x, true)'], 1048577, 5, 17),
    ('map_of', ['duration', 'has(self.x)'], 0, 256, 0),
    ('map_of', ['date', 'self.all(x, true)'], 524288, 10, 32),
    ('map_of', ['date', 'has(self.x)'], 0, 65536, 0),
    ('map_of', ['date-time', 'self.all(x, true)'], 349526, 25, 77),
    ('map_of', ['date-time', 'has(self.x)'], 0, 490, 0),
    ('string', ["self.find('[0-9]+') == ''"], 629147, 10, 11),
    ('map_of', ['integer', 'oldSelf.size() == self.size()'], 5, 10, 5),
    ('map_of', ['date-time', 'self["a"] == self["b"]'], 8, 7, 8),
    ('map_of', ['duration', 'self["c"] == self["d"]'], 8, 42, 8),
    ('enum', ["self.contains('A')", 'A', 'B', 'C', 'LongValue'], 2, 1000, 401),
]


@pytest.mark.parametrize("kind, args, calc, most, limited", TABLE, ids=[f"{r[0]}:{r[1][-1] if r[0] != 'enum' else r[1][0]}"
                                                                        for r in TABLE])
def test_cost_estimation_matches_compilation_test(kind, args, calc, most, limited):
    if calc:
        assert max_cost(generate(kind, args, None)) == calc
    if limited:
        assert max_cost(generate(kind, args, most)) == limited


@pytest.mark.parametrize("rule", ["self.all(x, self.all(y, true))", "self.all(x, self.all(y, self.all(z, true)))"])
def test_unbounded_loops_exceed_the_per_call_limit(rule):
    assert max_cost(generate("array", ["number", rule], None)) > 1_000_000


@pytest.mark.parametrize("cost_, expected", [
    (10_000_001, "1.000000x"), (14_999_999, "1.500000x"), (15_000_000, "1.5x"), (999_999_999, "100.0x"),
    (1_000_000_001, "more than 100x")])
def test_cost_message_factor_is_printed_as_go_does(cost_, expected):
    assert cost.cost_message("estimated rule cost", cost_, 10_000_000) == (
        f"estimated rule cost exceeds budget by factor of {expected} (try simplifying the rule, or adding maxItems, "
        "maxProperties, and maxLength where arrays, maps, and strings are declared)")


def test_cardinality_multiplies_bounded_parents_and_else_uses_the_minimum_size():
    assert cost.child_cardinality({"type": "array", "maxItems": 5}, 2) == 10
    assert cost.child_cardinality({"type": "object", "additionalProperties": {"type": "string"},
                                   "maxProperties": 3}, 10) == 30
    assert cost.child_cardinality({"type": "object", "properties": {}}, 7) == 7
    assert cost.child_cardinality({"type": "array"}, 7) is None
    assert cost.child_cardinality({"type": "array", "maxItems": 5}, None) is None
    string = cost.decl_type({"type": "string"})
    assert string is not None and cost.expression_cost(3, None, string) == 3 * (3 * 1024 * 1024 // 3)


def test_total_keeps_the_four_most_expensive_above_one_percent():
    total = cost.TotalCost()
    for i, c in enumerate([999_999, 30_000_000, 1_000_000, 40_000_000, 20_000_000, 25_000_000]):
        total.observe(f"r{i}", c)
    assert total.total == 116_999_999
    assert [p for p, _ in total.expensive] == ["r3", "r1", "r5", "r4"]
    errs = total.errors("spec.validation.openAPIV3Schema")
    assert [e.field for e in errs] == ["r3", "r1", "r5", "r4", "spec.validation.openAPIV3Schema"]
    assert errs[-1].body.startswith("Forbidden: x-kubernetes-validations estimated rule cost total for entire "
                                    "OpenAPIv3 schema exceeds budget by factor of 1.170000x")
