"""The cost estimator (`cel/cost.py`) against the tables of its upstreams: cel-go v0.23.2's `checker/cost_test.go`
(with its test estimator: a hint per variable path, 12 for bytes) and apiserver v0.33's `pkg/cel/library/cost_test.go`
(every string and bytes of size 12 at most, `authorizer` declared), each with upstream's min and max."""
from __future__ import annotations

import pytest

from conformance.reference_server.cel.cost import MAX, estimate_expression
from conformance.reference_server.cel.types import (AUTHORIZER, BOOL, BYTES, DOUBLE, INT, STRING, TIMESTAMP, Type,
                                                    list_of, map_of)


def hints(table: dict[str, int]):
    """cel-go's `testCostEstimator`: a path's hint, else 12 for bytes, else nothing."""
    def estimate(path: tuple[str, ...], t: Type):
        if ".".join(path) in table:
            return 0, table[".".join(path)]
        return (0, 12) if t == BYTES else None
    return estimate


def kubernetes_sizes(_path: tuple[str, ...], t: Type):
    """library/cost_test.go's `testCostEstimator`."""
    return (0, 12) if t in (STRING, BYTES) else None


CEL_GO = [
    ('"Hello World!"', {}, {}, (0, 0)),
    ("input", {"input": list_of(INT)}, {}, (1, 1)),
    ("input['key']", {"input": map_of(STRING, STRING)}, {}, (2, 2)),
    ("has(input.testAttr)", {"input": map_of(STRING, STRING)}, {}, (2, 2)),
    ("input.all(x, true)", {"input": list_of(INT)}, {"input": 100}, (2, 302)),
    ("input.all(x, x.all(y, true))", {"input": list_of(list_of(INT))}, {"input": 50, "input.@items": 10}, (2, 1752)),
    ("[1, 2, 3].all(x, true)", {}, {}, (20, 20)),
    ("input.matches('[0-9]')", {"input": STRING}, {"input": 500}, (3, 103)),
    ("'123'.matches('[0-9]')", {}, {}, (2, 2)),
    ("true || false", {}, {}, (0, 0)),
    ("a || b || c || d", {v: BOOL for v in "abcd"}, {}, (1, 4)),
    ("a && b && c && d", {v: BOOL for v in "abcd"}, {}, (1, 4)),
    ("1 < 2", {}, {}, (1, 1)),
    ("1 == 2", {}, {}, (1, 1)),
    ("2 in [1, 2, 3]", {}, {}, (13, 13)),
    ("1 % 1", {}, {}, (1, 1)),
    ("true ? 1 : 2", {}, {}, (0, 0)),
    ('size("123")', {}, {}, (1, 1)),
    ('size(b"123")', {}, {}, (1, 1)),
    ("string(input)", {"input": BYTES}, {"input": 500}, (1, 51)),
    ("string(input) == string(input)", {"input": BYTES}, {"input": 500}, (3, 152)),
    ("bytes(input)", {"input": STRING}, {"input": 500}, (1, 51)),
    ("bytes(input) == bytes(input)", {"input": STRING}, {"input": 500}, (3, 302)),
    ("string(1)", {}, {}, (1, 1)),
    ("input.contains(arg1)", {"input": STRING, "arg1": STRING}, {"input": 500, "arg1": 500}, (2, 2502)),
    ("input.matches('\\\\d+a\\\\d+b')", {"input": STRING}, {"input": 500}, (3, 103)),
    ("input.startsWith(arg1)", {"input": STRING, "arg1": STRING}, {"arg1": 500}, (2, 52)),
    ("input.endsWith(arg1)", {"input": STRING, "arg1": STRING}, {"arg1": 500}, (2, 52)),
    ("input.size()", {"input": list_of(INT)}, {}, (2, 2)),
    ("size(input)", {"input": list_of(INT)}, {}, (2, 2)),
    ("(x > 2 ? input1 : input2).all(y, true)", {"x": INT, "input1": list_of(INT), "input2": list_of(INT)},
     {"input1": 1, "input2": 1}, (4, 7)),
    ("input.all(k, input[k].all(x, true))", {"input": map_of(STRING, list_of(INT))},
     {"input": 5, "input.@values": 10}, (2, 187)),
    ("input.all(k, k.contains(k))", {"input": map_of(STRING, STRING)}, {"input": 5, "input.@keys": 10}, (2, 32)),
    ("input.all(k, input[k].all(k, true) && k.contains(k))", {"input": map_of(STRING, list_of(STRING))},
     {"input": 2, "input.@values": 2, "input.@keys": 5}, (2, 34)),
    ("(list1 + list2).all(x, true)", {"list1": list_of(INT), "list2": list_of(INT)}, {"list1": 10, "list2": 10},
     (4, 64)),
    ('"abcdefg".contains(str1 + str2)', {"str1": STRING, "str2": STRING}, {"str1": 10, "str2": 10}, (2, 6)),
    ("list1.size() == list2.size()", {"list1": list_of(INT), "list2": list_of(INT)}, {}, (5, 5)),
    ("x > y ? list1.size() : list2.size()", {"x": INT, "y": INT, "list1": list_of(INT), "list2": list_of(INT)}, {},
     (5, 5)),
    ('str1.endsWith("abcdefghijklmnopqrstuvwxyz") == str2.endsWith("abcdefghijklmnopqrstuvwxyz")',
     {"str1": STRING, "str2": STRING}, {}, (9, 9)),
    ("((5 != 6) == (1 == 2)) == ((3 <= 4) == (9 != 9))", {}, {}, (7, 7)),
    ("string(timestamp1) == string(timestamp2)", {"timestamp1": TIMESTAMP, "timestamp2": TIMESTAMP}, {},
     (5, 1844674407370955268)),
    ("timestamp1 == timestamp2", {"timestamp1": TIMESTAMP, "timestamp2": TIMESTAMP}, {}, (3, 3)),
    ("[1,2,3,4,5].filter(x, x % 2 == 0)", {}, {}, (41, 101)),
    ("[1,2,3,4,5].map(x, x)", {}, {}, (86, 86)),
    ("[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)", {}, {}, (117, 177)),
    ("[1,2,3,4,5].map(x, x).exists(x, x == 5) == true", {}, {}, (108, 118)),
    ("[1,2,3,4,5].map(x, x).map(x, x)", {}, {}, (162, 162)),
    ("[1,2,3,4,5].map(x, x)[4]", {}, {}, (87, 87)),
    ("[[1,2],[1,2],[1,2],[1,2],[1,2]][4]", {}, {}, (61, 61)),
    ("{'a': [1,2], 'b': [1,2], 'c': [1,2], 'd': [1,2], 'e': [1,2]}.b", {}, {}, (81, 81)),
    ("[[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]].all(y, y.all(y, y == 1))", {}, {}, (76, 136)),
    ("[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))", {}, {}, (157, 217)),
    ("['a', 'ab', 'abc', 'abcd', 'abcde'].map(x, [x, x]).all(y, y.all(y, y.startsWith('a')))", {}, {}, (157, 217)),
    ("input.map(x, [x, x]).all(y, y.all(y, y.startsWith('a')))", {"input": list_of(STRING)},
     {"input": 5, "input.@items": 10}, (13, 208)),
    ("[1,2,3,4,5].map(x, x).map(x, x) + [1]", {}, {}, (173, 173)),
    ("[1,2,3].all(i, i in [1,2,3].map(j, j + j))", {}, {}, (20, 230)),
    ("dyn([1,2,3]).all(i, i in dyn([1,2,3]).map(j, j + j))", {}, {}, (21, 234)),
    ("{'hello': 'hi'}['hello'] != {'hello': 'bye'}['hello']", {}, {}, (63, 63)),
    ("['hello', 'hi'][0] != ['hello', 'bye'][1]", {}, {}, (23, 23)),
    ("type(1)", {}, {}, (1, 1)),
    ("type(1) == int", {}, {}, (3, 1844674407370955266)),
    ("self.val1 == 1.0", {"self": map_of(STRING, DOUBLE)}, {}, (3, 3)),
    ("self.val1 != self.val2", {"self": map_of(STRING, BOOL)}, {}, (5, 5)),
    ("self.val1 != true", {"self": map_of(STRING, BOOL)}, {}, (3, 3)),
    ("[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), "
     "bytes('012345678901')].max()", {}, {}, (25, 35)),
]


@pytest.mark.parametrize("expression, variables, table, expected", CEL_GO, ids=[c[0][:60] for c in CEL_GO])
def test_cel_go_cost_test(expression, variables, table, expected):
    assert estimate_expression(expression, variables, hints(table), presence_cost=1) == expected


def test_presence_tests_are_free_in_kubernetes_environment():
    variables = {"input": map_of(STRING, map_of(STRING, STRING))}
    assert estimate_expression("has(input.a.b)", variables, hints({}), presence_cost=1) == (3, 3)
    assert estimate_expression("has(input.a.b)", variables, hints({})) == (2, 2)


KUBERNETES = [
    ("authorizer.path('/healthz')", (2, 2)),
    ("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')", (6, 6)),
    ("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')", (1821, 1821)),
    ("authorizer.group('').resource('pods').labelSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')", (1821, 1821)),
    ("authorizer.path('/healthz').check('get').allowed()", (350003, 350003)),
    ("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()", (350007, 350007)),
    ("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()", (350007, 350007)),
    ("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').errored()", (350007, 350007)),
    ("authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').error()", (350007, 350007)),
    ('quantity("12Mi")', (1, 1)),
    ('isQuantity("20")', (1, 1)),
    ('isQuantity("20M")', (1, 1)),
    ('quantity("200M") == quantity("200M")', (3, 3)),
    ('quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', (3, 6)),
    ('quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")', (3, 9)),
    ('quantity("50M").isLessThan(quantity("50Mi"))', (3, 3)),
    ('quantity("50Mi").isGreaterThan(quantity("50M"))', (3, 3)),
    ('quantity("200M").compareTo(quantity("0.2G")) > 0', (4, 4)),
    ('quantity("50k").add(quantity("20")) == quantity("50.02k")', (5, 5)),
    ('quantity("50k").sub(quantity("20")) == quantity("49.98k")', (5, 5)),
    ('quantity("50k").sub(20) == quantity("49980")', (4, 4)),
    ('quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0', (6, 6)),
    ('quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0', (7, 7)),
    ('quantity("50k").asInteger() > 0', (3, 3)),
    ('quantity("50").isInteger()', (2, 2)),
    ('quantity("50.703k").asApproximateFloat() > 0.0', (3, 3)),
    ('format.named("dns1123subdomain")', (1, 1)),
    ('format.named("dns1123Label").value().validate("my-name")', (34, 34)),
    ('format.named("dns1123Label").value().validate("my-name")', (34, 34)),
    ('format.named("dns1123Label").value() == format.named("dns1123Label").value()', (5, 11)),
    ('sets.contains([], [])', (21, 21)),
    ('sets.contains([1], [])', (21, 21)),
    ('sets.contains([1], [1])', (22, 22)),
    ('sets.contains([1], [1, 1])', (23, 23)),
    ('sets.contains([1, 1], [1])', (23, 23)),
    ('sets.contains([2, 1], [1])', (23, 23)),
    ('sets.contains([1, 2, 3, 4], [2, 3])', (29, 29)),
    ('sets.contains([1], [1.0, 1])', (23, 23)),
    ('sets.contains([1, 2], [2u, 2.0])', (25, 25)),
    ('sets.contains([1, 2u], [2, 2.0])', (25, 25)),
    ('sets.contains([1, 2.0, 3u], [1.0, 2u, 3])', (30, 30)),
    ('!sets.contains([1], [2])', (23, 23)),
    ('!sets.contains([1], [1, 2])', (24, 24)),
    ('!sets.contains([1], ["1", 1])', (24, 24)),
    ('!sets.contains([1], [1.1, 1u])', (24, 24)),
    ('sets.equivalent([], [])', (21, 21)),
    ('sets.equivalent([1], [1])', (23, 23)),
    ('sets.equivalent([1], [1, 1])', (25, 25)),
    ('sets.equivalent([1, 1], [1])', (25, 25)),
    ('sets.equivalent([1], [1u, 1.0])', (25, 25)),
    ('sets.equivalent([1], [1u, 1.0])', (25, 25)),
    ('sets.equivalent([1, 2, 3], [3u, 2.0, 1])', (39, 39)),
    ('sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])', (69, 69)),
    ('!sets.equivalent([2, 1], [1])', (26, 26)),
    ('!sets.equivalent([1], [1, 2])', (26, 26)),
    ('!sets.equivalent([1, 2], [2u, 2, 2.0])', (34, 34)),
    ('!sets.equivalent([1, 2], [1u, 2, 2.3])', (34, 34)),
    ('sets.intersects([1], [1])', (22, 22)),
    ('sets.intersects([1], [1, 1])', (23, 23)),
    ('sets.intersects([1, 1], [1])', (23, 23)),
    ('sets.intersects([2, 1], [1])', (23, 23)),
    ('sets.intersects([1], [1, 2])', (23, 23)),
    ('sets.intersects([1], [1.0, 2])', (23, 23)),
    ('sets.intersects([1, 2], [2u, 2, 2.0])', (27, 27)),
    ('sets.intersects([1, 2], [1u, 2, 2.3])', (27, 27)),
    ('sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])', (65, 65)),
    ('!sets.intersects([], [])', (22, 22)),
    ('!sets.intersects([1], [])', (22, 22)),
    ('!sets.intersects([1], [2])', (23, 23)),
    ('!sets.intersects([1], ["1", 2])', (24, 24)),
    ('!sets.intersects([1], [1.1, 2u])', (24, 24)),
    ('semver("1.0.0")', (1, 1)),
    ('semver("1234.56789012345.67890123456789")', (4, 4)),
    ('isSemver("1.0.0")', (1, 1)),
    ('isSemver("1234.56789012345.67890123456789")', (4, 4)),
    ('semver("1.2.3").major()', (2, 2)),
    ('semver("1.2.3").minor()', (2, 2)),
    ('semver("1.2.3").patch()', (2, 2)),
    ('semver("1.0.0").isLessThan(semver("1.1.0"))', (3, 3)),
    ('semver("1.1.0").isGreaterThan(semver("1.0.0"))', (3, 3)),
    ('semver("1.0.0").compareTo(semver("1.2.3"))', (3, 3)),
    ("{'a': 1, 'b': 2}.all(k, v, v > 0)", (37, 41)),
    ("{'a': 1, 'b': 2}.exists(k, v, v > 0)", (39, 43)),
    ("{'a': 1, 'b': 2}.existsOne(k, v, v > 0)", (38, 40)),
    ("{'a': 1, 'b': 2}.transformMap(k, v, v + 1)", (71, 71)),
    ("{'a': 1, 'b': 2}.transformMap(k, v, v < 5, v + 1)", (67, 75)),
    ("{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v + 1})", (131, 131)),
    ("{'a': 1, 'b': 2}.transformMapEntry(k, v, v < 5, {k: v + 1})", (67, 135)),
]
_LISTS = {
    "int": "[1, 2, 3, 4, 5]", "uint": "[uint(1), uint(2), uint(3), uint(4), uint(5)]",
    "double": "[1.0, 2.0, 3.0, 4.0, 5.0]", "bool": "[false, true, false, true, false]",
    "string": "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']",
    "bytes": "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), "
             "bytes('012345678901')]",
    "duration": "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]",
    "timestamp": "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), "
                 "timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), "
                 "timestamp('2011-01-05T00:00:00.000+01:00')]",
}
KUBERNETES += [(_LISTS[k] + ".sum()", (c, c)) for k, c in (("int", 15), ("uint", 20), ("double", 15), ("duration", 20))]
KUBERNETES += [(_LISTS[k] + op, c) for op in (".isSorted()", ".max()", ".min()") for k, c in (
    ("int", (15, 15)), ("uint", (20, 20)), ("double", (15, 15)), ("bool", (15, 15)), ("string", (15, 25)),
    ("bytes", (25, 35)), ("duration", (20, 20)), ("timestamp", (20, 20)))]
KUBERNETES += [(_LISTS[k] + op % p, c) for op in (".indexOf(%s)", ".lastIndexOf(%s)") for k, p, c in (
    ("int", "3", (15, 15)), ("uint", "uint(3)", (21, 21)), ("double", "3.0", (15, 15)), ("bool", "true", (15, 15)),
    ("string", "'x'", (15, 25)), ("bytes", "bytes('x')", (26, 36)), ("duration", "duration('3s')", (21, 21)),
    ("timestamp", "timestamp('2011-01-03T00:00:00.000+01:00')", (21, 21)))]
KUBERNETES += [("'01234567890123456789012345678901234567890123456789'" + op, (5, 5))
               for op in (".indexOf('123')", ".lastIndexOf('123')")]
KUBERNETES += [("url('https:://kubernetes.io/')" + op, (4, 4)) for op in (
    ".getScheme()", ".getHostname()", ".getHost()", ".getPort()", ".getEscapedPath()", ".getQuery()")]
KUBERNETES += [("url('https:://kubernetes.io/') == url('https:://kubernetes.io/')", (7, 9)),
               ("url('https:://kubernetes.io/') == url('http://x.b')", (5, 5))]


@pytest.mark.parametrize("expression, expected", KUBERNETES, ids=[c[0][:60] for c in KUBERNETES])
def test_kubernetes_library_cost_test(expression, expected):
    assert estimate_expression(expression, {"authorizer": AUTHORIZER}, kubernetes_sizes) == expected


def test_saturation_and_unknown_sizes():
    """An unknown size is [0, MaxUint64]; a cost factor on it saturates as Go's float64 arithmetic does."""
    assert estimate_expression("s + s", {"s": STRING}) == (2, 1844674407370955266)
    assert estimate_expression("s.all(x, s.all(y, s.all(z, true)))", {"s": list_of(INT)})[1] == MAX
    assert estimate_expression("s.size()", {"s": STRING}) == (2, 2)
