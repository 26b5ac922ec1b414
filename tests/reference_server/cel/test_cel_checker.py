"""The type checker against cel-go's own verdicts: the cases of `checker/checker_test.go` (cel-go v0.23.2, the
version kube-apiserver 1.33 vendors) that need no protobuf messages of cel-go's test environment, each with cel-go's
output type or its error text; then kube-apiserver's environment (`environment/base.go`) through
`compile_detail`, as a ValidatingAdmissionPolicy's expression is compiled on write."""
from __future__ import annotations

import sys

import pytest

from conformance.reference_server.cel.checker import Checker
from conformance.reference_server.cel.engine import CompileError, compile_expression, issue_text
from conformance.reference_server.cel.environments import BOOL, compile_detail, declared
from conformance.reference_server.cel.parser import parse
from conformance.reference_server.cel.types import INT, Type, list_of, map_of, optional_of

MSG = Type("google.expr.proto3.test.TestAllTypes")
NESTED = Type("google.expr.proto3.test.NestedTestAllTypes")
OBJECTS = {MSG.name: {"single_int64": INT, "single_int32": INT, "repeated_int64": list_of(INT),
                      "map_int64_nested_type": map_of(INT, NESTED)}, NESTED.name: {}}
STRING = Type("string")


def verdict(expression: str, idents: dict[str, Type] | None = None) -> tuple[str | None, str]:
    """cel-go's `Check` in a plain environment: the output type (None on error) and the issues' text."""
    idents = idents or {}
    try:
        compile_expression(expression, frozenset(idents))
    except CompileError as exc:
        return None, str(exc)
    checker = Checker(idents, objects=OBJECTS)
    out = checker.output(parse(expression))
    errors = "\n".join(issue_text(expression, at, message) for at, message in sorted(checker.errors))
    return (None if errors else str(out)), errors


def caret(expression: str, line_col: str, message: str) -> str:
    col = int(line_col.split(":")[1])
    return f"ERROR: <input>:{line_col}: {message}\n | {expression}\n | {'.' * (col - 1)}^"


# (expression, identifiers, cel-go's output type) from checker_test.go's testCases
TYPED = [
    ('"A"', None, "string"), ("12", None, "int"), ("12u", None, "uint"), ("true", None, "bool"),
    ("false", None, "bool"), ("12.23", None, "double"), ("null", None, "null_type"), ('b"ABC"', None, "bytes"),
    ("[]", None, "list(dyn)"), ("[1]", None, "list(int)"), ('[1, "A"]', None, "list(dyn)"),
    ("[] + [1,2,3,] + [4]", None, "list(int)"), ("[1, 2u] + []", None, "list(dyn)"),
    ("{1:2u, 2:3u}", None, "map(int, uint)"), ('{"a":1, "b":2}.a', None, "int"),
    ("{1:2u, 2u:3}", None, "map(dyn, dyn)"), ('int(1u) + int(uint("1"))', None, "int"),
    ("false && !true || false ? 2 : 3", None, "int"), ('b"abc" + b"def"', None, "bytes"),
    ("1.0 + 2.0 * 3.0 - 1.0 / 2.20202 != 66.6", None, "bool"), ("null == null && null != null", None, "bool"),
    ("1 == 1 && 2 != 1", None, "bool"), ("1 + 2 * 3 - 1 / 2 == 6 % 1", None, "bool"),
    ('"abc" + "def"', None, "string"), ("1u + 2u * 3u - 1u / 2u == 6u % 1u", None, "bool"),
    ("size(x) == x.size()", {"x": list_of(INT)}, "bool"),
    ("x.repeated_int64.map(x, double(x))", {"x": MSG}, "list(double)"),
    ("x.repeated_int64.map(x, x > 0, double(x))", {"x": MSG}, "list(double)"),
    ("x.repeated_int64.all(e, e > 0) && x.repeated_int64.exists(e, e < 0) && "
     "x.repeated_int64.exists_one(e, e == 0)", {"x": MSG}, "bool"),
    ("list == type([1]) && map == type({1:2u})", None, "bool"), ("1 in [1, 2, 3]", None, "bool"),
    ("1 in dyn([1, 2, 3])", None, "bool"), ("type(null) == null_type", None, "bool"),
    ("type(type) == type", None, "bool"),
    ("([[[1]], [[2]], [[3]]][0][0] + [2, 3, {'four': {'five': 'six'}}])[3]", None, "dyn"),
    ("[1] + [dyn('string')]", None, "list(dyn)"), ("[dyn('string')] + [1]", None, "list(dyn)"), ("{}", None,
                                                                                                  "map(dyn, dyn)"),
    ("1 <= 1.0 && 1u <= 1.0 && 1.0 <= 1 && 1.0 <= 1u && 1 <= 1u && 1u <= 1", None, "bool"),
    ("1 < 1.0 && 1u < 1.0 && 1.0 < 1 && 1.0 < 1u && 1 < 1u && 1u < 1", None, "bool"),
    ("1 > 1.0 && 1u > 1.0 && 1.0 > 1 && 1.0 > 1u && 1 > 1u && 1u > 1", None, "bool"),
    ("1 >= 1.0 && 1u >= 1.0 && 1.0 >= 1 && 1.0 >= 1u && 1 >= 1u && 1u >= 1", None, "bool"),
    ("[1].map(x, [x, x]).map(x, [x, x])", None, "list(list(list(int)))"),
    ("[{}.map(c,c,c)]+[{}.map(c,c,c)]", None, "list(list(bool))"),
    ("{}.map(c,[c,type(c)])", None, "list(list(dyn))"),
    ("size([] + [1])", {"x": MSG}, "int"), ("(x + x)[1].single_int32 == size(x)", {"x": list_of(MSG)}, "bool"),
    ("x.repeated_int64[x.single_int32] == 23", {"x": MSG}, "bool"),
    ("size(x.map_int64_nested_type) == 0", {"x": MSG}, "bool"),
    ('args.user["myextension"].customAttributes.filter(x, x.name == "hobbies")',
     {"args": map_of(STRING, Type("dyn"))}, "list(dyn)"),
    ('values.filter(i, i.content != "").map(i, i.content)', {"values": list_of(map_of(STRING, STRING))},
     "list(string)"),
    ("a.?b", {"a": map_of(STRING, STRING)}, "optional_type(string)"),
    ("type(a.?b) == optional_type", {"a": map_of(STRING, STRING)}, "bool"),
    ("a.b", {"a": optional_of(map_of(STRING, STRING))}, "optional_type(string)"),
    ("a.dynamic", {"a": optional_of(Type("dyn"))}, "optional_type(dyn)"),
    ("has(a.dynamic)", {"a": optional_of(Type("dyn"))}, "bool"),
    ("has(a.?b.c)", {"a": optional_of(map_of(STRING, Type("dyn")))}, "bool"),
    ("{?'key': {'a': 'b'}.?value}", None, "map(string, string)"),
    ("{?'key': {'a': 'b'}.?value}.key", None, "string"),
    ("{?'nested': a.b}", {"a": optional_of(map_of(STRING, STRING))}, "map(string, string)"),
    ("[?a, ?b, 'world']", {"a": optional_of(STRING), "b": optional_of(STRING)}, "list(string)"),
]

# (expression, identifiers, [(line:col, message)]) from checker_test.go's error cases
REFUSED = [
    ("foo", None, [("1:1", "undeclared reference to 'foo' (in container '')")]),
    ("x + y", {"x": list_of(MSG), "y": list_of(INT)},
     [("1:3", "found no matching overload for '_+_' applied to '(list(google.expr.proto3.test.TestAllTypes), "
              "list(int))'")]),
    ("x[1u]", {"x": list_of(MSG)},
     [("1:2", "found no matching overload for '_[_]' applied to '(list(google.expr.proto3.test.TestAllTypes), "
              "uint)'")]),
    ("x.all(y, y == true)", {"x": Type("bool")},
     [("1:1", "expression of type 'bool' cannot be range of a comprehension (must be list, map, or dynamic)")]),
    ("x[2].single_int32 == 23", {"x": map_of(Type("string"), MSG)},
     [("1:2", "found no matching overload for '_[_]' applied to '(map(string, google.expr.proto3.test."
              "TestAllTypes), int)'")]),
    ("x.single_int64 != null", {"x": MSG}, [("1:16", "found no matching overload for '_!=_' applied to "
                                                     "'(int, null)'")]),
    ("x.repeated_int64.exists(y, y > 10) && y < 5", {"x": MSG},
     [("1:39", "undeclared reference to 'y' (in container '')")]),
    ("x.all(e, 0)", {"x": MSG},
     [("1:1", "expression of type 'google.expr.proto3.test.TestAllTypes' cannot be range of a comprehension "
              "(must be list, map, or dynamic)"), ("1:10", "expected type 'bool' but found 'int'")]),
    ("1 + x", None, [("1:5", "undeclared reference to 'x' (in container '')")]),
    ("[].map(x, [].map(y, x in y && y in x))", None,
     [("1:33", "found no matching overload for '@in' applied to '(list(dyn), dyn)'")]),
    ("Msg{}", None, [("1:4", "undeclared reference to 'Msg' (in container '')")]),
    ("fun()", None, [("1:4", "undeclared reference to 'fun' (in container '')")]),
    ("'string'.fun()", None, [("1:13", "undeclared reference to 'fun' (in container '')")]),
    ("[].length", None, [("1:3", "type 'list(_var0)' does not support field selection")]),
    ("{?'key': 'hi'}", None, [("1:10", "expected type 'optional_type(string)' but found 'string'")]),
    ("[?'value']", None, [("1:3", "expected type 'optional_type(string)' but found 'string'")]),
    ("undef", None, [("1:1", "undeclared reference to 'undef' (in container '')")]),
    ("undef()", None, [("1:6", "undeclared reference to 'undef' (in container '')")]),
]


@pytest.mark.parametrize("expression,idents,expected", TYPED, ids=[c[0][:40] for c in TYPED])
def test_cel_go_checker_cases_type_as_cel_go_types_them(expression: str, idents: dict[str, Type] | None,
                                                       expected: str) -> None:
    assert verdict(expression, idents) == (expected, "")


@pytest.mark.parametrize("expression,idents,errors", REFUSED, ids=[c[0][:40] for c in REFUSED])
def test_cel_go_checker_error_cases_give_cel_gos_errors(expression: str, idents: dict[str, Type] | None,
                                                       errors: list[tuple[str, str]]) -> None:
    expected = "\n".join(caret(expression, at, message) for at, message in errors)
    assert verdict(expression, idents) == (None, expected)


# kube-apiserver 1.33's environment: what its write-time compile refuses, in cel-go's words
K8S_REFUSED = [
    ("true ? 1 : 'a'", "1:6", "found no matching overload for '_?_:_' applied to '(bool, int, string)'"),
    ("object.x == 1 ? 'a' : null", "1:15", "found no matching overload for '_?_:_' applied to '(bool, string, null)'"),
    ("1 == 1.0", "1:3", "found no matching overload for '_==_' applied to '(int, double)'"),
    ("request.name != 1", "1:14", "found no matching overload for '_!=_' applied to '(string, int)'"),
    ("'a' == null", "1:5", "found no matching overload for '_==_' applied to '(string, null)'"),
    ("1 in [1.0]", "1:3", "found no matching overload for '@in' applied to '(int, list(double))'"),
    ("'a'.foo() == 1", "1:8", "undeclared reference to 'foo' (in container '')"),
    ("object.metadata.name.lowerCase() == 'a'", "1:31", "undeclared reference to 'lowerCase' (in container '')"),
    ("contains('a', 'b')", "1:9", "found no matching overload for 'contains' applied to '(string, string)'"),
    ("'a'.int() == 1", "1:8", "found no matching overload for 'int' applied to 'string.()'"),
    ("quantity('1').sign() == 1", "1:19", "found no matching overload for 'sign' applied to "
                                          "'kubernetes.Quantity.()'"),
    ("size('a', 'b') == 1", "1:5", "found no matching overload for 'size' applied to '(string, string)'"),
    ("'abc'.substring(1, 2, 3) == 'b'", "1:16",
     "found no matching overload for 'substring' applied to 'string.(int, int, int)'"),
    ("request.name.foo == 'a'", "1:13", "type 'string' does not support field selection"),
    ("ip('1.2.3.4').family.x == 4", "1:14", "type 'net.IP' does not support field selection"),
    ("object.items.size() && true", "1:18", "expected type 'bool' but found 'int'"),
    ("[1, 2].filter(x, x).size() == 1", "1:14",
     "found no matching overload for '_?_:_' applied to '(int, list(int), list(int))'"),
    ("request.userInfo.groups.all(g, g.size())", "1:38", "expected type 'bool' but found 'int'"),
    ("authorizer.group('').resource('pods').check('get').allowed() == 'yes'", "1:62",
     "found no matching overload for '_==_' applied to '(bool, string)'"),
    ("math.greatest(1, 2) == 2", "1:1", "undeclared reference to 'math' (in container '')"),
    # authz.go's types are receiver-only `cel.ObjectType`s, which no type provider describes
    ("authorizer.user == 'a'", "1:11", "unexpected failed resolution of 'kubernetes.authorization.Authorizer'"),
    # ext.Bindings is not in 1.33's base environment: `cel.bind` is no macro there
    ("cel.bind(x, 1, x + 1) == 2", "1:1", "undeclared reference to 'cel' (in container '')"),
    # the literal validators (ValidateDurationLiterals, ValidateTimestampLiterals, ValidateRegexLiterals)
    ("duration('1x') < duration('1h')", "1:10", "invalid duration argument"),
    ("timestamp('2020-13-01T00:00:00Z') == timestamp('2020-01-01T00:00:00Z')", "1:11", "invalid timestamp argument"),
    ("request.name.matches('[')", "1:22", "invalid matches argument"),
    ("request.name.matches('^a(?=b)')", "1:22", "invalid matches argument"),
    ("matches('(', request.name)", "1:9", "invalid matches argument"),  # the global form: its first argument
    # Go's regexp/syntax (goregexp/), where Python's `re` read these
    ("request.name.matches('[[:foo:]]')", "1:22", "invalid matches argument"),
    ("request.name.matches('a{1001}')", "1:22", "invalid matches argument"),
    ("request.name.matches('\\\\Z')", "1:22", "invalid matches argument"),
]


@pytest.mark.parametrize("expression,at,message", K8S_REFUSED, ids=[c[0][:40] for c in K8S_REFUSED])
def test_kube_environment_refuses_what_cel_go_refuses(expression: str, at: str, message: str) -> None:
    detail = compile_detail(expression, declared(), BOOL)
    assert detail is not None and detail.startswith(f"compilation failed: {caret(expression, at, message)}"), detail


@pytest.mark.parametrize("expression", [
    "1 < 1.0 && 2u >= 1",  # CrossTypeNumericComparisons(true): orderings mix numbers, equality does not
    "(object.x == 1 ? dyn('a') : 1) != null",
    "object.spec.replicas == 1.0 || object.spec.replicas == 1",  # dyn against anything
    "sign(quantity('1')) == 1",
    "timestamp('2024-01-01T00:00:00Z').getFullYear() == 2024 && duration('1h').getHours() == 1",
    "[1, 2].sum() == 3 && ['a'].min() == 'a' && [1].indexOf(1) == 0",
    "authorizer.group('apps').resource('deployments').namespace('n').name('d').subresource('scale')"
    ".check('update').allowed()",
    "authorizer.path('/healthz').check('get').reason() == '' && !authorizer.requestResource.check('get').errored()",
    "authorizer.serviceAccount('ns', 'sa').group('').resource('pods').labelSelector('a=b').check('list').allowed()",
    "{'a': 1}.all(k, v, v > 0 && k == 'a') && [1].transformList(i, v, v + i) == [1]",
    "object.?spec.orValue(1) == 1 && [1][?0].hasValue() && [1].first().value() == 1",
    "sets.contains([1], [1]) && sets.intersects([request.name], ['a']) && sets.equivalent([1u], [1u])",
    "has(object.spec) && object.metadata.labels.all(k, k.startsWith('a'))",
    "type(object.a) == string || type(object.a) == list",
    "duration('1h30m') > duration('-1.5s') && duration('0') == duration('300ms')",
    "timestamp('2020-01-01T00:00:00.123+01:00') > timestamp('2020-01-01T00:00:00Z')",
    r"request.name.matches('^\\d+$') && request.name.matches(r'\pL+') && matches(request.name, '[[:alpha:]]')",
    r"request.name.matches(r'(?U)a+\Q.*\E\p{Greek}\z') && request.name.matches('(?P<x>a)(?P<x>b)')",
])
def test_kube_environment_accepts_what_cel_go_accepts(expression: str) -> None:
    assert compile_detail(expression, declared(), BOOL) is None


def _checking_calls(clauses: int) -> int:
    """Python function calls the checker makes over a policy-sized expression: a count, not a time, so the
    test measures the checker and not the machine's load."""
    expression = " && ".join(f"(object.spec.x{i} == 'a' || request.name.startsWith('b{i}') || [1, 2].all(v, v > {i}))"
                             for i in range(clauses))
    node = parse(expression)
    checker = Checker({"object": Type("dyn"), "request": Type("kubernetes.AdmissionRequest")})
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event == "call"
    sys.setprofile(count)
    try:
        out = checker.output(node)
    finally:
        sys.setprofile(None)
    assert str(out) == "bool" and not checker.errors
    return calls


def test_checking_stays_cheap() -> None:
    """Policies are compiled on write: checking grows linearly with the expression (no substitution chains
    that grow with every type variable), at some hundreds of calls a clause (~460 today)."""
    sixty, hundred_twenty = _checking_calls(60), _checking_calls(120)
    assert hundred_twenty <= 2.1 * sixty
    assert sixty <= 60 * 1000


def test_every_issue_is_reported_with_an_undeclared_name() -> None:
    """The engine stops at the first undeclared name; cel-go's checker goes on and reports the rest."""
    expression = "foo == 1 && 1 == 'a'"
    assert compile_detail(expression, declared(), BOOL) == (
        "compilation failed: " + caret(expression, "1:1", "undeclared reference to 'foo' (in container '')") + "\n"
        + caret(expression, "1:15", "found no matching overload for '_==_' applied to '(int, string)'"))
