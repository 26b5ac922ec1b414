"""cel/runtimecost.py: the actual costs cel-go v0.23.2 tracks (`interpreter/runtimecost_test.go` `TestRuntimeCost`)
and the Kubernetes libraries' (`staging/src/k8s.io/apiserver/pkg/cel/library/cost_test.go`), expression by
expression, and the limit's cancellation where cel-go's tracker panics."""
from __future__ import annotations

from typing import Any

import pytest

from conformance.reference_server.cel.runtimecost import LIMIT_EXCEEDED, CostLimitExceeded, tracked_cost

# runtimecost_test.go TestRuntimeCost: (expression, activation, cel-go's actual cost); Kubernetes' environment
# does not charge presence tests (`PresenceTestHasCost(false)`), so its "no has() cost" variant is the one here
CEL_GO: list[tuple[str, dict[str, Any], int]] = [
    ('"Hello World!"', {}, 0),
    ("input", {"input": [1, 2]}, 1),
    ("input['key']", {"input": {"key": "v"}}, 2),
    ("input[0]", {"input": ["v"]}, 2),
    ("input['ke' + 'y']", {"input": {"key": "v"}}, 3),
    ("input[3-3]", {"input": ["v"]}, 3),
    ("has(input.testAttr.nestedAttr)", {"input": {"testAttr": {"nestedAttr": "x"}}}, 2),
    ("[1, 2, 3]", {}, 10),
    ('{"a": 1, "b": 2, "c": 3}', {}, 30),
    ("input.all(x, true)", {"input": []}, 2),
    ("[1, 2, 3].all(x, true)", {}, 20),
    ("input.matches('[0-9]')", {"input": "x" * 500}, 103),
    ("'123'.matches('[0-9]')", {}, 2),
    ("false || false", {}, 0),
    ("true || false", {}, 0),
    ("a || b || c || d", {"a": False, "b": False, "c": False, "d": False}, 4),
    ("a && b && c && d", {"a": True, "b": True, "c": True, "d": True}, 4),
    ("1 < 2", {}, 1),
    ("2 in [1, 2, 3]", {}, 13),
    ("1 + 1", {}, 1),
    ("true ? 1 : 2", {}, 0),
    ('size("123")', {}, 1),
    ("'12345678901234567890' == '123456789012345678901234567890'", {}, 2),
    ("string(input)", {"input": b"x" * 500}, 51),
    ("bytes(input)", {"input": "x" * 500}, 51),
    ("string(1)", {}, 1),
    ("input.contains(arg1)", {"input": "x" * 500, "arg1": "y" * 500}, 2502),
    ("input.matches('\\\\d+a\\\\d+b')", {"input": "x" * 500}, 103),
    ("input.startsWith(arg1)", {"input": "idc", "arg1": "y" * 500}, 3),
    ("input.endsWith(arg1)", {"input": "idc", "arg1": "y" * 500}, 3),
    ("input.size()", {"input": "500"}, 2),
    ("(x > 2 ? input1 : input2).all(y, true)", {"input1": [{}], "input2": [{}], "x": 1}, 6),
    ("true ? false : 1 > 3", {}, 0),
    ("false ? false : 1 > 3", {}, 1),
    ("input.all(k, input[k].single_int32 > 3)", {"input": {"val": {"single_int32": 0}}}, 9),
    ("input.all(k, input[k].all(x, true))", {"input": {}}, 2),
    ("(list1 + list2).all(x, true)", {"list1": [], "list2": []}, 4),
    ('"abcdefg".contains(str1 + str2)', {"str1": "val1", "str2": "val2222222"}, 6),
    ("(1 > 2 ? 5 : 3) > 1", {}, 2),
    ("(1 > 2 || 2 > 1) == true", {}, 3),
    ("[{'k1': 1}, {'k2': 2}].all(x, true)", {}, 77),
    ("[1,2,3,4,5].filter(x, x % 2 == 0)", {}, 62),
    ("[1,2,3,4,5].map(x, x)", {}, 86),
    ("[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)", {}, 138),
    ("[1,2,3,4,5].map(x, x).exists(x, x == 5) == true", {}, 118),
    ("[1,2,3,4,5].map(x, x).map(x, x)", {}, 162),
    ("[1,2,3,4,5].map(x, [x, x]).filter(z, z.size() == 2)", {}, 232),
    ("[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))", {}, 171),
    ("[1,2,3,4,5].map(x, x).map(x, x) + [1]", {}, 173),
    ("[1,2,3].all(i, i in [1,2,3].map(j, j + j))", {}, 86),
]

# cost_test.go (library): TestListsCost, TestURLsCost, TestIPIsCanonicalCost, TestStringLibrary, TestJSONPatch
KUBERNETES: list[tuple[str, int]] = [
    ("[1, 2, 3, 4, 5].sum()", 15),
    ("[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')].sum()", 20),
    ("[1, 2, 3, 4, 5].isSorted()", 15),
    ("[1, 2, 3, 4, 5].max()", 15),
    ("url('https:://kubernetes.io/').getScheme()", 4),
    ("url('https:://kubernetes.io/') == url('https:://kubernetes.io/')", 7),
    ("url('https:://kubernetes.io/') == url('http://x.b')", 5),
    ("ip.isCanonical('192.168.0.1')", 3),
    ("ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')", 8),
    ("ip.isCanonical('2001:db8::abcd')", 3),
    ("'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3),
    ("'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", 9),
    ("'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()", 9),
    ("strings.quote('ABCDEFGHIJ abcdefghij')", 3),
    ("strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')", 9),
    ("'abc 123 def 123'.replace('123', '456')", 3),
    ("'abc 123 def 123'.replace('123', '456', 1)", 3),
    ("'abc 123 def 123'.split(' ')", 3),
    ("'abc 123 def 123'.split(' ', 1)", 3),
    ("'abc 123 def 123'.substring(5)", 2),
    ("'abc 123 def 123'.substring(5, 8)", 2),
    ("'  abc 123 def 123  '.trim()", 2),
    ("['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", 15),
    ("['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", 13),
    ("'abc 123 def 123'.find('123')", 2),
    ("'abc 123 def 123'.findAll('123')", 2),
    ("'abc 123 def 123'.findAll('123', 1)", 2),
    ("jsonpatch.escapeKey('abc/def~ abc/def~')", 2),
]


@pytest.mark.parametrize(("expression", "activation", "cost"), CEL_GO, ids=[c[0] for c in CEL_GO])
def test_cel_go_runtime_costs(expression: str, activation: dict[str, Any], cost: int) -> None:
    assert tracked_cost(expression, activation) == cost


@pytest.mark.parametrize(("expression", "cost"), KUBERNETES, ids=[c[0] for c in KUBERNETES])
def test_kubernetes_library_runtime_costs(expression: str, cost: int) -> None:
    assert tracked_cost(expression, {}) == cost


def test_the_limit_cancels_past_it_as_cel_go_does() -> None:
    """runtimecost_test.go "at limit" (6: runs) and "above limit" (5: cancelled, the cost when it was)."""
    activation = {"str1": "val1", "str2": "val2222222"}
    assert tracked_cost('"abcdefg".contains(str1 + str2)', activation, limit=6) == 6
    with pytest.raises(CostLimitExceeded, match=LIMIT_EXCEEDED) as caught:
        tracked_cost('"abcdefg".contains(str1 + str2)', activation, limit=5)
    assert caught.value.cost == 6


def test_authorization_checks_cost_a_third_of_the_call_limit() -> None:
    """library/cost.go: `check` costs 350,000 (two per expression), its builders 1 each (cost_test.go
    TestAuthzLibraryCost: `authorizer.path('/healthz').check('get').allowed()` is 350003)."""
    from conformance.reference_server.cel.libs.authz import authorizer_value
    activation = {"authorizer": authorizer_value({"userInfo": {"username": "u"}})}
    assert tracked_cost("authorizer.path('/healthz').check('get').allowed()", activation) == 350003
    with pytest.raises(CostLimitExceeded):
        tracked_cost(" && ".join(["authorizer.path('/healthz').check('get').allowed()"] * 3), activation,
                     limit=1_000_000)


def test_static_bounds_hold_the_actual_costs() -> None:
    """`static_bound` bounds what the walk finds for every case above it can bound, and bounds nothing whose cost
    the inputs' sizes decide."""
    from conformance.reference_server.cel.runtimecost import static_bound
    bounded = 0
    for expression, activation, cost in CEL_GO + [(e, {}, c) for e, c in KUBERNETES]:
        bound = static_bound(expression)
        if bound is not None:
            bounded += 1
            assert bound[0] <= cost <= bound[1], expression
    assert bounded > 40
    assert static_bound("object.spec.replicas <= 5") == (1, 4)
    assert static_bound("request.userInfo.username == 'admin'") == (1, 4)  # ceil(5 / 10) for `==`
    for unbounded in ("object.metadata.name.startsWith('x')", "object.spec.items.all(i, i > 0)",
                      "a == b", "a + b == 1", "[1, 2].sum() + x.max()"):
        assert static_bound(unbounded) is None, unbounded


def test_bounds_by_the_inputs_an_expression_reads() -> None:
    """Over inputs of at most 100 characters (rounded up to 128) `a.contains(b)` costs at most 2 + 13 x 13; the
    sizes that count are those within what the expression reads."""
    from conformance.reference_server.cel.runtimecost import largest_input, read_paths, static_bound
    assert static_bound("a.contains(b)", 100) == (2, 171)
    assert read_paths("object.metadata.name.startsWith(x.y) && object.data.all(k, k != '')") == (
        ("k",), ("object", "data"), ("object", "metadata", "name"), ("x", "y"))
    activation = {"object": {"metadata": {"name": "n" * 7, "annotations": {"a": "z" * 900}}}, "x": {"y": "abc"}}
    assert largest_input(activation) == 900
    assert largest_input(activation, read_paths("object.metadata.name.startsWith(x.y)")) == 7
